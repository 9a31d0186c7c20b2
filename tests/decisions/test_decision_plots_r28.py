"""Round 28: the decision figures, read by a risk modeller (0.5 % default rate, costs 1:100).

* ``threshold_table(s, y, [0.50001, 0.50004, 0.9]).plot()`` labelled its cheapest row
  ``lowest cost: t = 0.5``: a threshold none of the rows holds (0.5 flags other rows than 0.50001), and
  two thresholds of the grid print alike; the tables print the threshold with the digits that name it;
* a cheapest threshold of ``-inf`` (flag every row) was labelled ``t = -inf`` beside a line and a point
  drawn nowhere, with no word that it is off the axis;
* ``plot_thresholds(..., recall_threshold="a")`` raised numpy's ``could not convert string to float``,
  naming no option (not a VeracityError);
* on a rare event every curve turns in the first percent of the axis, which ``plot_thresholds`` fixed at
  [0, 1]: ``xlim=`` zooms it.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import veracity as vc

P = np.array([0.1, 0.4, 0.35, 0.8, 0.50002, 0.6])
Y = np.array([0, 0, 1, 1, 1, 0])


def _best_label(fig):
    (line,) = [ln for ln in fig.axes[0].lines if ln.get_gid() == "t_best"]
    return line.get_label()


def test_the_lowest_cost_label_names_the_threshold_it_is():
    table = vc.threshold_table(P, Y, [0.50001, 0.50004, 0.9], cost_fn=9)
    assert table.best().threshold == 0.50001  # flags 0.50002 (a positive) where 0.50004 does not
    assert _best_label(table.plot()) == "lowest cost: t = 0.50001, the lowest t tried"


def test_an_infinite_cheapest_threshold_is_said_to_be_off_the_axis():
    table = vc.threshold_table(P, Y, [-np.inf, 0.5], cost_fp=1, cost_fn=100)
    assert table.best().threshold == -np.inf  # flag every row: no miss at 100 each
    assert _best_label(table.plot()) == "lowest cost: t = -inf, every row flagged; off the axis"
    nothing = vc.threshold_table(P, Y, [np.inf, 0.3], cost_fp=100, cost_fn=1)
    assert nothing.best().threshold == np.inf
    assert "no row flagged; off the axis" in _best_label(nothing.plot())


@pytest.mark.parametrize("given", ["a", [0.2], True])
def test_a_recall_threshold_that_is_no_number_is_refused_in_one_line(given):
    with pytest.raises(vc.VeracityError, match="recall_threshold is drawn on the probability axis"):
        vc.plot_thresholds(P, Y, recall_threshold=given)


def test_xlim_zooms_the_threshold_axis_of_a_rare_event():
    rng = np.random.default_rng(0)
    p = 1.0 / (1.0 + np.exp(-rng.normal(-6.0, 1.5, 20_000)))  # default rate about 0.5 %
    y = (rng.random(20_000) < p).astype(int)
    fig = vc.plot_thresholds(p, y, cost_fp=1, cost_fn=100, xlim=(0, 0.05), target_recall=None)
    assert fig.axes[0].get_xlim() == (0.0, 0.05)
    (recall,) = [ln for ln in fig.axes[0].lines if ln.get_gid() == "recall"]
    x = np.asarray(recall.get_xdata())
    assert np.count_nonzero((x > 0) & (x < 0.05)) > 100  # steps where the scores lie, not one grid cell
    assert vc.plot_thresholds(p, y, target_recall=None).axes[0].get_xlim() == (0.0, 1.0)  # the default


@pytest.mark.parametrize("xlim", [(0.5, 0.1), (0, 2), (-1, 0.5), ("a", 1), (0.1,), 0.5])
def test_a_bad_xlim_is_refused_in_one_line(xlim):
    with pytest.raises(vc.VeracityError, match="xlim must be two thresholds"):
        vc.plot_thresholds(P, Y, xlim=xlim)
