"""Panels whose long names share their end are told apart (session 38): the title of each small multiple
was cut to the longest end that fits, so slices "north — all customers with a premium subscription …",
"south — …" and "east — …" all read "…n and a long tenure" in `vc.audit(p, y, by=...).plot()` and in the
report's slice panels. Now a title that would equal another panel's keeps the part where its name differs."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("matplotlib")

TAIL = " — all customers with a premium subscription and a long tenure"


def _titles(fig) -> list[str]:
    return [ax.get_title(loc="left") for ax in fig.axes if ax.get_visible() and ax.get_title(loc="left")]


def _data(names: list[str], n: int = 3000, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < p).astype(int)
    return p, y, np.array(names)[rng.integers(0, len(names), n)]


def test_slices_sharing_a_long_end_get_distinct_titles() -> None:
    p, y, g = _data([f"{side}{TAIL}" for side in ("north", "south", "east")])
    titles = _titles(vc.audit(p, y, by={"segment": g}).plot())
    slices = titles[1:]
    assert titles[0] == "(all)" and len(slices) == 3
    assert len(set(slices)) == 3, slices  # before: "…n and a long tenure" three times
    for side in ("north", "south", "east"):
        assert sum(t.startswith(side) for t in slices) == 1, slices
    # the earlier rule stands where it already told the panels apart: the end kept, "…" in front
    p, y, g = _data([f"{'x' * 60} {k}" for k in ("alpha", "beta", "gamma")])
    slices = _titles(vc.audit(p, y, by={"segment": g}).plot())[1:]
    assert len(set(slices)) == 3 and all(t.startswith("…") and not t.endswith("…") for t in slices), slices


def test_names_differing_in_the_middle_show_where_they_differ() -> None:
    p, y, g = _data([f"région très longue numéro {k} — ünïcødé slice <b>&amp;</b>" for k in range(3)])
    slices = _titles(vc.audit(p, y, by={"a long slice column name": g}).plot())[1:]
    assert len(set(slices)) == 3, slices
    assert sorted(t[1] for t in slices) == ["0", "1", "2"], slices  # "…0 — ünïcødé s…"
    assert all(t.startswith("…") and t.endswith("…") for t in slices), slices


def test_the_report_slice_panels_are_told_apart_too() -> None:
    p, y, g = _data([f"{side}{TAIL}" for side in ("north", "south", "east")])
    html = vc.report(p, y, by={"segment": g}, bootstrap=False).html  # the panels as drawn with it
    section = html[html.index('id="slices"'):]
    svg = section[section.index("<svg"):section.index("</svg>")]  # the panels (the table names them whole)
    for side in ("north", "south", "east"):
        assert svg.count(f"{side} — all") == 1, side  # each panel's title starts with its own name
