"""Options of the wrong type get the one-line error of a wrong value, never a raw TypeError.

Before: ``vc.accuracy(p, y, threshold="a")`` raised ``TypeError: '<=' not supported``, as did
``threshold=None``, ``vc.reliability(min_count="a")`` and ``min_count=None``; ``level="x"``
raised a raw ``ValueError`` from ``float()``, and ``level="0.9"`` was read as 0.9 by some
functions while others refused it.
"""

import json

import numpy as np
import pytest

import veracity as vc

P = np.linspace(0.01, 0.99, 60)
Y = np.arange(60) % 2


@pytest.mark.parametrize("call, param", [
    (lambda: vc.accuracy(P, Y, threshold="a"), "threshold"),
    (lambda: vc.accuracy(P, Y, threshold=None), "threshold"),
    (lambda: vc.audit(P, Y, threshold=None), "threshold"),
    (lambda: vc.audit(P, Y, threshold=True), "threshold"),
    (lambda: vc.reliability(P, Y, min_count="a"), "min_count"),
    (lambda: vc.reliability(P, Y, min_count=None), "min_count"),
    (lambda: vc.audit(P, Y, min_count=float("nan")), "min_count"),
    (lambda: vc.reliability(P, Y, level="x"), "level"),
    (lambda: vc.audit(P, Y, level="0.9"), "level"),
    (lambda: vc.audit(P, Y, level=None), "level"),
    (lambda: vc.bootstrap_intervals(P, Y, level="0.9", n_resamples=10), "level"),
])
def test_a_wrong_type_is_a_one_line_error(call, param):
    with pytest.raises(vc.VeracityError) as info:
        call()
    assert info.value.param == param
    assert "\n" not in str(info.value) and param in str(info.value)


def test_numpy_numbers_are_numbers():
    a = vc.audit(P, Y, threshold=np.float32(0.5), min_count=np.int64(20), level=np.float64(0.9))
    b = vc.audit(P, Y, threshold=0.5, min_count=20, level=0.9)
    assert json.dumps(a.to_dict(), sort_keys=True) == json.dumps(b.to_dict(), sort_keys=True)
