"""Speed-only guards (session 42): the exact segment test's Binomial pmf comes from scipy.special's ufunc,
not ``scipy.stats`` (whose import cost every ``veracity segments`` / ``veracity report --features`` run
about 0.7 s of CPU); its doubles are ``scipy.stats.binom.pmf``'s, so every p-value is unchanged."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from veracity.segments._tests import binom_pmf, poisson_binomial_pvalue


def _cases() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whole k in [0, n], n from 1 to 10^6, p at 0, 1, subnormal, near 1 and in between."""
    rng = np.random.default_rng(42)
    n = np.concatenate([[1, 1, 2, 7, 40, 1000, 10**6], rng.integers(1, 5000, 200)]).astype(np.int64)
    p = np.concatenate([[0.0, 1.0, 5e-324, 1 - 1e-16, 0.5, 1e-9, 0.999], rng.random(200) ** 3])
    k = np.concatenate([[0, 1, 1, 3, 40, 2, 999_000], rng.integers(0, 60, 200)])
    k = np.minimum(n, k).astype(np.int64)
    return k, n, p


def test_the_pmf_is_scipy_stats_binom_pmf_to_the_bit():
    from scipy.stats import binom

    k, n, p = _cases()
    got, want = binom_pmf(k, n, p), binom.pmf(k, n, p)
    assert got.dtype == want.dtype == np.float64
    assert np.array_equal(got, want)  # every double the same (0 where it underflows)
    grid = np.arange(41)  # every k of one Binomial(40, p)
    for prob in (0.0, 0.03, 0.5, 0.97, 1.0):
        assert np.array_equal(binom_pmf(grid, np.full(41, 40), np.full(41, prob)), binom.pmf(grid, 40, prob))


def test_exact_pvalues_are_those_of_the_scipy_stats_convolution():
    """:func:`poisson_binomial_pvalue` against the same convolution written with ``scipy.stats.binom``
    over every cell's whole support: equal to the last bits where nothing underflows."""
    from scipy.stats import binom

    rng = np.random.default_rng(7)
    for _ in range(30):
        cells = int(rng.integers(1, 6))
        counts = rng.integers(1, 30, cells)
        probs = rng.random(cells) * 0.3
        law = np.ones(1)
        for c, q in zip(counts, probs):
            law = np.convolve(law, binom.pmf(np.arange(c + 1), c, q))
        k = int(rng.integers(0, counts.sum() + 1))
        want = min(1.0, 2.0 * min(law[: k + 1].sum(), law[k:].sum()))
        assert abs(poisson_binomial_pvalue(k, counts, probs) - want) <= 1e-12 * max(want, 1e-300) + 1e-300


def test_an_exact_segment_test_leaves_scipy_stats_unloaded():
    code = ("import sys, numpy as np\n"
            "from veracity.segments._tests import poisson_binomial_pvalue\n"
            "p = poisson_binomial_pvalue(3, np.array([10, 20]), np.array([0.05, 0.2]))\n"
            "assert 0 < p <= 1, p\n"
            "print('scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr
