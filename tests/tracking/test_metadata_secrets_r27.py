"""A password in a calibrator's metadata is not logged to MLflow in clear (session 27).

``log_mlflow(calibrator)`` logs every metadata scalar as a run parameter, shown to whoever can see
the run: ``metadata={"source": "postgresql://user:PASSWORD@host/db"}`` put the password in the
parameter ``calibrator.source`` and in the ``calibrator.json`` artifact beside it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc

from .conftest import log_calibrator

mlflow = pytest.importorskip("mlflow")

SECRET = "Hunter2Secret"


def test_a_password_in_the_metadata_is_hidden(tracking, tmp_path):
    rng = np.random.default_rng(27)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=400) < s).astype(int)
    cal = vc.PlattScaling().fit(s, y, metadata={"source": f"postgresql://ana:{SECRET}@db.example/scores",
                                                "fit_window": "2026-01..2026-03"})
    params, logged, doc_path = log_calibrator(tracking, tmp_path, cal)
    assert params["calibrator.source"] == "postgresql://ana:***@db.example/scores"
    assert params["calibrator.fit_window"] == "2026-01..2026-03"  # other values as they are
    assert SECRET not in json.dumps(params) + json.dumps(logged.params)
    text = doc_path.read_text(encoding="utf-8")
    assert SECRET not in text
    back = vc.load(str(doc_path))  # the logged artifact is still the calibrator
    grid = np.linspace(0, 1, 101)
    assert np.array_equal(back.transform(grid), cal.transform(grid))
    assert SECRET in cal.to_dict()["metadata"]["source"]  # the calibrator itself is left as it was
