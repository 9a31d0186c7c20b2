"""Round 21: the ledger's AUC change on too few rows of a class has no DeLong interval.

``vc.compare_models`` shows DeLong's ΔAUC interval and p-value n/a below 10 rows of a class (weighted: the
class's Kish effective size), where the placements' sampling law is degenerate (with 2-3 positives it called
equally good rankings different in 10-40 % of draws at 5 %). The calibrator ledger (``vc.compare``) read the
same DeLong interval without that rule: 3 positives among 200 rows printed an AUC change with a finite
interval and a verdict from it. Now the AUC row reads "n/a (too few of a class)" with no interval and says
why; the other rows keep their intervals.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc

FEW = "n/a (too few of a class)"  # veracity.calibrators._ledger.FEW_OF_CLASS
MIN_CLASS_ROWS = 10  # veracity.core._delong.MIN_CLASS_ROWS, the rule of vc.compare_models


def _isotonic(seed=0, n=400):
    """An isotonic map (its steps tie scores, so the AUC moves) fit on other rows."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    y = (rng.random(n) < p).astype(int)
    return vc.IsotonicCalibration().fit(p, y), rng


def _eval(rng, n, positives):
    p = rng.uniform(size=n)
    y = np.zeros(n, dtype=int)
    y[np.argsort(p)[-positives:]] = 1  # positives among the high scores
    y[np.argsort(p)[: positives // 2]] = 1  # and a few low ones, so the AUC is not 1
    return p, y


def test_three_positives_give_no_auc_interval():
    cal, rng = _isotonic()
    p, y = _eval(rng, 200, 2)
    assert 0 < y.sum() < MIN_CLASS_ROWS
    led = vc.compare(p, y, cal)
    r = led.row("AUC")
    assert r.change != 0  # the isotonic steps tie scores: the AUC moved
    assert math.isnan(r.ci_low) and math.isnan(r.ci_high)
    assert r.verdict == FEW and not r.regression
    assert f"{int(y.sum())} positive and {int(y.size - y.sum())} negative rows" in r.note
    assert f"at least {MIN_CLASS_ROWS} of each" in r.note
    assert FEW in str(led) and "DeLong" in str(led)
    # the per-row intervals stand (paired t on 200 rows)
    for metric in ("NLL", "Brier"):
        row = led.row(metric)
        assert row.ci_low == row.ci_low and row.verdict != FEW
    assert led.to_dict()["rows"][-1]["verdict"] == FEW


def test_one_heavy_positive_counts_by_its_kish_size():
    cal, rng = _isotonic(1)
    p, y = _eval(rng, 300, 30)
    w = np.ones(y.size)
    w[np.flatnonzero(y == 1)[0]] = 100.0  # 30 positives, Kish size of the positives about 1.7 (all rows: 15)
    led = vc.compare(p, y, cal, sample_weight=w)
    r = led.row("AUC")
    assert math.isnan(r.ci_low) and r.verdict in (FEW, "same")
    if r.verdict == FEW:
        assert "Kish effective sizes" in r.note
    # the same rows unweighted have 30 positives: DeLong's interval stands
    plain = vc.compare(p, y, cal).row("AUC")
    assert plain.ci_low == plain.ci_low and plain.verdict != FEW


@pytest.mark.parametrize("positives", [MIN_CLASS_ROWS, 40])
def test_enough_rows_of_each_class_keep_the_interval_of_compare_models(positives):
    cal, rng = _isotonic(2)
    p, y = _eval(rng, 300, positives)
    assert y.sum() >= MIN_CLASS_ROWS
    r = vc.compare(p, y, cal).row("AUC")
    assert r.ci_low == r.ci_low and r.verdict != FEW
    # the same AUC difference and interval as vc.compare_models of before and after
    row = vc.compare_models({"before": p, "after": cal.transform(p)}, y, score_type="probability",
                            n_resamples=0).row("auc")
    assert (r.change, r.ci_low, r.ci_high) == pytest.approx((row.diff, row.ci_low, row.ci_high), abs=1e-12)
