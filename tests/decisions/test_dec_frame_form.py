"""The frame form of the functions that need the rows (issue 22: "compare, report and
recall_threshold do not take the frame form (TypeError: unexpected keyword 'score')").

``fn(frame, score="p", label="y", sample_weight="w", ...)`` on pandas, polars and pyarrow equals
``fn`` on the columns' arrays; a lazy frame, a labels array beside the frame and a missing column
are refused in one line.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

RNG = np.random.default_rng(7)
P = RNG.uniform(0.01, 0.99, 3000)
Y = (RNG.random(3000) < P ** 1.3).astype(int)
W = RNG.uniform(0.5, 2.0, 3000)
FRAME = pd.DataFrame({"p": P, "y": np.where(Y == 1, "yes", "no"), "w": W})
CAL = vc.PlattScaling().fit(P[:1000], Y[:1000])

CALLS = {
    "recall_threshold": (lambda d, **k: vc.recall_threshold(d, target=0.9, **k),
                         lambda: vc.recall_threshold(P, Y, target=0.9, sample_weight=W)),
    "risk_coverage": (lambda d, **k: vc.risk_coverage(d, **k).to_dict(),
                      lambda: vc.risk_coverage(P, Y, sample_weight=W).to_dict()),
    "selective_threshold": (lambda d, **k: vc.selective_threshold(d, target_risk=0.3, **k).to_dict(),
                            lambda: vc.selective_threshold(P, Y, target_risk=0.3, sample_weight=W).to_dict()),
    "compare": (lambda d, **k: str(vc.compare(d, CAL, **k)),
                lambda: str(vc.compare(P, Y, CAL, sample_weight=W))),
}
FORMS = {"pandas": lambda: FRAME, "polars": lambda: pl.from_pandas(FRAME),
         "pyarrow": lambda: pa.Table.from_pandas(FRAME, preserve_index=False)}


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", list(CALLS))
def test_the_frame_form_equals_the_arrays(name, form):
    frame_call, array_call = CALLS[name]
    got = frame_call(FORMS[form](), score="p", label="y", sample_weight="w", pos_label="yes")
    assert got == array_call()


@pytest.mark.parametrize("name", list(CALLS))
def test_bad_frame_calls_are_one_line(name):
    frame_call, _ = CALLS[name]
    cases = [
        (lambda: frame_call(pl.from_pandas(FRAME).lazy(), score="p", label="y", pos_label="yes"),
         "needs the rows in memory"),
        (lambda: frame_call(FRAME, score="nope", label="y", pos_label="yes"), "'nope' not found"),
        (lambda: frame_call(FRAME, score="p", pos_label="yes"), "both column names"),
    ]
    for call, match in cases:
        with pytest.raises(vc.VeracityError, match=match) as err:
            call()
        assert "\n" not in str(err.value)


def test_a_labels_array_beside_a_frame_is_refused():
    with pytest.raises(vc.VeracityError, match="takes no labels array"):
        vc.recall_threshold(FRAME, Y, score="p", label="y")
    with pytest.raises(vc.VeracityError, match="needs labels"):
        vc.recall_threshold(P)
