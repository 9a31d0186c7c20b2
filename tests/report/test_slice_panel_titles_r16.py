"""The report's slice panels name the slice, not a tail of "column = name".

A panel title that did not fit beside its ECE was shortened keeping its end, so with the column
"seg <x>" the slice '<b>bold</b> & "q"' was titled '…>bold</b> & "q"' (a name no slice has) and
"שלום עולם RTL" was '…x> = שלום עולם RTL'; the section title already names the column, so
the "column = " prefix goes first and the whole slice name shows."""

from __future__ import annotations

import html

import numpy as np

import veracity as vc
from veracity.plotting import _reliability

BOLD = '<b>bold</b> & "q"'
HEBREW = "שלום עולם"


def _titles(fig):
    return [ax.get_title(loc="left") for ax in fig.axes if ax.get_visible() and ax.get_title(loc="left")]


def _data():
    rng = np.random.default_rng(3)
    n = 1200
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < p).astype(int)
    keys = np.array([BOLD, HEBREW, "web"], dtype=object)[np.arange(n) % 3]
    return p, y, keys


def test_panel_titles_drop_the_column_before_the_slice_name():
    import matplotlib.pyplot as plt

    p, y, keys = _data()
    audit = vc.audit(p, y, by=keys)
    tables = {"(all)": audit.table}
    tables.update({f"segment of the customer = {k}": g.table for k, g in audit.groups.items()})
    fig = _reliability._panel_tables(tables, ncols=3, size=2.9, prefix="segment of the customer = ")
    try:
        titles = _titles(fig)
        assert titles[0] == "(all)"
        # each slice's whole name, and nothing of the column beside it ("…" would mean a cut name)
        shown = {t.replace("\\$", "$") for t in titles[1:]}
        assert not any(t.startswith("…") for t in titles), titles
        assert any(BOLD in t for t in shown), titles
        assert any(HEBREW in t for t in shown), titles
        # a short name that fits keeps its column
        assert "segment of the customer = web" in shown or "web" in shown
    finally:
        plt.close(fig)


def test_report_slice_panels_show_whole_slice_names():
    p, y, keys = _data()
    page = vc.report(p, y, by={"segment of the customer": keys}, bootstrap=False).html
    svg = page[page.index('id="slices"'):]
    svg = svg[:svg.index("</svg>")]
    assert html.escape(BOLD, quote=False) in svg or html.escape(BOLD) in svg
    assert "…" not in svg
