"""Figures as a notebook reader sees them (session 17, a scratch notebook on the demo data).

Every legend key names something drawn; every colour of the paired differences is named; a lowest cost at the edge of the thresholds tried
says so."""

from __future__ import annotations

import numpy as np
import pandas as pd

import veracity as vc
from veracity.plotting._reliability import _draw_reliability


def _legend_entries(ax) -> dict[str, object]:
    legend = ax.get_legend()
    return {t.get_text(): h for t, h in zip(legend.get_texts(), legend.legend_handles)}


def _thin_audit() -> vc.AuditResult:
    # 30 rows in 15 bins: no bin reaches min_count = 20, every bin is hollow
    rng = np.random.default_rng(5)
    p = rng.uniform(0, 1, 30)
    return vc.audit(p, (rng.random(30) < p).astype(int))


def test_a_diagram_without_a_sufficient_bin_keys_its_bins_as_drawn():
    result = _thin_audit()
    assert not any(r.sufficient for r in result.table.rows)
    ax = result.plot().axes[0]
    entries = _legend_entries(ax)
    key = entries[f"bins, size grows with count (ECE {result.table.ece:.4f})"]
    # before: the key of an empty scatter, size 1 (nothing visible) and filled, naming no drawn point
    assert float(np.max(key.get_sizes())) > 10
    assert tuple(key.get_facecolor()[0]) == (1.0, 1.0, 1.0, 1.0)  # hollow, as every bin is drawn
    assert "insufficient (n < 20), hollow" in entries


def test_a_named_curve_without_a_sufficient_bin_keeps_a_visible_key():
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    _draw_reliability(ax, _thin_audit().table, color="C0", name="after")
    ax.legend()
    entries = _legend_entries(ax)
    key = next(h for name, h in entries.items() if name.startswith("after"))
    assert float(np.max(key.get_sizes())) > 10  # before: size 1, an invisible key


def _comparison() -> vc.ModelComparison:
    rng = np.random.default_rng(2)
    n = 2000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    worse = np.clip(p + rng.normal(0, 0.15, n), 0.01, 0.99)
    return vc.compare_models(pd.DataFrame({"a": p, "b": worse, "y": y}), label="y", scores=["a", "b"])


def test_the_paired_differences_name_every_colour():
    result = _comparison()
    right = result.plot().axes[1]
    xlabel = right.get_xlabel()
    # before: the heading named green alone; b is worse here, drawn orange
    assert "orange: B worse" in xlabel and "grey: within noise" in xlabel and "green: B better" in xlabel
    assert any(r.metric == "brier" and r.ci_low > 0 for r in result.rows)  # an orange row is drawn


def test_a_lowest_cost_at_the_edge_of_the_grid_says_so():
    rng = np.random.default_rng(9)
    p = rng.uniform(0, 1, 3000)
    y = (rng.random(3000) < p).astype(int)
    # a miss costs 9 false alarms: the best threshold is near 0.1, below the first one tried
    edge = vc.threshold_table(p, y, np.linspace(0.3, 0.9, 7), cost_fn=9)
    assert edge.best().threshold == 0.3
    labels = [t.get_text() for t in edge.plot().axes[0].get_legend().get_texts()]
    assert "lowest cost: t = 0.3, the lowest t tried" in labels  # before: "lowest cost: t = 0.3"
    inside = vc.threshold_table(p, y, np.linspace(0.02, 0.5, 25), cost_fn=9)
    best = inside.best().threshold
    assert 0.02 < best < 0.5
    labels = [t.get_text() for t in inside.plot().axes[0].get_legend().get_texts()]
    assert f"lowest cost: t = {best:.3g}" in labels
