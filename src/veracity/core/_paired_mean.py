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

**Skewed differences, few rows of a class.** A Brier or log-loss difference of a model against the same
scores through a near-identity map (a calibrated model recalibrated: the ledger's main use) moves every
row of the common class a little one way and each row of the rare class a lot the other, so
:math:`\bar d` is a sum over a few rows and is skewed, and the t statistic's scale moves with it: with
10 positives among 300 rows its "worse" tail ran 5.8 % (Brier) and 6.6 % (log loss) at a nominal 2.5 %,
10-14 % weighted. Where one class holds fewer than :data:`SKEW_CLASS_ROWS` rows and the other at least
that many (weighted: Kish's effective sizes; :func:`skewed_classes`) the callers ask for
:func:`skew_guarded`: the difference is
called only where both the t test and Hall's (1992) skew-corrected t reject (the interval is the hull of
both; the p-value the larger). Hall's transformation (P. Hall, "On the removal of skewness by
transformation", JRSS B 54, 1992, 221-228; Johnson 1978's correction is its quadratic part) of
:math:`t = \bar d / \widehat{\mathrm{se}}` is

.. math:: g(t) = t + \frac{A t^2}{3} + \frac{A^2 t^3}{27} + \frac{A}{6}
          = \frac{(1 + A t / 3)^3 - 1}{A} + \frac{A}{6},\qquad
          A = \frac{\sum_i w_i^3 (d_i - \bar d)^3}{\left(\sum_i w_i^2 (d_i - \bar d)^2\right)^{3/2}}

(:math:`A` the estimated skewness of :math:`\bar d`, :math:`\hat\gamma/\sqrt n` unweighted), monotone, so
its interval inverts in closed form (:func:`hall_inverse`) on the same Student-t quantile. Alone it is
noisy: on symmetric but heavy-tailed differences (two exchangeable rare-event models) its sample skewness
called equal models different in 5-7 % of draws per tail; the hull keeps the t's level there (it
rejects no more often than either) and took the near-identity designs' worse tail to 1.3 % and 1.5 %
(Brier, log loss; 300 rows, 10 positives) and 3.3 % and 2.6 % (1,000 rows, 32 positives; 1,000 draws
each). It under-corrects weighted (lognormal(0, 1) weights, 500 rows: 7.3 % and 5.9 %) and below 5
positives (6.5 %): the callers' notes say so (tests/comparison/test_cmp_skew_r43.py).
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


#: below this many rows of one class among at least this many of the other (weighted: Kish effective sizes)
#: the Brier and log-loss differences are called by :func:`skew_guarded` (:func:`skewed_classes`; the module
#: doc); ``comparison._compare.SHORT_T_ROWS``
SKEW_CLASS_ROWS = 40


def class_sizes(y: np.ndarray, w: np.ndarray | None) -> tuple[float, float]:
    r"""Rows of each class of 0/1 labels ``y`` (positive, negative); weighted, the classes' Kish effective
    sizes :math:`(\sum_c w)^2 / \sum_c w^2` (0 for a class without weight)."""
    if w is None:
        k1 = float(np.count_nonzero(y))
        return k1, float(y.shape[0]) - k1
    s1, q1 = float(np.dot(w, y)), float(np.dot(w * w, y))
    s0, q0 = float(w.sum()) - s1, float(np.dot(w, w)) - q1
    size1, size0 = (s * s / q if q > 0 else 0.0 for s, q in ((s1, q1), (s0, q0)))
    return size1, size0


def skewed_classes(y: np.ndarray, w: np.ndarray | None) -> bool:
    """Fewer than :data:`SKEW_CLASS_ROWS` rows of one class among at least that many of the other (weighted:
    Kish effective sizes, :func:`class_sizes`): where a loss difference is a sum over the few rows of the rare
    class, and the Brier and log-loss verdicts are :func:`skew_guarded` (the module doc). Two small classes
    (fewer than 40 rows of each) keep the plain t: balanced few rows are not this case."""
    least, most = sorted(class_sizes(y, w))
    cut = SKEW_CLASS_ROWS * (1.0 - 1e-9)
    return least < cut <= most


#: what a verdict on skewed differences says (:func:`skew_note`; measured in the module doc)
SKEW_SAYS = ("skewed, so called only where both the t and Hall's skew-corrected t exclude 0; equal models "
             "(one the other through a near-identity map) were still called different in up to 7% of seeded "
             "draws per tail where weighted or with fewer than 5 of a class (2.5% nominal; 1.3-3.3% "
             "unweighted from 10 of a class, where the t alone called 4-7%)")


def skew_note(y: np.ndarray, w: np.ndarray | None) -> str:
    """The note on the Brier and log-loss verdicts where one class of 0/1 labels ``y`` holds fewer than
    :data:`SKEW_CLASS_ROWS` rows and the other at least that many (:func:`skewed_classes`), else ""."""
    if not skewed_classes(y, w):
        return ""
    size1, size0 = class_sizes(y, w)
    size, which = (size1, "positive") if size1 <= size0 else (size0, "negative")
    rows = f"{int(size):,} {which} rows" if w is None else f"Kish effective size {size:.1f} {which}"
    return f"{rows}, fewer than {SKEW_CLASS_ROWS} of a class: skew-guarded interval (note below)"


def hall_inverse(u: np.ndarray | float, a: float) -> np.ndarray:
    r"""The t with :math:`g(t) = u` for Hall's transformation (module doc) of skewness term ``a`` (A):
    :math:`t = 3\,((1 + A(u - A/6))^{1/3} - 1) / A` (real cube root), :math:`u` itself at A = 0; the cube
    root less 1 as ``expm1(log1p(x) / 3)`` above x = -1 (no cancellation for small A)."""
    v = np.asarray(u, dtype=float) - a / 6.0
    if a == 0.0:
        return v
    x = a * v
    with np.errstate(invalid="ignore", divide="ignore"):
        above = np.expm1(np.log1p(np.maximum(x, -1.0 + 1e-300)) / 3.0)
        root = np.where(x > -1.0, above, np.cbrt(1.0 + x) - 1.0)
    return 3.0 * root / a


def hall_g(t: float, a: float) -> float:
    """Hall's transformation :math:`g(t)` of the t statistic (module doc)."""
    return t + a * t * t / 3.0 + a * a * t * t * t / 27.0 + a / 6.0


def skew_term(s3: float, s2: float) -> float:
    r""":math:`A = \sum h^3 (d - \bar d)^3 / (\sum h^2 (d - \bar d)^2)^{3/2}` from the two centred sums (any
    common weight scale: A is scale-free); 0 where there is no spread or no finite value."""
    if not (s2 > 0.0 and np.isfinite(s2) and np.isfinite(s3)):
        return 0.0
    return float(s3 / s2 ** 1.5)


def skew_guarded(mean: float, se: float, df: float, level: float, a: float) -> tuple[float, float, float]:
    r"""``(low, high, p)`` that call a difference only where both the Student-t test and Hall's
    skew-corrected t (:func:`hall_g`, skewness term ``a``) reject: the hull of the t interval
    :math:`\bar d \pm t_q\,\widehat{\mathrm{se}}` and Hall's
    :math:`[\bar d - \widehat{\mathrm{se}}\,g^{-1}(t_q),\
    \bar d - \widehat{\mathrm{se}}\,g^{-1}(-t_q)]`, and the
    larger p-value, :math:`\max(2F_\nu(-|t|), 2F_\nu(-|g(t)|))` (module doc; 0 lies outside the hull exactly
    where that p is below 1 - level)."""
    q = t_of(level, df)
    t_lo, t_hi = (float(v) for v in hall_inverse(np.array([q, -q]), a))
    low = min(mean - q * se, mean - se * t_lo)
    high = max(mean + q * se, mean - se * t_hi)
    p = max(p_t(mean, se, df), p_t(hall_g(mean / se, a), 1.0, df))
    return low, high, p


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


def paired_mean(d: np.ndarray, w: np.ndarray | None, level: float, skew: bool = False) -> Estimate:
    """The weighted mean of per-row values ``d`` with its Student-t interval (see the module doc); ``skew``:
    the interval and p-value of :func:`skew_guarded` (few rows of a class)."""
    n = d.shape[0]
    if not np.any(d):  # identical losses: exactly 0, no interval to speak of
        return Estimate(0.0, 0.0, 0.0, 0.0, 1.0)
    total, total_sq, cube_share = weight_sums(w, n)
    mean = float(d.sum()) / n if w is None else float(np.dot(w, d)) / total
    ss = s2h = s3h = 0.0
    step = 1 << 18
    for a in range(0, n, step):  # centred sums of squares (and cubes) in cache-sized pieces (no n-sized copy)
        dev = d[a:a + step] - mean
        if skew:  # Σh²(d - mean)², Σh³(d - mean)³ in shares h = w/Σw (no overflow)
            hdev = dev if w is None else dev * (w[a:a + step] / total)
            sq = hdev * hdev
            s2h += float(sq.sum())
            s3h += float(np.dot(sq, hdev))
        dev *= dev
        if w is not None:
            dev *= w[a:a + step]
            dev *= w[a:a + step]
        ss += float(dev.sum())
    var = ss / (total * total) * variance_factor(n, total, total_sq, cube_share) if n > 1 else float("nan")
    se = float(np.sqrt(var))
    df = student_df(n, total, total_sq)
    t = t_of(level, df) if df == df else float("nan")
    if skew and se > 0.0 and df == df and not no_spread(mean, se):
        low, high, p = skew_guarded(mean, se, df, level, skew_term(s3h, s2h))
        return Estimate(mean, se, low, high, p)
    return Estimate(mean, se, mean - t * se, mean + t * se, float(p_t_array(mean, se, df)))
