"""``veracity audit --mlflow`` always drew the reliability figure (seconds of matplotlib) although
``vc.log_mlflow(..., figures=False)`` skips it: ``--no-figures`` passes that on (no reliability.png, the
report.html notes the omission); without ``--mlflow`` it would change nothing and is refused in one line.
``--threshold -0`` printed "acc(-0)" and wrote ``"threshold": -0.0``: it reads 0."""

import json

import numpy as np
import pandas as pd
import pytest


def _csv(tmp_path) -> str:
    rng = np.random.default_rng(3)
    p = rng.random(200)
    pd.DataFrame({"p": p, "y": (rng.random(200) < p).astype(int)}).to_csv(tmp_path / "d.csv", index=False)
    return str(tmp_path / "d.csv")


def test_no_figures_logs_no_png(tmp_path, tracking, cli) -> None:
    res = cli(["audit", _csv(tmp_path), "--score", "p", "--label", "y", "--mlflow", "--no-figures"])
    assert res.code == 0, res.err
    (run,) = tracking.search_runs([e.experiment_id for e in tracking.search_experiments()])
    names = [a.path for a in tracking.list_artifacts(run.info.run_id)]
    assert "reliability.png" not in names and "report.html" in names and "audit.json" in names, names
    assert "reliability.png" not in res.err, res.err


def test_no_figures_without_mlflow_is_refused(tmp_path, cli) -> None:
    res = cli(["audit", _csv(tmp_path), "--score", "p", "--label", "y", "--no-figures"])
    assert res.code == 2 and res.out == "", (res.code, res.out)
    assert "--no-figures has no effect without --mlflow" in res.err and len(res.err.strip().splitlines()) == 1


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_negative_zero_threshold_reads_zero(tmp_path, cli, engine) -> None:
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    args = ["audit", _csv(tmp_path), "--score", "p", "--label", "y", "--threshold", "-0.0",
            "--engine", engine]
    res = cli([*args, "--json", "-"])
    assert res.code == 0, res.err
    threshold = json.loads(res.out)["threshold"]
    assert threshold == 0.0 and str(threshold) == "0.0", threshold  # -0.0 == 0.0: the text tells them apart
    text = cli(args)
    assert "acc(0) " in text.out and "acc(-0)" not in text.out, text.out
