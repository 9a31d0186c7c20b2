r"""Paired mean differences with a Student-t interval.

Both models are scored on the same rows, so the difference of two mean losses is
the mean of the per-row differences :math:`d_i = \ell(p_{B,i}, y_i) - \ell(p_{A,i}, y_i)`:

.. math:: \bar d = \frac{\sum_i w_i d_i}{\sum_i w_i},\qquad
          \widehat{\mathrm{Var}}(\bar d) = \frac{n}{n-1}\,
          \frac{\sum_i w_i^2 (d_i - \bar d)^2}{(\sum_i w_i)^2}

(unweighted: :math:`s_d^2/n`, the paired t statistic's variance). For the Brier and
log-loss differences (:func:`paired_losses`) the interval is
:math:`\bar d \pm t_{\nu,1-\alpha/2}\,\widehat{\mathrm{se}}` and the p-value
:math:`2F_\nu(-|\bar d| / \widehat{\mathrm{se}})` with Student's t on :math:`\nu = n - 1`
degrees of freedom — unweighted, exactly the paired t-test (``scipy.stats.ttest_rel``) on
the per-row loss differences, the Diebold–Mariano test for independent rows with its
small-sample reference law (the normal quantile claimed p < 0.0001 on 2 rows; at α = 0.05
on 10 rows it rejected a true H0 about 9 % of the time). Weighted,
:math:`\nu = n_{\mathrm{eff}} - 1` with Kish's effective size
:math:`n_{\mathrm{eff}} = (\sum_i w_i)^2 / \sum_i w_i^2` (n for equal weights). As
:math:`\nu \to \infty` the t law is the normal one. :func:`paired_mean` and :func:`from_moments`
(cost, net benefit, Murphy diagram) use the same t interval on the same degrees of freedom. Because the rows are shared, what
both models get right or wrong together cancels in :math:`d_i`: the paired interval is much
narrower than the two separate intervals of the means (``tests/comparison`` shows the power it
buys).

The same moments serve every per-row quantity here (elementary scores of the Murphy
diagram, net benefit, realised minus expected cost): :func:`from_moments` takes
:math:`\sum w d`, :math:`\sum w^2 d`, :math:`\sum w^2 d^2`, so counts at thresholds can
feed it without a per-row array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core._special import ndtr, ndtri
from ..core._validation import PROB_EPS, Binary, binary_nll_terms


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
    is not above 1 (one row carries all the weight: no spread to estimate)."""
    if n < 2:
        return float("nan")
    eff = total * total / total_sq
    df = float(n - 1) if abs(eff - n) <= 1e-9 * n else eff - 1.0
    return df if df > 0.0 else float("nan")


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
    return se <= 1e-6 * np.abs(mean)


def from_moments(s1: np.ndarray, s1w: np.ndarray, s2: np.ndarray, total: float, total_sq: float, n: int,
                 level: float) -> tuple[np.ndarray, ...]:
    r"""``(mean, se, low, high, p)`` of a weighted mean from :math:`\sum w d`, :math:`\sum w^2 d`,
    :math:`\sum w^2 d^2`, :math:`\sum w` and :math:`\sum w^2` (arrays: one mean per entry)."""
    mean = np.asarray(s1, dtype=float) / total
    ss = np.asarray(s2, dtype=float) - 2.0 * mean * np.asarray(s1w, dtype=float) + mean * mean * total_sq
    ss = np.maximum(ss, 0.0)  # rounding below 0 when every d is equal
    var = ss / (total * total) * (n / (n - 1.0)) if n > 1 else np.full_like(mean, np.nan)
    se = np.sqrt(var)
    df = student_df(n, total, total_sq)
    t = t_of(level, df) if df == df else float("nan")
    return mean, se, mean - t * se, mean + t * se, p_t_array(mean, se, df)


def paired_mean(d: np.ndarray, w: np.ndarray | None, level: float) -> Estimate:
    """The weighted mean of per-row values ``d`` with its Student-t interval (see the module doc)."""
    n = d.shape[0]
    if not np.any(d):  # identical losses: exactly 0, no interval to speak of
        return Estimate(0.0, 0.0, 0.0, 0.0, 1.0)
    if w is None:
        total, total_sq = float(n), float(n)
        mean = float(d.sum()) / n
    else:
        total, total_sq = float(w.sum()), float(np.dot(w, w))
        mean = float(np.dot(w, d)) / total
    ss = 0.0
    step = 1 << 18
    for a in range(0, n, step):  # centred sum of squares in cache-sized pieces (no n-sized copy)
        dev = d[a:a + step] - mean
        dev *= dev
        if w is not None:
            dev *= w[a:a + step]
            dev *= w[a:a + step]
        ss += float(dev.sum())
    var = ss / (total * total) * (n / (n - 1.0)) if n > 1 else float("nan")
    se = float(np.sqrt(var))
    df = student_df(n, total, total_sq)
    t = t_of(level, df) if df == df else float("nan")
    return Estimate(mean, se, mean - t * se, mean + t * se, float(p_t_array(mean, se, df)))


def _chunk_losses(d: Binary, a: int, e: int, off: np.ndarray, sign: np.ndarray,
                  out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Per-row Brier score and **negated** log loss :math:`\log \max(q, \epsilon)` of rows ``a:e``
    of one model, into ``out`` (two rows of at least ``e - a``), the log loss as
    :func:`~veracity.core._validation.binary_nll_terms` gives it. From probabilities,
    :math:`q = p` for positives and :math:`1 - p` for negatives is ``off + sign * p`` with
    ``off = 1 - y`` and ``sign = 2y - 1`` (shared by the models; exact: ``0 + p`` and
    ``1 + (-p)`` are ``p`` and ``1 - p`` to the bit). The sign is left to the caller: negation
    is exact and sums are sign-symmetric, so :math:`-\sum \log q` and
    :math:`\log q_A - \log q_B` are the log loss's sum and paired difference to the bit."""
    m = e - a
    p, y = d.p[a:e], d.y[a:e]
    brier, q = out[0, :m], out[1, :m]
    np.subtract(p, y, out=brier)
    brier *= brier
    if d.logit is not None:
        np.negative(binary_nll_terms(Binary(p=p, y=y, w=None, logit=d.logit[a:e])), out=q)
        return brier, q
    np.multiply(sign, p, out=q)
    q += off
    np.maximum(q, PROB_EPS, out=q)
    np.log(q, out=q)
    return brier, q


#: rows per piece of :func:`paired_losses` (its few per-piece arrays stay in the core's cache)
STEP = 1 << 14


def paired_losses(data: list[Binary], pairs: list[tuple[int, int]], w: np.ndarray | None,
                  level: float) -> tuple[np.ndarray, dict[tuple[int, int], list[Estimate]]]:
    r"""Mean Brier score and log loss of every model (``(models, 2)``) and, for every pair (i, j),
    the paired Brier and log-loss differences j - i (:func:`paired_mean`'s mean and se, with Student's
    t on :func:`student_df` degrees of freedom for the interval and p-value), in one pass
    over cache-sized pieces of the rows, into reused buffers: no n-sized loss array is ever built.

    The centred sum of squares comes from sums of :math:`d - c` around a pilot mean c (the first
    piece's), :math:`\sum w^2 (d - \bar d)^2 = \sum w^2 (d - c)^2 - 2(\bar d - c)\sum w^2 (d - c)
    + (\bar d - c)^2 \sum w^2` — exact algebra, and with c next to the mean, no cancellation.
    """
    n = data[0].n
    step = min(n, STEP)
    k = len(data)
    sums = np.zeros((k, 2))  # Σ brier, Σ log q (the log loss's negated sum)
    total = float(n) if w is None else float(w.sum())
    total_sq = float(n) if w is None else float((w * w).sum())
    pilot: dict[tuple[int, int], list[float]] = {pair: [0.0, 0.0] for pair in pairs}
    acc = {pair: np.zeros((2, 3)) for pair in pairs}  # per metric: Σw(d-c), Σw²(d-c), Σw²(d-c)²
    differs = {pair: [False, False] for pair in pairs}
    buf = np.empty((k, 2, step))
    shared = np.empty((3, step))  # 1 - y, 2y - 1, the difference d
    for a in range(0, n, step):
        e = min(n, a + step)
        m = e - a
        y = data[0].y[a:e]
        off, sign, d = shared[0, :m], shared[1, :m], shared[2, :m]
        np.subtract(1.0, y, out=off)
        np.add(y, y, out=sign)
        sign -= 1.0
        losses = [_chunk_losses(x, a, e, off, sign, buf[i]) for i, x in enumerate(data)]
        wc = None if w is None else w[a:e]
        for i, (brier, lq) in enumerate(losses):
            sums[i, 0] += float(brier.sum() if wc is None else (brier * wc).sum())
            sums[i, 1] += float(lq.sum() if wc is None else (lq * wc).sum())
        for pair in pairs:
            i, j = pair
            for t in (0, 1):
                # Brier: b_j - b_i; log loss: (-lq_j) - (-lq_i), which is lq_i - lq_j to the bit
                if t == 0:
                    np.subtract(losses[j][0], losses[i][0], out=d)
                else:
                    np.subtract(losses[i][1], losses[j][1], out=d)
                if not differs[pair][t] and np.any(d):
                    differs[pair][t] = True
                if a == 0:
                    pilot[pair][t] = float(d.mean() if wc is None else (d * wc).sum() / wc.sum())
                d -= pilot[pair][t]
                if wc is None:
                    s1 = float(d.sum())
                    acc[pair][t] += (s1, s1, float(np.square(d, out=d).sum()))
                else:
                    w2 = wc * wc
                    acc[pair][t] += (float((d * wc).sum()), float((d * w2).sum()), float((d * d * w2).sum()))
    sums[:, 1] = -sums[:, 1]
    means = sums / total
    df = student_df(n, total, total_sq)
    q = t_of(level, df) if df == df else float("nan")  # Student's t quantile
    out = {}
    for pair in pairs:
        estimates = []
        for t in (0, 1):
            if not differs[pair][t]:  # identical losses: exactly 0, no interval to speak of
                estimates.append(Estimate(0.0, 0.0, 0.0, 0.0, 1.0))
                continue
            s1, s1w, s2 = acc[pair][t]
            shift = s1 / total  # mean - pilot
            mean = pilot[pair][t] + shift
            ss = max(s2 - 2.0 * shift * s1w + shift * shift * total_sq, 0.0)
            var = ss / (total * total) * (n / (n - 1.0)) if n > 1 else float("nan")
            se = float(np.sqrt(var))
            if not se > 0.0:  # no spread (or no estimate of it): the edge cases of the normal interval
                estimates.append(Estimate(mean, se, mean - 0.0 * se, mean + 0.0 * se, float(p_of(mean, se))))
                continue
            estimates.append(Estimate(mean, se, mean - q * se, mean + q * se, p_t(mean, se, df)))
        out[pair] = estimates
    return means, out
