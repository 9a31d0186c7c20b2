"""adjust_prior / estimate_prior read a one-column p as the binary positive-class probability (session 20).

Every calibrator reads (N, 1) scores (``predict_proba(X)[:, [1]]``, ``df[["p"]]``) as 1-D binary scores;
the prior-shift functions refused them as "multiclass probability rows must sum to 1; 50 of 50 do not"
(a single class column is no multiclass row). Checked against the likelihood-ratio formula and the
1-D estimate.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _p():
    return np.random.default_rng(0).random(50)


def test_adjust_prior_one_column_is_binary_and_keeps_its_shape():
    p = _p()
    out = vc.adjust_prior(p[:, None], 0.3, 0.5)
    lr = p / (1 - p) * (1 - 0.3) / 0.3
    assert out.shape == (50, 1)
    np.testing.assert_allclose(out[:, 0], lr * 0.5 / (lr * 0.5 + 0.5), rtol=1e-12)


def test_estimate_prior_one_column_is_the_binary_estimate():
    p = _p()
    one = vc.estimate_prior(p[:, None], 0.3)
    flat = vc.estimate_prior(p, 0.3)
    assert isinstance(one.prior, float) and one.prior == flat.prior


def test_frame_column():
    pd = pytest.importorskip("pandas")
    p = _p()
    assert vc.estimate_prior(pd.DataFrame({"p": p}), 0.3).prior == vc.estimate_prior(p, 0.3).prior
