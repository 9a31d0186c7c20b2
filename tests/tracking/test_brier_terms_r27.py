"""The Brier decomposition logged to MLflow adds up to the logged Brier score (session 27).

The audit prints ``Brier = reliability - resolution + uncertainty + within-bin``; the within-bin
term (the scores' spread inside each bin) is not small with few bins, and a dashboard that shows
only the first three cannot be reconciled with ``brier``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.tracking import log_mlflow

mlflow = pytest.importorskip("mlflow")

TERMS = ("brier_reliability", "brier_resolution", "brier_uncertainty", "brier_within_bin")


def _sum(m: dict[str, float], stem: str = "") -> float:
    rel, res, unc, within = (m[stem + t] for t in TERMS)
    return rel - res + unc + within


def test_the_logged_terms_add_up_to_the_logged_brier(tracking):
    rng = np.random.default_rng(27)
    p = rng.uniform(size=4000)
    y = (rng.uniform(size=4000) < p ** 1.5).astype(int)
    seg = rng.choice(["a", "b"], 4000)
    result = vc.audit(p, y, bins=3, by={"seg": seg})  # wide bins: a within-bin term of about 1e-3
    # the Brier score from its definition, not from the code under test
    assert result.brier == pytest.approx(np.mean((p - y) ** 2), abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mlflow.start_run() as run:
            log_mlflow(result)
        m = tracking.get_run(run.info.run_id).data.metrics
    assert abs(m["brier"] - (m["brier_reliability"] - m["brier_resolution"] + m["brier_uncertainty"])) > 1e-4
    assert _sum(m) == pytest.approx(m["brier"], abs=1e-12)
    for key in ("a", "b"):
        assert _sum(m, f"seg/{key}/") == pytest.approx(m[f"seg/{key}/brier"], abs=1e-12)
