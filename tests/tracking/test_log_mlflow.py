"""``vc.log_mlflow`` against a local file-store tracking directory: what is read back equals
the result (issue 27)."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import veracity as vc
from veracity.tracking import log_mlflow

mlflow = pytest.importorskip("mlflow")




def _data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 3, n)
    y = (rng.random(n) < p ** 1.3).astype(int)
    seg = rng.choice(np.array(["EU", "US", "a/b c?"]), n)
    return p, y, seg


def _artifact(client, run_id, name, tmp_path) -> Path:
    return Path(client.download_artifacts(run_id, name, str(tmp_path)))


def test_an_audit_is_logged_and_read_back(tracking, tmp_path):
    client = tracking
    p, y, seg = _data()
    result = vc.audit(p, y, by={"region": seg})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mlflow.start_run() as run:
            logged = log_mlflow(result)
        stored = client.get_run(run.info.run_id)
    assert logged.run_id == run.info.run_id
    m = stored.data.metrics
    assert m["ece"] == result.ece and m["brier"] == result.brier and m["nll"] == result.nll
    assert m["auc"] == result.auc and m["accuracy"] == result.accuracy and m["n"] == result.n
    assert m["brier_reliability"] == result.decomposition.reliability
    assert m["region/EU/ece"] == result.groups["EU"].ece
    assert m["region/a/b c_/auc"] == result.groups["a/b c?"].auc  # '?' is not allowed in MLflow names
    assert m == logged.metrics
    doc = json.loads(_artifact(client, run.info.run_id, "audit.json", tmp_path).read_text())
    assert doc["metrics"]["ece"] == result.ece
    assert doc["table"] == json.loads(json.dumps(result.to_dict()["table"]).replace("NaN", "null"))
    assert set(doc["groups"]) == {"EU", "US", "a/b c?"}
    png = _artifact(client, run.info.run_id, "reliability.png", tmp_path).read_bytes()
    assert png.startswith(b"\x89PNG")
    html = _artifact(client, run.info.run_id, "report.html", tmp_path).read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "Slices by region" in html
    assert f"{result.n:,}" in html and f"{result.ece:.4f}" in html
    assert "Content-Security-Policy" in html  # self-contained: the page fetches nothing


def test_a_calibrator_is_logged_and_loads_back(tracking, tmp_path):
    client = tracking
    p, y, _ = _data(800, seed=1)
    cal = vc.IsotonicCalibration().fit(p, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mlflow.start_run() as run:
            logged = log_mlflow(cal, prefix="valid/")
        stored = client.get_run(run.info.run_id)
    assert logged.artifacts == ("valid/calibrator.json",)
    assert stored.data.params["valid/calibrator.kind"] == cal.to_dict()["kind"]
    assert stored.data.params["valid/calibrator.n_rows"] == "800"
    back = vc.load(str(_artifact(client, run.info.run_id, "valid/calibrator.json", tmp_path)))
    grid = np.linspace(0, 1, 101)
    assert np.array_equal(back.transform(grid), cal.transform(grid))


def test_an_audit_with_its_calibrator_and_no_active_run(tracking, tmp_path):
    client = tracking
    p, y, _ = _data(600, seed=2)
    cal = vc.PlattScaling().fit(p, y)
    result = vc.audit(cal.transform(p), y)
    assert mlflow.active_run() is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logged = log_mlflow(result, calibrator=cal, figures=False)
        stored = client.get_run(logged.run_id)
    assert mlflow.active_run().info.run_id == logged.run_id  # started, as mlflow.log_metric would
    assert stored.data.metrics["ece"] == result.ece
    assert set(logged.artifacts) == {"audit.json", "report.html", "calibrator.json"}
    assert "calibrator.a_" not in stored.data.params and stored.data.params["calibrator.kind"] == "platt"


def test_an_explicit_run_and_a_report(tracking, tmp_path):
    client = tracking
    p, y, _ = _data(500, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = client.create_run(client.get_experiment_by_name("Default").experiment_id
                                if client.get_experiment_by_name("Default") else
                                client.create_experiment("Default"))
        rep = vc.report(p, y, bootstrap=False)
        logged = log_mlflow(rep, run=run.info.run_id)
        stored = client.get_run(run.info.run_id)
    assert stored.data.metrics["ece"] == rep.summary["metrics"]["ece"]
    html = _artifact(client, logged.run_id, "report.html", tmp_path).read_text(encoding="utf-8")
    assert html == rep.html


def test_nan_and_none_are_not_logged_as_metrics(tracking):
    p = np.array([0.2, 0.3, 0.6, 0.9])
    y = np.array([1, 1, 1, 1])  # one class: no AUC
    result = vc.audit(p, y, min_count=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mlflow.start_run():
            logged = log_mlflow(result, figures=False)
    assert "auc" not in logged.metrics
    assert all(math.isfinite(v) for v in logged.metrics.values())


@pytest.mark.parametrize("obj, run, match", [
    (42, None, r"log_mlflow logs an AuditResult .* got int"),
    ("audit", None, r"got str"),
])
def test_refusals(tracking, obj, run, match):
    with pytest.raises(vc.VeracityError, match=match):
        log_mlflow(obj, run=run)
