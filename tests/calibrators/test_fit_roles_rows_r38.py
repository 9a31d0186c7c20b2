"""A per-row ``role=`` as a user passes it to ``fit`` (session 38).

- A role array of another length than the scores was read as it was: the whole data's role column passed
  beside a calib subset of the scores was refused as "role is 'test'" (the test rows were never fit on), or,
  when the other rows held no test role, recorded in the artifact in silence. It is refused in one line now.
- A row with no role (None, NaN, pandas' NA) was recorded as the role "None" or "nan" ("None,calib"), where
  ``veracity fit --role-col`` refuses a missing role; Python refuses it now, counted of the rows.
- A row of weight 0 is a dropped row (never fit on): its role is not the fit's role, as SegmentCalibration's
  fit (which drops those rows first) already read it.
- A binary calibrator fit on (N, K) scores (its one-vs-rest form) spoke as "OneVsRest" in its errors
  ("this OneVsRest was fit on probabilities", "refusing to fit OneVsRest"): it names what the user built.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from .conftest import informative_logits

rng = np.random.default_rng(3801)
N = 300
P = rng.uniform(0.01, 0.99, N)
Y = (rng.uniform(size=N) < P).astype(int)
#: the whole data's role column: the first 300 rows are the calib rows the scores above belong to
ALL_ROLES = np.array(["calib"] * N + ["test"] * 200)
Z3, Y3 = informative_logits(300, 3, seed=38)
P3 = np.exp(Z3) / np.exp(Z3).sum(axis=1, keepdims=True)


def _message(call) -> str:
    with pytest.raises(vc.VeracityError) as info:
        call()
    return str(info.value)


def test_the_whole_role_column_beside_a_calib_subset_is_refused_for_its_length():
    message = _message(lambda: vc.PlattScaling().fit(P, Y, role=ALL_ROLES))
    assert "role has 500 values but the scores have 300 rows" in message, message
    assert "one role per score row" in message and "role='calib'" in message
    assert "\n" not in message and "refusing to fit" not in message


@pytest.mark.parametrize("make", [vc.PlattScaling, vc.IsotonicCalibration, vc.TemperatureScaling])
def test_a_short_role_array_is_no_longer_recorded(make):
    message = _message(lambda: make().fit(P, Y, role=["calib"] * 200))
    assert "role has 200 values but the scores have 300 rows" in message, message


@pytest.mark.parametrize("role", [
    np.array(["calib"] * (N - 1) + [None], dtype=object),
    ["calib"] * (N - 1) + [float("nan")],  # numpy alone reads this list as the text 'nan'
    pd.Series(["calib"] * (N - 1) + [None], dtype="string"),
])
def test_a_missing_role_is_refused_as_the_command_line_refuses_it(role):
    message = _message(lambda: vc.PlattScaling().fit(P, Y, role=role))
    assert message == (f"role has 1 missing value (None/NaN) of {N} rows, first at row {N - 1}; "
                       "drop or fill that row first"), message


def test_the_roles_of_rows_of_weight_zero_are_not_the_fits():
    roles = np.array(["test"] * 10 + ["calib"] * (N - 10))
    w = np.r_[np.zeros(10), np.ones(N - 10)]
    cal = vc.PlattScaling().fit(P, Y, sample_weight=w, role=roles)
    assert cal.metadata["role"] == "calib"
    same = vc.PlattScaling().fit(P[10:], Y[10:], role="calib")
    np.testing.assert_array_equal(cal.transform(P), same.transform(P))
    w[0] = 1.0  # a test row fit on: refused as before
    assert "role is 'test'" in _message(lambda: vc.PlattScaling().fit(P, Y, sample_weight=w, role=roles))


def test_a_one_vs_rest_fit_names_the_calibrator_built():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a negative slope on these scores
        cal = vc.PlattScaling().fit(P3, Y3)
    message = _message(lambda: cal.transform(P3 * 2))
    assert "this PlattScaling was fit on probabilities" in message, message
    assert "OneVsRest" not in message
    message = _message(lambda: vc.IsotonicCalibration().fit(P3, Y3, role="test"))
    assert message.startswith("refusing to fit IsotonicCalibration on rows whose role is 'test'"), message
    va = vc.VennAbers(multiclass="ovr").fit(P3, Y3)
    message = _message(lambda: va.transform(P3 * 2))
    assert "this VennAbers was fit on probabilities" in message, message
    # a OneVsRest built (or loaded) as such is itself
    ovr = vc.OneVsRest(method="isotonic").fit(P3, Y3)
    assert "this OneVsRest was fit on probabilities" in _message(lambda: ovr.transform(P3 * 2))
    loaded = vc.load(cal.to_dict())
    assert "this OneVsRest was fit" in _message(lambda: loaded.transform(P3 * 2))


def test_cross_fit_gives_each_fold_the_roles_of_its_own_rows():
    roles = np.array(["calib"] * (N - 1) + ["val"])
    cf = vc.cross_fit(P, Y, vc.PlattScaling(), role=roles, random_state=0)
    held = int(cf.fold[-1])  # the fold whose fit leaves the 'val' row out
    assert [c.metadata["role"] for c in cf.calibrators] == [
        "calib" if k == held else "calib,val" for k in range(len(cf.calibrators))]
    assert cf.final.metadata["role"] == "calib,val"
    message = _message(lambda: vc.cross_fit(P, Y, vc.PlattScaling(), role=ALL_ROLES))
    assert "role has 500 values but the scores have 300 rows" in message, message
