"""Round 34: the paired t intervals of ΔBrier and Δlog loss (``vc.compare_models``) with few rows of a class.

Below 10 rows of a class the ΔAUC, ΔECE, ΔMCB and ΔDSC intervals are n/a and a note says so; it said the
Brier and log-loss intervals (paired t) "stand". Two equally good models are indeed called different no
more often than the level allows, but where the models differ the t law misreads a mean of a few large
per-row differences (those of the few rows of a class), and the interval sits off to one side: in seeded
draws of rare events (rates 1-20 %, 100-2,000 rows; model A calibrated and coarse, B calibrated and sharp,
B overconfident or B too high) the true difference lay beyond one end of the 95 % interval in 5-11 % of
draws with 2-9 of a class (pooled over designs; 22 % in the worst), 3.6-6 % with 10-19, at most 3.3 % (Brier)
and 4.2 % (log loss) with 20-39, 2.8 % from 40 (2.5 % nominal). Skew-corrected t intervals were tried and
not adopted: Johnson's (1978) shift moved a tail by at most 0.012; Hall's (1992) transformation took the worse
tail from 4-8.5 % to 2-5.3 % with 10-20 expected positives, but called two equally good models different in
9-17 % of draws with 1-20 expected positives (at 5 %). So the intervals stay, and the note says how they run
short. The draws here are a probit model, whose coarse view :math:`E[y | z_1]` is exactly calibrated.
"""

import numpy as np
from scipy.stats import norm

import veracity as vc

from .conftest import paired_t_tails

SCALE = 1.2  # the latent score's scale: p = Phi(base + SCALE z), z = sqrt(0.6) z1 + sqrt(0.4) z2


def _draw(rng, n, rate, equal=False):
    """True risks p, the labels, and two models' scores: A sees z1 only (calibrated, coarse), B sees z (the
    true risk: calibrated, sharper); ``equal``: A and B see z1 through independent noise of one law."""
    base = norm.ppf(rate) * np.sqrt(1 + SCALE ** 2)
    z1 = rng.normal(size=n)
    p = norm.cdf(base + SCALE * (np.sqrt(0.6) * z1 + np.sqrt(0.4) * rng.normal(size=n)))
    y = (rng.random(n) < p).astype(float)
    scale = np.sqrt(1 + SCALE ** 2 * 0.4)
    if equal:
        a, b = (norm.cdf((base + SCALE * (np.sqrt(0.6) * z1 + 0.35 * rng.normal(size=n))) / scale)
                for _ in range(2))
    else:
        a, b = norm.cdf((base + SCALE * np.sqrt(0.6) * z1) / scale), p
    return np.clip(a, 1e-12, 1 - 1e-12), np.clip(b, 1e-12, 1 - 1e-12), p, y


def _truth(rate):
    """ΔBrier and Δlog loss (B - A) of the population, from the expected losses at the true risks."""
    a, b, p, _ = _draw(np.random.default_rng(7), 400_000, rate)
    brier = p * (1 - b) ** 2 + (1 - p) * b * b - p * (1 - a) ** 2 - (1 - p) * a * a
    ll = -p * np.log(b) - (1 - p) * np.log1p(-b) + p * np.log(a) + (1 - p) * np.log1p(-a)
    return float(brier.mean()), float(ll.mean())


def _tails(rate, n, reps, seed, few, equal=False):
    """Per metric (Brier, log loss): the share of draws (with ``few(k)`` for k the rows of the smaller class)
    whose interval lies above the truth, and below it."""
    truth = (0.0, 0.0) if equal else _truth(rate)
    return paired_t_tails(lambda rng: _draw(rng, n, rate, equal), truth, reps, seed, few)


def test_the_note_under_few_rows_of_a_class_says_how_the_t_intervals_run_short():
    rng = np.random.default_rng(3)
    a, b, _, y = _draw(rng, 300, 0.02)
    assert 0 < y.sum() < 10
    r = vc.compare_models({"a": a, "b": b}, y, random_state=0, n_resamples=50)
    note = next(t for t in r.notes if t.startswith("too few rows of a class"))
    assert "(paired t) stand" not in note
    assert "the Brier and log-loss intervals (paired t) are shown but run short" in note
    assert "beyond one end of the 95% interval in 5-11% of seeded draws" in note


def test_with_few_of_a_class_the_interval_sits_off_the_truth_on_one_side():
    """A coarse and a sharp calibrated model at a 2 % rate on 300 rows (6 expected positives), draws with
    1-9 positives: the truth below the Brier and log-loss intervals in 12 % and 10 % (nominal 2.5 %), above
    them in none."""
    tails = _tails(0.02, 300, 600, 34, lambda k: k < 10)
    assert np.all(tails[:, 0] >= 0.06), tails
    assert np.all(tails[:, 1] <= 0.02), tails


def test_two_equally_good_models_are_not_called_different_beyond_the_level():
    tails = _tails(0.02, 300, 600, 35, lambda k: k < 10, equal=True)
    assert np.all(tails <= 0.035), tails


def test_from_forty_of_a_class_both_tails_hold():
    """The same two models at a 10 % rate on 1,000 rows (100 expected positives): each tail near 2.5 %."""
    tails = _tails(0.10, 1000, 600, 36, lambda k: k >= 40)
    assert np.all(tails <= 0.04), tails
