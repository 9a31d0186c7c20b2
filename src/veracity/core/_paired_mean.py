r"""Paired mean differences with a Student-t interval.

Both models are scored on the same rows, so the difference of two mean losses is
the mean of the per-row differences :math:`d_i = \ell(p_{B,i}, y_i) - \ell(p_{A,i}, y_i)`:

.. math:: \bar d = \frac{\sum_i w_i d_i}{\sum_i w_i},\qquad
          \widehat{\mathrm{Var}}(\bar d) = \kappa\,
          \frac{\sum_i w_i^2 (d_i - \bar d)^2}{(\sum_i w_i)^2},\qquad
          \kappa = \frac{\sum_i h_i^2}{\sum_i h_i^2 (1 - 2h_i + \sum_j h_j^2)},\ h_i = \frac{w_i}{\sum_j w_j}

(unweighted: :math:`s_d^2/n`, the paired t statistic's variance, :math:`\kappa = n/(n-1)`). The
factor :math:`\kappa` makes the variance unbiased when the rows share one variance: a row's
residual :math:`d_i - \bar d` has variance :math:`\sigma^2(1 - 2h_i + \sum_j h_j^2)`, below
:math:`\sigma^2` by what the row pulls the mean toward itself, and Bessel's :math:`n/(n-1)` is
this factor for equal weights only (with it, under lognormal(0, 1.5) weights on 60 rows the
variance read about 20 % low and the 5 % test of a zero difference rejected 7.3 % of the time; with
:math:`\kappa`, 4.6 %; ``tests/comparison/test_paired_t_df_r21.py`` has the levels by weight law).
In power sums, :math:`\kappa = q / (q - 2 c + q^2)` with :math:`q = \sum h^2 = \sum w^2 / (\sum w)^2`
and :math:`c = \sum h^3`, summed over shares :math:`h \le 1` (no overflow for huge weights). For
the Brier and log-loss differences (:func:`veracity.comparison._paired.paired_losses`, and the
calibrator ledger's before/after changes) the interval is
:math:`\bar d \pm t_{\nu,1-\alpha/2}\,\widehat{\mathrm{se}}` and the p-value
:math:`2F_\nu(-|\bar d| / \widehat{\mathrm{se}})` with Student's t on :math:`\nu = n - 1`
degrees of freedom — unweighted, exactly the paired t-test (``scipy.stats.ttest_rel``) on
the per-row loss differences, the Diebold–Mariano test for independent rows with its
small-sample reference law (the normal quantile claimed p < 0.0001 on 2 rows; at α = 0.05
on 10 rows it rejected a true H0 about 9 % of the time). Weighted,
:math:`\nu = n_{\mathrm{eff}} - 1` with Kish's effective size
:math:`n_{\mathrm{eff}} = (\sum_i w_i)^2 / \sum_i w_i^2` (n for equal weights). Satterthwaite's
degrees of freedom of this variance, :math:`(\mathrm{tr}\,A)^2/\mathrm{tr}\,A^2` under one shared
variance (Bell & McCaffrey; Imbens & Kolesár 2016), are too few here: they assume the variance
estimate independent of :math:`\bar d`, while a heavy row's residual moves with the mean; on 60 rows
under lognormal(0, σ ≥ 1.5) weights or one row of weight n/4 they held 0.0–2.3 % at 5 % (Kish's:
2.6–4.6 %). Kish's count still runs a little high where a fifth of the rows carry most of the weight
(weight 10 against 1: 6.4 % on 30 rows, 5.8 % on 60, 5.2 % on 200). As
:math:`\nu \to \infty` the t law is the normal one. :func:`paired_mean` and :func:`from_moments`
(cost, net benefit, Murphy diagram) use the same t interval on the same degrees of freedom and
factor. Because the rows are shared, what
both models get right or wrong together cancels in :math:`d_i`: the paired interval is much
narrower than the two separate intervals of the means (``tests/comparison`` shows the power it
buys).

The same moments serve every per-row quantity here (elementary scores of the Murphy
diagram, net benefit, realised minus expected cost): :func:`from_moments` takes
:math:`\sum w d`, :math:`\sum w^2 d`, :math:`\sum w^2 d^2`, so counts at thresholds can
feed it without a per-row array (with :math:`\sum h^3` for :math:`\kappa`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._special import ndtr, ndtri


@dataclass(frozen=True)
class Estimate:
    """A mean (or mean difference) with its standard error, Student-t interval and p-value (H0: 0)."""

    value: float
    se: float
    low: float
    high: float
    p_value: float


def z_of(level: float) -> float:
    return float(ndtri(0.5 + level / 2.0))


def student_df(n: int, total: float, total_sq: float) -> float:
    r"""Degrees of freedom of a paired mean's t interval: :math:`n - 1` unweighted, Kish's effective
    size less one, :math:`(\sum w)^2/\sum w^2 - 1`, weighted (``total``, ``total_sq``: Σw, Σw²; equal
    weights give n - 1 to rounding, read back as n - 1). NaN below 2 rows or where the effective size
    is below 2 (one row carries nearly all the weight: no spread to estimate — a row of weight 10¹²
    among 499 of weight 1 has ν ≈ 2·10⁻⁹, whose t quantile printed intervals of ±10¹³⁹)."""
    if n < 2:
        return float("nan")
    eff = total * total / total_sq
    df = float(n - 1) if abs(eff - n) <= 1e-9 * n else eff - 1.0
    return df if df >= 1.0 - 1e-9 else float("nan")


def variance_factor(n: int, total: float, total_sq: float, cube_share: float | None) -> float:
    r"""The factor :math:`\kappa` of the weighted paired mean's variance (see the module doc) from
    :math:`\sum w`, :math:`\sum w^2` and ``cube_share`` :math:`c = \sum h^3` (:math:`h = w / \sum w`):
    :math:`q / (q - 2c + q^2)` with :math:`q = \sum w^2 / (\sum w)^2`. Exactly :math:`n/(n-1)` for equal
    weights (read back as in :func:`student_df`; with rows of weight 0, k/(k - 1) for k equal positive
    weights) and for unweighted rows (``cube_share`` None: Bessel's factor). NaN below 2 rows or where
    :func:`student_df` is (one row carries nearly all the weight: its residual is all but 0 and
    :math:`\kappa` unbounded)."""
    if n < 2:
        return float("nan")
    if cube_share is None or abs(total * total / total_sq - n) <= 1e-9 * n:
        return n / (n - 1.0)
    if student_df(n, total, total_sq) != student_df(n, total, total_sq):  # effective size below 2
        return float("nan")
    q = total_sq / (total * total)
    den = q - 2.0 * cube_share + q * q
    return q / den if den > 0.0 else float("nan")


def weight_sums(w: np.ndarray | None, n: int) -> tuple[float, float, float | None]:
    r""":math:`\sum w`, :math:`\sum w^2` and :math:`\sum h^3` with :math:`h = w / \sum w` (``n``, ``n`` and
    None unweighted), the last in pieces (no n-sized copy) and of shares at most 1 (no overflow)."""
    if w is None:
        return float(n), float(n), None
    total = float(w.sum())
    if not (total > 0.0 and np.isfinite(total)):  # no weight (refused upstream): no factor either
        return total, float(np.dot(w, w)), float("nan")
    cube_share = 0.0
    step = 1 << 18
    for a in range(0, n, step):
        h = w[a:a + step] / total
        cube_share += float(np.dot(h * h, h))
    return total, float(np.dot(w, w)), cube_share


def t_of(level: float, df: float) -> float:
    """Two-sided ``level`` quantile of Student's t on ``df`` degrees of freedom (infinite: the normal's)."""
    if df == float("inf"):
        return z_of(level)
    from scipy.special import stdtrit  # scipy.special is loaded on first use (core._special)

    return float(stdtrit(df, 0.5 + level / 2.0))


def p_t(value: float, se: float, df: float) -> float:
    """Two-sided Student-t p-value of ``value / se`` on ``df`` degrees of freedom; the edge cases of
    :func:`p_of` (se 0 or NaN), and NaN where ``df`` is."""
    if not se > 0:
        return float(p_of(value, se))
    if df != df:
        return float("nan")
    from scipy.special import stdtr

    return float(2.0 * stdtr(df, -abs(value) / se))


def p_t_array(value: np.ndarray | float, se: np.ndarray | float, df: float) -> np.ndarray:
    """Two-sided Student-t p-values of ``value / se`` on ``df`` degrees of freedom (arrays), with the
    edge cases of :func:`p_of` where se is 0 or NaN; NaN where ``df`` is (fewer than 2 rows)."""
    value, se = np.asarray(value, dtype=float), np.asarray(se, dtype=float)
    edge = p_of(value, se)
    if df != df:
        return np.where(se > 0, np.nan, edge)
    from scipy.special import stdtr

    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2.0 * stdtr(df, -np.abs(value) / se)
    return np.where(se > 0, p, edge)


def p_of(value: np.ndarray | float, se: np.ndarray | float) -> np.ndarray:
    """Two-sided normal p-value of ``value / se``; 1 where both are 0, 0 where only se is, NaN
    where se is NaN (no variance estimate, e.g. one row or one row of a class: no test)."""
    value, se = np.asarray(value, dtype=float), np.asarray(se, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(value) / se
    p = 2.0 * ndtr(-z)
    return np.where(se > 0, p, np.where(np.isnan(se), np.nan, np.where(value == 0, 1.0, 0.0)))


def no_spread(mean: np.ndarray | float, se: np.ndarray | float) -> np.ndarray:
    r"""Where a normal interval has no width to speak of: :math:`\widehat{\mathrm{se}} \le 10^{-6}|\bar d|`
    (0 when every per-row value is the same, or the rounding of the moments, about
    :math:`\sqrt{\epsilon}\,|\bar d|`, when that value is not 0). NaN se (one row): False."""
    mean, se = np.asarray(mean, dtype=float), np.asarray(se, dtype=float)
    return np.asarray(se <= 1e-6 * np.abs(mean), dtype=bool)


def from_moments(s1: np.ndarray, s1w: np.ndarray, s2: np.ndarray, total: float, total_sq: float, n: int,
                 level: float, cube_share: float | None = None) -> tuple[np.ndarray, ...]:
    r"""``(mean, se, low, high, p)`` of a weighted mean from :math:`\sum w d`, :math:`\sum w^2 d`,
    :math:`\sum w^2 d^2`, :math:`\sum w`, :math:`\sum w^2` and :math:`\sum h^3` (``cube_share``, for
    :func:`variance_factor`, as :func:`weight_sums` gives it; None: unweighted); arrays: one mean per
    entry."""
    mean = np.asarray(s1, dtype=float) / total
    ss = np.asarray(s2, dtype=float) - 2.0 * mean * np.asarray(s1w, dtype=float) + mean * mean * total_sq
    ss = np.maximum(ss, 0.0)  # rounding below 0 when every d is equal
    var = ss / (total * total) * variance_factor(n, total, total_sq, cube_share) if n > 1 \
        else np.full_like(mean, np.nan)
    se = np.sqrt(var)
    df = student_df(n, total, total_sq)
    t = t_of(level, df) if df == df else float("nan")
    return mean, se, mean - t * se, mean + t * se, p_t_array(mean, se, df)


def paired_mean(d: np.ndarray, w: np.ndarray | None, level: float) -> Estimate:
    """The weighted mean of per-row values ``d`` with its Student-t interval (see the module doc)."""
    n = d.shape[0]
    if not np.any(d):  # identical losses: exactly 0, no interval to speak of
        return Estimate(0.0, 0.0, 0.0, 0.0, 1.0)
    total, total_sq, cube_share = weight_sums(w, n)
    mean = float(d.sum()) / n if w is None else float(np.dot(w, d)) / total
    ss = 0.0
    step = 1 << 18
    for a in range(0, n, step):  # centred sum of squares in cache-sized pieces (no n-sized copy)
        dev = d[a:a + step] - mean
        dev *= dev
        if w is not None:
            dev *= w[a:a + step]
            dev *= w[a:a + step]
        ss += float(dev.sum())
    var = ss / (total * total) * variance_factor(n, total, total_sq, cube_share) if n > 1 else float("nan")
    se = float(np.sqrt(var))
    df = student_df(n, total, total_sq)
    t = t_of(level, df) if df == df else float("nan")
    return Estimate(mean, se, mean - t * se, mean + t * se, float(p_t_array(mean, se, df)))
