"""The explorer's marks under the slider in headless Chromium (r34), read from the elements' boxes.

* Two marks under 2 px apart (``vc.report(np.full(500, .3), y, cost_fn=2)``: t* = 1/3 is the lowest-cost
  threshold) drew their 2 px ticks at one place, one colour over the other: the stacked labels had one
  visible tick between them. Such ticks are now 1 px wide side by side: no two ticks share an area, each
  stays within 1 px of its threshold.
* On a narrow screen, where a label is wider than the slider, the fallback stacked every label on rows of
  its own but drew each tick 8 px long: every tick but the first stopped short of its label. Each tick
  now reaches the first label of its block (its own, where no other mark is within 8 px), and still
  crosses no label above it.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytestmark = pytest.mark.browser

KINDS = ("star", "recall", "best")
MERGE = 8  # px: marks whose ticks are closer share one block of stacked labels (_explorer.js)


#: the boxes (``getBoundingClientRect``, what Playwright's ``bounding_box`` reads; ``None`` for an element
#: without a box) of the slider, the marks' box and each kind's tick and label, read in one round trip
_READ = """kinds => {
    const box = el => {
        if (!el || el.getClientRects().length === 0) return null;
        const r = el.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height};
    };
    const marks = {}, counts = {};
    for (const kind of kinds) {
        const ticks = document.querySelectorAll(`#ex-marks .tick.${kind}`);
        const labels = document.querySelectorAll(`#ex-marks .mark.${kind}`);
        counts[kind] = [ticks.length, labels.length];
        if (ticks.length) marks[kind] = [box(ticks[0]), box(labels[0])];
    }
    return {slider: box(document.querySelector("#ex-slider")), box: box(document.querySelector("#ex-marks")),
            marks, counts};
}"""


def _read(page) -> dict:
    """``slider`` and ``box`` (the slider's and the marks' boxes) and ``marks``: {kind: (tick box, label box)}
    for each kind whose tick is drawn (one tick and one label each)."""
    read = page.evaluate(_READ, list(KINDS))
    for kind, (ticks, labels) in read["counts"].items():
        assert ticks == labels == 1 or ticks == 0, (kind, ticks, labels)
    read["marks"] = {k: tuple(v) for k, v in read["marks"].items()}
    return read


def _shared(a, b) -> tuple[float, float]:
    """Width and height of the area two boxes share (negative: apart)."""
    return (min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"]),
            min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"]))


def _thresholds(page, t_recall, cost_fp, cost_fn) -> dict[str, float]:
    from .test_report_browser import shown

    page.click("#ex-go-best")  # lowest cost here: the threshold its button sets
    return {"star": cost_fp / (cost_fp + cost_fn), "recall": t_recall, "best": shown(page)["threshold"]}


def _resize(page, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(150)


def test_ticks_under_two_px_apart_are_drawn_side_by_side(tabs, tmp_path):
    from .test_report_browser import open_page

    rng = np.random.default_rng(33)
    p = np.full(500, 0.3)
    y = (rng.uniform(size=p.size) < 0.3).astype(int)
    page, seen = open_page(tabs, tmp_path, vc.report(p, y, cost_fn=2, bootstrap=False, figures=False))
    t_recall = vc.recall_threshold(p, y, target=0.95)
    for width in (1280, 640, 320):
        _resize(page, width)
        # 1: t* = lowest cost here = 1/3; 0.86: t* = 0.3007, under a pixel from the recall-target t = 0.3
        for c_fp in (1, 0.86):
            page.fill("#ex-cfp", str(c_fp))
            expected = _thresholds(page, t_recall, c_fp, 2)
            read = _read(page)
            slider, boxes = read["slider"], read["marks"]
            assert set(boxes) == set(KINDS)
            xs = {k: slider["x"] + 8 + (slider["width"] - 16) * t for k, t in expected.items()}
            assert min(abs(xs[a] - xs[b]) for a, b in (("star", "recall"), ("star", "best"),
                                                          ("recall", "best"))) < 2, (width, c_fp, xs)
            for kind, (tick, _) in boxes.items():
                assert tick["width"] >= 0.9 and tick["height"] >= 6, (kind, tick)
                centre = tick["x"] + tick["width"] / 2
                assert centre == pytest.approx(xs[kind], abs=1.0), (kind, width, c_fp)
                for other, (other_tick, _) in boxes.items():
                    if other != kind:  # boxes may touch, never share an area
                        assert min(_shared(tick, other_tick)) <= 0.05, (kind, other, width, c_fp, boxes)
    assert seen["errors"] == []


def _blocks(boxes) -> list[list[str]]:
    """The marks by block: ticks closer than MERGE px in a chain share one block of labels."""
    order = sorted(boxes, key=lambda k: boxes[k][0]["x"])
    out: list[list[str]] = []
    for kind in order:
        if out and boxes[kind][0]["x"] - boxes[out[-1][-1]][0]["x"] < MERGE:
            out[-1].append(kind)
        else:
            out.append([kind])
    return out


def first_row(boxes, block) -> float:
    """The top of a block's first label."""
    return min(boxes[k][1]["y"] for k in block)


@pytest.mark.parametrize("cost_fp", [1.0, 0.6, 2.0])
def test_narrow_fallback_ticks_reach_their_labels(tabs, tmp_path, cost_fp):
    from .test_report_browser import open_page

    # a miscalibrated score: t*, the lowest-cost threshold and the recall-target t far apart
    rng = np.random.default_rng(6)
    p = rng.beta(2, 5, 20_000)
    y = (rng.uniform(size=p.size) < 1.5 * p ** 2).astype(int)
    page, seen = open_page(tabs, tmp_path, vc.report(p, y, cost_fp=cost_fp, cost_fn=1, bootstrap=False,
                                                         figures=False))
    for width in (320, 360):
        _resize(page, width)
        read = _read(page)
        box, boxes = read["box"], read["marks"]
        assert set(boxes) == set(KINDS)
        # the fallback (at 320 px the recall label is wider than the slider and wraps): labels in rows
        # of their own, at least one block below another's labels
        assert width == 360 or boxes["recall"][1]["height"] > 20, boxes["recall"]
        blocks = _blocks(boxes)
        assert len(blocks) >= 2, blocks
        assert max(first_row(boxes, b) for b in blocks) > box["y"] + 20, boxes
        for block in blocks:
            first = first_row(boxes, block)
            for kind in block:
                tick, label = boxes[kind]
                # from the slider's foot down to the top of its block's first label ...
                assert tick["y"] == pytest.approx(box["y"], abs=0.5)
                assert tick["y"] + tick["height"] == pytest.approx(first, abs=0.5), (kind, width, boxes)
                if len(block) == 1:  # ... its own, under the tick
                    assert label["x"] <= tick["x"]
                    assert tick["x"] + tick["width"] <= label["x"] + label["width"]
                # crossing no other label, and every label inside the box
                for other, (_, other_label) in boxes.items():
                    if other != kind:
                        assert min(_shared(tick, other_label)) <= 0.5, (kind, other, width, boxes)
                        assert min(_shared(label, other_label)) <= 0.5, (kind, other, width, boxes)
                assert box["x"] - 0.5 <= label["x"]
                assert label["x"] + label["width"] <= box["x"] + box["width"] + 0.5
                assert label["y"] + label["height"] <= box["y"] + box["height"] + 0.5
    assert seen["errors"] == []
