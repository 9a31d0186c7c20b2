"""Session 41: the label-free (CBPE) interval of a window whose scores expect few events covers its
realised rate.

CBPE's interval was the normal one, mean score +- z sqrt(sum f(1 - f)) / M. Under calibration the window's
count of positives is Poisson-binomial, skewed where sum f is small: the normal interval covered the realised
rate 0.906 of the time at sum f = 0.5, 0.931 at 1 and 0.94 at 2 for a nominal 0.95 (exact coverage, by
convolution). Where fewer than 10 events (or non-events) are expected it is now the count interval the
monitoring store's label-free estimates use (core._count_interval.count_interval), divided by the rows — on
every route: vc.ppi_mean, vc.ppi_audit's rate row and bins, vc.delayed.ppi_records and a store's
estimate_cbpe. Elsewhere, and for weighted rows, the normal interval as before.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.delayed import PpiSums, ppi_records

Z = 1.959963984540054


def _count_pmf(p: np.ndarray) -> np.ndarray:
    """The Poisson-binomial law of the count of positives, by convolution (the exact oracle)."""
    pmf = np.array([1.0])
    for q in p:
        pmf = np.convolve(pmf, [1.0 - q, q])
    return pmf


def _coverage(p: np.ndarray, low: float, high: float) -> float:
    rate = np.arange(p.size + 1) / p.size
    return float(_count_pmf(p)[(rate >= low - 1e-12) & (rate <= high + 1e-12)].sum())


#: (rows, Beta a, b): sum f of 0.5, 1, 2 and 4.6 expected events, and 0.75 expected non-events (scores near 1)
DESIGNS = [(5_000, 0.2, 2_000), (5_000, 0.5, 2_500), (2_000, 0.5, 500), (300, 0.5, 30), (3_000, 2_000, 0.5)]


def test_cbpe_interval_covers_the_realised_rate_of_few_expected_events():
    rng = np.random.default_rng(19)
    normal_cover = []
    for rows, a, b in DESIGNS:
        f = rng.beta(a, b, rows)
        y = (rng.random(rows) < f).astype(int)
        assert min(f.sum(), rows - f.sum()) < 10
        r = vc.ppi_mean(y[:100], f[:100], f[100:], sample_check="off")
        assert _coverage(f, r.cbpe_low, r.cbpe_high) >= 0.95, (rows, a, b)
        assert r.cbpe_low <= r.cbpe <= r.cbpe_high
        half = Z * np.sqrt((f * (1 - f)).sum()) / rows
        normal_cover.append(_coverage(f, f.mean() - half, f.mean() + half))
        # every route gives the same interval
        rec = ppi_records(PpiSums.of(y[:100], f[:100], f[100:], None, None), sum_fff=float((f**3).sum()))[0]
        assert (rec["estimate_cbpe"]["ci_low"], rec["estimate_cbpe"]["ci_high"]) == pytest.approx(
            (r.cbpe_low, r.cbpe_high), abs=1e-15)
        row = vc.ppi_audit(y[:100], f[:100], f[100:], bins=1, sample_check="off").row("rate")
        assert (row["cbpe_low"], row["cbpe_high"]) == pytest.approx((r.cbpe_low, r.cbpe_high), abs=1e-15)
        [bin_row] = [x for x in vc.ppi_audit(y[:100], f[:100], f[100:], bins=1, sample_check="off").rows
                     if x["quantity"].startswith("rate in")]
        want = (r.cbpe_low, r.cbpe_high)
        assert (bin_row["cbpe_low"], bin_row["cbpe_high"]) == pytest.approx(want, abs=1e-15)
    # the normal interval's shortfall at 0.5 and 1 expected events
    assert normal_cover[0] < 0.92 and normal_cover[1] < 0.94, normal_cover


def test_normal_interval_kept_for_many_expected_events_count_at_few_weighted_or_not():
    rng = np.random.default_rng(3)
    f = rng.beta(2, 8, 3_000)
    y = (rng.random(f.size) < f).astype(int)
    r = vc.ppi_mean(y[:200], f[:200], f[200:])  # 600 expected events: the normal interval, as before
    assert r.cbpe_high - r.cbpe == pytest.approx(Z * np.sqrt((f * (1 - f)).sum()) / f.size, rel=1e-9)
    g = np.full(5_000, 1e-4)
    w = rng.uniform(0.5, 2.0, 100)
    rw = vc.ppi_mean(np.zeros(100, dtype=int), g[:100], g[100:], sample_weight=w)
    ru = vc.ppi_mean(np.zeros(100, dtype=int), g[:100], g[100:])  # 0.5 expected: at least 1 positive counts
    assert ru.cbpe_high >= 2 / g.size
    # weighted rows (session 44): the hull with the count interval at an effective size a little below the
    # 5,000 rows (tests/delayed/test_cbpe_weighted_r44.py), so two events count there too — the normal
    # interval kept before reached 3e-4 above the mean
    assert rw.cbpe_low == 0.0 and 2 / g.size <= rw.cbpe_high < 1.01 * ru.cbpe_high


def test_a_stores_estimate_cbpe_is_the_same_interval(tmp_path):
    pytest.importorskip("duckdb")
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(5)
    n = 3_000
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 5 * 86_400, n).astype("timedelta64[s]")
    f = rng.beta(0.5, 1_500, n)  # about 1 expected event in the window
    y = (rng.random(n) < f).astype(int)
    audit = rng.random(n) < 0.1
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": f}), id="id", time="ts", score="p")
    later = t[audit] + np.timedelta64(60, "s")
    store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": later}), id="id", label="y",
                   time="ts", audit_sample=True)
    row = store.status(freq="W", as_of="2026-03-09", horizon="30d").rows[0]
    ref = vc.ppi_mean(y[audit], f[audit], f[~audit], sample_check="off")
    e = row.estimate_cbpe
    assert (e["ci_low"], e["ci_high"]) == pytest.approx((ref.cbpe_low, ref.cbpe_high), abs=1e-12)
    assert _coverage(f, e["ci_low"], e["ci_high"]) >= 0.95
    count = np.array([e["ci_low"], e["ci_high"]]) * n  # the count interval's whole numbers, over the rows
    assert count == pytest.approx(np.round(count), abs=1e-9) and count[1] >= 1
