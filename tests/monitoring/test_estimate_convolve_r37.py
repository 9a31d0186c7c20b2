"""Speed-only guard (session 37): the label-free count interval convolves its two Poisson windows with
``scipy.fft`` (``core._count_interval.fft_convolve``) instead of ``scipy.signal.fftconvolve``, whose import cost
about 0.5 s of CPU in every ``veracity monitor status`` process with a pending window (it loads
``scipy.stats``). The calls are the ones ``fftconvolve`` makes, so the doubles are the same: pinned here
on the windows ``count_interval`` builds, and on the intervals themselves, against the plain path
(tests/monitoring/test_fisher_r37.py checks that a status process no longer imports ``scipy.signal``)."""

from __future__ import annotations

import numpy as np
import pytest

from veracity.core._count_interval import count_interval
from veracity.core._count_interval import fft_convolve as _fft_convolve
from veracity.core._count_interval import poisson_window as _poisson_window

signal = pytest.importorskip("scipy.signal")


def _means() -> list[tuple[float, float]]:
    """(lambda+, lambda-) pairs from 0 (a one-point window) to a few thousand: short and long windows,
    lengths on both sides of FFT sizes with small prime factors."""
    rng = np.random.default_rng(37)
    pairs = [(0.0, 0.0), (0.0, 3.0), (5.0, 0.0), (0.5, 0.45), (60.0, 36.0), (2500.0, 1.0), (1.0, 4000.0)]
    pairs += [(float(a), float(b)) for a, b in rng.exponential(40.0, (150, 2)) * rng.random((150, 2)) ** 2]
    return pairs


def test_fft_convolve_gives_fftconvolves_doubles_on_the_poisson_windows():
    for lam_g, lam_l in _means():
        _, g = _poisson_window(lam_g)
        _, lpmf = _poisson_window(lam_l)
        got, want = _fft_convolve(g, lpmf[::-1]), signal.fftconvolve(g, lpmf[::-1])
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want), (lam_g, lam_l)


def test_count_interval_is_the_same_as_with_fftconvolve(monkeypatch):
    import veracity.core._count_interval as est

    rng = np.random.default_rng(7)
    cases = []
    for n in (3, 40, 300, 5000):
        p = rng.beta(0.6, 3.0, n)
        q = p * (1 - p)
        cases += [(float(p.sum()), float(q.sum()), float((q * (1 - 2 * p)).sum()), float(n), level)
                  for level in (0.8, 0.95, 0.99)]
    fast = [count_interval(*c) for c in cases]
    monkeypatch.setattr(est, "fft_convolve", lambda a, b: signal.fftconvolve(a, b))
    assert [count_interval(*c) for c in cases] == fast

