"""The confidence-sequence figure draws the bounds past an alarm faint and says so: there the gap has
moved, and the running intersection (valid for a gap that stayed fixed) may sit far from the running
mean — drawn like the rest it read as a tight interval that excluded the estimate."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

import veracity as vc  # noqa: E402


def test_the_band_past_the_alarm_is_faint_and_named() -> None:
    rng = np.random.default_rng(0)
    n = 2000
    p = rng.beta(2, 5, n)
    y = (rng.uniform(size=n) < np.clip(p + np.where(np.arange(n) > 1000, 0.15, 0.0), 0, 1)).astype(int)
    cs = vc.confidence_sequence(p, y)
    assert cs.alarm_at is not None
    ax = cs.plot().axes[0]
    full = next(c for c in ax.collections if c.get_gid() == "band")
    before = next(c for c in ax.collections if c.get_gid() == "band_to_alarm")
    assert full.get_alpha() < before.get_alpha()
    assert before.get_paths()[0].vertices[:, 0].max() <= cs.alarm_at + 1
    labels = ax.get_legend_handles_labels()[1]
    assert any("after the alarm" in t for t in labels) and any("fixed gap" in t for t in labels)


def test_without_an_alarm_one_band() -> None:
    rng = np.random.default_rng(1)
    p = rng.beta(2, 5, 800)
    cs = vc.confidence_sequence(p, (rng.uniform(size=800) < p).astype(int))
    assert cs.alarm_at is None
    gids = [c.get_gid() for c in cs.plot().axes[0].collections]
    assert gids.count("band") == 1 and "band_to_alarm" not in gids
