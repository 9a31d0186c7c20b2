"""Speed-only guard (session 39): the conformal coverage law's interval and cdf come from scipy.special's
incomplete beta and its inverse, not scipy.stats.beta (whose import cost ``veracity conformal`` ~0.7 s of CPU
a process); the doubles are scipy.stats.beta's, the support's ends included."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from scipy import stats

import veracity as vc


def test_the_law_reads_scipy_stats_betas_doubles() -> None:
    x = np.array([-np.inf, -1.0, 0.0, 1e-300, 0.5, 0.85, 0.9, 0.95, 1.0 - 1e-16, 1.0, 2.0, np.inf, np.nan])
    for n, alpha in ((1, 0.5), (19, 0.05), (200, 0.1), (5000, 0.01)):
        law = vc.conformal_coverage_law(n, alpha)
        assert np.array_equal(law.cdf(x), stats.beta.cdf(x, law.a, law.b), equal_nan=True)
        assert law.cdf(0.9) == stats.beta.cdf(0.9, law.a, law.b)
        for level in (0.5, 0.9, 0.95, 0.999):
            assert law.interval(level) == tuple(float(v) for v in stats.beta.interval(level, law.a, law.b))


def test_the_coverage_law_does_not_load_scipy_stats() -> None:
    code = ("import sys, veracity as vc\n"
            "law = vc.conformal_coverage_law(200, 0.1)\n"
            "print(law.interval(0.9), float(law.cdf(0.9)))\n"
            "assert 'scipy.stats' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    law = vc.conformal_coverage_law(200, 0.1)
    assert done.stdout.strip() == f"{law.interval(0.9)} {float(law.cdf(0.9))}"
