"""Speed-only guard (session 39): Hosmer-Lemeshow's chi-square p-value is scipy.special's ``chdtrc`` (the
doubles of ``scipy.stats.chi2.sf``), so a test no longer loads scipy.stats (~0.7 s of CPU a process)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from scipy import stats

import veracity as vc


def test_the_p_value_is_scipy_stats_chi2s() -> None:
    rng = np.random.default_rng(39)
    for n, shift in ((2000, 0.0), (5000, 0.05), (50_000, 0.02)):
        p = rng.uniform(0.2, 0.8, n)
        y = (rng.uniform(size=n) < np.clip(p + shift, 0, 1)).astype(int)
        for bins in (5, 10, 20):
            hl = vc.hosmer_lemeshow(p, y, bins=bins)
            assert hl.method == "chi-square"
            assert hl.p_value == float(stats.chi2.sf(hl.statistic, hl.df))


def test_a_chi_square_test_does_not_load_scipy_stats() -> None:
    code = ("import sys, numpy as np, veracity as vc\n"
            "rng = np.random.default_rng(0); p = rng.uniform(0.2, 0.8, 500)\n"
            "y = (rng.uniform(0.2, 0.8, 500) < p).astype(int)\n"
            "assert vc.hosmer_lemeshow(p, y).method == 'chi-square'\n"
            "assert 'scipy.stats' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
