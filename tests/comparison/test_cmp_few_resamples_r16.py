"""Too few resamples for the level, or one row carrying nearly all the weight: no interval (n/a), never
an interval that reads as evidence (1 resample gave MCB [+0.0028, +0.0167]; a row of weight 1e12 among
499 of weight 1 gave Brier intervals of ±1e139)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc


def _models(n: int = 500, seed: int = 4) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    q = np.clip(p + rng.normal(0, 0.1, n) + 0.1, 0.01, 0.99)
    return {"a": p, "b": q}, (rng.uniform(size=n) < p).astype(int)


@pytest.mark.parametrize("n_resamples", [1, 2, 39])
def test_too_few_resamples_give_no_bootstrap_interval(n_resamples: int) -> None:
    models, y = _models()
    res = vc.compare_models(models, y, n_resamples=n_resamples)
    ece = next(r for r in res.rows if r.metric == "ece")
    assert math.isnan(ece.ci_low) and math.isnan(ece.ci_high)
    d = res.corp_differences[0]
    assert all(math.isnan(x) for x in (d.mcb_low, d.mcb_high, d.dsc_low, d.dsc_high))
    assert any("too few" in note and "not shown" in note for note in res.notes)
    brier = next(r for r in res.rows if r.metric == "brier")  # the paired t needs no resamples
    assert brier.ci_low < brier.diff < brier.ci_high


def test_enough_resamples_give_intervals() -> None:
    models, y = _models()
    res = vc.compare_models(models, y, n_resamples=40)  # (B + 1)·0.05/2 > 1: the fewest at 95 %
    ece = next(r for r in res.rows if r.metric == "ece")
    assert ece.ci_low <= ece.ci_high
    assert not any("too few" in note for note in res.notes)


def test_one_row_carrying_the_weight_gives_no_t_interval() -> None:
    models, y = _models()
    w = np.ones(y.size)
    w[0] = 1e12
    res = vc.compare_models(models, y, sample_weight=w, n_resamples=0)
    for metric in ("brier", "log_loss"):
        row = next(r for r in res.rows if r.metric == metric)
        assert math.isnan(row.ci_low) and math.isnan(row.ci_high) and math.isnan(row.p_value)
    w[0] = 1.0  # equal weights: Student's t on n - 1 = 499 degrees of freedom, as scipy's paired t
    from scipy import stats

    res = vc.compare_models(models, y, sample_weight=w, n_resamples=0)
    row = next(r for r in res.rows if r.metric == "brier")
    d = (models["b"] - y) ** 2 - (models["a"] - y) ** 2
    assert row.p_value == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-9)
