"""The whole value of a metadata key named like a secret is hidden, also where that value is a JSON object
(session 44): ``metadata={"db_password": {"value": PASSWORD}}`` logged the password in clear to MLflow's
``calibrator.json`` (and to an ONNX model's ``metadata_props``), because the hiding went by each value's own
key (``value``), which names no secret."""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc

from .conftest import log_calibrator

mlflow = pytest.importorskip("mlflow")

SECRET = "Hunter2Secret"
METADATA = {"db_password": {"value": SECRET, "rotated": "2026-01"},
            "conn": {"host": "db.example", "password": ["old", {"current": SECRET}]}}


def _fitted():
    rng = np.random.default_rng(44)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=400) < s).astype(int)
    return vc.PlattScaling().fit(s, y, metadata=METADATA)


def test_a_secret_key_s_nested_value_is_not_logged(tracking, tmp_path):
    cal = _fitted()
    params, logged, doc_path = log_calibrator(tracking, tmp_path, cal)
    doc = json.loads(doc_path.read_text(encoding="utf-8"))
    assert SECRET not in json.dumps(doc) + json.dumps(params) + json.dumps(logged.params)
    assert doc["metadata"]["db_password"] == {"value": "***", "rotated": "***"}
    assert doc["metadata"]["conn"]["host"] == "db.example"  # a key that names no secret keeps its value
    assert np.array_equal(vc.load(str(doc_path)).transform(np.linspace(0, 1, 11)),
                          cal.transform(np.linspace(0, 1, 11)))


def test_nor_written_in_an_onnx_model():
    onnx = pytest.importorskip("onnx")
    model = onnx.load_from_string(_fitted().to_onnx())
    props = {p.key: p.value for p in model.metadata_props}
    assert SECRET not in json.dumps(props) + model.doc_string
    assert "db.example" in props["conn"]
