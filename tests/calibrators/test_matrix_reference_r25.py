"""Session 25: ``transform`` of vector and matrix scaling whose rows of W sum alike subtracts each row's
largest entry (smallest where the sum is negative), the reference the SQL and ONNX exports subtract.

Until session 25 ``transform`` subtracted the row's lower median entry. Where the median lies far from the
largest entry the winners' differences were rounded: on (1e17, 1e17 + 16, -1e17, -1e17) the median is
-1e17, 2e17 + 16 rounds to 2e17, and two classes e^16 apart read as tied. The reference here is the
softmax of the exact logits (Python fractions), on rows where the winning classes read only entries near
the row's largest (the error bound of ``veracity.core._row_sums.reference_side``: they are exact there).
"""

from __future__ import annotations


import numpy as np
import pytest

from .conftest import exact_softmax as _exact_softmax, with_map as _with_map

B = np.array([0.3, -0.45, 0.1, 0.7])
MAPS = {  # rows of W with one exact sum; the winners (classes 0 and 1 below) read columns 0 and 1 only
    "vector": ("vector", np.diag([1.0, 1.0, 1.0, 1.0])),
    "vector-negative": ("vector", np.diag([-0.5, -0.5, -0.5, -0.5])),
    "matrix": ("matrix", np.array([[1.25, -0.25, 0.0, 0.0], [-0.25, 1.25, 0.0, 0.0],
                                   [0.0, 0.0, 0.5, 0.5], [0.0, 0.0, 0.75, 0.25]])),
}
HI = [  # rows whose two largest entries are near-tied and far above the median
    [1e17, 1e17 + 16, -1e17, -1e17],
    [1e17 + 16, 1e17, -1e17, -3e17],
    [1e15, 1e15 + 1.5, -1e15, -3e15],
    [2.0 ** 60, 2.0 ** 60 + 2.0 ** 9, -(2.0 ** 60), 0.0],
    [1e300, np.nextafter(1e300, 0.0), -1e300, -1e300],
    [1e300, 1e300, -1e300, -1e300],
    [1e100, 1e100, 0.0, -5.0],
    [3e8 + 0.25, 3e8, -4e8, -4e8],
]


@pytest.mark.parametrize("name", sorted(MAPS))
def test_winners_far_from_the_median_keep_their_differences(name):
    kind, W = MAPS[name]
    cal = _with_map(kind, W, B)
    rows = np.array(HI) * (-1.0 if name == "vector-negative" else 1.0)  # v < 0: the winners at the bottom
    np.testing.assert_allclose(cal.transform(rows), _exact_softmax(W, B, rows), rtol=0, atol=1e-13,
                               err_msg=name)


def test_the_rule_is_the_extreme_entry_of_the_row():
    """Guard: one rule (core), read by transform and the exports: the largest entry where the largest row
    sum of W is >= 0, the smallest where it is < 0, none where no two rows share a sum."""
    from veracity.core._row_sums import reference_side, row_reference

    Z = np.array([[3.0, -7.0, 1.0], [0.0, 5.0, 2.0]])
    assert reference_side(np.diag([2.0, 2.0, 2.0])) == "max"
    assert reference_side(np.zeros((3, 3))) == "max"
    assert reference_side(np.diag([-0.5, -0.5, -0.5])) == "min"
    assert reference_side(np.diag([1.0, 2.0, 3.0])) is None
    assert reference_side(np.diag([1.0, 2.0, 1.0])) == "max"
    assert reference_side(np.diag([-1.0, -2.0, -1.0])) == "min"
    np.testing.assert_array_equal(row_reference(Z, "max"), Z.max(axis=1, keepdims=True))
    np.testing.assert_array_equal(row_reference(Z, "min"), Z.min(axis=1, keepdims=True))


PARTIAL = {  # some rows of W share their sum, others do not (dyadic entries: exact sums); row sums:
    "top-tie": ("matrix", np.array([[1.25, 0.5, -0.25], [0.125, 1.0, 0.0], [0.5, -0.75, 1.75]])),  # 1.5, 9/8
    "bottom-tie": ("matrix", np.array([[1.0, 0.0, 0.0], [0.25, 1.5, 0.0], [0.0, 0.25, 0.75]])),      # 1, 1.75
    "vector": ("vector", np.diag([1.5, 0.75, 1.5])),
    "negative": ("matrix", -np.array([[1.25, 0.5, -0.25], [0.125, 1.0, 0.0], [0.5, -0.75, 1.75]])),
}
D3 = np.array([[0.5, -1.25, 2.0], [0.0, 0.0, 0.0], [3.5, 1.0, -0.75], [-2.0, 1.5, 0.25], [1.0, 1.0, -3.0]])


@pytest.mark.parametrize("name", sorted(PARTIAL))
@pytest.mark.parametrize("offset", [1e6, 1e12, -1e12, 1e100, -1e100, 1e300, -1e300])
def test_a_partial_tie_of_row_sums_keeps_the_split_of_the_winners(name, offset):
    """At z + c the classes with the extreme row sum (the largest for c > 0, the smallest for c < 0) take
    the probability, split by b and W d: W z + b rounded that split away at 1e12 and beyond."""
    kind, W = PARTIAL[name]
    b = B[:3]
    cal = _with_map(kind, W, b)
    rows = D3 + offset
    np.testing.assert_allclose(cal.transform(rows), _exact_softmax(W, b, rows), rtol=0, atol=1e-12,
                               err_msg=f"{name} {offset}")
