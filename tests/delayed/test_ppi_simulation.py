"""PPI's behaviour by seeded simulation, vectorised across simulations (a few seconds).

Every simulated window draws true probabilities q ~ Beta(2, 8) (true rate E[q] = 0.2),
outcomes y ~ Bernoulli(q) and a model score f — informative but miscalibrated — and
labels a uniformly random subset. The sums of each window go through ``ppi_from_sums``
in one call, the same code path as ``vc.ppi_mean`` (tested equal in test_ppi_oracles).
"""

import numpy as np
import pytest

import veracity as vc
from veracity.core._special import expit, logit
from veracity.delayed import PpiSums, ppi_from_sums
from veracity.delayed._design import design_estimates

TRUE_RATE = 0.2  # mean of Beta(2, 8) and of Beta(0.2, 0.8)


def _windows(seed, sims, n, m, *, slope=1.0, shift=0.0, beta=(2, 8)):
    rng = np.random.default_rng(seed)
    q = rng.beta(*beta, (sims, n + m))
    y = (rng.random(q.shape) < q).astype(float)
    f = expit(slope * logit(q) + shift)  # a monotone, miscalibrated reading of q
    yl, fl, fu = y[:, :n], f[:, :n], f[:, n:]
    return PpiSums.from_counts(n=np.full(sims, n), sum_y=yl.sum(1), sum_f=fl.sum(1), sum_ff=(fl * fl).sum(1),
                               sum_yf=(yl * fl).sum(1), m=np.full(sims, m), sum_fu=fu.sum(1),
                               sum_ffu=(fu * fu).sum(1))


def test_ppi_covers_the_true_rate_when_scores_are_miscalibrated_and_cbpe_does_not():
    sims = 1000
    out = ppi_from_sums(_windows(0, sims, 200, 2000, slope=0.8, shift=0.6), level=0.95)
    ppi = np.mean((out["ci_low"] <= TRUE_RATE) & (TRUE_RATE <= out["ci_high"]))
    cbpe = np.mean((out["cbpe_low"] <= TRUE_RATE) & (TRUE_RATE <= out["cbpe_high"]))
    flagged = np.mean((out["rectifier_low"] > 0) | (out["rectifier_high"] < 0))
    print(f"\ncoverage of the true rate at 95%: PPI++ {ppi:.3f}, CBPE {cbpe:.3f}; "
          f"rectifier says 'not calibrated' in {flagged:.1%} of windows")
    assert ppi >= 0.94
    assert cbpe < 0.5  # visibly fails: the scores promise a rate they do not deliver
    assert flagged > 0.9


def test_ppi_covers_under_calibration_too_and_plain_ppi_as_well():
    sums = _windows(1, 1000, 100, 2000)
    for o in (ppi_from_sums(sums, level=0.9), ppi_from_sums(sums, level=0.9, power_tuning=False)):
        cover = np.mean((o["ci_low"] <= TRUE_RATE) & (TRUE_RATE <= o["ci_high"]))
        assert cover >= 0.9 - 3 * np.sqrt(0.09 / 1000)


def test_200_labels_and_20000_scores_give_a_narrower_interval_than_200_labels_alone():
    # informative scores: outcomes a score can tell apart (true probabilities spread out, as in fraud)
    out = ppi_from_sums(_windows(2, 100, 200, 20000, slope=1.3, shift=0.3, beta=(0.2, 0.8)), level=0.95)
    ppi_w = out["ci_high"] - out["ci_low"]
    cls_w = out["classical_high"] - out["classical_low"]
    print(f"\nmean 95% width: PPI++ {ppi_w.mean():.4f} vs labels only {cls_w.mean():.4f} "
          f"(ratio {np.mean(ppi_w / cls_w):.2f}); narrower in {np.mean(ppi_w < cls_w):.0%} of windows")
    assert np.mean(ppi_w / cls_w) < 0.8
    assert np.mean(ppi_w < cls_w) > 0.95
    cover = np.mean((out["ci_low"] <= TRUE_RATE) & (TRUE_RATE <= out["ci_high"]))
    assert cover >= 0.95 - 3 * np.sqrt(0.0475 / 100)


def test_labels_needed_gives_the_planned_width():
    # plan from the scores, label that many at random, and the PPI interval has about that width
    rng = np.random.default_rng(4)
    q = rng.beta(2, 8, 10000)
    n = vc.labels_needed(q, width=0.05)  # calibrated scores: q itself
    out = ppi_from_sums(_windows(4, 200, n, 10000 - n), power_tuning=False)
    width = out["ci_high"] - out["ci_low"]
    print(f"\nplanned width 0.05 with {n} labels of 10,000 rows; realised mean width {width.mean():.4f}")
    assert width.mean() == pytest.approx(0.05, rel=0.03)


def test_a_sample_of_flagged_rows_only_is_refused_or_flagged():
    rng = np.random.default_rng(6)
    q = rng.beta(2, 8, 20000)
    y = (rng.random(q.size) < q).astype(float)
    flagged = q >= 0.3  # only the flagged rows get a human review
    lab = np.flatnonzero(flagged)[:300]
    rest = np.setdiff1d(np.arange(q.size), lab)
    with pytest.raises(vc.VeracityError, match="not a random sample of the window"):
        vc.ppi_mean(y[lab], q[lab], q[rest])
    r = vc.ppi_mean(y[lab], q[lab], q[rest], sample_check="flag")
    assert not r.valid and "NOT VALID" in str(r) and r.sample_p < 1e-4
    with pytest.raises(vc.VeracityError, match="not a random sample"):
        vc.ppi_audit(y[lab], q[lab], q[rest])
    # a random audit sample passes the check
    pick = rng.choice(q.size, 300, replace=False)
    other = np.setdiff1d(np.arange(q.size), pick)
    assert vc.ppi_mean(y[pick], q[pick], q[other]).valid


def test_random_sample_check_rarely_refuses_a_random_sample():
    rng = np.random.default_rng(8)
    refused = 0
    for _ in range(200):
        q = rng.beta(2, 8, 3000)
        y = (rng.random(q.size) < q).astype(float)
        r = vc.ppi_mean(y[:150], q[:150], q[150:], sample_check="flag")
        refused += not r.valid
    assert refused <= 2  # the check refuses at p < 1e-4


def test_audit_sample_mask_keeps_only_the_random_labels():
    rng = np.random.default_rng(9)
    q = rng.beta(2, 8, 20000)
    y = (rng.random(q.size) < q).astype(float)
    random_rows = rng.choice(np.arange(10000, 20000), 250, replace=False)
    early = np.flatnonzero(q[:10000] > 0.4)[:250]  # early-matured outcomes: selected, not random
    lab = np.concatenate([random_rows, early])
    mask = np.r_[np.ones(250, bool), np.zeros(early.size, bool)]
    rest = np.setdiff1d(np.arange(q.size), lab)
    with pytest.raises(vc.VeracityError, match="not a random sample"):
        vc.ppi_mean(y[lab], q[lab], q[rest])
    r = vc.ppi_mean(y[lab], q[lab], q[rest], audit_sample=mask)
    ref = vc.ppi_mean(y[random_rows], q[random_rows], np.concatenate([q[rest], q[early]]))
    assert r.n_excluded == early.size and r.n_labelled == 250
    assert (r.estimate, r.ci_low, r.ci_high) == pytest.approx((ref.estimate, ref.ci_low, ref.ci_high), abs=1e-12)
    assert "used as scored rows only" in str(r)


def test_a_designed_sample_with_known_propensities_covers_the_window_rate():
    # every flagged payment reviewed (propensity 1) and 6% of the others at random: not a random
    # sample, so plain PPI is biased; with the propensities the IPW PPI covers the window's rate
    rng = np.random.default_rng(10)
    sims, rows, chunk = 1000, 10000, 100
    z, naive = [], []
    for start in range(0, sims, chunk):  # 100 windows at a time keeps the arrays small
        q = rng.beta(0.5, 4.5, (chunk, rows))
        f = np.clip(q * 0.8, 0, 1)  # informative, miscalibrated scores
        y = (rng.random(q.shape) < q).astype(float)
        pi = np.where(f >= 0.3, 1.0, 0.06)
        lab = rng.random(q.shape) < pi
        for i in range(chunk):
            L = lab[i]
            o = design_estimates(y[i, L], f[i, L], f[i, ~L], pi[i, L], level=0.95, power_tuning=True)
            z.append((float(o["estimate"]) - y[i].mean()) / float(o["se"]))
            if start == 0:
                p = ppi_from_sums(PpiSums.of(y[i, L], f[i, L], f[i, ~L]))
                naive.append(float(p["ci_low"]) <= y[i].mean() <= float(p["ci_high"]))
        if start == 0:
            first = (y[0], f[0], pi[0], lab[0])
    z = np.array(z)
    cover = np.mean(np.abs(z) < 1.959963984540054)
    print(f"\ndesigned sample: IPW-PPI covers the window rate in {cover:.3f} of {sims}, plain PPI in "
          f"{np.mean(naive):.3f}; mean standardised error {z.mean():+.3f}")
    # nominal 0.95; the inverse-probability sum of rare positives is skewed, so the normal interval
    # can run a point short at these sizes (0.946 here; 0.955 in 1,500 windows of 20,000 rows at 3%)
    assert cover >= 0.93
    assert np.mean(naive) < 0.8
    assert abs(z.mean()) < 3 / np.sqrt(sims)
    # the public form is this estimator
    y0, f0, pi0, lab0 = first
    r = vc.ppi_mean(y0[lab0], f0[lab0], f0[~lab0], propensity=pi0[lab0])
    assert (r.estimate - y0.mean()) / r.se == pytest.approx(z[0], rel=1e-12)


def test_propensity_one_everywhere_and_bad_propensities_are_refused():
    y = np.array([1, 0, 0, 1, 0], float)
    f = np.array([0.9, 0.2, 0.1, 0.6, 0.3])
    # no labelled row was drawn at random: the two unlabelled rows' outcomes are unknown. This once
    # gave 2/7 with se 0 — the unlabelled rows counted as negatives, with certainty
    with pytest.raises(vc.VeracityError, match="at least 2 labelled rows drawn at random"):
        vc.ppi_mean(y, f, [0.5, 0.1], propensity=[1, 1, 1, 1, 1])
    with pytest.raises(vc.VeracityError, match=r"propensity must be .* in \(0, 1\]"):
        vc.ppi_mean(y, f, [0.5], propensity=[1, 0, 1, 1, 1])
    with pytest.raises(vc.VeracityError, match="drop sample_weight"):
        vc.ppi_mean(y, f, [0.5], propensity=0.5, sample_weight=np.ones(5))


def test_few_labels_under_cover_and_the_result_says_so():
    """The normal interval's claim needs labels: calibrated scores, 500 unlabelled rows, 2,000
    windows per setting. Measured at 95 %: 10 labels 0.853-0.878, 20 labels 0.881-0.918, 100
    labels 0.932-0.948 (with 2,000 unlabelled rows and 4,000 windows: 0.848-0.883, 0.881-0.925,
    0.936-0.946) — so a window with fewer than 50 labels carries a note (vc.ppi_mean), and
    vc.ppi_mean's intervals of the rate stay inside [0, 1]."""
    at = {}
    for beta in ((2, 8), (0.2, 0.8), (2, 2)):
        true = beta[0] / sum(beta)
        for n in (10, 20, 100):
            o = ppi_from_sums(_windows(7, 2000, n, 500, beta=beta), level=0.95)
            at[beta, n] = float(np.mean((o["ci_low"] <= true) & (true <= o["ci_high"])))
    assert max(at[b, 10] for b in ((2, 8), (0.2, 0.8), (2, 2))) < 0.90
    assert max(at[b, 20] for b in ((2, 8), (0.2, 0.8), (2, 2))) < 0.935
    assert min(at[b, 100] for b in ((2, 8), (0.2, 0.8), (2, 2))) > 0.92
    rng = np.random.default_rng(0)
    f = rng.beta(2, 8, 2000)
    y = (rng.random(2000) < f).astype(int)
    few = vc.ppi_mean(y[:10], f[:10], f[10:])
    assert any("only 10 labels" in note for note in few.notes)
    rare = vc.ppi_mean(np.r_[1, np.zeros(9, int)], f[:10] / 10, f[10:] / 10)  # a rare outcome: normal low < 0
    for low, high in ((rare.ci_low, rare.ci_high), (rare.classical_low, rare.classical_high),
                      (rare.cbpe_low, rare.cbpe_high)):
        assert 0.0 <= low <= high <= 1.0
    # 0.1 - 1.96 * 0.095 < 0: the normal interval was cut at 0; one positive of 10 labels now takes the
    # modified Wilson interval as PPI's rate does, its lower end Garwood's exact Poisson bound for 1 event
    # (session 27)
    from scipy.stats import chi2
    assert rare.classical_low == pytest.approx(chi2.ppf(0.025, 2) / 2 / 10, rel=1e-9)
    assert not any("labels:" in note for note in vc.ppi_mean(y[:60], f[:60], f[60:]).notes)


def test_weighted_ppi_covers_the_windows_weighted_rate():
    # survey weights (4 for 30 % of the rows, and heavier rows riskier): the target is the weighted rate
    # sum(w y) / sum(w) of the population (from 2e6 rows). 600 windows of 300 random labels + 3,000
    # scored rows, miscalibrated scores: measured 0.958; the unweighted rate differs by 0.02 (not covered)
    rng = np.random.default_rng(11)

    def world(n):
        q = rng.beta(2, 5, n)
        f = expit(1.3 * logit(q) + 0.3)
        w = np.where(rng.random(n) < 0.3, 4.0, 1.0) * (1 + q)
        return (rng.random(n) < q).astype(float), f, w

    yb, fb, wb = world(2_000_000)
    truth = float((wb * yb).sum() / wb.sum())
    assert abs(truth - yb.mean()) > 0.015  # the weights matter here
    hits = 0
    for _ in range(600):
        y, f, w = world(3300)
        r = vc.ppi_mean(y[:300], f[:300], f[300:], sample_weight=w[:300], sample_weight_unlabelled=w[300:],
                        sample_check="off")
        hits += r.ci_low <= truth <= r.ci_high
    assert 0.93 <= hits / 600 <= 0.975, hits / 600
