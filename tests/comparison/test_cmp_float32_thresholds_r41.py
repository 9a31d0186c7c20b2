"""Round 41: float32 thresholds of ``vc.decision_curve`` and ``vc.murphy_diagram`` are the numbers they print.

``np.float32(0.1)`` widened bit for bit is 0.10000000149011612, above a score of exactly 0.1: the decision
curve's row "0.100" ("flag p >= t") left those rows unflagged (TP 2, FP 2 where t = 0.1 gives 3 and 3), and
the Murphy diagram read them on the other side of θ. The grid is now read as the numbers it prints, as
the slices' float32 keys are.
"""

import numpy as np
import pytest

import veracity as vc

Y = np.array([0, 1, 0, 1, 1, 0])
A = np.array([0.1, 0.1, 0.3, 0.7, 0.25, 0.5])
B = np.array([0.2, 0.05, 0.1, 0.9, 0.1, 0.3])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_float32_grid_reads_as_the_same_float64_grid(dtype):
    grid = [0.1, 0.25, 0.3]
    low = vc.decision_curve({"a": A, "b": B}, Y, thresholds=np.array(grid, dtype=dtype))
    ref = vc.decision_curve({"a": A, "b": B}, Y, thresholds=grid)
    assert low.thresholds.tolist() == grid
    assert low.to_dict() == ref.to_dict()
    assert low.tp["a"][0] == 3.0 and low.fp["a"][0] == 3.0  # both rows scoring 0.1 flagged at t = 0.1
    m = vc.murphy_diagram({"a": A, "b": B}, Y, theta=np.array(grid, dtype=dtype))
    m_ref = vc.murphy_diagram({"a": A, "b": B}, Y, theta=grid)
    assert m.theta.tolist() == grid
    assert np.array_equal(m.elementary["a"], m_ref.elementary["a"])
    assert np.array_equal(m.difference.diff, m_ref.difference.diff)
