"""The ECE card prints the noise floor's smallest p-value as the bound it is (session 31).

With R redraws the Monte-Carlo p-value (1 + #{redraws at least as large}) / (R + 1) is at least 1/(R + 1):
where no redraw reached the ECE it is that bound, and the slices table printed it "≤ 0.001" while the ECE
card above it printed "p = 0.001", a value. The card now prints "p ≤ 0.001" there, through the slices
table's own function; a p-value above the bound still reads "p = 0.120".
"""

from __future__ import annotations

import re

import numpy as np

import veracity as vc

from .conftest import section, table_rows


def _ece_card(page: str) -> str:
    m = re.search(r'<div class="card" data-metric="ece">(.*?)</div></div>', page, re.S)
    assert m
    return m.group(1)


def _floor_text(card: str) -> str:
    m = re.search(r"noise floor (\S+) \((p [^)]*)\)", card)
    assert m, card
    return m.group(2)


def test_card_prints_the_smallest_p_as_a_bound_as_the_slices_table_does():
    rng = np.random.default_rng(5)
    n, r = 2000, 200
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < np.clip(p + 0.15, 0, 1)).astype(int)  # far off: no redraw reaches the ECE
    keys = np.where(np.arange(n) % 2 == 0, "a", "b")
    nf = vc.ece_noise_floor(p, y, bins=15, n_resamples=r, random_state=0)
    assert nf.p_value == 1 / (r + 1)  # the oracle: the bound, 1/201 = 0.004975
    page = vc.report(p, y, by={"seg": keys}, n_resamples=r, figures=False).html
    assert _floor_text(_ece_card(page)) == "p ≤ 0.005"
    # the slices table's "(all)" row prints the same whole-data p-value the same way
    rows = {row[0]: row for row in table_rows(section(page, "slices"), "slices")}
    assert rows["(all)"][5] == "≤ 0.005"


def test_card_prints_a_p_above_the_bound_as_a_value():
    rng = np.random.default_rng(3)
    n, r = 300, 200
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)  # calibrated: p well above 1/(R + 1)
    nf = vc.ece_noise_floor(p, y, bins=15, n_resamples=r, random_state=0)
    assert nf.p_value > 2 / (r + 1)
    card = _ece_card(vc.report(p, y, n_resamples=r, figures=False).html)
    assert _floor_text(card) == f"p = {nf.p_value:.3f}"
