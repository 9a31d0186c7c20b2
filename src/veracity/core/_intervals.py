"""Binomial confidence intervals for a bin's observed frequency."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from ._special import betaincinv, ndtri

from ._validation import VeracityError, is_real

IntervalMethod = Literal["wilson", "clopper-pearson"]
Sided = Literal["two-sided", "lower", "upper"]
METHODS = ("wilson", "clopper-pearson")
SIDES = ("two-sided", "lower", "upper")


def check_interval_args(method: str, level: float, sided: str) -> None:
    if method not in METHODS:
        raise VeracityError(f"interval must be 'wilson' or 'clopper-pearson', got {method!r}", param="interval")
    if not (is_real(level) and 0.0 < level < 1.0):
        raise VeracityError(f"level must be in (0, 1), e.g. 0.95; got {level!r}", param="level")
    if sided not in SIDES:
        raise VeracityError(f"sided must be 'two-sided', 'lower' or 'upper', got {sided!r}", param="sided")


def _checked_counts(successes: np.ndarray, trials: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """k and n as float arrays; refuses n that is not a finite count and k outside [0, n]."""
    try:
        k = np.asarray(successes, dtype=np.float64)
        n = np.asarray(trials, dtype=np.float64)
    except (TypeError, ValueError):
        raise VeracityError("successes and trials must be numbers (counts, or effective counts of weighted "
                            f"rows); got {type(successes).__name__} and {type(trials).__name__}") from None
    bad_n = ~np.isfinite(n) | (n < 0)
    if bad_n.any():
        raise VeracityError(f"trials must be finite counts >= 0; got {float(n[bad_n].flat[0]):g}; "
                            "pass the number of rows (or the effective count of weighted rows)")
    slack = 1e-9 * np.maximum(n, 1.0)  # weighted sums round: Σw·y may exceed Σw by a few ulps
    with np.errstate(invalid="ignore"):
        bad_k = (n > 0) & ~((k >= -slack) & (k <= n + slack))
    if bad_k.any():
        i = np.flatnonzero(np.broadcast_to(bad_k, np.broadcast(k, n).shape))[0]
        kb, nb = np.broadcast_arrays(k, n)
        raise VeracityError(f"successes must lie between 0 and trials; got {float(kb.flat[i]):g} successes in "
                            f"{float(nb.flat[i]):g} trials; pass the positives first, then the total")
    return k, n


def wilson_spread(k: np.ndarray | float, n: np.ndarray | float) -> np.ndarray:
    r"""The z-free part of Wilson's half-width, :math:`\max(k(n-k)/n, 0)` (:math:`k((n-k)/n)` where
    :math:`k(n-k)` overflows, past n ≈ 1e154): computed once by a caller that asks many z."""
    with np.errstate(divide="ignore", invalid="ignore"):
        with np.errstate(over="ignore"):
            spread = k * (n - k) / n
        spread = np.where(np.isfinite(spread), spread, k * ((n - k) / n))
    return np.asarray(np.maximum(spread, 0.0))


def wilson_bounds(k: np.ndarray | float, n: np.ndarray | float, z: float | np.ndarray,
                  spread: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Wilson's score interval at the normal quantile ``z`` (a number or an array, broadcast), not cut to
    [0, 1]: :math:`\frac{k + z^2/2}{n + z^2} \pm \frac{z}{n + z^2}\sqrt{k(n-k)/n + z^2/4}`; ``spread``:
    :func:`wilson_spread` of ``(k, n)`` where the caller has it."""
    if spread is None:
        spread = wilson_spread(k, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = (k + z * z / 2.0) / (n + z * z)
        half = z / (n + z * z) * np.sqrt(spread + z * z / 4.0)
    return centre - half, centre + half


def binomial_interval(
    successes: np.ndarray,
    trials: np.ndarray,
    *,
    method: str = "wilson",
    level: float = 0.95,
    sided: str = "two-sided",
) -> tuple[np.ndarray, np.ndarray]:
    r"""Interval for a binomial proportion k/n (vectorised; n may be an effective size).

    * Wilson: :math:`\frac{k + z^2/2}{n + z^2} \pm \frac{z}{n + z^2}\sqrt{k(n-k)/n + z^2/4}`.
    * Clopper–Pearson: the exact interval from Beta quantiles,
      :math:`[B_{\alpha/2}(k, n-k+1),\; B_{1-\alpha/2}(k+1, n-k)]`.

    ``sided="lower"`` puts all of α in the lower tail and returns 1 as the upper end
    (seed 000: 7 successes in 7 give the one-sided 95 % lower bound
    :math:`0.05^{1/7} \approx 0.652` by Clopper–Pearson). Bins with n = 0 give NaN.
    Needs 0 ≤ k ≤ n (up to rounding of weighted sums) and finite n ≥ 0.
    """
    check_interval_args(method, level, sided)
    k, n = _checked_counts(successes, trials)
    alpha = 1.0 - float(level)
    tail = alpha / 2.0 if sided == "two-sided" else alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "wilson":
            low, high = wilson_bounds(k, n, ndtri(1.0 - tail))
        else:
            low = np.where(k > 0, betaincinv(k, n - k + 1.0, tail), 0.0)
            high = np.where(k < n, betaincinv(k + 1.0, n - k, 1.0 - tail), 1.0)
    low = np.clip(low, 0.0, 1.0)
    high = np.clip(high, 0.0, 1.0)
    if sided == "lower":
        high = np.ones_like(high)
    elif sided == "upper":
        low = np.zeros_like(low)
    empty = n <= 0
    low = np.where(empty, np.nan, low)
    high = np.where(empty, np.nan, high)
    return low, high


def fewest_resamples(n_resamples: int, level: float) -> int | None:
    r"""The fewest bootstrap resamples that place a percentile interval's ends at ``level``, when
    ``n_resamples`` (> 0) is fewer, else None. With :math:`(B+1)(1-\text{level})/2 \le 1` the ends are
    the smallest and largest resample (a :math:`1 - 2/(B+1)` interval, whatever the level) and no
    p-value can fall below :math:`1 - \text{level}`; the fewest :math:`B` past that is
    :math:`\lfloor 2 / (1 - \text{level}) \rfloor` (40 at 0.95, 200 at 0.99)."""
    alpha = round(1.0 - level, 12)
    if not (0 < n_resamples and round((n_resamples + 1) * alpha / 2.0, 9) <= 1.0):
        return None
    return int(np.floor(round(2.0 / alpha, 9)))


#: a count below this is "few" for the modified Wilson interval (:func:`modified_wilson`): the rule of thumb
#: that a normal approximation of a count needs at least 10 of each outcome
FEW_COUNTS = 10


def poisson_low(x: np.ndarray, level: float) -> np.ndarray:
    r"""Garwood's exact lower bound for a Poisson mean seen as the count ``x`` (real, at least 0):
    :math:`\tfrac12 \chi^2_{2x,\,(1-\text{level})/2}`, the inverse regularised gamma function
    :math:`P^{-1}(x, (1 - \text{level})/2)`; 0 where :math:`x = 0`. Vectorised."""
    from ._special import _special

    x = np.asarray(x, dtype=np.float64)
    pos = np.isfinite(x) & (x > 0)
    with np.errstate(invalid="ignore"):
        low = _special().gammaincinv(np.where(pos, x, 1.0), (1.0 - level) / 2.0)
    return np.where(pos, np.asarray(low, dtype=np.float64), 0.0)


def modified_wilson(p: Any, n_star: Any, level: float, *,
                    exact_end: bool = False) -> tuple[np.ndarray, np.ndarray]:
    r"""A modified Wilson interval for a proportion ``p`` of ``n_star`` (effective, real) trials: Wilson's
    score interval, its lower end lowered to Garwood's exact Poisson bound :math:`\tfrac12\chi^2_{2x,
    (1-\text{level})/2} / n^*` where the count :math:`x = p\,n^*` is below :data:`FEW_COUNTS` (and the upper
    end likewise where :math:`n^* - x` is). Brown, Cai and DasGupta (2001, section 4.1.1) do so for
    :math:`x \le 3`: Wilson's lower end is too high there — :math:`0.18/n` for one event of :math:`n`, so a
    true mean of 0.1 events, seen once in 10 % of samples, is missed every time (Garwood's: :math:`0.025/n`).
    Below 10 it is taken for the effective counts of PPI, whose labelled events are Poisson-like but whose
    :math:`n^*` reads the variance of a few rows: false-alarm shares with about one expected labelled event
    covered 0.92-0.94 with the bound at 3, 0.94-0.98 with it at 10, median widths 0-4 % more (seeded
    simulations of session 23, the designs of tests/delayed/test_ppi_confusion_coverage_r23.py).

    ``exact_end``: also the end toward the nearer bound (the lower end where :math:`x \le n^* - x`, the upper
    end where :math:`n^* - x \le x`) of a count of 10 or more moved out to the exact binomial
    (Clopper-Pearson) end, :math:`B_{(1-\text{level})/2}(x, n^* - x + 1)` (upper:
    :math:`B_{(1+\text{level})/2}(x + 1, n^* - x)`), where that is further out. Past 10 Wilson's end toward
    the bound is still too far in for a skewed count: with Garwood's bound below 10 alone, the truth lay below
    the lower end of a share of 5-18 expected events on 100-10,000 trials with probability up to 0.050 (at
    about 6 expected, where 11-14 events seen read Wilson's end) and 0.030-0.034 on average (exact binomial
    sums; 0.025 nominal); with the exact end at most 0.025 (0.017-0.019 on average), at widths 1-4 % more
    (session 35, tests/core/test_intervals_r35.py). The decision curve's shares take it.
    Vectorised; the ends lie in [0, 1] around ``p``."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
    n_star = np.asarray(n_star, dtype=np.float64)
    low, high = binomial_interval(p * n_star, n_star, method="wilson", level=level)
    x, x_ = p * n_star, (1.0 - p) * n_star
    with np.errstate(divide="ignore", invalid="ignore"):
        few = FEW_COUNTS - 1e-9
        if exact_end:  # the exact binomial end toward the nearer bound, from 10 counts on (below: Garwood's)
            tail = (1.0 - level) / 2.0
            many, many_ = (x >= few) & (x <= x_), (x_ >= few) & (x_ <= x)
            if many.any():  # (the exact ends are read only there)
                exact_low = betaincinv(np.where(many, x, 1.0), np.where(many, x_ + 1.0, 1.0), tail)
                low = np.where(many, np.fmin(low, exact_low), low)
            if many_.any():
                exact_high = betaincinv(np.where(many_, x + 1.0, 1.0), np.where(many_, x_, 1.0), 1.0 - tail)
                high = np.where(many_, np.fmax(high, exact_high), high)
        few_x, few_x_ = x < few, x_ < few  # Garwood's bound is read only where a count is few
        if few_x.any():
            low = np.where(few_x, np.minimum(low, poisson_low(x, level) / n_star), low)
        if few_x_.any():
            high = np.where(few_x_, np.maximum(high, 1.0 - poisson_low(x_, level) / n_star), high)
    low = np.where(p <= 0.0, 0.0, np.clip(np.minimum(low, p), 0.0, 1.0))
    high = np.where(p >= 1.0, 1.0, np.clip(np.maximum(high, p), 0.0, 1.0))
    return low, high


def paired_difference_interval(both: np.ndarray | float, first: np.ndarray | float,
                               second: np.ndarray | float, n: np.ndarray | float,
                               level: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Interval of the difference :math:`\pi_1 - \pi_2` of two proportions read on the same ``n`` rows
    (say, the accuracy of two sets of decisions), from the paired 2×2 counts: ``both`` rows counted by each,
    ``first`` by the first only (b), ``second`` by the second only (c); the estimate is :math:`(b - c)/n`.
    Vectorised.

    The hull of two intervals:

    * Newcombe's (1998) hybrid score ("square-and-add", his method 10; MOVER from the Wilson intervals
      :math:`[l_k, u_k]` of the two margins :math:`\hat p_1 = (a + b)/n`, :math:`\hat p_2 = (a + c)/n`):
      :math:`\hat\Delta - \sqrt{(\hat p_1 - l_1)^2 - 2\hat\phi(\hat p_1 - l_1)(u_2 - \hat p_2) + (u_2 - \hat
      p_2)^2}` and :math:`\hat\Delta + \sqrt{(\hat p_2 - l_2)^2 - 2\hat\phi(\hat p_2 - l_2)(u_1 - \hat p_1)
      + (u_1 - \hat p_1)^2}`, with the margins' correlation
      :math:`\hat\phi = C / \sqrt{(a+b)(c+d)(a+c)(b+d)}`,
      :math:`C = ad - bc - n/2` where :math:`ad - bc > n/2`, 0 where :math:`0 \le ad - bc \le n/2`, and
      :math:`ad - bc` below 0 (0 where a margin is empty); good coverage at few discordant rows (Fagerland,
      Lydersen & Laake 2014 recommend it);
    * the exact conditional interval: given the :math:`m = b + c` discordant rows, b is
      Binomial(m, :math:`\theta`) with :math:`\Delta = (m/n)(2\theta - 1)` read at the observed m, so
      :math:`(m/n)(2[\theta_L, \theta_U] - 1)` from the Clopper–Pearson interval of b in m
      (:func:`binomial_interval`; [0, 0] where m = 0). It excludes 0 exactly where the exact (conditional)
      McNemar test, :math:`p = \min(1, 2 P(B \ge \max(b, c)))` for B ~ Binomial(m, ½), is below 1 − level.

    A difference is called (0 outside the hull) only where both exclude 0: never unless the exact McNemar
    test rejects, so under "no difference" at most 1 − level of draws at every m. Wilson's margins alone
    reject far more often at a few flips: a Student-t interval of the per-row differences in {-1, 0, 1} called
    4 of 4 flips the same way among 1,000 rows a difference (a 12.5 % conditional level; the exact p is
    :math:`2 \cdot 0.5^4`)."""
    a, b, c, n = (np.asarray(v, dtype=np.float64) for v in (both, first, second, n))
    z = float(ndtri(0.5 + level / 2.0))
    r1, c1 = a + b, a + c  # the two margins' counts
    p1, p2 = r1 / n, c1 / n
    l1, u1 = wilson_bounds(r1, n, z)
    l2, u2 = wilson_bounds(c1, n, z)
    d = n - a - b - c
    cross = a * d - b * c
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.sqrt(r1 * (n - r1)) * np.sqrt(c1 * (n - c1))
        kept = np.where(cross > n / 2.0, cross - n / 2.0, np.where(cross >= 0.0, 0.0, cross))
        phi = np.where(scale > 0.0, kept / scale, 0.0)
    est = (b - c) / n
    down, up = p1 - l1, u2 - p2
    low = est - np.sqrt(np.maximum(down * down - 2.0 * phi * down * up + up * up, 0.0))
    down, up = p2 - l2, u1 - p1
    high = est + np.sqrt(np.maximum(down * down - 2.0 * phi * down * up + up * up, 0.0))
    m = b + c
    some = m > 0
    t_lo, t_hi = binomial_interval(np.where(some, b, 0.0), np.where(some, m, 1.0), method="clopper-pearson",
                                   level=level)
    share = np.where(some, m / n, 0.0)
    low = np.fmin(low, share * (2.0 * t_lo - 1.0))
    high = np.fmax(high, share * (2.0 * t_hi - 1.0))
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
