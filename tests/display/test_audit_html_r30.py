"""The audit's notebook table as a reader reads it beside the text (session 30)."""

from __future__ import annotations

import html
import re

import numpy as np

import veracity as vc


def _table_after(page: str, heading: str) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the first table after ``heading``."""
    part = page[page.index(heading):]
    part = part[:part.index("</table>")]
    heads = [html.unescape(h) for h in re.findall(r"<th[^>]*>([^<]*)</th>", part)]
    rows = [[html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", tr)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", part, flags=re.S)]
    return heads, [r for r in rows if r]


def _four_classes() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2000, 4)) * 2
    probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    return probs, np.array([rng.choice(4, p=q) for q in probs])


def test_classwise_class_rows_are_headed_as_one_vs_rest_accuracy():
    probs, y = _four_classes()
    result = vc.audit(probs, y, bins=10, multiclass="classwise")
    heads, rows = _table_after(result._repr_html_(), "By class")
    # before: "top-label accuracy" over class 0's one-vs-rest accuracy at 0.5 (0.85 beside the whole's 0.70)
    assert "top-label accuracy" not in heads and "accuracy@0.5" in heads
    column = heads.index("accuracy@0.5")
    by_name = {r[0]: r for r in rows}
    assert by_name["class 0"][column] == f"{result.groups['class 0'].accuracy:.4f}"
    # the whole, read top-label, is named so (as the text's "(all, top-label)")
    assert by_name["(all, top-label)"][column] == f"{result.accuracy:.4f}"
    assert "(all, top-label)" in str(result)


def test_top_label_slices_keep_their_top_label_accuracy():
    probs, y = _four_classes()
    g = np.where(np.arange(y.size) % 2 == 0, "a", "b")
    heads, rows = _table_after(vc.audit(probs, y, bins=10, by=g)._repr_html_(), "By group")
    assert "top-label accuracy" in heads
    assert [r[0] for r in rows][-1] == "(all)"


def test_the_reliability_gap_is_signed_as_in_the_text():
    d = vc.load_demo()
    test = d["role"] == "test"
    result = vc.audit(d["score"][test], d["label"][test], bins=10)
    heads, rows = _table_after(result._repr_html_(), "Reliability table")
    gaps = [r[heads.index("gap")] for r in rows]
    # before: "0.0612" for an under-confident bin beside "-0.0376": the text prints "+0.0612"
    assert gaps == [f"{r.gap:+.4f}" for r in result.table.rows]
    assert gaps[0].startswith("+") and any(g.startswith("-") for g in gaps)


def test_every_notebook_table_signs_its_gap():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=800)
    y = (rng.random(800) < p).astype(int)
    monitor = vc.monitor(p, y, np.repeat(np.arange(4), 200))
    heads, rows = _table_after(monitor._repr_html_(), "<table")
    # before: "0.0283" beside "-0.0396", where the text prints "+0.0283"
    assert [r[heads.index("gap")] for r in rows] == [f"{r.gap:+.4f}" for r in monitor.rows]
    table = vc.reliability(p, y, bins=5)
    heads, rows = _table_after(table._repr_html_(), "<table")
    assert [r[heads.index("gap")] for r in rows] == [f"{r.gap:+.4f}" for r in table.rows]
