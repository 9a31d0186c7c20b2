"""Round 41: a rate with no denominator at any threshold is said in the legend of the operating curves.

``vc.plot_thresholds`` on rows without positives (a report on one month without fraud) listed "recall" in its
legend beside no line (recall is n/a at every t); without negatives, "false-alarm rate" likewise. The entry
now says ``recall (n/a: no positives)`` / ``false-alarm rate (n/a: no negatives)``; with both classes the
legend is as before.
"""

from __future__ import annotations

import numpy as np

import veracity as vc


def _labels(fig) -> list[str]:
    return fig.axes[0].get_legend_handles_labels()[1]


def test_no_positives_said() -> None:
    p = np.random.default_rng(0).uniform(0, 1, 200)
    fig = vc.plot_thresholds(p, np.zeros(200, int), target_recall=None)
    (line,) = [ln for ln in fig.axes[0].lines if ln.get_gid() == "recall"]
    assert not np.isfinite(np.asarray(line.get_ydata(), float)).any()  # drawn nowhere
    assert "recall (n/a: no positives)" in _labels(fig) and "false-alarm rate" in _labels(fig)


def test_no_negatives_said() -> None:
    p = np.random.default_rng(1).uniform(0, 1, 200)
    fig = vc.plot_thresholds(p, np.ones(200, int), target_recall=None)
    assert "false-alarm rate (n/a: no negatives)" in _labels(fig) and "recall" in _labels(fig)


def test_both_classes_unchanged() -> None:
    rng = np.random.default_rng(2)
    p = rng.uniform(0, 1, 300)
    fig = vc.plot_thresholds(p, (rng.random(300) < p).astype(int), target_recall=None)
    assert _labels(fig)[:3] == ["recall", "precision", "false-alarm rate"]
