"""Session 35: a score bin's rate interval (vc.ppi_audit's bins, the monitoring store's) takes Garwood's exact
Poisson end below 10 effective events.

The bins' interval was Wilson's at the PPI estimate with n* effective labels (capped at the bin's labels).
Wilson's lower end is too high for a count of a few events (Brown, Cai & DasGupta 2001: 0.18/n for one event
of n): a low bin of calibrated scores (rates 0.002-0.01, 40-300 labels, 0.1-0.9 expected events) had its
expected rate below the lower end in 6.8-7.8 % of windows at a nominal 2.5 % (seeded, 400 windows a design),
never above the upper end; with Garwood's end (modified_wilson) 0-1 %, median widths 0-3 % more.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc
from veracity.delayed._ppi_sums import wilson_rate_interval

REPS = 400
#: about two Monte-Carlo standard errors of a tail frequency near 0.025 over 400 windows (sd 0.0078)
ALLOWANCE = 0.016


def _windows(pbin: float, nlab: int, seed: int):
    """Calibrated windows: half the rows scored around ``pbin`` (the bin [0, 0.1)), half in [0.3, 0.9];
    2 * nlab random labels of 20 * nlab rows. The truth is the bin's expected rate, its mean score."""
    rng = np.random.default_rng(seed)
    for _ in range(REPS):
        n = 20 * nlab
        s = np.where(rng.random(n) < 0.5, rng.uniform(0.5 * pbin, 1.5 * pbin, n), rng.uniform(0.3, 0.9, n))
        y = (rng.random(n) < s).astype(int)
        lab = np.zeros(n, bool)
        lab[rng.choice(n, 2 * nlab, replace=False)] = True
        yield y, s, lab


@pytest.mark.parametrize(("pbin", "nlab", "was"), [(0.002, 50, 0.0775), (0.003, 300, 0.0675)])
def test_a_low_bins_lower_end_misses_at_most_its_share(pbin, nlab, was):
    below = above = 0
    for y, s, lab in _windows(pbin, nlab, seed=1):
        a = vc.ppi_audit(y[lab], s[lab], s[~lab], bins=[0, 0.1, 1], sample_check="off")
        r = a.rows[-2]
        assert r["quantity"] == "rate in [0, 0.1)" and r["n_labelled"] >= 30  # a sufficient bin
        truth = s[s < 0.1].mean()
        below += truth < r["ci_low"]
        above += truth > r["ci_high"]
    assert below / REPS <= 0.025 + ALLOWANCE, (below / REPS, was)
    assert above / REPS <= 0.025 + ALLOWANCE


def test_one_event_of_fifty_labels_reads_garwoods_lower_end():
    """PPI's standard error that of more than 50 labels: n* is capped at the bin's 50 labels, and the lower
    end of 1 event of 50 is Garwood's, the Poisson mean whose chance of 1 event or more is 0.025 (over 50)."""
    p = 1 / 50
    out = {"estimate": np.array([p]), "se": np.array([0.5 * math.sqrt(p * (1 - p) / 50)]),
           "ci_low": np.array([0.0]), "ci_high": np.array([1.0])}
    wilson_rate_interval(out, np.array([50.0]), 0.95)
    assert out["ci_low"][0] == pytest.approx(-math.log(0.975) / 50, rel=1e-9)  # Wilson's: 0.00354
    z = 1.959963984540054  # the upper end is Wilson's (49 non-events)
    centre = (p + z * z / 100) / (1 + z * z / 50)
    half = z / (1 + z * z / 50) * math.sqrt(p * (1 - p) / 50 + z * z / (4 * 50 * 50))
    assert out["ci_high"][0] == pytest.approx(centre + half, rel=1e-12)
