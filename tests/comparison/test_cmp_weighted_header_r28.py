"""A weighted comparison says so in its first line (r28): "Model comparison on 2,000 rows" read as 2,000
equal rows when the intervals were at the rows' Kish effective size :math:`(\\sum w)^2/\\sum w^2`. The
unweighted header is unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2801)
    n = 2000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    q = np.clip(p + rng.normal(0, 0.05, n), 0.01, 0.99)
    w = rng.exponential(1.0, n)
    return {"a": p, "b": q}, y, w


def test_a_weighted_comparison_names_its_kish_effective_size(data):
    models, y, w = data
    kish = w.sum() ** 2 / np.dot(w, w)
    assert 900 < kish < 1300  # exponential weights: about n/2
    result = vc.compare_models(models, y, sample_weight=w, n_resamples=0)
    head = str(result).splitlines()[0]
    assert head == (f"Model comparison on 2,000 rows, weighted (Kish effective size {kish:,.1f}) (paired; 95% "
                    "intervals; no resamples; ECE on 15 equal-width bins):")
    assert f"Kish effective size {kish:,.1f}" in result._repr_html_()
    scores = vc.compare_models(models, y, sample_weight=w, score_type="score", n_resamples=0)
    assert str(scores).splitlines()[0].startswith(f"Model comparison on 2,000 rows, weighted (Kish effective "
                                                  f"size {kish:,.1f}) (paired;")


def test_rows_of_weight_zero_are_not_counted(data):
    models, y, w = data
    w = w.copy()
    w[:500] = 0.0
    kish = w[500:].sum() ** 2 / np.dot(w[500:], w[500:])
    head = str(vc.compare_models(models, y, sample_weight=w, n_resamples=0)).splitlines()[0]
    assert head.startswith(f"Model comparison on 1,500 rows, weighted (Kish effective size {kish:,.1f}) (")


def test_the_unweighted_header_is_unchanged(data):
    models, y, _ = data
    result = vc.compare_models(models, y, n_resamples=0)
    assert str(result).splitlines()[0] == ("Model comparison on 2,000 rows (paired; 95% intervals; no resamples; "
                                           "ECE on 15 equal-width bins):")
    assert "Kish" not in result._repr_html_()
