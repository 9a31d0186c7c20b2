"""Platt and beta on logits near the float range: the calibrated logit overflows to +-inf and the probability is
1 / 0, with no RuntimeWarning (raised as an error under this suite's filterwarnings, printed to users)."""
import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("make", [lambda: vc.PlattScaling(score_type="logit"),
                                  lambda: vc.BetaCalibration(score_type="logit")])
def test_extreme_logits_give_inf_and_0_1_quietly(make):
    rng = np.random.default_rng(31)
    z = rng.normal(0.0, 1.0, 600) / 3.0  # under-confident logits: the fitted slope is above 1
    y = (rng.uniform(size=600) < 1.0 / (1.0 + np.exp(-3.0 * z))).astype(int)
    cal = make().fit(z, y)
    extreme = np.array([-1e308, -5e307, 5e307, 1e308])
    logit = cal.transform_logit(extreme)
    assert np.array_equal(np.sign(logit), np.sign(extreme)) and np.isinf(logit).any(), logit  # overflowed
    assert np.array_equal(cal.transform(extreme), [0.0, 0.0, 1.0, 1.0])
