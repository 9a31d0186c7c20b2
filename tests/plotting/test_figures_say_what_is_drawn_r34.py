"""Figures say what they draw (session 34): the level of every interval or band drawn, the costs a cost
figure prices, and a reliability line broken only where it is broken."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("matplotlib")


def _two_models(n: int = 3000, seed: int = 5) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(x - 1)))
    y = (rng.random(n) < p).astype(int)
    q = 1 / (1 + np.exp(-(0.6 * x - 1 + 0.5 * rng.normal(size=n))))
    return {"good": p, "weak": q}, y


def _legend(ax) -> list[str]:
    legend = ax.get_legend()
    return [t.get_text() for t in legend.get_texts()] if legend is not None else []


def test_the_decision_curve_names_its_bands_and_their_level() -> None:
    models, y = _two_models()
    result = vc.decision_curve(models, y, level=0.9)
    ax = result.plot().axes[0]
    assert "shaded: each model's 90% interval" in _legend(ax)
    # one band per model, drawn from the result's own interval ends
    bands = [c for c in ax.collections if c.get_gid() == "band"]
    assert len(bands) == 2
    order = np.argsort(result.thresholds, kind="stable")
    ys = bands[0].get_paths()[0].vertices[:, 1]
    assert np.isclose(ys.min(), np.nanmin(result.ci_low["good"][order]))
    assert np.isclose(ys.max(), np.nanmax(result.ci_high["good"][order]))


def test_the_murphy_difference_band_says_its_level_and_that_it_is_pointwise() -> None:
    models, y = _two_models()
    result = vc.murphy_diagram(models, y, level=0.9)
    bottom = result.plot().axes[1]
    assert _legend(bottom) == ["90% pointwise band", "difference"]
    band = next(c for c in bottom.collections if c.get_gid() == "band")
    ys = band.get_paths()[0].vertices[:, 1]
    assert np.isclose(ys.min(), result.difference.ci_low.min())
    assert np.isclose(ys.max(), result.difference.ci_high.max())


def test_the_realised_cost_figure_says_the_interval_level_and_the_costs() -> None:
    models, y = _two_models()
    result = vc.realised_cost(models, y, threshold=0.3, cost_fp=1, cost_fn=4, level=0.9)
    ax = result.plot().axes[0]
    assert "realised (90% interval)" in _legend(ax)
    assert ax.get_title(loc="left") == "Cost at threshold 0.3 (false alarm 1, miss 4)"
    # the error bars are the result's interval of the realised cost
    bars = next(c for c in ax.containers if getattr(c, "errorbar", None) is not None)
    segments = bars.errorbar.lines[2][0].get_segments()
    assert np.allclose([s[0][1] for s in segments], [r.realised_low for r in result.rows])
    assert np.allclose([s[1][1] for s in segments], [r.realised_high for r in result.rows])
    # the key sits above the tallest interval
    assert ax.get_ylim()[1] >= 1.25 * max(r.realised_high for r in result.rows)


def test_a_line_that_ends_before_two_insufficient_bins_is_not_called_broken() -> None:
    # sufficient bins 0..6, then two insufficient ones: the line runs unbroken over 0..6 and stops
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.uniform(0.0, 0.7, 2000), rng.uniform(0.7, 0.8, 10), rng.uniform(0.8, 0.9, 5)])
    y = (rng.random(p.size) < p).astype(int)
    table = vc.reliability(p, y, bins=10, min_count=30)
    assert [r.sufficient for r in table.rows] == [True] * 7 + [False, False]
    ax = table.plot().axes[0]
    line = next(ln for ln in ax.lines if ln.get_gid() == "line")
    assert np.isfinite(line.get_xdata()).all()  # drawn whole
    assert not any(name.startswith("line broken") for name in _legend(ax))


def test_a_line_broken_by_an_insufficient_bin_between_two_sufficient_ones_says_so() -> None:
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.uniform(0.0, 0.3, 900), rng.uniform(0.3, 0.4, 8), rng.uniform(0.4, 0.7, 900)])
    y = (rng.random(p.size) < p).astype(int)
    table = vc.reliability(p, y, bins=10, min_count=30)
    ax = table.plot().axes[0]
    line = next(ln for ln in ax.lines if ln.get_gid() == "line")
    assert np.isnan(line.get_xdata()).sum() == 1
    assert "line broken at empty / insufficient bins" in _legend(ax)


def test_a_weighted_monitor_names_its_insufficient_periods_by_effective_rows() -> None:
    # period B: 45 labelled rows, a fifth of them weighing 10: about 15 effective rows, under min_count=30
    rng = np.random.default_rng(4)
    periods = np.repeat(np.array(["A", "B", "C"]), [500, 45, 500])
    p = rng.beta(2, 3, periods.size)
    y = (rng.random(periods.size) < p).astype(int)
    w = np.where(rng.random(periods.size) < 0.2, 10.0, 1.0)
    result = vc.monitor(p, y, periods=periods, min_count=30, sample_weight=w)
    assert [r.status for r in result.rows] == ["ok", "insufficient", "ok"]
    ax = result.plot().axes[0]
    assert [t.get_text() for t in ax.texts if t.get_gid() == "count_label"] == ["500", "45", "500"]
    assert "insufficient (< 30 effective labelled rows), hollow" in _legend(ax)
    hollow = next(c for c in ax.collections if c.get_gid() == "insufficient")
    assert np.allclose(hollow.get_offsets(), [[1.0, result.rows[1].base_rate]])
    # unweighted, the words stay
    plain = vc.monitor(p, y, periods=periods, min_count=50)
    assert "insufficient (< 50 labelled), hollow" in _legend(plain.plot().axes[0])


def test_one_vs_rest_panels_are_not_labelled_confidence() -> None:
    # a class panel plots the class's own probability p_k, which is no confidence (max_k p_k)
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]] * 10)
    fig = vc.plot_multiclass_reliability(P, [0, 1, 2, 1] * 10, min_count=1)
    labelled = {ax.get_title(loc="left"): ax.get_xlabel() for ax in fig.axes
                if ax.get_visible() and ax.get_xlabel()}
    assert labelled and all(text == "mean predicted probability" for text in labelled.values())
    assert any(name.startswith("class") for name in labelled)


def test_a_top_label_diagram_drawn_from_scores_says_its_reading() -> None:
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]] * 10)
    labels = [0, 1, 2, 1] * 10
    for fig in (vc.plot_reliability(P, labels, min_count=1),
                vc.plot_reliability(vc.audit(P, labels, min_count=1))):
        assert fig.axes[0].get_title(loc="left") == "Reliability diagram (top label)"
    # binary scores, and a title of the caller's, as they were
    binary = vc.plot_reliability([.1, .9], [0, 1], min_count=1)
    assert binary.axes[0].get_title(loc="left") == "Reliability diagram"
    assert vc.plot_reliability(P, labels, title="mine").axes[0].get_title(loc="left") == "mine"


@pytest.mark.parametrize("sided", ["upper", "lower"])
def test_a_one_sided_interval_is_drawn_and_keyed_as_the_bound_it_gives(sided: str) -> None:
    rng = np.random.default_rng(0)
    p = rng.beta(2, 5, 2000)
    y = (rng.random(2000) < p).astype(int)
    table = vc.reliability(p, y, bins=5, sided=sided)
    assert f"95% {sided} CI" in str(table).splitlines()[0]
    ax = table.plot().axes[0]
    assert f"95% {sided} Wilson bound" in _legend(ax)
    assert not any(name.endswith(" interval") for name in _legend(ax))
    segments = ax.containers[0].lines[2][0].get_segments()
    ends = np.array([[s[0][1], s[1][1]] for s in segments])
    acc = np.array([r.acc for r in table.rows])
    # the bar runs between the point and the bound (before: down to 0, or up to 1, the interval's other end)
    bound = np.array([r.ci_high if sided == "upper" else r.ci_low for r in table.rows])
    assert np.allclose(np.sort(ends, axis=1), np.sort(np.c_[acc, bound], axis=1))


def test_a_two_sided_interval_is_drawn_whole() -> None:
    rng = np.random.default_rng(0)
    p = rng.beta(2, 5, 2000)
    y = (rng.random(2000) < p).astype(int)
    table = vc.reliability(p, y, bins=5, level=0.9)
    ax = table.plot().axes[0]
    assert "90% Wilson interval" in _legend(ax)
    segments = ax.containers[0].lines[2][0].get_segments()
    assert np.allclose([s[0][1] for s in segments], [r.ci_low for r in table.rows])
    assert np.allclose([s[1][1] for s in segments], [r.ci_high for r in table.rows])


def test_a_confidence_sequence_names_its_tolerance_lines() -> None:
    rng = np.random.default_rng(7)
    p = rng.beta(2, 5, 3000)
    y = (rng.random(3000) < p).astype(int)
    ax = vc.confidence_sequence(p, y, tolerance=0.02).plot().axes[0]
    lines = [ln for ln in ax.lines if ln.get_gid() == "tolerance"]
    assert sorted(ln.get_ydata()[0] for ln in lines) == [-0.02, 0.02]
    assert "tolerance [-0.02, 0.02] (alarm when the bounds lie wholly outside it)" in _legend(ax)
    assert not any(name.startswith("tolerance") for name in _legend(vc.confidence_sequence(p, y).plot().axes[0]))
