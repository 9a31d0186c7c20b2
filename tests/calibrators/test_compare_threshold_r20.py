"""vc.compare(threshold=t) names the threshold it measured at (session 20).

The accuracy row was always printed "accuracy@0.5", with "the intercept moves the 0.5 cut" and the
certificate "0.5 decisions identical", while its numbers were those at t. For temperature scaling at
t = 0.3 the ledger said "accuracy@0.5 ... can move? no ... REGRESSION  s/tau keeps every sign" and
"0.5 decisions identical: BROKEN": s/tau keeps the 0.5 cut, not the 0.3 one. vc.audit already says
``accuracy@{threshold:g}``. Checked against the decisions p >= t themselves.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _data():
    rng = np.random.default_rng(0)
    p = rng.random(600)
    y = (rng.random(600) < p ** 2).astype(int)
    return p[:300], y[:300], p[300:], y[300:]


@pytest.mark.parametrize("make", [vc.TemperatureScaling, vc.PlattScaling, vc.IsotonicCalibration])
def test_the_accuracy_row_is_at_the_threshold_given(make):
    pf, yf, pe, ye = _data()
    cal = make().fit(pf, yf)
    q = cal.transform(pe)
    ledger = vc.compare(pe, ye, cal, threshold=0.3)
    row = ledger.row("accuracy@0.3")
    assert row.metric == "accuracy@0.3"
    assert row.before == pytest.approx(np.mean((pe >= 0.3) == ye))
    assert row.after == pytest.approx(np.mean((q >= 0.3) == ye))
    assert ledger.row("accuracy@0.5") is row                   # the old name still finds the row
    moved = bool(np.any((pe >= 0.3) != (q >= 0.3)))
    assert ledger.certificates["decisions_identical"] is (not moved)
    text = str(ledger)
    assert "accuracy@0.5" not in text and "0.5 cut" not in text and "0.5 decisions" not in text
    assert "0.3 decisions identical" in text
    assert ledger.to_dict()["after"]["accuracy"] == row.after
    if make is vc.TemperatureScaling:
        assert moved and row.can_move                          # s/tau moves the 0.3 cut


def test_default_threshold_reads_as_before():
    pf, yf, pe, ye = _data()
    ledger = vc.compare(pe, ye, vc.TemperatureScaling().fit(pf, yf))
    row = ledger.row("accuracy@0.5")
    assert row.metric == "accuracy@0.5" and not row.can_move and row.note == "s/tau keeps every sign"
    assert "0.5 decisions identical: held" in str(ledger)
