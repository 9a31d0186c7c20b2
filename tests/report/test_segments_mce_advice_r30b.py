"""The segments card advises "recalibrate first" only for an MCE beyond noise (helper r30b).

On 60 demo rows the MCE (1.91 sigma, p = 0.165 in 199 draws under calibration) was set by all rows and the
card said "the miscalibration is global (recalibrate first)": a recommendation no number supported."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import veracity as vc

from .conftest import section


def _card(shift: float, seed: int) -> str:
    rng = np.random.default_rng(seed)
    n = 400
    p = rng.uniform(0.1, 0.6, n)
    y = (rng.random(n) < np.clip(p + shift, 0, 1)).astype(int)
    # 20 levels of about 20 rows, all pooled into one segment "other" (under min_count 50): all rows set
    # the MCE
    frame = pd.DataFrame({"p": p, "y": y, "level": rng.integers(0, 20, n).astype(str)})
    page = vc.report(frame, score="p", label="y", features=["level"], bootstrap=False, figures=False).html
    return re.sub(r"<[^>]+>", "", section(page, "segments"))


def test_calibrated_rows_get_no_recalibration_advice() -> None:
    cards = [_card(0.0, seed) for seed in range(6)]
    for text in cards:
        m = re.search(r"\(p (?:=|<=) ([\d.]+) in 199 draws", text)
        assert m, text
        if float(m.group(1)) > 0.05:
            assert "recalibrate first" not in text and "set by all rows, within noise (p = " in text, text
    assert sum("within noise" in t for t in cards) >= 4  # calibrated: the MCE is within noise nearly always


def test_a_global_shift_still_gets_the_advice() -> None:
    text = _card(0.15, 0)
    assert "set by all rows: the miscalibration is global (recalibrate first)" in text
