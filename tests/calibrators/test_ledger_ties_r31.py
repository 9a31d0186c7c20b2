"""The ledger's order certificate counts the ties a calibrator created as a change of order (session 31).

The stable argsort of the calibrated scores compared equal to the raw one when the map only CREATED ties
between rows already in index order: Platt reads every probability below ε = 2.2e-16 as ε, so 1e-320,
1e-310, 1e-305 and 1e-301 come out as one value, and the ledger printed "order: held" and "stable argsort
identical: held" beside "ties created: 3" (the same rows in another order printed "broken"). Created ties
now always change the order. A strictly increasing map (Platt, beta, temperature scaling: the ledger's
"can move?" says no for the AUC) that tied rows only by that clipping says so plainly, "changed (3 ties
created by clipping)", not BROKEN; a tie it made elsewhere, or any reversal, still reads BROKEN; a method
that may tie scores (isotonic) keeps "changed (N ties created)".
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

import veracity as vc
from veracity.calibrators._ledger import _order_certificate

# ascending, as the rows come: the stable argsort hides the tie
TINY = np.array([1e-320, 1e-310, 1e-305, 1e-301])


def _rows(tiny_first: bool = True):
    rng = np.random.default_rng(3)
    q = rng.uniform(0.05, 0.95, 400)
    fit = (q, (rng.uniform(size=400) < q).astype(int))
    body = rng.uniform(0.05, 0.95, 200)
    yb = (rng.uniform(size=200) < body).astype(int)
    if tiny_first:
        return fit, np.r_[TINY, body], np.r_[[0, 1, 0, 1], yb]
    return fit, np.r_[body, TINY[::-1]], np.r_[yb, [1, 0, 1, 0]]


def _cert_lines(text: str) -> list[str]:
    lines = text.splitlines()
    i = lines.index("certificates")
    return lines[i + 1:i + 4]


def test_order_certificate_counts_a_created_tie_in_index_order():
    # the oracle by hand: rows 0 < 1 < 2 before; after, rows 0 and 1 tie (in index order), row 2 stays above
    before = np.array([0.1, 0.2, 0.3])
    after = np.array([0.5, 0.5, 0.7])
    assert np.array_equal(np.argsort(before, kind="stable"), np.argsort(after, kind="stable"))  # the trap
    c = _order_certificate(before, after)
    assert c["ties_created"] == 1 and c["reversals"] == 0
    assert c["argsort_identical"] is False
    # no tie, no reversal: identical
    assert _order_certificate(before, after + np.array([0.0, 0.1, 0.2]))["argsort_identical"] is True


@pytest.mark.parametrize("tiny_first", [True, False])
def test_platt_clipped_ties_read_changed_by_clipping_whatever_the_row_order(tiny_first):
    (q, yq), p, y = _rows(tiny_first)
    platt = vc.PlattScaling().fit(q, yq)
    assert platt.preserves_order_  # it promises the order: AUC "can move? no" on rows it does not tie
    after = platt.transform(p)[np.argsort(p, kind="stable")]
    assert np.sum(np.diff(after) == 0) == 3  # the oracle: the clip tied the four tiny scores, nothing else
    ledger = vc.compare(p, y, platt)
    c = ledger.certificates
    assert c["ties_created"] == 3 and c["ties_clipped"] == 3 and c["reversals"] == 0
    assert c["argsort_identical"] is False and c["order"] == "broken (3 ties created)"
    order, ids, counts = _cert_lines(str(ledger))
    assert order == "  order: changed (3 ties created by clipping)"
    assert ids.startswith("  stable argsort identical: changed; AUC bit-identical: changed; ")
    assert counts == "  ties created: 3; order reversals: 0"
    assert "held" not in order and "BROKEN" not in ids
    words = ledger.certificate_words()
    assert words["order"] == "changed (3 ties created by clipping)"
    assert words["stable argsort identical"] == "changed"
    assert json.loads(json.dumps(ledger.to_dict()))["certificates"]["argsort_identical"] is False


@pytest.mark.parametrize("make", [vc.BetaCalibration, vc.TemperatureScaling])
def test_other_order_keeping_maps_say_clipping_too(make):
    (q, yq), p, y = _rows(True)
    cal = make().fit(q, yq)
    ledger = vc.compare(p, y, cal)
    assert ledger.certificates["ties_created"] == 3
    assert "  order: changed (3 ties created by clipping)" in str(ledger).splitlines()


def test_an_unclipped_tie_of_a_promised_order_still_reads_broken():
    # a Ledger whose map tied two rows away from any clip: a promise failed (no strictly increasing map ties
    # 0.3 and 0.4), so BROKEN stays
    (q, yq), p, y = _rows(True)
    ledger = vc.compare(p, y, vc.PlattScaling().fit(q, yq))
    cert = dict(ledger.certificates, ties_created=4, ties_clipped=3, order="broken (4 ties created)")
    broken = replace(ledger, certificates=cert)
    order, ids, _ = _cert_lines(str(broken))
    assert order == "  order: broken (4 ties created)"
    assert ids.startswith("  stable argsort identical: BROKEN; AUC bit-identical: BROKEN; ")


def test_a_method_that_may_tie_keeps_its_words():
    (q, yq), p, y = _rows(True)
    ledger = vc.compare(p, y, vc.IsotonicCalibration().fit(q, yq))
    c = ledger.certificates
    assert c["ties_created"] > c["ties_clipped"] and c["reversals"] == 0
    order, ids, _ = _cert_lines(str(ledger))
    assert order == f"  order: changed ({c['ties_created']} ties created)"
    assert "BROKEN" not in ids and "held" not in ids.split(";")[0]


def test_no_tie_still_holds():
    (q, yq), p, y = _rows(True)
    ledger = vc.compare(p[4:], y[4:], vc.PlattScaling().fit(q, yq))
    assert ledger.certificates["ties_created"] == 0 and ledger.certificates["argsort_identical"] is True
    order, ids, _ = _cert_lines(str(ledger))
    assert order == "  order: held"
    assert ids.startswith("  stable argsort identical: held; AUC bit-identical: held")
