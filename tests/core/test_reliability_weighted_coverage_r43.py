"""The reliability table's per-bin interval covers its level when weights depend on the label (session 43).

Before, each bin's interval (Wilson or Clopper–Pearson) was taken at Kish's effective size (Σw)²/Σw², which
assumes weights unrelated to the outcome. With class weights (positives weighing 9 times the negatives, a bin
of weighted rate 0.32) it covered 0.83 at 400 rows and 0.86-0.88 at 2,000 (nominal 0.95). Now, with uneven
weights in a bin, the size is the smallest of Kish's, the observed (sandwich) size r(1 − r)W²/Σw²(y − r)²
and calibration's c(1 − c)W²/Σw²p(1 − p) (:func:`veracity.core._weights.honest_size`, ``vc.segments``' rule),
from the per-bin sums Σw²y and Σw²p(1 − p) every route now keeps; bins whose rows weigh alike keep Kish's
size (= n) bit for bit.

Each case draws R replicate label sets over one fixed set of rows (scores and true probabilities π), so the
target — the weighted rate the bin's frequency estimates, Σ E[wy] / Σ E[w] — is known. The replicates are
vectorised: replicate i's sums are bin i of one hand-built :class:`BinStats`, whose table is the code's own
(one replicate is checked against ``vc.reliability`` on its rows). R = 2,000: Monte-Carlo standard error of a
95 % coverage 0.0049, the bar 0.93 four of them below. Measured (two-sided Wilson): class weights 0.955 (400
rows) and 0.959 (2,000) now, 0.835 and 0.879 on Kish's size alone; Clopper–Pearson 0.966 and 0.964 (Kish
0.855, 0.879); one-sided 0.944-0.962 (Kish 0.888-0.915); a score-dependent design (5 % of the rows, scored
near 0.5, weighing 20) 0.973 and 0.979 (Kish 0.943, 0.929); equal weights 0.959 and 0.973, the same
intervals as before.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.core._intervals import binomial_interval
from veracity.core._reliability import ReliabilityTable
from veracity.core._stats import BinStats

REPS = 2_000


def _design(design: str, n: int, seed: int = 1):
    """``(p, pi, weights_of_labels, target)``: scores, true probabilities, the weights as a function of the
    (R, n) labels, and the weighted rate the bin's frequency estimates."""
    rng = np.random.default_rng(seed)
    if design == "class":  # calibrated scores near 0.05; positives weigh 9: weighted rate ~0.32
        p = rng.uniform(0.02, 0.08, n)
        return p, p, (lambda Y: 1.0 + 8.0 * Y), float((9.0 * p).sum() / (1.0 + 8.0 * p).sum())
    if design == "score":  # 5 % of the rows scored near 0.5 weigh 20, the others near 0.01 weigh 1
        heavy = rng.uniform(size=n) < 0.05
        p = np.where(heavy, rng.uniform(0.4, 0.6, n), rng.uniform(0.005, 0.015, n))
        w = np.where(heavy, 20.0, 1.0)
        return p, p, (lambda Y: np.broadcast_to(w, Y.shape)), float(w @ p / w.sum())
    p = rng.uniform(0.02, 0.5, n)  # equal weights
    return p, p, (lambda Y: np.full(Y.shape, 2.5)), float(p.mean())


def _replicates(design: str, n: int, *, squares: bool = True, reps: int = REPS):
    """One :class:`BinStats` whose bin i holds replicate i's sums, the replicates' labels and weights, the
    rows' scores and the target."""
    p, pi, weights_of, target = _design(design, n)
    Y = (np.random.default_rng(2).uniform(size=(reps, n)) < pi).astype(np.float64)
    W = weights_of(Y)
    W2 = W * W
    sums = dict(count=np.full(reps, n, np.int64), weight=W.sum(axis=1), weight_sq=W2.sum(axis=1), sum_p=W @ p,
                sum_y=(W * Y).sum(axis=1))
    if squares:
        sums.update(sum_w2y=(W2 * Y).sum(axis=1), sum_w2pq=W2 @ (p * (1.0 - p)))
    return BinStats(np.linspace(0.0, 1.0, reps + 1), "uniform", **sums), Y, W, p, target


def _coverage(design: str, n: int, *, ci: str = "wilson", sided: str = "two-sided",
              squares: bool = True) -> float:
    stats, _, _, _, target = _replicates(design, n, squares=squares)
    table = ReliabilityTable.from_stats(stats, ci=ci, sided=sided)
    assert len(table.rows) == REPS
    lo = np.array([r.ci_low for r in table.rows])
    hi = np.array([r.ci_high for r in table.rows])
    return float(np.mean((lo <= target) & (target <= hi)))


@pytest.mark.parametrize("ci", ["wilson", "clopper-pearson"])
@pytest.mark.parametrize("n", [400, 2_000])
def test_class_weights_cover(n, ci):
    """Positives weighing 9 times the negatives: 0.95-0.97 now. The simulation can fail: statistics without
    Σw²y, Σw²p(1 − p) (saved before them) keep Kish's size, which covers the same bins 0.83-0.88."""
    assert _coverage("class", n, ci=ci) >= 0.93
    assert _coverage("class", n, ci=ci, squares=False) < 0.90


@pytest.mark.parametrize("sided", ["lower", "upper"])
@pytest.mark.parametrize("n", [400, 2_000])
def test_class_weights_cover_one_sided(n, sided):
    """The one-sided bounds read the same size: 0.94-0.96 (Kish's: 0.89-0.91)."""
    assert _coverage("class", n, sided=sided) >= 0.93


@pytest.mark.parametrize("n", [400, 2_000])
def test_score_dependent_weights_cover(n):
    """Heavier rows scored (and turning out) more often positive: 0.97-0.98 (Kish's: 0.93-0.94)."""
    assert _coverage("score", n) >= 0.93


@pytest.mark.parametrize("n", [400, 2_000])
def test_equal_weights_keep_kish_bit_for_bit(n):
    """Equal weights: the sums change nothing (Kish's size is n there), and Wilson covers 0.96-0.97."""
    new, *_ = _replicates("equal", n)
    old, *_ = _replicates("equal", n, squares=False)
    a = ReliabilityTable.from_stats(new)
    b = ReliabilityTable.from_stats(old)
    assert [(r.ci_low, r.ci_high) for r in a.rows] == [(r.ci_low, r.ci_high) for r in b.rows]
    assert _coverage("equal", n) >= 0.93


def test_the_replicates_are_the_functions_bins():
    """A replicate's hand-built sums are ``vc.reliability``'s on its rows (one bin): the same sums and
    interval."""
    stats, Y, W, p, _ = _replicates("class", 400, reps=3)
    for i in range(3):
        t = vc.reliability(p, Y[i], sample_weight=W[i], bins=1)
        one = slice(i, i + 1)
        mine = ReliabilityTable.from_stats(BinStats(
            np.array([0.0, 1.0]), "uniform", stats.count[one], stats.weight[one], stats.weight_sq[one],
            stats.sum_p[one], stats.sum_y[one], sum_w2y=stats.sum_w2y[one], sum_w2pq=stats.sum_w2pq[one]))
        for name in ("weight", "weight_sq", "sum_p", "sum_y", "sum_w2y", "sum_w2pq"):
            np.testing.assert_allclose(getattr(t.stats, name), getattr(mine.stats, name), rtol=1e-13,
                                       err_msg=name)
        np.testing.assert_allclose([t.rows[0].ci_low, t.rows[0].ci_high],
                                   [mine.rows[0].ci_low, mine.rows[0].ci_high], rtol=0, atol=1e-12)


def _class_rows(n: int = 3_000, seed: int = 3):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.0, 1.0, n) ** 3
    y = (rng.uniform(size=n) < p).astype(np.int64)
    return p, y, np.where(y == 1, 9.0, 1.0)


def test_the_table_reads_the_honest_size_in_every_bin():
    """Per bin, Wilson (two- and one-sided) and Clopper–Pearson at the smallest of the three sizes; the
    interval is wider than Kish's where the weights follow the label, and ``sufficient`` still reads Kish's
    size."""
    from veracity.core._weights import honest_size

    p, y, w = _class_rows()
    for ci, sided in [("wilson", "two-sided"), ("clopper-pearson", "two-sided"), ("wilson", "lower"),
                      ("clopper-pearson", "upper")]:
        t = vc.reliability(p, y, sample_weight=w, bins=10, interval=ci, sided=sided)
        s = t.stats
        even = (s.sum_y == 0) | (s.sum_y == s.weight)  # a bin of one class: its rows weigh alike
        honest = honest_size(s.weight, s.weight_sq, s.sum_y, s.sum_w2y, s.sum_p, s.sum_w2pq)
        size = np.where(even, s.effective_count, honest)
        lo, hi = binomial_interval(s.sum_y / s.weight * size, size, method=ci, sided=sided)
        np.testing.assert_allclose([r.ci_low for r in t.rows], lo, rtol=0, atol=1e-15)
        np.testing.assert_allclose([r.ci_high for r in t.rows], hi, rtol=0, atol=1e-15)
        assert [r.sufficient for r in t.rows] == list(s.effective_count >= 20)
    kish_lo, kish_hi = binomial_interval(s.sum_y / s.weight * s.effective_count, s.effective_count)
    t = vc.reliability(p, y, sample_weight=w, bins=10)
    widths = np.array([r.ci_high - r.ci_low for r in t.rows])
    assert np.all(widths >= kish_hi - kish_lo)  # never narrower than Kish's
    # the lowest bin (weighted rate 0.2: the heavy positives are the rare rows) much wider
    assert 0.1 < t.rows[0].acc < 0.3 and widths[0] > 1.5 * (kish_hi - kish_lo)[0]


@pytest.mark.parametrize("weight", [0.1, 2.5])
def test_equal_weights_keep_the_kish_interval(weight):
    """One constant weight: Kish's interval, bit for bit, as before (its size n up to rounding); unweighted
    statistics carry no new sums."""
    p, y, _ = _class_rows()
    same = vc.reliability(p, y, sample_weight=np.full(p.size, weight), bins=10)
    s = same.stats
    assert s.sum_w2y is not None
    lo, hi = binomial_interval(s.sum_y / s.weight * s.effective_count, s.effective_count)
    np.testing.assert_array_equal([r.ci_low for r in same.rows], lo)
    np.testing.assert_array_equal([r.ci_high for r in same.rows], hi)
    plain = vc.reliability(p, y, bins=10)
    np.testing.assert_allclose([r.ci_low for r in same.rows], [r.ci_low for r in plain.rows], rtol=1e-12)
    assert plain.stats.sum_w2y is None and plain.stats.sum_w2pq is None
    assert vc.audit(p, y, bins=10).table.stats.sum_w2y is None


def test_old_dicts_still_load_and_fall_back_to_kish():
    """A dict saved before Σw²y, Σw²p(1 − p) existed loads (Kish's interval, as then); a new dict round-trips
    the new interval, and merging parts (or a part without rows, as a file scan starts) keeps the sums."""
    p, y, w = _class_rows()
    stats = vc.BinStats.from_arrays(p, y, edges=np.linspace(0, 1, 11), sample_weight=w)
    new = ReliabilityTable.from_stats(stats)
    again = ReliabilityTable.from_stats(vc.BinStats.from_dict(stats.to_dict()))
    assert [(r.ci_low, r.ci_high) for r in again.rows] == [(r.ci_low, r.ci_high) for r in new.rows]
    older = {k: v for k, v in stats.to_dict().items() if k not in ("sum_w2y", "sum_w2pq")}
    loaded = vc.BinStats.from_dict(older)
    assert loaded.sum_w2y is None and loaded.sum_w2pq is None
    old = ReliabilityTable.from_stats(loaded)
    n_eff = stats.effective_count
    lo, hi = binomial_interval(stats.sum_y / stats.weight * n_eff, n_eff)
    np.testing.assert_array_equal([r.ci_low for r in old.rows], lo)
    np.testing.assert_array_equal([r.ci_high for r in old.rows], hi)
    assert any(a.ci_low != b.ci_low for a, b in zip(old.rows, new.rows))
    half = p.size // 2
    parts = [vc.BinStats.from_arrays(p[s], y[s], edges=np.linspace(0, 1, 11), sample_weight=w[s])
             for s in (slice(None, half), slice(half, None))]
    empty = BinStats(stats.edges, "uniform", np.zeros(10, np.int64), *[np.zeros(10)] * 4)
    merged = empty + parts[0] + parts[1]
    np.testing.assert_allclose(merged.sum_w2y, stats.sum_w2y, rtol=1e-13)
    np.testing.assert_allclose(merged.sum_w2pq, stats.sum_w2pq, rtol=1e-13)
    unweighted = vc.BinStats.from_arrays(p, y, edges=np.linspace(0, 1, 11))
    assert (unweighted + parts[0]).sum_w2y is None  # Σw²y of rows without weights is not kept: Kish's size
