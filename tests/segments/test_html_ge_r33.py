"""The segments notebook view says "n ≥ 50" where its text says "n >= 50" (session 33).

The notebook's title (the text's header) and its "segments" key number printed ASCII "tested (n >= 50)"
beside the MCE p-value bound's "≤ 0.005" and the HTML report's "n ≥ 50"; a page prints ≥, the terminal
text keeps ASCII (docs/segments.md pins it), as ``mce_p_html`` does for the bound.
"""

from __future__ import annotations

import html
import re

import numpy as np

import veracity as vc


def _result(min_count: int = 50) -> vc.SegmentsResult:
    rng = np.random.default_rng(7)
    n = 2_000
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < p).astype(int)
    return vc.segments(p, y, features={"g": rng.choice(["a", "b", "c"], n)}, min_count=min_count)


def test_html_title_and_key_numbers_print_ge_sign():
    res = _result(min_count=60)
    page = res._repr_html_()
    before_text = html.unescape(page.split("<details><summary>as text")[0])
    title = re.search(r'<div class="vc-title">(.*?)</div>', page, re.S)
    assert title is not None and "3 tested (n ≥ 60)" in html.unescape(title.group(1))
    assert res._summary_items()["segments"] == "3, 3 tested (n ≥ 60)"
    assert "n >= 60" not in before_text and "n ≥ 60" in before_text


def test_text_keeps_ascii():
    res = _result()
    assert str(res).splitlines()[0].count("(n >= 50)") == 1
    assert "n ≥" not in str(res)
    assert "n >= 50" in res.mce_family_text()
    page = html.unescape(res._repr_html_())
    assert "3 tested (n >= 50)" in page.split("<details><summary>as text")[1]  # the text inside the page


def test_header_writes_min_count_as_the_mce_line_does():
    """The header printed "(n >= 1000)" beside the MCE line's "the 2 with n >= 1,000"."""
    rng = np.random.default_rng(3)
    n = 5_000
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < p).astype(int)
    res = vc.segments(p, y, features={"g": rng.choice(["a", "b"], n)}, min_count=1_000)
    text = str(res)
    assert "2 tested (n >= 1,000)" in text.splitlines()[0]
    assert "the 2 with n >= 1,000" in text
    assert "2 tested (n ≥ 1,000)" in res._title()
