"""A negative association read off calibration rows is called "reversed" only beyond noise.

Before, ``TemperatureScaling`` (τ clamped at its upper end with cov(s, y) < 0) and ``PlattScaling``
(slope a < 0) said "the scores are reversed ... pass -scores, or 1 - p" whenever the fit came out
negative, which scores with no signal do about half the time: 200 rows, p uniform, labels independent
of p. Negating such scores repairs nothing. Now the rows' AUC with DeLong's interval decides: wholly
below 1/2, the old sign advice; holding 1/2 (or too few rows of a class), "the scores show no
association with the labels here (AUC ..., 95% interval [...])"; wholly above 1/2 (extreme rows pull the
fit backwards), a check of those rows, never "negate the scores".
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from scipy import stats

import veracity as vc

SIGN_ADVICE = re.compile(r"FEWER positives|sign convention")


def _said(fit) -> str:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return " ".join(str(w.message) for w in caught)


def _no_signal(seed: int, n: int = 200):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.01, 0.99, n), rng.integers(0, 2, n), rng.exponential(size=n)


def _reversed(seed: int, n: int = 300):
    """Binormal logits of AUC Φ(-0.7416/√2) = 0.30: positives score lower."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n // 2), np.zeros(n - n // 2)].astype(int)
    return rng.normal(0.0, 1.0, n) - 0.7416 * y, y, rng.exponential(size=n)


CALIBRATORS = {"temperature": vc.TemperatureScaling, "platt": vc.PlattScaling}


@pytest.mark.parametrize("kind", sorted(CALIBRATORS))
@pytest.mark.parametrize("weighted", [False, True])
def test_no_signal_is_rarely_called_reversed(kind, weighted):
    """300 seeds of signal-free rows: the fit comes out negative in about half (each is warned), and the
    sign advice appears in at most 5 % (a two-sided 95 % interval below 1/2: ~2.5 %; old code ~50 %)."""
    cls = CALIBRATORS[kind]
    claims = negative = 0
    for seed in range(300):
        p, y, w = _no_signal(seed)
        text = _said(lambda: cls().fit(p, y, sample_weight=w if weighted else None))
        claims += bool(SIGN_ADVICE.search(text))
        negative += "no association" in text
    assert claims <= 15, claims
    assert negative >= 100, negative  # the negative fits are still warned, in the honest words


@pytest.mark.parametrize("kind", sorted(CALIBRATORS))
@pytest.mark.parametrize("weighted", [False, True])
def test_a_real_reversal_is_still_named_reversed(kind, weighted):
    cls = CALIBRATORS[kind]
    named = 0
    for seed in range(100):
        s, y, w = _reversed(seed)
        text = _said(lambda: cls(score_type="logit").fit(s, y, sample_weight=w if weighted else None))
        named += bool(SIGN_ADVICE.search(text)) and "no association" not in text
    assert named >= 95, named


def _delong_oracle(s: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """AUC and DeLong's 95 % interval from the O(n²) placements, on the logit scale with Student's t on the
    smaller class's rows less one (r32: the AUC-scale interval on Welch–Satterthwaite df under-covered near
    AUC 0 and 1; tests/calibrators/test_association_interval_r32.py)."""
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = float(psi.mean())
    v1 = psi.mean(axis=1).var(ddof=1) / pos.size  # placements of the positives: share of negatives below
    v0 = psi.mean(axis=0).var(ddof=1) / neg.size  # of the negatives: share of positives above
    half = stats.t.ppf(0.975, min(pos.size, neg.size) - 1) * np.sqrt(v1 + v0) / (auc * (1 - auc))
    centre = np.log(auc / (1 - auc))
    return auc, 1 / (1 + np.exp(half - centre)), 1 / (1 + np.exp(-centre - half))


def _numbers(text: str) -> tuple[float, float, float]:
    m = re.search(r"AUC (\d\.\d{3}), 95% interval \[(\d\.\d{3}), (\d\.\d{3})\]", text)
    assert m, text
    return float(m[1]), float(m[2]), float(m[3])


def test_the_no_signal_warning_gives_the_rows_auc_and_delong_interval():
    p, y, _ = _no_signal(3)
    auc, lo, hi = _delong_oracle(np.log(p / (1 - p)), y)
    assert lo < 0.5 < hi and auc < 0.5  # this seed fits a negative slope on noise
    for cls in (vc.TemperatureScaling, vc.PlattScaling):
        text = _said(lambda: cls().fit(p, y))
        assert "the scores show no association with the labels here" in text, text
        assert "cannot tell a reversed score from no signal" in text
        assert not SIGN_ADVICE.search(text) and "-score" not in text and "1 - p" not in text
        np.testing.assert_allclose(_numbers(text), (auc, lo, hi), atol=6e-4)
        assert vc.auc(p, y) == pytest.approx(_numbers(text)[0], abs=6e-4)


def test_too_few_rows_of_a_class_are_not_called_reversed():
    # six rows, AUC 1/9: the exact Mann-Whitney two-sided p is 0.2
    s = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    y = np.array([1, 1, 0, 1, 0, 0])
    for cls in (vc.TemperatureScaling, vc.PlattScaling):
        text = _said(lambda: cls(score_type="logit").fit(s, y))
        assert "too few rows of a class" in text and "3 positive and 3 negative rows" in text, text
        assert not SIGN_ADVICE.search(text)


def test_on_reversed_error_raises_on_both_with_its_own_words():
    """'error' refuses any negative slope (the map reverses the ranking whatever the cause); the message
    says which: a reversal beyond noise gets the sign advice, noise the no-association words."""
    s, y, _ = _reversed(0)
    with pytest.raises(vc.VeracityError, match=r"reverses the ranking.*sign convention"):
        vc.PlattScaling(score_type="logit", on_reversed="error").fit(s, y)
    p, y0, _ = _no_signal(3)  # a seed whose slope comes out negative (AUC 0.45)
    refusal = r"no association with the labels.*on_reversed='allow'\)$"
    with pytest.raises(vc.VeracityError, match=refusal) as err:
        vc.PlattScaling(on_reversed="error").fit(p, y0)
    assert "sign convention" not in str(err.value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 'allow' stays silent, and the flag still records the slope's sign
        cal = vc.PlattScaling(on_reversed="allow").fit(p, y0)
    assert cal.reversed_ and cal.a_ < 0


def test_a_ranking_that_goes_the_right_way_is_not_told_to_negate():
    """A good model (AUC ~0.82) plus one row at logit 1e10 labelled 0: Platt's slope is ~ -1.7e-9, but
    negating the scores would reverse a working ranking."""
    rng = np.random.default_rng(3)
    z = rng.normal(0.0, 2.0, 500)
    y = (rng.random(500) < 1.0 / (1.0 + np.exp(-z / 1.3))).astype(int)
    text = _said(lambda: vc.PlattScaling(score_type="logit").fit(np.r_[z, 1e10], np.r_[y, 0]))
    assert "negative slope" in text and "rank the labels the right way" in text, text
    assert "sign convention" not in text and "pass -score" not in text
    auc, lo, hi = _numbers(text)
    assert lo > 0.5
    assert auc == pytest.approx(vc.auc(np.r_[z, 1e10], np.r_[y, 0], score_type="logit"), abs=6e-4)


def test_temperature_on_a_working_ranking_with_far_wrong_rows_is_not_told_to_negate():
    """The same good model plus five rows at logit 200 labelled 0: they outweigh the rest at β → 0, so no
    positive temperature fits, but the ranks go the right way (old: "the scores are reversed ... pass
    -scores, or 1 - p")."""
    rng = np.random.default_rng(3)
    z = rng.normal(0.0, 2.0, 500)
    y = (rng.random(500) < 1.0 / (1.0 + np.exp(-z / 1.3))).astype(int)
    s, t = np.r_[z, np.full(5, 200.0)], np.r_[y, np.zeros(5, int)]
    with pytest.warns(UserWarning, match="rank the labels the right way") as rec:
        ts = vc.TemperatureScaling(score_type="logit").fit(s, t)
    text = str(rec[0].message)
    assert ts.clamped_ == "upper" and not SIGN_ADVICE.search(text) and "1 - p" not in text, text
    auc, lo, _ = _numbers(text)
    assert lo > 0.5 and auc == pytest.approx(vc.auc(s, t, score_type="logit"), abs=6e-4)
