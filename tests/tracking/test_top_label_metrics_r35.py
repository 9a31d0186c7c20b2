"""(N, K) scores are audited in the top-label reading, whose ``base_rate`` is the top-label accuracy: the
printed audit does not show it as a base rate, and the run no longer logs it as one.

Before: ``vc.log_mlflow(vc.audit(P, y))`` of three balanced classes put ``base_rate 0.59`` (the share of
rows whose argmax is right, ``accuracy`` again) in the run, beside nothing saying the ECE, Brier and AUC are
the top label's."""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.tracking._mlflow import audit_metrics


def _three_classes(n: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 1.5, (n, 3))
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    t = np.exp(logits / 1.6) / np.exp(logits / 1.6).sum(1, keepdims=True)
    y = (rng.uniform(size=(n, 1)) > t.cumsum(1)).sum(1)
    return p, y


def test_a_top_label_audit_logs_no_base_rate():
    p, y = _three_classes()
    audit = vc.audit(p, y, bootstrap=False)
    shares = np.bincount(y) / y.size
    assert audit.top_label and audit.base_rate == audit.accuracy  # the audit's "base rate" is the accuracy
    assert not np.isclose(audit.base_rate, shares).any()  # and no class's share
    logged = audit_metrics(audit)
    assert "base_rate" not in logged
    assert logged["accuracy"] == np.mean(p.argmax(1) == y)
    # by= slices of (N, K) scores are top-label audits too; classwise slices are binary: their base rate stays
    by = audit_metrics(vc.audit(p, y, by=np.where(np.arange(y.size) % 2 == 0, "u", "v"), bootstrap=False))
    assert not any(k.endswith("base_rate") for k in by)
    classwise = audit_metrics(vc.audit(p, y, multiclass="classwise", bootstrap=False))
    assert "base_rate" not in classwise
    assert classwise["class/class 0/base_rate"] == np.mean(y == 0)


def test_a_binary_audit_keeps_its_base_rate():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=500)
    y = (rng.uniform(size=500) < p).astype(int)
    assert audit_metrics(vc.audit(p, y, bootstrap=False))["base_rate"] == np.mean(y)


def test_the_log_says_the_reading(tracking):
    import warnings

    import mlflow

    p, y = _three_classes()
    audit = vc.audit(p, y, bootstrap=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLflow's own deprecation notices
        with mlflow.start_run() as run:
            logged = vc.log_mlflow(audit, figures=False)
    held = tracking.get_run(run.info.run_id).data.metrics
    assert "base_rate" not in held and held["accuracy"] == audit.accuracy and held["nll"] == audit.nll
    assert any(n.startswith("top-label reading of 3 classes") for n in logged.notes)
