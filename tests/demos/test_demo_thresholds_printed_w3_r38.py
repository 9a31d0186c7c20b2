"""Round 38 (w3): the demos printed thresholds that were not the ones measured. ``veracity demo audit``
printed the 90 %-recall threshold as 0.134650016672544 in its table (4-digit rows around it) and as
"0.1347" in the line above it, which flags one calib positive fewer; ``veracity demo splits`` printed
"0.1466" for 0.146577…, whose calib row said 93 defects caught where 0.1466 catches 92. Each read-off
threshold is now rounded down to the 4 decimals the rows print: the printed t is the one measured, and it
flags every row the exact calib score flags."""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc
from veracity.demos import audit, splits


def test_rounded_down_is_at_or_below_and_within_one_step():
    from veracity.demos._rounding import rounded_down

    rng = np.random.default_rng(38)
    for t in np.r_[rng.random(2000), 0.1346, 0.13459999999999999, 0.2, 0.5, 1.0, 0.0]:
        low = rounded_down(float(t))
        assert low <= t and t - low < 1e-4 + 1e-12 and float(f"{low:.4f}") == low, (t, low)


@pytest.fixture(scope="module")
def demo() -> audit.AuditDemo:
    return audit.run()


def test_audit_demo_prints_the_recall_threshold_it_measures_in_4_decimals(demo):
    rows = demo.text.split("[4] decide")[1].splitlines()
    table = [line.split()[0] for line in rows if re.match(r"^    \d", line)]
    # the three lines naming the thresholds, then the table's three threshold cells: 4 decimals each
    assert all(re.fullmatch(r"\d\.\d{4}", cell) for cell in table), table
    for cell, t in zip(table[-3:], demo.table.threshold):
        assert float(cell) == t  # the cell names the threshold measured
    d = vc.load_demo()
    calib = d["role"] == "calib"
    exact = vc.recall_threshold(demo.calibrator.transform(d["logit"][calib]), d["label"][calib], target=0.9)
    t = list(demo.thresholds.values())[1]
    assert t <= exact < t + 1e-4
    p = demo.calibrator.transform(d["logit"][calib])
    assert int((p >= t).sum()) == int((p >= exact).sum())  # the same calib rows flagged


def test_splits_demo_prints_the_thresholds_it_measures():
    demo = splits.run()
    for name, t in demo.thresholds.items():
        assert float(f"{t:.4f}") == t, (name, t)  # the "t" column names the threshold measured
    calib = demo.tables["calib"]
    assert calib.recall[1] >= 0.95 and calib.recall[1] >= calib.recall[0]
