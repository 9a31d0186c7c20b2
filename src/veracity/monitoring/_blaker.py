r"""Blaker's exact interval of a binomial proportion: the rates an exact two-sided test does not reject.

For :math:`k` positives among :math:`n` rows and a rate :math:`c`, with :math:`X \sim \mathrm{Bin}(n, c)`,
the two tails :math:`U = P(X \ge k)` and :math:`L = P(X \le k)`; Blaker's test (Blaker, 2000) adds to the
smaller one the largest tail on the other side that is no heavier:

.. math:: a(c) = \min\bigl(1,\; \min(U, L) + \max\{P(X \le j) : P(X \le j) \le U,\ j < k\}\bigr)
   \quad (U \le L; \text{ the upper tail } P(X \ge m),\ m > k, \text{ where } L < U)

and rejects :math:`c` where :math:`a(c) \le \alpha`. It is exact (a level-:math:`\alpha` test for every
:math:`c`) and its confidence set lies inside Clopper-Pearson's, whose equal tails spend :math:`\alpha/2`
on a side that cannot reject at all when few positives are expected (at :math:`nc = 2`,
:math:`P(X = 0) \approx 0.135`): there it rejects at :math:`\alpha/2` at most. The interval returned is the
hull of the set within Clopper-Pearson's, as a scan finds it (64 steps from each Clopper-Pearson end
towards :math:`k/n` for the first rate where :math:`a` exceeds :math:`\alpha`, then of 8 steps within the step
before it, eight times: to :math:`64^{-1} 8^{-8} \approx 10^{-9}` of the distance), so a rate outside
it is rejected by the test. The tails' ties count within a relative :math:`10^{-7}`, as
``scipy.stats.binomtest`` counts them. The binomial tails are ``scipy.stats.binom``'s doubles, read from the
Boost ufuncs it calls (:func:`_binom`) without loading ``scipy.stats`` (about 0.65 s of CPU a process).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core._binning import uniform_edges
from ..core._intervals import binomial_interval

_STEPS = 64
_REFINE = 8
_ROUNDS = 8
_TIES = 1.0 + 1e-7


def acceptability(k: np.ndarray, n: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Blaker's :math:`a(c)` (module docstring) for whole ``k`` of ``n`` at rates ``c``, element by element.
    The upper tails read as lower ones of the failures: :math:`P(X \\ge m) = P(n - X \\le n - m)`,
    :math:`n - X \\sim \\mathrm{Bin}(n, 1 - c)`. Each element needs the opposite tail of its smaller one
    only (:func:`_heaviest_below`), so each side is computed on the elements that read it."""
    binom = _binom()
    k, n, c = np.broadcast_arrays(np.asarray(k, float), np.asarray(n, float), np.asarray(c, float))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        up = binom.sf(k - 1.0, n, c)  # P(X >= k)
        lo = binom.cdf(k, n, c)  # P(X <= k)
        upper = up <= lo  # the upper tail is the smaller (NaN: neither; a(c) = 1 below)
        a = np.empty_like(up)
        # the heaviest lower tail P(X <= j), j < k, no heavier than up; the heaviest upper tail P(X >= m),
        # m > k, no heavier than lo (as P(n - X <= i), i = n - m < n - k)
        u, m = up[upper], ~upper
        a[upper] = u + _heaviest_below(binom, u, k[upper], n[upper], c[upper])
        low = lo[m]
        a[m] = low + _heaviest_below(binom, low, n[m] - k[m], n[m], 1.0 - c[m])
    return np.minimum(np.nan_to_num(a, nan=1.0), 1.0)


class _BinomTails:
    r"""``scipy.stats.binom``'s ``cdf``, ``sf`` and ``ppf`` on float arrays (no ``loc``): the ufuncs
    ``_binom_cdf``, ``_binom_sf`` (at :math:`\lfloor k \rfloor`) and ``_binom_ppf`` that its ``_cdf``,
    ``_sf`` and ``_ppf`` call, with ``rv_discrete``'s edges: NaN where :math:`n` is not a whole
    :math:`n \ge 0` or :math:`c \notin [0, 1]` (or ``k``, ``q`` is NaN); ``cdf`` 1 at :math:`k \ge n` and
    0 below 0, ``sf`` 1 below 0 and 0 at :math:`k \ge n`, ``ppf`` -1 at :math:`q = 0` and :math:`n` at
    :math:`q = 1`; the ufuncs' values clipped to [0, 1] (``ppf``'s are not)."""

    def __init__(self, cdf: Callable[..., Any], sf: Callable[..., Any], ppf: Callable[..., Any]) -> None:
        self._cdf, self._sf, self._ppf = cdf, sf, ppf

    @staticmethod
    def _args(x: Any, n: Any, c: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        x, n, c = (np.array(a, dtype=np.float64) for a in np.broadcast_arrays(x, n, c))
        valid = (n >= 0) & (n == np.round(n)) & (c >= 0) & (c <= 1)
        return x, n, c, valid

    def cdf(self, k: Any, n: Any, c: Any) -> np.ndarray:
        k, n, c, valid = self._args(k, n, c)
        out = np.where(k >= n, 1.0, 0.0)
        out[np.isneginf(k)] = 0.0
        out[~valid | np.isnan(k)] = np.nan
        inside = valid & (k >= 0) & (k < n) & np.isfinite(k)
        out[inside] = np.clip(self._cdf(np.floor(k[inside]), n[inside], c[inside]), 0, 1)
        return out

    def sf(self, k: Any, n: Any, c: Any) -> np.ndarray:
        k, n, c, valid = self._args(k, n, c)
        out = np.zeros_like(k)
        out[~valid | np.isnan(k)] = np.nan
        out[((k < 0) | np.isneginf(k)) & valid] = 1.0
        inside = valid & (k >= 0) & (k < n) & np.isfinite(k)
        out[inside] = np.clip(self._sf(np.floor(k[inside]), n[inside], c[inside]), 0, 1)
        return out

    def ppf(self, q: Any, n: Any, c: Any) -> np.ndarray:
        q, n, c, valid = self._args(q, n, c)
        out = np.full_like(q, np.nan)
        out[(q == 0) & valid] = -1.0
        top = (q == 1) & valid
        out[top] = n[top]
        inside = valid & (q > 0) & (q < 1)
        out[inside] = self._ppf(q[inside], n[inside], c[inside]) + 0.0
        return out


def _binom() -> Any:
    """The binomial's tails: :class:`_BinomTails` on scipy's private ufuncs, or ``scipy.stats.binom``
    itself where a scipy moved them."""
    try:
        from scipy.special._ufuncs import _binom_cdf, _binom_ppf, _binom_sf
    except ImportError:  # pragma: no cover - a scipy that moved its private ufuncs
        from scipy.stats import binom

        return binom
    return _BinomTails(_binom_cdf, _binom_sf, _binom_ppf)


def _heaviest_below(binom: Any, tail: np.ndarray, limit: np.ndarray, n: np.ndarray,
                    c: np.ndarray) -> np.ndarray:
    """:math:`\\max\\{P(X \\le j) : P(X \\le j) \\le` ``tail`` (ties within :math:`10^{-7}`),
    :math:`0 \\le j <` ``limit``:math:`\\}` (0 where none), :math:`X \\sim \\mathrm{Bin}(n, c)`: among
    :math:`j_0 - 1, j_0, j_0 + 1`, :math:`j_0` the least :math:`j` with :math:`P(X \\le j) \\ge` ``tail``."""
    heaviest = np.zeros_like(tail)
    j0 = np.nan_to_num(binom.ppf(np.minimum(tail, 1.0), n, c), nan=-1.0)
    for d in (-1.0, 0.0, 1.0):
        j = j0 + d
        cdf = binom.cdf(j, n, c)
        ok = (j >= 0) & (j < limit) & (cdf <= tail * _TIES)
        heaviest = np.where(ok & (cdf > heaviest), cdf, heaviest)
    return heaviest


def blaker_interval(k: np.ndarray, n: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Blaker's ``level`` interval of the rate for ``k`` positives (rounded to whole numbers) of ``n`` rows
    (arrays of one shape; ``n`` > 0), the hull within Clopper-Pearson's (module docstring)."""
    n = np.round(np.asarray(n, dtype=np.float64))
    k = np.clip(np.round(np.asarray(k, dtype=np.float64)), 0.0, n)
    pairs, back = np.unique(np.stack([k.reshape(-1), n.reshape(-1)], axis=1), axis=0, return_inverse=True)
    if pairs.shape[0] < k.size:  # periods of one size and count share their interval: computed once
        low, high = blaker_interval(pairs[:, 0], pairs[:, 1], level)
        back = back.reshape(-1)
        return low[back].reshape(k.shape), high[back].reshape(k.shape)
    alpha = 1.0 - float(level)
    cp_lo, cp_hi = binomial_interval(k, n, method="clopper-pearson", level=level)
    cp_lo, cp_hi = np.asarray(cp_lo, dtype=np.float64), np.asarray(cp_hi, dtype=np.float64)
    centre = k / n
    low = np.where(k > 0, _edge(k, n, cp_lo, centre, alpha), 0.0)
    high = np.where(k < n, _edge(k, n, cp_hi, centre, alpha), 1.0)
    return np.minimum(low, centre), np.maximum(high, centre)


def _edge(k: np.ndarray, n: np.ndarray, start: np.ndarray, centre: np.ndarray, alpha: float) -> np.ndarray:
    """The first rate from ``start`` (a Clopper-Pearson end) towards ``centre`` that the test accepts: the
    first accepted of 64 steps, then of 8 steps within the step before it, eight times."""
    outside, inside = start, centre  # a rate rejected (or the Clopper-Pearson end) and one accepted
    for count in (_STEPS, *[_REFINE] * _ROUNDS):
        grid = outside[..., None] + (inside - outside)[..., None] * uniform_edges(count)  # 0, 1/count, .., 1
        accepted = acceptability(k[..., None], n[..., None], grid) > alpha
        accepted[..., -1] = True  # inside: accepted (k / n itself: both tails hold P(X = k) and more)
        first = np.argmax(accepted, axis=-1)
        inside = np.take_along_axis(grid, first[..., None], axis=-1)[..., 0]
        outside = np.take_along_axis(grid, np.maximum(first - 1, 0)[..., None], axis=-1)[..., 0]
    return inside
