"""Helpers shared by the exact-alert tests of ``vc.monitor`` (the law of a period's positives count)."""
from types import SimpleNamespace

import numpy as np
import pytest

import veracity as vc


def _pmf(p):
    """The Poisson-binomial law of the positives among rows of probabilities ``p`` (exact convolution)."""
    f = np.ones(1)
    for q in p:
        f = np.convolve(f, [1.0 - q, q])
    return f


def _alerting_counts(p, kmax):
    """The counts k = 0..kmax whose period (the scores p, k positives) vc.monitor calls an alert."""
    n = p.size
    ks = np.arange(kmax + 1)
    scores = np.tile(p, ks.size)
    labels = (np.arange(n)[None, :] < ks[:, None]).astype(int).reshape(-1)
    periods = np.repeat(np.char.zfill(ks.astype(str), 4), n)
    rows = vc.monitor(scores, labels, periods, min_count=n).rows
    assert [r.period for r in rows] == [f"{k:04d}" for k in ks] and all(r.n == n for r in rows)
    return np.array([r.status == "alert" for r in rows])


@pytest.fixture
def exact_alerts():
    """``.pmf(p)`` and ``.alerting_counts(p, kmax)``."""
    return SimpleNamespace(pmf=_pmf, alerting_counts=_alerting_counts)
