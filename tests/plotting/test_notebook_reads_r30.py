"""Figures as a notebook reader reads them (session 30: scratch notebooks executed with nbclient, every PNG
opened). Each test names what a reader misread before."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.plotting._comparison import _axis_limit


def _close(fig) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_crowded_count_labels_are_not_printed_on_top_of_each_other():
    # 10 quantile bins of scores piled near 0: five bins within 0.1 of each other printed "500500500..."
    rng = np.random.default_rng(3)
    table = vc.reliability(rng.beta(0.5, 3, 5000), rng.integers(0, 2, 5000), bins=10, strategy="quantile")
    fig = table.plot()
    try:
        ax, hist = fig.axes
        labels = [t for t in ax.texts if t.get_gid() == "count_label"]
        assert len(labels) == 10  # every label is still there ...
        shown = [t for t in labels if t.get_visible()]
        assert 3 <= len(shown) < 10  # ... the crowded ones hidden
        boxes = [t.get_window_extent() for t in shown]
        assert not any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        # and the reader is told where the hidden counts are
        assert "every bin's count here (" in hist.get_title(loc="right")
        assert f"{10 - len(shown)} crowded labels above omitted" in hist.get_title(loc="right")
    finally:
        _close(fig)


def test_bins_far_apart_keep_every_count_label():
    rng = np.random.default_rng(4)
    p = rng.uniform(0, 1, 3000)
    fig = vc.reliability(p, (rng.random(3000) < p).astype(int), bins=10).plot()
    try:
        labels = [t for t in fig.axes[0].texts if t.get_gid() == "count_label"]
        assert len(labels) == 10 and all(t.get_visible() for t in labels)
        assert fig.axes[1].get_title(loc="right") == ""
    finally:
        _close(fig)


def test_several_wide_rows_run_off_the_axis_together():
    # three models' paired rows, in % of A's value: AUC 8-9 %, Brier and log-loss 13-28 %, the debiased ECE of
    # a near-perfect A +250 %, +800 %, +2,300 %. Before, only a row ten times the next one ran off: the axis
    # spanned ±2,300 % and the significant Brier differences sat on 0.
    reach = np.array([8.1, 16.0, 14.4, 800.0, 8.8, 28.0, 28.0, 2330.0, 0.0, 12.7, 14.0, 252.0])
    assert _axis_limit(reach) == pytest.approx(56.0)
    # one outlier as before (ten times the next): the axis spans twice the next reach
    assert _axis_limit(np.array([1.9, 2.2, 0.5, 200.0])) == pytest.approx(4.4)
    # alike rows: no clipping; nor where a tiny row (an AUC difference of 0.0002 %) makes the others look wide
    assert _axis_limit(np.array([3.0, 5.0, 9.0, 12.0])) is None
    assert _axis_limit(np.array([0.00016, 5.6, 10.75, 59.4])) is None


@pytest.fixture(scope="module")
def three_models():
    rng = np.random.default_rng(0)
    n = 20_000
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(-2 + 1.5 * x)))
    y = (rng.random(n) < p).astype(int)
    weak = 1 / (1 + np.exp(-(-2 + 0.8 * x + 0.6 * rng.normal(size=n))))
    over = 1 / (1 + np.exp(-(-2 + 3 * x)))
    return vc.compare_models({"good": p, "weak": weak, "overconfident": over}, y, bins=10, n_resamples=50,
                             random_state=0)


def test_three_models_paired_brier_differences_take_a_visible_share_of_the_axis(three_models):
    result = three_models
    fig = result.plot()
    try:
        right = fig.axes[1]
        lo, hi = right.get_xlim()
        for r in result.rows:
            pct = [100.0 * v / abs(r.value_a) for v in (r.ci_low, r.ci_high)]
            if r.metric == "brier":
                assert r.ci_low > 0  # significant: the picture must show it off 0
                assert lo < pct[0] and pct[1] < hi
                assert pct[1] / (hi - lo) > 0.1  # before: about 0.6 % of a ±2,300 % axis
        # the three ECE rows run off, each with its numbers written above it
        notes = [t.get_text() for t in right.texts if t.get_text().endswith("off the axis")]
        assert len(notes) == 3
    finally:
        _close(fig)


def test_the_corp_key_sits_above_the_curves_not_on_them(three_models):
    fig = three_models.plot()
    try:
        left = fig.axes[0]
        fig.canvas.draw()
        legend = left.get_legend().get_window_extent()
        # before: inside the axes (upper left), over the curves that run above the diagonal there
        assert legend.y0 >= left.get_window_extent().y1 - 1
        title = left._left_title.get_window_extent()
        assert not _overlap(title, legend)
        assert left.get_title(loc="left") == "CORP reliability"
    finally:
        _close(fig)


def _sliced(groups: int) -> vc.AuditResult:
    rng = np.random.default_rng(7)
    n = 600 * groups
    p = rng.uniform(0, 1, n)
    y = (rng.random(n) < p).astype(int)
    g = np.array([f"g{k:02d}" for k in rng.integers(0, groups, n)])
    return vc.audit(p, y, bins=10, by=g)


def test_an_audit_by_slices_draws_the_slices():
    result = _sliced(2)
    fig = result.plot()
    try:
        titles = [ax.get_title(loc="left") for ax in fig.axes if ax.get_visible()]
        # before: the whole alone, titled "Reliability diagram", as an audit without slices
        assert titles[0] == "(all)" and sorted(titles[1:]) == ["group = g00", "group = g01"]
        heading = fig.legends[0].get_title().get_text()
        assert heading == "Reliability by group: all rows and 2 slices (the whole's bins)"
        for ax in fig.axes[1:]:  # each panel's N is its slice's
            name = ax.get_title(loc="left").split(" = ")[1]
            assert ax.get_title(loc="right").endswith(f"N {result.groups[name].n:,}")
        fig.canvas.draw()  # the heading and the key never overlap the panels' titles
        top = min(ax.get_window_extent().y1 for ax in fig.axes if ax.get_visible())
        assert fig.legends[0].get_window_extent().y0 >= top
    finally:
        _close(fig)


def test_many_slices_draw_the_largest_and_say_so():
    result = _sliced(15)
    fig = result.plot()
    try:
        shown = [ax for ax in fig.axes if ax.get_visible()]
        assert len(shown) == 12
        assert "the 11 largest of 15 slices" in fig.legends[0].get_title().get_text()
        sizes = sorted((g.n for g in result.groups.values()), reverse=True)
        drawn = [result.groups[ax.get_title(loc="left").split(" = ")[1]].n for ax in shown[1:]]
        assert sorted(drawn, reverse=True) == sizes[:11]
    finally:
        _close(fig)


def test_an_audit_by_slices_into_one_axes_says_it_is_the_whole():
    from matplotlib.figure import Figure

    result = _sliced(2)
    ax = Figure().subplots()
    result.plot(ax=ax)
    assert ax.get_title(loc="left") == "Reliability diagram, all rows (2 slices by group: plot without ax)"


def test_the_ppi_rows_name_what_they_use_and_an_invalid_cbpe_says_so():
    rng = np.random.default_rng(0)
    pl = rng.uniform(size=300)
    yl = (rng.random(300) < np.clip(pl + 0.15, 0, 1)).astype(int)
    r = vc.ppi_mean(yl, pl, rng.uniform(size=20_000))
    assert not r.calibrated
    fig = r.plot()
    try:
        ax = fig.axes[0]
        names = [t.get_text() for t in ax.get_yticklabels()]
        # before: "PPI++", "labels only", "CBPE (scores only)": no counts, nothing said CBPE is invalid here
        assert set(names) == {"PPI++\n300 labels + 20,000 scores", "labels only\n300 labels",
                              "CBPE, 20,300 scores\nnot valid here: scores miscalibrated"}
        markers = {ln.get_gid(): ln for ln in ax.lines if ln.get_marker() == "o"}
        assert markers["cbpe"].get_markerfacecolor() == "white"  # hollow: no result to read
        assert markers["ppi"].get_markerfacecolor() != "white"
        written = [t.get_text() for t in ax.texts if t.get_gid() == "estimate_label"]
        assert f"{r.estimate:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]" in written
        assert ax.get_title(loc="left").startswith("Rate of the window")
        note = next(t for t in ax.texts if t.get_gid() == "note")
        assert note.get_text() == r.note
    finally:
        _close(fig)


def test_a_confidence_sequence_has_a_title_and_its_key_above_the_band():
    rng = np.random.default_rng(2)
    p = rng.uniform(size=4000)
    cs = vc.confidence_sequence(p, (rng.random(4000) < p).astype(int))
    fig = cs.plot()
    try:
        ax = fig.axes[0]
        assert ax.get_title(loc="left") == "Confidence sequence of rate - mean score (4,000 labelled rows)"
        assert ax.get_xlabel() == "labelled row"
        fig.canvas.draw()
        # before: the key sat in the upper left, over the band where it is widest
        assert ax.get_legend().get_window_extent().y0 >= ax.get_window_extent().y1 - 1
    finally:
        _close(fig)


def test_binned_sequences_name_each_bins_labels_and_the_axes():
    rng = np.random.default_rng(0)
    p = 1 / (1 + np.exp(-(-1 + rng.normal(size=8000))))
    bs = vc.binned_sequences(p, (rng.random(8000) < p).astype(int), bins=5)
    fig = bs.plot()
    try:
        shown = [ax for ax in fig.axes if ax.get_visible()]
        for ax, cs in zip(shown, bs.sequences):
            assert ax.get_title().endswith(f"({int(cs.n[-1]):,} labelled)")
        assert shown[0].get_ylabel() == "rate - mean score"
        assert all(ax.get_xlabel() == "row" for ax in shown)
        assert "band = anytime-valid bounds" in fig._suptitle.get_text()
    finally:
        _close(fig)


def test_calibration_by_period_writes_each_periods_labelled_rows():
    rng = np.random.default_rng(1)
    sizes = [1000, 400, 60, 900]
    period = np.repeat(np.arange(4), sizes)
    p = rng.uniform(size=period.size)
    result = vc.monitor(p, (rng.random(period.size) < p).astype(int), period)
    fig = result.plot()
    try:
        ax = fig.axes[0]
        counts = [t.get_text() for t in ax.texts if t.get_gid() == "count_label"]
        assert counts == [str(n) for n in sizes]  # as the table's "labelled" column prints them
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "numbers: labelled rows per period" in legend
    finally:
        _close(fig)
