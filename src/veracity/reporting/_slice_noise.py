r"""Each ``--by`` slice's ECE against its own noise floor, for the report's slices table.

A slice's plug-in ECE is biased upward by noise, and the more so the fewer its rows: a slice of 40
calibrated rows reads an ECE of 0.1 or more by noise alone, and a table that scaled its bars to the
largest ECE drew such a slice as the worst. Each slice gets the library's noise floor
(:func:`veracity.honest._noise_floor.noise_floor_of`: its labels redrawn :math:`R` times as
:math:`y^* \sim \mathrm{Bernoulli}(p)`, the whole's bin edges, seed 0), so its Monte-Carlo p-value

.. math:: p_k = \frac{1 + \#\{r:\ \mathrm{ECE}_k(p, y^{*(r)}) \ge \mathrm{ECE}_k(p, y)\}}{R + 1},

and the :math:`K` slices' p-values get Benjamini–Hochberg q-values
(:func:`veracity.segments._tests.bh_qvalues`): :math:`q_{(i)} = \min_{j \ge i} p_{(j)} K / j`. A slice is
*above noise* where :math:`q_k \le \alpha = 1 -` ``level``. The slices hold disjoint rows, so their
p-values are independent and the false-discovery rate is at most :math:`\alpha`; on calibrated data
every flag is false, so the chance that any slice is flagged is at most :math:`\alpha` as well
(tests/report/test_noise_r31.py simulates both that and the power for one slice off by a planted gap).

The smallest p-value is :math:`1/(R + 1)`, so one slice off among :math:`K` can be flagged only when
:math:`K / (R + 1) \le \alpha` (:func:`SliceFloors.too_few_redraws` says so on the page).

The slices are those of :func:`veracity.audit`'s ``by=`` (its keys named and pooled by the same
helpers); a slice whose rows do not match the audit's (its count) gets no floor rather than another's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._validation import Binary


@dataclass(frozen=True)
class SliceFloor:
    """One slice's ECE, its noise floor (mean ECE of the redraws), p-value and BH q-value."""

    ece: float
    expected: float
    p_value: float
    q_value: float
    above: bool  # q_value <= alpha

    @property
    def excess(self) -> float:
        """The ECE above its noise floor (0 when below it)."""
        return max(0.0, self.ece - self.expected)


@dataclass(frozen=True)
class SliceFloors:
    """The slices' floors by slice name, the level ``alpha`` of the flags and the redraws ``n_resamples``."""

    floors: dict[str, SliceFloor]
    alpha: float
    n_resamples: int

    def too_few_redraws(self) -> bool:
        """Whether one slice alone cannot reach :math:`q \\le \\alpha`: its smallest q-value is
        :math:`K / (R + 1) > \\alpha`."""
        return len(self.floors) / (self.n_resamples + 1.0) > self.alpha


def slice_floors(data: Binary, by: Any, groups: dict[str, Any], *, edges: np.ndarray, strategy: str,
                 max_groups: int | None, n_resamples: int, alpha: float) -> SliceFloors:
    """The noise floor of each slice in ``groups`` (an audit's: ``data`` split by ``by`` at ``max_groups``,
    binned by ``edges``), with its BH q-value over the slices and its flag at ``alpha``."""
    from ..core._audit import slice_rows
    from ..core._stats import subset
    from ..honest._noise_floor import noise_floor_of
    from ..segments._tests import bh_qvalues

    found: dict[str, Any] = {}
    for name, rows in slice_rows(by, data.n, max_groups):  # the audit's slices, named and pooled alike
        group = groups.get(name)
        if group is None or int(group.n) != rows.size:
            continue
        found[name] = noise_floor_of(subset(data, rows), strategy=strategy, n_redraws=n_resamples, seed=0,
                                     edges=edges)
    names = list(found)
    q = bh_qvalues(np.array([found[k].p_value for k in names], dtype=np.float64)) if names else np.empty(0)
    floors = {k: SliceFloor(found[k].ece, found[k].expected, found[k].p_value, float(qk), bool(qk <= alpha))
              for k, qk in zip(names, q)}
    return SliceFloors(floors, alpha, n_resamples)
