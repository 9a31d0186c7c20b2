r"""The interval of a count of positives among rows of known probabilities (Poisson-binomial), read
from its first three cumulants: the label-free interval of the monitoring store's pending windows
(:mod:`veracity.monitoring._estimate`) and of CBPE with few expected events
(:mod:`veracity.delayed._ppi_sums`). numpy, with ``scipy.special`` and ``scipy.fft`` imported on use."""

from __future__ import annotations

import numpy as np


def poisson_window(lam: float) -> tuple[int, np.ndarray]:
    """(first count, Poisson(``lam``) probabilities of the counts from it): every count within
    12 standard deviations and 12 of the mean (the mass outside is below 1e-20). Each probability is
    ``exp(xlogy(k, lam) - gammaln(k + 1) - lam)``, as ``scipy.stats.poisson.pmf`` computes it (the same
    doubles, without its argument checks: a tenth of the time, and status reads one per window)."""
    if lam <= 0:
        return 0, np.ones(1)
    from scipy.special import gammaln, xlogy

    first = int(max(np.floor(lam - 12.0 * np.sqrt(lam) - 12.0), 0.0))
    k = np.arange(first, int(np.ceil(lam + 12.0 * np.sqrt(lam) + 12.0)) + 1, dtype=np.float64)
    return first, np.exp(xlogy(k, lam) - gammaln(k + 1) - lam)


def fft_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The full linear convolution of two real non-empty 1-d arrays, :math:`c_k = \\sum_j a_j b_{k-j}`:
    a one-point array times the other; else by FFT, both zero-padded to
    ``next_fast_len(len(a) + len(b) - 1)``, multiplied in the frequency domain and transformed back.
    These are the steps ``scipy.signal.fftconvolve(a, b)`` takes, so the same doubles
    (tests/monitoring/test_estimate_convolve_r37.py), from ``scipy.fft`` alone: importing
    ``scipy.signal`` costs about 0.5 s of CPU (it loads ``scipy.stats``), paid by every
    ``veracity monitor status`` with a pending window."""
    if a.size == 1 or b.size == 1:  # fftconvolve multiplies (broadcasts) along a length-1 axis
        return np.asarray(a * b)
    from scipy import fft as sp_fft

    n = a.size + b.size - 1
    size = sp_fft.next_fast_len(n, True)
    return np.array(sp_fft.irfftn(sp_fft.rfftn(a, [size], axes=[0]) * sp_fft.rfftn(b, [size], axes=[0]),
                                  [size], axes=[0])[:n])


def count_interval(sum_p: float, var: float, k3: float, n: float, level: float) -> tuple[float, float]:
    r"""The ``level`` interval of the number of positives among rows with probabilities :math:`p_i`,
    from :math:`E = \sum p_i`, :math:`V = \sum p_i(1-p_i)` and :math:`K_3 = \sum p_i(1-p_i)(1-2p_i)`:
    whole numbers ``(low, high)`` within ``[0, n]``.

    The count is Poisson-binomial; it is read as :math:`m + G - L` with :math:`G \sim` Poisson
    :math:`(\lambda_+)`, :math:`L \sim` Poisson :math:`(\lambda_-)` independent (a Skellam shifted by
    :math:`m`), matched to its first three cumulants: :math:`\lambda_\pm = (V \pm K_3)/2`,
    :math:`m = E - K_3 = \sum (3p_i^2 - 2p_i^3)` (:math:`|K_3| \le V`, so :math:`\lambda_\pm \ge 0`;
    a rounding outside is clipped). Rows with :math:`p` near 0 are the Poisson part :math:`G` (the
    Poisson limit is exact), rows near 1 the losses :math:`L` from their sure count in :math:`m`.
    Its fourth cumulant :math:`V` is at least the count's :math:`\sum p_i(1-p_i)(1 - 6p_i(1-p_i))`:
    the tails are never lighter. With :math:`F` the Skellam's distribution function interpolated
    linearly between its integers, :math:`P(X \le x) \approx F(x - m)` for integers :math:`x`;
    ``low`` is the smallest :math:`x` with :math:`F(x - m) > \alpha/2` and ``high`` the smallest with
    :math:`F(x - m) \ge 1 - \alpha/2`, :math:`\alpha = 1 -` ``level``: equal tails, each at most
    :math:`\alpha/2` under the matched distribution.

    Exact coverage (the Poisson-binomial by convolution) over binomial and mixed score sets with
    :math:`E` from 0.01 to 1000 is at least ``level`` at 0.8 to 0.99 (tests/monitoring/
    test_estimate_r31.py); :math:`E \pm z\sqrt V` gave 0.91 at :math:`E` = 0.5 and 0.92 at 1. At large
    counts it tends to :math:`E \pm z\sqrt V` (moved by the skew) in whole numbers, no wider.
    """
    alpha = 1.0 - float(level)
    v = max(float(var), 0.0)
    k3 = min(max(float(k3), -v), v)
    shift = float(sum_p) - k3
    g0, g = poisson_window((v + k3) / 2.0)
    l0, lpmf = poisson_window((v - k3) / 2.0)
    # S = G - L on the integers from g0 - (l0 + len(l) - 1): the convolution of G's and L's reversed
    pmf = fft_convolve(g, lpmf[::-1])
    s = np.arange(pmf.size, dtype=np.float64) + (g0 - (l0 + lpmf.size - 1))
    cdf = np.cumsum(np.clip(pmf, 0.0, None))
    x = np.arange(np.floor(shift + s[0]), np.ceil(shift + s[-1]) + 1.0)
    fx = np.interp(x - shift, s, cdf, left=0.0, right=1.0)
    low = x[min(int(np.searchsorted(fx, alpha / 2.0, side="right")), x.size - 1)]
    high = x[min(int(np.searchsorted(fx, 1.0 - alpha / 2.0, side="left")), x.size - 1)]
    return float(min(max(low, 0.0), n)), float(min(max(high, 0.0), n))
