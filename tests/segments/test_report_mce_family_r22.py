"""The HTML report's segments card says what its "over K segments" counts (all rows and the segments of at
least min_count rows), as the text does; before it read "over 28 segments" beside "27 segments"."""

from __future__ import annotations

import html

import numpy as np

import veracity as vc


def test_the_report_card_names_the_mce_family():
    rng = np.random.default_rng(3)
    n = 3000
    region = rng.choice(["EU", "US", "APAC"], n)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < np.where(region == "EU", p * 0.7, p)).astype(int)
    want = vc.segments(p, y, features={"region": region})
    page = vc.report(p, y, features={"region": region}, bootstrap=False).html
    family = want.mce_family_text()
    assert family.startswith(f"{want.mce_segments} segments: all rows and the {want.mce_segments - 1} with n >= ")
    assert html.escape(family.replace(" >= ", " ≥ ")) in page  # a page prints "n ≥ 50" (session 32)
