"""What a notebook shows: a wide table never shows a lower bound without its upper one, and the
monitoring status shows its verdict columns (alerts, diagnosis) instead of folding them away."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa

import veracity as vc
from veracity.core._display import SUMMARY_COLUMNS, WIDE_COLUMNS, html_table


def _headers(html: str) -> list[str]:
    first = html.split("</table>")[0]
    return re.findall(r"<th[^>]*>(.*?)</th>", first)


def test_a_wide_table_keeps_the_upper_bound_beside_a_shown_lower_bound():
    cols = [f"c{i}" for i in range(SUMMARY_COLUMNS - 1)] + ["ci_low", "ci_high"]
    cols += [f"x{i}" for i in range(WIDE_COLUMNS)]
    records = [{c: float(i + j) for j, c in enumerate(cols)} for i in range(3)]
    shown = html_table(records).split("<details>")[0]
    # the interval reads as one cell "[low, high]": both bounds of the first row are on the page
    assert "ci_low" in cols[:SUMMARY_COLUMNS] and "ci_high" not in cols[:SUMMARY_COLUMNS]
    low, high = records[0]["ci_low"], records[0]["ci_high"]
    assert re.search(rf"\[{low:g}\S*, {high:g}", shown), shown


def test_status_in_a_notebook_shows_the_interval_alerts_and_diagnosis(tmp_path):
    rng = np.random.default_rng(0)
    n = 20_000
    t0 = np.datetime64("2026-01-05", "s")
    t = t0 + rng.integers(0, 28 * 86400, n).astype("timedelta64[s]")
    week = ((t - t0) // np.timedelta64(7 * 86400, "s")).astype(int)
    p = rng.uniform(0.05, 0.6, n)
    y = (rng.random(n) < np.where(week >= 2, np.minimum(p * 1.8, 1), p)).astype(np.int8)
    store = vc.MonitorStore(str(tmp_path / "m.duckdb"))
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": t}), id="id", label="y", time="ts")
    status = store.status(freq="W", as_of="2026-02-10")
    assert status.alerts
    headers = _headers(status._repr_html_())
    assert "alerts" in headers and "diagnosis" in headers and "ci_low" not in headers, headers
    rate = next(r for r in status.rows if r.alerts)
    assert f"{rate.ci_high:.4g}"[:5] in status._repr_html_().split("</table>")[0]


def test_model_comparison_in_a_notebook_says_what_its_printout_says():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    a = np.clip(rng.random(400), 0.01, 0.99)
    b = np.clip(a + rng.normal(0, 0.1, 400), 0.01, 0.99)
    r = vc.compare_models({"a": a, "b": b}, y, random_state=0)
    html = r._repr_html_().split("<details><summary>as text")[0]
    assert "ece_debiased" in html and ">ece<" not in html  # named as printed: not the audit's plug-in ECE
    assert "CORP decomposition" in html and "MCB" in html and "DSC" in html
    assert r.verdict.split(":")[0] in html
    row = r.row("brier")
    assert f"{row.ci_low:.4f}" in html and f"{row.ci_high:.4f}" in html


def test_reliability_legend_names_a_broken_line_only_when_a_line_is_drawn():
    pytest = __import__("pytest")
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(0)
    # sufficient bins 0, 2 and 4 of 7, none adjacent: no line joins two bins
    p = np.r_[np.full(40, 0.03), np.full(3, 0.1), np.full(40, 0.3), np.full(3, 0.45), np.full(40, 0.65)]
    y = (rng.random(p.size) < p).astype(int)
    fig = vc.audit(p, y, bins=7).plot()
    texts = [t.get_text() for ax in fig.axes for t in (ax.get_legend().get_texts() if ax.get_legend() else [])]
    texts += [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert texts and not any("line broken" in t for t in texts), texts
    assert not [ln for ax in fig.axes for ln in ax.get_lines() if ln.get_gid() == "line"]
