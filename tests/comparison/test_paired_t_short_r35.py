"""Round 35: the paired t intervals of ΔBrier and Δlog loss (``vc.compare_models``) run short past 10 rows of
a class too, where no note said so.

Below 10 rows of the rarer class a note says how the paired t intervals run short (round 34). From 10 on
nothing did, yet in seeded draws (rates 1-50 %, 15-200 expected rows of the rarer class; B calibrated and
sharp, overconfident, 1.6 times too high or underconfident against a calibrated coarse A; 1,500 draws a
design) the true difference lay beyond one end of the 95 % interval in 3.1 % (Brier) and 4.0 % (log loss) of
draws with 10-39 of a class, pooled (6.1 % and 11 % in the worst design; 2.5 % is nominal); 2.6 % and 3.4 %
with 40-99, 2.5 % and 3.0 % with 100-299. Now a note says so below 40 of a class.
"""

import numpy as np
import pytest
from scipy.stats import norm

import veracity as vc

from .conftest import paired_t_tails

SCALE = 1.2


def _draw(rng, n, rate, over=False):
    """True risks from a probit law, labels, and two models: A sees half the latent score (calibrated,
    coarse); B is the true risk (calibrated, sharp) or, ``over``, the true risk pushed out on the probit scale
    by 1.5 (overconfident)."""
    base = norm.ppf(rate) * np.sqrt(1 + SCALE ** 2)
    z1 = rng.normal(size=n)
    p = norm.cdf(base + SCALE * (np.sqrt(0.6) * z1 + np.sqrt(0.4) * rng.normal(size=n)))
    y = (rng.random(n) < p).astype(float)
    a = norm.cdf((base + SCALE * np.sqrt(0.6) * z1) / np.sqrt(1 + SCALE ** 2 * 0.4))
    b = norm.cdf(1.5 * norm.ppf(p)) if over else p
    return np.clip(a, 1e-12, 1 - 1e-12), np.clip(b, 1e-12, 1 - 1e-12), p, y


def _truth(rate, over):
    a, b, p, _ = _draw(np.random.default_rng(7), 400_000, rate, over)
    brier = p * (1 - b) ** 2 + (1 - p) * b * b - p * (1 - a) ** 2 - (1 - p) * a * a
    ll = -p * np.log(b) - (1 - p) * np.log1p(-b) + p * np.log(a) + (1 - p) * np.log1p(-a)
    return float(brier.mean()), float(ll.mean())


def _tails(rate, n, reps, seed, over):
    """Per metric (Brier, log loss): the shares of draws with 10-39 rows of the rarer class whose 95 %
    interval lies above the truth, and below it."""
    return paired_t_tails(lambda rng: _draw(rng, n, rate, over), _truth(rate, over), reps, seed,
                          lambda k: 10 <= k < 40)


def test_with_ten_to_forty_of_a_class_one_tail_runs_short():
    """A sharp model against a coarse one at a 1 % rate on 1,500 rows (15 expected positives): the truth
    below the Brier interval in 3.6 % of these draws; an overconfident one at 2 % on 750 rows: above the
    log-loss interval in 9.4 % (nominal 2.5 %), the other tails under 1 %."""
    sharp = _tails(0.01, 1500, 500, 351, over=False)
    assert sharp[0, 0] >= 0.03, sharp
    assert sharp[:, 1].max() <= 0.01, sharp
    over = _tails(0.02, 750, 500, 352, over=True)
    assert over[1, 1] >= 0.06, over
    assert over[1, 0] <= 0.01, over


def _note(r):
    return [t for t in r.notes if "paired t" in t]


def test_the_note_says_how_short_they_ran_between_ten_and_forty_of_a_class():
    a, b, _, y = _draw(np.random.default_rng(5), 600, 0.04)
    k = int(y.sum())
    assert 10 <= k < 40
    r = vc.compare_models({"a": a, "b": b}, y, random_state=0, n_resamples=0)
    note = _note(r)
    assert len(note) == 1, r.notes
    assert note[0].startswith(f"few rows of a class for the Brier and log-loss intervals (paired t; {k} "
                              f"positive and {600 - k} negative rows: fewer than 40 of a class): they run short")
    assert ("beyond one end of the 95% interval in 3.1% (Brier) and 4.0% (log loss) of seeded draws with "
            "10-39 of a class, pooled over designs (6.1% and 11% in the worst; 2.5% is nominal)") in note[0]
    assert "note: few rows of a class for the Brier and log-loss intervals" in str(r)
    assert note == _note(vc.compare_models({"a": a, "b": b}, y, random_state=0, n_resamples=50))


def test_no_such_note_from_forty_of_a_class_nor_for_identical_models():
    a, b, _, y = _draw(np.random.default_rng(6), 1000, 0.05)
    assert 40 <= y.sum() < 100
    assert _note(vc.compare_models({"a": a, "b": b}, y, random_state=0, n_resamples=0)) == []
    a, b, _, y = _draw(np.random.default_rng(5), 600, 0.04)
    assert _note(vc.compare_models({"a": a, "b": a.copy()}, y, random_state=0, n_resamples=0)) == []


def test_below_ten_the_older_note_alone_speaks():
    a, b, _, y = _draw(np.random.default_rng(3), 300, 0.02)
    assert 0 < y.sum() < 10
    notes = vc.compare_models({"a": a, "b": b}, y, random_state=0, n_resamples=0).notes
    assert not any(t.startswith("few rows of a class for the Brier") for t in notes)
    assert any(t.startswith("too few rows of a class") for t in notes)


def test_weighted_rows_read_the_classes_kish_sizes():
    """Weights: the rarer class's Kish effective size decides, and the note gives both."""
    rng = np.random.default_rng(8)
    a, b, _, y = _draw(rng, 1000, 0.05)
    w = rng.lognormal(0.0, 1.0, y.size)
    pos = y == 1
    kish1 = w[pos].sum() ** 2 / (w[pos] ** 2).sum()
    kish0 = w[~pos].sum() ** 2 / (w[~pos] ** 2).sum()
    assert 10 <= kish1 < 40 <= y.sum()  # 40 positive rows or more, fewer effective ones
    note = _note(vc.compare_models({"a": a, "b": b}, y, sample_weight=w, random_state=0, n_resamples=0))
    assert len(note) == 1
    sizes = f"Kish effective sizes {kish1:.1f} positive and {kish0:.1f} negative of the weighted rows"
    assert sizes in note[0]
