"""The multicalibration error equals MCGrad's (issue 24).

Oracle 1: numbers recorded from Meta's ``mcgrad`` 0.1.5 (``mcgrad.metrics.MulticalibrationError``,
float64) by ``scripts/record_mcgrad.py`` on the CSVs beside them — mcgrad itself (torch, LightGBM,
Ax) is never imported here. Oracle 2: a row-level implementation of its definition written below
from ``src/mcgrad/metrics.py`` (``_calculate_cumulative_differences``: the range of the running
sum of w(y - p) / W in score order; ``_ecce_standard_deviation_per_segment``:
sqrt(Σ w² p(1-p)) / W; ``mce = max_k ECCE_k/σ_k · σ_all``), with boolean masks per segment.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import veracity as vc

DATA = Path(__file__).parent / "data"
CASES = ["mcgrad_unweighted", "mcgrad_weighted", "mcgrad_large"]


def _case(name):
    df = pd.read_csv(DATA / f"{name}.csv")
    doc = json.loads((DATA / f"{name}.json").read_text())
    return df, doc


def _run(df, doc, **kw):
    return vc.segments(df, score="score", label="label", features=doc["features"], depth=doc["depth"],
                       min_count=doc["min_count"], sample_weight="weight" if "weight" in df else None, **kw)


@pytest.mark.parametrize("name", CASES)
def test_mce_equals_recorded_mcgrad(name):
    df, doc = _case(name)
    res = _run(df, doc, max_cells=100_000)  # every distinct score its own step: MCGrad's row path
    want = doc["numbers"]
    assert res.cells == "distinct"
    assert res.mce == pytest.approx(want["mce"], abs=1e-9)
    assert res.mce_sigma == pytest.approx(want["mce_sigma"], abs=1e-9)
    assert res.mce_pvalue == pytest.approx(want["mce_pvalue"], abs=1e-9)
    assert res.mde == pytest.approx(want["mde"], abs=1e-9)
    assert res.global_ecce == pytest.approx(want["global_ecce"], abs=1e-9)
    # the same family: as many segments (MCGrad counts the whole table as one), the same sigmas
    tested = [r for r in res.rows if r.sufficient]
    assert len(tested) + 1 == want["n_segments"]
    whole = res.global_ecce / (res.mde / 5)
    ours = sorted([r.ecce_sigma for r in tested] + [whole])
    np.testing.assert_allclose(ours, want["segments_ecce_sigma_sorted"], rtol=0, atol=1e-9)


def _reference_mce(df, features, depth, min_count):
    """MCGrad's definition, row by row (an independent implementation)."""
    order = np.argsort(df["score"].to_numpy(), kind="stable")
    d = df.iloc[order].reset_index(drop=True)
    p, y = d["score"].to_numpy(), d["label"].to_numpy().astype(float)
    w = d["weight"].to_numpy() if "weight" in d else np.ones(len(d))
    masks = [np.ones(len(d), bool)]
    for k in range(1, depth + 1):
        for combo in itertools.combinations(features, k):
            for values in itertools.product(*(sorted(d[f].unique()) for f in combo)):
                m = np.logical_and.reduce([d[f].to_numpy() == v for f, v in zip(combo, values)])
                if m.sum() >= min_count:
                    masks.append(m)
    sig = []
    for m in masks:
        W = w[m].sum()
        path = np.r_[0.0, np.cumsum(w[m] * (y[m] - p[m]) / W)]
        ecce = path.max() - path.min()
        sd = np.sqrt(np.sum(w[m] ** 2 * p[m] * (1 - p[m]))) / W
        sig.append(ecce / sd)
    sd_all = np.sqrt(np.sum(w**2 * p * (1 - p))) / w.sum()
    return max(sig) * sd_all, max(sig), 5 * sd_all


@pytest.mark.parametrize("name", CASES[:2])
def test_mce_equals_a_row_level_implementation(name):
    df, doc = _case(name)
    mce, sigma, mde = _reference_mce(df, doc["features"], doc["depth"], doc["min_count"])
    res = _run(df, doc, max_cells=100_000)
    assert res.mce == pytest.approx(mce, abs=1e-12)
    assert res.mce_sigma == pytest.approx(sigma, abs=1e-9)
    assert res.mde == pytest.approx(mde, abs=1e-15)


def test_ties_are_one_step_and_cells_coarsen_above_max_cells():
    df, doc = _case("mcgrad_unweighted")
    exact = _run(df, doc, max_cells=100_000)
    grid = _run(df, doc, max_cells=500)  # 3,000 distinct scores: 500 equal-width cells
    assert grid.cells == "grid"
    # the cell path visits a subset of the row path's points: its range is never larger, and close
    assert grid.mce <= exact.mce + 1e-15
    assert grid.mce == pytest.approx(exact.mce, rel=0.1)
    # the gaps and z tests do not depend on cells (the exact small-segment test does: a cell of several
    # scores takes their mean, which is conservative)
    a = {r.segment: r for r in exact.rows}
    for r in grid.rows:
        assert r.gap == pytest.approx(a[r.segment].gap, abs=1e-15)
        if r.test == "z":
            assert r.p_value == pytest.approx(a[r.segment].p_value, rel=1e-12)
    # rows with equal scores are one step: duplicating every row leaves the ECCE unchanged
    twice = pd.concat([df, df], ignore_index=True)
    again = _run(twice, dict(doc, min_count=2 * doc["min_count"]), max_cells=100_000)
    assert again.global_ecce == pytest.approx(exact.global_ecce, abs=1e-15)


def test_pvalue_is_brownian_range_tail():
    from veracity.segments._mce import brownian_range_cdf

    # Monte-Carlo check of the Brownian-range law the p-value uses (Feller 1951)
    rng = np.random.default_rng(0)
    steps = rng.normal(size=(4000, 2000)) / np.sqrt(2000)
    paths = np.cumsum(steps, axis=1)
    rng_ = np.maximum(paths.max(axis=1), 0) - np.minimum(paths.min(axis=1), 0)
    for x in (1.0, 1.5, 2.0, 3.0):
        assert brownian_range_cdf(np.array([x]))[0] == pytest.approx((rng_ <= x).mean(), abs=0.03)
