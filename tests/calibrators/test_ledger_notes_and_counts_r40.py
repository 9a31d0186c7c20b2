"""Round 40.

* vc.compare's "why" column said "steps create ties" of histogram binning, whose bin rates need not
  increase: beside "order: broken (3 reversals, ...)" it explained an AUC change by ties alone; and
  "steps" of centred isotonic regression (ties="strict"), which is linear between knots.
* Printouts of one step, one tie, one distinct score, one iteration said "1 steps", "1 ties created",
  "1 distinct scores", "1 iterations".
"""

from __future__ import annotations

import warnings

import numpy as np

import veracity as vc


def _notes(calibrator: vc.calibrators.Calibrator) -> dict[str, str]:
    rng = np.random.default_rng(2)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p ** 1.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ledger = vc.compare(p[200:], y[200:], calibrator.fit(p[:200], y[:200]))
    return {r.metric: r.note for r in ledger.rows}


def test_histogram_notes_say_bins_may_reorder():
    notes = _notes(vc.HistogramBinning())
    assert notes["AUC"] == "bins may reorder or tie scores"
    assert notes["accuracy@0.5"] == "bins move the 0.5 cut"


def test_centred_isotonic_notes_say_no_steps():
    notes = _notes(vc.IsotonicCalibration(ties="strict"))
    assert notes["AUC"] == "clipping outside the fit range (or one pooled block) ties scores"
    assert notes["accuracy@0.5"] == "the map moves the 0.5 cut"
    assert _notes(vc.IsotonicCalibration())["AUC"] == "steps create ties"  # the step map: unchanged


def test_isotonic_and_prior_counts_take_their_number():
    assert str(vc.IsotonicCalibration().fit(np.full(4, 0.3), [0, 1, 0, 1])) == (
        "isotonic calibration (allow ties, step): 1 distinct score -> 1 step (0 ties created)")
    assert str(vc.IsotonicCalibration().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])).endswith(
        "4 distinct scores -> 3 steps (1 tie created)")
    assert str(vc.estimate_prior(np.full(10, 0.3), 0.3)).endswith("(1 iteration, converged)")
