r"""PPI++, classical, CBPE and rectifier estimates from the sums of a window (vectorised over windows).

The formulas are those of :mod:`veracity.delayed._ppi` (PPI++ with power tuning, the
linearised weighted variances, CBPE's Poisson-binomial spread); everything here reads only
the sums of :class:`PpiSums`, so a store computes them in SQL and calls :func:`ppi_from_sums`
for all windows at once. Also the two interval helpers every PPI result shares: cutting a
normal interval at the range of the quantity, and the calibration judgement of the rectifier.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._count_interval import count_interval
from ..core._intervals import FEW_COUNTS, binomial_interval, modified_wilson
from ..core._special import ndtri
from ..core._validation import VeracityError
from ..core._weights import kish_sizes

#: a standard error (on the scale of a rate) below this is the rounding noise of the one-pass sums
#: (about sqrt(eps / n)): the labels have no spread, and the normal interval no width
NO_SPREAD = 1e-7


#: unweighted labels with fewer than this many of one class (positive or negative) are judged calibrated or
#: not by an exact binomial tail bound, not by the rectifier's normal interval (:func:`judged_calibrated`): the
#: rule of thumb that a normal approximation of a count needs at least 10 of each outcome
EXACT_BELOW = FEW_COUNTS


def _binomial_low_tail(n: np.ndarray, p: np.ndarray, c: np.ndarray) -> np.ndarray:
    r""":math:`P(B \le c)` for :math:`B \sim \mathrm{Bin}(n, p)`, the regularised incomplete beta function
    :math:`I_{1-p}(n - c, c + 1)` (1 where :math:`c \ge n`; vectorised)."""
    from ..core._special import _special

    n, p, c = (np.asarray(a, dtype=np.float64) for a in (n, p, c))
    full = c >= n
    with np.errstate(invalid="ignore"):
        tail = _special().betainc(np.where(full, 1.0, n - c), c + 1.0, 1.0 - p)
    return np.where(full, 1.0, np.asarray(tail, dtype=np.float64))


def _rare_class_rejects(n: Any, positives: Any, expected: Any, level: float) -> tuple[np.ndarray, np.ndarray]:
    r"""``(applies, rejects)``: where the labels hold fewer than :data:`EXACT_BELOW` of one class, the
    two-sided test of calibration by Hoeffding's (1956) binomial bound. Under calibration the count of
    positives :math:`S = \sum y` is Poisson-binomial with mean :math:`\mu = \sum f`, and its tails are no
    heavier than those of :math:`B \sim \mathrm{Bin}(n, \mu / n)`: :math:`P(S \le c) \le P(B \le c)` for
    :math:`c \le \mu - 1` (and for :math:`c = 0` always, by the AM–GM inequality), :math:`P(S \ge c) \le
    P(B \ge c)` for :math:`c \ge \mu + 1`. Rejected where that tail is at most :math:`(1 - \text{level}) / 2`;
    counts within one of the mean are never rejected. Rare negatives are the same test of :math:`n - S`."""
    n = np.asarray(n, dtype=np.float64)
    s = np.asarray(positives, dtype=np.float64)
    mu = np.asarray(expected, dtype=np.float64)
    neg = (n - s) < s  # the rarer class: negatives
    k = np.where(neg, n - s, s)  # its count
    m = np.where(neg, n - mu, mu)  # its expected count under calibration
    applies = np.isfinite(k) & np.isfinite(m) & (n > 0) & (k < EXACT_BELOW)
    k_ = np.where(applies, np.round(k), 0.0)
    p = np.clip(np.where(applies, m / np.where(n > 0, n, 1.0), 0.5), 0.0, 1.0)
    low = (k_ == 0) | (k_ <= m - 1.0)
    high = (k_ >= 1) & (k_ >= m + 1.0)
    tail = np.where(low, _binomial_low_tail(n, p, k_),
                    np.where(high, 1.0 - _binomial_low_tail(n, p, np.maximum(k_ - 1.0, 0.0)), 1.0))
    return applies, applies & (tail <= (1.0 - level) / 2.0)


def judged_calibrated(rect_low: Any, rect_high: Any, rect_se: Any, n: Any, level: float,
                      label_se: Any = None, rectifier: Any = None, positives: Any = None,
                      expected: Any = None, rare_n: Any = None) -> Any:
    r"""The rectifier's interval holds 0 — or, where the labels have no spread, an exact test does not reject.

    A rectifier without spread (every label one class, y − f = c for every labelled row) has a
    normal interval of zero width, which is no confidence interval. Nor is it one when the labels
    alone have no spread (``label_se``, the standard error of their mean, below :data:`NO_SPREAD`:
    every label one class) but the scores do: its width is then the scores' spread only, and
    misses the outcome's Bernoulli variance entirely — 50 labels all 0 from calibrated scores near
    0.02 (probability about 0.36) gave an interval around −0.02 that excluded 0, and the scores
    were judged not calibrated a third of the time (seeded simulation in
    tests/hardening/test_hostile_decisions_delayed_r15.py). In both cases, under calibration,
    seeing n labels all 0 has probability :math:`\prod (1 - f_i) \le (1 - \bar f)^n = (1 - |c|)^n`
    (and n labels all 1, :math:`\prod f_i \le \bar f^n = (1 - |c|)^n`, by the AM–GM
    inequality), so the scores are judged not calibrated when :math:`(1 - |c|)^n \le (1-\text{level})/2`,
    :math:`c` the mean rectifier (``rectifier``; the interval's midpoint when not given):
    two negatives scored 0.1 are no evidence (0.81), 1,000 negatives scored 0.5 are. With weights
    :math:`w_i` (:math:`c` the weighted mean), the weighted AM–GM inequality gives
    :math:`\prod (1 - f_i) \le (1 - |c|)^{W / \max w}`: the callers pass ``n`` = :math:`W / \max w`
    (the number of labels when the weights are equal).

    Unweighted labels with spread but fewer than :data:`EXACT_BELOW` of one class (``positives`` =
    :math:`\sum y` and ``expected`` = :math:`\sum f` given) are judged by the exact binomial bound of
    :func:`_rare_class_rejects` instead of the normal interval, whose skew there made calibrated scores read
    "not calibrated" above the level: calibrated windows of rare outcomes (rates 0.02-0.05, 100-400 labels)
    were judged not calibrated in 7-10 % of cases at a nominal 5 %, 1-4 % with the exact bound (seeded
    simulation in tests/delayed/test_rare_class_r16.py). Weighted labels take the same test on their Kish size
    :math:`n_{\text{eff}} = (\sum w)^2 / \sum w^2` (``rare_n``; ``n`` when not given), with ``positives`` =
    :math:`\bar y_w n_{\text{eff}}` and ``expected`` = :math:`\bar f_w n_{\text{eff}}` — the rule of
    :func:`rare_outcome` — so that equal weights give the unweighted judgement. Vectorised."""
    low, high = np.asarray(rect_low, dtype=np.float64), np.asarray(rect_high, dtype=np.float64)
    flat = ~(np.asarray(rect_se) >= NO_SPREAD)
    if label_se is not None:
        flat = flat | ~(np.asarray(label_se) >= NO_SPREAD)
    centre = 0.5 * (low + high) if rectifier is None else np.asarray(rectifier, dtype=np.float64)
    c = np.clip(np.abs(centre), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        exact_p = np.exp(np.asarray(n, dtype=np.float64) * np.log1p(-c))
    out = np.where(flat, exact_p > (1.0 - level) / 2.0, (low <= 0.0) & (0.0 <= high))
    if positives is not None and expected is not None:
        rare, rejects = _rare_class_rejects(n if rare_n is None else rare_n, positives, expected, level)
        out = np.where(rare & ~flat, ~rejects, out)
    return out


def cut_to_range(out: dict[str, Any], bounds: Any) -> None:
    r"""Cut the normal intervals of ``out`` (keys of :func:`ppi_from_sums`) at the range the quantity can take.

    ``bounds`` maps an interval prefix (``"ci"``, ``"classical"``, ``"cbpe"``, ``"rectifier"``) to
    ``(lo, hi)`` (scalars or arrays, one per entry). A rate is in [0, 1] and the rectifier
    :math:`y - f` in [-1, 1]; a normal interval reaching beyond is cut at the bound — the same
    coverage, no impossible values. Both ends are clipped into the range, so an interval lying wholly
    beyond a bound (an estimate of -0.70 from badly calibrated scores at lambda = 1) becomes that bound,
    [0, 0], never a reversed [0, -0.56]. In place; NaN stays NaN. :func:`ppi_from_sums` itself stays the
    plain normal interval."""
    for prefix, (lo, hi) in bounds.items():
        for key in (f"{prefix}_low", f"{prefix}_high"):
            x = np.asarray(out[key], dtype=np.float64)
            out[key] = np.where(np.isnan(x), np.nan, np.fmin(np.fmax(x, lo), hi))


#: the most coverage CBPE's normal interval may lose to the whole numbers of the count it stands for
#: (:func:`count_handover`)
LATTICE_LOSS = 0.005


def count_handover(level: float) -> float:
    r"""The spread :math:`V` of a count below which CBPE reads the count interval, not the normal one:
    :math:`V_h = (\varphi(z) / \ell)^2`, :math:`z` the two-sided normal quantile of ``level``,
    :math:`\varphi` the normal density and :math:`\ell` = :data:`LATTICE_LOSS`. The count :math:`X` takes
    whole numbers, so :math:`E \pm z\sqrt V` holds the counts :math:`\lceil E - z\sqrt V\rceil \ldots
    \lfloor E + z\sqrt V \rfloor`: each end may fall up to one count inside, and the coverage up to about
    :math:`2\Phi(z - 1/(2\sqrt V)) - 1 \approx \text{level} - \varphi(z)/\sqrt V` — 0.745 at 0.8 and
    :math:`V` = 10 (exact by convolution: 0.741), where the hand-over had been 10 expected events at every
    level. :math:`V_h` is 1,225 at 0.8, 136 at 0.95 and 8.4 at 0.99 (the 10 expected events of
    :data:`EXACT_BELOW` stand there)."""
    z = float(ndtri(0.5 + level / 2.0))
    return float((np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) / LATTICE_LOSS) ** 2)


def count_cbpe_interval(out: dict[str, Any], E: Any, V: Any, K3: Any, size: Any, level: float,
                        where: Any = True, effective: bool = False) -> None:
    r"""Replace CBPE's normal interval (``out["cbpe_low"]``, ``out["cbpe_high"]``) by the count interval
    :func:`~veracity.core._count_interval.count_interval` of a count of mean ``E``, variance ``V`` and third
    cumulant ``K3`` among ``size`` (effective) rows, divided by ``size``, where the count is skewed or its
    whole numbers matter: fewer than :data:`EXACT_BELOW` expected events or non-events,
    :math:`\min(E, \text{size} - E) < 10`, or :math:`V` below :func:`count_handover` of ``level``.
    ``effective`` (weighted rows, whose rate is no whole count of ``size`` rows): the hull of the two
    intervals instead. Entries with :math:`V = 0` (no spread) keep the normal interval. ``where``: a mask
    of the entries to consider (or True). In place; vectorised selection, one ``count_interval`` per
    selected entry."""
    E, V, K3, M = (np.asarray(a, dtype=np.float64) for a in (E, V, K3, size))
    shape = np.shape(out["cbpe_low"])
    E, V, K3, M, mask = (np.broadcast_to(a, shape).reshape(-1) for a in (E, V, K3, M, np.asarray(where)))
    with np.errstate(invalid="ignore"):
        rare = (mask & np.isfinite(E + V + K3 + M) & (M > 0) & (V > 0)
                & ((np.minimum(E, M - E) < EXACT_BELOW) | (V < count_handover(level))))
    if not rare.any():
        return
    low = np.array(out["cbpe_low"], dtype=np.float64).reshape(-1)
    high = np.array(out["cbpe_high"], dtype=np.float64).reshape(-1)
    for i in np.flatnonzero(rare).tolist():
        a, b = count_interval(E[i], V[i], K3[i], M[i], level)
        if effective:  # the hull with the normal interval
            a, b = min(low[i] * M[i], a), max(high[i] * M[i], b)
        low[i], high[i] = a / M[i], b / M[i]
    out["cbpe_low"], out["cbpe_high"] = low.reshape(shape), high.reshape(shape)


def rare_cbpe_interval(out: dict[str, Any], sum_f: Any, sum_ff: Any, sum_fff: Any, rows: Any, level: float,
                       where: Any = True) -> None:
    r"""Replace CBPE's normal interval :math:`\bar f \pm z\sqrt{\sum f(1-f)}/M` (``out["cbpe_low"]``,
    ``out["cbpe_high"]``) of unweighted rows where the scores expect fewer than :data:`EXACT_BELOW` events
    or non-events among the window's :math:`M` rows, :math:`\min(\sum f, M - \sum f) < 10`, or where the
    count's spread :math:`V = \sum f(1-f)` lies below :func:`count_handover` of the level (1,225 at 0.8, 136
    at 0.95), by the interval of the realised count under calibration that the monitoring store's label-free
    estimates use, :func:`~veracity.core._count_interval.count_interval` from :math:`E = \sum f`, :math:`V`
    and :math:`K_3 = \sum f(1-f)(1-2f)` (a Skellam matched to three cumulants, whole numbers), divided by
    :math:`M` (:func:`count_cbpe_interval`). The count is Poisson-binomial and skewed at few events: the
    normal interval covered the realised rate of calibrated windows 0.906 of the time at :math:`E` = 0.5,
    0.931 at 1 and 0.94 at 2 for a nominal 0.95 (exact coverage by convolution,
    tests/delayed/test_cbpe_rare_r41.py); the count interval at least 0.95. Past 10 events the whole
    numbers cost the normal interval coverage at a low level: 0.741 at 0.8 and 0.9365 at 0.95 (10-79
    expected events, exact), now at least 0.80 and 0.953 (tests/delayed/test_cbpe_levels_r44.py).
    ``where`` (a mask, or True): the entries whose sums are those of unweighted rows (weighted rows:
    :func:`weighted_cbpe_interval`). In place."""
    E, Q, C = (np.asarray(a, dtype=np.float64) for a in (sum_f, sum_ff, sum_fff))
    count_cbpe_interval(out, E, E - Q, E - 3.0 * Q + 2.0 * C, rows, level, where=where)


def weighted_count_terms(total: Any, total_sq: Any, sum_wf: Any, sum_w2v: Any, sum_w3k: Any
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""``(E, V, K3, size)``: the weighted mean score's law under calibration read as a count of ``size``
    effective rows, for :func:`count_cbpe_interval`. From :math:`W = \sum w` (``total``), :math:`\sum w^2`
    (``total_sq``), :math:`\sum wf`, :math:`V_w = \sum w^2 f(1-f)` and :math:`K_w = \sum w^3 f(1-f)(1-2f)`
    (the realised weighted rate :math:`R = \sum wY / W` has mean :math:`\sum wf / W`, variance
    :math:`V_w / W^2` and third cumulant :math:`K_w / W^3`), the effective size is

    .. math:: n^* = \min\Bigl(\frac{W^2}{\sum w^2},\; \frac{W V_w}{|K_w|}\Bigr)

    — Kish's size (:func:`~veracity.core._weights.kish_sizes`), or fewer where the heavy rows' events skew
    the rate more than Kish's equal rows would (:math:`W V_w / |K_w|` is the size at which the count
    :math:`X = n^* R` has :math:`K_3 = V`, a Poisson's skew) — and :math:`X` has :math:`E = n^*\sum wf / W`,
    :math:`V = (n^*/W)^2 V_w`, :math:`K_3 = (n^*/W)^3 K_w` (so :math:`|K_3| \le V`). Equal weights give
    :math:`n^* = M` (:math:`M V / |K_3| \ge M`) and the unweighted count's cumulants. Vectorised."""
    W, W2, A, Vw, Kw = (np.asarray(a, dtype=np.float64) for a in (total, total_sq, sum_wf, sum_w2v, sum_w3k))
    kish = kish_sizes(W, W2)
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = np.where(np.abs(Kw) > 0, W * Vw / np.abs(Kw), np.inf)
        size = np.fmin(kish, skew)
        c = size / W
        return c * A, c * c * Vw, c * c * c * Kw, size


def weighted_cbpe_interval(out: dict[str, Any], f: np.ndarray, w: np.ndarray, level: float,
                           group: Any = None, groups: int = 1) -> None:
    r"""CBPE's interval of weighted rows (scores ``f``, positive weights ``w``: all the window's rows,
    labelled or not, in one unit): its normal interval widened to the hull with the count interval of
    :func:`count_cbpe_interval` at the effective size and cumulants of :func:`weighted_count_terms`, where
    that count expects fewer than 10 events or non-events or its spread lies below :func:`count_handover`.
    The weighted rate's law is skewed well past 10 expected events when a few heavy rows carry them: with
    log-normal(0, 1) weights on 2,000 rows the normal interval covered the realised weighted rate
    0.967-0.983 at 2-5 expected events and 0.971-0.989 at 20 for a nominal 0.99 and 0.937-0.979 at 0.95;
    the hull at least 0.987 and 0.958 (5 configurations x 2,000 label draws,
    tests/delayed/test_cbpe_weighted_r44.py). Cumulants cannot see everything: one row carrying a large
    share of the weight and a few % chance of an event makes the law lumpy beyond them.
    ``group`` (an int per row, below ``groups``): one interval per group (the score bins of vc.ppi_audit),
    ``out``'s entries in group order; None: one entry, or the first of ``out``'s entries. In place."""
    u = w / float(w.max())  # scaled by the largest weight: no cube overflows
    v = f * (1.0 - f)
    terms = (u, u * u, u * f, u * u * v, u * u * u * v * (1.0 - 2.0 * f))
    if group is None:
        sums: list[Any] = [np.float64(t.sum()) for t in terms]
        where: Any = np.arange(np.size(out["cbpe_low"])).reshape(np.shape(out["cbpe_low"])) == 0
    else:
        sums = [np.bincount(group, weights=t, minlength=groups) for t in terms]
        where = sums[0] > 0
    E, V, K3, size = weighted_count_terms(*sums)
    count_cbpe_interval(out, E, V, K3, size, level, where=where, effective=True)


#: the range of each interval of a rate (the outcome is 0/1)
RATE_BOUNDS = {"ci": (0.0, 1.0), "classical": (0.0, 1.0), "cbpe": (0.0, 1.0), "rectifier": (-1.0, 1.0)}


def _wilson_at_estimate(out: dict[str, Any], n_labels: Any, level: float, cap: Any,
                        modified: bool = False) -> tuple[np.ndarray, ...]:
    r"""``(ok, low, high)``: the Wilson interval at ``out["estimate"]`` (cut to [0, 1]) with the effective
    labels :math:`n^* = \hat p (1 - \hat p) / s^2`, capped at ``n_labels`` where ``cap`` (a bool or an
    array); :math:`n^*` is ``n_labels`` where :math:`\hat p` is 0 or 1 or :math:`s` has no width. ``ok`` is False where the
    estimate, its standard error or ``n_labels`` is not finite or ``n_labels`` is not positive.
    ``modified``: the modified Wilson interval (:func:`modified_wilson`, Garwood's end below 10 effective
    events) instead."""
    est = np.asarray(out["estimate"], dtype=np.float64)
    se = np.asarray(out["se"], dtype=np.float64)
    n_l = np.asarray(n_labels, dtype=np.float64)
    ok = np.isfinite(est) & np.isfinite(se) & np.isfinite(n_l) & (n_l > 0)
    p = np.where(ok, np.clip(est, 0.0, 1.0), 0.5)
    n_safe = np.where(ok, n_l, 1.0)
    spread = (se >= NO_SPREAD) & (p > 0.0) & (p < 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        design = np.where(spread, p * (1.0 - p) / (se * se), n_safe)
    n_star = np.where(cap, np.minimum(n_safe, design), design)
    n_star = np.where(ok & np.isfinite(n_star) & (n_star > 0), n_star, n_safe)
    if modified:
        low, high = modified_wilson(p, n_star, level)
        return ok, low, high
    low, high = binomial_interval(p * n_star, n_star, method="wilson", level=level)
    # exact ends at p = 0 or 1 (Wilson's are, up to rounding), and the estimate inside
    low = np.where(p <= 0.0, 0.0, np.clip(np.minimum(low, p), 0.0, 1.0))
    high = np.where(p >= 1.0, 1.0, np.clip(np.maximum(high, p), 0.0, 1.0))
    return ok, low, high


def wilson_rate_interval(out: dict[str, Any], n_labels: Any, level: float) -> None:
    r"""Replace the normal interval of a PPI rate (``out["ci_low"]``, ``out["ci_high"]`` of
    :func:`ppi_from_sums`) by the Wilson score interval at the PPI estimate with an effective number of labels.

    With :math:`\hat p` the PPI++ estimate cut to [0, 1], :math:`s` its standard error and
    :math:`n_\ell` the labels (their Kish size :math:`(\sum w)^2 / \sum w^2` when weighted),

    .. math:: n^* = \min\Big(n_\ell,\ \frac{\hat p (1 - \hat p)}{s^2}\Big), \qquad
              \frac{\hat p + z^2 / (2 n^*)}{1 + z^2 / n^*} \pm \frac{z}{1 + z^2 / n^*}
              \sqrt{\frac{\hat p (1 - \hat p)}{n^*} + \frac{z^2}{4 n^{*2}}}

    (:math:`n^* = n_\ell` where :math:`\hat p` is 0 or 1 or :math:`s` has no width). This is the
    survey statistician's Wilson interval with the design-effect effective sample size (Kish 1965;
    Korn & Graubard 1998; capped at the actual sample size as in the NCHS data presentation
    standards for proportions, Parker et al. 2017): the normal interval :math:`\hat p \pm z s`
    covers a rate near 0 or 1 badly with tens of labels (a score bin's labels: 89-92 % for a
    95 % interval at 20-69 labels in tests/delayed/test_ppi_bins_r13.py), the Wilson interval
    95-96 %. The cap gives up PPI's gain within a bin (small there: the scores of a bin
    vary little) and keeps a standard error that happens to be tiny from making the interval
    tiny. Each end is the modified Wilson one (:func:`modified_wilson`: Garwood's exact Poisson end where
    fewer than 10 effective events, :math:`\hat p n^*`, or non-events lie beyond it): Wilson's lower end is
    too high for a count of a few events, and a low score bin of calibrated scores (rates 0.002-0.03,
    40-300 labels, 0.1-1.5 expected events) had its expected rate below the lower end in 4.5-7.8 % of
    windows at a nominal 2.5 %; with Garwood's end 0-2.3 %, median widths 0-4 % more (seeded simulations
    of session 35, tests/delayed/test_ppi_bin_few_events_r35.py). In place and vectorised; NaN stays NaN.
    (A window's rate with few labels of one class uses :func:`rare_outcome_interval`: the same interval
    without the cap, only there.)"""
    ok, low, high = _wilson_at_estimate(out, n_labels, level, cap=True, modified=True)
    out["ci_low"] = np.where(ok, low, np.nan)
    out["ci_high"] = np.where(ok, high, np.nan)


def rare_outcome(n: Any, positives: Any) -> np.ndarray:
    r"""Where the labels hold fewer than :data:`EXACT_BELOW` of one class: :math:`\min(S, n - S) < 10` with
    :math:`S = \sum y` the positives of :math:`n` labels — for weighted labels :math:`n` their Kish size
    :math:`(\sum w)^2 / \sum w^2` and :math:`S = \bar y_w n` (equal weights: the counts themselves).
    Vectorised; False where either is not finite (NaN marks a quantity that is not a rate)."""
    n_, s = np.asarray(n, dtype=np.float64), np.asarray(positives, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.isfinite(n_) & np.isfinite(s) & (np.minimum(s, n_ - s) < EXACT_BELOW - 1e-9)


def rare_outcome_interval(out: dict[str, Any], n: Any, positives: Any, level: float) -> None:
    r"""Replace the (cut) normal interval of a window's PPI rate by the modified Wilson interval
    (:func:`modified_wilson`) where the unweighted labels hold fewer than :data:`EXACT_BELOW` of one class
    (:func:`rare_outcome`); elsewhere the normal interval :math:`\hat\theta \pm z s` stays, equal to
    ``ppi_py``'s.

    There, with :math:`\hat p` the PPI++ estimate cut to [0, 1] and :math:`s` its standard error,

    .. math:: n^* = \frac{\hat p (1 - \hat p)}{s^2}, \qquad
              \frac{\hat p + z^2 / (2 n^*)}{1 + z^2 / n^*} \pm \frac{z}{1 + z^2 / n^*}
              \sqrt{\frac{\hat p (1 - \hat p)}{n^*} + \frac{z^2}{4 n^{*2}}}

    (:math:`n^* = n`, the labels, where :math:`\hat p` is 0 or 1 or :math:`s` has no width): Wilson's
    score interval with PPI's effective number of labels — the labels alone would need :math:`n^*` of them
    for the standard error :math:`s` — not capped at :math:`n`, so informative scores keep PPI's gain; its
    lower end lowered to Garwood's exact Poisson bound :math:`\tfrac12\chi^2_{2x,(1-\text{level})/2} / n^*`
    where the effective count :math:`x = \hat p n^*` is below 10 (the upper end likewise for
    :math:`n^* - x`), the interval of the confusion shares (:func:`rare_share_interval`). Only
    labels all of one class cap it, :math:`n^* \le n`: their :math:`s` holds the scores' spread and none of
    the outcome's (with :math:`\lambda = 1`, 50 labels at a rate of 0.01 covered 83 % uncapped, as the
    labels alone would have: Wilson's interval for 0 of :math:`n`; power tuning already has
    :math:`\lambda = 0` there). The
    normal interval of a rare outcome is too short on the side away from 0 (the estimate's law is skewed):
    95 % intervals covered 88 % of true rates with 100 labels at a rate of 0.05, 89 % with 200 at 0.024,
    91-92 % with 400 at 0.02; Wilson's 95-97 % (seeded simulation in
    tests/delayed/test_ppi_rare_interval_r16b.py). Wilson's lower end is in turn too high for a few events
    (0.18 events for one seen, Brown, Cai & DasGupta 2001; Garwood's 0.025): with 0.5-2 expected labelled
    events of 100 the true rate fell below it in 4.9 % of windows at a nominal 2.5 % and 7.2-7.6 % at 5 %;
    Garwood's end 0.9-1.8 % and 1.6-3.7 %, median widths 0-6 % more (seeded simulation in
    tests/delayed/test_ppi_rare_rate_r24.py). It lies in [0, 1] and holds :math:`\hat p`. Weighted
    labels pass their Kish size as ``n`` and :math:`\bar y_w n` as ``positives`` (:func:`rare_outcome`): the
    rule and :math:`n^*` then read the weights' design effect through :math:`s`, as survey statistics does,
    and equal weights give the unweighted interval. In place and vectorised."""
    rare = rare_outcome(n, positives)
    if not rare.any():
        return
    s, n_ = np.asarray(positives, dtype=np.float64), np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        one_class = (s <= 1e-9 * n_) | (s >= n_ * (1.0 - 1e-9))
    ok, low, high = _wilson_at_estimate(out, n, level, cap=one_class, modified=True)
    use = rare & ok
    out["ci_low"] = np.where(use, low, np.asarray(out["ci_low"], dtype=np.float64))
    out["ci_high"] = np.where(use, high, np.asarray(out["ci_high"], dtype=np.float64))


def uneven_labels(sums: PpiSums) -> np.ndarray:
    """Where the labelled rows' weights are not all equal (their Kish size below their count, up to
    rounding)."""
    n = np.asarray(sums.n, dtype=np.float64)
    w, w2 = np.asarray(sums.w, dtype=np.float64), np.asarray(sums.w2, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.asarray(w * w < n * w2 * (1.0 - 1e-12))


def weighted_rate_interval(out: dict[str, Any], sums: PpiSums, level: float, top: Any = 1.0,
                           binary: Any = False) -> None:
    r"""Widen the interval of a window's PPI rate (``out`` of :func:`ppi_from_sums`, already cut to [0, 1] and
    taken through :func:`rare_outcome_interval`) where the labelled rows' weights are uneven: to the hull of
    it and the modified Wilson interval (:func:`modified_wilson`) at the estimate :math:`\hat p` (cut to
    [0, 1]) with

    .. math:: n^* = \min\Big(\frac{\hat p (1 - \hat p)}{s^2},\ n_{\text{eff}}\,\frac{s_c^2}{s^2}\Big),

    :math:`s` PPI's standard error, :math:`s_c` the labels' own (the weighted mean's linearised standard
    error :math:`\sqrt{\sum \omega_i^2 (y_i - \bar y_w)^2}`) and :math:`n_{\text{eff}} = (\sum w)^2 /
    \sum w^2` their Kish size: PPI's effective labels scaled by its gain over the labels alone,
    :math:`s_c^2 / s^2`, counted from the Kish size — the survey statistician's design-effect reading
    (Kish 1965; Korn & Graubard 1998), which does not depend on which labels drew the heavy weights.
    Uneven weights skew the weighted mean and its linearised variance together: a window whose heavy labels
    happen to be negatives gets an estimate and a standard error both too low, so :math:`\hat p \pm z s`
    fell short of its level however large the Kish size — 95 % intervals with log-normal weights covered
    85-93 % of true rates at Kish sizes 80-1000 and rates 0.07-0.48 (both sides weighted, or only the labels
    as an importance-weighted audit; weights independent of the risk or rising with it); with this interval
    93-100 %, but for 0.91 where only the labels are weighted, their weights rising with the risk, at a rate
    of
    0.33 and a Kish size of 80 (400 windows a cell; the narrow side of the old interval is never kept: the
    hull), with medians 0-50 % wider, most at rare outcomes and small Kish sizes (seeded simulation in
    tests/delayed/test_ppi_weighted_coverage_r28.py). Equal labelled
    weights keep the interval as it is (the unweighted one, bit for bit). ``top``: the mean of a target in
    :math:`[0, \text{top}]` instead of a rate (vc.ppi_audit's confusion shares, top 1, and cost per row, top
    :math:`\max(c_{FP}, c_{FN})`; :func:`~veracity.delayed._audit.confusion_intervals`): the rule on
    :math:`\hat\theta / \text{top}`, :math:`s / \text{top}` and :math:`s_c / \text{top}` (a target in
    [0, 1] of mean :math:`p` has variance at most :math:`p(1 - p)`), the Wilson ends times top.

    ``binary`` (a bool or an array like the estimates; vc.ppi_audit's shares TP ... TN, whose targets are 0 or
    1): there :math:`n^*` is further capped so that the interval's effective events :math:`\hat p\,n^*` and
    non-events :math:`(1 - \hat p)\,n^*` are no more than the Kish sizes of the labelled rows with and
    without the event, :math:`K_1 = (\sum_{t=1} w)^2 / \sum_{t=1} w^2` and :math:`K_0` likewise (the sums
    ``wy``, ``w2y`` and ``w - wy``, ``w2 - w2y``):

    .. math:: n^* \le \min\big(K_1 / \hat p,\ K_0 / (1 - \hat p)\big)

    (a side with no labelled rows sets no cap). A weighted share is :math:`W_1 / (W_1 + W_0)`, each sum as
    variable and as skewed as the :math:`K` rows its weights amount to; where the weights sit on one side
    (weights rising with the risk sit on the positives and the flagged rows, so on the complement of TN)
    that side's few effective rows skew the share (a window short of them reads it too far from them with a
    standard error too small), which the pooled :math:`n^*` above (both sides and the scores' gain in one
    variance) does not see: 95 % intervals of TN covered 0.90-0.95 with log-normal weights of sigma 1-1.5
    whose log is correlated 0.5-0.8 with the risk (Kish sizes 100-1000, rates 0.05-0.3, TN shares 0.41-0.89,
    600 windows a design; 0.89-0.90 over 1,000 at sigma 1.5 and a Kish size of 300), missing from above;
    with the cap 0.94-1.00, TP, FP and FN 0.93-1.00 (as before), median widths of TN 1.1-1.4 times
    the old, of the others 1.0-1.3 (FP 1.7 where only the labels are weighted, at an FP share of 0.03: the
    cap gives up PPI's gain on the capped side). Seeded simulations of session 29; the designs of
    tests/delayed/test_ppi_tn_share_weighted_r29.py, which checks two of them. In place and vectorised; NaN
    stays NaN."""
    uneven = uneven_labels(sums)
    if not np.any(uneven):
        return
    top_ = np.asarray(top, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # on the scale of a rate (top 1: the values themselves, bit for bit)
        est, se = (np.asarray(out[k], dtype=np.float64) / top_ for k in ("estimate", "se"))
        se_c = np.asarray(out["classical_se"], dtype=np.float64) / top_
        size = np.asarray(sums.w, dtype=np.float64) ** 2 / np.asarray(sums.w2, dtype=np.float64)
        ok = (np.isfinite(est) & np.isfinite(se) & np.isfinite(size) & (size > 0) & (se >= NO_SPREAD)
              & np.isfinite(top_) & (top_ > 0))
        p = np.where(ok, np.clip(est, 0.0, 1.0), 0.5)
        s2 = np.where(ok, se * se, 1.0)
        n_star = np.fmin(p * (1.0 - p) / s2, np.where(np.isfinite(se_c), size * se_c * se_c / s2, np.nan))
        two = np.asarray(binary, dtype=bool)
        if np.any(two):  # 0/1 targets: no more effective events (non-events) than labels with (without) one
            w, w2 = np.asarray(sums.w, dtype=np.float64), np.asarray(sums.w2, dtype=np.float64)
            wy, w2y = np.asarray(sums.wy, dtype=np.float64), np.asarray(sums.w2y, dtype=np.float64)
            k1, k0 = wy * wy / w2y, (w - wy) ** 2 / (w2 - w2y)
            cap = np.fmin(np.where(np.isfinite(k1) & (k1 > 0), k1 / p, np.inf),
                          np.where(np.isfinite(k0) & (k0 > 0), k0 / (1.0 - p), np.inf))
            n_star = np.where(two, np.fmin(n_star, cap), n_star)
    use = uneven & ok & np.isfinite(n_star) & (n_star > 0)
    if not np.any(use):
        return
    low, high = modified_wilson(p, np.where(use, n_star, 1.0), level)
    low, high = low * top_, high * top_
    lo_, hi_ = np.asarray(out["ci_low"], dtype=np.float64), np.asarray(out["ci_high"], dtype=np.float64)
    out["ci_low"] = np.where(use, np.fmin(lo_, low), lo_)
    out["ci_high"] = np.where(use, np.fmax(hi_, high), hi_)


def weighted_score_interval(out: dict[str, Any], sums: PpiSums, level: float) -> None:
    r"""Widen the interval of a window's PPI rate (``out`` of :func:`ppi_from_sums` with its ``lam``, after
    :func:`weighted_rate_interval`) where the labelled rows' weights are uneven: to the hull of it and the
    score interval of the rate under the scores' Bernoulli model — the rates :math:`p = \bar f + \delta`
    not rejected when each labelled row's outcome is read as Bernoulli(:math:`f_i + \delta`) and the rows
    as drawn at random,

    .. math:: (\hat\delta - \delta)^2 \le z^2 \Big(\sum \omega_i^2 (f_i + \delta)(1 - f_i - \delta)
              + (1 - \lambda)^2 \sum \omega_i^2 (f_i - \bar f)^2
              + \lambda^2 \sum \nu_j^2 (g_j - \bar g)^2\Big),

    :math:`\hat\delta = \hat\theta - \bar f`, :math:`\omega = w / \sum w`, :math:`\nu = u / \sum u`,
    :math:`\bar f`, :math:`\bar g` the weighted means of the labelled and unlabelled scores and
    :math:`\lambda` PPI's: under that model :math:`\hat\theta = \sum \omega_i (y_i - \lambda f_i) + \lambda
    \bar g` has the labels' Bernoulli variance (the first sum, as in :func:`weighted_gap_interval`) and the
    rows' sampling variance of :math:`(1 - \lambda) f` and :math:`\lambda g` (the other two). With
    :math:`a = \sum \omega_i^2`, :math:`b_1 = \sum \omega_i^2 f_i`, :math:`b_2 = \sum \omega_i^2 f_i^2` and
    :math:`C` the last two sums, the roots of :math:`(1 + z^2 a)\delta^2 - (2\hat\delta + z^2(a - 2 b_1))
    \delta + \hat\delta^2 - z^2 (b_1 - b_2 + C) = 0`; kept only where the variance at :math:`\hat\delta` is
    not negative (the interval then holds the estimate), cut to [0, 1].

    Its spread comes from the scores and the weights, not from the labels. With log-normal weights rising
    with the risk, the heavy rows are the risky ones, and a window whose heavy risky labels happen to come out
    negative reads the rate too low with a standard error too small (PPI's, the labels' own and their Kish
    size alike: its weights look less uneven); the scores of those rows still say they are risky. 95 %
    intervals of :func:`weighted_rate_interval` covered 0.905-0.938 of true rates over five seeds of 1,000
    windows with log-normal weights of sigma 1.5 whose log is correlated 0.8 with the risk (both sides
    weighted, Kish size 300, rate 0.05: a weighted rate of 0.19), 0.928-0.956 at a correlation of 0.5,
    missing from above; with this hull 0.930-0.960 (0.944 pooled) and 0.955-0.971, the median width unchanged
    (the widest tenth of windows 1.2-1.3 times wider). Its variance is at most about :math:`a\,p(1 - p) + C`
    (Jensen's inequality), the labels' own Wilson variance at the Kish size plus the scores' sampling: scores
    that are not calibrated give up PPI's gain at most. Seeded simulations of session 29, the designs of
    tests/delayed/test_ppi_rate_weighted_r29.py. Equal labelled weights keep the interval as it is (the
    unweighted one, bit for bit). In place and vectorised; NaN stays NaN."""
    uneven = uneven_labels(sums)
    if not np.any(uneven):
        return
    z = z_of(level)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a, b1, b2 = _score_moments(sums)
        fbar, v_f = _wmean_var(sums.w, sums.wf, sums.w2f, sums.w2ff, sums.w2)
        _, v_g = _wmean_var(sums.wu, sums.wuf, sums.wu2f, sums.wu2ff, sums.wu2)
        lam = np.asarray(out["lam"], dtype=np.float64)
        v_g = np.where(np.asarray(sums.m, dtype=np.float64) > 0, v_g, 0.0)  # no unlabelled rows: lambda 0
        c = (1.0 - lam) ** 2 * v_f + lam * lam * v_g
        d = np.asarray(out["estimate"], dtype=np.float64) - fbar
        at_d = (b1 - b2) + d * (a - 2.0 * b1) - a * d * d + c  # the variance at the estimate
        low, high = _score_roots(d, a, b1, b2, z, c)
        low, high = fbar + low, fbar + high
    lo_, hi_ = np.asarray(out["ci_low"], dtype=np.float64), np.asarray(out["ci_high"], dtype=np.float64)
    use = (uneven & np.isfinite(low) & np.isfinite(high) & np.isfinite(at_d) & (at_d >= 0.0)
           & np.isfinite(lo_) & np.isfinite(hi_))
    if not np.any(use):
        return
    out["ci_low"] = np.where(use, np.fmax(np.fmin(lo_, low), 0.0), lo_)
    out["ci_high"] = np.where(use, np.fmin(np.fmax(hi_, high), 1.0), hi_)


def weighted_gap_interval(out: dict[str, Any], sums: PpiSums, level: float) -> None:
    r"""Widen the interval of a window's gap rate − score (the rectifier :math:`\hat d = \sum \omega_i (y_i -
    f_i)`, :math:`\omega = w / \sum w`; ``out`` of :func:`ppi_from_sums`) where the labelled rows' weights are
    uneven: to the hull of its normal interval :math:`\hat d \pm z s_d` and the score interval — the gaps
    :math:`\delta` not rejected when each labelled row's outcome is read as Bernoulli(:math:`f_i + \delta`),

    .. math:: (\hat d - \delta)^2 \le z^2 V(\delta), \qquad
              V(\delta) = \sum \omega_i^2 (f_i + \delta)(1 - f_i - \delta)
              = (b_1 - b_2) + \delta (a - 2 b_1) - a \delta^2,

    :math:`a = \sum \omega_i^2`, :math:`b_1 = \sum \omega_i^2 f_i`, :math:`b_2 = \sum \omega_i^2 f_i^2` (the
    sums ``w2``, ``w2f``, ``w2ff`` over :math:`(\sum w)^2`): the roots of
    :math:`(1 + z^2 a)\delta^2 - (2 \hat d + z^2 (a - 2 b_1))\delta + \hat d^2 - z^2 (b_1 - b_2) = 0`.
    This is Wilson's interval of the labels' own rate minus their known mean score, with the weights' design
    effect: with equal scores :math:`f_i = \bar f` it is Wilson's interval for :math:`\bar y_w` at the Kish
    size, less :math:`\bar f`. Its spread comes from the scores and the weights, not from the labels, so it
    is not skewed with the estimate: uneven weights skew the weighted gap and its linearised standard error
    :math:`s_d` together (a window whose heavy labels happen to be negatives gets a gap too low and an
    :math:`s_d` too small), and calibrated scores were judged not calibrated well above the level (seeded
    simulation in tests/delayed/test_ppi_gap_weighted_r28.py). At 0 it is the score test of calibration,
    :math:`\hat d^2 \le z^2 \sum \omega_i^2 f_i (1 - f_i)`. Equal labelled weights keep the normal interval
    (the unweighted one, bit for bit). In place and vectorised; NaN stays NaN."""
    uneven = uneven_labels(sums)
    if not np.any(uneven):
        return
    z = z_of(level)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a, b1, b2 = _score_moments(sums)
        d = np.asarray(out["rectifier"], dtype=np.float64)
        low, high = _score_roots(d, a, b1, b2, z)
    use = uneven & np.isfinite(low) & np.isfinite(high) & np.isfinite(d)
    if not np.any(use):
        return
    lo_, hi_ = (np.asarray(out[k], dtype=np.float64) for k in ("rectifier_low", "rectifier_high"))
    out["rectifier_low"] = np.where(use, np.fmax(np.fmin(lo_, low), -1.0), lo_)
    out["rectifier_high"] = np.where(use, np.fmin(np.fmax(hi_, high), 1.0), hi_)


def _score_moments(sums: PpiSums) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r""":math:`a = \sum \omega_i^2`, :math:`b_1 = \sum \omega_i^2 f_i`, :math:`b_2 = \sum \omega_i^2 f_i^2` over the
    labelled rows, :math:`\omega = w / \sum w` (the sums ``w2``, ``w2f``, ``w2ff`` over :math:`(\sum w)^2`):
    the score intervals' variance under the scores' Bernoulli model (call under ``np.errstate``)."""
    w = np.asarray(sums.w, dtype=np.float64)
    return (np.asarray(sums.w2, dtype=np.float64) / (w * w), np.asarray(sums.w2f, dtype=np.float64) / (w * w),
            np.asarray(sums.w2ff, dtype=np.float64) / (w * w))


def _score_roots(d: np.ndarray, a: np.ndarray, b1: np.ndarray, b2: np.ndarray, z: float,
                 c: Any = 0.0) -> tuple[np.ndarray, np.ndarray]:
    r"""The shifts :math:`\delta` with :math:`(d - \delta)^2 \le z^2 [(b_1 - b_2) + \delta (a - 2 b_1) - a \delta^2
    + c]`: the roots of :math:`(1 + z^2 a)\delta^2 - (2d + z^2 (a - 2 b_1))\delta + d^2 - z^2 (b_1 - b_2 + c) = 0`
    (a negative discriminant read as 0). Vectorised; the score intervals of the gap (:math:`c = 0`) and of
    the rate (:math:`c` the scores' own sampling variance)."""
    qa = 1.0 + z * z * a
    qb = 2.0 * d + z * z * (a - 2.0 * b1)
    qc = d * d - z * z * (b1 - b2 + c)
    disc = np.sqrt(np.maximum(qb * qb - 4.0 * qa * qc, 0.0))
    return (qb - disc) / (2.0 * qa), (qb + disc) / (2.0 * qa)


def rare_share_interval(out: dict[str, Any], rare: Any, se: Any, size: Any, level: float,
                        top: Any = 1.0) -> None:
    r"""Replace the interval of a PPI mean of a target in :math:`[0, \text{top}]` (a confusion share, top 1; a
    cost per row, top :math:`\max(c_{FP}, c_{FN})`) by the modified Wilson interval (:func:`modified_wilson`)
    at the estimate where ``rare``; elsewhere the normal interval stays.

    With :math:`\hat p = \hat\theta / \text{top}` (cut to [0, 1]) and :math:`s` = ``se`` / top, the
    interval is top × the modified Wilson interval of :math:`\hat p` with :math:`n^* = \hat p(1 - \hat p)
    / s^2` trials (:math:`n^*` = ``size``, the labels or their Kish size, where :math:`\hat p` is 0 or 1 or
    :math:`s` has no width). The caller passes the standard error to use (:func:`~veracity.delayed._audit.
    confusion_intervals`: PPI's, or more where its labels show too few events to estimate it). The end toward
    the nearer bound of 10 or more effective events is the exact binomial one where further out
    (``modified_wilson(..., exact_end=True)``): a share with few labelled events of its kind can still read
    10-40 effective events (PPI's gain), where Wilson's end toward 0 missed from below in up to 4.6 % of
    windows at a nominal 2.5 % (FP of the first design of tests/delayed/test_ppi_confusion_coverage_r23.py;
    TP 3.6 % with 8 expected labelled events of 400), 2.9 % and 2.4 % with the exact end, median widths 0-5 %
    more (seeded simulations of session 35, tests/delayed/test_ppi_share_exact_end_r35.py). In place and
    vectorised; NaN stays NaN."""
    rare = np.asarray(rare, dtype=bool)
    if not rare.any():
        return
    top = np.asarray(top, dtype=np.float64)
    est, se_ = np.asarray(out["estimate"], dtype=np.float64), np.asarray(se, dtype=np.float64)
    size_ = np.asarray(size, dtype=np.float64)
    ok = np.isfinite(est) & np.isfinite(se_) & np.isfinite(size_) & (size_ > 0) & (top > 0)
    p = np.where(ok, np.clip(est / np.where(ok, top, 1.0), 0.0, 1.0), 0.5)
    s = np.where(ok, se_ / np.where(ok, top, 1.0), 1.0)
    n_safe = np.where(ok, size_, 1.0)
    spread = (s >= NO_SPREAD) & (p > 0.0) & (p < 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        n_star = np.where(spread, p * (1.0 - p) / (s * s), n_safe)
    n_star = np.where(np.isfinite(n_star) & (n_star > 0), n_star, n_safe)
    low, high = modified_wilson(p, n_star, level, exact_end=True)
    use = rare & ok
    out["ci_low"] = np.where(use, low * top, np.asarray(out["ci_low"], dtype=np.float64))
    out["ci_high"] = np.where(use, high * top, np.asarray(out["ci_high"], dtype=np.float64))


def check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0.0 < level < 1.0:
        raise VeracityError(f"level must be a number strictly between 0 and 1, e.g. 0.95; got {level!r}")
    return float(level)


def z_of(level: float) -> float:
    return float(ndtri(1.0 - (1.0 - level) / 2.0))


# -- the sums -----------------------------------------------------------------------------
_LAB = ("n", "w", "w2", "wy", "wf", "wff", "wyf", "w2y", "w2f", "w2yy", "w2yf", "w2ff")
_UNL = ("m", "wu", "wu2", "wuf", "wuff", "wu2f", "wu2ff")


@dataclass(frozen=True, eq=False)
class PpiSums:
    r"""The sums one window (or an array of windows) needs for PPI, CBPE and the rectifier.

    Labelled rows (weights :math:`w`, labels :math:`y`, scores :math:`f`): ``n`` (rows),
    ``w`` :math:`\sum w`, ``w2`` :math:`\sum w^2`, ``wy``, ``wf``, ``wff``, ``wyf``
    (:math:`\sum w y`, …), ``w2y``, ``w2f``, ``w2yy``, ``w2yf``, ``w2ff`` (:math:`\sum w^2 y`,
    …). Unlabelled rows (weights :math:`u`, scores :math:`g`): ``m`` (rows), ``wu``, ``wu2``,
    ``wuf``, ``wuff``, ``wu2f``, ``wu2ff``. Unweighted every weight is 1, so
    :meth:`from_counts` needs only eight of them. Each field is a float or an array
    (one entry per window); merging two disjoint sets of rows is adding their sums.
    """

    n: Any
    w: Any
    w2: Any
    wy: Any
    wf: Any
    wff: Any
    wyf: Any
    w2y: Any
    w2f: Any
    w2yy: Any
    w2yf: Any
    w2ff: Any
    m: Any
    wu: Any
    wu2: Any
    wuf: Any
    wuff: Any
    wu2f: Any
    wu2ff: Any

    @classmethod
    def from_counts(cls, *, n: Any, sum_y: Any, sum_f: Any, sum_ff: Any, sum_yf: Any, m: Any, sum_fu: Any,
                    sum_ffu: Any, sum_yy: Any = None) -> PpiSums:
        r"""Unweighted sums: labelled ``n``, :math:`\sum y`, :math:`\sum f`, :math:`\sum f^2`,
        :math:`\sum yf`; unlabelled ``m``, :math:`\sum g`, :math:`\sum g^2`
        (:math:`\sum y^2 = \sum y` for 0/1 labels unless ``sum_yy`` is given)."""
        a = {k: np.asarray(v, dtype=np.float64) for k, v in {
            "n": n, "sum_y": sum_y, "sum_f": sum_f, "sum_ff": sum_ff, "sum_yf": sum_yf, "m": m, "sum_fu": sum_fu,
            "sum_ffu": sum_ffu}.items()}
        yy = a["sum_y"] if sum_yy is None else np.asarray(sum_yy, dtype=np.float64)
        return cls(n=a["n"], w=a["n"], w2=a["n"], wy=a["sum_y"], wf=a["sum_f"], wff=a["sum_ff"],
                   wyf=a["sum_yf"], w2y=a["sum_y"], w2f=a["sum_f"], w2yy=yy, w2yf=a["sum_yf"],
                   w2ff=a["sum_ff"], m=a["m"], wu=a["m"], wu2=a["m"], wuf=a["sum_fu"], wuff=a["sum_ffu"],
                   wu2f=a["sum_fu"], wu2ff=a["sum_ffu"])

    @classmethod
    def of(cls, y: np.ndarray, f: np.ndarray, g: np.ndarray, w: np.ndarray | None = None,
           u: np.ndarray | None = None) -> PpiSums:
        """The sums of checked arrays (labels ``y`` may be any real values)."""
        if w is None:
            lab = {"n": y.size, "w": y.size, "w2": y.size, "wy": y.sum(), "wf": f.sum(), "wff": f @ f, "wyf": y @ f}
            lab.update(w2y=lab["wy"], w2f=lab["wf"], w2yy=y @ y, w2yf=lab["wyf"], w2ff=lab["wff"])
        else:
            wy, wf = w * y, w * f
            lab = {"n": y.size, "w": w.sum(), "w2": w @ w, "wy": wy.sum(), "wf": wf.sum(), "wff": wf @ f, "wyf": wy @ f,
                       "w2y": wy @ w, "w2f": wf @ w, "w2yy": wy @ wy, "w2yf": wy @ wf, "w2ff": wf @ wf}
        if u is None:
            unl = {"m": g.size, "wu": g.size, "wu2": g.size, "wuf": g.sum(), "wuff": g @ g}
            unl.update(wu2f=unl["wuf"], wu2ff=unl["wuff"])
        else:
            ug = u * g
            unl = {"m": g.size, "wu": u.sum(), "wu2": u @ u, "wuf": ug.sum(), "wuff": ug @ g, "wu2f": ug @ u, "wu2ff": ug @ ug}
        return cls(**{k: np.float64(v) for k, v in {**lab, **unl}.items()})

    def __add__(self, other: PpiSums) -> PpiSums:
        return PpiSums(**{k: np.add(getattr(self, k), getattr(other, k)) for k in _LAB + _UNL})


def _wmean_var(s1: Any, s: Any, w2x: Any, w2xx: Any, w2: Any) -> tuple[Any, Any]:
    r"""Weighted mean :math:`\bar x = \sum wx / \sum w` and its linearised variance
    :math:`\sum w^2 (x - \bar x)^2 / (\sum w)^2` from the sums."""
    mean = s / s1
    var = (w2xx - 2.0 * mean * w2x + mean * mean * w2) / (s1 * s1)
    return mean, np.maximum(var, 0.0)


def tuning_terms(S: PpiSums) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The parts of PPI++'s power-tuning :math:`\lambda = \widehat{\mathrm{Cov}}(y, f) /
    ((1 + n_{\text{eff}}/m_{\text{eff}})\,\widehat{\mathrm{Var}}(f))`: ``(cov, var_all, ratio)``, the labelled
    rows' weighted covariance of target and score, the variance of all :math:`n + m` scores (each sample's
    weights scaled to mean 1, ppi_py's convention) and :math:`n_{\text{eff}}/m_{\text{eff}}` (Kish sizes;
    infinite without unlabelled rows). Call under ``np.errstate(divide="ignore", invalid="ignore")``."""
    n, m = np.asarray(S.n, dtype=np.float64), np.asarray(S.m, dtype=np.float64)
    fbar = S.wf / S.w
    gbar = np.where(m > 0, S.wuf / S.wu, 0.0)
    cov = S.wyf / S.w - (S.wy / S.w) * fbar
    sf, sff = n * fbar, n * S.wff / S.w
    sg = np.where(m > 0, m * gbar, 0.0)
    sgg = np.where(m > 0, m * S.wuff / S.wu, 0.0)
    tot = n + m
    var_all = (sff + sgg - (sf + sg) ** 2 / tot) / (tot - 1.0)
    ratio = (S.w * S.w / S.w2) / np.where(m > 0, S.wu * S.wu / S.wu2, 0.0)
    return cov, var_all, ratio


#: scores whose standard deviation is at most this share of their root mean square are constant up to rounding
#: (about 16 float32 rounding units of a score): their variance is the sums' rounding noise, and so is the
#: power-tuning lambda read from it (constant scores of 0.4 gave Cov 8e-17 / Var 1e-16, "lambda 0.976")
FLAT_SCORES = 1e-6


def flat_scores(S: PpiSums, var_all: Any = None) -> np.ndarray:
    r"""Where the scores of all :math:`n + m` rows carry no information: their variance (:func:`tuning_terms`'
    ``var_all``) at most :math:`(\mathrm{FLAT\_SCORES})^2` times their mean square
    :math:`(\sum_{	ext{labelled}} f^2 + \sum_{	ext{unlabelled}} g^2) / (n + m)` (each sample's weights scaled
    to mean 1) — rounding level, where :math:`\widehat{\mathrm{Cov}}(y, f) / \widehat{\mathrm{Var}}(f)` is a
    ratio of rounding errors. Power tuning then takes :math:`\lambda = 0`: with constant scores
    :math:`c` the estimate :math:`\lambda c + \overline{(y - \lambda c)}` is the labels' mean at every
    :math:`\lambda`, so only the noise in the printed :math:`\lambda` goes. ``var_all``: that variance where
    the caller has it already (:func:`ppi_from_sums`), so that it is not computed twice."""
    with np.errstate(divide="ignore", invalid="ignore"):
        n, m = np.asarray(S.n, dtype=np.float64), np.asarray(S.m, dtype=np.float64)
        if var_all is None:
            _, var_all, _ = tuning_terms(S)
        sff = n * S.wff / S.w
        sgg = np.where(m > 0, m * S.wuff / S.wu, 0.0)
        mean_sq = (sff + sgg) / (n + m)
        return np.asarray(var_all <= FLAT_SCORES * FLAT_SCORES * mean_sq)


def weighted_lambda(S: PpiSums) -> np.ndarray:
    r"""The :math:`\lambda` that minimises the linearised variance of weighted PPI,
    :math:`\sum \omega_i^2 ((y_i - \bar y) - \lambda (f_i - \bar f))^2
    + \lambda^2 \sum \nu_j^2 (g_j - \bar g)^2` (:math:`\omega = w / \sum w`, :math:`\nu = u / \sum u`,
    weighted means): :math:`\lambda = V_{yf} / (V_{ff} + V_g)`, each :math:`V` the :math:`\omega^2`- (or
    :math:`\nu^2`-) weighted sum of products of deviations, from the sums (unclipped). With equal weights
    this is :math:`\mathrm{Cov}(y, f) / (\mathrm{Var}(f) + (n/m) \mathrm{Var}(g))`, within rounding of
    ppi_py's :math:`\mathrm{Cov}(y, f) / ((1 + n/m)\mathrm{Var}(f \cup g))`, which :func:`ppi_from_sums`
    keeps there; with uneven weights the weighted form of ppi_py's (:func:`tuning_terms`) chose a
    :math:`\lambda` whose standard error was 0.5 % above the smallest in the median window and up to 15 %
    above it (log-normal weights; tests/delayed/test_weighted_lambda_r27.py).
    Call under ``np.errstate(divide="ignore", invalid="ignore")``."""
    vyf, v = weighted_lambda_terms(S)
    return np.asarray(vyf / v, dtype=np.float64)


def uneven_weights(S: PpiSums) -> np.ndarray:
    """Where either side's weights are not all equal (Kish size below the count of rows)."""
    n, m = np.asarray(S.n, dtype=np.float64), np.asarray(S.m, dtype=np.float64)
    return np.asarray((S.w * S.w < n * S.w2 * (1.0 - 1e-12)) | (S.wu * S.wu < m * S.wu2 * (1.0 - 1e-12)))


def weighted_lambda_terms(S: PpiSums) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`(V_{yf}, V_{ff} + V_g)` of :func:`weighted_lambda` (the numerator and the denominator, so that
    a vector of means sums them before dividing: :func:`~veracity.delayed._audit.shared_lambda`)."""
    m = np.asarray(S.m, dtype=np.float64)
    ybar, fbar = S.wy / S.w, S.wf / S.w
    vyf = (S.w2yf - fbar * S.w2y - ybar * S.w2f + ybar * fbar * S.w2) / (S.w * S.w)
    vff = (S.w2ff - 2.0 * fbar * S.w2f + fbar * fbar * S.w2) / (S.w * S.w)
    _, vg = _wmean_var(S.wu, S.wuf, S.wu2f, S.wu2ff, S.wu2)
    return np.asarray(vyf, dtype=np.float64), np.asarray(vff + np.where(m > 0, vg, 0.0), dtype=np.float64)


def ppi_from_sums(sums: PpiSums, *, level: float = 0.95, power_tuning: bool = True,
                  lam: Any = None) -> dict[str, np.ndarray]:
    r"""PPI++, classical, CBPE and rectifier estimates from :class:`PpiSums` (vectorised).

    Returns arrays keyed ``estimate, se, ci_low, ci_high, lam, classical, classical_se,
    cbpe, cbpe_se, rectifier, rectifier_se`` (and the ``_low``/``_high`` of each). A window
    with fewer than 2 labelled rows gives NaN; one with no unlabelled row gives the
    classical estimate (:math:`\lambda = 0`). ``lam`` fixes :math:`\lambda` (overrides tuning).
    """
    level = check_level(level)
    z = z_of(level)
    S = sums
    with np.errstate(divide="ignore", invalid="ignore"):
        n, m = np.asarray(S.n, dtype=np.float64), np.asarray(S.m, dtype=np.float64)
        gbar = np.where(m > 0, S.wuf / S.wu, 0.0)
        if lam is not None:
            lam_ = np.broadcast_to(np.asarray(lam, dtype=np.float64), np.shape(n)).copy()
        elif not power_tuning:
            lam_ = np.ones_like(n)
        else:
            cov, var_all, ratio = tuning_terms(S)
            lam_ = cov / ((1.0 + ratio) * var_all)
            # uneven weights (either side): the lambda that minimises the linearised variance reported below
            uneven = uneven_weights(S)
            if np.any(uneven):
                lam_ = np.where(uneven, weighted_lambda(S), lam_)
            lam_ = np.where(np.isfinite(lam_), np.clip(lam_, 0.0, 1.0), 0.0) + 0.0  # + 0.0: no -0.000 printed
            # scores constant up to rounding: lambda 0, not a ratio of rounding errors (the same estimate)
            lam_ = np.where(flat_scores(S, var_all), 0.0, lam_)
        lam_ = np.where(m > 0, lam_, 0.0)
        # rectifier y - lam f over the labelled rows
        r_s = S.wy - lam_ * S.wf
        r_w2x = S.w2y - lam_ * S.w2f
        r_w2xx = S.w2yy - 2.0 * lam_ * S.w2yf + lam_ * lam_ * S.w2ff
        rbar, r_var = _wmean_var(S.w, r_s, r_w2x, r_w2xx, S.w2)
        _, g_var = _wmean_var(S.wu, S.wuf, S.wu2f, S.wu2ff, S.wu2)
        g_var = np.where(m > 0, g_var, 0.0)
        est = lam_ * gbar + rbar
        se = np.sqrt(r_var + lam_ * lam_ * g_var)
        classical, c_var = _wmean_var(S.w, S.wy, S.w2y, S.w2yy, S.w2)
        rect, rect_var = _wmean_var(S.w, S.wy - S.wf, S.w2y - S.w2f, S.w2yy - 2.0 * S.w2yf + S.w2ff, S.w2)
        # CBPE: the weighted mean score of all rows; Poisson-binomial spread under calibration
        tw = S.w + S.wu
        cbpe = (S.wf + S.wuf) / tw
        cbpe_var = np.maximum((S.w2f - S.w2ff + S.wu2f - S.wu2ff) / (tw * tw), 0.0)
        few = n < 2
        out = {"estimate": est, "se": se, "lam": lam_, "classical": classical, "classical_se": np.sqrt(c_var),
               "rectifier": rect, "rectifier_se": np.sqrt(rect_var), "cbpe": cbpe, "cbpe_se": np.sqrt(cbpe_var)}
        for k in ("estimate", "se", "lam", "classical", "classical_se", "rectifier", "rectifier_se"):
            out[k] = np.where(few, np.nan, out[k])
        for name, sd in (("", "se"), ("classical", "classical_se"), ("rectifier", "rectifier_se"),
                         ("cbpe", "cbpe_se")):
            centre = out[name or "estimate"]
            prefix = f"{name}_" if name else "ci_"
            out[f"{prefix}low"] = centre - z * out[sd]
            out[f"{prefix}high"] = centre + z * out[sd]
    return out
