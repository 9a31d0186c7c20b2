"""The report's segments table marks a discovery whose interval includes 0 as the text table does
(session 27).

The text table (``str(vc.segments(...))``) stars such an interval (``*``: the test weighs the gap against
the spread calibration gives these scores, the interval, Wilson on the observed rate, is wider; ``**``: a
score of exactly 0 or 1 that its label contradicts, p = 0 whatever the gap) and says why under the table.
The report printed the same row with no mark and no note, and an interval end just below 0 as ``+0.000``
(the text: ``-0.000``). Now its intervals read as the text's, its notes are the text's footnotes, and the
figure's key (text in the page's SVG) names the hollow point.
"""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest

import veracity as vc
from veracity.datasets import demo_path

FEATURES = ["segment", "month"]


def _frame(contradicted: bool) -> pd.DataFrame:
    """The demo data, every row (no ``role`` column: the report would keep the test rows only); with
    ``contradicted``, two ``partner`` rows scored exactly 0 and labelled 1."""
    d = pd.read_csv(demo_path()).drop(columns=["role"])
    if contradicted:
        rows = d.index[d["segment"] == "partner"][:2]
        d.loc[rows, "score"], d.loc[rows, "label"] = 0.0, 1
    return d


def _section(page: str) -> str:
    m = re.search(r'<section id="segments">(.*?)</section>', page, re.S)
    assert m, "no segments section"
    return m.group(1)


def _table_rows(fragment: str) -> dict[str, list[str]]:
    """segment -> its cells as plain text, from the page's segments table."""
    m = re.search(r'<table class="segments">.*?<tbody>(.*?)</tbody>', fragment, re.S)
    assert m, "no segments table"
    out = {}
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", m.group(1), re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        out[cells[0]] = cells
    return out


def _notes(fragment: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", n)).strip()
            for n in re.findall(r'<p class="note"[^>]*>(.*?)</p>', fragment, re.S)]


def _text_cells(text: str, segment: str) -> list[str]:
    """The text table's cells of ``segment``'s line: interval, p, q (after the name and the four numbers)."""
    line = next(ln for ln in text.splitlines() if ln.startswith(segment + " "))
    rest = line[len(segment):].split()
    return [" ".join(rest[4:6]), rest[6], rest[7]]


def _footnotes(text: str) -> list[str]:
    return [ln[1:-1] for ln in text.splitlines() if ln.startswith(("(* ", "(** "))]


@pytest.mark.parametrize("contradicted", [False, True], ids=["demo", "contradicted"])
def test_segments_table_marks_and_notes_as_the_text(contradicted):
    d = _frame(contradicted)
    res = vc.segments(d, score="score", label="label", features=FEATURES)
    text = str(res)
    frag = _section(vc.report(d, score="score", label="label", features=FEATURES, bootstrap=False,
                              figures=False).html)
    rows = _table_rows(frag)
    assert set(rows) == {r.segment for r in res.discoveries}
    for r in res.discoveries:
        ci, p, q = rows[r.segment][5], rows[r.segment][6], rows[r.segment][7]
        across = r.ci_low <= 0.0 <= r.ci_high  # the rule the footnotes state, from the row's own numbers
        assert ci.endswith("*") == across, (r.segment, ci)
        assert ci.endswith("**") == (across and r.test == "certain"), (r.segment, ci)
        text_ci, text_p, text_q = _text_cells(text, r.segment)
        assert ci == text_ci  # as the text prints it: an end just below 0 is -0.000
        if r.test != "certain":  # a certain p = 0 prints "0" in the text, "<1e-300" on the page (r16's test)
            assert [p, q] == [text_p, text_q]
    marks = {rows[r.segment][5].rsplit("]", 1)[1] for r in res.discoveries} - {""}
    assert marks == ({"*", "**"} if contradicted else {"*"})
    # the notes under the table are the text's footnotes, in its order
    notes = _notes(frag)
    assert _footnotes(text) and all(f in notes for f in _footnotes(text))
    starred = [n for n in notes if n.startswith("* ")]
    assert len(starred) == 1 and "interval includes 0" in starred[0] and "Wilson" in starred[0]
    assert any(n.startswith("** ") for n in notes) == contradicted


def test_cli_report_page_marks_web_in_table_and_figure(cli, tmp_path):
    data, page = tmp_path / "demo.csv", tmp_path / "report.html"
    _frame(False).to_csv(data, index=False)
    out = cli(["report", str(data), "--score", "score", "--label", "label", "--features", ",".join(FEATURES),
               "--out", str(page)])
    assert out.code == 0, out.err
    frag = _section(page.read_text(encoding="utf-8"))
    web = vc.segments(_frame(False), score="score", label="label", features=FEATURES).segment("segment=web")
    assert web.discovery and web.ci_low <= 0.0 <= web.ci_high  # the case docs/segments.md quotes
    assert _table_rows(frag)["segment=web"][5].endswith("]*")
    assert any(n.startswith("* a discovery whose interval includes 0") for n in _notes(frag))
    # the figure (inline SVG, its text kept as text) keys the hollow point with the same reason
    svg = html.unescape(frag[frag.index("<svg"):frag.index("</svg>")])
    assert "discovery whose interval includes 0" in svg and "Wilson" in svg
