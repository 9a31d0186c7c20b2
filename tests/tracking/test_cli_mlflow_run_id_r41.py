"""Round 41: `veracity audit --mlflow` with MLFLOW_RUN_ID set (as `mlflow run` sets it for its entry point)
resumed that run, as MLflow's start_run does, but renamed it "veracity audit". It now logs to that run under
its own name; without the variable a new run is still named "veracity audit"."""

import warnings

import numpy as np
import pandas as pd


def _file(tmp_path):
    rng = np.random.default_rng(41)
    p = rng.random(200)
    pd.DataFrame({"p": p, "y": (rng.random(200) < p).astype(int)}).to_csv(tmp_path / "d.csv", index=False)
    return str(tmp_path / "d.csv")


def test_the_run_mlflow_run_id_names_keeps_its_name(tmp_path, tracking, cli, monkeypatch) -> None:
    import mlflow

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mlflow.start_run(run_name="mine") as run:
            run_id = run.info.run_id
    monkeypatch.setenv("MLFLOW_RUN_ID", run_id)
    res = cli(["audit", _file(tmp_path), "--score", "p", "--label", "y", "--mlflow", "--no-figures"])
    assert res.code == 0, res.err
    got = tracking.get_run(run_id)
    assert got.info.run_name == "mine" and got.data.tags["mlflow.runName"] == "mine"
    assert "ece" in got.data.metrics and f"logged to MLflow run {run_id}" in res.err


def test_without_it_a_new_run_is_named_veracity_audit(tmp_path, tracking, cli, monkeypatch) -> None:
    monkeypatch.delenv("MLFLOW_RUN_ID", raising=False)
    res = cli(["audit", _file(tmp_path), "--score", "p", "--label", "y", "--mlflow", "--no-figures"])
    assert res.code == 0, res.err
    run_id = res.err.split("logged to MLflow run ")[1].split(":")[0]
    assert tracking.get_run(run_id).info.run_name == "veracity audit"
