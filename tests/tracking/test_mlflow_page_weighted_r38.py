"""The report.html ``vc.log_mlflow`` builds from a weighted audit says its reliability points are sized by
their weight, as ``vc.report``'s page does (it said "sized by its count")."""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.tracking._mlflow import result_page


def test_a_weighted_audits_page_sizes_points_by_weight():
    rng = np.random.default_rng(38)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    weighted = result_page(vc.audit(p, y, sample_weight=rng.lognormal(0, 1, 500)), figures=False)
    plain = result_page(vc.audit(p, y), figures=False)
    assert "sized by its weight" in weighted and "sized by its count" not in weighted
    assert "sized by its count" in plain
