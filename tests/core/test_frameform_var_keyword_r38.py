"""``@rows_form`` on a function with ``**kwargs`` (session 38): the frame form passed the bound
``**kwargs`` as one keyword named after it (``fit_kwargs={...}``) instead of its entries, so every
option meant for ``**kwargs`` raised a raw ``TypeError`` on the frame form only (``vc.cross_fit(frame, ...,
role='calib')``); and a ``score_type=`` other than probabilities was refused by the seam in its own words
("reads probabilities") where the function, which passes it on, refuses it in the array form's words.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.core._frameform import rows_form

pd = pytest.importorskip("pandas")

S = np.array([0.2, 0.4, 0.7, 0.9])
Y = np.array([0, 1, 0, 1])
FRAME = pd.DataFrame({"p": S, "y": Y})


@rows_form
def _passes_on(scores: Any, labels: Any = None, *, score: Any = None, label: Any = None,
               sample_weight: Any = None, **options: Any) -> dict[str, Any]:
    if "score_type" in options:
        raise vc.VeracityError(f"_passes_on takes no score_type; got {options['score_type']!r}")
    return {"n": int(np.asarray(scores).size), "positives": int(np.sum(labels)), **options}


def test_the_frame_form_unpacks_the_keyword_options():
    framed = _passes_on(FRAME, score="p", label="y", role="calib", metadata={"a": 1})
    assert framed == _passes_on(S, Y, role="calib", metadata={"a": 1}) == \
        {"n": 4, "positives": 2, "role": "calib", "metadata": {"a": 1}}


def test_a_score_type_is_refused_by_the_function_on_both_forms():
    for call in (lambda: _passes_on(S * 4 - 2, Y, score_type="logit"),
                 lambda: _passes_on(FRAME.assign(p=S * 4 - 2), score="p", label="y", score_type="logit")):
        with pytest.raises(vc.VeracityError, match=r"^_passes_on takes no score_type; got 'logit'$"):
            call()
