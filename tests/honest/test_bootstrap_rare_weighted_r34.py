"""Round 34: on rare events the weighted Brier score's, log loss's and accuracy's bootstrap intervals
under-cover although the rows' Kish effective size is large, and they said nothing.

The note on weighted means (honest._bootstrap.WEIGHTED_MEANS_NOTE) fired only when the rows' Kish size
(Σw)²/Σw² was below 100, but a mean over rare-event rows moves with the few rows of the smaller class:
calibrated Beta(0.6, 30) scores (2 % events) with log-normal weights w = exp(1.2 Z + 2p) on 3,000 rows have
a rows' Kish size of about 750 and a positives' Kish size of about 20; their 95 % BCa intervals covered
the population's weighted Brier score, log loss and accuracy 0.88-0.89 of the time (600 samples; 0.91-0.92
at 6,000 rows or sigma = 0.6, positives' Kish size about 40), with no note. Now the note also fires when
the smaller class's Kish size is below 100 (as the weighted AUC's), and names that size.

The population's values: the factor exp(1.2 Z) is independent of (p, y), so they are the tilted means
E[e^{2p} f(p)] / E[e^{2p}] over p ~ Beta(0.6, 30), f(p) = p(1 - p) (Brier), the binary entropy (log
loss), max(p, 1 - p) (accuracy at 0.5).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import stats

import veracity as vc
from veracity.honest._bootstrap import WEIGHTED_AUC_ROW, WEIGHTED_MEANS_NOTE

HEAD = WEIGHTED_MEANS_NOTE.split("{", 1)[0]
METRICS = ("brier", "nll", "accuracy")
A, B = 0.6, 30.0


def _kish(w: np.ndarray) -> float:
    return float(w.sum() ** 2 / (w * w).sum())


def _rows(n: int, sigma: float, rng: np.random.Generator):
    p = rng.beta(A, B, n)
    y = (rng.random(n) < p).astype(int)
    return p, y, np.exp(sigma * rng.standard_normal(n) + 2.0 * p)


@lru_cache(maxsize=None)
def _population() -> dict[str, float]:
    law = stats.beta(A, B)
    z = law.expect(lambda x: np.exp(2 * x))

    def entropy(x: float) -> float:
        return float(-(x * np.log(x) + (1 - x) * np.log1p(-x))) if 0.0 < x < 1.0 else 0.0

    return {"brier": law.expect(lambda x: np.exp(2 * x) * x * (1 - x)) / z,
            "nll": law.expect(lambda x: np.exp(2 * x) * entropy(x)) / z,
            "accuracy": law.expect(lambda x: np.exp(2 * x) * max(x, 1 - x), points=[0.5]) / z}


def test_the_population_values_are_the_weighted_means_of_a_large_sample():
    p, y, w = _rows(2_000_000, 1.2, np.random.default_rng(0))
    truth = _population()
    assert abs(vc.brier(p, y, sample_weight=w) - truth["brier"]) < 2e-4
    assert abs(vc.nll(p, y, sample_weight=w) - truth["nll"]) < 1e-3
    assert abs(vc.accuracy(p, y, sample_weight=w) - truth["accuracy"]) < 2e-4


def test_rare_events_with_many_effective_rows_but_few_effective_positives_under_cover():
    truth = _population()
    rng = np.random.default_rng(3401)
    hits, shown, rows_kish, pos_kish, noted = dict.fromkeys(METRICS, 0), 0, [], [], 0
    for r in range(240):
        p, y, w = _rows(3000, 1.2, rng)
        b = vc.bootstrap_intervals(p, y, sample_weight=w, metrics=METRICS, n_resamples=199, random_state=r)
        if not np.isfinite(b["brier"].low):  # a class's Kish size below 10: n/a
            continue
        shown += 1
        rows_kish.append(_kish(w))
        pos_kish.append(_kish(w[y == 1]))
        noted += any(t.startswith(HEAD) for t in b.notes)
        for k in METRICS:
            hits[k] += b[k].low <= truth[k] <= b[k].high
    cover = {k: v / shown for k, v in hits.items()}
    assert shown >= 200 and min(rows_kish) > 300 and np.median(pos_kish) < 30
    # three Monte-Carlo standard errors below 0.95 at 200 samples is 0.904: the mean of the three is below
    assert np.mean(list(cover.values())) < 0.92, cover
    assert noted == shown  # every one of these intervals says it may under-cover (before: none did)


def test_the_note_names_the_smaller_class_s_kish_size():
    p, y, w = _rows(3000, 1.2, np.random.default_rng(7))
    rows, pos = _kish(w), _kish(w[y == 1])
    assert rows > 100 > pos > 10
    r = vc.bootstrap_intervals(p, y, sample_weight=w, metrics=("brier", "nll", "accuracy", "ece"),
                               n_resamples=199, random_state=0)
    (note,) = [t for t in r.notes if t.startswith(HEAD)]
    assert note.startswith("the intervals of weighted means (Brier score, log loss and accuracy) may cover")
    assert f"the smaller class's Kish effective size is {pos:.1f} (below 100; the rows' {rows:.1f})" in note
    for metric in METRICS:
        assert np.isfinite(r[metric].low) and r[metric].note == WEIGHTED_AUC_ROW
    assert WEIGHTED_AUC_ROW not in r["ece"].note
    assert f"note: {note}" in str(r) and note in r.to_dict()["notes"]


def test_unweighted_rare_events_and_balanced_classes_with_many_effective_rows_carry_no_note():
    rng = np.random.default_rng(8)
    p, y, _ = _rows(3000, 0.0, rng)
    assert not vc.bootstrap_intervals(p, y, metrics=METRICS, n_resamples=199, random_state=0).notes
    p = rng.random(2000)
    y = (rng.random(p.size) < p).astype(int)
    w = np.exp(0.5 * rng.standard_normal(p.size))
    assert min(_kish(w[y == 1]), _kish(w[y == 0])) > 100
    assert not vc.bootstrap_intervals(p, y, sample_weight=w, metrics=METRICS, n_resamples=199,
                                      random_state=0).notes
