"""The weighted reliability table's per-bin interval is one number on every frame route (session 43).

Its size (:func:`veracity.core._weights.honest_size`) reads two per-bin sums new in this session, Σw²y and
Σw²p(1 − p): each route sums them where the rows live (numpy in memory, narwhals on pandas, polars, pyarrow
and DuckDB relations, the array code per partition on Dask, Spark through narwhals), only where a weight
column is given. With class weights (positives 9 times the negatives) the interval is wider than Kish's in
the bins where the heavy positives are rare; before, every route gave Kish's interval (the same numbers, so
only the in-memory value changed). Unweighted frames keep no such sums (None, as in memory).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

ROUTES = ["pandas", "polars-lazy", "pyarrow", "duckdb", "dask", "spark"]


def _rows(n: int = 2_000, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.0, 1.0, n) ** 2
    y = (rng.uniform(size=n) < p).astype(np.int64)
    return pd.DataFrame({"p": p, "y": y, "w": np.where(y == 1, 9.0, 1.0), "s": np.log(p / (1.0 - p)),
                         "g": rng.choice(["a", "b"], n)})


def _frame(route: str, df: pd.DataFrame, request: pytest.FixtureRequest):
    if route == "pandas":
        return df
    if route == "polars-lazy":
        return pytest.importorskip("polars").from_pandas(df).lazy()
    if route == "pyarrow":
        return pytest.importorskip("pyarrow").Table.from_pandas(df)
    if route == "duckdb":
        return pytest.importorskip("duckdb").connect().from_df(df)
    if route == "dask":
        return pytest.importorskip("dask.dataframe").from_pandas(df, npartitions=3, sort=False)
    return request.getfixturevalue("spark").createDataFrame(df)


def _intervals(table) -> np.ndarray:
    return np.array([[r.ci_low, r.ci_high] for r in table.rows])


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_gives_the_arrays_weighted_intervals(route, request):
    """Wilson and Clopper–Pearson, probabilities and logits, whole and per slice: the arrays' intervals to
    1e-12 — and wider than Kish's in the lowest bins (Spark: one statement, Clopper–Pearson's)."""
    df = _rows()
    frame = _frame(route, df, request)
    p, y, w, s = (df[c].to_numpy() for c in ("p", "y", "w", "s"))
    for interval in ("clopper-pearson",) if route == "spark" else ("wilson", "clopper-pearson"):
        want = vc.reliability(p, y, sample_weight=w, bins=10, interval=interval)
        got = vc.reliability(frame, score="p", label="y", sample_weight="w", bins=10, interval=interval)
        np.testing.assert_allclose(_intervals(got), _intervals(want), rtol=0, atol=1e-12)
        for name in ("sum_w2y", "sum_w2pq"):
            np.testing.assert_allclose(getattr(got.stats, name), getattr(want.stats, name), rtol=1e-12,
                                       err_msg=name)
    from veracity.core._intervals import binomial_interval

    st = want.stats
    lo, hi = binomial_interval(st.sum_y / st.weight * st.effective_count, st.effective_count, method=interval)
    assert _intervals(want)[0, 1] - _intervals(want)[0, 0] > 1.3 * (hi[0] - lo[0])  # the heavy positives rare
    if route == "spark":
        return
    logits = vc.audit(frame, score="s", label="y", sample_weight="w", bins=8, score_type="logit", by="g")
    memory = vc.audit(s, y, sample_weight=w, bins=8, score_type="logit", by=df["g"].to_numpy())
    np.testing.assert_allclose(_intervals(logits.table), _intervals(memory.table), rtol=0, atol=1e-12)
    for key in ("a", "b"):
        np.testing.assert_allclose(_intervals(logits.groups[key].table), _intervals(memory.groups[key].table),
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("route", ["polars-lazy", "duckdb", "dask"])
def test_unweighted_frames_keep_no_square_sums(route, request):
    """Without a weight column nothing more is summed: the statistics hold None, as in memory."""
    df = _rows(500)
    got = vc.audit(_frame(route, df, request), score="p", label="y", bins=5)
    assert got.table.stats.sum_w2y is None and got.table.stats.sum_w2pq is None
    want = vc.audit(df["p"].to_numpy(), df["y"].to_numpy(), bins=5)
    np.testing.assert_allclose(_intervals(got.table), _intervals(want.table), rtol=0, atol=1e-12)
