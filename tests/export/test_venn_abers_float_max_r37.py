"""A Venn-ABERS knot at the largest double exports without numpy's overflow warning (session 37).

The merged Venn-ABERS table (``merged_venn_abers``) has an edge at every knot and at the double just above it;
for a knot at max-float that double is ``inf`` (IEEE's exact answer), but ``np.nextafter`` also raised numpy's
overflow RuntimeWarning there -- an error under ``filterwarnings=error`` or ``-W error``, so ``to_sql`` and
``to_onnx`` crashed on a map fitted on logits that include max-float, or loaded with such a knot. The edge at
``inf`` is dropped as before (``transform`` refuses an infinite score); the SQL and ONNX maps still equal
``transform`` on scores at, below and around that knot.
"""

from __future__ import annotations

import sqlite3
import warnings
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql

_MAX = float(np.finfo(np.float64).max)


def _fitted() -> Any:
    rng = np.random.default_rng(37)
    s = rng.normal(0.0, 3.0, 200)
    y = (rng.uniform(size=200) < 1.0 / (1.0 + np.exp(-s))).astype(int)
    return vc.VennAbers(score_type="logit").fit(np.append(s, [_MAX, -_MAX]), np.append(y, [1, 0]))


def _loaded() -> Any:
    state = {"c_": [-1.0, 0.5, _MAX], "p0_": [0.1, 0.2, 0.4, 0.6], "p1_": [0.3, 0.5, 0.7, 0.9],
             "n_classes_": 2}
    return vc.load({"format": "veracity.calibrator", "version": 1, "kind": "venn-abers",
                    "params": {"score_type": "logit"}, "state": state, "metadata": {}})


def _scores(cal: Any) -> np.ndarray:
    c = np.asarray(cal.c_, dtype=np.float64)
    with np.errstate(over="ignore"):  # each knot, the doubles either side (inf past max-float: dropped)
        near = np.concatenate([c, np.nextafter(c, -np.inf), np.nextafter(c, np.inf)])
    near = near[np.isfinite(near)]
    return np.unique(np.concatenate([near, [-_MAX, 0.0, 1e300, _MAX, np.nextafter(_MAX, 0.0)]]))


@pytest.fixture(params=["fitted", "loaded"])
def cal(request: pytest.FixtureRequest) -> Any:
    made = _fitted() if request.param == "fitted" else _loaded()
    assert float(made.c_[-1]) == _MAX
    return made


def _sql_rows(con: Any, text: str, x: np.ndarray) -> np.ndarray:
    con.execute("CREATE TABLE t_r37 (i BIGINT, score DOUBLE PRECISION)")
    con.executemany("INSERT INTO t_r37 VALUES (?, ?)", [(i, float(v)) for i, v in enumerate(x)])
    body = text.split("\n", 1)[1]
    return np.array([r[0] for r in con.execute(f"SELECT {body} FROM t_r37 ORDER BY i").fetchall()])


def _want(cal: Any, x: np.ndarray, shift: Any) -> np.ndarray:
    want = cal.transform(x)
    return want if shift is None else vc.adjust_prior(want, *shift)


@pytest.mark.parametrize("shift", [None, (0.3, 0.1)])
@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
def test_sql_at_the_max_float_knot_equals_transform_without_a_warning(cal, dialect, shift):
    x = _scores(cal)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = to_sql(cal, "score", dialect=dialect, prior_shift=shift)
    if dialect == "sqlite":
        con: Any = sqlite3.connect(":memory:")
    else:
        con = pytest.importorskip("duckdb").connect()
    try:
        got = _sql_rows(con, text, x)
    finally:
        con.close()
    np.testing.assert_array_equal(got, _want(cal, x, shift))


@pytest.mark.parametrize("shift", [None, (0.3, 0.1)])
def test_onnx_at_the_max_float_knot_equals_transform_without_a_warning(cal, shift):
    ort = pytest.importorskip("onnxruntime")
    x = _scores(cal)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = to_onnx(cal, prior_shift=shift)  # a shift merges the table (_shifted_table)
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    got = session.run(["probability"], {"score": x})[0]
    np.testing.assert_allclose(got, _want(cal, x, shift), rtol=0, atol=1e-15)
