"""Each public result's notebook display shows what that call computed (issue 22).

The HTML is parsed: the numbers it shows equal the result's fields, the title is a real
title (not a column header), sections that the call asked for are visible (not inside a
collapsed <details>), wide tables put their summary first, and user strings are escaped.
"""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

import veracity as vc

N = 3000
_rng = np.random.default_rng(11)
P = _rng.uniform(size=N) ** 1.3
Y = (_rng.uniform(size=N) < P ** 1.4).astype(int)
SEG = np.where(_rng.uniform(size=N) < 0.5, "<b>web</b>", "app & store")
EVIL = '<img src=x onerror="alert(1)">'


class _Page(HTMLParser):
    """Text of the page split into visible text and text inside <details> (collapsed)."""

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.visible: list[str] = []
        self.hidden: list[str] = []
        self.title = ""
        self._in_title = False
        self.tables: list[list[list[str]]] = []  # visible tables: rows of cells
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        cls = dict(attrs).get("class", "")
        if tag == "div" and cls == "vc-title" and not self.title:
            self._in_title = True
        if tag == "table" and "details" not in self.stack[:-1]:
            self.tables.append([])
        if tag == "tr" and "details" not in self.stack[:-1] and self.tables:
            self.tables[-1].append([])
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-3:])
        self.stack.pop()
        if tag == "div" and self._in_title:
            self._in_title = False
        if tag in ("td", "th") and self._cell is not None:
            if "details" not in self.stack and self.tables and self.tables[-1]:
                self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if "style" in self.stack:
            return
        if self._in_title:
            self.title += data
        if self._cell is not None:
            self._cell.append(data)
        (self.hidden if "details" in self.stack else self.visible).append(data)

    @property
    def shown(self) -> str:
        return " ".join(self.visible)


def _page(result) -> _Page:
    p = _Page()
    p.feed(result._repr_html_())
    p.close()
    assert p.stack == []
    return p


def _table_with(page: _Page, header: str) -> list[dict[str, str]]:
    for t in page.tables:
        if t and header in t[0]:
            return [dict(zip(t[0], row)) for row in t[1:]]
    raise AssertionError(f"no visible table with column {header!r}: {[t[0] for t in page.tables if t]}")


def test_audit_shows_slices_noise_floor_intervals_and_decomposition():
    a = vc.audit(P, Y, by=SEG, noise_floor=True, bootstrap="percentile", n_resamples=100, random_state=0)
    page = _page(a)
    assert page.title == str(a).splitlines()[0]
    shown = page.shown
    for heading in ("Reliability table", "Brier decomposition", "Noise floor", "Bootstrap intervals", "By group"):
        assert heading in shown, heading
    d = a.decomposition
    for v in (a.ece, a.brier, a.nll, a.auc, a.accuracy, d.reliability, d.resolution, d.uncertainty,
              a.extras["noise_floor"].expected, a.extras["noise_floor"].p_value):
        assert f"{v:.4f}" in shown
    boot = _table_with(page, "estimate")
    for row, iv in zip(boot, a.extras["intervals"].intervals):
        assert row["metric"] == iv.metric and row["interval"] == f"[{iv.low:.4f}, {iv.high:.4f}]"
    slices = _table_with(page, "accuracy@0.5")
    by_name = {r["group"]: r for r in slices}
    assert set(by_name) == {"<b>web</b>", "app & store", "(all)"}  # escaped, shown literally
    for k, g in a.groups.items():
        r = by_name[k]
        assert r["n"] == f"{g.n:,}" and r["ECE"] == f"{g.ece:.4f}" and r["MCE"] == f"{g.mce:.4f}"
        assert r["accuracy@0.5"] == f"{g.accuracy:.4f}" and r["AUC"] == f"{g.auc:.4f}"
    html = a._repr_html_()
    assert "<b>web</b>" not in html and "&lt;b&gt;web&lt;/b&gt;" in html
    bins = _table_with(page, "rate (observed positive rate)")
    assert [b["rate (observed positive rate)"] for b in bins] == [f"{r.acc:.4f}" for r in a.table.rows]
    assert "acc" not in _table_with(page, "gap")[0]  # one meaning per name: the bin's rate is not "acc"


def test_multiclass_audit_labels_each_metric_with_its_reading():
    rng = np.random.default_rng(2)
    z = rng.normal(size=(2000, 4)) * 2
    labels = z.argmax(1)
    flip = rng.uniform(size=2000) < 0.3
    labels[flip] = rng.integers(0, 4, flip.sum())
    probs = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    a = vc.audit(probs, labels)
    shown = _page(a).shown
    assert f"Brier (top-label: confidence vs correct) {a.brier:.4f}" in shown
    assert f"NLL (full multiclass: −log p of the true class) {a.nll:.4f}" in shown
    assert f"AUC (confidence vs correct) {a.auc:.4f}" in shown
    assert f"top-label accuracy {a.accuracy:.4f}" in shown
    assert "accuracy (share correct)" in shown and "observed positive rate" not in shown


def test_insufficient_bins_are_flagged_and_their_max_shown_apart():
    p = np.r_[P, 0.97, 0.985]
    y = np.r_[Y, 0, 0]
    p[(p > 14 / 15) & (np.arange(p.size) < N)] = 0.9  # the last bin holds only the two rows
    a = vc.audit(p, y)
    page = _page(a)
    assert a.table.mce_insufficient is not None and a.table.mce_insufficient > a.mce
    assert (f"largest gap among the insufficient bins (n<20, not acted on) {a.table.mce_insufficient:.4f}"
            in page.shown)
    assert f"MCE (bins n≥20) {a.mce:.4f}" in page.shown
    assert a._repr_html_().count("<tr class=vc-flag>") == sum(not r.sufficient for r in a.table.rows)


def test_coverage_shows_its_per_class_table_under_a_title():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(3000, 3)) * 1.5
    labels = z.argmax(1)
    flip = rng.uniform(size=3000) < 0.2
    labels[flip] = rng.integers(0, 3, flip.sum())
    probs = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    cc = vc.ConformalClassifier(alpha=0.1).fit(probs[:1500], labels[:1500])
    cov = cc.coverage(probs[1500:], labels[1500:])
    page = _page(cov)
    assert page.title.startswith("Conformal prediction sets: coverage") and "class" not in page.title
    rows = _table_with(page, "coverage")
    assert [r["class"] for r in rows] == ["0", "1", "2"]
    assert [r["coverage"] for r in rows] == [f"{v:.4f}" for v in cov.per_class]
    assert [r["mean_set_size"] for r in rows] == [f"{v:.4f}" for v in cov.class_set_size]
    assert f"marginal coverage {cov.marginal:.4f}" in page.shown
    assert cov.to_frame().shape == (3, 5)


def test_threshold_table_has_a_real_title():
    tt = vc.threshold_table(P, Y, [0.1, 0.5, 0.9], cost_fp=1, cost_fn=9)
    page = _page(tt)
    assert page.title.startswith("Threshold table: 3000 rows, ") and "TP" not in page.title
    rows = _table_with(page, "recall")
    assert [r["recall"] for r in rows] == [f"{v:.4f}" for v in tt.recall]


def test_ledger_shows_intervals_and_verdicts():
    cal = vc.PlattScaling().fit(P[:1500], Y[:1500])
    led = vc.compare(P[1500:], Y[1500:], cal)
    page = _page(led)
    rows = _table_with(page, "verdict")
    for r, row in zip(rows, led.rows):
        assert r["metric"] == row.metric and r["after"] == f"{row.after:.4f}"
        assert r["verdict"] == row.verdict and r["95% CI of change"] == row.interval_text()


def test_wide_tables_put_a_summary_first():
    from veracity.core._display import SUMMARY_COLUMNS, html_table

    records = [{f"c{j}": float(i * j) for j in range(30)} | {"name": EVIL} for i in range(3)]
    frag = html_table(records)
    p = _Page()
    p.feed(f"<div>{frag}</div>")
    visible_header = p.tables[0][0]
    assert len(visible_header) == SUMMARY_COLUMNS
    assert "<details>" in frag and "all 31 columns" in frag
    assert EVIL not in frag and "&lt;img" in frag


def test_store_recalibration_is_a_summary_and_plots(tmp_path):
    pytest.importorskip("duckdb")
    import pyarrow as pa
    from matplotlib.figure import Figure

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    n = 4000
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 28 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p ** 1.5).astype(np.int64)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "t": ["2026-04-20"] * n}), id="id", label="y", time="t")
    rc = store.recalibrate(method="platt", as_of="2026-05-01")
    page = _page(rc)
    assert page.title == str(rc).splitlines()[0]
    assert f"{rc.n_fit:,} rows" in page.shown and f"{rc.n_eval:,} rows" in page.shown
    assert "Before / after ledger" in page.shown
    visible_cols = max(len(t[0]) for t in page.tables if t)
    assert visible_cols <= 12  # not 2 rows × 45 columns
    assert "calibrator parameters (JSON)" in rc._repr_html_()
    assert isinstance(rc.plot(), Figure)  # rc.plot() draws its ledger (issue 22: it raised)


def test_no_title_is_a_column_header():
    """A printout that starts with its table gets a real title in the notebook."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_display import RESULTS

    for name, make in RESULTS.items():
        r = make()
        title = _page(r).title
        first = str(r).splitlines()[0]
        header_like = ":" not in first and len(first.split()) >= 4 and "  " in first
        assert not (header_like and title == first), (name, title)
    rel = vc.reliability(P, Y)
    assert _page(rel).title == (f"Reliability table: {rel.n} rows, 15 uniform bins; ECE {rel.ece:.4f}; "
                                f"{rel.mce_text()}")
    rc = vc.risk_coverage(P, Y)
    page = _page(rc)
    assert page.title.startswith("Risk–coverage curve:") and f"AURC {rc.aurc:.4f}" in page.title
    assert len(_table_with(page, "coverage")) <= 10  # the grid, not 40 of thousands of points
    assert rc.to_frame().shape[0] == len(rc.to_dict()["curve"]) > 10
