"""Rows that look rounded are named so by every route, in the array form's words (round 29).

The array form (:func:`veracity.core._validation.multiclass_probabilities`) counts the rounding in
numpy; a frame (:func:`veracity.sources._multiclass.check_top_label`) in one aggregate where the rows
live, Dask in one pass per partition. The hint (what follows the count) must be the array form's,
word for word, on rows that look rounded and on rows that do not.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import CLASS_COLUMN_ROUTES, class_columns_frame

BACKENDS = CLASS_COLUMN_ROUTES


@pytest.fixture
def threads():
    dask = pytest.importorskip("dask")
    with dask.config.set({"scheduler": "threads"}):
        yield


def _cases():
    rng = np.random.default_rng(29)
    z = rng.normal(0.0, 2.0, (90, 6))
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = rng.integers(0, 6, 90)
    beyond = np.round(P, 3)
    beyond[5] = np.round(beyond[5] * 0.99, 3)  # ~0.01 off: 6 values at 3 decimals move a sum <= 0.003
    return [("rounded to 3", np.round(P, 3), y, "3 decimals"),
            ("rounded to 2", np.round(P, 2), y, "2 decimals"),
            ("one row beyond rounding", beyond, y, None),
            ("unrounded", P * 0.999, y, None)]


CASES = _cases()


def _error(call):
    with pytest.raises(vc.VeracityError) as caught:
        call()
    return caught.value


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_route_gives_the_array_forms_hint(backend, case, tmp_path, request):
    _, P, y, said = case
    want = _error(lambda: vc.audit(P, y))
    got = _error(lambda: vc.audit(class_columns_frame(backend, P, y, tmp_path, request),
                                  score=[f"c{i}" for i in range(P.shape[1])], label="y"))
    assert "must sum to 1" in str(got) and "\n" not in str(got)
    hint = str(want).split("). ", 1)[1]  # the array form's words after "(row r sums to s)"
    assert str(got).endswith(f"do not. {hint}"), (str(got), str(want))
    if said is None:
        assert "look rounded" not in str(got) and str(got).endswith("pass score_type='logit' for raw logits")
    else:
        assert f"The rows look rounded to {said}" in str(got)
        assert "p / p.sum(axis=1, keepdims=True)" in str(got)
