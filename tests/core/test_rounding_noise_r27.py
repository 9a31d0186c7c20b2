"""Printouts and decisions that took the last bit of a sum for information (session 27, second pass).

Commit 5724203 gave the audit ``added_term`` (a term that rounds to 0 prints with the formula's sign),
``fmt_weight`` (a weight sum read at 12 significant digits: 100 weights of 0.1 print 10, whatever the
last bit) and ``enough_effective`` (an effective-size threshold allowing for the sums' rounding). Before,
elsewhere:

* the HTML report's Brier card printed "− within-bin 0.0000" where the noise of a zero term came out
  below zero, and ``BrierDecomposition``'s text "- 2 x within-bin covariance -0.0000";
* the threshold table, the risk–coverage curve, the segments summary and the monitor printed a weight
  sum of 100 rows weighing 0.1 as "10.0" (9.999999999999998) where a whole sum prints "10";
* ``vc.ppi_mean`` on 50 labels weighing 0.1 each noted "only 50.0 effective labels … below about 50"
  (Kish size computed 49.99999999999997), a note the same 50 labels without weights do not get;
* the calibration ledger judged weights 1, 4, 9 (Kish size 2) and found weights 0.47, 1.88, 4.23 (the
  same, scaled: Kish size 2, computed 1.9999999999999993) "too few rows".
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc


def _one_score_per_bin(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Scores on ten values, one per uniform bin: the within-bin term is 0, computed ±1e-17."""
    values = np.round(np.linspace(0.05, 0.95, 10), 2)
    rng = np.random.default_rng(seed)
    p = rng.choice(values, size=300)
    return p, (rng.uniform(size=300) < p).astype(int)


def _noise_signs() -> dict[bool, list[int]]:
    """Seeds whose zero within-bin term came out below zero (True) and at or above it (False)."""
    out: dict[bool, list[int]] = {True: [], False: []}
    for seed in range(60):
        d = vc.audit(*_one_score_per_bin(seed), bins=10).decomposition
        out[bool(d.within_variance - 2 * d.within_covariance < 0)].append(seed)
    return out


# -- 1. the HTML report's Brier card ---------------------------------------------------------------------

def test_the_report_card_prints_a_zero_within_bin_term_with_the_formulas_sign():
    from veracity.reporting._sections import _summary

    signs = _noise_signs()
    assert signs[True] and signs[False]  # the noise took both signs: the case that failed is seen
    for seed in signs[True][:5] + signs[False][:5]:
        result = vc.audit(*_one_score_per_bin(seed), bins=10)
        card = re.search(r'data-metric="brier">(.*?)</div></div>', _summary(result, "binary"))
        assert card is not None
        assert "+ within-bin 0.0000" in card.group(1) and "− within-bin" not in card.group(1), seed


def test_the_report_card_keeps_a_real_negative_within_bin_term():
    from veracity.reporting._sections import _within_term

    assert _within_term(-0.00012) == "− within-bin 0.0001"
    assert _within_term(-0.00004) == "+ within-bin 0.0000"
    assert _within_term(0.0031) == "+ within-bin 0.0031"


# -- 2. BrierDecomposition's own text --------------------------------------------------------------------

def test_the_decomposition_never_prints_a_signed_zero():
    seen = set()
    for seed in range(60):
        d = vc.audit(*_one_score_per_bin(seed), bins=10).decomposition
        seen.add(d.within_covariance < 0)
        assert "-0.0000" not in str(d), (seed, str(d))
        assert str(d).endswith("+ within-bin variance 0.0000 - 2 x within-bin covariance 0.0000")
    assert True in seen  # a covariance computed below zero was among them


def test_the_decomposition_keeps_a_real_negative_covariance():
    from veracity.core._formulas import BrierDecomposition

    d = BrierDecomposition(brier=0.2, reliability=0.01, resolution=0.02, uncertainty=0.21, refinement=0.19,
                           within_variance=0.003, within_covariance=-0.0012)
    assert str(d).endswith("+ within-bin variance 0.0030 - 2 x within-bin covariance -0.0012")


# -- 3. weight sums print as the decimal sum -------------------------------------------------------------

def _tenths(n: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p).astype(int), np.full(n, 0.1)


def _weight_text(rows: float) -> str:
    """A count of rows weighing 0.1 each as its exact decimal sum prints: whole, or one decimal."""
    return str(int(rows) // 10) if int(rows) % 10 == 0 else f"{rows / 10:.1f}"


def test_the_threshold_table_prints_weight_sums_as_decimals():
    p, y, w = _tenths()
    thresholds = [0.3, 0.5, 0.7]
    table = vc.threshold_table(p, y, thresholds, sample_weight=w)
    plain = vc.threshold_table(p, y, thresholds)
    lines = str(table).splitlines()
    for line, r in zip(lines[1:1 + len(thresholds)], plain.rows):
        cells = line.split()
        assert cells[1:5] == [_weight_text(c) for c in (r.tp, r.fp, r.fn, r.tn)], line
        assert cells[8] == _weight_text(r.alerts)
    assert lines[-1].startswith(f"({_weight_text(len(p))} weight, {_weight_text(int(y.sum()))} positive;")
    assert str(plain).splitlines()[-1].startswith(f"({len(p)} rows, {int(y.sum())} positive;")  # counts


def test_the_risk_coverage_curve_prints_weight_sums_as_decimals():
    p, y, w = _tenths()
    curve = vc.risk_coverage(p, y, sample_weight=w)
    plain = vc.risk_coverage(p, y)
    got = [line.split()[3:5] for line in str(curve).splitlines()[1:-1]]
    rows = [line.split()[3:5] for line in str(plain).splitlines()[1:-1]]
    assert got == [[_weight_text(int(a)), _weight_text(int(e))] for a, e in rows]
    assert f"({_weight_text(len(p))} weight," in str(curve)
    assert f"({len(p)} rows," in str(plain)


def test_the_segments_summary_prints_the_weight_sum_as_a_decimal():
    p, y, w = _tenths(600, seed=3)
    g = np.random.default_rng(4).choice(["a", "b"], size=p.size)
    got = vc.segments(p, y, features={"g": g}, sample_weight=w)
    assert got.weight != p.size / 10  # 60.00000000000005: the decimal sum is 60
    assert got._summary_items()["rows"] == f"{p.size:,} (weight {_weight_text(p.size)})"
    assert f"{p.size:,} (weight {_weight_text(p.size)})" in got._repr_html_()  # the notebook's summary


def test_the_monitor_prints_a_weight_sum_read_at_twelve_digits_and_counts_as_they_are():
    from veracity.monitoring._monitor import MonitorResult, MonitorRow

    def row(period: str, n: float) -> MonitorRow:
        return MonitorRow(period=period, n=n, pending=0, base_rate=0.5, conf=0.9, gap=0.4, ci_low=0.4,
                          ci_high=0.6, ece=0.4, brier=0.3, nll=0.9, status="alert")

    weight = float(np.full(100, 0.1).sum())  # 9.99999999999998: the decimal sum is 10
    assert weight != 10.0
    result = MonitorResult(rows=(row("2024-01", weight), row("2024-02", 123456789012345.0)), min_count=1)
    assert "(10 labelled rows)" in str(result.alerts[0])
    assert "(123456789012345 labelled rows)" in str(result.alerts[1])  # a whole count: every digit


# -- 4. effective-size thresholds allow for the sums' rounding --------------------------------------------

def _ppi_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    p = rng.uniform(0.2, 0.8, size=50)
    return (rng.uniform(size=50) < p).astype(int), p, rng.uniform(0.2, 0.8, size=500)


@pytest.mark.parametrize("weight", [0.1, 0.3, 0.7, 1.1, 1 / 3])
def test_fifty_equally_weighted_labels_are_fifty_labels(weight):
    y, f, g = _ppi_inputs()
    plain = vc.ppi_mean(y, f, g, sample_check="off")
    got = vc.ppi_mean(y, f, g, sample_check="off", sample_weight=np.full(y.size, weight),
                      sample_weight_unlabelled=np.full(g.size, weight))
    assert got.notes == plain.notes
    assert not any("effective labels" in note for note in got.notes)


def test_the_few_labels_note_still_names_a_real_shortfall():
    from veracity.delayed._ppi_result import few_labels_note

    w = np.full(50, 0.1)
    assert few_labels_note(50, 1.0, float(w.sum() ** 2 / (w @ w))) is None  # computed 49.99999999999997
    assert "49.0 effective labels" in str(few_labels_note(50, 1.0, 49.0))
    assert "49.9 effective labels" in str(few_labels_note(200, 1.0, 49.9))


def _ledger(weights: np.ndarray) -> object:
    rng = np.random.default_rng(0)
    p = rng.beta(2, 5, 300)
    cal = vc.PlattScaling().fit(p, (rng.random(300) < np.clip(p * 1.4, 0, 1)).astype(int))
    return vc.compare(np.array([0.2, 0.6, 0.8]), np.array([0, 1, 1]), cal, sample_weight=weights)


def test_the_ledger_judges_scaled_weights_as_the_weights_themselves():
    from veracity.calibrators._ledger import _effective_rows
    from veracity.core._validation import prepare_binary

    whole, scaled = np.array([1.0, 4.0, 9.0]), np.array([0.47, 1.88, 4.23])  # Kish size (14² / 98) = 2
    assert _effective_rows(prepare_binary(np.array([0.2, 0.6, 0.8]), np.array([0, 1, 1]),
                                          sample_weight=scaled)) < 2.0  # the case that failed
    a, b = _ledger(whole), _ledger(scaled)
    verdicts = [r.verdict for r in a.rows]  # type: ignore[attr-defined]
    assert "n/a (too few rows)" not in verdicts
    assert [r.verdict for r in b.rows] == verdicts  # type: ignore[attr-defined]
    # a real shortfall still gives no verdict: one row carrying nearly all the weight
    few = _ledger(np.array([1e-9, 1e-9, 1.0]))
    assert "n/a (too few rows)" in [r.verdict for r in few.rows]  # type: ignore[attr-defined]



def test_the_report_reads_weight_sums_at_twelve_digits_and_counts_as_they_are():
    from veracity.reporting._sections import _count

    tenths = np.full(100, 0.1)
    assert float(tenths.sum()) != 10.0 and float(np.cumsum(tenths)[-1]) != 10.0  # these printed "10.0"
    assert _count(float(tenths.sum())) == _count(float(np.cumsum(tenths)[-1])) == _count(10.0) == "10"
    assert _count(float(np.full(105, 0.1).sum())) == "10.5"
    assert _count(123456789012345.0) == "123,456,789,012,345"  # a whole count: every digit
    assert _count(1234.5) == "1,234.5"
