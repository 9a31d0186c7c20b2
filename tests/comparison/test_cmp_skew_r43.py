"""Round 43: the paired Brier / log-loss verdicts on skewed differences (few rows of a class).

A calibrated model against the same scores through a near-identity map (temperature 1.001: the true
difference is about 1e-6, 0.04 standard errors) moves every negative row's loss a little one way and each
positive's a lot the other, so the mean difference is a sum over a few positives and skewed. The paired t
called it "worse" in 5.8 % (Brier) and 6.6 % (log loss) of seeded draws of 300 rows with about 10 positives
(2.5 % nominal per tail), 4.3 % and 5.3 % on 1,000 rows (32 positives), 10-14 % weighted. With fewer than 40
of one class among 40 or more of the other the verdict now needs both the t and Hall's (1992) skew-corrected
t to exclude 0 (``core._paired_mean.skew_guarded``): 1.5 % and 0.5 % on 300 rows, 2.5 % on 1,000; it keeps
the t's level on symmetric differences (it rejects no more often than the t) and the t's power where the
skew works against the difference; weighted it still runs high, and the note says so.
"""

import warnings

import numpy as np
from scipy.special import expit, logit

import veracity as vc
from veracity.core._paired_mean import paired_mean

LEVEL = 0.95


def _near_identity(rng, n, tau=1.001, a=0.5, b=15.0):
    """Calibrated scores of rare events (Beta(0.5, 15): 3.2 % positives), labels, and the same scores through
    temperature ``tau``."""
    p = np.clip(rng.beta(a, b, n), 1e-12, 1 - 1e-12)
    y = (rng.random(n) < p).astype(float)
    return p, expit(logit(p) / tau), y


def _diffs(p, q, y):
    """Per-row Brier and log-loss differences q - p."""
    brier = (q - y) ** 2 - (p - y) ** 2
    ll = -(y * np.log(q) + (1 - y) * np.log1p(-q)) + (y * np.log(p) + (1 - y) * np.log1p(-p))
    return brier, ll


def _tails(draw, reps, seed, skew, w_sigma=0.0):
    """(metric, tail) shares of ``reps`` draws whose interval lies above 0 ('worse') or below it."""
    rng = np.random.default_rng(seed)
    out = np.zeros((2, 2))
    for _ in range(reps):
        p, q, y = draw(rng)
        w = np.exp(w_sigma * rng.normal(size=y.size)) if w_sigma else None
        for j, d in enumerate(_diffs(p, q, y)):
            e = paired_mean(d, w, LEVEL, skew=skew)
            out[j] += (e.low > 0, e.high < 0)
    return out / reps


def _t_tails(draw, reps, seed):
    """The plain paired t's (metric, tail) shares, vectorised over the draws (unweighted: the t statistic
    on n - 1 degrees of freedom, as ``paired_mean`` computes it)."""
    from scipy.stats import t as student

    rng = np.random.default_rng(seed)
    draws = [draw(rng) for _ in range(reps)]
    p, q, y = (np.array([x[i] for x in draws]) for i in range(3))
    out = np.zeros((2, 2))
    for j, d in enumerate(_diffs(p, q, y)):
        n = d.shape[1]
        stat = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
        crit = student.ppf(0.5 + LEVEL / 2, n - 1)
        out[j] = (np.mean(stat > crit), np.mean(stat < -crit))
    return out


def _allowance(reps, rate=0.025):
    return rate + 3.0 * np.sqrt(rate * (1 - rate) / reps)


def test_near_identity_holds_the_level_per_tail():
    """300 rows, about 10 positives, 1,000 draws: the t's worse tail 5.8 % / 6.6 % (Brier / log loss); the
    skew-guarded one within 2.5 % + 3 Monte-Carlo SE (4.0 %), and so the mirrored map (temperature 1/1.001,
    500 draws)."""
    reps = 1000
    t = _t_tails(lambda r: _near_identity(r, 300), reps, 43)
    guarded = _tails(lambda r: _near_identity(r, 300), reps, 43, skew=True)
    assert t[:, 0].max() > _allowance(reps), t  # the finding: the plain t runs high
    assert guarded.max() <= _allowance(reps), guarded
    mirrored = _tails(lambda r: _near_identity(r, 300, tau=1 / 1.001), 500, 44, skew=True)
    assert mirrored.max() <= _allowance(reps), mirrored


def test_guard_rejects_no_more_often_than_t_on_symmetric_differences():
    """Two exchangeable rare-event models (each the truth plus independent logit noise): the differences
    are symmetric but heavy-tailed, where Hall's transformation alone called equal models different in
    5-7 % of draws per tail; the guard's interval holds the t's (it rejects only where the t does)."""
    rng = np.random.default_rng(431)
    for _ in range(150):
        p = np.clip(rng.beta(0.5, 15, 150), 1e-9, 1 - 1e-9)
        y = (rng.random(150) < p).astype(float)
        z = logit(p)
        a, b = expit(z + 0.5 * rng.normal(size=150)), expit(z + 0.5 * rng.normal(size=150))
        for d in _diffs(a, b, y):
            t, g = paired_mean(d, None, LEVEL), paired_mean(d, None, LEVEL, skew=True)
            assert g.low <= t.low and g.high >= t.high and g.p_value >= t.p_value
            assert (g.value, g.se) == (t.value, t.se)


def test_power_on_a_real_miscalibration():
    """An overconfident (logit x 1.3) or underconfident (x 1/1.3) model against the calibrated truth, 1,000
    rows of rare events, 300 draws: the guard detects the overconfident one exactly as often as the t, and
    the underconfident one at least 0.75 times as often (the t's extra there is the skew's inflated tail:
    41 % vs 50 % in the measuring run)."""
    for k, floor in ((1.3, 1.0), (1 / 1.3, 0.75)):
        draw = lambda r: (lambda p, q, y: (p, expit(logit(p) * k), y))(*_near_identity(r, 1000))  # noqa: E731
        t = _t_tails(draw, 300, 7)
        g = _tails(draw, 300, 7, skew=True)
        hit_t, hit_g = t.sum(axis=1), g.sum(axis=1)
        assert (hit_t > 0.15).all(), t
        assert (hit_g >= floor * hit_t - 1e-12).all(), (t, g)


def test_compare_models_verdicts_and_note():
    """``vc.compare_models`` itself on 100 draws of the 300-row design: the log loss called worse (interval
    above 0) in at most 2 (the t: 6.6 % of draws, 9 of these); its notes and ``to_dict`` say the verdicts are
    skew-guarded and where they still run high."""
    rng = np.random.default_rng(4301)
    worse = 0
    for _ in range(100):
        p, q, y = _near_identity(rng, 300)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = vc.compare_models({"raw": p, "cal": q}, y.astype(int), n_resamples=0)
        ll = r.row("log_loss")
        worse += ll.ci_low > 0
    assert worse <= 2, worse
    from veracity.core._paired_mean import SKEW_SAYS

    assert any(SKEW_SAYS in t for t in r.to_dict()["notes"])
    assert "Hall's skew-corrected t" in str(r)


def test_compare_models_matches_the_core_rule():
    """The streaming form (``comparison._paired.paired_losses``: the third moment from pilot-centred sums)
    gives the core's interval and p-value, unweighted and weighted."""
    rng = np.random.default_rng(4302)
    p, q, y = _near_identity(rng, 400)
    for w in (None, np.exp(rng.normal(size=400))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = vc.compare_models({"raw": p, "cal": q}, y.astype(int), n_resamples=0, sample_weight=w)
        for metric, d in zip(("brier", "log_loss"), _diffs(p, q, y)):
            e, row = paired_mean(d, w, LEVEL, skew=True), r.row(metric)
            np.testing.assert_allclose([row.ci_low, row.ci_high, row.p_value], [e.low, e.high, e.p_value],
                                       rtol=1e-7, atol=1e-15)
