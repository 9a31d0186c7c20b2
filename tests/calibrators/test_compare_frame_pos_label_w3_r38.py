"""``vc.compare``'s frame form and the positive class a calibrator recorded (session 38, third wave).

- ``compare(frame, cal, score=, label=, pos_label=0)`` with ``cal`` fit with ``pos_label=0``: the frame reader
  read the labels as 0/1 = [label == 0], then compare read those 0/1 labels again with the recorded
  ``pos_label`` 0 and flipped them back. The ledger measured the other class's probabilities, silently
  (NLL 1.25 for 0.53, every row "REGRESSION"); the same for ``pos_label=False`` and text labels. It equals the
  array form's ledger now.
- ``compare(frame, cal, score=, label=)`` on text labels refused them ("pass pos_label=") where the array form
  ``compare(scores, labels, cal)`` reads the positive class the calibrator recorded: the frame form reads it
  too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc

rng = np.random.default_rng(3805)
N = 400
P = rng.uniform(0.05, 0.95, N)
IS_POS = rng.uniform(size=N) < P  # P is the probability of the positive class named below
CASES = {
    "int 0": (np.where(IS_POS, 0, 1), 0),
    "bool False": (~IS_POS, False),
    "text": (np.where(IS_POS, "churn", "stay"), "churn"),
    "text '0'": (np.where(IS_POS, "0", "1"), "0"),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("to_frame", [lambda f: f, pl.from_pandas], ids=["pandas", "polars"])
def test_frame_ledger_is_the_array_ledger(case, to_frame):
    labels, pos = CASES[case]
    frame = to_frame(pd.DataFrame({"p": P, "y": labels}))
    cal = vc.PlattScaling().fit(frame, score="p", label="y", pos_label=pos)
    assert cal.a_ > 0  # the map of P, the positive class's probability
    ref = vc.compare(P, labels, cal)
    assert ref.to_dict()["before"]["nll"] < 0.6  # measured against the positive class
    for given in ({"pos_label": pos}, {}):
        got = vc.compare(frame, cal, score="p", label="y", **given)
        assert str(got) == str(ref), (case, given)
