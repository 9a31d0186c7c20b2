"""vc.threshold_table with weights whose total exceeds the largest double (round 31).

Weights of 1e308 each are finite, but their sum over the rows is not. The rates are ratios of weight sums
and do not depend on the weights' scale; the in-memory route read them off weights rescaled by a power of
two (finite), while the lazy route (polars LazyFrame, DuckDB relation) read them off caller-unit counts,
where ``inf / inf`` made every recall, false-alarm rate and precision NaN (and numpy warned). Every route
must give the same finite rates: those of the same rows with the weights divided by 1e308.
"""

from __future__ import annotations

import dask.dataframe as dd
import duckdb
import numpy as np
import polars as pl
import pytest

import veracity as vc

S = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.65, 0.55])
Y = np.array([0, 0, 1, 1, 1, 0, 0, 1])
REL = np.array([1.0, 2.0, 1.0, 4.0, 1.0, 1.0, 2.0, 1.0])  # relative weights: REL / 4 * scale is finite
T = [0.3, 0.5, 0.6, 0.85]

# by hand, weights REL: positives rows 2 (0.35, w1), 3 (0.8, w4), 4 (0.9, w1), 7 (0.55, w1): P = 7;
# negatives rows 0 (0.1, w1), 1 (0.4, w2), 5 (0.2, w1), 6 (0.65, w2): N = 6
TP = np.array([7.0, 6.0, 5.0, 1.0])
FP = np.array([4.0, 2.0, 2.0, 0.0])
RECALL = TP / 7.0
FAR = FP / 6.0
PRECISION = TP / (TP + FP)


def _routes(scale: float) -> dict[str, object]:
    w = REL / 4 * scale
    frame = pl.DataFrame({"p": S, "y": Y, "w": w})
    con = duckdb.connect()
    out = {
        "memory": vc.threshold_table(S, Y, T, sample_weight=w),
        "polars-eager": vc.threshold_table(frame, T, score="p", label="y", sample_weight="w"),
        "polars-lazy": vc.threshold_table(frame.lazy(), T, score="p", label="y", sample_weight="w"),
        "duckdb": vc.threshold_table(con.from_arrow(frame.to_arrow()), T, score="p", label="y",
                                     sample_weight="w"),
        "dask": vc.threshold_table(dd.from_pandas(frame.to_pandas(), npartitions=2), T, score="p", label="y",
                                   sample_weight="w"),
    }
    con.close()
    return out


@pytest.mark.parametrize("scale", [1e308, 2.0 ** 1023, 1e300])
def test_rates_finite_and_equal_on_every_route(scale):
    for route, table in _routes(scale).items():
        for name, want in (("recall", RECALL), ("false_alarm_rate", FAR), ("precision", PRECISION)):
            got = getattr(table, name)
            assert np.isfinite(got).all(), (route, name, got)
            np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=f"{route} {name}")
        # the cost per 1000 is a ratio too: 1000 (FP + FN) / (P + N)
        np.testing.assert_allclose(table.cost_per_1000, 1000 * (FP + (7.0 - TP)) / 13.0, rtol=1e-15,
                                   err_msg=route)


@pytest.mark.parametrize("scale", [1e308, 2.0 ** 1023])
def test_counts_in_caller_units_agree_across_routes(scale):
    # weight units of scale / 4: the total (13 units) is inf, the positives (7 units: 1.75e308,
    # 1.75 * 2**1023) finite; every count in the caller's units on every route
    for route, table in _routes(scale).items():
        assert table.n == np.inf, route
        np.testing.assert_allclose(table.positives, 7 * (scale / 4), rtol=1e-15, err_msg=route)
        np.testing.assert_allclose(table.tp, TP * (scale / 4), rtol=1e-15, err_msg=route)
        np.testing.assert_allclose(table.fp, FP * (scale / 4), rtol=1e-15, err_msg=route)
        np.testing.assert_allclose(table.fn, (7.0 - TP) * (scale / 4), rtol=1e-15, err_msg=route)
        with np.errstate(over="ignore"):  # 6 units of 2**1021 exceed the largest double: inf
            want_tn = (6.0 - FP) * (scale / 4)
        np.testing.assert_allclose(table.tn, want_tn, rtol=1e-15, err_msg=route)


def test_printed_table_names_rates_not_nan():
    lazy = _routes(1e308)["polars-lazy"]
    text = str(lazy)
    assert "n/a" not in text and "nan" not in text.replace("inf", "")
    first = text.splitlines()[1].split()
    # threshold 0.3: recall 1.0000, false alarm 0.6667, precision 0.6000
    assert first[5:8] == ["1.0000", "0.6667", "0.6364"], text  # 7/7, 4/6, 7/11
