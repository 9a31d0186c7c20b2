"""Only the weights' ratios matter to the honest sections (the contract of ``check_weights``):
Hosmer–Lemeshow, the calibration slope's and in-the-large's standard errors and the smooth
ECE used to follow the weights' scale — weights of 10 made a calibrated model fail
Hosmer–Lemeshow every time, weights of 0.1 hid any miscalibration. Now each counts in
effective rows (Kish), checked here by invariance and by a seeded simulation."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import veracity as vc

#: fields in the weights' own units (sums of weights), which do scale with them
_IN_WEIGHT_UNITS = ("total_weight", "/n", "/observed", "/expected", "curve/weight")


def _flat(d: Any, pre: str = "") -> dict[str, Any]:
    if isinstance(d, dict):
        return {k: v for key, val in d.items() for k, v in _flat(val, f"{pre}/{key}").items()}
    if isinstance(d, list):
        return {k: v for i, val in enumerate(d) for k, v in _flat(val, f"{pre}[{i}]").items()}
    return {pre: d}


def _honest(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, Any]:
    r = vc.audit(p, y, sample_weight=w, bootstrap=True, n_resamples=100, noise_floor=True,
                 estimators=True, tests=True, corp=True, random_state=0, strategy="quantile")
    return _flat(r.to_dict())


@pytest.mark.parametrize("scale", [0.1, 1 / 3, 1e6, 1e-200])
def test_every_honest_number_ignores_the_weights_scale(scale: float) -> None:
    rng = np.random.default_rng(2)
    n = 400
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.3).astype(int)
    w = rng.uniform(0.5, 2.0, size=n)
    ref, got = _honest(p, y, w), _honest(p, y, scale * w)
    assert ref.keys() == got.keys()
    for key, a in ref.items():
        b = got[key]
        if isinstance(a, float) and not any(u in key for u in _IN_WEIGHT_UNITS):
            assert b == pytest.approx(a, rel=1e-9, abs=1e-12, nan_ok=True), key
    for key in ("/tests/hosmer_lemeshow/statistic", "/tests/calibration_slope/slope_se",
                "/tests/calibration_slope/citl_se", "/estimators/smooth/l1"):
        assert key in ref  # the fields that used to scale are compared above


def test_unit_weights_are_the_unweighted_tests() -> None:
    rng = np.random.default_rng(4)
    p = rng.uniform(0.05, 0.95, size=500)
    y = (rng.uniform(size=500) < p).astype(int)
    plain, unit = vc.calibration_tests(p, y), vc.calibration_tests(p, y, sample_weight=np.ones(500))
    assert unit.hosmer_lemeshow.statistic == pytest.approx(plain.hosmer_lemeshow.statistic, rel=1e-12)
    assert unit.slope.slope_se == pytest.approx(plain.slope.slope_se, rel=1e-10)
    assert vc.ece(p, y, estimator="smooth", sample_weight=np.ones(500)) == pytest.approx(
        vc.ece(p, y, estimator="smooth"), rel=1e-12)


def test_weighted_tests_size_and_power_do_not_follow_the_scale() -> None:
    """Calibrated scores under weights of scale 10: each test rejects at about its level
    (before: Hosmer–Lemeshow 100 %, slope 58 %). Under-confident scores (truth logit = 1.8 ×
    the score's) under weights of scale 0.1: both tests still see it (before: 0 % each)."""
    rng = np.random.default_rng(7)
    runs, n = 200, 300
    size = {"hl": 0, "slope": 0}
    power = {"hl": 0, "slope": 0}
    for _ in range(runs):
        p = rng.uniform(0.05, 0.95, size=n)
        w = rng.uniform(0.5, 2.0, size=n)
        y = (rng.uniform(size=n) < p).astype(int)
        t = vc.calibration_tests(p, y, sample_weight=10 * w)
        size["hl"] += t.hosmer_lemeshow.p_value < 0.05
        size["slope"] += t.slope.slope_p_value < 0.05
        truth = 1 / (1 + np.exp(-1.8 * np.log(p / (1 - p))))
        y2 = (rng.uniform(size=n) < truth).astype(int)
        t2 = vc.calibration_tests(p, y2, sample_weight=0.1 * w)
        power["hl"] += t2.hosmer_lemeshow.p_value < 0.05
        power["slope"] += t2.slope.slope_p_value < 0.05
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)  # level + 3 binomial SE: 0.096
    assert size["hl"] / runs <= bound and size["slope"] / runs <= bound, size
    assert power["hl"] / runs >= 0.5 and power["slope"] / runs >= 0.9, power
