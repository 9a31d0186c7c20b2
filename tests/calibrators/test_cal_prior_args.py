"""estimate_prior / adjust_prior refuse bad options in one line (session 11): max_iter=1.5 raised a
raw TypeError, tol='x' a numpy UFuncTypeError, old='x' a bare ValueError, and tol=-1 ran all 10,000
iterations to report "NOT converged"."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("kwargs, match", [
    ({"max_iter": 1.5}, r"max_iter must be a whole number >= 1"),
    ({"max_iter": 0}, r"max_iter must be a whole number >= 1"),
    ({"max_iter": True}, r"max_iter must be a whole number >= 1"),
    ({"tol": "x"}, r"tol must be a number >= 0"),
    ({"tol": -1.0}, r"tol must be a number >= 0"),
    ({"tol": float("nan")}, r"tol must be a number >= 0"),
])
def test_estimate_prior_bad_options(kwargs, match):
    p = np.random.default_rng(0).random(100)
    with pytest.raises(vc.VeracityError, match=match) as e:
        vc.estimate_prior(p, 0.1, **kwargs)
    assert e.value.param in ("max_iter", "tol")


@pytest.mark.parametrize("old", ["x", [0.1, "y"], {"a": 1}])
def test_non_numeric_priors_are_one_line(old):
    with pytest.raises(vc.VeracityError, match=r"old must be a number .* strictly between 0 and 1"):
        vc.estimate_prior([0.2, 0.7], old)
    with pytest.raises(vc.VeracityError, match=r"old must be a number .* strictly between 0 and 1"):
        vc.adjust_prior(0.3, old, 0.2)


def test_good_options_still_converge():
    p = np.random.default_rng(1).beta(2, 5, 500)
    est = vc.estimate_prior(p, 0.3, tol=0.0, max_iter=50_000)
    assert est.converged and 0.0 < est.prior < 1.0
