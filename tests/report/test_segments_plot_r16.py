"""A segment proved miscalibrated by a contradicted certain score is marked as such in the picture.

A score of exactly 1 with label 0 (or 0 with label 1) makes its segment a discovery with p = 0
(test "certain") even where the gap's interval covers 0: before, the figure drew that segment as
an orange dot on an interval across 0 with nothing saying why it was a discovery."""

from __future__ import annotations

import numpy as np

import veracity as vc


def test_certain_segments_are_marked_and_named():
    from matplotlib.figure import Figure

    rng = np.random.default_rng(2)
    n = 3000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    region = np.array(["north", "south", "east"], dtype=object)[np.arange(n) % 3]
    # one "east" row scored exactly 1 whose label is 0: east is certain, whatever its gap
    first_east = int(np.flatnonzero(region == "east")[0])
    p[first_east], y[first_east] = 1.0, 0
    result = vc.segments(p, y, features={"region": region})
    certain = [r for r in result.rows if r.sufficient and r.test == "certain"]
    assert [r.segment for r in certain] == ["region=east"]
    assert certain[0].ci_low < 0 < certain[0].ci_high  # the interval alone would not call it
    fig = result.plot()
    ax = fig.axes[0]
    marked = [ln for ln in ax.lines if ln.get_gid() == "certain"]
    assert len(marked) == 1 and marked[0].get_marker() == "X"
    assert marked[0].get_xdata()[0] == certain[0].gap
    texts = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert texts == ["certain: a score of exactly 0 or 1 its label contradicts (p = 0)"]
    # into a given Axes the key is the Axes' legend
    into = Figure().add_subplot()
    result.plot(ax=into)
    assert [t.get_text() for t in into.get_legend().get_texts()] == texts
    # no certain segment: no key
    p[first_east] = 0.5
    plain = vc.segments(p, y, features={"region": region}).plot()
    assert not plain.legends and not [ln for ln in plain.axes[0].lines if ln.get_gid() == "certain"]
