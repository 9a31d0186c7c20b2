"""ConformalClassifier: an option changed after fit is refused, never silently mixed with the fitted q̂.

q̂ is a quantile of the calib scores that alpha, score, lam, k_reg, randomized, mondrian and score_type
define. Before, changing one after fit gave sets of one rule beside q̂ of another (``cp.score = "aps"``
after a LAC fit: APS scores against the LAC q̂) and a coverage report whose target was the new alpha's
(``target 0.7`` for sets built at 0.9).
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _data(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.dirichlet([1.0, 1.0, 1.0], n), rng.integers(0, 3, n)


@pytest.mark.parametrize("name,value", [
    ("alpha", 0.3), ("score", "aps"), ("mondrian", True), ("randomized", True), ("score_type", "logit"),
    ("lam", 0.5), ("k_reg", 0),
])
@pytest.mark.parametrize("use", ["predict_sets", "coverage", "row_qhat", "to_dict"])
def test_an_option_changed_after_fit_is_refused(name, value, use):
    P, y = _data()
    score = "raps" if name in ("lam", "k_reg", "randomized") else "lac"
    cp = vc.ConformalClassifier(alpha=0.1, score=score).fit(P, y, sample_weight=np.ones(200))
    setattr(cp, name, value)
    calls = {"predict_sets": lambda: cp.predict_sets(P), "coverage": lambda: cp.coverage(P, y),
             "row_qhat": lambda: cp.row_qhat(test_weight=[1.0]), "to_dict": cp.to_dict}
    with pytest.raises(vc.VeracityError, match=rf"^{name} was .* fit and is now .*call fit\(probs, labels\) again"):
        calls[use]()


def test_setting_the_option_back_or_refitting_works():
    P, y = _data()
    cp = vc.ConformalClassifier(alpha=0.1).fit(P, y)
    q = cp.qhat_
    # LAC q̂: the ceil((n+1)(1-alpha))-th smallest of 1 - p_true (hand computation)
    scores = np.sort(1.0 - P[np.arange(200), y])
    assert q == scores[int(np.ceil(201 * 0.9)) - 1]
    cp.alpha = 0.3
    cp.alpha = 0.1
    assert cp.coverage(P, y).target == pytest.approx(0.9)
    cp.alpha = 0.3
    cp.fit(P, y)
    assert cp.qhat_ == scores[int(np.ceil(201 * 0.7)) - 1]
    assert cp.coverage(P, y).target == pytest.approx(0.7)
    assert cp.to_dict()["alpha"] == 0.3


def test_unfitted_to_dict_and_random_state_changes_are_fine():
    P, y = _data()
    cp = vc.ConformalClassifier(alpha=0.1, score="aps", randomized=True, random_state=0)
    assert cp.to_dict()["alpha"] == 0.1  # nothing fitted: nothing to disagree with
    cp.fit(P, y)
    cp.random_state = 5  # read at fit only (the draws of fit); changes no fitted state
    assert cp.predict_sets(P).shape == (200, 3)
