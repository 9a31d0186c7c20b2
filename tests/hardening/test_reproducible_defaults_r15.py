"""A report is not a draw: with the default random_state every seeded report prints the same numbers
for the same rows (vc.compare always did; the CLI seeds 0); a numpy Generator gives fresh draws."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

rng = np.random.default_rng(0)
P = rng.random(400)
Y = (rng.random(400) < P).astype(int)
Q = np.clip(P + rng.normal(0, 0.1, 400), 0.01, 0.99)

REPORTS = {
    "audit bootstrap": lambda **kw: vc.audit(P, Y, bootstrap=True, n_resamples=50, **kw),
    "audit noise floor": lambda **kw: vc.audit(P, Y, noise_floor=True, n_resamples=50, **kw),
    "ece_noise_floor": lambda **kw: vc.ece_noise_floor(P, Y, n_resamples=50, **kw),
    "compare_models": lambda **kw: vc.compare_models({"a": P, "b": Q}, Y, n_resamples=50, **kw),
}


@pytest.mark.parametrize("name", list(REPORTS))
def test_the_default_seed_repeats_and_equals_random_state_0(name):
    report = REPORTS[name]
    assert str(report()) == str(report()) == str(report(random_state=0))


@pytest.mark.parametrize("name", list(REPORTS))
def test_a_generator_draws_afresh(name):
    report = REPORTS[name]
    first, second = (report(random_state=np.random.default_rng(seed)) for seed in (1, 2))
    assert first.to_dict() != second.to_dict()
