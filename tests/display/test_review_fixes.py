"""What a user reads, checked where the numbers were already right: a review of the demo notebook's
figures and the HTML reports in headless Chromium found text cut off, a legend naming the wrong
thing, terms that did not add up and an axis scaled to say nothing. One test per finding."""

from __future__ import annotations

import html
import io
import re

import numpy as np
import pytest

import veracity as vc

matplotlib = pytest.importorskip("matplotlib")

@pytest.fixture(scope="module")
def demo():
    d = vc.load_demo()
    test = d["role"] == "test"
    return {k: np.asarray(v)[test] for k, v in d.items()}, d


def _drawn(fig):
    """The figure laid out and drawn by Agg (what fig.savefig("x.png") does); returns the renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _title_artist(ax, loc):
    text = ax.get_title(loc=loc)
    return next(t for t in ax.texts + [ax.title, *ax.get_children()]
                if isinstance(t, matplotlib.text.Text) and t.get_text() == text and t.get_text())


def _section(page, sid):
    start = page.index(f'<section id="{sid}">')
    return page[start:page.index("</section>", start)]


# -- the report ----------------------------------------------------------------------------------
def test_ledger_why_column_is_the_one_that_wraps():
    """The before/after ledger's last column ("why") was cut off at the section's right edge (the CSS
    let the 8th column, "can it move?", wrap instead of the 9th)."""
    rng = np.random.default_rng(0)
    s = rng.normal(0, 2, 2000)
    y = (rng.random(2000) < 1 / (1 + np.exp(-s / 2))).astype(int)
    cal = vc.PlattScaling(score_type="logit").fit(s[:1000], y[:1000])
    page = vc.report(s[1000:], y[1000:], score_type="logit", calibrator=cal, bootstrap=False,
                     figures=False).html
    head = re.search(r'<table class="ledger"><thead><tr>(.*?)</tr>', page).group(1)
    headers = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", head)]
    css = re.search(r"table\.ledger td:nth-child\(\d+\), table\.ledger td:nth-child\((\d+)\) \{ white-space: normal",
                    page)
    assert css is not None
    assert headers[int(css.group(1)) - 1] == "why"


def _overflow(tabs, path, selector):
    """How far each matching table is wider than its box (> 0: cut off or scrolled), at 1280 px (a page
    lent to the test: tests/report/conftest.py)."""
    page = tabs.page(width=1280, height=900)
    page.goto(path.as_uri())
    out = page.eval_on_selector_all(selector, "els => els.map(e => e.scrollWidth - e.clientWidth)")
    bars = page.eval_on_selector_all("table.slices td:nth-child(5)", "els => els.map(e => e.clientWidth)")
    return out, bars


def test_ledger_fits_the_page_in_chromium(tabs, tmp_path):
    """The same, as the user saw it: at 1280 px no table of the calibrator section is wider than its box."""
    d = vc.load_demo()
    calib = d["role"] == "calib"
    cal = vc.PlattScaling().fit(d["score"][calib], d["label"][calib])
    path = tmp_path / "report.html"
    vc.report(d["score"][~calib], d["label"][~calib], calibrator=cal, bootstrap=False, out=path)
    overflow, _ = _overflow(tabs, path, "#calibration .table-wrap")
    assert overflow and max(overflow) <= 0


def test_long_slice_value_keeps_the_slice_table_whole(tabs, tmp_path):
    """A 45-character slice value pushed the slice table's last column ("thin bins") out of its box
    and squeezed the ECE bar column to a few pixels (the bars became dots)."""
    rng = np.random.default_rng(0)
    p = rng.uniform(size=3000)
    y = (rng.random(3000) < p).astype(int)
    g = np.where(np.arange(3000) < 300, "electronics and household appliances (online)", "groceries")
    path = tmp_path / "report.html"
    vc.report(p, y, by={"merchant category": g}, bootstrap=False, out=path)
    overflow, bars = _overflow(tabs, path, "#slices .table-wrap")
    assert overflow and max(overflow) <= 0
    assert bars and min(bars) >= 100


def test_slice_panels_say_slices_not_classes(demo):
    """A binary report's slice panels were keyed "top-label bin" / "one-vs-rest class bin" (the
    multiclass panels' legend); the multiclass figure keeps its own key."""
    t, _ = demo
    page = vc.report(t["score"], t["label"], by={"segment": t["segment"]}, bootstrap=False).html
    slices = _section(page, "slices")
    assert "one-vs-rest" not in slices and "top-label" not in slices
    assert "bin of all rows (size grows with count)" in slices and "bin of one slice" in slices
    P = np.random.default_rng(0).dirichlet(np.ones(3), size=300)
    fig = vc.plot_multiclass_reliability(P, P.argmax(axis=1), min_count=1)
    assert "one-vs-rest class bin" in [t.get_text() for t in fig.legends[0].get_texts()]


def test_long_slice_name_does_not_run_into_the_panel_ece():
    """A long slice value ran under the "ECE …, N …" beside it; it is shortened, keeping its end."""
    from veracity.plotting._reliability import _panel_tables

    rng = np.random.default_rng(1)
    p = rng.uniform(size=500)
    y = (rng.random(500) < p).astype(int)
    table = vc.reliability(p, y)
    name = "merchant_category = electronics & household appliances"
    fig = _panel_tables({"(all)": table, name: table}, size=2.9, colors=("#1f5fa8", "#d55e00"))
    renderer = _drawn(fig)
    ax = fig.axes[1]
    left, right = _title_artist(ax, "left"), _title_artist(ax, "right")
    assert left.get_window_extent(renderer).x1 < right.get_window_extent(renderer).x0
    assert left.get_text().startswith("…") and left.get_text().endswith("appliances")


def test_brier_card_terms_add_up_to_the_brier_shown(demo):
    """The Brier card said "reliability 0.0173 − resolution 0.0280 + uncertainty 0.1740" under
    0.1627: those add to 0.1633. The within-bin term is shown, so the card adds up."""
    t, _ = demo
    page = vc.report(t["score"], t["label"], bootstrap=False, figures=False).html  # the summary's card
    card = re.search(r'data-metric="brier">(.*?)</div></div>', page).group(1)
    text = html.unescape(re.sub(r"<[^>]+>", " ", card))
    brier = float(re.search(r"(\d\.\d{4})", text).group(1))
    m = re.search(r"reliability (\S+) − resolution (\S+) \+ uncertainty (\S+) ([+−]) within-bin (\S+)", text)
    assert m is not None, text
    rel, res, unc, sign, within = m.groups()
    total = float(rel) - float(res) + float(unc) + (1 if sign == "+" else -1) * float(within)
    assert total == pytest.approx(brier, abs=2.5e-4)


def test_multiclass_about_does_not_list_costs_it_never_used():
    """A multiclass report has no threshold explorer, yet "About" listed 1:1 costs, a target recall
    and an accuracy threshold of 0.5 (its accuracy is the argmax's)."""
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(4), size=600)
    y = (rng.random(600)[:, None] > P.cumsum(axis=1)).sum(axis=1)
    about = _section(vc.report(P, y, bootstrap=False, figures=False).html, "about")
    assert "false alarm 1, miss 1" not in about and "1:1 assumed" not in about
    assert "argmax" in about and "not used: no threshold explorer for multiclass scores" in about


# -- the figures a notebook shows ------------------------------------------------------------------
def test_segments_plot_names_its_own_interval_level(demo):
    """res.plot()'s x-axis said "95% interval" whatever level= the search used."""
    t, _ = demo
    res = vc.segments(t["score"], t["label"], features={"segment": t["segment"], "month": t["month"]}, level=0.9)
    label = res.plot().axes[0].get_xlabel()
    assert "90% interval" in label and "95%" not in label


def test_segments_plot_title_stays_inside_the_figure(demo):
    """Saved with a plain fig.savefig, the title ran off the right edge ("MCE 0.0641 (1")."""
    t, _ = demo
    res = vc.segments(t["score"], t["label"], features={"segment": t["segment"], "month": t["month"]})
    fig = res.plot()
    renderer = _drawn(fig)
    ax = fig.axes[0]
    title = _title_artist(ax, "left")
    assert title.get_window_extent(renderer).x1 <= fig.bbox.x1
    assert "discover" in title.get_text() and "(orange)" in title.get_text()  # the colour's key


def test_confidence_sequence_plot_shows_the_band_it_ends_with(demo):
    """The y-axis ran from -1.19 to 1.19 (the first rows' near-trivial bounds), so the band the
    alarm reads at the end, [-0.048, +0.006], was a flat line on zero."""
    t, _ = demo
    cs = vc.confidence_sequence(t["score"], t["label"])
    lo, hi = cs.plot().axes[0].get_ylim()
    assert lo <= cs.low[-1] < cs.high[-1] <= hi
    assert hi - lo < 10 * (cs.high[-1] - cs.low[-1])  # the final band is a tenth of the axis or more
    buf = io.BytesIO()
    cs.plot().savefig(buf, format="png")
    assert buf.tell() > 0


def test_overlay_legend_keys_shared_entries_in_ink(demo):
    """Before/after: "line broken at empty / insufficient bins", the hollow insufficient bin and the
    interval bar were keyed in the *after* curve's orange, as if the orange line were the broken one."""
    from matplotlib.colors import to_hex

    from veracity.plotting._style import INK, PALETTE

    t, d = demo
    calib = d["role"] == "calib"
    cal = vc.PlattScaling().fit(d["score"][calib], d["label"][calib])
    fig = vc.compare(t["score"], t["label"], cal).plot()
    legend = fig.axes[0].get_legend()
    keyed = dict(zip([x.get_text() for x in legend.get_texts()], legend.legend_handles))
    shared = [k for k in keyed if k.startswith(("line broken", "insufficient")) or k.endswith(" interval")]
    assert len(shared) == 2  # the 'after' line only stops at its last bins: not broken (round 34)
    for name in shared:
        h = keyed[name]
        colour = h.get_markeredgecolor() if name.startswith("insufficient") else h.get_color()
        assert to_hex(colour) == to_hex(INK), name
    after = next(k for k in keyed if k.startswith("after"))
    assert to_hex(keyed[after].get_facecolor()[0]) == to_hex(PALETTE[1])


def test_confidence_sequence_notebook_table_shows_the_printouts_steps():
    """Before: the notebook table was the first 40 rows of 3,000, every bound near [-1, 1];
    now the steps the printout shows (spread from first to last, and the alarm)."""
    rng = np.random.default_rng(0)
    p = rng.uniform(size=3000)
    y = (rng.uniform(size=3000) < 0.9 * p).astype(int)
    cs = vc.confidence_sequence(p, y)
    page = cs._repr_html_()
    steps = [int(s.replace(",", "")) for s in re.findall(r'<tr[^>]*><td class="vc-l">([\d,]+)</td>', page)]
    assert steps == cs._shown() and steps[-1] == 2999 and cs.alarm_at in steps
    assert len(cs.to_frame()) == 3000  # the full sequence stays in the frame


def test_weighted_reliability_says_weight_not_count():
    """Weighted bins were drawn "area ∝ count" over a histogram labelled "count" while their
    labels and sizes were weight sums (640.2 …); the insufficient mark reads the effective size."""
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    p = rng.uniform(size=600)
    y = (rng.uniform(size=600) < p).astype(int)
    w = rng.uniform(0.1, 5.0, size=600)
    fig = vc.plot_reliability(p, y, sample_weight=w, bins=40)
    main, hist = fig.axes
    texts = [t.get_text() for t in main.get_legend().get_texts()]
    assert any("size grows with weight" in t for t in texts) and not any("size grows with count" in t for t in texts)
    assert any("effective n < 20" in t for t in texts)
    assert hist.get_ylabel() == "weight"
    table = vc.reliability(p, y, sample_weight=w, bins=40)
    assert table.weighted and "fewer than 20 effective observations" in str(table)
    plain = vc.plot_reliability(p, y, bins=40)
    assert plain.axes[1].get_ylabel() == "count" and not vc.reliability(p, y).weighted
    plt.close("all")


def test_weighted_report_words_weights():
    """A weighted report said "sized by its count", "share of positives" and "bins with at least
    20 observations" over weight sums and effective sizes."""
    rng = np.random.default_rng(1)
    p = rng.uniform(size=800)
    y = (rng.uniform(size=800) < p).astype(int)
    # the words are the sections' text, not the figures' (test_weighted_reliability_says_weight_not_count)
    page = html.unescape(vc.report(p, y, sample_weight=rng.uniform(0.1, 5, size=800), bootstrap=False,
                                   figures=False).html)
    assert "sized by its weight" in page and "sized by its count" not in page
    assert "weighted share of positives" in page
    assert "with at least 20 effective observations" in page
    plain = html.unescape(vc.report(p, y, bootstrap=False, figures=False).html)
    assert "sized by its count" in plain and "weighted share" not in plain


def test_plot_thresholds_refuses_a_recall_threshold_off_the_probability_axis():
    """With logit scores a threshold given on the logit scale (2.2) was drawn off the [0, 1] axis."""
    rng = np.random.default_rng(2)
    s = rng.normal(size=200)
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-s))).astype(int)
    with pytest.raises(vc.VeracityError, match=r"must be a number in \[0, 1\]; got 2\.2 \(a logit threshold"):
        vc.plot_thresholds(s, y, score_type="logit", recall_threshold=2.2)
    import matplotlib.pyplot as plt

    vc.plot_thresholds(s, y, score_type="logit", recall_threshold=0.3)
    plt.close("all")
