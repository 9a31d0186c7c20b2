"""With a calibrator, each section says which scores it shows.

The summary, reliability and slices audit the scores as given; the explorer and operating curves read the
calibrated probabilities. The page said so only for the explorer, so the summary's "ECE 0.1006, above
noise" of the raw scores read as the calibrated model's (0.0683 after the calibrator, on the same page).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc

from .conftest import section

BEFORE = "before the calibrator"


def _lead(part: str) -> str:
    m = re.search(r'<p class="lead">(.*?)</p>', part, re.S)
    return m.group(1) if m else ""


@pytest.fixture(scope="module")
def demo():
    d = vc.load_demo()
    calib, test = d["role"] == "calib", d["role"] == "test"
    cal = vc.TemperatureScaling(score_type="logit").fit(d["logit"][calib], d["label"][calib])
    return d["logit"][test], d["label"][test], d["segment"][test], cal


def test_each_section_names_the_scores_it_shows(demo):
    s, y, seg, cal = demo
    page = vc.report(s, y, score_type="logit", calibrator=cal, by={"segment": seg}, cost_fn=9,
                     bootstrap=False).html
    ece_card = re.search(r'data-metric="ece">.*?<div class="card-value">(.*?)</div>', page, re.S).group(1)
    assert ece_card == f"{vc.audit(s, y, score_type='logit').ece:.4f}"  # the raw scores' ECE ...
    assert ece_card != f"{vc.audit(cal.transform(s), y).ece:.4f}"     # ... not the calibrated one's
    for sid in ("summary", "reliability", "slices"):
        assert BEFORE in _lead(section(page, sid)), sid
    assert "calibrated probabilities" in _lead(section(page, "curves"))
    assert "calibrated probability" in _lead(section(page, "explorer-section"))


def test_without_a_calibrator_nothing_is_said(demo):
    s, y, seg, _ = demo
    page = vc.report(s, y, score_type="logit", by={"segment": seg}, cost_fn=9, bootstrap=False).html
    assert BEFORE not in page
    assert "calibrated probabilit" not in _lead(section(page, "curves"))
    assert _lead(section(page, "summary")) == ""
