"""The weighted Brier score's, log loss's and accuracy's bootstrap intervals say they may under-cover when
the rows' Kish effective size is below 100 (tests/honest/test_bootstrap_weighted_means_r33.py simulates
0.86-0.92 coverage there), as the weighted AUC's interval does; the report shows the note beside those
metrics' intervals only."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.honest._bootstrap import WEIGHTED_AUC_ROW, WEIGHTED_MEANS_NOTE
from veracity.reporting._sections import _interval_of

HEAD = WEIGHTED_MEANS_NOTE.split("{", 1)[0]


def _rows(sigma: float, n: int = 300, seed: int = 1):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    return p, y, np.exp(rng.normal(0.0, sigma, n) + 2 * p)


def _kish(w):
    return w.sum() ** 2 / (w * w).sum()


def test_few_effective_rows_note_the_weighted_means():
    p, y, w = _rows(1.2)
    assert _kish(w) < 100
    r = vc.bootstrap_intervals(p, y, sample_weight=w, metrics=("brier", "nll", "accuracy", "ece"),
                               n_resamples=199, random_state=0)
    for metric in ("brier", "nll", "accuracy"):
        assert np.isfinite(r[metric].low) and r[metric].note == WEIGHTED_AUC_ROW
    assert WEIGHTED_AUC_ROW not in r["ece"].note
    (note,) = [t for t in r.notes if t.startswith(HEAD)]
    assert note.startswith("the intervals of weighted means (Brier score, log loss and accuracy) may cover")
    assert f"Kish effective size is {_kish(w):.1f} (below 100)" in note
    assert f"note: {note}" in str(r)


@pytest.mark.parametrize("sigma", [0.0, None])  # Kish size about 229; equal weights
def test_enough_effective_rows_or_equal_weights_carry_no_note(sigma):
    p, y, w = _rows(0.0 if sigma is None else sigma)
    if sigma is None:
        w = np.full_like(w, 2.5)
    else:
        assert _kish(w) > 200
    r = vc.bootstrap_intervals(p, y, sample_weight=w, metrics=("brier", "nll", "accuracy"), n_resamples=199,
                               random_state=0)
    assert not r.notes and all(r[m].note == "" for m in ("brier", "nll", "accuracy"))


def test_the_report_places_the_note_beside_those_metrics_only():
    p, y, w = _rows(1.2)
    audit = vc.audit(p, y, sample_weight=w, bootstrap=True, random_state=0, n_resamples=199)
    for metric in ("brier", "nll"):
        shown = _interval_of(audit, metric)
        assert shown is not None and HEAD in shown[3], (metric, shown)
    for metric in ("ece", "auc"):
        shown = _interval_of(audit, metric)
        assert shown is not None and HEAD not in shown[3], (metric, shown)
