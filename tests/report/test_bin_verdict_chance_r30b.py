"""The summary's bin verdict says how many bins a calibrated model flags by chance alone (helper r30b).

Per-bin intervals carry no multiplicity control: on perfectly calibrated data ("one under-confident bin of
11") the sentence read as a finding. It now adds "about (1 - level) x bins judged by chance alone"."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc

from .conftest import section


def _calibrated(seed: int, n: int = 4000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, n)
    return p, (rng.random(n) < p).astype(int)


def _chance(page: str) -> tuple[int, float]:
    text = re.sub(r"<[^>]+>", "", section(page, "summary"))
    judged = re.search(r"Of (\d+) bins? with at least", text)
    chance = re.search(r"about (\d+\.\d) such bins by chance alone", text)
    assert judged and chance, text
    return int(judged.group(1)), float(chance.group(1))


def test_calibrated_data_flagged_bin_is_put_beside_the_chance_count() -> None:
    p, y = _calibrated(1)
    page = vc.report(p, y, bootstrap=False, figures=False).html
    judged, chance = _chance(page)
    assert chance == round(0.05 * judged, 1)
    page90 = vc.report(p, y, level=0.9, bootstrap=False, figures=False).html
    assert _chance(page90)[1] == round(0.10 * _chance(page90)[0], 1)


def test_the_chance_count_matches_calibrated_simulations() -> None:
    # seeded: the mean number of bins flagged over 60 calibrated samples is near (1 - level) x bins judged
    flagged, expected = [], []
    for seed in range(60):
        p, y = _calibrated(seed, 2000)
        table = vc.audit(p, y, bootstrap=False).table
        ok = [r for r in table.rows if r.sufficient]
        flagged.append(sum(1 for r in ok if r.ci_high < r.conf or r.ci_low > r.conf))
        expected.append(0.05 * len(ok))
    assert 0.5 * np.mean(expected) < np.mean(flagged) < 1.6 * np.mean(expected)


def test_no_judged_bin_has_no_chance_sentence() -> None:
    page = vc.report(np.array([.2, .4, .6, .8, .9]), np.array([0, 1, 0, 1, 1]), bootstrap=False,
                     figures=False).html
    assert "by chance alone" not in section(page, "summary")


def test_no_flagged_bin_has_no_chance_sentence() -> None:
    p = np.linspace(0.05, 0.95, 4000)
    y = (np.arange(4000) % 20 < np.rint(p * 20)).astype(int)  # every bin's rate within a hair of its score
    summary = section(vc.report(p, y, bootstrap=False, figures=False).html, "summary")
    assert "<strong>0</strong> are over-confident and <strong>0</strong> under-confident" in summary
    assert "by chance alone" not in summary
