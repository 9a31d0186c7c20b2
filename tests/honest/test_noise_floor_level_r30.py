"""The noise-floor verdict states the level it is read at (before: "distinguishable from noise" with no level,
while the p-value beside it is compared with a fixed 0.05)."""

import numpy as np

import veracity as vc


def test_the_verdict_names_its_level() -> None:
    rng = np.random.default_rng(4)
    p = rng.uniform(0.05, 0.95, 2000)
    calibrated = vc.ece_noise_floor(p, (rng.random(2000) < p).astype(int), n_resamples=200, random_state=0)
    off = vc.ece_noise_floor(p, (rng.random(2000) < p**2).astype(int), n_resamples=200, random_state=0)
    assert "within the noise floor: not distinguishable from noise at level 0.05" in str(calibrated)
    assert "above the noise floor: distinguishable from noise at level 0.05" in str(off)
    assert off.verdict(alpha=0.01).endswith("at level 0.01")
