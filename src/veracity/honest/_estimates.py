"""Every ECE estimator side by side, as one audit section."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._honest import debiased_ece_from_stats
from ..core._formulas import ece_from_stats
from ..core._reliability import max_gaps
from ..core._stats import BinStats
from ..core._text import count_noun, fmt, render_table
from ..core._validation import Binary, prepare_binary
from ..core._binning import make_edges
from ..core._smooth import smooth_ece
from ..core._display import Display
from ._common import check_min_count, weighted_rows
from ..core._frameform import rows_form


@dataclass(frozen=True, repr=False)
class ECEEstimates(Display):
    """Plug-in ECE (L1, L2, max), debiased ECE (L1, L2) and smooth ECE with its bandwidth."""

    plugin_l1: float
    plugin_l2: float
    plugin_max: float
    debiased_l1: float
    debiased_l2: float
    smooth: float
    smooth_bandwidth: float
    bins: int
    strategy: str
    #: the plug-in max reads bins with at least this many rows (as vc.mce)
    min_count: int = 20

    def to_dict(self) -> dict[str, Any]:
        return {
            "plugin": {"l1": self.plugin_l1, "l2": self.plugin_l2, "max": self.plugin_max},
            "debiased": {"l1": self.debiased_l1, "l2": self.debiased_l2},
            "smooth": {"l1": self.smooth, "bandwidth": self.smooth_bandwidth},
            "bins": self.bins,
            "strategy": self.strategy,
            "min_count": self.min_count,
        }

    def _repr_html_(self) -> str:
        from ..core._display import html_note, html_page, html_table

        mx = f"max (bins n>={self.min_count})"
        rows = [{"estimator": "plugin", "L1": self.plugin_l1, "L2": self.plugin_l2, mx: self.plugin_max,
                 "": count_noun(self.bins, self.strategy + ' bin')},
                {"estimator": "debiased", "L1": self.debiased_l1, "L2": self.debiased_l2, mx: None,
                 "": "Kumar et al. 2019"},
                {"estimator": "smooth", "L1": self.smooth, "L2": None, mx: None,
                 "": f"bandwidth {self.smooth_bandwidth:.4f}, Blasiok & Nakkiran 2023"}]
        notes = [html_note("the plug-in max reads only bins with enough rows; "
                           "n/a: the estimator has no such norm")]
        if self.negative_note():
            notes.append(html_note(self.negative_note()))
        return html_page("ECE estimators", [html_table(rows), *notes], str(self))

    def __str__(self) -> str:
        binned = count_noun(self.bins, self.strategy + ' bin')
        rows = [
            ["plugin", fmt(self.plugin_l1), fmt(self.plugin_l2), fmt(self.plugin_max), binned],
            ["debiased", fmt(self.debiased_l1), fmt(self.debiased_l2), "", f"{binned}, Kumar et al. 2019"],
            ["smooth", fmt(self.smooth), "", "", f"bandwidth {self.smooth_bandwidth:.4f}, Blasiok & Nakkiran 2023"],
        ]
        header = ["estimator", "L1", "L2", f"max (bins n>={self.min_count})", ""]
        table = render_table(header, rows, align="lrrrl")
        note = self.negative_note()
        return "ECE estimators:\n" + table + (f"\n({note})" if note else "")

    def negative_note(self) -> str:
        """The note under a debiased L1 ECE below 0 ('' otherwise): no calibration error is negative."""
        if not self.debiased_l1 < 0.0:
            return ""
        return ("debiased L1 below 0: Kumar et al.'s bias correction can go below 0 when the bins' gaps are "
                "within their noise; read it as no detectable miscalibration, as no ECE is below 0")


def ece_estimates_of(data: Binary, edges: np.ndarray, strategy: str, min_count: int = 20) -> ECEEstimates:
    min_count = check_min_count(min_count)
    data = weighted_rows(data)
    stats = BinStats.from_binary(data, edges, strategy, full=False)
    value, width = smooth_ece(data.p, data.y, data.w)
    return ECEEstimates(
        plugin_l1=ece_from_stats(stats, "l1"),
        plugin_l2=ece_from_stats(stats, "l2"),
        plugin_max=max_gaps(stats, min_count)[0],
        debiased_l1=debiased_ece_from_stats(stats, "l1"),
        debiased_l2=debiased_ece_from_stats(stats, "l2"),
        smooth=value,
        smooth_bandwidth=width,
        bins=edges.size - 1,
        strategy=strategy,
        min_count=int(min_count),
    )


@rows_form
def ece_estimates(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int | str = 15,
    strategy: str = "uniform",
    score_type: str = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    min_count: int = 20,
) -> ECEEstimates:
    """Plug-in, debiased and smooth ECE of the same forecasts in one object.

    The plug-in max is the largest gap over bins with at least ``min_count`` rows (as
    :func:`veracity.mce`)."""
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return ece_estimates_of(data, make_edges(data.p, bins, strategy, data.w), strategy, min_count)
