"""Each panel of the per-bin plot shows its bin's band and running estimate (round 20).

The panels were fixed at y in [-0.25, 0.25]: a bin that is off by 0.4 (scores near 0.9, outcomes at
half that rate) had its band and estimate wholly outside the axes — an empty panel with an alarm line,
the evidence for the alarm invisible."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

import veracity as vc  # noqa: E402


def test_every_panel_holds_its_last_bounds_and_estimate() -> None:
    rng = np.random.default_rng(0)
    n = 6000
    p = rng.uniform(0, 1, n)
    truth = np.where(p >= 0.8, 0.5, p)  # the top bin is 0.4 too confident
    y = (rng.random(n) < truth).astype(int)
    b = vc.binned_sequences(p, y, bins=5, batches=np.arange(n) // 60)
    fig = b.plot()
    for ax, cs in zip(fig.axes, b.sequences):
        lo, hi = ax.get_ylim()
        assert lo <= cs.low[-1] and cs.high[-1] <= hi, (ax.get_title(), (lo, hi), cs.low[-1], cs.high[-1])
        assert lo <= cs.estimate[-1] <= hi
    top = b.sequences[-1]
    assert top.alarm_at is not None and top.high[-1] < -0.25  # the case the fixed [-0.25, 0.25] hid
