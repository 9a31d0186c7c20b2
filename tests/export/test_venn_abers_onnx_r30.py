"""A loaded Venn-ABERS artifact's 0/0 point: NaN in ONNX, NULL in SQL, refused by transform, said so (s. 30).

``p0 = p1 = [0, 0, 1, 1]`` over ``c = [0.2, 0.5, 0.8]`` passes ``vc.load`` and is 0/0 at the knot 0.5.
``transform`` refuses a batch holding 0.5; the SQL gives NULL on that row alone (session 29). The ONNX model
gives NaN there, ONNX's missing value, as it does for every other score ``transform`` refuses; it is now
written as a test of the knot (as the SQL's ``"p" = 0.5``), not left to the division. Neither text said why
those rows come back empty: the SQL comment and the ONNX ``doc_string`` now name the score.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql

from .conftest import VA_BAD as _BAD
from .conftest import VA_X as _X
from .conftest import va_rows as _rows
from .conftest import va_zero_over_zero as _binary
from .conftest import va_zero_over_zero_ovr as _ovr

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

_NOTE = "no probability (SQL NULL, ONNX NaN; transform() refuses it) at"


def _onnx(model: bytes, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return session.run(["probability"], {"score": x})[0]


@pytest.mark.parametrize("shift", [None, (0.3, 0.1)])
def test_binary_onnx_is_nan_at_the_knot_only(shift):
    cal = _binary()
    bad = _X == _BAD
    with pytest.raises(vc.VeracityError, match="invalid probabilities"):
        cal.transform(_X)
    got = _onnx(to_onnx(cal, prior_shift=shift), _X)
    assert np.isnan(got[bad]).all() and not np.isnan(got[~bad]).any()
    want = cal.transform(_X[~bad])
    if shift is not None:
        want = vc.adjust_prior(want, *shift)
    np.testing.assert_allclose(got[~bad], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("shift", [None, ([0.2, 0.3, 0.5], [0.4, 0.4, 0.2])])
def test_one_vs_rest_onnx_row_is_nan_in_every_column(shift):
    cal, rows = _ovr(), _rows()
    bad = rows[:, 1] == _BAD
    got = _onnx(to_onnx(cal, prior_shift=shift), rows)
    assert np.isnan(got[bad]).all() and not np.isnan(got[~bad]).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = cal.transform(rows[~bad])
    if shift is not None:
        want = vc.adjust_prior(want, *shift)
    np.testing.assert_allclose(got[~bad], want, rtol=0, atol=1e-12)


def test_onnx_tests_the_knot_rather_than_dividing_zero_by_zero():
    """The model compares the score with the knot (an ``Equal`` against 0.5), as the SQL does."""
    model = onnx.load_from_string(to_onnx(_binary()))
    consts = {t.name: float(onnx.numpy_helper.to_array(t)) for t in model.graph.initializer if not t.dims}
    equal = [n for n in model.graph.node if n.op_type == "Equal"]
    assert any(consts.get(n.input[1]) == _BAD for n in equal), [n.input for n in equal]


def test_sql_comment_and_onnx_doc_string_name_the_score():
    sql = to_sql(_binary(), "p", dialect="duckdb").split("\n", 1)[0]
    assert f"{_NOTE} score = 0.5: the artifact's Venn-ABERS quotient is 0/0 there" in sql, sql
    doc = onnx.load_from_string(to_onnx(_binary())).doc_string
    assert f"{_NOTE} score = 0.5" in doc, doc
    multi = to_sql(_ovr(), ["a", "b", "c"], dialect="sqlite").split("\n", 1)[0]
    assert f"{_NOTE} class 1 score = 0.5:" in multi, multi
    assert multi.count(_NOTE) == 1  # said once, though each of the three outputs reads the map


def test_fitted_map_says_nothing_of_it():
    rng = np.random.default_rng(3)
    p = np.round(rng.random(400), 2)
    y = (rng.random(400) < p).astype(int)
    cal = vc.VennAbers().fit(p, y)
    assert _NOTE not in to_sql(cal, "p", dialect="sqlite")
    assert _NOTE not in onnx.load_from_string(to_onnx(cal)).doc_string
