"""The report's certificates say what the ledger says: Platt's 0.5 decisions 'changed (the fit moves the 0.5 cut)',
not '✗ broken' (its intercept moves the cut by design); temperature scaling keeps its promised certificates ✓."""
import re

import numpy as np
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(31)
    p = rng.uniform(0.02, 0.98, 4000)
    y = (rng.uniform(size=4000) < np.clip(p * 0.7 + 0.2, 0, 1)).astype(int)  # off in the large and in slope
    return p[:2000], y[:2000], p[2000:], y[2000:]


def _certs(html: str) -> str:
    return html[html.index("<h3>Certificates</h3>"):].split("</ul>")[0]


def test_platt_decisions_read_changed_not_broken(rows):
    pc, yc, pt, yt = rows
    cal = vc.PlattScaling().fit(pc, yc)
    ledger = vc.compare(pt, yt, cal)
    assert ledger.certificates["decisions_identical"] is False  # the premise: the 0.5 cut moved
    certs = _certs(vc.report(pt, yt, calibrator=cal, bootstrap=False, figures=False).html)
    assert "✗" not in certs, certs
    assert re.search(r"changed \(the fit moves the 0\.5 cut\)</span> 0\.5 decisions identical", certs), certs
    assert ledger.certificate_words()["0.5 decisions identical"] == "changed (the fit moves the 0.5 cut)"


def test_temperature_keeps_its_promises_held(rows):
    pc, yc, pt, yt = rows
    cal = vc.TemperatureScaling().fit(pc, yc)
    certs = _certs(vc.report(pt, yt, calibrator=cal, bootstrap=False, figures=False).html)
    for label in ("stable argsort identical", "AUC bit-identical", "0.5 decisions identical"):
        assert f"✓ held</span> {label}" in certs, certs
