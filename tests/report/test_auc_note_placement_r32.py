"""The weighted AUC's coverage note (honest/_bootstrap.py, session 32) stands beside the AUC's interval in
the HTML report, not beside every metric's: the report appended every bootstrap note to each interval's
detail, so the ECE's interval read "the weighted AUC's interval may cover less often than its level"."""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.honest._bootstrap import WEIGHTED_AUC_NOTE
from veracity.reporting._sections import _interval_of


def test_the_auc_note_is_the_auc_intervals_only():
    rng = np.random.default_rng(1)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(int)
    w = np.exp(rng.normal(0.0, 1.2, 300) + 2 * p)
    audit = vc.audit(p, y, sample_weight=w, bootstrap=True, random_state=0)
    head = WEIGHTED_AUC_NOTE.split("{", 1)[0]
    notes = audit.extras["intervals"].notes
    assert any(str(t).startswith(head) for t in notes)  # the setting carries the note
    ece = _interval_of(audit, "ece")
    auc = _interval_of(audit, "auc")
    assert ece is not None and auc is not None
    assert head not in ece[3], ece[3]
    assert head in auc[3], auc[3]
