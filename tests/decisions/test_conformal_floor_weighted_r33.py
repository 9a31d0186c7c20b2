"""Round 33: weighted calib rows whose Kish effective number is below the +1 rule's rank (9 at alpha 0.1) have
their q̂ refused; with ``test_weight=`` every measured row gets its own q̂ (the exact covariate-shift rule)
and coverage is measured. The calib floor read such a calib set as one whose every set holds the class
(coverage 1): the floor was 1.0, and coverage 0.8333 on 30 rows (95% interval [0.66, 0.93]) was called
"below the 0.9 target beyond sampling noise (...the calib set's own noise reaches down to 1.0000 only)" —
in 61% of exchangeable draws. There is no Beta law to judge against there: no floor, nothing called short."""

from __future__ import annotations

import numpy as np

import veracity as vc


def _draw(rng, n):
    p = rng.random(n)
    return p, (rng.random(n) < p).astype(int), np.exp(rng.normal(0.0, 3.0, n))


def test_exchangeable_rows_are_not_called_short_when_the_calib_weights_are_too_uneven():
    rng = np.random.default_rng(9)
    draws = flagged = 0
    for _ in range(120):
        p, y, w = _draw(rng, 60)
        cp = vc.ConformalClassifier(alpha=0.1).fit(p[:30], y[:30], sample_weight=w[:30])
        if np.isfinite(cp.qhat_):  # effective number >= 9: the Beta law of its effective size applies
            continue
        draws += 1
        report = cp.coverage(p[30:], y[30:], test_weight=w[30:])
        assert report.calib_floor is None and report.interval is not None
        flagged += report.below_target or bool(report.short_classes)
        assert "beyond sampling noise" not in str(report)
    assert draws >= 100 and flagged == 0


def test_mondrian_classes_too_uneven_have_no_floor_and_even_weights_keep_theirs():
    rng = np.random.default_rng(2)
    p, y, w = _draw(rng, 400)
    w[:200] = 1.0
    w[np.flatnonzero(y[:200] == 1)[0]] = 1e6  # class 1's calib rows: an effective number near 1
    cp = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(p[:200], y[:200], sample_weight=w[:200])
    assert np.isinf(cp.class_qhat_[1]) and np.isfinite(cp.class_qhat_[0])
    assert cp.coverage(p[200:], y[200:], test_weight=w[200:]).calib_floor is None
    even = vc.ConformalClassifier(alpha=0.1).fit(p[:200], y[:200], sample_weight=np.full(200, 3.0))
    law = vc.conformal_coverage_law(200, 0.1)
    from scipy import stats

    floor = even.coverage(p[200:], y[200:], test_weight=np.full(200, 3.0)).calib_floor
    assert abs(floor - stats.beta.ppf(0.025, law.a, law.b)) < 1e-9
