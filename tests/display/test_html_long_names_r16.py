"""Notebook tables keep their numbers in view when a name is long, and say "weight" for weights.

Before: every cell was ``white-space:nowrap``, so a 200-character slice (or model) name made the
"By group" table ~1,900 px wide; in a 1,000 px notebook output the n, ECE, Brier, ... columns of
every slice lay beyond the right edge. And a weighted audit's reliability table headed its bins'
total weight "n" (218.2792 beside count 216), where the printout says "weight"."""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc

LONG = "L" * 200


def _data():
    rng = np.random.default_rng(4)
    n = 1200
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < p).astype(int)
    keys = np.array([LONG, '<b>x</b> & "q"', "web"], dtype=object)[np.arange(n) % 3]
    return p, y, keys, rng.exponential(1.0, n)


def _cell_classes(page: str, text: str) -> str:
    m = re.search(r'<t[dh](?: class="([^"]*)")?>' + re.escape(text) + "</t[dh]>", page)
    assert m is not None, text
    return m.group(1) or ""


def test_long_cells_may_wrap_short_ones_do_not():
    p, y, keys, _ = _data()
    page = vc.audit(p, y, by=keys)._repr_html_()
    assert "vc-wrap" in _cell_classes(page, LONG)
    assert "vc-wrap" not in _cell_classes(page, "web")
    assert "vc-wrap" not in _cell_classes(page, "&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot;")
    assert ".vc-result td.vc-wrap{white-space:normal;overflow-wrap:anywhere" in page.replace(
        "th.vc-wrap,.vc-result ", "")
    # a long model name as a column header is shortened and may wrap, the whole name in its tooltip
    q = np.clip(p + 0.03, 0, 1)
    comparison = vc.compare_models({"model " + LONG: p, "B": q}, y, n_resamples=50, random_state=0)
    cmp_page = comparison._repr_html_()
    m = re.search(r'<th class="([^"]*)" title="' + re.escape("model " + LONG) + '">', cmp_page)
    assert m is not None and "vc-name" in m.group(1)


def test_weighted_bins_are_headed_weight():
    p, y, keys, w = _data()
    weighted = vc.audit(p, y, sample_weight=w)._repr_html_()
    table = weighted[weighted.index("Reliability table"):weighted.index("Brier decomposition")]
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", table)
    assert heads[:3] == ["bin", "weight", "count"]
    plain = vc.audit(p, y)._repr_html_()
    table = plain[plain.index("Reliability table"):plain.index("Brier decomposition")]
    assert "weight" not in re.findall(r"<th[^>]*>([^<]*)</th>", table)


PAGE = ("<!doctype html><meta charset='utf-8'><body style='margin:0'>"
        "<div id='out' style='width:960px'>{}</div>")


@pytest.mark.browser
def test_slice_table_fits_a_notebook_output(tabs):
    p, y, keys, _ = _data()
    views = [vc.audit(p, y, by=keys)._repr_html_(),
             vc.compare_models({"model " + LONG: p, "B": np.clip(p + 0.03, 0, 1)}, y, n_resamples=50,
                               random_state=0)._repr_html_()]
    page = tabs.page(width=1000, height=800)
    for view in views:
        page.set_content(PAGE.format(view))
        widths = page.eval_on_selector_all(
            "#out .vc-result table", "ts => ts.map(t => t.getBoundingClientRect().right)")
        assert widths and max(widths) <= 960, widths
        # and a short name is not broken: "web" / "brier" sit on one line
        tall = page.eval_on_selector_all(
            "#out td:not(.vc-wrap)", "cs => cs.filter(c => { const r = document.createRange(); "
            "r.selectNodeContents(c); const lines = new Set(Array.from(r.getClientRects(), "
            "x => Math.round(x.top))); return c.innerText.trim() && lines.size > 1; })"
            ".map(c => c.innerText)")
        assert tall == []
