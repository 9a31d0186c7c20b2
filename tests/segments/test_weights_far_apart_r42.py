"""Weights more than ~1e230 apart (core._weights' documented limit): a segment made only of the light rows has
Σw² = 0 after the exact rescaling, which vc.segments divided by: "trials must be finite counts >= 0; got inf"
(and, past it, a RuntimeWarning from z * g with z = inf). Now, as the audit's bins do, that segment's effective
size is 1 (shown, not tested) and a note names the cause and the fix (round 42)."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

import veracity as vc


def _frame(heavy: float) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 2000
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    g = np.where(np.arange(n) < 10, "heavy", rng.choice(["a", "b"], size=n))
    w = np.where(g == "heavy", heavy, 1.0)
    return pd.DataFrame({"p": p, "y": y, "g": g, "w": w})


def test_light_only_segments_are_shown_not_tested_with_a_note() -> None:
    df = _frame(1e240)
    result = vc.segments(df, score="p", label="y", features=["g"], sample_weight="w", min_count=20)
    text = str(result)
    assert "2 segments hold only rows weighing less than about 1e-221 of the largest weight" in text
    light = [r for r in result.rows if r.depth == 1 and r.n > 600]  # g=a, g=b (the 10 heavy rows: "other")
    assert len(light) == 2
    assert not any(r.sufficient or r.p_value is not None for r in light)
    # the same rows under weights whose squares fit: tested, no such note
    fits = vc.segments(_frame(1e100), score="p", label="y", features=["g"], sample_weight="w", min_count=20)
    assert "1e-221" not in str(fits)
    assert sum(r.sufficient and r.p_value is not None for r in fits.rows if r.depth == 1 and r.n > 600) == 2


def test_database_route_agrees() -> None:
    df = _frame(1e240)
    con = duckdb.connect()
    rel = con.from_df(df)
    lazy = vc.segments(rel, score="p", label="y", features=["g"], sample_weight="w", min_count=20)
    eager = vc.segments(df, score="p", label="y", features=["g"], sample_weight="w", min_count=20)
    assert str(lazy) == str(eager)


def test_kish_sizes_rule() -> None:
    from veracity.core._weights import kish_sizes

    total = np.array([3.0, 2.0, 0.0, 1e-170])
    sq = np.array([3.0, 4.0, 0.0, 0.0])
    assert kish_sizes(total, sq).tolist() == [3.0, 1.0, 0.0, 1.0]
