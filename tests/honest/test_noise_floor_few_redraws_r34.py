"""Round 34: the noise floor's Monte-Carlo p-value is never below 1/(R + 1), so with fewer than 19 redraws
no ECE can be "above the noise floor" at 0.05, yet the verdict said "within the noise floor: not
distinguishable from noise": an ECE of 0.245 above every one of 10 redraws (the largest 0.04). Now such a
verdict is "undecided" and names the fewest redraws that can decide; 19 or more decide as before."""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc


def _miscalibrated():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=2000)
    return p, (rng.random(p.size) < p ** 3).astype(int)


def test_an_ece_above_every_one_of_too_few_redraws_is_not_called_within_the_floor():
    p, y = _miscalibrated()
    nf = vc.ece_noise_floor(p, y, n_resamples=10)
    assert nf.ece > nf.samples.max() + 0.1  # far above every redraw
    assert nf.p_value == pytest.approx(1 / 11)
    verdict = nf.verdict()
    assert not verdict.startswith("within") and verdict.startswith("undecided")
    assert "10 redraws cannot give a p-value below 0.0909" in verdict and "at least 19" in verdict
    assert f"({verdict})" in str(nf)
    assert json.loads(json.dumps(nf.to_dict()))["verdict"] == verdict
    assert "within the noise floor" not in nf._repr_html_()


def test_enough_redraws_decide_as_before():
    p, y = _miscalibrated()
    assert vc.ece_noise_floor(p, y, n_resamples=19).verdict().startswith("above the noise floor")
    rng = np.random.default_rng(1)
    q = rng.uniform(size=500)
    calibrated = vc.ece_noise_floor(q, (rng.random(q.size) < q).astype(int), n_resamples=200)
    assert calibrated.p_value > 0.05 and calibrated.verdict().startswith("within the noise floor")
    # the verdict's level: 0.2 is decided by 4 redraws, 0.01 needs 99
    few = vc.ece_noise_floor(p, y, n_resamples=4)
    assert few.verdict(0.2).startswith("above") and few.verdict(0.01).startswith("undecided")


@pytest.mark.parametrize("alpha, need", [(0.05, 19), (0.01, 99), (0.1, 9), (0.2, 4), (0.001, 999)])
def test_fewest_redraws_is_the_least_r_with_one_over_r_plus_one_at_most_alpha(alpha, need):
    from veracity.honest._noise_floor import fewest_redraws

    assert fewest_redraws(alpha) == need
    assert 1 / (need + 1) <= alpha < 1 / need
