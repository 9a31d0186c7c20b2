"""The segments notebook view prints p, q and the MCE's p-value bound as the text does (session 31).

* The HTML table printed p and q at 4 fixed decimals (segment=mobile: 0.0089 and 0.0715; March's p 0.0004)
  where the text prints them with fmt_p (0.009, 0.071; 0.00037): one scan, two readings of the same number.
* The MCE p-value bound printed "<= 0.005" in the notebook's key numbers; HTML now prints "≤ 0.005". The
  text keeps ASCII "p <= 0.005" (docs/segments.md and the notebooks pin it).
"""

from __future__ import annotations

import html
import re

import pytest

import veracity as vc


@pytest.fixture(scope="module")
def raw():
    """The segments notebook's raw scan (docs/notebooks/segments_delayed.ipynb): test rows, June held back."""
    d = vc.load_demo()
    test = (d["role"] == "test") & ~(d["month"] == "2026-06")
    return vc.segments(d["score"][test], d["label"][test],
                       features={"segment": d["segment"][test], "month": d["month"][test]})


def _first_table(page: str) -> dict[str, list[str]]:
    """The first HTML table's rows by segment: every cell's text."""
    table = re.search(r"<table>(.*?)</table>", page, re.S)
    assert table is not None
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1), re.S)
    cells = [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
             for r in rows]
    return {c[0]: c for c in cells if c}


def _text_pq(text: str) -> dict[str, tuple[str, str]]:
    """Every segment's p and q as the text table (``--all``) prints them."""
    out = {}
    for ln in text.splitlines():
        m = re.match(r"^(\S.*?)\s+[\d,]+\s+\S+\s+\S+\s+\S+\s+\[.*?\]\*{0,2}\s+(\S+)\s+(\S+)", ln)
        if m and ("=" in m.group(1)):
            out[m.group(1)] = (m.group(2), m.group(3))
    return out


def test_html_p_and_q_cells_read_as_the_text_prints_them(raw):
    table = _first_table(raw._repr_html_())
    mobile, march = table["segment=mobile"], table["month=2026-03"]
    assert (mobile[6], mobile[7]) == ("0.009", "0.071")  # not 0.0089, 0.0715
    assert (march[6], march[7]) == ("0.00037", "0.006")  # not 0.0004, 0.0059
    text = _text_pq(raw._text(every=True))
    assert len(text) == len(raw.rows) == len(table)
    for segment, (p, q) in text.items():
        assert (table[segment][6], table[segment][7]) == (p, q), segment


def test_html_mce_p_bound_prints_le_sign_and_the_text_keeps_ascii(raw):
    assert raw.n_resamples == 199 and raw.mce_family_pvalue <= 1 / 200 + 1e-12  # a bound: no draw reached it
    page = html.unescape(raw._repr_html_().split("<details><summary>as text")[0])
    key = "MCE p-value, corrected for the maximum"
    item = re.search(re.escape(key) + r"[^<]*</b>([^<]*)<", raw._repr_html_())
    assert item is not None and html.unescape(item.group(1)) == "≤ 0.005"
    assert "<= 0.005" not in page
    assert "p <= 0.005 in 199 draws" in str(raw)  # the text (and the docs that pin it) stays ASCII
