"""Session 44: CBPE's label-free interval of unweighted rows keeps its level past 10 expected events.

From 10 expected events the interval was the normal one, mean score +- z sqrt(sum f(1 - f)) / M. The count it
stands for takes whole numbers, and each end of the normal interval may fall up to one count inside: at
level 0.8 its exact coverage of the realised rate dipped to 0.741 (10-79 expected events; 16 % of them below
0.78), at 0.95 to 0.9365. The count interval now takes over wherever sum f(1 - f) lies below
count_handover(level) (1,225 at 0.8, 136 at 0.95, 8.4 at 0.99, where the 10 expected events stand): at
least 0.80 and 0.953 over the same scan, at widths within a few % of the normal interval's.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

Z = {0.8: 1.2815515655446004, 0.95: 1.959963984540054}


def _count_pmf(p: np.ndarray) -> np.ndarray:
    """The Poisson-binomial law of the count of positives, by convolution (the exact oracle)."""
    pmf = np.array([1.0])
    for q in p:
        pmf = np.convolve(pmf, [1.0 - q, q])
    return pmf


def test_hand_over_depends_on_the_level():
    from veracity.delayed._ppi_sums import count_handover

    assert count_handover(0.8) == pytest.approx(1225.0, rel=0.01)
    assert count_handover(0.95) == pytest.approx(136.0, rel=0.01)
    assert count_handover(0.99) < 10  # the 10 expected events rule stands at 0.99


def test_cbpe_covers_the_realised_rate_at_low_levels_past_ten_expected_events():
    rng = np.random.default_rng(7)
    rows = 1_000
    f0 = rng.beta(0.5, 20, rows)
    f0 /= f0.sum()
    cover: dict[float, list[float]] = {0.8: [], 0.95: []}
    ratio: dict[float, list[float]] = {0.8: [], 0.95: []}
    rate = np.arange(rows + 1) / rows
    for ev in range(10, 80, 3):
        f = np.clip(f0 * ev, 0, 0.99)
        law = _count_pmf(f)
        half = np.sqrt((f * (1 - f)).sum()) / rows
        for lv in cover:
            r = vc.ppi_mean(np.zeros(50, int), f[:50], f[50:], sample_check="off", level=lv)
            cover[lv].append(float(law[(rate >= r.cbpe_low - 1e-12) & (rate <= r.cbpe_high + 1e-12)].sum()))
            ratio[lv].append((r.cbpe_high - r.cbpe_low) / (2 * Z[lv] * half))
    print({lv: (round(min(c), 4), round(float(np.median(c)), 4)) for lv, c in cover.items()},
          {lv: (round(min(x), 3), round(max(x), 3)) for lv, x in ratio.items()})
    # old: 0.7412 at 0.8 and 0.9365 at 0.95 (the normal interval at 10 and 13 expected events)
    assert min(cover[0.8]) >= 0.79 and min(cover[0.95]) >= 0.945, cover
    # widths: whole numbers around the normal interval, never much wider
    assert max(ratio[0.8]) <= 1.12 and max(ratio[0.95]) <= 1.08, ratio
    assert np.median(ratio[0.8]) <= 1.03 and np.median(ratio[0.95]) <= 1.03, ratio


def test_a_store_record_and_the_audit_give_the_same_interval():
    from veracity.delayed import PpiSums, ppi_records

    rng = np.random.default_rng(2)
    f = np.clip(rng.beta(0.5, 20, 2_000) * 1.5, 0, 0.99)  # about 70 expected events
    y = (rng.random(f.size) < f).astype(int)
    r = vc.ppi_mean(y[:100], f[:100], f[100:], sample_check="off", level=0.8)
    rec = ppi_records(PpiSums.of(y[:100], f[:100], f[100:], None, None), level=0.8,
                      sum_fff=float((f**3).sum()))[0]
    assert (rec["estimate_cbpe"]["ci_low"], rec["estimate_cbpe"]["ci_high"]) == pytest.approx(
        (r.cbpe_low, r.cbpe_high), abs=1e-15)
    row = vc.ppi_audit(y[:100], f[:100], f[100:], bins=1, sample_check="off", level=0.8).row("rate")
    assert (row["cbpe_low"], row["cbpe_high"]) == pytest.approx((r.cbpe_low, r.cbpe_high), abs=1e-15)
    count = np.array([r.cbpe_low, r.cbpe_high]) * f.size  # the count interval's whole numbers
    assert count == pytest.approx(np.round(count), abs=1e-9)
