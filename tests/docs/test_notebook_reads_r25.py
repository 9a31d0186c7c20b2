"""What a notebook user reads (session 25): the notebooks' prose against the outputs they sit beside —
the rich (HTML) view a notebook shows, not only the text under *as text*.

* comparison.ipynb said "as Platt scaling is a strictly increasing map, the AUC and the decisions at 0.5
  are unchanged", beside a ledger whose *can move?* says yes for accuracy@0.5 ("the intercept moves the
  0.5 cut"): a strictly increasing map keeps the order, not the 0.5 cut; the decisions held because no
  row crossed it.
* monitoring.ipynb said the pending weeks' "*conf* (starred) is the mean score of all their rows": the
  table a notebook shows has *conf (labelled rows)* n/a for them and the mean score in its own column,
  *mean score (all rows)* (the starred conf is the text view's).
"""

from __future__ import annotations

import html
import re

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

from .conftest import cells_and_prose, result_data as _data  # noqa: E402


def _html_rows(page: str) -> tuple[list[str], list[list[str]]]:
    """The first table of a rich view: its header and its body cells, as plain text."""
    table = re.search(r"<table.*?</table>", page, re.S).group(0)
    def text(cell: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()

    head = [text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]
    rows = [[text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
    return head, [r for r in rows if r]


def test_comparison_prose_gives_the_ledgers_reason_for_the_unchanged_decisions(notebook):
    cells, prose = cells_and_prose(notebook("comparison"))
    ledger = _data(cells[4])["text/plain"]
    rows = {ln.split()[0]: ln.split() for ln in ledger.splitlines() if ln.split()}
    # columns: metric before after change [lo, hi] can-move verdict ...
    assert rows["accuracy@0.5"][6] == "yes" and rows["AUC"][6] == "no"
    assert "0.5 decisions identical: held" in ledger
    md = next(p for p in prose if p.startswith("It does not help here"))
    assert "the AUC and the decisions at 0.5 are unchanged" not in md  # the wrong reason
    assert "The AUC cannot move" in md and "The decisions at 0.5 could" in md
    assert "no test row crossed it" in md


def test_monitoring_prose_reads_the_table_a_notebook_shows(notebook):
    cells, prose = cells_and_prose(notebook("monitoring"))
    head, rows = _html_rows(_data(cells[1])["text/html"])
    weeks = {r[head.index("period")]: dict(zip(head, r)) for r in rows}
    assert "conf (labelled rows)" in head and "mean score (all rows)" in head
    pending = [w for w in weeks.values() if w["status"] == "pending"]
    assert pending and all(w["conf (labelled rows)"] == "n/a" and w["mean score (all rows)"] for w in pending)
    md = next(p for p in prose if p.startswith("## Status per week"))
    assert "Their *conf* (starred)" not in md
    assert "*conf (labelled rows)*" in md and "*mean score (all rows)*" in md and "n/a for them" in md
    # the two W08 numbers the prose quotes are the two columns of W08's row
    w08 = weeks["2026-W08"]
    labelled, total = int(w08["labelled"].replace(",", "")), int(w08["rows"].replace(",", ""))
    assert (f"its {labelled:,} labelled rows average {w08['conf (labelled rows)']}, all {total:,} average "
            f"{w08['mean score (all rows)']}") in md
    # and the PPI rate it quotes for W09 is the table's
    ppi = weeks["2026-W09"][next(h for h in head if h.startswith("PPI rate"))]
    lo, hi = (float(v) for v in re.search(r"\[([\d.]+), ([\d.]+)\]", ppi).groups())
    assert f"PPI rate {float(ppi.split()[0]):.2f} [{lo:.2f}, {hi:.2f}]" in md
