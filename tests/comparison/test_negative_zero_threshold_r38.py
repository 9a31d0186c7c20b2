"""A threshold of -0.0 (a computed 0: ``-x * 0``) is the threshold 0: the decision curve and the Murphy
diagram printed a row "-0.000" and ``to_dict()`` kept -0.0; ``vc.realised_cost`` said "at threshold -0"."""

from __future__ import annotations

import math

import numpy as np

import veracity as vc


def _data():
    rng = np.random.default_rng(38)
    p = rng.random(100)
    return p, (rng.random(100) < p).astype(int)


def test_decision_curve_and_murphy_read_minus_zero_as_zero():
    p, y = _data()
    curve = vc.decision_curve({"m": p}, y, thresholds=[-0.0, 0.5])
    murphy = vc.murphy_diagram({"m": p, "k": p ** 2}, y, theta=[-0.0, 0.5])
    for text in (str(curve), str(murphy)):
        assert "-0.000" not in text and "\n0.000 " in text
    assert math.copysign(1.0, curve.to_dict()["rows"][0]["threshold"]) == 1.0
    assert math.copysign(1.0, murphy.to_dict()["theta"][0]) == 1.0


def test_realised_cost_reads_minus_zero_as_zero():
    p, y = _data()
    cost = vc.realised_cost({"m": p}, y, threshold=-0.0, cost_fp=1, cost_fn=2)
    assert "at threshold 0 (" in str(cost) and "threshold -0" not in str(cost)
    assert math.copysign(1.0, cost.to_dict()["threshold"]) == 1.0
