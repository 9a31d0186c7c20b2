"""Session 16: a ledger on fewer than 2 (effective) evaluation rows gives no verdict.

One evaluation row printed "better (no interval)" / "worse (no interval)" for NLL and Brier (and a bootstrap
"interval" for the ECE change resampled from that one row): a verdict from one row. Now every verdict but
"same" reads "n/a (too few rows)", without an interval, and the footer says what to do.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
TOO_FEW = "n/a (too few rows)"  # the verdict (veracity.calibrators._ledger.TOO_FEW)


def _fitted(seed=0, n=300):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < np.clip(p * 1.4, 0, 1)).astype(int)
    return vc.PlattScaling().fit(p, y), rng


@pytest.mark.parametrize("p, y", [([0.3], [0]), ([0.8], [1]), ([0.2], [1])])
def test_one_row_gives_no_verdict(p, y):
    cal, _ = _fitted()
    led = vc.compare(np.array(p), np.array(y), cal)
    for metric in ("ECE", "NLL", "Brier", "accuracy@0.5"):
        r = led.row(metric)
        assert r.verdict in (TOO_FEW, "same"), (metric, r.verdict)
        assert "no interval)" not in r.verdict and not r.regression
        assert r.ci_low != r.ci_low and r.interval_text() == "n/a"
    assert led.row("NLL").verdict == led.row("Brier").verdict == TOO_FEW
    text = str(led)
    assert "better (no interval)" not in text and "worse (no interval)" not in text
    assert "too few rows to judge (1 evaluation row" in text and "at least 2 labelled rows" in text
    assert "within noise" not in text
    assert [r["verdict"] for r in led.to_dict()["rows"]].count(TOO_FEW) >= 3


def test_one_row_of_all_the_weight_is_too_few_and_two_rows_are_judged():
    cal, rng = _fitted(1)
    p = rng.beta(2, 5, 40)
    y = (rng.random(40) < p).astype(int)
    w = np.full(40, 1e-9)
    w[7] = 1.0  # Kish size about 1: one row carries all the weight
    led = vc.compare(p, y, cal, sample_weight=w)
    assert led.row("Brier").verdict == TOO_FEW and "effective size" in led.row("Brier").note
    # equal weights on the same 40 rows: an interval and a verdict
    ok = vc.compare(p, y, cal)
    assert ok.row("Brier").verdict != TOO_FEW and ok.row("Brier").ci_low == ok.row("Brier").ci_low
    # two rows: paired intervals exist (wide), verdicts are the usual ones
    two = vc.compare(p[:2], np.array([0, 1]), cal)
    assert two.row("Brier").verdict != TOO_FEW
