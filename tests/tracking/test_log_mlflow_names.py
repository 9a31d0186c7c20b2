"""Slice keys and by= names that MLflow's path check refuses are logged under names it takes (round 6).

MLflow refuses a metric name that a path normalisation would change ("seg//ece", "seg/./ece",
"seg/../x/ece", a leading "/"). Before, a slice key "" (an empty-string category), ".", "..",
"a/" or "x/../y", or a by= column named "/x" or "a//b", made log_mlflow raise MLflow's raw
MlflowException -- after audit.json and report.html had already been logged to the run.
"""

from __future__ import annotations


import numpy as np
import pytest

import veracity as vc

mlflow = pytest.importorskip("mlflow")

N = 600




def _data():
    rng = np.random.default_rng(3)
    p = rng.random(N)
    return p, (rng.random(N) < p).astype(int)


@pytest.mark.parametrize("column, keys", [
    ("seg", ["", "x"]),
    ("seg", [".", ".."]),
    ("seg", ["a/", "a//b", "x/../y", "/"]),
    ("/x", ["u", "v"]),
    ("a//b", ["u", "v"]),
    ("seg/..", ["u", "v"]),
])
def test_every_slice_is_logged_under_a_name_mlflow_takes(tracking, column, keys):
    p, y = _data()
    seg = np.array(keys * (N // len(keys)), dtype=object)
    result = vc.audit(p, y, by={column: seg})
    with mlflow.start_run() as run:
        logged = vc.log_mlflow(result, figures=False)
    stored = tracking.get_run(run.info.run_id).data.metrics
    eces = sorted(v for k, v in stored.items() if k.endswith("/ece"))
    assert len(eces) == len(result.groups) == len(set(keys))
    assert eces == sorted(g.ece for g in result.groups.values())
    assert stored == pytest.approx(logged.metrics)


@pytest.mark.parametrize("prefix", ["./", "a/./"])
def test_a_prefix_with_a_dot_folder_is_refused_before_logging(tracking, prefix):
    """Before: MLflow's raw "must not resolve to other names" error, after audit.json was logged."""
    p, y = _data()
    with mlflow.start_run() as run:
        with pytest.raises(vc.VeracityError, match=r"must be a relative artifact path"):
            vc.log_mlflow(vc.audit(p, y), figures=False, prefix=prefix)
        assert tracking.list_artifacts(run.info.run_id) == []
