"""Confidence sequences: against confseq's construction, an independent row-by-row reference,
and seeded simulations of daily looks (false alarms over 365 looks, detection of a shift).

Reference: Waudby-Smith & Ramdas (2023), "Estimating means of bounded random variables by
betting", JRSS-B, Theorem 2 (predictable plug-in empirical Bernstein); ``confseq``'s
``predmix_empbern_cs`` implements it. confseq needs a C++ build and is often not installable,
so the oracle test skips without it; the reference below is written from the paper.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import veracity as vc
from veracity.delayed import first_alarm, sequence_from_sums
from veracity.delayed._sequence import raw_bounds_z


def _reference_lower(z, alpha, trunc=0.5):
    """Row by row, from the paper: bets on the regularised variance, centres at the running mean."""
    low = []
    s_lz = s_lam = s_vpsi = 0.0
    total = 0.0
    dev = 0.0
    sigma2_prev = 0.25
    for t, zt in enumerate(z, start=1):
        lam = min(trunc, math.sqrt(2 * math.log(1 / alpha) / (t * math.log(1 + t) * sigma2_prev)))
        mu_prev = total / (t - 1) if t > 1 else 0.0
        v = (zt - mu_prev) ** 2
        psi = -math.log(1 - lam) - lam
        s_lz += lam * zt
        s_lam += lam
        s_vpsi += v * psi
        low.append(min((s_lz - math.log(1 / alpha) - s_vpsi) / s_lam, 1.0))
        total += zt
        mu_reg = min((0.5 + total) / (t + 1), 1.0)
        dev += (zt - mu_reg) ** 2
        sigma2_prev = (0.25 + dev) / (t + 1)
    return np.array(low)


def _stream(seed, n, gap=0.0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 8, n)
    y = (rng.random(n) < np.clip(p + gap, 0, 1)).astype(float)
    return p, y


def test_row_by_row_bounds_equal_the_reference_written_from_the_paper():
    p, y = _stream(0, 400)
    z = (y - p + 1) / 2
    low, high = raw_bounds_z(np.ones_like(z), z, z * z, alpha=0.1)
    assert np.allclose(low, _reference_lower(z, 0.05), atol=1e-12, rtol=0)
    assert np.allclose(high, 1 - _reference_lower(1 - z, 0.05), atol=1e-12, rtol=0)


def test_row_by_row_bounds_equal_confseq():
    predmix = pytest.importorskip("confseq.predmix")
    p, y = _stream(1, 2000)
    z = (y - p + 1) / 2
    lo, hi = predmix.predmix_empbern_cs(z, alpha=0.05, truncation=0.5, running_intersection=False)
    low, high = raw_bounds_z(np.ones_like(z), z, z * z, alpha=0.05)
    assert np.allclose(low, lo, atol=1e-12) and np.allclose(high, hi, atol=1e-12)


def _reference_sequence(x, alpha, weights=None, batches=None, trunc=0.5, wbar=None):
    """An independent reference, plain Python loops, written from the paper (WSR 2023, Thm 2,
    predictable plug-in empirical Bernstein, each side at alpha / 2) — the variant veracity uses:
    within a batch the bet and the centre are those set by the earlier batches; a row's bet is the
    batch's bet times its weight over the mean weight, capped at ``trunc``; the centre, the
    regularised variance and the "t" of the bet use the weights. Returns the running intersection
    of the bounds on the mean of x = y - p in [-1, 1] after each batch (``wbar``: the mean weight the
    weights are taken over, default their own)."""
    n = len(x)
    if wbar is None:
        wbar = sum(weights) / n if weights is not None else 1.0
    om = [1.0] * n if weights is None else [w / wbar for w in weights]
    keys = list(range(n)) if batches is None else sorted(set(batches))
    members = {k: [] for k in keys}
    for i in range(n):
        members[i if batches is None else batches[i]].append(i)

    def lower(z, a):
        out = []
        tot_w = tot_s = dev = 0.0
        sigma2_prev = 0.25
        num = den = 0.0
        for k in keys:
            rows = members[k]
            mu_prev = tot_s / tot_w if tot_w > 0 else 0.0
            w_now = tot_w + sum(om[i] for i in rows)
            if w_now > 0:
                lam = math.sqrt(2 * math.log(1 / a) / (w_now * math.log(1 + w_now) * sigma2_prev))
                lam = min(lam, trunc)
            else:
                lam = 0.0
            for i in rows:
                bet = min(lam * om[i], trunc)
                num += bet * z[i] - ((z[i] - mu_prev) ** 2) * (-math.log(1 - bet) - bet)
                den += bet
            out.append(min((num - math.log(1 / a)) / den, 1.0) if den > 0 else -math.inf)
            tot_w = w_now
            tot_s += sum(om[i] * z[i] for i in rows)
            mu_reg = min((0.5 + tot_s) / (tot_w + 1), 1.0)
            dev += sum(om[i] * (z[i] - mu_reg) ** 2 for i in rows)
            sigma2_prev = (0.25 + dev) / (tot_w + 1)
        return out

    z = [(v + 1) / 2 for v in x]
    lo_z = lower(z, alpha / 2)
    hi_z = [1 - v for v in lower([1 - v for v in z], alpha / 2)]
    low, high, best_lo, best_hi = [], [], -1.0, 1.0
    for a, b in zip(lo_z, hi_z):
        best_lo = max(best_lo, min(max(2 * a - 1, -1.0), 1.0))
        best_hi = min(best_hi, min(max(2 * b - 1, -1.0), 1.0))
        low.append(best_lo)
        high.append(best_hi)
    return np.array(low), np.array(high)


@pytest.mark.parametrize("seed", [10, 11, 12, 13])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("batched", [False, True])
def test_bounds_equal_an_independent_reference_weighted_and_unweighted(seed, weighted, batched):
    rng = np.random.default_rng(seed)
    n = 600
    p, y = _stream(seed, n, gap=0.02 * (seed % 2))
    w = rng.gamma(2.0, 1.5, n) if weighted else None
    days = np.sort(rng.integers(0, 40, n)) if batched else None
    cs = vc.confidence_sequence(p, y, alpha=0.05, sample_weight=w, batches=days)
    lo, hi = _reference_sequence(list(y - p), 0.05, None if w is None else list(w),
                                 None if days is None else list(days))
    assert cs.low.size == lo.size
    assert np.allclose(cs.low, lo, atol=1e-12, rtol=0) and np.allclose(cs.high, hi, atol=1e-12, rtol=0)
    if w is not None:  # the running estimate is the weighted mean so far
        assert cs.estimate[-1] == pytest.approx(np.sum(w * (y - p)) / w.sum(), abs=1e-12)
    # each score bin of vc.binned_sequences is the reference on that bin's rows at alpha / bins
    bs = vc.binned_sequences(p, y, bins=3, alpha=0.05, sample_weight=w, batches=days)
    b = np.minimum((p * 3).astype(int), 2)
    j = int(np.bincount(b).argmax())
    keep = b == j
    if days is None:
        idx = np.flatnonzero(keep)  # row-by-row: a bin's sequence steps on every row; the others' rows change nothing
        lo_b, hi_b = _reference_sequence(list((y - p)[keep]), 0.05 / 3,
                                         None if w is None else list(w[keep]), wbar=None if w is None else w.mean())
        got_lo, got_hi = bs.sequences[j].low[idx], bs.sequences[j].high[idx]
    else:
        lo_b, hi_b = _reference_sequence(list((y - p)[keep]), 0.05 / 3,
                                         None if w is None else list(w[keep]), list(days[keep]),
                                         wbar=None if w is None else w.mean())
        present = np.isin(bs.sequences[j].steps, np.unique(days[keep]))
        got_lo, got_hi = bs.sequences[j].low[present], bs.sequences[j].high[present]
    assert np.allclose(got_lo, lo_b, atol=1e-12, rtol=0) and np.allclose(got_hi, hi_b, atol=1e-12, rtol=0)


def test_equal_weights_are_the_unweighted_sequence_and_only_ratios_matter():
    p, y = _stream(14, 1500, gap=0.03)
    day = np.arange(1500) // 25
    plain = vc.confidence_sequence(p, y, batches=day)
    same = vc.confidence_sequence(p, y, batches=day, sample_weight=np.full(1500, 7.5))
    assert np.allclose(plain.low, same.low, atol=1e-14) and np.allclose(plain.high, same.high, atol=1e-14)
    w = np.random.default_rng(0).uniform(0.5, 2.0, 1500)
    a = vc.confidence_sequence(p, y, batches=day, sample_weight=w)
    b = vc.confidence_sequence(p, y, batches=day, sample_weight=w * 1e6)
    assert np.allclose(a.low, b.low, atol=1e-12) and np.allclose(a.high, b.high, atol=1e-12)
    assert not np.allclose(a.low, plain.low)
    # labels given by name: pos_label picks the positive class
    names = np.where(y == 1, "fraud", "ok")
    named = vc.confidence_sequence(p, names, batches=day, sample_weight=w, pos_label="fraud")
    assert np.allclose(named.low, a.low, atol=0) and np.allclose(named.high, a.high, atol=0)
    with pytest.raises(vc.VeracityError, match="sample_weight"):
        vc.confidence_sequence(p, y, sample_weight=-w)


def test_weighted_sequences_keep_false_alarms_below_alpha_over_daily_looks():
    rng = np.random.default_rng(15)
    streams, days, per_day, alpha = 200, 120, 20, 0.05
    alarms = 0
    day = np.repeat(np.arange(days), per_day)
    for _ in range(streams):
        p = rng.beta(2, 8, day.size)
        y = (rng.random(day.size) < p).astype(float)
        w = rng.lognormal(0.0, 0.7, day.size)
        alarms += vc.confidence_sequence(p, y, batches=day, sample_weight=w, alpha=alpha).alarm_at is not None
    assert alarms / streams <= alpha


def test_public_bounds_are_the_raw_ones_mapped_to_y_minus_p_and_never_widen():
    p, y = _stream(2, 3000)
    cs = vc.confidence_sequence(p, y, alpha=0.05)
    z = (y - p + 1) / 2
    low, high = raw_bounds_z(np.ones_like(z), z, z * z, alpha=0.05)
    assert np.allclose(cs.low, np.maximum.accumulate(np.clip(2 * low - 1, -1, 1)), atol=1e-12)
    assert np.allclose(cs.high, np.minimum.accumulate(np.clip(2 * high - 1, -1, 1)), atol=1e-12)
    assert (np.diff(cs.low) >= 0).all() and (np.diff(cs.high) <= 0).all()
    assert cs.estimate[-1] == pytest.approx((y - p).mean())
    assert cs.n[-1] == 3000 and cs.alarm_at is None


def test_batches_of_one_row_are_the_row_by_row_sequence_and_order_within_a_batch_does_not_matter():
    p, y = _stream(3, 600)
    rows = vc.confidence_sequence(p, y)
    ones = vc.confidence_sequence(p, y, batches=np.arange(600))
    assert np.allclose(rows.low, ones.low, atol=1e-13) and np.allclose(rows.high, ones.high, atol=1e-13)
    day = np.repeat(np.arange(20), 30)
    a = vc.confidence_sequence(p, y, batches=day)
    perm = np.random.default_rng(0).permutation(600)
    b = vc.confidence_sequence(p[perm], y[perm], batches=day[perm])
    assert np.allclose(a.low, b.low, atol=1e-12) and a.low.size == 20
    assert list(a.steps) == list(range(20))


def _daily(seed, streams, days, per_day, gap=0.0, shift_day=None):
    """Per-day sums of x = y - p for ``streams`` streams (vectorised): n, sum x, sum x^2, sum p(1-p)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 8, (streams, days, per_day))
    rate = p.copy()
    if gap:
        rate[:, shift_day:, :] = np.clip(rate[:, shift_day:, :] + gap, 0, 1)
    x = (rng.random(p.shape) < rate) - p
    return (np.full((streams, days), float(per_day)), x.sum(-1), (x * x).sum(-1), (p * (1 - p)).sum(-1))


def test_daily_looks_at_a_calibrated_stream_keep_false_alarms_below_alpha_while_daily_window_tests_do_not():
    streams, days, per_day, alpha = 500, 365, 30, 0.05
    n, sx, sxx, var = _daily(0, streams, days, per_day)
    low, high = sequence_from_sums(n, sx, sxx, alpha=alpha)
    seq_fa = np.mean(first_alarm(low, high) >= 0)
    # the fixed-sample test of each day's window at alpha, run every day
    z_day = sx / np.sqrt(var)
    window_fa = np.mean((np.abs(z_day) > 1.959963984540054).any(axis=1))
    # the fixed-sample test of everything so far, re-run every day
    z_cum = np.cumsum(sx, axis=1) / np.sqrt(np.cumsum(var, axis=1))
    cum_fa = np.mean((np.abs(z_cum) > 1.959963984540054).any(axis=1))
    print(f"\nfalse alarms over {days} daily looks, {streams} calibrated streams (alpha={alpha}): "
          f"confidence sequence {seq_fa:.3f}; daily per-window test {window_fa:.3f}; "
          f"cumulative fixed-sample test re-run daily {cum_fa:.3f}")
    assert seq_fa <= alpha
    assert window_fa > 0.9 and cum_fa > 2 * alpha


def test_a_calibration_shift_of_003_is_detected_and_the_median_delay_reported():
    streams, days, per_day, shift_day = 150, 300, 100, 30
    n, sx, sxx, _ = _daily(1, streams, days, per_day, gap=0.03, shift_day=shift_day)
    low, high = sequence_from_sums(n, sx, sxx, alpha=0.05)
    at = first_alarm(low, high)
    detected = at >= shift_day
    delay = at[detected] - shift_day
    print(f"\n0.03 shift at day {shift_day} ({per_day} labelled rows a day): detected in {detected.mean():.1%} of "
          f"{streams} streams within {days - shift_day} days; median delay {np.median(delay):.0f} days "
          f"(quartiles {np.percentile(delay, 25):.0f}-{np.percentile(delay, 75):.0f})")
    assert detected.mean() >= 0.95
    assert np.median(delay) < 100
    # the public form reports the same delay for one stream
    rng = np.random.default_rng(2)
    days_of = np.repeat(np.arange(200), per_day)
    p = rng.beta(2, 8, days_of.size)
    y = (rng.random(p.size) < np.clip(p + 0.03 * (days_of >= shift_day), 0, 1)).astype(float)
    cs = vc.confidence_sequence(p, y, batches=days_of, shift_at=shift_day)
    assert cs.alarm_at is not None and cs.delay == cs.alarm_at - shift_day > 0
    assert "detection delay" in str(cs)


def test_binned_sequences_share_alpha_and_catch_a_bin_local_miscalibration_the_overall_gap_hides():
    # calibrated streams: the family of 5 bins, each at alpha / 5, alarms in at most alpha of them
    rng = np.random.default_rng(4)
    streams, days, per_day, k, alpha = 300, 200, 40, 5, 0.05
    p = rng.beta(1, 4, (streams, days, per_day))
    x = (rng.random(p.shape) < p) - p
    b = np.minimum((p * k).astype(int), k - 1)
    n = np.stack([(b == j).sum(-1) for j in range(k)], axis=1).astype(float)
    sx = np.stack([np.where(b == j, x, 0).sum(-1) for j in range(k)], axis=1)
    sxx = np.stack([np.where(b == j, x * x, 0).sum(-1) for j in range(k)], axis=1)
    low, high = sequence_from_sums(n, sx, sxx, alpha=alpha / k)
    family = np.mean((first_alarm(low, high) >= 0).any(axis=1))
    assert family <= alpha
    # over-confident: high scores too high, low scores too low, the overall gap about 0
    day = np.repeat(np.arange(150), 200)
    q = rng.beta(1, 1, day.size)
    truth = np.clip(0.5 + 0.7 * (q - 0.5), 0, 1)
    y = (rng.random(q.size) < truth).astype(float)
    overall = vc.confidence_sequence(q, y, batches=day)
    binned = vc.binned_sequences(q, y, bins=5, batches=day)
    assert abs(overall.estimate[-1]) < 0.01 and overall.alarm_at is None
    assert binned.alarm_at is not None and set(binned.alarm_bins) <= {"[0, 0.2)", "[0.8, 1]"}
    # each bin's sequence is the one-stream sequence of that bin's rows at alpha / 5
    top = q >= 0.8
    alone = vc.confidence_sequence(q[top], y[top], batches=day[top], alpha=0.01)
    assert np.allclose(binned.sequences[4].low, alone.low) and "ALARM" in str(binned)


def test_tolerance_counts_a_small_gap_as_calibrated():
    rng = np.random.default_rng(5)
    day = np.repeat(np.arange(300), 600)
    p = rng.beta(2, 8, day.size)
    y = (rng.random(p.size) < p + 0.006).astype(float)  # a gap of 0.006: immaterial at tolerance 0.01
    strict = vc.confidence_sequence(p, y, batches=day)
    loose = vc.confidence_sequence(p, y, batches=day, tolerance=0.01)
    assert strict.alarm_at is not None and loose.alarm_at is None
    assert "met [-0.01, 0.01]" in str(loose)


def test_bounds_are_antisymmetric_under_relabelling():
    # y -> 1 - y, p -> 1 - p turns every x into -x: the bounds swap and change sign
    p, y = _stream(6, 800)
    a = vc.confidence_sequence(p, y, batches=np.arange(800) // 40)
    b = vc.confidence_sequence(1 - p, 1 - y, batches=np.arange(800) // 40)
    assert np.allclose(a.low, -b.high, atol=1e-12) and np.allclose(a.high, -b.low, atol=1e-12)


@given(seed=st.integers(0, 10_000), sizes=st.lists(st.integers(0, 30), min_size=1, max_size=20))
def test_batched_sums_are_order_free_within_batches_and_empty_batches_change_nothing(seed, sizes):
    rng = np.random.default_rng(seed)
    n = np.array(sizes, dtype=float)
    x = rng.uniform(-1, 1, int(n.sum()))
    cuts = np.cumsum(sizes)[:-1]
    sx = np.array([c.sum() for c in np.split(x, cuts)])
    sxx = np.array([(c * c).sum() for c in np.split(x, cuts)])
    low, high = sequence_from_sums(n, sx, sxx)
    assert (np.diff(low) >= 0).all() and (np.diff(high) <= 0).all() and (low >= -1).all() and (high <= 1).all()
    keep = n > 0
    if keep.any():
        l2, h2 = sequence_from_sums(n[keep], sx[keep], sxx[keep])
        assert np.allclose(low[keep], l2, atol=1e-12) and np.allclose(high[keep], h2, atol=1e-12)


def test_frame_form_reads_batches_as_a_column_name():
    # batches="day" in the frame form was taken as one key for every row ("got shape ()")
    import pandas as pd

    rng = np.random.default_rng(0)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < p).astype(int)
    day = np.repeat(np.arange(10), 20)
    df = pd.DataFrame({"p": p, "y": y, "day": day})
    framed = vc.confidence_sequence(df, score="p", label="y", batches="day")
    arrays = vc.confidence_sequence(p, y, batches=day)
    assert len(framed.low) == 10 and np.array_equal(framed.low, arrays.low) and np.array_equal(framed.high, arrays.high)
    assert str(vc.binned_sequences(df, score="p", label="y", batches="day", bins=3)) == str(
        vc.binned_sequences(p, y, batches=day, bins=3))
    with pytest.raises(vc.VeracityError, match="column 'nope' not found"):
        vc.confidence_sequence(df, score="p", label="y", batches="nope")
