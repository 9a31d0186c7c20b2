"""The separation warning names the step's direction (round 28).

Scores that separate the labels the wrong way (every positive at or below every negative) make the
fitted Platt map a step that *falls* as the score rises; the warning called it "a step from 0 to 1",
the picture of the other direction.
"""

from __future__ import annotations

import warnings

import numpy as np

import veracity as vc


def _messages(p, y) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vc.PlattScaling(on_reversed="allow").fit(p, y)
    return [str(w.message) for w in caught if "separates" in str(w.message)]


def test_a_reversed_separation_is_a_falling_step():
    p = np.array([0.05, 0.27, 0.63, 0.8])
    (message,) = _messages(p, [1, 1, 0, 0])
    assert "at or below" in message and "from 1 down to 0" in message
    assert "from 0 to 1" not in message


def test_a_forward_separation_is_a_rising_step():
    p = np.array([0.05, 0.27, 0.63, 0.8])
    (message,) = _messages(p, [0, 0, 1, 1])
    assert "at or above" in message and "from 0 to 1" in message
