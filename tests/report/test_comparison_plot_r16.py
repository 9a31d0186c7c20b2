"""compare_models' picture: a wide ECE interval no longer flattens the other differences onto 0,
and long model names no longer push the panel's title and axis label off the figure.

Before (4,000 rows, two close models): the debiased ECE's interval was ±200 % of A's ECE, the axis
ran from -210 to +210 %, and the Brier (+1.1 %, interval [+0.4, +1.9] %), log-loss and AUC
differences — all significant, coloured as such — sat on 0 like no difference at all; each row's
label "brier: <B> - <A…>" took half the figure, and the title ran off its right edge."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

LONG = "model A " + "L" * 200


@pytest.fixture(scope="module")
def close_models():
    rng = np.random.default_rng(1)
    n = 4000
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.uniform(size=n) < p).astype(int)
    p2 = np.clip(p + rng.normal(0, 0.05, n), 0.001, 0.999)
    return vc.compare_models({LONG: p, "<i>B</i>": p2}, y, n_resamples=200, random_state=0)


def _pct(row, value):
    return 100.0 * value / abs(row.value_a)


def test_wide_interval_runs_off_the_axis_not_the_others_onto_zero(close_models):
    import matplotlib.pyplot as plt

    result = close_models
    rows = {r.metric: r for r in result.rows}
    brier = rows["brier"]
    assert brier.ci_low > 0  # a real difference the picture must show
    fig = result.plot()
    try:
        right = fig.axes[1]
        lo, hi = right.get_xlim()
        reach_brier = _pct(brier, brier.ci_high)
        # Brier's interval is on the axis and takes a visible share of it (before: 1 % of a ±210 % axis)
        assert lo < _pct(brier, brier.ci_low) and reach_brier < hi
        assert reach_brier / (hi - lo) > 0.1
        # the ECE interval that runs off is marked at the edge, with its ends' values written beside
        ece = next(r for r in result.rows if r.metric.startswith("ece"))
        assert _pct(ece, ece.ci_high) > hi and _pct(ece, ece.ci_low) < lo
        arrows = [ln for ln in right.lines if ln.get_gid() == "clipped"]
        assert sorted(ln.get_marker() for ln in arrows) == ["<", ">"]
        notes = [t.get_text() for t in right.texts]
        assert notes == [f"{_pct(ece, ece.diff):+.0f}% [{_pct(ece, ece.ci_low):+.0f}%, "
                         f"{_pct(ece, ece.ci_high):+.0f}%], off the axis"]
        # one pair: rows named by metric, the pair named once in the title
        from veracity.comparison._compare import SHOWN

        assert [t.get_text() for t in right.get_yticklabels()] == [SHOWN.get(r.metric, r.metric) for r in result.rows]
        assert "ece_debiased" in [t.get_text() for t in right.get_yticklabels()]  # as the table names it
        assert "<i>B</i> − model A" in right.get_title(loc="left")
        # nothing of the right panel's title or label beyond the figure's right edge
        fig.canvas.draw()
        width = fig.bbox.width
        for text in (right.title, right._left_title, right.xaxis.label):
            assert text.get_window_extent().x1 <= width + 1, text.get_text()
    finally:
        plt.close(fig)


def test_no_clipping_when_the_intervals_are_alike():
    import matplotlib.pyplot as plt

    d = vc.load_demo()
    calib, test = d["role"] == "calib", d["role"] != "calib"
    cal = vc.TemperatureScaling(score_type="logit").fit(d["logit"][calib], d["label"][calib])
    result = vc.compare_models({"p_old": d["score"][test], "p_new": cal.transform(d["logit"][test])},
                               d["label"][test], random_state=0, n_resamples=200)
    fig = result.plot()
    try:
        right = fig.axes[1]
        assert not [ln for ln in right.lines if ln.get_gid() == "clipped"]
        lo, hi = right.get_xlim()
        for r in result.rows:  # every interval drawn whole
            if r.value_a:
                assert lo <= _pct(r, r.ci_low) and _pct(r, r.ci_high) <= hi
    finally:
        plt.close(fig)
