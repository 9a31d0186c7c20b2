"""SegmentCalibration's ``role=`` and its printout's counts (session 38).

- The fit drops rows of weight 0 before the base calibrator's fit, but handed it the role array of all the
  rows: with ``fit(..., role=array)`` now checked against the scores' rows, the roles are the kept rows'
  (a row of weight 0 is fit on in no role, as every calibrator reads it). A role array of another length is
  refused in one line, with or without weights (it was recorded in silence).
- ``fit_transform(scores, labels, features=...)`` fitted, then refused its own transform ("pass
  features={name: column}"): the transform reads the features given.
- ``str(cal)`` read "plus 1 shrunk segment corrections"; a feature of another length than the scores at
  transform read "has 1 rows".
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc

rng = np.random.default_rng(3802)
N = 1000
G = rng.choice(["a", "b"], N)
P = rng.uniform(0.1, 0.9, N)
_TRUE = 1 / (1 + np.exp(-(np.log(P / (1 - P)) + np.where(G == "a", 1.0, 0.0))))
Y = (rng.uniform(size=N) < _TRUE).astype(int)


def _fit(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vc.SegmentCalibration(features=["g"]).fit(P, Y, features={"g": G}, **kw)


def _message(call) -> str:
    with pytest.raises(vc.VeracityError) as info:
        call()
    return str(info.value)


def test_rows_of_weight_zero_take_their_roles_out_of_the_fit():
    roles = np.array(["test"] * 10 + ["calib"] * (N - 10))
    w = np.r_[np.zeros(10), np.ones(N - 10)]
    cal = _fit(sample_weight=w, role=roles)
    assert cal.metadata["role"] == "calib"
    w[3] = 1.0  # a test row fit on
    assert "role is 'test'" in _message(lambda: _fit(sample_weight=w, role=roles))


@pytest.mark.parametrize("weighted", [False, True])
def test_a_role_array_of_another_length_is_refused(weighted):
    w = np.r_[np.zeros(5), np.ones(N - 5)] if weighted else None
    message = _message(lambda: _fit(sample_weight=w, role=np.array(["calib"] * (N + 200))))
    assert f"role has {N + 200} values but the scores have {N} rows" in message, message


def test_a_missing_role_is_refused():
    roles = np.array(["calib"] * N, dtype=object)
    roles[7] = None
    w = np.r_[np.zeros(5), np.ones(N - 5)]
    message = _message(lambda: _fit(sample_weight=w, role=roles))
    assert message.startswith(f"role has 1 missing value (None/NaN) of {N} rows, first at row 7"), message


def test_one_correction_and_one_row_in_the_singular():
    doc = _fit().to_dict()
    doc["state"]["corrections_"][0].update(keys=[0], delta=[0.5])
    one = vc.load(doc)
    assert "plus 1 shrunk segment correction over g" in str(one), str(one)
    message = _message(lambda: one.transform(P[:2], features={"g": G[:1]}))
    assert "has 1 row but there are 2 scores" in message, message


def test_fit_transform_transforms_with_the_features_it_fit_on():
    cal = vc.SegmentCalibration(features=["g"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cal.fit_transform(P, Y, features={"g": G})  # fitted, then refused: "pass features={...}"
    np.testing.assert_array_equal(got, cal.transform(P, features={"g": G}))
    assert np.abs(got - cal.base_.transform(P)).max() > 0.01
