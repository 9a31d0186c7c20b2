"""The report's segments section prints a rare event's gaps as the text does (session 28).

At a 0.5 % base rate the report's segment table printed the interval at 3 decimals ("[+0.002, +0.004]"),
the detectable gap at 3 ("0.001") and the verdict's largest gap at 4 whatever its scale; now every number
of a segment's row takes the row's decimals (:func:`veracity.segments._result.row_digits`), the ones the
text table prints, and the detectable gap shows two significant digits.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc

from .conftest import section, table_rows


def places(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


@pytest.fixture(scope="module")
def rare():
    rng = np.random.default_rng(0)
    n = 100_000
    region = rng.choice(["EU", "US", "APAC", "LATAM"], size=n)
    p = np.clip(rng.beta(2.0, 398.0, size=n), 1e-6, 1.0)  # a 0.5 % base rate
    y = (rng.random(n) < p + np.where(region == "EU", 0.003, 0.0)).astype(int)  # EU off by +0.3 points
    rep = vc.report(p, y, features={"region": region}, bootstrap=False, figures=False)
    res = vc.segments(p, y, features={"region": region})
    return section(rep.html, "segments"), res


def test_the_rare_discovery_row_shows_two_significant_digits(rare):
    page, res = rare
    row = res.segment("region=EU")
    assert row.discovery
    cells = next(c for c in table_rows(page, "segments") if c[0] == "region=EU")
    gap, interval, detectable = cells[4], cells[5], cells[8]
    lo, hi = re.findall(r"[+-]\d+\.\d+", interval)
    d = places(gap)
    assert places(lo) == places(hi) == d
    for text, value in ((gap, row.gap), (lo, row.ci_low), (hi, row.ci_high)):
        assert abs(float(text) - value) <= 0.5 * 10.0 ** -d + 1e-15, (text, value)
    assert max(abs(row.ci_low), abs(row.ci_high)) >= 0.95 * 10.0 ** (1 - d)  # two significant digits
    # the smallest detectable gap: two significant digits, not "0.001"
    k = places(detectable)
    assert abs(float(detectable) - row.min_detectable_gap) <= 0.5 * 10.0 ** -k + 1e-15
    assert row.min_detectable_gap >= 0.95 * 10.0 ** (1 - k)


def test_the_row_reads_as_the_text_table(rare):
    page, res = rare
    line = next(ln for ln in str(res).splitlines() if ln.startswith("region=EU "))
    conf, rate, gap, lo, hi = line.split()[2:7]
    cells = next(c for c in table_rows(page, "segments") if c[0] == "region=EU")
    assert cells[2:5] == [conf, rate, gap]
    assert cells[5].startswith(f"{lo} {hi}")
