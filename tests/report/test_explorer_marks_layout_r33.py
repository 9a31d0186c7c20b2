"""The marks under the explorer's slider in headless Chromium (r33): t*, the recall-target t and "lowest cost
here" each draw a tick at their threshold and a label below it. The labels used to sit in fixed rows 15 px
apart with each tick at the top of its own row, so whenever two marks were close a tick was drawn through
the label of the row above (``vc.report(np.full(500, .3), y, cost_fn=2)``: the recall tick through
"t* = 0.333"), a label near t = 0 ran off the slider's left edge, and a third row spilled out of the box.
Read from the elements' boxes: no tick crosses a label, no two labels meet, every label stays inside the
slider's width and the marks' box, and each tick stands at its threshold on the slider."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytestmark = pytest.mark.browser

KINDS = ("star", "recall", "best")


def _overlap(a, b, tol=0.5):
    """Two boxes share an area wider and taller than ``tol`` px (boxes that only touch do not)."""
    return (min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"]) > tol
            and min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"]) > tol)


def _open(tabs, tmp_path, rep):
    """A page (lent to the test: tests/report/conftest.py) that collects its errors, and a loader that
    opens the saved report afresh at a width."""
    path = tmp_path / "report.html"
    rep.save(path)
    page = tabs.page(width=1280, height=900)
    errors: list[str] = []
    tabs.on(page, "pageerror", lambda e: errors.append(str(e)))
    tabs.on(page, "console", lambda m: errors.append(m.text) if m.type == "error" else None)

    def load(width=1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(path.as_uri())  # a new document, laid out from the start at this width
        page.wait_for_selector('#explorer[data-ready="1"]', timeout=10_000)

    return page, errors, load


#: the boxes (``getBoundingClientRect``, what Playwright's ``bounding_box`` reads; ``None`` for an element
#: without a box), the number of ticks and labels of each kind, and the labels' text, read in one round trip
_READ = """kinds => {
    const box = el => {
        if (!el || el.getClientRects().length === 0) return null;
        const r = el.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height};
    };
    const out = {slider: box(document.querySelector("#ex-slider")),
                 box: box(document.querySelector("#ex-marks")), kinds: {}};
    for (const kind of kinds) {
        const ticks = document.querySelectorAll(`#ex-marks .tick.${kind}`);
        const labels = document.querySelectorAll(`#ex-marks .mark.${kind}`);
        out.kinds[kind] = {ticks: ticks.length, labels: labels.length, tick: box(ticks[0]),
                           label: box(labels[0]), text: labels.length ? labels[0].textContent : null};
    }
    return out;
}"""


def assert_marks_clear(page, expected):
    """``expected``: {kind: threshold} of the marks the page should show."""
    read = page.evaluate(_READ, list(KINDS))
    slider, box = read["slider"], read["box"]
    ticks, labels = {}, {}
    for kind in KINDS:
        got = read["kinds"][kind]
        assert got["ticks"] == got["labels"] == (kind in expected), kind
        if kind in expected:
            ticks[kind], labels[kind] = got["tick"], got["label"]
            assert ticks[kind] is not None and labels[kind] is not None, kind
            assert ticks[kind]["height"] >= 6 and labels[kind]["width"] > 20, kind
    where = {k: (ticks[k], labels[k], read["kinds"][k]["text"]) for k in ticks}
    for kind, t in expected.items():
        tick, label = ticks[kind], labels[kind]
        # the tick stands at t on the slider (the thumb's centre travels from 8 px to width - 8 px), hanging
        # from the slider's foot
        centre = tick["x"] + tick["width"] / 2
        assert centre == pytest.approx(slider["x"] + 8 + (slider["width"] - 16) * t, abs=1.0), (kind, where)
        assert tick["y"] == pytest.approx(box["y"], abs=0.5), (kind, where)
        # the label inside the slider's width and the marks' box (rows below it hid the next block)
        assert label["x"] >= slider["x"] - 0.5, (kind, where)
        assert label["x"] + label["width"] <= slider["x"] + slider["width"] + 0.5, (kind, where)
        assert label["y"] + label["height"] <= box["y"] + box["height"] + 0.5, (kind, where)
        for other, other_label in labels.items():
            assert not _overlap(tick, other_label), (kind, other, where)
            if other != kind:
                assert not _overlap(label, other_label), (kind, other, where)


def _expected(page, t_recall, cost_fp, cost_fn):
    """t* = c_FP / (c_FP + c_FN), the recall-target t from vc.recall_threshold, and lowest cost here where
    its button sets the threshold (a cut point; test_report_browser.py checks it against threshold_table)."""
    page.click("#ex-go-best")
    return {"star": cost_fp / (cost_fp + cost_fn), "recall": t_recall,
            "best": float(page.get_attribute("#ex-t", "data-value"))}


def test_equal_scores_marks_clear(tabs, tmp_path):
    # one score for every row: the recall-target t and lowest cost here sit at 0.3, t* = 1/3 beside them
    rng = np.random.default_rng(33)
    p = np.full(500, 0.3)
    y = (rng.uniform(size=p.size) < 0.3).astype(int)
    rep = vc.report(p, y, cost_fn=2, bootstrap=False, figures=False)
    t_r = vc.recall_threshold(p, y, target=0.95)
    page, errors, load = _open(tabs, tmp_path, rep)
    for width in (1280, 900, 640, 320):  # at 320 px the recall label is wider than the slider: it wraps
        load(width)
        assert_marks_clear(page, _expected(page, t_r, 1, 2))
        # t* walks across the other two marks as the cost of a false alarm changes
        for c_fp in (0.7, 0.8, 0.84, 0.86, 0.9, 1.1, 1.3):
            page.fill("#ex-cfp", str(c_fp))
            assert_marks_clear(page, _expected(page, t_r, c_fp, 2))
        assert errors == []


def test_close_marks_on_a_continuous_score(tabs, tmp_path):
    # the 1e6-row report's layout (recall 0.95 -> 0.128, t* = 0.200, lowest cost 0.202) at 20,000 rows
    rng = np.random.default_rng(6)
    p = rng.beta(2, 5, 20_000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    rep = vc.report(p, y, cost_fn=4, bootstrap=False, figures=False)
    t_r = vc.recall_threshold(p, y, target=0.95)
    page, errors, load = _open(tabs, tmp_path, rep)
    load()
    assert_marks_clear(page, _expected(page, t_r, 1, 4))
    for c_fp in (0.3, 0.5, 0.6, 0.7, 1.5, 3.0):
        page.fill("#ex-cfp", str(c_fp))
        assert_marks_clear(page, _expected(page, t_r, c_fp, 4))
    # the box follows the page's width
    page.set_viewport_size({"width": 700, "height": 900})
    page.wait_for_timeout(100)
    assert_marks_clear(page, _expected(page, t_r, 3.0, 4))
    assert errors == []


@pytest.mark.parametrize("score, cost_fp, cost_fn",
                         [(0.01, 1, 99), (0.0, 0.001, 1), (0.99, 99, 1), (1.0, 1, 0.001)])
def test_marks_at_the_ends_stay_inside(tabs, tmp_path, score, cost_fp, cost_fn):
    # all three marks within a few pixels of t = 0 or t = 1 (at score 1.0 lowest cost here is 0: flag all)
    rng = np.random.default_rng(1)
    p = np.full(500, score)
    y = (rng.uniform(size=p.size) < 0.3).astype(int)
    rep = vc.report(p, y, cost_fp=cost_fp, cost_fn=cost_fn, bootstrap=False, figures=False)
    t_r = vc.recall_threshold(p, y, target=0.95)
    page, errors, load = _open(tabs, tmp_path, rep)
    for width in (1280, 640, 320):
        load(width)
        assert_marks_clear(page, _expected(page, t_r, cost_fp, cost_fn))
        assert errors == []
