"""The June cell of docs/notebooks/segments_delayed.ipynb says what the rectifier's interval rules out.

Before: "150 labels cannot rule out a gap of 0.05 either way" beside a rectifier of +0.028 [-0.035, +0.091],
which does rule out a gap of -0.05 (scores overstating the rate by 0.05): only the upper side reaches 0.05.
The rectifier is computed here as the notebook computes it (its code cell, on the bundled demo)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import veracity as vc

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "segments_delayed.ipynb"


def _rectifier() -> tuple[float, float]:
    d = vc.load_demo()
    june = d["month"] == "2026-06"
    calib = (d["role"] == "calib") & ~june
    platt = vc.PlattScaling().fit(d["score"][calib], d["label"][calib])
    rng = np.random.default_rng(0)
    q, june_y = platt.transform(d["score"][june]), d["label"][june]
    audit = rng.choice(q.size, 150, replace=False)
    rest = np.setdiff1d(np.arange(q.size), audit)
    res = vc.ppi_mean(june_y[audit], q[audit], q[rest])
    return float(res.rectifier_low), float(res.rectifier_high)


def test_the_caveat_claims_only_what_the_rectifier_interval_leaves_open() -> None:
    low, high = _rectifier()
    assert low > -0.05 and high > 0.05  # -0.05 is ruled out, +0.05 is not
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    text = next("".join(c["source"]) for c in cells
                if c["cell_type"] == "markdown" and "The rectifier," in "".join(c["source"]))
    assert f"[{low:+.3f}, {high:+.3f}]" in text
    assert "either way" not in text
    assert f"reaches {high:+.3f}" in text
    assert f"more than {abs(low):.3f} they do rule out" in text
