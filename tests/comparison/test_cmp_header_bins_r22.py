"""Session 22 (notebook read): compare_models never said on how many bins its ECE (ece_debiased) is read,
while vc.compare's header says 'ECE with 15 equal-width bins' and vc.audit's notebook used 10: three ECEs
of one model on the same rows read as a contradiction. The first line (text) and the summary (notebook)
now name the bins; a comparison of rankings (score_type="score", AUC only) has no ECE and says none."""

from __future__ import annotations

import html
import re

import numpy as np

import veracity as vc


def _data():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 400)
    y = (rng.random(400) < p).astype(int)
    return {"a": p, "b": np.clip(p * 0.9, 0.001, 0.999)}, y


def _text(h: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", h.split("<details")[0]))


def test_first_line_names_the_bins():
    scores, y = _data()
    for bins in (10, 15, 7):
        res = vc.compare_models(scores, y, bins=bins, n_resamples=0)
        first = str(res).splitlines()[0]
        assert f"ECE on {bins} equal-width bins" in first, first
        assert f"{bins} equal-width bins" in _text(res._repr_html_())


def test_default_is_fifteen_bins_as_vc_compare():
    scores, y = _data()
    assert "ECE on 15 equal-width bins" in str(vc.compare_models(scores, y, n_resamples=0)).splitlines()[0]


def test_rankings_have_no_ece_and_name_no_bins():
    scores, y = _data()
    res = vc.compare_models(scores, y, score_type="score")
    assert "equal-width" not in str(res) and "equal-width" not in _text(res._repr_html_())
