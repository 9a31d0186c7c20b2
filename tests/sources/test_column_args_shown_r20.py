"""A frame call given an array where a column name belongs says what it got in a few words, on one line.

``label=`` printed the whole array (``got array([0, 1, ...])``, many lines for a real column); the other
arguments named only the type. Every function that reads a frame shares the check.
"""

import numpy as np
import pandas as pd
import pytest

import veracity as vc

N = 300
FRAME = pd.DataFrame({"p": np.linspace(0.01, 0.99, N), "y": np.arange(N) % 2, "g": np.arange(N) % 3})
LABELS = FRAME["y"].to_numpy()


@pytest.mark.parametrize("call", [
    lambda: vc.audit(FRAME, score="p", label=LABELS),
    lambda: vc.segments(FRAME, score="p", label=LABELS, features=["g"]),
    lambda: vc.monitor(FRAME, score="p", label=LABELS, periods="g"),
], ids=["audit", "segments", "monitor"])
def test_an_array_label_is_shown_by_its_type_and_shape(call, error_line):
    message = error_line(call)
    assert message == f"label= must name the label column (a string), got an array of shape ({N},)"


@pytest.mark.parametrize("role", ["sample_weight", "by"])
def test_an_array_column_argument_is_shown_by_its_type_and_shape(role, error_line):
    message = error_line(lambda: vc.audit(FRAME, score="p", label="y", **{role: np.ones(N)}))
    assert message.startswith(f"with a frame, {role}= names a column (a string), got an array of shape ({N},);")
    assert "\n" not in message and "1." not in message


def test_a_short_list_or_a_scalar_is_shown_as_written(error_line):
    assert error_line(lambda: vc.audit(FRAME, score="p", label=["y", "z"])).endswith("got ['y', 'z']")
    assert error_line(lambda: vc.audit(FRAME, score=["p", 3], label="y")).endswith("got ['p', 3]")
    assert error_line(lambda: vc.audit(FRAME, score="p", label=1)).endswith("got 1")
    long = error_line(lambda: vc.audit(FRAME, score=FRAME["p"].tolist(), label="y"))
    assert long.endswith(f"got a list of length {N}") and len(long) < 200
