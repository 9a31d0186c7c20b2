"""``vc.threshold_table`` on every backend: one aggregate per table, counts equal to the arrays'.

The oracle is the definition (seed 003: a threshold t flags a score s when s >= t),
counted directly with numpy broadcasting: TP(t) = #{y = 1, s >= t}, FP(t) = #{y = 0, s >= t}.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from .conftest import BACKENDS, dataset, make, threaded_dask

#: duplicates, unsorted, +-inf, a threshold equal to many tied scores (0.5) and one above every score
THRESHOLDS = [0.3, -np.inf, 0.5, 0.5, 0.05, np.inf, 0.99, 0.123, 0.0, 1.0, 0.77, 0.62, 0.41]


def definition(s, y, w, t):
    w = np.ones_like(s) if w is None else w
    flag = s[None, :] >= np.asarray(t)[:, None]
    return (flag * (w * (y == 1))).sum(axis=1), (flag * (w * (y == 0))).sum(axis=1)


# every backend, Spark included (conftest.BACKENDS), unweighted and weighted; a third ("spark", True) case
# ran the weighted Spark case twice
CASES = [(b, w) for b in BACKENDS for w in (False, True)]


@pytest.mark.dask_cluster
@pytest.mark.parametrize("backend, weighted", CASES, ids=[f"{b}-{'weighted' if w else 'unweighted'}" for b, w in CASES])
def test_threshold_table_equals_the_definition_and_the_arrays(backend, weighted, tmp_path, request):
    df = dataset(seed=21)
    s, y = df["p"].to_numpy(), df["y"].to_numpy()
    w = df["w"].to_numpy() if weighted else None
    got = vc.threshold_table(make(backend, df, tmp_path, request), THRESHOLDS, score="p", label="y",
                             sample_weight="w" if weighted else None, cost_fn=9)
    want = vc.threshold_table(s, y, THRESHOLDS, sample_weight=w, cost_fn=9)
    tp, fp = definition(s, y, w, THRESHOLDS)
    if weighted:  # sums of weights: the order of the additions differs by backend
        np.testing.assert_allclose(got.tp, tp, rtol=1e-12)
        np.testing.assert_allclose(got.fp, fp, rtol=1e-12)
        for name in ("tp", "fp", "fn", "tn", "recall", "false_alarm_rate", "precision", "cost", "cost_per_1000"):
            np.testing.assert_allclose(getattr(got, name), getattr(want, name), rtol=1e-12, atol=1e-9, err_msg=name)
        assert got.n == pytest.approx(want.n, rel=1e-12)
    else:  # counts: exact
        np.testing.assert_array_equal(got.tp, tp)
        np.testing.assert_array_equal(got.fp, fp)
        for name in ("tp", "fp", "fn", "tn", "recall", "false_alarm_rate", "precision", "cost", "cost_per_1000"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
        assert str(got) == str(want)
        assert got.n == want.n == len(df)
    np.testing.assert_array_equal(got.threshold, np.asarray(THRESHOLDS))
    assert got.weighted is weighted
    assert got.tp[1] + got.fn[1] == pytest.approx(got.positives)  # -inf flags every row
    assert got.tp[5] == got.fp[5] == 0.0  # +inf flags none


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "dask"])
def test_many_thresholds_and_logits(backend, tmp_path):
    # 300 thresholds on the logit scale: the search tree is deep; continuous scores, few ties
    rng = np.random.default_rng(3)
    n = 5000
    z = rng.normal(0, 2, n)
    df = pd.DataFrame({"z": z, "y": (rng.random(n) < 1 / (1 + np.exp(-z))).astype(np.int64)})
    t = np.concatenate([np.linspace(-6, 6, 297), z[:3]])  # three thresholds equal to a score
    frame = make(backend, df, tmp_path)
    with threaded_dask() if backend == "dask" else contextlib.nullcontext():  # the cluster: the test above
        got = vc.threshold_table(frame, t, score="z", label="y", score_type="logit")
    tp, fp = definition(z, df["y"].to_numpy(), None, t)
    np.testing.assert_array_equal(got.tp, tp)
    np.testing.assert_array_equal(got.fp, fp)


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb", "csv", "dask"])
def test_pos_label_and_bad_rows(backend, tmp_path):
    df = dataset(400, seed=2)
    text = df.assign(y=np.where(df["y"] == 1, "fraud", "ok"))
    got = vc.threshold_table(make(backend, text, tmp_path), [0.2, 0.6], score="p", label="y", pos_label="fraud")
    tp, fp = definition(df["p"].to_numpy(), df["y"].to_numpy(), None, [0.2, 0.6])
    np.testing.assert_array_equal(got.tp, tp)
    np.testing.assert_array_equal(got.fp, fp)
    (tmp_path / "bad").mkdir()
    bad = df.assign(p=np.where(np.arange(400) == 9, 1.7, df["p"]))
    with pytest.raises(vc.VeracityError, match=r"^column 'p' \(scores\) must be probabilities in \[0, 1\]; 1 of 400"):
        vc.threshold_table(make(backend, bad, tmp_path / "bad"), [0.5], score="p", label="y")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"thresholds": [np.nan]}, r"thresholds contains 1 NaN"),
        ({"thresholds": []}, r"thresholds is empty"),
        ({"thresholds": [0.5], "cost_fp": -1}, r"cost_fp must be a finite non-negative cost"),
        ({"thresholds": [0.5], "score": ["p", "w"]}, r"flags one score per row"),
    ],
)
def test_bad_options_on_a_lazy_frame(kwargs, match, tmp_path):
    kwargs = {"score": "p", "label": "y", **kwargs}
    with pytest.raises(vc.VeracityError, match=match):
        vc.threshold_table(make("duckdb", dataset(100), tmp_path), kwargs.pop("thresholds"), **kwargs)
