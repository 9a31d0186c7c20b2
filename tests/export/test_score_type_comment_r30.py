"""The score type an export states is the one its map reads (session 30).

The SQL comment and the ONNX ``doc_string`` / ``metadata_props`` copied ``metadata.score_type``, a record of
the fit. A loaded artifact may hold none (an artifact dict with empty metadata: no score type stated at all)
or a stale one: ``vc.load`` accepts ``params.score_type = "logit"`` beside ``metadata.score_type =
"probability"``, and the comment then said "score type: probability" over SQL that reads the column as
log-odds (3.0 -> 0.95), as ``transform`` does. Now the stated type is the map's own, with what it means.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql


def _platt_logit() -> dict:
    rng = np.random.default_rng(0)
    z = rng.normal(size=300)
    y = (rng.random(300) < 1.0 / (1.0 + np.exp(-z))).astype(int)
    return vc.PlattScaling(score_type="logit").fit(z, y).to_dict()


def _first_line(cal) -> str:
    return to_sql(cal, "s", dialect="duckdb").split("\n", 1)[0]


def test_stale_metadata_does_not_name_the_wrong_score_type():
    doc = _platt_logit()
    doc["metadata"] = {**doc["metadata"], "score_type": "probability"}
    cal = vc.load(doc)
    assert cal.transform(np.array([3.0]))[0] > 0.9  # the map reads the column as a logit
    line = _first_line(cal)
    assert "score type: logit (any finite number)" in line, line
    assert "score type: probability" not in line, line


def test_empty_metadata_still_states_the_score_type():
    doc = _platt_logit()
    doc["metadata"] = {}
    assert "score type: logit (any finite number)" in _first_line(doc)


def test_onnx_states_the_map_s_score_type():
    onnx = pytest.importorskip("onnx")
    doc = _platt_logit()
    doc["metadata"] = {**doc["metadata"], "score_type": "probability"}
    model = onnx.load_from_string(to_onnx(vc.load(doc)))
    props = {e.key: e.value for e in model.metadata_props}
    assert props["score_type"] == "logit", props
    assert "score type: logit (any finite number)" in model.doc_string


@pytest.mark.parametrize(("cls", "x", "said"), [
    ("TemperatureScaling", "z", "score (a ranking score, any finite number)"),
    ("IsotonicCalibration", "z", "score (a ranking score, any finite number)"),
    ("BetaCalibration", "p", "score (a ranking score, in [0, 1])"),
])
def test_ranking_scores_say_what_the_column_holds(cls, x, said):
    rng = np.random.default_rng(1)
    z = rng.normal(size=400)
    p = 1.0 / (1.0 + np.exp(-z))
    y = (rng.random(400) < p).astype(int)
    cal = getattr(vc, cls)(score_type="score").fit({"z": z, "p": p}[x], y)
    assert f"score type: {said};" in _first_line(cal)
