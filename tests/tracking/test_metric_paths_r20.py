"""Metric names that MLflow's file store would need as a file and a folder at once (round 20).

MLflow's file store writes metric ``a/b/c`` as the file ``metrics/a/b/c``. Before, a by= column named
like a whole-table metric (``n``, ``auc``, ``accuracy`` …: the metric ``n`` is a file, the slice
metric ``n/a/ece`` needs a folder ``n``), or slice keys ``web`` and ``web/ece`` (``seg/web/ece`` a
file and a folder), made ``vc.log_mlflow`` raise MLflow's raw ``[Errno 20] Not a directory`` --
after ``audit.json`` and ``report.html`` were logged, with no metric at all on the run.
"""

from __future__ import annotations


import numpy as np
import pytest

import veracity as vc

mlflow = pytest.importorskip("mlflow")

N = 600




def _data():
    rng = np.random.default_rng(5)
    p = rng.random(N)
    return p, (rng.random(N) < p).astype(int)


@pytest.mark.parametrize("prefix", ["", "valid/"])
@pytest.mark.parametrize("column, keys", [
    ("n", ["a", "b"]),
    ("auc", ["a", "b"]),
    ("base_rate/x", ["a", "b"]),
    ("seg", ["web", "web/ece", "web/n/x"]),
    ("seg", ["web/ece", "web"]),
])
def test_every_metric_is_logged_when_names_nest(tracking, column, keys, prefix):
    p, y = _data()
    seg = np.array(keys * (N // len(keys)), dtype=object)
    result = vc.audit(p, y, by={column: seg})
    with mlflow.start_run() as run:
        logged = vc.log_mlflow(result, figures=False, prefix=prefix)
    stored = tracking.get_run(run.info.run_id).data.metrics
    # the whole table's metrics keep their names; every slice's ECE is there once
    assert stored[prefix + "ece"] == result.ece
    assert stored[prefix + "n"] == result.n
    slice_eces = sorted(v for k, v in stored.items() if k.endswith("/ece") and k != prefix + "ece")
    assert len(slice_eces) == len(result.groups) == len(keys)
    assert slice_eces == sorted(g.ece for g in result.groups.values())
    assert stored == pytest.approx(logged.metrics)


@pytest.mark.parametrize("metadata", [
    {"kind/x": "v1"}, {"fit": "a", "fit/window": "b"}, {"fit/window": "b", "fit": "a"},
])
def test_calibrator_parameters_that_nest_are_all_logged(tracking, metadata):
    """Before: a metadata key ``fit/window`` beside ``fit`` (or ``kind/x`` beside ``calibrator.kind``)
    raised MLflow's raw "Not a directory" after calibrator.json was logged."""
    p, y = _data()
    cal = vc.PlattScaling().fit(p, y, metadata=metadata)
    with mlflow.start_run() as run:
        logged = vc.log_mlflow(cal)
    stored = tracking.get_run(run.info.run_id).data.params
    assert stored == logged.params
    assert stored["calibrator.kind"] == "platt"
    for value in metadata.values():  # every metadata value is a parameter of its own
        assert sum(v == value for v in stored.values()) == 1
