"""Round 18: a fitted calibrator's refusal of multiclass rows names them (VeracityError.rows).

Before: ``transform`` re-raised the row-sum and range errors in its own words and dropped the rows
they carried, so callers (the CLI's first bad row) fell back to reading the message.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    p = rng.dirichlet([2, 2, 2], size=300)
    y = np.array([rng.choice(3, p=row) for row in p])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return p, vc.TemperatureScaling().fit(p, y)


def test_rows_not_summing_to_one_are_carried(fitted):
    p, cal = fitted
    q = p.copy()
    q[5] *= 1.1
    q[9] *= 0.8
    with pytest.raises(vc.VeracityError, match="must sum to 1; 2 of 300") as err:
        cal.transform(q)
    assert err.value.rows.tolist() == [5, 9] and err.value.n_rows == 300


def test_a_row_outside_zero_one_is_carried(fitted):
    p, cal = fitted
    q = p.copy()
    q[7, 0] = 1.5
    with pytest.raises(vc.VeracityError, match=r"\[0, 1\]") as err:
        cal.transform(q)
    assert err.value.rows.tolist() == [7] and err.value.n_rows == 300
