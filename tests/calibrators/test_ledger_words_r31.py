"""The ledger's certificates say BROKEN only where the method promised to keep them (session 31).

``vc.compare(p, y, vc.PlattScaling()...)`` on the demo data printed "0.5 decisions identical: BROKEN": Platt's
intercept moves the 0.5 cut by design (its accuracy row says so: "the intercept moves the 0.5 cut"), and a
new user read it as a defect. A certificate the method may move now reads "changed" (the decisions: "changed
(the fit moves the 0.5 cut)"); BROKEN stays where the ledger's "can move?" column says the method cannot move
it (temperature scaling's order and 0.5 decisions, an order-keeping map's order). The header's row count
takes thousands separators as the rest of the library does ("on 2,512 evaluation rows").
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc


def _notebook_rows():
    """The segments notebook's rows (docs/notebooks/segments_delayed.ipynb): June held back."""
    d = vc.load_demo()
    june = d["month"] == "2026-06"
    calib = (d["role"] == "calib") & ~june
    test = (d["role"] == "test") & ~june
    return d["score"][calib], d["label"][calib], d["score"][test], d["label"][test]


def _cert_line(text: str) -> str:
    lines = text.splitlines()
    return lines[lines.index("certificates") + 2]


def _html_kv(page: str) -> dict[str, str]:
    kv = re.search(r'<div class="vc-kv">(.*?)</div>', page, re.S).group(1)
    return dict(re.findall(r"<b>(.*?)</b>([^<]*)</span>", kv))


def test_platt_on_the_demo_says_changed_where_it_said_broken():
    pc, yc, p, y = _notebook_rows()
    platt = vc.PlattScaling().fit(pc, yc)
    moved = bool(np.any((np.asarray(p) >= 0.5) != (platt.transform(p) >= 0.5)))
    assert moved  # the case: the fit moved test rows across 0.5
    ledger = vc.compare(p, y, platt)
    text = str(ledger)
    assert "BROKEN" not in text
    assert "0.5 decisions identical: changed (the fit moves the 0.5 cut)" in _cert_line(text)
    assert ledger.certificates["decisions_identical"] is False  # the JSON keeps its boolean
    assert _html_kv(ledger._repr_html_())["0.5 decisions identical"] == "changed (the fit moves the 0.5 cut)"


def test_the_header_counts_rows_with_separators():
    pc, yc, p, y = _notebook_rows()
    n = len(np.asarray(p))
    assert n == 2512
    ledger = vc.compare(p, y, vc.PlattScaling().fit(pc, yc))
    assert str(ledger).splitlines()[0].startswith("PlattScaling on 2,512 evaluation rows (")
    assert "on 2,512 evaluation rows" in ledger._repr_html_()


def test_isotonic_steps_change_the_order_without_breaking_a_promise():
    pc, yc, p, y = _notebook_rows()
    ledger = vc.compare(p, y, vc.IsotonicCalibration().fit(pc, yc))
    c = ledger.certificates
    assert not c["argsort_identical"] and c["ties_created"] > 0 and c["reversals"] == 0
    text = str(ledger)
    assert "BROKEN" not in text
    assert f"order: changed ({c['ties_created']} ties created)" in text
    assert "stable argsort identical: changed; AUC bit-identical: changed" in _cert_line(text)
    assert c["order"].startswith("broken")  # the JSON value is unchanged


def test_temperature_keeps_its_promise_and_says_held():
    pc, yc, p, y = _notebook_rows()
    text = str(vc.compare(p, y, vc.TemperatureScaling().fit(pc, yc)))
    assert "stable argsort identical: held; AUC bit-identical: held; 0.5 decisions identical: held" in text


def test_a_promised_order_tied_only_by_clipping_reads_changed_by_clipping():
    """Platt promises the order (its AUC "can move? no"); probabilities below 2.2e-16 are clipped there before
    the map reads them, so 1e-20 .. 1e-17 come out tied and the AUC moves: said plainly as ties created by
    clipping (a tie elsewhere, or a reversal, would read BROKEN: tests/calibrators/test_ledger_ties_r31.py)."""
    rng = np.random.default_rng(0)
    q = rng.uniform(0.0, 1.0, 300)
    platt = vc.PlattScaling().fit(q, rng.uniform(size=300) < q)
    p = np.r_[1e-20, 1e-19, 1e-18, 1e-17, rng.uniform(0.0, 1.0, 200)]
    y = np.r_[1.0, 0.0, 1.0, 0.0, (rng.uniform(size=200) < p[4:]).astype(float)]
    ledger = vc.compare(p, y, platt)
    after = platt.transform(p)[np.argsort(p, kind="stable")]
    assert np.sum(np.diff(after) == 0) == 3  # the oracle: the clip tied the four tiny scores
    assert ledger.certificates["auc_identical"] is False and ledger.certificates["ties_created"] == 3
    line = _cert_line(str(ledger))
    assert "AUC bit-identical: changed;" in line, line  # promised, and moved only by the clip
    assert "order: changed (3 ties created by clipping)" in str(ledger)
    assert "0.5 decisions identical: BROKEN" not in line  # the intercept may move the cut


@pytest.mark.parametrize("make", [vc.TemperatureScaling, vc.VectorScaling])
def test_multiclass_argmax_is_broken_only_where_promised(make):
    """Temperature scaling keeps every argmax (z/T): a change would be BROKEN; vector scaling may move it."""
    rng = np.random.default_rng(7)
    z = rng.normal(size=(1200, 3)) * 2.0
    y = np.array([rng.choice(3, p=np.exp(r + [0.0, 0.8, -0.8]) / np.exp(r + [0.0, 0.8, -0.8]).sum())
                  for r in z])
    cal = make(score_type="logit").fit(z[:600], y[:600])
    ledger = vc.compare(z[600:], y[600:], cal)
    same = ledger.certificates["argmax_identical"]
    text = str(ledger)
    if make is vc.TemperatureScaling:
        assert same and "argmax identical: held" in text  # z/T keeps the argmax: held, as promised
    else:
        assert not same  # the bias moved some argmax
        assert "argmax identical: changed (the fit moves the argmax)" in text and "BROKEN" not in text
        assert "order: argmax changed" in text


def test_a_reversed_order_reads_broken_whatever_the_method():
    """No calibrator is meant to reverse the ranking: a Platt fit with a negative slope (allowed) reverses it,
    and its certificates say BROKEN, not "changed"."""
    rng = np.random.default_rng(2)
    s = rng.normal(size=800)
    y = (rng.random(800) < 1.0 / (1.0 + np.exp(-2.0 * s))).astype(int)
    platt = vc.PlattScaling(score_type="logit", on_reversed="allow").fit(-s[:400], y[:400])
    assert platt.a_ < 0
    ledger = vc.compare(-s[400:], y[400:], platt)
    assert ledger.certificates["reversals"] > 0
    text = str(ledger)
    assert _cert_line(text).startswith("  stable argsort identical: BROKEN; AUC bit-identical: BROKEN")
    assert f"order: broken ({ledger.certificates['reversals']} reversals" in text
