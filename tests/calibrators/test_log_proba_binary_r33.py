"""TemperatureScaling.log_proba on binary scores: numpy's bare AxisError ("axis 1 is out of bounds for
array of dimension 1"); now log sigma(s/tau), shaped as transform's output, finite far below
log(transform) underflows."""

import numpy as np
import pytest
from scipy.special import log_expit, log_softmax

import veracity as vc


@pytest.fixture
def rows():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, 300)
    return p, (rng.uniform(size=300) < p ** 2).astype(int)


def test_binary_log_proba_is_log_sigmoid_of_s_over_tau(rows):
    p, y = rows
    ts = vc.TemperatureScaling().fit(p, y)
    q = np.array([0.0, 1e-300, 1e-10, 0.3, 0.5, 1 - 1e-10, 1.0])
    got = ts.log_proba(q)
    assert got.shape == q.shape
    np.testing.assert_allclose(np.exp(got), ts.transform(q), rtol=1e-12, atol=0)
    np.testing.assert_allclose(got, log_expit(ts.transform_logit(q)), rtol=1e-12)
    assert np.all(np.isfinite(got[:3])) and np.all(got < 0.0)


def test_logits_far_out_and_the_multiclass_form(rows):
    p, y = rows
    ts = vc.TemperatureScaling(score_type="logit").fit(np.log(p) - np.log1p(-p), y)
    z = np.array([-800.0, 0.0, 800.0])
    got = ts.log_proba(z)
    assert got[0] == pytest.approx(-800.0 / ts.temperature_, rel=1e-12)  # log(transform) is -inf there
    assert got[1] == pytest.approx(np.log(0.5)) and got[2] == 0.0 and not np.signbit(got[2])
    P = np.column_stack([1 - p, p])
    two = vc.TemperatureScaling().fit(P, y)
    want = log_softmax(np.log(P) / two.temperature_, axis=1)
    np.testing.assert_allclose(two.log_proba(P), want, atol=1e-12)
