"""A wrong column argument is described in one wording on the frame route and the table route.

The table form (``vc.audit(con, table="t", ...)``) had a describer of its own: ``ndarray of 5000 values``
for an array, ``np.float64(0.5)`` for a numpy scalar, and a 2-D array by its value count; the frame form
says ``an array of shape (5000,)``. One helper now writes both (``sources._api.shown_arg``).
"""

import sqlite3

import numpy as np
import pandas as pd
import pytest

import veracity as vc

N = 300
FRAME = pd.DataFrame({"p": np.linspace(0.01, 0.99, N), "y": np.arange(N) % 2})


@pytest.mark.parametrize("value, shown", [
    (np.arange(N) % 2, f"an array of shape ({N},)"),
    (np.zeros((N, 2)), f"an array of shape ({N}, 2)"),
    (list(range(N)), f"a list of length {N}"),
    (pd.Series(np.arange(N)), f"a Series of shape ({N},)"),
    (np.float64(0.5), "0.5"),
    (["y", "z"], "['y', 'z']"),
], ids=["array", "2d-array", "long-list", "series", "numpy-scalar", "short-list"])
def test_the_table_form_and_the_frame_form_show_a_wrong_label_alike(value, shown, error_line):
    frame = error_line(lambda: vc.audit(FRAME, score="p", label=value))
    table = error_line(lambda: vc.audit(sqlite3.connect(":memory:"), table="t", score="p", label=value))
    assert frame == f"label= must name the label column (a string), got {shown}"
    assert table.startswith(f"label= names a column of the table (a string), got {shown}")
    many = not isinstance(value, (float, list)) or (isinstance(value, list) and len(value) > 5)
    # what to pass instead, said where the values were passed in place of a name
    assert table.endswith("pass arrays to vc.audit without table=)") == many


@pytest.mark.parametrize("role", ["sample_weight", "by"])
def test_an_array_column_argument_of_the_table_form_is_shown_by_its_shape(role, error_line):
    text = error_line(lambda: vc.audit(sqlite3.connect(":memory:"), table="t", score="p", label="y",
                                       **{role: np.ones(N)}))
    assert text == (f"{role}= names a column of the table (a string), got an array of shape ({N},); the table "
                    "form names columns of the table (pass arrays to vc.audit without table=)")
