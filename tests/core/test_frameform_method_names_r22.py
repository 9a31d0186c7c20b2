"""Round 22: the frame seam's one-line errors name a method as the user calls it.

``cal.transform(connection, score="p")`` said "vc.PlattScaling.transform reads a frame, not a database
connection": there is no ``vc.PlattScaling.transform``. The seam formats ``vc.<name>`` for every name it is
given, and a method's name is ``"PlattScaling.transform"``. A method now reads ``PlattScaling.transform``
(as the calibrators' own messages name it); a function keeps ``vc.audit``.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._validation import VeracityError


@pytest.fixture(scope="module")
def cal():
    rng = np.random.default_rng(0)
    return vc.PlattScaling().fit(rng.uniform(0.05, 0.95, 200), rng.integers(0, 2, 200))


def _message(call):
    with pytest.raises(VeracityError) as info:
        call()
    text = str(info.value)
    assert "\n" not in text
    return text


def test_method_on_a_connection_is_named_without_vc(cal):
    con = sqlite3.connect(":memory:")  # a DB-API connection: what the seam refuses as a frame
    try:
        text = _message(lambda: cal.transform(con, score="p"))
        assert text.startswith("PlattScaling.transform reads a frame, not a database connection"), text
        assert "vc.PlattScaling" not in text
        text = _message(lambda: vc.SegmentCalibration(features=["g"]).fit(con, score="p", label="y"))
        assert text.startswith("SegmentCalibration.fit reads a frame"), text
        # a function keeps its vc. name
        assert _message(lambda: vc.ece(con, score="p", label="y")).startswith("vc.ece reads a frame")
        assert _message(lambda: vc.budget_threshold(con, score="p", top_k=3)).startswith(
            "vc.budget_threshold reads a frame")
    finally:
        con.close()


def test_method_frame_form_mistakes_are_named_without_vc():
    frame = pd.DataFrame({"p": [0.2, 0.4], "y": [0, 1], "g": ["a", "b"]})
    seg = vc.SegmentCalibration(features=["g"])
    text = _message(lambda: seg.fit(frame, [0, 1], score="p", label="y"))
    assert text.startswith("SegmentCalibration.fit(frame, score=..., label=...) takes no labels array"), text
    text = _message(lambda: seg.fit(frame, score="y", label="y"))
    assert text.startswith("SegmentCalibration.fit: score= names the label= column 'y'"), text
    assert "vc.SegmentCalibration" not in text


def test_method_on_a_lazy_frame_is_named_without_vc(cal):
    pl = pytest.importorskip("polars")
    text = _message(lambda: cal.transform(pl.DataFrame({"p": [0.2, 0.3]}).lazy(), score="p"))
    assert text.startswith("PlattScaling.transform needs the rows in memory"), text
