"""Two audits logged to one run, and slice keys MLflow cannot take as they are (session 30).

* A metric the second audit has no value for (an AUC of one class) was skipped, so the run kept the first
  audit's: ``auc`` 0.82 beside the second audit's ECE, whose own AUC is undefined. It now reads NaN.
* A slice only the first audit had kept its metrics, unnamed as stale: now a UserWarning names it.
* Keys that clean to one name (``'a?b'``, ``'a|b'``, ``'a_b'``) were logged as ``a_b``, ``a_b-2``,
  ``a_b-3`` with nothing saying which is which: ``slices.json`` maps each metric folder to its key.
"""

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


def _frame(n: int = 3000, seed: int = 0):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    return pd.DataFrame({"p": p, "y": y, "seg": rng.choice(["web", "mobile"], n)})


def _quiet():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore", DeprecationWarning)  # MLflow's own notices about the file store
    warnings.simplefilter("ignore", FutureWarning)
    return ctx


def test_a_metric_the_second_audit_lacks_no_longer_shows_the_first_audit_s_value(tracking):
    df = _frame()
    first = vc.audit(df, score="p", label="y", by="seg")
    one_class = df[df.seg == "web"].assign(y=1)
    second = vc.audit(one_class, score="p", label="y", by="seg")
    assert second.auc is None and first.auc is not None and second.groups["web"].auc is None
    ctx = _quiet()
    try:
        with mlflow.start_run() as run:
            log_mlflow(first, figures=False)
            with pytest.warns(UserWarning, match=r"1 slice an earlier log wrote .*seg/mobile/"):
                logged = log_mlflow(second, figures=False)
    finally:
        ctx.__exit__(None, None, None)
    m = tracking.get_run(run.info.run_id).data.metrics
    assert math.isnan(m["auc"]) and math.isnan(m["seg/web/auc"])  # not the first audit's 0.8
    assert m["ece"] == second.ece and m["seg/web/ece"] == second.groups["web"].ece
    assert m["seg/mobile/ece"] == first.groups["mobile"].ece  # named in the warning, not changed
    assert any("now read NaN" in note and "auc, seg/web/auc" in note for note in logged.notes), logged.notes
    assert "auc" not in logged.metrics  # what this audit logged: still only its finite numbers
    ctx = _quiet()
    try:
        with mlflow.start_run(run_id=run.info.run_id), pytest.warns(UserWarning, match="seg/mobile/"):
            again = log_mlflow(second, figures=False)
    finally:
        ctx.__exit__(None, None, None)
    assert not any("now read NaN" in note for note in again.notes)  # cleared once, not said again


def test_logging_the_same_audit_twice_changes_nothing_and_says_nothing(tracking):
    result = vc.audit(_frame(), score="p", label="y", by="seg")
    ctx = _quiet()
    try:
        with mlflow.start_run() as run:
            first = log_mlflow(result, figures=False)
            second = log_mlflow(result, figures=False)  # filterwarnings=error: no warning
    finally:
        ctx.__exit__(None, None, None)
    assert second.metrics == first.metrics and second.notes == ()
    assert tracking.get_run(run.info.run_id).data.metrics == first.metrics


def test_another_prefix_is_left_alone(tracking):
    df = _frame()
    ctx = _quiet()
    try:
        with mlflow.start_run() as run:
            log_mlflow(vc.audit(df, score="p", label="y", by="seg"), figures=False, prefix="valid/")
            logged = log_mlflow(vc.audit(df[df.seg == "web"].assign(y=1), score="p", label="y", by="seg"),
                                figures=False)
    finally:
        ctx.__exit__(None, None, None)
    m = tracking.get_run(run.info.run_id).data.metrics
    assert not math.isnan(m["valid/auc"]) and not math.isnan(m["valid/seg/mobile/auc"])
    assert not any("seg/mobile" in note for note in logged.notes)


def test_slices_json_maps_each_metric_folder_to_its_key(tracking, tmp_path):
    pd = pytest.importorskip("pandas")
    keys = ["a?b", "a|b", "a_b", "a/b", "日本語", "x" * 300, "", "."]
    rng = np.random.default_rng(1)
    n = 4000
    p = rng.random(n)
    df = pd.DataFrame({"p": p, "y": (rng.random(n) < p).astype(int), "seg": rng.choice(keys, n)})
    result = vc.audit(df, score="p", label="y", by="seg")
    ctx = _quiet()
    try:
        with mlflow.start_run() as run:
            logged = log_mlflow(result, figures=False)
    finally:
        ctx.__exit__(None, None, None)
    assert "slices.json" in logged.artifacts
    path = Path(tracking.download_artifacts(run.info.run_id, "slices.json", str(tmp_path)))
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["by"] == "seg"
    mapping = {s["key"]: s["metrics"] for s in doc["slices"]}
    assert set(mapping) == set(keys)
    stored = tracking.get_run(run.info.run_id).data.metrics
    for key in keys:  # each folder holds that slice's numbers
        assert stored[mapping[key] + "ece"] == result.groups[key].ece, key
        assert stored[mapping[key] + "n"] == result.groups[key].n, key
    assert len(set(mapping.values())) == len(keys)
    assert mapping["a/b"] == "seg/a/b/" and mapping["日本語"] == "seg/日本語/"
    assert any("slices.json maps each metric folder to its key" in note for note in logged.notes)


def test_no_slices_no_slices_json(tracking):
    ctx = _quiet()
    try:
        with mlflow.start_run():
            logged = log_mlflow(vc.audit(_frame(), score="p", label="y"), figures=False)
    finally:
        ctx.__exit__(None, None, None)
    assert "slices.json" not in logged.artifacts and logged.notes == ()
