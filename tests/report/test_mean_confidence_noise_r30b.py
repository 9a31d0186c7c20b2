"""The multiclass summary's mean-confidence card calls the gap over-/under-confident only beyond noise (r30b).

It read "gap +0.0106, under-confident on average" for a calibrated model (1,500 rows: about ±0.025 of noise);
the card now gives the gap's interval and says "within noise" when it includes 0."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc
from veracity.reporting._sections import _mean_confidence_card

from .conftest import section


def _sample(seed: int, n: int = 1500, sharpen: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.dirichlet([1.0, 1.0, 1.0], n)
    y = (rng.random(n)[:, None] > np.cumsum(truth, axis=1)).sum(axis=1)
    shown = truth ** sharpen
    return shown / shown.sum(axis=1, keepdims=True), y


def _verdict(card: str) -> str:
    m = re.search(r"gap ([+-]\d\.\d{4}), (within noise|over-confident on average|under-confident on average) "
                  r"\(95% interval \[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]\)", card)
    assert m, card
    gap, low, high = float(m.group(1)), float(m.group(3)), float(m.group(4))
    assert low < gap < high and (m.group(2) == "within noise") == (low <= 0 <= high), card
    return m.group(2)


def test_a_calibrated_model_in_the_report_reads_within_noise() -> None:
    p, y = _sample(1)
    page = vc.report(p, y, bootstrap=False, figures=False).html
    text = re.sub(r"<[^>]+>", "", section(page, "summary"))
    assert _verdict(text) == "within noise"
    assert "confident on average" not in text


def test_calibrated_samples_are_flagged_about_five_percent_of_the_time() -> None:
    # seeded simulation: 120 calibrated samples; the 95% interval flags about 6 (a conservative variance)
    verdicts = [_verdict(_mean_confidence_card(vc.audit(*_sample(s), bootstrap=False), "share"))
                for s in range(120)]
    flagged = sum(v != "within noise" for v in verdicts)
    assert flagged <= 14


def test_a_sharpened_model_is_over_confident() -> None:
    # the same truth, probabilities raised to the power 1.6 and renormalised: over-confident by about 0.1
    hits = [_verdict(_mean_confidence_card(vc.audit(*_sample(s, sharpen=1.6), bootstrap=False), "share"))
            for s in range(20)]
    assert hits.count("over-confident on average") >= 18
