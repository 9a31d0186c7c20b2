"""The ledger's rounding rule reads each map's features from the calibrator's own code (session 33).

``_rounding_rule`` bounds the error of each computed value of temperature scaling, Platt and beta
calibration from the values of the map's input features (the logit of a clipped probability, ``log q``,
``−log1p(−q)``, ``−logaddexp(0, −s)``, ``logaddexp(0, s)``). It recomputed them in a second copy
(``_ledger._feature``), which would keep certifying against the old values if a calibrator changed how it
computes its feature; it now calls the calibrator's own method (``_features_of``) and keeps only the error
bounds (``_feature_error``), the exact gaps and the rule. On the shipped calibrators the old copy and the
calibrators agree bit for bit (values, bounds and the rule's answers), so the first test pins that
agreement rather than a defect; the drift tests show the rule following a calibrator that computes its
feature differently.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import PROB_EPS

_MAX = np.finfo(np.float64).max
_TINY = np.nextafter(0.0, 1.0)

#: hostile probabilities: the ends, beyond the clip, at the clip, subnormal, a tie, the doubles around 0.5
_P = np.array([0.0, 1.0, 1e-300, _TINY, 1 - 1e-16, PROB_EPS, 1 - PROB_EPS, np.nextafter(PROB_EPS, 0.0),
               0.5, np.nextafter(0.5, 1.0), np.nextafter(0.5, 0.0), 1e-17, 3e-17, 1e-5, 1 - 1e-8,
               0.3, 0.3, 0.999999, 1e-200])
#: hostile logits: ±max-float, ±1e308, signed zeros, subnormal, exp's overflow and underflow, a tie
_S = np.array([0.0, -0.0, 1e308, -1e308, _MAX, -_MAX, _TINY, -_TINY, 40.0, -40.0, 709.8, -745.2, 800.0,
               -800.0, 1e-17, 3e-17, 2.0, 2.0, 37.0, -37.0, 1e200, -1e200])


def _fitted(cls, score_type: str):
    rng = np.random.default_rng(7)
    s = rng.normal(0, 2, 1500)
    y = (rng.random(1500) < 1 / (1 + np.exp(-(0.8 * s + 0.3)))).astype(int)
    x = s if score_type == "logit" else 1 / (1 + np.exp(-s))
    return cls(score_type=score_type).fit(x, y)


@pytest.mark.parametrize("score_type,x", [("probability", _P), ("logit", _S)])
@pytest.mark.parametrize("cls", [vc.TemperatureScaling, vc.PlattScaling, vc.BetaCalibration])
def test_the_rule_reads_the_values_the_map_computes(cls, score_type, x):
    from veracity.calibrators._beta import probability_features  # the shared features (session 33)
    from veracity.calibrators._ledger import _feature_error, _features_of

    cal = _fitted(cls, score_type)
    assert cal.kind == "temperature" or cal.preserves_order_
    names, features = _features_of(cal)
    values = features(x.copy())
    # the features as the calibrator itself computes them, bit for bit
    own = cal._features(x.copy()) if cls is vc.BetaCalibration else (cal._logit_input(x.copy()),)
    assert len(values) == len(own) == len(names)
    for v, o in zip(values, own):
        assert v.tobytes() == o.tobytes()
    # the rule's model of the map, evaluated on those values in its order, is the calibrator's output bit
    # for bit (±inf where a·s overflows): the bounds describe the computation transform_logit does
    with np.errstate(over="ignore"):
        if cal.kind == "temperature":
            model = values[0] / cal.temperature_
        elif cal.kind == "platt":
            model = cal.a_ * values[0] + cal.b_
        else:
            model = cal.a_ * values[0] + cal.b_ * values[1] + cal.c_
        out = cal.transform_logit(x.copy())
    assert model.tobytes() == np.asarray(out, dtype=np.float64).tobytes()
    # every bound is finite: the logit's two parts (beta's features) are the calibrator's logit, exactly
    for name, v in zip(names, values):
        with np.errstate(over="ignore"):  # the spacing above max-float (softplus of max-float): inf
            err = _feature_error(name, v, x.copy())
        assert not np.isnan(err).any() and (err >= 0).all()
    if score_type == "probability":
        log_q, minus_log1m = probability_features(x.copy())
        assert (log_q + minus_log1m).tobytes() == vc.PlattScaling(score_type="probability")._logit_input(
            x.copy()).tobytes()


class _Float32Platt(vc.PlattScaling):
    """Platt scaling whose input feature is computed in float32 (a drift of the calibrator's feature code):
    its map ties logits a few float32 ulps apart, each a genuine rounding of its float32 arithmetic."""

    def _logit_input(self, s):
        return np.asarray(super()._logit_input(s), dtype=np.float32)


class _RatioLogitPlatt(vc.PlattScaling):
    """Platt scaling whose logit is log(q / (1 − q)), not the log q − log1p(−q) the ledger's bound models."""

    def _logit_input(self, s):
        if self.score_type != "probability":
            return super()._logit_input(s)
        q = np.clip(s, PROB_EPS, 1.0 - PROB_EPS)
        return np.log(q / (1.0 - q))


def _body(seed: int = 5, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 2, n)
    return s, (rng.random(n) < 1 / (1 + np.exp(-(0.5 * s + 1)))).astype(int)


def test_a_calibrator_computing_its_feature_in_float32_is_judged_on_its_own_values():
    rng = np.random.default_rng(1)
    x = rng.normal(0, 2, 2000)
    y = (rng.random(2000) < 1 / (1 + np.exp(-(0.5 * x + 1)))).astype(int)
    cal = _Float32Platt(score_type="logit").fit(x, y)
    assert cal.preserves_order_
    lo, hi = 1.0, 1.0 + 2.0 ** -40  # 2^12 doubles apart, one float32
    z = cal.transform_logit(np.array([lo, hi]))
    assert z[0] == z[1]
    # the oracle by hand: the exact images differ by a·2^-40, far under half a float32 ulp of a·1 + b
    assert cal.a_ * (hi - lo) < np.spacing(np.float32(cal.a_ + cal.b_)) / 2
    s, lab = _body()
    s, lab = np.r_[s, lo, hi], np.r_[lab, 1, 0]
    ledger = vc.compare(s, lab, cal)
    c = ledger.certificates
    # the body's own float32 ties (if any) are rounding too: every tie is, none is reversed
    assert c["ties_created"] >= 1 and c["ties_rounding"] == c["ties_created"] and c["reversals"] == 0
    assert "BROKEN" not in str(ledger)  # the old copy bounded double-precision values: "BROKEN"


def test_a_logit_computed_another_way_gets_no_rounding_certificate():
    from veracity.calibrators._beta import probability_features  # the shared features (session 33)
    from veracity.calibrators._ledger import _rounding_rule

    rng = np.random.default_rng(2)
    p = rng.uniform(0.02, 0.98, 1500)
    y = (rng.random(1500) < p).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = vc.PlattScaling().fit(p, y)
        ratio = _RatioLogitPlatt().fit(p, y)
    ratio.a_, ratio.b_ = plain.a_, plain.b_  # the same map but for how its logit is computed
    lo = rng.uniform(0.3, 0.7, 4000)
    hi = np.nextafter(lo, 1.0)  # adjacent doubles: the plain rule explains their tie
    differs = np.zeros(lo.size, dtype=bool)
    for x in (lo, hi):
        log_q, minus_log1m = probability_features(x)
        differs |= ratio._logit_input(x) != log_q + minus_log1m
    assert differs.any() and not differs.all()
    zero = np.zeros(lo.size)
    assert _rounding_rule(plain)(lo, hi, zero).all()
    got = _rounding_rule(ratio)(lo, hi, zero)
    # where the calibrator's logit is not the difference of its parts, the bound's model of it fails: no
    # certificate (a tie there reads BROKEN); where it is, the plain map's answer
    assert not got[differs].any()
    assert got[~differs].all()
