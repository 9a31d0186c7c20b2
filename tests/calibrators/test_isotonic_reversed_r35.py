"""Isotonic and Venn–ABERS fits of a reversed score warn, as Platt, beta and temperature scaling do
(round 35).

A non-decreasing map cannot follow a score whose higher values go with FEWER positives: PAV pools it into
one block, and ``IsotonicCalibration`` / ``VennAbers`` returned the base rate for every score in silence
(1,000 rows of AUC 0.18: every output 0.512), where ``BetaCalibration`` -- the same constrained situation,
a constant map -- warned "the score is reversed ... check the score's sign convention". They now warn on
the same DeLong verdict (:func:`veracity.calibrators._platt.association`: the AUC's interval wholly below
1/2),
and stay quiet on scores that rank the right way or show no signal.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc


def _reversed(n: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return p, (rng.random(n) < 1.0 - p).astype(int)  # higher scores, fewer positives


def _caught(fit) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in seen]


@pytest.mark.parametrize("kwargs", [{}, {"interpolation": "linear"}])
def test_isotonic_on_a_reversed_score_warns_and_names_the_constant(kwargs):
    p, y = _reversed()
    cal = vc.IsotonicCalibration(**kwargs)
    said = _caught(lambda: cal.fit(p, y))
    assert len(said) == 1, said
    rate = y.mean()
    assert said[0].startswith("IsotonicCalibration: the score is reversed (higher scores go with FEWER "
                              "positives")
    assert f"every output the base rate {rate:.4g}" in said[0] and "pass 1 - p" in said[0]
    assert np.allclose(cal.transform(np.array([0.05, 0.5, 0.95])), rate)  # the fit itself is unchanged


def test_isotonic_strict_says_both_in_one_warning():
    p, y = _reversed()
    said = _caught(lambda: vc.IsotonicCalibration(ties="strict").fit(p, y))
    assert len(said) == 1, said
    assert "the fit is one constant block" in said[0] and "The score is reversed" in said[0]


def test_isotonic_of_a_reversed_logit_says_negate_it():
    p, y = _reversed()
    said = _caught(lambda: vc.IsotonicCalibration(score_type="logit").fit(np.log(p / (1 - p)), y))
    assert len(said) == 1 and "pass the negated score" in said[0], said


def test_venn_abers_on_a_reversed_score_warns():
    p, y = _reversed()
    said = _caught(lambda: vc.VennAbers().fit(p, y))
    assert len(said) == 1 and said[0].startswith("VennAbers: the score is reversed"), said
    assert f"the base rate is {y.mean():.4g}" in said[0]


def test_weighted_reversed_score_warns_and_forward_or_flat_scores_do_not():
    p, y = _reversed()
    w = np.random.default_rng(1).uniform(0.5, 2.0, p.size)
    assert len(_caught(lambda: vc.IsotonicCalibration().fit(p, y, sample_weight=w))) == 1
    assert len(_caught(lambda: vc.VennAbers().fit(p, y, sample_weight=w))) == 1
    forward = 1 - y
    assert _caught(lambda: vc.IsotonicCalibration().fit(p, forward)) == []
    assert _caught(lambda: vc.VennAbers().fit(p, forward)) == []
    # one positive among the rows: too few of a class to call anything reversed
    few = np.zeros(p.size, dtype=int)
    few[np.argmin(p)] = 1
    few[np.argmax(p)] = 0
    assert _caught(lambda: vc.IsotonicCalibration().fit(p, few)) == []


def test_reversed_warning_rate_on_signal_free_and_reversed_scores():
    # seeded simulation: scores with no signal are called reversed at about the one-sided 2.5 % the 95 %
    # interval allows; a reversal of AUC about 0.3 on 300 rows is called reversed nearly always
    noise = reversed_ = 0
    draws = 200
    for seed in range(draws):
        rng = np.random.default_rng(seed)
        p = rng.random(300)
        flat = (rng.random(300) < 0.4).astype(int)
        rev = (rng.random(300) < 0.8 - 0.6 * p).astype(int)
        noise += bool(_caught(lambda: vc.IsotonicCalibration().fit(p, flat)))
        reversed_ += bool(_caught(lambda: vc.IsotonicCalibration().fit(p, rev)))
    assert noise / draws <= 0.06, noise
    assert reversed_ / draws >= 0.95, reversed_


def test_a_lazy_frame_fit_of_a_reversed_score_warns_too():
    # the lazy fit hands PAV its pooled rows (distinct scores, mean labels, summed weights); the verdict is
    # read where the rows live (frames._fit.frame_association), as the array fit reads it
    pl = pytest.importorskip("polars")
    p, y = _reversed(3000)
    p = np.round(p, 2)  # ties of mixed labels: mean labels strictly between 0 and 1
    said = _caught(lambda: vc.IsotonicCalibration().fit(pl.DataFrame({"p": p, "y": y}).lazy(), score="p",
                                                        label="y"))
    eager = _caught(lambda: vc.IsotonicCalibration().fit(p, y))
    assert len(said) == 1 and said[0].startswith("IsotonicCalibration: the score is reversed"), said
    # the same verdict as the rows give in memory: AUC and its interval (read where the rows live)
    assert said[0].split("AUC ")[1].split(")")[0] == eager[0].split("AUC ")[1].split(")")[0]
