"""The ledger reads an order-keeping map's certificates on its logits, ±inf kept (session 31).

Where s/τ (or Platt's a·s + b, beta's a ln p − b ln(1 − p) + c) overflowed for logits near ±1e308, the
ledger read the calibrated *probabilities*: every row beyond s/τ ≈ ±37 rounds to exactly 1 or 0 there, so
rows the logits keep apart read as tied. τ = 0.24 printed "changed (N ties created by clipping)" with N
counting those saturated rows, "AUC bit-identical" and the AUC row were computed on them, and a logit of
-1e-300 (probability exactly 0.5) flipped its 0.5 decision to "BROKEN". The order, AUC and decisions now
read the logits (±inf where they overflow): only rows at ±inf tie.

A strictly increasing map computed in doubles may also round two *adjacent* doubles (no double between
them) to one value: s/τ of 5.5 and the next double at τ = 2.5. That tie is neither a clip nor a broken
promise: "changed (1 ties created by floating-point rounding)". A tie of scores with a double between them
stays BROKEN.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.stats import rankdata

import veracity as vc
from veracity.calibrators._ledger import _order_certificate

HUGE = np.array([1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4]) * 1e308


def _fit(make):
    # under-confident logits (the truth is 4 s): τ ≈ 0.24, Platt's a ≈ 4.2, beta's a, b > 1.8
    rng = np.random.default_rng(7)
    x = rng.normal(0, 1.5, 600)
    return make(score_type="logit").fit(x, (rng.random(600) < 1 / (1 + np.exp(-4 * x))).astype(int))


def _rows():
    # ordinary logits, many beyond ±9 (s/τ beyond ±37: probability 1 or 0 after), and logits near ±1e308
    rng = np.random.default_rng(11)
    s = rng.normal(0, 12, 300)
    y = (rng.random(300) < 1 / (1 + np.exp(-s / 20))).astype(int)  # both labels among the saturated rows
    return np.r_[s, HUGE, -HUGE], np.r_[y, np.ones(7, int), np.zeros(7, int)]


def _auc(scores, y):
    # the Mann-Whitney AUC by hand: mid-ranks, ties half
    r = rankdata(scores)
    n1 = int(y.sum())
    n0 = y.size - n1
    return (r[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)


def _cert_lines(text):
    lines = text.splitlines()
    i = lines.index("certificates")
    return lines[i + 1:i + 4]


@pytest.mark.parametrize("make", [vc.TemperatureScaling, vc.PlattScaling, vc.BetaCalibration])
def test_overflowed_logits_tie_only_at_inf(make):
    cal = _fit(make)
    s, y = _rows()
    with np.errstate(over="ignore"):
        z = cal.transform_logit(s)
        p = cal.transform(s)
    # the oracle: logits past ±max-float are ±inf (rows tied at an end), every other logit is distinct;
    # the probabilities tie many more rows (the trap the old ledger fell into)
    inf_hi, inf_lo = int((z == np.inf).sum()), int((z == -np.inf).sum())
    assert inf_hi >= 2 and inf_lo >= 2 and not np.isnan(z).any()
    finite = z[np.isfinite(z)]
    assert np.unique(finite).size == finite.size
    clip_ties = inf_hi - 1 + inf_lo - 1
    assert p.size - np.unique(p).size > clip_ties + 5
    ledger = vc.compare(s, y, cal)
    c = ledger.certificates
    assert c["ties_created"] == clip_ties and c["ties_clipped"] == clip_ties and c["reversals"] == 0
    order, ids, counts = _cert_lines(str(ledger))
    assert order == f"  order: changed ({clip_ties} ties created by clipping)"
    assert counts == f"  ties created: {clip_ties}; order reversals: 0"
    # the rows at ±inf share a label, so the AUC is the raw logits' AUC, read on the calibrated logits
    auc = ledger.row("AUC")
    assert auc.before == pytest.approx(_auc(s, y), abs=1e-12)
    assert auc.after == pytest.approx(_auc(z, y), abs=1e-12)
    assert auc.after == pytest.approx(auc.before, abs=1e-12) and auc.after != pytest.approx(_auc(p, y))
    assert c["auc_identical"] is True and "AUC bit-identical: held" in ids
    assert "BROKEN" not in ids


def test_a_tiny_logit_keeps_its_decision_where_the_others_overflow():
    # s = -1e-300: s/τ < 0 (decision 0), but expit of it is exactly 0.5 (decision 1 read on the probability)
    ts = _fit(vc.TemperatureScaling)
    s, y = _rows()
    s = np.r_[s, -1e-300, 1e-300]
    y = np.r_[y, 0, 1]
    # the probability keeps the logit's side of 1/2 (round 42: it read exactly 0.5, the other decision)
    assert ts.transform(np.array([-1e-300]))[0] < 0.5 and ts.transform_logit(np.array([-1e-300]))[0] < 0
    ledger = vc.compare(s, y, ts)
    assert ledger.certificates["decisions_identical"] is True
    assert "0.5 decisions identical: held" in _cert_lines(str(ledger))[1]
    acc = ledger.row("accuracy@0.5")
    assert acc.after == acc.before == np.mean((s >= 0) == (y == 1))


def _rounding_pair(tau):
    # the oracle: a double x whose next double has the same s/τ
    for x in np.linspace(1.0, 8.0, 2001):
        if x / tau == np.nextafter(x, np.inf) / tau:
            return x
    raise AssertionError("no pair")  # pragma: no cover


def test_adjacent_doubles_tied_by_rounding_are_not_broken():
    ts = _fit(vc.TemperatureScaling)
    rng = np.random.default_rng(5)
    s = rng.normal(0, 2, 200)
    y = (rng.random(200) < 1 / (1 + np.exp(-4 * s))).astype(int)
    x = _rounding_pair(ts.temperature_)
    s = np.r_[s, x, np.nextafter(x, np.inf)]
    y = np.r_[y, 1, 0]  # the lower of the pair is the positive: the tie moves the AUC by half a pair
    z = ts.transform_logit(s)
    assert np.unique(s).size == s.size and np.unique(z).size == z.size - 1  # exactly the one tie
    ledger = vc.compare(s, y, ts)
    c = ledger.certificates
    assert c["ties_created"] == 1 and c["ties_rounding"] == 1 and c["ties_clipped"] == 0
    order, ids, _ = _cert_lines(str(ledger))
    assert order == "  order: changed (1 ties created by floating-point rounding)"
    assert ids.startswith("  stable argsort identical: changed; AUC bit-identical: changed; ")
    assert ledger.certificate_words()["order"] == "changed (1 ties created by floating-point rounding)"
    auc = ledger.row("AUC")
    n1, n0 = int(y.sum()), int((1 - y).sum())
    assert auc.after - auc.before == pytest.approx(0.5 / (n1 * n0), rel=1e-9)
    assert auc.can_move
    assert auc.note == "the map tied 1 neighbouring score (scores closer than the map's rounding error rounded to one value)"


def test_the_rounding_rule_counts_only_adjacent_doubles():
    one = 1.0
    nxt = np.nextafter(one, 2.0)
    nxt2 = np.nextafter(nxt, 2.0)
    zeros = np.zeros(3, dtype=int)
    adjacent = _order_certificate(np.array([one, nxt, 3.0]), np.array([0.5, 0.5, 0.9]), zeros, zeros)
    assert adjacent["ties_created"] == 1 and adjacent["ties_rounding"] == 1
    gap = _order_certificate(np.array([one, nxt2, 3.0]), np.array([0.5, 0.5, 0.9]), zeros, zeros)
    assert gap["ties_created"] == 1 and gap["ties_rounding"] == 0
    # no ends passed (a method that may tie scores): nothing is called rounding
    assert _order_certificate(np.array([one, nxt, 3.0]), np.array([0.5, 0.5, 0.9]))["ties_rounding"] == 0


@pytest.mark.parametrize("clipped, rounded, order", [
    (0, 2, "changed (2 ties created by floating-point rounding)"),
    (1, 1, "changed (1 ties created by clipping, 1 by floating-point rounding)"),
    (0, 1, "broken (2 ties created)"),
    (1, 0, "broken (2 ties created)"),
])
def test_the_words_of_clipped_and_rounded_ties(clipped, rounded, order):
    s, y = _rows()
    ledger = vc.compare(s, y, _fit(vc.TemperatureScaling))
    cert = dict(ledger.certificates, ties_created=2, ties_clipped=clipped, ties_rounding=rounded,
                argsort_identical=False, order="broken (2 ties created)")
    text = str(replace(ledger, certificates=cert))
    got, ids, _ = _cert_lines(text)
    assert got == f"  order: {order}"
    word = "BROKEN" if order.startswith("broken") else "changed"
    assert ids.startswith(f"  stable argsort identical: {word}")
