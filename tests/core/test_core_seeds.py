"""The seeds' worked numbers (DESIGN.md §1), each test naming its seed."""

import math

import numpy as np
import pytest

import veracity as vc


def test_brier_seed_004_five_rows():
    # seed 004: squared errors .0576 .6724 .0361 .0081 .49, sum 1.2642, mean 0.25284
    p = [0.76, 0.82, 0.81, 0.91, 0.70]
    y = [1, 0, 1, 1, 0]
    assert vc.brier(p, y) == pytest.approx(1.2642 / 5, abs=1e-12)
    assert round(vc.brier(p, y), 5) == 0.25284


def test_one_bin_reliability_point_seed_004():
    # seed 004: one bin holding all five rows -> mean predicted 0.80, observed rate 0.60
    table = vc.reliability([0.76, 0.82, 0.81, 0.91, 0.70], [1, 0, 1, 1, 0], bins=1)
    (row,) = table.rows
    assert row.conf == pytest.approx(0.80, abs=1e-12)
    assert row.acc == pytest.approx(0.60, abs=1e-12)
    assert row.n == 5 and row.count == 5


@pytest.mark.parametrize("scores", [[0.2, 0.4, 0.6, 0.8], [0.01, 0.02, 0.98, 0.99]])
def test_auc_is_one_for_both_score_lists_seed_004(scores):
    assert vc.auc(scores, [0, 0, 1, 1]) == 1.0


def test_hand_ece_seed_000_from_per_bin_values():
    # seed 000 BEFORE table: counts 54/1/1/7 in bins 0,1,4,9 with the printed conf/acc;
    # ECE = 54/63*.0145 + 1/63*.1697 + 1/63*.5719 + 7/63*.0024 = 0.0245
    counts = np.zeros(10)
    conf = np.zeros(10)
    acc = np.zeros(10)
    for b, n, c, a in [(0, 54, 0.0040, 0.0185), (1, 1, 0.1697, 0.0), (4, 1, 0.4281, 1.0), (9, 7, 0.9976, 1.0)]:
        counts[b], conf[b], acc[b] = n, c, a
    stats = vc.BinStats(
        edges=np.linspace(0, 1, 11),
        strategy="uniform",
        count=counts.astype(np.int64),
        weight=counts,
        weight_sq=counts,
        sum_p=counts * conf,
        sum_y=counts * acc,
    )
    table = vc.ReliabilityTable.from_stats(stats)
    assert round(table.ece, 4) == 0.0245
    assert [r.index for r in table.rows] == [0, 1, 4, 9]
    assert table.empty_bins == (2, 3, 5, 6, 7, 8)
    assert "no rows in [0.2,0.4), [0.5,0.9) (6 empty bins omitted)" in str(table)  # ranges, not indices
    assert [round(r.gap, 4) for r in table.rows] == [0.0145, -0.1697, 0.5719, 0.0024]


def test_seven_of_seven_one_sided_lower_bound_seed_000():
    # seed 000: 7 of 7 correct certifies only p >= 0.05**(1/7) ~ 0.652 (one-sided 95 %)
    low, high = vc.binomial_interval(7, 7, method="clopper-pearson", level=0.95, sided="lower")
    assert float(low) == pytest.approx(0.05 ** (1 / 7), abs=1e-12)
    assert round(float(low), 3) == 0.652
    assert float(high) == 1.0
    # and the table reports the same bound for a 7-of-7 bin
    t = vc.reliability([0.99] * 7, [1] * 7, bins=10, interval="clopper-pearson", sided="lower")
    assert t.rows[0].ci_low == pytest.approx(0.05 ** (1 / 7), abs=1e-12)


def test_standard_error_of_54_point_bin_seed_000():
    # seed 000: acc 0.0185 on 54 points has standard error sqrt(.0185*.9815/54) ~ 0.018,
    # wider than the bin's +0.0145 gap; the 95 % Wilson interval therefore contains conf.
    p = np.full(54, 0.0040)
    y = np.zeros(54)
    y[0] = 1
    (row,) = vc.reliability(p, y, bins=10).rows
    assert math.sqrt(row.acc * (1 - row.acc) / row.n) == pytest.approx(0.018, abs=5e-4)
    assert row.ci_low < row.conf < row.ci_high


def test_bin_index_rule_seed_000():
    # index = min(floor(p*M), M-1): 1.0 falls in the last (closed) bin, 0.1 starts bin 1
    t = vc.reliability([0.0, 0.1, 0.3, 0.7, 1.0], [0, 0, 1, 1, 1], bins=10)
    assert [r.index for r in t.rows] == [0, 1, 3, 7, 9]
    labels = [line.split()[0] for line in str(t).splitlines()[1:6]]
    assert labels == ["[0.0,0.1)", "[0.1,0.2)", "[0.3,0.4)", "[0.7,0.8)", "[0.9,1.0]"]


def test_logit_temperature_free_nll_seed_000():
    # NLL from raw scores via softplus: NLL = mean softplus(-y± s)
    s = np.array([-16.9, 7.5, 0.3, -0.2])
    y = np.array([0, 1, 0, 1])
    expected = np.mean(np.logaddexp(0, -(2 * y - 1) * s))
    assert vc.nll(s, y, score_type="logit") == pytest.approx(expected, rel=1e-15)
