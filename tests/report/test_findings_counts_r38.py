"""The report's question sections count their draws as the numbers read (session 38): the multicalibration
card printed "(p <= 0.500 in 1 draws under calibration" and "in 1999 draws" (no thousands separator, unlike
every other count on the page), and the comparison's note "1 paired Poisson bootstrap resamples" and
"2000 paired Poisson bootstrap resamples"."""

from __future__ import annotations

import html
import re

import numpy as np

import veracity as vc
from veracity.reporting._findings import comparison_section, segments_section

rng = np.random.default_rng(3838)
N = 300
G = rng.choice(["a", "b"], N)
P = rng.uniform(0.05, 0.95, N)
Q = np.clip(P + rng.normal(0, 0.05, N), 0.01, 0.99)
Y = (rng.uniform(size=N) < P).astype(int)


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _card(n_resamples: int) -> str:
    seg = vc.segments(P, Y, features={"g": G}, n_resamples=n_resamples)
    page, _ = segments_section(seg, plots=False, reading="")
    return _text(page[page.index('data-metric="mce"'):page.index('data-metric="n_discoveries"')])


def test_mce_card_counts_one_draw_and_separates_thousands():
    one = _card(1)
    assert " in 1 draw under calibration, over " in one, one
    assert "1 draws" not in one
    assert " in 1,999 draws under calibration, over " in _card(1999)


def test_comparison_note_counts_its_resamples():
    def note(n: int) -> str:
        cmp = vc.compare_models({"A": P, "B": Q}, Y, n_resamples=n)
        return _text(comparison_section(cmp, plots=False, notes=[])[0])

    assert "ECE by 1 paired Poisson bootstrap resample (random_state" in note(1)
    assert "ECE by 2,000 paired Poisson bootstrap resamples (random_state" in note(2000)


def test_one_more_discovery_is_one(monkeypatch):
    """Past the listed discoveries the note read "1 more discoveries are not listed"."""
    from veracity.reporting import _findings

    g = np.repeat(["a", "b", "c", "d"], 150)
    y = (rng.uniform(size=600) < np.where(g == "d", 0.5, 0.9)).astype(int)  # scores 0.5: a, b, c are off
    seg = vc.segments(np.full(600, 0.5), y, features={"g": g}, depth=1)
    found = len(seg.discoveries)
    assert found >= 2
    monkeypatch.setattr(_findings, "MAX_DISCOVERIES", found - 1)
    one = _text(segments_section(seg, plots=False, reading="")[0])
    assert "1 more discovery is not listed: " in one, one
    monkeypatch.setattr(_findings, "MAX_DISCOVERIES", found - 2)
    assert "2 more discoveries are not listed: " in _text(segments_section(seg, plots=False, reading="")[0])
