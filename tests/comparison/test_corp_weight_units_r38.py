"""compare_models(...).corp[m].weight: the CORP curve's weight per distinct score in the caller's units.
Extreme weights are scaled by a power of two on the way in; weights of 1e-300 read 0.67 a point (session 38).
vc.corp gives the same curve (its weights were fixed the same way)."""

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("unit", [1e-300, 1e-150, 1.0, 1e150, 1e300])
def test_compare_models_corp_weights_in_the_callers_units(unit):
    rng = np.random.default_rng(38)
    n = 400
    a = np.round(rng.uniform(0.05, 0.95, n), 2)  # ties: several rows per distinct score
    b = np.clip(a + rng.normal(0, 0.05, n), 0.01, 0.99)
    y = (rng.uniform(size=n) < a).astype(int)
    w = rng.uniform(0.5, 2.0, n)
    result = vc.compare_models({"a": a, "b": b}, y, sample_weight=w * unit)
    curve = result.corp["a"]
    per_score = np.array([w[a == x].sum() for x in curve.x]) * unit
    np.testing.assert_allclose(curve.weight, per_score, rtol=1e-12)
    assert curve.weight.sum() == pytest.approx(w.sum() * unit, rel=1e-12)
    np.testing.assert_allclose(vc.corp(a, y, sample_weight=w * unit).weight, per_score, rtol=1e-12)
