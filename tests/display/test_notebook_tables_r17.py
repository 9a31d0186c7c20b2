"""Notebook tables read as the printout does (session 17, a scratch notebook on the demo data).

A wide table (more than WIDE_COLUMNS columns) shows its first columns; the keys that flag a row
travel with them, so a monitor's alerts and a segment scan's discoveries are marked in the notebook
as in the text. One slice is "1 slice". A column of amounts prints at one precision.
"""

from __future__ import annotations

import re
from html import unescape

import numpy as np
import pandas as pd

import veracity as vc
from veracity.core._display import html_table


def _cells(html: str) -> list[str]:
    return [unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", html)]


def _badges(html: str, text: str) -> int:
    return html.count(f"<span class=vc-badge>{text}</span>")


def _monitor_with_one_alert() -> vc.MonitorResult:
    # three months of 400 rows: scores 0.3 throughout, labels drawn at 0.3, 0.3 and 0.15 (an alert)
    rng = np.random.default_rng(17)
    rates = np.repeat([0.3, 0.3, 0.15], 400)
    labels = (rng.random(rates.size) < rates).astype(int)
    periods = np.repeat(["2026-01", "2026-02", "2026-03"], 400)
    return vc.monitor(np.full(rates.size, 0.3), labels, periods)


def test_a_monitors_alerts_are_marked_in_its_notebook_table():
    result = _monitor_with_one_alert()
    records = result._frame_records()
    assert len(records[0]) > 12  # a wide table: its first columns only, the rest under "all N columns"
    alerts = [r["period"] for r in records if r["status"] == "alert"]
    assert alerts == ["2026-03"]
    html = result._repr_html_()
    # before: the status column (13th of 14) was left out of the shown columns and no row was flagged
    summary = html.split("<details>")[0]
    assert _badges(summary, "alert") == 1
    row = summary.split("<tr class=vc-flag>")[1].split("</tr>")[0]
    assert "2026-03" in row


def test_a_segment_scans_discoveries_are_marked_in_its_notebook_table():
    rng = np.random.default_rng(3)
    n = 3000
    group = rng.choice(["a", "b", "c"], n)
    score = rng.uniform(0.1, 0.6, n)
    rate = np.where(group == "c", score - 0.12, score)  # segment c is over-confident by 0.12
    label = (rng.random(n) < rate).astype(int)
    result = vc.segments(pd.DataFrame({"score": score, "label": label, "group": group}),
                         score="score", label="label", features=["group"])
    found = [r["segment"] for r in result._frame_records() if r["discovery"]]
    assert found == ["group=c"]
    summary = result._repr_html_().split("<details>")[0]
    assert _badges(summary, "discovery") == 1  # before: 0, the discovery column hidden past column 8
    assert "group=c" in summary.split("<tr class=vc-flag>")[1].split("</tr>")[0]


def test_one_slice_reads_as_one_slice():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, 200)
    y = (rng.random(200) < p).astype(int)
    html = vc.audit(p, y, by=np.array(["only"] * 200))._repr_html_()
    assert "By group (1 slice)" in html  # before: "(1 slices)"
    two = vc.audit(p, y, by=np.array(["a", "b"] * 100))._repr_html_()
    assert "By group (2 slices)" in two


def test_a_column_of_amounts_prints_at_one_precision():
    # a cost per 1,000 rows: before, 672.0000 beside 1,155 and 1,037.3 in one column
    html = html_table([{"cost": 672.0}, {"cost": 1155.0}, {"cost": 1037.3333}, {"cost": 0.0}])
    assert _cells(html) == ["672.0", "1,155.0", "1,037.3", "0.0"]
    whole = html_table([{"cost": 672.0}, {"cost": 1155.0}])  # all whole: no decimals, as before
    assert _cells(whole) == ["672", "1,155"]
    small = html_table([{"x": 0.0123}, {"x": 1500.5}])  # a value under 1 keeps its digits
    assert _cells(small) == ["0.0123", "1,500.5"]


def test_a_vanishing_p_value_is_not_printed_as_zero():
    from veracity.core._display import html_kv

    # a segment scan's MCE p-value underflows to 0.0 (its text says "p = <1e-300"); before: "0.0000"
    kv = html_kv({"mce_pvalue": 0.0, "p_value": 3e-7, "level": 0.0, "fdr": 0.05})
    assert [unescape(v) for v in re.findall(r"</b>([^<]*)</span>", kv)] == ["<0.0001", "<0.0001", "0.0000", "0.0500"]
    table = html_table([{"name": "a", "p_value": 1e-12, "q_value": 0.0, "gap": 0.0},
                        {"name": "b", "p_value": 0.2, "q_value": 0.3, "gap": 0.1}])
    assert _cells(table) == ["a", "<0.0001", "<0.0001", "0.0000", "b", "0.2000", "0.3000", "0.1000"]
