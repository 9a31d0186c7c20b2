"""A rare event's segment gaps print with two significant digits (session 28).

At a 0.5 % base rate a segment miscalibrated by +0.3 percentage points printed its interval at 3 decimals
("[+0.002, +0.004]": one digit each) and a segment with no gap read "-0.0000  [-0.001, +0.001]"; the report's
table did the same. The segments now follow the comparison's digits rule (:mod:`veracity.core._digits`): the
gap and its interval's ends are one group whose largest magnitude shows two significant digits; at common
rates (magnitudes of 0.01 or more) the table keeps its look (4 decimals, the interval at 3). JSON keeps every
number at full precision.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc

NUM = r"[+-]?\d+\.\d+"


def _data(rate: float, shift: float, n: int = 100_000, seed: int = 0):
    rng = np.random.default_rng(seed)
    region = rng.choice(["EU", "US", "APAC", "LATAM"], size=n)
    p = np.clip(rng.beta(2.0, 2.0 / rate - 2.0, size=n), 1e-6, 1 - 1e-6)  # mean `rate`
    y = (rng.random(n) < np.clip(p + np.where(region == "EU", shift, 0.0), 0, 1)).astype(int)
    return vc.segments(p, y, features={"region": region}, depth=1)


@pytest.fixture(scope="module")
def rare():
    return _data(0.005, 0.003)


def _line(text: str, segment: str) -> list[str]:
    """The numbers of ``segment``'s line of the text table: conf, rate, gap, interval low, high, p, q."""
    line = next(ln for ln in text.splitlines() if ln.startswith(segment + " "))
    return re.findall(NUM, line.split(None, 2)[2])


def _places(text: str) -> int:
    return len(text.split(".")[1])


def _two_significant(texts: list[str], values: list[float]) -> None:
    """The texts are the values rounded at their decimals, which show the largest magnitude to 2 digits."""
    d = _places(texts[0])
    assert all(_places(t) == d for t in texts), texts
    for t, v in zip(texts, values):
        assert abs(float(t) - v) <= 0.5 * 10.0 ** -d + 1e-15, (t, v)
    assert max(abs(v) for v in values) >= 10.0 ** (1 - d) * 0.95, (texts, values)  # 2 significant digits


def test_the_discovered_rare_segment_prints_its_interval_with_two_significant_digits(rare):
    row = rare.segment("region=EU")
    assert row.discovery and 0.001 < row.gap < 0.006  # the simulated +0.3 points, found
    conf, rate, gap, lo, hi = _line(rare._text(every=True), "region=EU")[:5]
    _two_significant([gap, lo, hi], [row.gap, row.ci_low, row.ci_high])  # was [+0.002, +0.004]


def test_every_rare_row_shows_its_gap_group_to_two_significant_digits(rare):
    text = rare._text(every=True)
    for row in rare.rows:
        conf, rate, gap, lo, hi = _line(text, row.segment)[:5]
        _two_significant([gap, lo, hi], [row.gap, row.ci_low, row.ci_high])
        assert abs(float(conf) - row.conf) <= 0.5 * 10.0 ** -_places(conf) + 1e-15


def test_the_notebook_table_prints_what_the_text_prints(rare):
    page = rare._repr_html_()
    for row in rare.rows:
        conf, rate, gap, lo, hi = _line(rare._text(every=True), row.segment)[:5]
        assert f">{gap}<" in page and f"{lo}" in page and f"{hi}" in page, row.segment


def test_json_keeps_full_precision(rare):
    d = rare.to_dict()["segments"]
    for row, rec in zip(rare.rows, d):
        assert rec["gap"] == row.gap and rec["ci_low"] == row.ci_low and rec["conf"] == row.conf


def test_common_rates_keep_their_look():
    res = _data(0.3, 0.05, n=20_000, seed=1)
    text = res._text(every=True)
    for row in res.rows:
        assert max(abs(row.ci_low), abs(row.ci_high)) >= 0.01  # the common scale this test is about
        line = next(ln for ln in text.splitlines() if ln.startswith(row.segment + " "))
        assert line.split()[2:7] == [f"{row.conf:.4f}", f"{row.rate:.4f}", f"{row.gap:+.4f}",
                                     f"[{row.ci_low:+.3f},", f"{row.ci_high:+.3f}]"], line
