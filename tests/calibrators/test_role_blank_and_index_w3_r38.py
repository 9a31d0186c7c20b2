"""Roles as a user passes them to ``fit`` (session 38, third wave).

- An empty or blank role (``""``, ``"  "``; one for every row, or one row's) was recorded as a role (``''``,
  ``',calib'``) in Python, where ``veracity fit --role-col`` reads an empty cell as a missing role and refuses
  it. It is refused in one line now, counted of the rows as a None/NaN role is.
- ``PlattScaling().fit(frame, score=, label=, role=Series)`` with the Series on another index than the frame
  paired the roles by position, silently (``cross_fit``'s frame form refused it): refused the same way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

rng = np.random.default_rng(3804)
N = 200
P = rng.uniform(0.05, 0.95, N)
Y = (rng.uniform(size=N) < P).astype(int)
FRAME = pd.DataFrame({"p": P, "y": Y}, index=np.arange(N) + 1000)
CALIBRATORS = [vc.PlattScaling, vc.IsotonicCalibration, vc.TemperatureScaling, vc.BetaCalibration,
               vc.VennAbers]


@pytest.mark.parametrize("role", ["", "   ", np.array("")], ids=["empty", "blank", "0-d"])
def test_one_empty_role_for_every_row_is_refused(role):
    with pytest.raises(vc.VeracityError, match=r"^role is empty text \('\s*'\): it names no split"):
        vc.PlattScaling().fit(P, Y, role=role)
    with pytest.raises(vc.VeracityError, match=r"^role is empty text"):
        vc.PlattScaling().fit(FRAME, score="p", label="y", role=role)
    # a role named still fits and is recorded
    two = np.array(["calib", "val"] * (N // 2))
    assert vc.PlattScaling().fit(P, Y, role=two).metadata["role"] == "calib,val"
    assert vc.PlattScaling().fit(P, Y, role="calib").metadata["role"] == "calib"


@pytest.mark.parametrize("blank", ["", " ", "\t"])
@pytest.mark.parametrize("as_", [list, np.array, lambda r: pd.Series(r, dtype="string")])
def test_a_row_with_an_empty_role_is_a_row_with_no_role(blank, as_):
    roles = ["calib"] * N
    roles[7] = blank
    roles[9] = None if as_ is not np.array else blank
    with pytest.raises(vc.VeracityError) as info:
        vc.PlattScaling().fit(P, Y, role=as_(roles))
    words = f"role has 2 missing values (None/NaN or empty text) of {N} rows, first at row 7; drop or fill"
    assert str(info.value).startswith(words + " those rows first"), str(info.value)


def test_cross_fit_refuses_an_empty_role_in_the_same_words():
    roles = np.array(["calib"] * N, dtype=object)
    roles[3] = ""
    words = (r"^role has 1 missing value \(None/NaN or empty text\) of 200 rows, first at row 3; drop or "
             r"fill that row first")
    with pytest.raises(vc.VeracityError, match=words):
        vc.cross_fit(P, Y, vc.PlattScaling(), role=roles)
    with pytest.raises(vc.VeracityError, match="^role is empty text"):
        vc.cross_fit(P, Y, vc.PlattScaling(), role="")


@pytest.mark.parametrize("kind", CALIBRATORS, ids=lambda c: c.__name__)
def test_frame_fit_refuses_a_role_series_on_another_index(kind):
    role = pd.Series(["calib"] * N, index=np.arange(N))  # the frame's index starts at 1000
    with pytest.raises(vc.VeracityError, match="^frame and role are pandas objects with different indexes"):
        kind().fit(FRAME, score="p", label="y", role=role)
    fitted = kind().fit(FRAME, score="p", label="y", role=pd.Series(["calib"] * N, index=FRAME.index))
    assert fitted.metadata["role"] == "calib"


def test_a_role_that_names_a_column_of_the_frame_is_refused():
    """role="split" beside a frame with a "split" column fit every row, its test rows too, and recorded the
    role "split" (``veracity fit --role-col split`` fits on the calib rows alone)."""
    frame = FRAME.assign(split=np.where(np.arange(N) < N // 2, "calib", "test"))
    words = r"^role='split' names a column of the frame, but role= is the split role of the rows fit on"
    with pytest.raises(vc.VeracityError, match=words):
        vc.PlattScaling().fit(frame, score="p", label="y", role="split")
    with pytest.raises(vc.VeracityError, match=words):
        vc.cross_fit(frame, vc.PlattScaling(), score="p", label="y", role="split")
    with pytest.raises(vc.VeracityError, match=words):
        vc.SegmentCalibration().fit(frame, score="p", label="y", role="split")
    # the rows of one role, named as such, still fit
    calib = frame[frame["split"] == "calib"]
    assert vc.PlattScaling().fit(calib, score="p", label="y", role="calib").metadata["n_rows"] == N // 2
