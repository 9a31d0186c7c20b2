"""The risk–coverage curve is drawn where the AURC integrates it: risk[i] on (coverage[i-1], coverage[i]].

It was drawn with "post" steps, one tie group to the right: five rows whose only errors are the last
(tied) group drew risk 0 all the way to coverage 1, under a legend reading AURC 0.16.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.cbook import STEP_LOOKUP_MAP

import veracity as vc


def _drawn(line):
    """The polyline matplotlib draws for a (possibly stepped) Line2D."""
    x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    sx, sy = STEP_LOOKUP_MAP[line.get_drawstyle()](x, y)
    return np.asarray(sx, float), np.asarray(sy, float)


def _value_at(sx, sy, c):
    """The drawn curve's value at coverage c strictly inside one horizontal segment."""
    for k in range(len(sx) - 1):
        if sx[k] < c < sx[k + 1] and sy[k] == sy[k + 1]:
            return sy[k]
    raise AssertionError(f"no horizontal segment over coverage {c}")


def _line(fig):
    (line,) = [a for a in fig.axes[0].get_lines() if a.get_gid() == "risk_coverage"]
    return line


@pytest.mark.parametrize(("p", "y"), [
    ([0.1, 0.4, 0.6, 0.9, 0.3], [0, 1, 0, 1, 0]),           # errors only in the last, tied group
    ([0.9, 0.9, 0.8, 0.8, 0.3, 0.7, 0.2, 0.6], [1, 0, 1, 1, 1, 0, 0, 1]),
])
def test_drawn_area_is_the_aurc_and_each_group_its_risk(p, y):
    rc = vc.risk_coverage(p, y)
    sx, sy = _drawn(_line(vc.plot_risk_coverage(p, y)))
    area = float(np.sum(np.diff(sx) * sy[:-1] * (sy[:-1] == sy[1:])))  # horizontal segments only
    assert area == pytest.approx(rc.aurc)
    lo = np.concatenate(([0.0], rc.coverage[:-1]))
    for a, b, r in zip(lo, rc.coverage, rc.risk):
        assert _value_at(sx, sy, (a + b) / 2) == pytest.approx(r)


def test_tiny_example_reads_its_last_group():
    p, y = [0.1, 0.4, 0.6, 0.9, 0.3], [0, 1, 0, 1, 0]
    sx, sy = _drawn(_line(vc.risk_coverage(p, y).plot()))
    assert _value_at(sx, sy, 0.8) == pytest.approx(0.4)  # the two rows at confidence 0.6 are both wrong
    assert _value_at(sx, sy, 0.3) == pytest.approx(0.0)
