r"""Per-row loss differences of models scored on the same rows: :func:`paired_losses` (Brier and
log loss of every model and pair in one pass). The paired mean, its Student-t interval and p-value are
:mod:`veracity.core._paired_mean` (shared with the calibrator ledger); re-exported here.
"""

from __future__ import annotations

import numpy as np

from ..core._paired_mean import (  # noqa: F401 - re-exported: the comparison modules import them from here
    Estimate, from_moments, no_spread, p_of, p_t, p_t_array, paired_mean, skew_guarded, skew_term, student_df,
    t_of, variance_factor, weight_sums, z_of,
)
from ..core._validation import PROB_EPS, Binary, binary_nll_terms


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


def flat_estimate(mean: float) -> Estimate:
    r"""The estimate of a paired difference whose rows all differ by the same nonzero value
    (:func:`no_spread`): the mean, with no standard error, interval or p-value (NaN). Its t interval has
    no width, and "excluded 0" at p < 0.0001 from two rows: two models scoring every row :math:`c` or
    :math:`1 - c` (hard 0/1 predictions, say) differ by the same amount on every row where one is right and
    the other wrong, and two equally good such models were called different in 8.5 % of 400 two-row slices
    at 5 % (34 read beyond noise across the slices; tests/comparison/test_cmp_flat_diff_r41.py). The same
    value on every row seen says nothing of the rows where it would differ — as the Murphy diagram's band
    (:mod:`._murphy`): n/a, with a note (``_compare.flat_note``)."""
    nan = float("nan")
    return Estimate(float(mean), nan, nan, nan, nan)


#: rows per piece of :func:`paired_losses` (its few per-piece arrays stay in the core's cache)
STEP = 1 << 14


def paired_losses(data: list[Binary], pairs: list[tuple[int, int]], w: np.ndarray | None,
                  level: float,
                  skew: bool = False) -> tuple[np.ndarray, dict[tuple[int, int], list[Estimate]]]:
    r"""Mean Brier score and log loss of every model (``(models, 2)``) and, for every pair (i, j),
    the paired Brier and log-loss differences j - i (:func:`paired_mean`'s mean and se, its factor
    :func:`variance_factor`, with Student's t on :func:`student_df` degrees of freedom for the interval
    and p-value), in one pass
    over cache-sized pieces of the rows, into reused buffers: no n-sized loss array is ever built.

    The centred sum of squares comes from sums of :math:`d - c` around a pilot mean c (the first
    piece's), :math:`\sum w^2 (d - \bar d)^2 = \sum w^2 (d - c)^2 - 2(\bar d - c)\sum w^2 (d - c)
    + (\bar d - c)^2 \sum w^2` — exact algebra, and with c next to the mean, no cancellation.

    ``skew`` (few rows of a class): the interval and p-value of
    :func:`veracity.core._paired_mean.skew_guarded`, whose skewness term needs
    :math:`\sum h^3 (d - \bar d)^3 = \sum h^3 e^3 - 3s\sum h^3 e^2 + 3s^2 \sum h^3 e - s^3 \sum h^3`
    (:math:`e = d - c`, :math:`s = \bar d - c`, :math:`h = w / \sum w`; 1 unweighted), from three more sums.
    """
    n = data[0].n
    step = min(n, STEP)
    k = len(data)
    sums = np.zeros((k, 2))  # Σ brier, Σ log q (the log loss's negated sum)
    total = float(n) if w is None else float(w.sum())
    total_sq = float(n) if w is None else float((w * w).sum())
    cube_share = weight_sums(w, n)[2]
    pilot: dict[tuple[int, int], list[float]] = {pair: [0.0, 0.0] for pair in pairs}
    acc = {pair: np.zeros((2, 3)) for pair in pairs}  # per metric: Σw(d-c), Σw²(d-c), Σw²(d-c)²
    differs = {pair: [False, False] for pair in pairs}
    acc3 = {pair: np.zeros((2, 3)) for pair in pairs}  # skew: Σh³e, Σh³e², Σh³e³ (e = d - c)
    cube_total = float(n) if w is None else float(weight_sums(w, n)[2] or 0.0)  # Σh³
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
                if skew:
                    h3 = None if wc is None else (wc / total) ** 3
                    e2 = d * d
                    acc3[pair][t] += (float(d.sum() if h3 is None else np.dot(h3, d)),
                                      float(e2.sum() if h3 is None else np.dot(h3, e2)),
                                      float(np.dot(e2, d) if h3 is None else np.dot(h3 * e2, d)))
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
    factor = variance_factor(n, total, total_sq, cube_share)
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
            var = ss / (total * total) * factor if n > 1 else float("nan")
            se = float(np.sqrt(var))
            if mean != 0.0 and no_spread(mean, se):  # every row's difference the same: no interval
                estimates.append(flat_estimate(mean))
                continue
            if not se > 0.0:  # no estimate of the spread (one row): the edge cases of the normal interval
                estimates.append(Estimate(mean, se, mean - 0.0 * se, mean + 0.0 * se, float(p_of(mean, se))))
                continue
            if skew and df == df:
                c1, c2, c3 = acc3[pair][t]
                s3 = c3 - 3.0 * shift * c2 + 3.0 * shift * shift * c1 - shift ** 3 * cube_total
                a3 = skew_term(s3, ss if w is None else ss / total ** 2)
                low, high, p = skew_guarded(mean, se, df, level, a3)
                estimates.append(Estimate(mean, se, low, high, p))
                continue
            estimates.append(Estimate(mean, se, mean - q * se, mean + q * se, p_t(mean, se, df)))
        out[pair] = estimates
    return means, out
