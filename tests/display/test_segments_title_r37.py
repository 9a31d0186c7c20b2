"""Round 37: the segments plot's title names the FDR procedures, as the printout's header does.

Intersections are judged by Benjamini-Yekutieli (dependent tests), single features by Benjamini-Hochberg: a
depth-2 row whose interval is far from 0 can be undiscovered beside a discovered single feature with a larger
p-value. The title said only "discoveries at FDR 0.05", which read as one procedure for every row.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import veracity as vc

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def demo():
    d = vc.load_demo()
    test = d["role"] == "test"
    return {k: np.asarray(v)[test] for k, v in d.items()}


def _title(fig) -> str:
    ax = fig.axes[0]
    return ax.get_title(loc="left") or ax.get_title()


def test_depth_two_title_names_bh_and_by(demo):
    res = vc.segments(demo["score"], demo["label"], features={"segment": demo["segment"], "month": demo["month"]},
                      n_resamples=1)
    fig = res.plot()
    title = _title(fig)
    # on a line of its own: the first line, which sets the figure's width with the names, is as long as before,
    # so the figure is as wide as 6da6112 drew it (7.7065 in; a wider one is scaled down in the report)
    assert title.splitlines()[0].endswith("at FDR 0.05 (orange)")
    assert fig.get_figwidth() == pytest.approx(7.706519097222223, rel=1e-12)
    assert "\n(BH for single features, BY for intersections)\n" in title
    assert res.procedure() in str(res).splitlines()[0]  # the printout's header names the same


def test_depth_one_title_names_bh(demo):
    res = vc.segments(demo["score"], demo["label"], features={"segment": demo["segment"]}, depth=1,
                      n_resamples=1)
    title = _title(res.plot())
    assert "\n(BH)\n" in title and "BY" not in title
