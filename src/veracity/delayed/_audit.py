r"""Prediction-powered audit of a window: rate, calibration-in-the-large, per-bin rates, confusion, cost.

Every quantity is a mean over rows of a *target* that needs the label, :math:`t(y, f)`,
with a label-free *prediction* :math:`h(f) = \mathrm{E}[t \mid f]` under calibration —
CBPE's expected value. PPI++ (:func:`~veracity.delayed._ppi.ppi_from_sums`) combines the
two for each quantity; all of them go through one vectorised call. The rate and each bin tune their
own :math:`\lambda`; the shares TP ... TN and the cost share one (:func:`shared_lambda`), so that the
shares add up to 1 and the cost is :math:`c_{FP}\,\mathrm{FP} + c_{FN}\,\mathrm{FN}`, a share below
0 moved onto the simplex with the others (:func:`onto_shares`).

==========================  ===============================  =================================
quantity                    target :math:`t`                 prediction :math:`h`
==========================  ===============================  =================================
rate                        :math:`y`                        :math:`f`
TP / FP per row (flag       :math:`y a` / :math:`(1-y) a`     :math:`f a` / :math:`(1-f) a`
:math:`a = [f \ge t]`)
FN / TN per row             :math:`y(1-a)` / :math:`(1-y)(1-a)`  :math:`f(1-a)` / :math:`(1-f)(1-a)`
cost per row                :math:`c_{FP}(1-y)a + c_{FN}y(1-a)`  :math:`c_{FP}(1-f)a + c_{FN}f(1-a)`
rate in score bin k         :math:`y` on the bin's rows      :math:`f` on the bin's rows
==========================  ===============================  =================================

Calibration-in-the-large (rate − mean score) is the rectifier :math:`\overline{y - f}` over
the labelled rows: its own PPI (the label-free prediction of :math:`y - f` is 0). A bin's
rate is PPI restricted to the bin's rows — a random audit sample stays random within
any score range — with the (modified: Garwood's end below 10 effective events) Wilson interval at the PPI
estimate with an effective number of labels (:func:`~veracity.delayed._ppi_sums.wilson_rate_interval`): a
bin holds tens of labels and its rate is often near 0 or 1, where the normal interval covers badly
(89-92 % for a 95 % interval at 20-69 labels in the seeded simulation of tests/delayed/test_ppi_bins_r13.py; the
Wilson interval 95-96 %). Other rows keep the normal interval, cut at their range — except the rate
with fewer than 10 labels of one class (weighted labels by their Kish size), which takes
:func:`~veracity.ppi_mean`'s interval for rare outcomes
(:func:`~veracity.delayed._ppi_sums.rare_outcome_interval`), and the shares TP ... TN and the cost where
the labels show fewer than 10 events of one kind in the quantity's group of rows (flagged: TP, FP; not
flagged: FN, TN), which take :func:`confusion_intervals`. Uneven labelled weights widen the rate's, the
shares' and the cost's intervals as :func:`~veracity.ppi_mean` widens its rate's
(:func:`~veracity.delayed._ppi_sums.weighted_rate_interval`; the rate's interval is ppi_mean's), and the
interval of rate − score as ppi_mean widens its rectifier's
(:func:`~veracity.delayed._ppi_sums.weighted_gap_interval`), which judges calibration. Intervals are
pointwise at ``level`` (one per
row of the table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._binning import bin_index, enough_effective, is_uniform_edges, uniform_edges
from ..core._display import Display, interval_cell
from ..core._metrics import check_threshold
from ..core._text import fmt, fmt_p, render_table
from ..core._validation import VeracityError, to_numpy
from ..decisions._inputs import check_cost
from ._ppi import (NO_SPREAD, NOT_CALIBRATED, RATE_BOUNDS, ZERO_WIDTH, PpiSums, _prepare, check_level,
                   check_row_indexes, cut_to_range, few_labels_note, judged_calibrated, ppi_from_sums, z_of)
from ._ppi_result import (FEW_EFFECTIVE_AUDIT, bound_texts, exact_rejects_note, rare_class_note,
                          weighted_class_note)
from ._ppi_sums import (EXACT_BELOW, _wmean_var, rare_cbpe_interval, rare_outcome_interval,
                        rare_share_interval, tuning_terms, uneven_labels, uneven_weights,
                        weighted_cbpe_interval, weighted_gap_interval, weighted_lambda_terms,
                        weighted_rate_interval, weighted_score_interval, wilson_rate_interval)

#: a bin's rate is flagged insufficient below this many labels (its Wilson interval covered 95-96 % of
#: true bin rates for a 95 % interval at 30 labels and more in the seeded simulation of
#: tests/delayed/test_ppi_bins_r13.py); with uneven weights below this many effective labels, their Kish size
#: (core._binning.enough_effective, as reliability bins and segments); the monitoring store's bins use the
#: same constant
MIN_LABELS = 30


#: more score bins than this is a mistake (each bin needs labels of its own), refused before allocating
MAX_BINS = 10_000


def _edges(bins: Any) -> np.ndarray:
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise VeracityError(f"bins must be a positive integer or increasing edges in [0, 1], got {bins!r}")
        if bins > MAX_BINS:
            raise VeracityError(f"bins={int(bins):,} is too many: at most {MAX_BINS:,} score bins (each needs "
                                "labels of its own); pass e.g. bins=10", param="bins")
        return uniform_edges(int(bins))  # k/M correctly rounded: linspace's 3 * 0.1 put 0.3 in [0.2, 0.3)
    try:
        e = np.asarray(to_numpy(bins, "bins"), dtype=np.float64)
    except (TypeError, ValueError):
        e = np.array([np.nan])  # not numbers: refused below
    if e.ndim == 1 and e.size > MAX_BINS + 1:
        raise VeracityError(f"bins has {e.size:,} edges: at most {MAX_BINS + 1:,} (each bin needs labels of its "
                            "own); pass e.g. bins=10", param="bins")
    if e.ndim != 1 or e.size < 2 or not np.isfinite(e).all() or (np.diff(e) <= 0).any() or e[0] > 0 or e[-1] < 1:
        raise VeracityError("bins must be a positive integer or increasing edges covering [0, 1], "
                            f"e.g. [0, 0.1, 0.5, 1]; got {np.asarray(bins).tolist()!r}")
    return e


def bin_of(p: np.ndarray, edges: np.ndarray) -> np.ndarray:
    r"""Each probability's bin among ``edges``: equal-width edges :math:`[0, 1/M, \dots, 1]` (within 1e-12,
    :func:`~veracity.core._binning.is_uniform_edges`) by the one rule of :func:`vc.audit <veracity.audit>` and
    the monitoring store, :math:`\min(\lfloor pM \rfloor, M - 1)` (:func:`~veracity.core._binning.bin_index`);
    other edges by the inner edges :math:`\le p` (a bin holds its lower edge, the last one also 1).
    ``np.linspace(0, 1, 11)``'s edge 0.30000000000000004 had put the scores 0.3 in the bin printed
    [0.2, 0.3) — and 0.6 and 0.7 likewise — where vc.audit and the store count them in [0.3, 0.4)."""
    if is_uniform_edges(edges):
        return np.asarray(bin_index(p, uniform_edges(edges.size - 1), "uniform"), dtype=np.intp)
    return np.searchsorted(edges[1:-1], p, side="right")


def shared_lambda(sums: PpiSums) -> np.ndarray:
    r"""One power-tuning :math:`\lambda` per window for the confusion shares and the cost: the PPI++ rule for
    a vector of means (Angelopoulos, Duchi and Zrnic 2023, section 6; ``ppi_py``'s ``coord=None``), the
    :math:`\lambda` that minimises the *sum* of the variances of the four shares TP, FP, FN, TN,

    .. math:: \lambda = \frac{\sum_i \widehat{\mathrm{Cov}}(t_i, h_i)}
              {(1 + n_{\text{eff}} / m_{\text{eff}}) \sum_i \widehat{\mathrm{Var}}(h_i)},

    cut to [0, 1] (0 without unlabelled rows or a finite value) — each term as :func:`ppi_from_sums` tunes
    one quantity's. ``sums`` stacks the shares' sums along the first axis (TP, FP, FN, TN first; any
    further rows, the cost, are not part of the rule). With one :math:`\lambda` every estimate is linear
    in the targets: as :math:`\sum_i t_i = \sum_i h_i = 1` on each row, the four shares add up to 1
    exactly and the cost is :math:`c_{FP} \mathrm{FP} + c_{FN} \mathrm{FN}` exactly. A separate
    :math:`\lambda` per quantity (each share's own, and 0 for a share whose labels are all of one class)
    broke both: shares summing to 1.0064 and a cost that was not FP + FN at unit costs. The cost's own
    variance is left out of the rule: it is in other units (a c_FN of 10 would make it the whole rule).
    With uneven sample weights the terms are those of :func:`~veracity.delayed._ppi_sums.weighted_lambda`
    (summed over the shares): the minimiser of the linearised variances reported, which the weighted form of
    the rule above was not (tests/delayed/test_weighted_lambda_r27.py). Vectorised over the trailing axes
    (windows)."""
    S = PpiSums(**{k: np.asarray(getattr(sums, k), dtype=np.float64)[:4]
                   for k in PpiSums.__dataclass_fields__})
    with np.errstate(divide="ignore", invalid="ignore"):
        cov, var_all, ratio = tuning_terms(S)  # each share's terms, as ppi_from_sums tunes one quantity
        lam = np.nansum(cov, axis=0) / ((1.0 + ratio[0]) * np.nansum(var_all, axis=0))
        uneven = uneven_weights(S)[0]
        if np.any(uneven):  # the minimiser of the sum of the linearised variances (weighted_lambda's, summed)
            vyf, v = weighted_lambda_terms(S)
            lam = np.where(uneven, np.nansum(vyf, axis=0) / np.nansum(v, axis=0), lam)
        return np.where(np.isfinite(lam) & (S.m[0] > 0), np.clip(lam, 0.0, 1.0), 0.0)


def onto_shares(x: np.ndarray) -> np.ndarray:
    r"""The four share estimates TP, FP, FN, TN (first axis; windows along the others) moved onto the
    simplex where one is below 0: the Euclidean projection :math:`p_i = \max(x_i - \tau, 0)` with the one
    :math:`\tau \ge 0` that keeps :math:`\sum_i p_i = 1` (Duchi et al. 2008). With one :math:`\lambda`
    the PPI++ shares add up to 1 but may fall below 0 — a share none of whose labelled rows has the event
    reads :math:`\lambda(\bar h_{\text{unlabelled}} - \bar h_{\text{labelled}})`, printed as a share of
    −0.0064 in the monitoring notebook. The true shares lie in the simplex, so the projected vector is
    never farther from them than PPI's (a projection onto a convex set holding the truth); shares that
    are all at least 0 are left exactly as they are. NaN windows stay NaN. Vectorised."""
    x = np.asarray(x, dtype=np.float64)
    neg = np.nan_to_num(x, nan=0.0).min(axis=0) < 0
    if not neg.any():
        return x
    u = -np.sort(-x[:, neg], axis=0)  # each window's shares, largest first
    j = np.arange(1, x.shape[0] + 1).reshape(-1, *([1] * (u.ndim - 1)))
    css = np.cumsum(u, axis=0)
    rho = np.sum(u - (css - 1.0) / j > 0, axis=0)  # how many shares stay above 0 (at least 1)
    tau = (np.take_along_axis(css, rho[None] - 1, axis=0)[0] - 1.0) / rho
    out = x.copy()
    out[:, neg] = np.maximum(x[:, neg] - tau, 0.0)
    return out


#: each share's partner in its group of rows: TP and FP are the flagged rows, FN and TN the others
_PARTNER = (1, 0, 3, 2)


def confusion_intervals(out: dict[str, Any], sums: PpiSums, *, k_fp: float, k_fn: float,
                        level: float) -> None:
    r"""The intervals of the confusion shares TP, FP, FN, TN and the cost per row where their labels show few
    events; elsewhere the normal interval (``ppi_py``'s, cut at the range) stays.

    ``out`` holds :func:`~veracity.delayed._ppi_sums.ppi_from_sums`'s keys for the five quantities along the
    first axis (windows along the others; the estimates already moved onto the simplex, the intervals cut),
    ``sums`` their :class:`PpiSums` stacked the same way, the cost priced at ``k_fp``, ``k_fn``. A share
    is *rare* where its labelled rows of one kind within its group of rows — TP and FP among the flagged
    rows, FN and TN among the others — number fewer than :data:`~veracity.delayed._ppi_sums.EXACT_BELOW`
    (10): :math:`\min(k_i, k_{i'}) < 10`, :math:`k` the labelled counts (weighted: the Kish size times the
    weighted mean) and :math:`i'` the share's partner; the cost where FP or FN is. There PPI's rectifier
    :math:`t - \lambda h` is nonzero on a handful of rows, so its sample variance — and the normal interval
    built on it — is unreliable: 95 % intervals of TN covered 0.88-0.94 when the unflagged labelled rows
    held 0-1 false negatives, as the rectifier of TN is that of FN (:math:`\lambda = 1`), of FP 0.88-0.89
    with about one labelled false alarm, and the cost with a rare FN at :math:`c_{FN} = 5` 0.89-0.93 (seeded
    simulation in tests/delayed/test_ppi_confusion_coverage_r23.py; 0.98-0.99 now, medians of widths at
    most 1.42 times the old). There the standard error is the larger of PPI's
    :math:`s` and the label-free one the rectifier would have if the scores were calibrated
    (:math:`\mathrm{E}[t \mid h] = h`, so :math:`\mathrm{E}[t h] = \mathrm{E}[h^2]`),

    .. math:: s_0^2 = \frac{\mathrm{E}[t^2] - (2\lambda - \lambda^2)\,\mathrm{E}[h^2] - ((1 - \lambda)\,
              \mathrm{E}[h])^2}{n_\ell} + \lambda^2 \sigma^2_{\bar g},

    the moments of :math:`h` over all rows (labelled and not), :math:`\mathrm{E}[t^2] = \mathrm{E}[h]` for a
    share and :math:`k_{FP}^2\,\mathrm{E}[h_{FP}] + k_{FN}^2\,\mathrm{E}[h_{FN}]` for the cost,
    :math:`n_\ell` the labels (Kish size) and :math:`\sigma^2_{\bar g}` the variance of the unlabelled
    rows' mean prediction — and the interval is the modified Wilson interval at the estimate with
    :math:`n^* = \hat p(1 - \hat p)/s^2` (:func:`~veracity.delayed._ppi_sums.rare_share_interval`,
    :math:`\hat p` the estimate over its range). The label-free term keeps a share whose surprises (events
    the scores did not predict) happen not to be in the sample from an interval of near zero width;
    scores that under-predict still widen :math:`s` through the labels. Uneven labelled weights then widen
    every one of the five to its hull with :func:`~veracity.ppi_mean`'s design-effect interval
    (:func:`~veracity.delayed._ppi_sums.weighted_rate_interval` on the quantity's range, :math:`s_c` the
    labels' own weighted standard error of the quantity): with log-normal weights the intervals above fell
    short as the rate's did — 95 % intervals of TP ... TN and the cost covered 0.89-0.99 (FN 0.92-0.93, TN
    0.89-0.95) at a Kish size of 300, rates 0.05-0.15 and weights of sigma 1-1.5, independent of the risk or
    rising with it, both sides weighted or only the labels; with the hull 0.91-0.995, the least (TN, 0.91)
    where the weights rise with the risk at a rate of 0.05 (1,000 windows a design), median widths 1-29 %
    more (seeded simulations of session 28, the designs of tests/delayed/test_ppi_audit_weighted_r28.py,
    which checks one of them). The four shares' Wilson intervals there also hold no more effective events
    (non-events) than the Kish size of the labelled rows with (without) the event (weighted_rate_interval's
    ``binary``): TN still covered 0.89-0.90 where the weights rise with the risk (their log correlated 0.5-0.8
    with it, sigma 1.5, Kish size 300), the heavy rows being TN's complement; 0.95-0.97 with the cap (seeded
    simulations of session 29, tests/delayed/test_ppi_tn_share_weighted_r29.py). Unweighted and equal-weight
    sums (a monitoring store's) keep their intervals bit for bit. In place, vectorised."""
    S = PpiSums(**{k: np.asarray(getattr(sums, k), dtype=np.float64) for k in PpiSums.__dataclass_fields__})
    lam = np.asarray(out["lam"], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        size = S.w * S.w / S.w2  # the labels' Kish size: n unweighted
        k = S.wy / S.w * size  # labelled events of each quantity (the cost's: not a count, unused)
        partner = k[list(_PARTNER)]
        few = EXACT_BELOW - 1e-9
        rare = np.concatenate([np.minimum(k[:4], partner) < few, (np.minimum(k[1], k[2]) < few)[None]])
        tw = S.w + S.wu
        h1, h2 = (S.wf + S.wuf) / tw, (S.wff + S.wuff) / tw
        t2 = h1.copy()
        t2[4] = k_fp * k_fp * h1[1] + k_fn * k_fn * h1[2]
        v0 = np.maximum(t2 - (2.0 * lam - lam * lam) * h2 - ((1.0 - lam) * h1) ** 2, 0.0)
        _, g_var = _wmean_var(S.wu, S.wuf, S.wu2f, S.wu2ff, S.wu2)
        g_var = np.where(S.m > 0, g_var, 0.0)
        s0 = np.sqrt(v0 / size + lam * lam * g_var)
    se = np.asarray(out["se"], dtype=np.float64)
    se_used = np.where(np.isfinite(s0), np.fmax(se, s0), se)
    top = np.ones_like(se)
    top[4] = max(k_fp, k_fn)
    rare_share_interval(out, rare & np.isfinite(se), se_used, size, level, top)
    if np.any(uneven_labels(S)):  # uneven labelled weights: vc.ppi_mean's design-effect hull, on each range
        with np.errstate(divide="ignore", invalid="ignore"):
            _, c_var = _wmean_var(S.w, S.wy, S.w2y, S.w2yy, S.w2)  # the labels' own, per quantity
        wide = {"estimate": out["estimate"], "se": se, "classical_se": np.sqrt(c_var),
                "ci_low": out["ci_low"], "ci_high": out["ci_high"]}
        shares = np.zeros(se.shape, dtype=bool)
        shares[:4] = True  # TP ... TN: 0/1 targets, capped at their labels' Kish sizes (the cost: not 0/1)
        weighted_rate_interval(wide, S, level, top, binary=shares)
        out["ci_low"], out["ci_high"] = wide["ci_low"], wide["ci_high"]
    flag_share_cut(out, S, k_fp=k_fp, k_fn=k_fn, level=level)


#: the flagged share's exact bound of :func:`flag_share_cut` misses its truth with probability at most this
#: share of ``1 - level`` (the coverage an interval cut there can lose)
FLAG_SHARE_MISS = 0.02


def flag_share_cut(out: dict[str, Any], sums: PpiSums, *, k_fp: float, k_fn: float, level: float) -> None:
    r"""Cut the intervals of TP, FP, FN, TN and the cost per row at the bounds the flagged share sets.

    The flag :math:`a = [f \ge t]` needs no label, so the share of flagged rows, :math:`\phi`, is read from
    all rows of the window: :math:`\mathrm{TP} + \mathrm{FP} = \phi` and :math:`\mathrm{FN} + \mathrm{TN} =
    1 - \phi`, so :math:`\mathrm{TP}, \mathrm{FP} \le \phi`, :math:`\mathrm{FN}, \mathrm{TN} \le 1 - \phi`
    and the cost :math:`c_{FP}\mathrm{FP} + c_{FN}\mathrm{FN} \le c_{FP}\phi + c_{FN}(1 - \phi)`. PPI's
    intervals ignore this: 30 labels of 2,000 Beta(2, 3) scores read TP 0.031 in [0, 0.63] and FP up to 0.42
    where 0.31 of the rows are flagged. The expected share :math:`\phi` is not the window's
    :math:`\hat\phi` (its sampling spread moved TP's truth above :math:`\hat\phi` in 60 % of windows with
    about 4 flagged rows in 1,500), so the bounds are the exact (Clopper-Pearson) one-sided ends of
    :math:`\hat\phi` over the window's :math:`N` rows, :math:`\phi_+ = B_{1-\alpha'}(x + 1, N - x)` and
    :math:`\phi_- = B_{\alpha'}(x, N - x + 1)`, :math:`x = \hat\phi N`, at :math:`\alpha'` =
    :data:`FLAG_SHARE_MISS` :math:`\times (1 - \text{level})`: an interval cut there misses a truth it
    held only where :math:`\phi` lies beyond its bound, with probability at most :math:`\alpha'` (0.001 at
    95 %); the window's own shares (:math:`\phi = \hat\phi`) are never lost. Weighted rows take
    :math:`\hat\phi` weighted and :math:`N` their Kish size :math:`(\sum w)^2 / \sum w^2` (labelled and
    unlabelled rows pooled, as CBPE pools them). An end is never cut below the estimate, so the interval
    still holds it. ``out`` and ``sums`` as in :func:`confusion_intervals` (TP, FP, FN, TN, cost along the
    first axis, in the units of ``k_fp``, ``k_fn``). In place, vectorised; NaN stays NaN."""
    from ..core._special import betaincinv

    S = sums
    with np.errstate(divide="ignore", invalid="ignore"):
        tot = np.asarray(S.w, dtype=np.float64)[0] + np.asarray(S.wu, dtype=np.float64)[0]
        tot2 = np.asarray(S.w2, dtype=np.float64)[0] + np.asarray(S.wu2, dtype=np.float64)[0]
        flagged = (np.asarray(S.wf, dtype=np.float64)[0] + np.asarray(S.wf, dtype=np.float64)[1]
                   + np.asarray(S.wuf, dtype=np.float64)[0] + np.asarray(S.wuf, dtype=np.float64)[1])
        big_n = tot * tot / tot2  # the rows, or their Kish size
        phi = np.clip(flagged / tot, 0.0, 1.0)
        ok = np.isfinite(phi) & np.isfinite(big_n) & (big_n > 0)
        n_ = np.where(ok, big_n, 1.0)
        x = np.where(ok, phi, 0.5) * n_
        tail = FLAG_SHARE_MISS * (1.0 - level)
        upper = np.where(x < n_, betaincinv(x + 1.0, np.maximum(n_ - x, 1e-300), 1.0 - tail), 1.0)
        lower = np.where(x > 0, betaincinv(np.maximum(x, 1e-300), n_ - x + 1.0, tail), 0.0)
    upper = np.where(ok, np.asarray(upper, dtype=np.float64), 1.0)
    lower = np.where(ok, np.asarray(lower, dtype=np.float64), 0.0)
    bound = np.stack([upper, upper, 1.0 - lower, 1.0 - lower, k_fp * upper + k_fn * (1.0 - lower)])
    est = np.asarray(out["estimate"], dtype=np.float64)
    top = np.fmax(bound, np.where(np.isfinite(est), est, -np.inf))  # never below the estimate
    for key in ("ci_low", "ci_high"):
        v = np.asarray(out[key], dtype=np.float64)
        out[key] = np.where(np.isnan(v), np.nan, np.fmin(v, top))


def _bin_sums(y: np.ndarray, f: np.ndarray, g: np.ndarray, w: np.ndarray | None, u: np.ndarray | None,
              edges: np.ndarray) -> PpiSums:
    k = edges.size - 1
    bf, bg = bin_of(f, edges), bin_of(g, edges)
    ww = np.ones_like(f) if w is None else w
    uu = np.ones_like(g) if u is None else u

    def s(idx: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.bincount(idx, weights=v, minlength=k)

    return PpiSums(
        n=np.bincount(bf, minlength=k).astype(np.float64), w=s(bf, ww), w2=s(bf, ww * ww), wy=s(bf, ww * y),
        wf=s(bf, ww * f), wff=s(bf, ww * f * f), wyf=s(bf, ww * y * f), w2y=s(bf, ww * ww * y),
        w2f=s(bf, ww * ww * f), w2yy=s(bf, ww * ww * y * y), w2yf=s(bf, ww * ww * y * f),
        w2ff=s(bf, ww * ww * f * f), m=np.bincount(bg, minlength=k).astype(np.float64), wu=s(bg, uu),
        wu2=s(bg, uu * uu), wuf=s(bg, uu * g), wuff=s(bg, uu * g * g), wu2f=s(bg, uu * uu * g),
        wu2ff=s(bg, uu * uu * g * g))


@dataclass(frozen=True, repr=False)
class PpiAudit(Display):
    """PPI++ estimates of a window's rate, calibration-in-the-large, per-bin rates, confusion and cost.

    ``rows`` — one dict per quantity: ``quantity``, ``estimate``, ``ci_low``, ``ci_high``
    (PPI++), ``cbpe`` (label-free, valid only if calibrated), ``classical`` (labels only),
    ``n_labelled``, ``n_unlabelled``, and for bins ``lo``, ``hi``, ``conf`` (mean score) and ``sufficient``
    (at least :data:`MIN_LABELS` labels; with weights, effective labels: their Kish size, up to rounding).
    Confusion and cost are per row; multiply by ``rows`` for the window's counts.
    """

    rows: tuple[dict[str, Any], ...]
    level: float
    threshold: float
    cost_fp: float
    cost_fn: float
    n_labelled: int
    n_unlabelled: int
    calibrated: bool
    valid: bool
    sample_p: float
    n_excluded: int = 0
    n_effective: float | None = None  # Kish effective number of weighted labels (None unweighted)
    #: vc.ppi_mean's note on uneven weights with few effective labels of the rarer class (weighted_class_note)
    uneven_note: str | None = None

    @property
    def note(self) -> str | None:
        notes = []
        if not self.valid:
            notes.append(f"NOT VALID: the labelled rows do not look like a random sample of the window "
                         f"(chi-square p = {fmt_p(self.sample_p)})")
        rate = self.rows[0]  # the rate's interval, 2 z se wide: none when the labels have no spread
        if not rate["ci_high"] - rate["ci_low"] >= 2.0 * z_of(self.level) * NO_SPREAD:
            notes.append(ZERO_WIDTH.format(n=self.n_labelled))
        else:
            flat = [r["quantity"] for r in self.rows[2:] if r["n_labelled"] >= 2
                    and not r["ci_high"] - r["ci_low"] >= 2.0 * z_of(self.level) * NO_SPREAD]
            if flat:
                notes.append(f"{', '.join(flat)}: the labels show no spread there, so the interval has zero "
                             "width and is not a confidence interval; label more rows")
            # the window's intervals from fewer than FEW_LABELS labels (or effective labels): vc.ppi_mean's note
            few_window = few_labels_note(self.n_labelled, 1.0, self.n_effective,
                                         effective=FEW_EFFECTIVE_AUDIT)
            if few_window:
                notes.append(few_window)
            elif self.uneven_note:
                notes.append(self.uneven_note)
            rare = rare_class_note(self.n_labelled, rate["classical"], self.n_effective)  # vc.ppi_mean's note
            if rare:
                notes.append(rare)
        few = [r for r in self.rows if "sufficient" in r and not r["sufficient"]]
        rows_few = [r["quantity"] for r in few if r["n_labelled"] < MIN_LABELS]
        if rows_few:
            notes.append(f"{', '.join(rows_few)}: fewer than {MIN_LABELS} labels, the interval rests on too "
                         "few labels (marked insufficient)")
        weighed_few = [r["quantity"] for r in few if r["n_labelled"] >= MIN_LABELS]  # few effective labels
        if weighed_few:
            notes.append(f"{', '.join(weighed_few)}: fewer than {MIN_LABELS} effective labels (the Kish size "
                         "of their uneven weights), the interval rests on too few labels "
                         "(marked insufficient)")
        if not self.calibrated:
            gap = self.row("rate - score")
            if gap["ci_low"] <= 0.0 <= gap["ci_high"]:  # judged by the exact bound (vc.ppi_mean's note)
                size = self.n_labelled if self.n_effective is None else self.n_effective
                rate = self.row("rate")["classical"]
                notes.append(exact_rejects_note(rate * size, (rate - gap["classical"]) * size,
                                                what="rate - score's interval"))
            notes.append(NOT_CALIBRATED)
        return "; ".join(notes) or None

    def row(self, quantity: str) -> dict[str, Any]:
        for r in self.rows:
            if r["quantity"] == quantity:
                return r
        raise VeracityError(f"no quantity {quantity!r}; the audit has {[r['quantity'] for r in self.rows]}")

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "threshold": self.threshold, "cost_fp": self.cost_fp, "cost_fn": self.cost_fn,
                "n_labelled": self.n_labelled, "n_unlabelled": self.n_unlabelled, "calibrated": self.calibrated,
                "valid": self.valid, "sample_p": self.sample_p, "n_excluded": self.n_excluded,
                "n_effective": self.n_effective, "note": self.note,
                "rows": [dict(r) for r in self.rows]}

    def _summary_items(self) -> dict[str, Any]:
        """The notebook's key numbers, named as a reader says them: ``calibrated in the large`` (the
        rate − score row's verdict — bins far from their scores may still show below it; the field was
        printed as ``calibrated yes`` above a bin with rate 0.76 at a score of 0.95), the sample check."""
        items: dict[str, Any] = {
            "labels": f"{self.n_labelled:,}", "scored rows": f"{self.n_unlabelled:,}",
            "level": f"{self.level * 100:g}%", "threshold": f"{self.threshold:g}",
            "costs": f"c_FP={self.cost_fp:g}, c_FN={self.cost_fn:g}",
            "calibrated in the large": "yes" if self.calibrated else "no",
            "random sample": f"{'yes' if self.valid else 'NO'} (chi-square p = {fmt_p(self.sample_p)})"}
        if self.n_effective is not None:
            items["effective labels"] = f"{self.n_effective:,.1f}"
        if self.n_excluded:
            items["rows left out"] = f"{self.n_excluded:,}"
        return items

    def _repr_html_(self) -> str:
        """The notebook view: the printout's table with its headers (PPI++, the CI at its level, CBPE,
        labels only, labels), the key numbers named as read, the note below."""
        from ..core._display import html_kv, html_note, html_page, html_table

        pct = f"{self.level * 100:g}% CI"
        records = [{"quantity": r["quantity"], "PPI++": r["estimate"], "ci_low": r["ci_low"],
                    "ci_high": r["ci_high"], "CBPE": r["cbpe"], "labels only": r["classical"],
                    "labels": r["n_labelled"],
                    **({"sufficient": r["sufficient"]} if "sufficient" in r else {})} for r in self.rows]
        parts = [html_kv(self._summary_items()), html_table(records, wide=True, rename={"ci_low": pct}),
                 html_note(f"note: {self.note}") if self.note else ""]
        return html_page(self._title(), parts, str(self))

    @staticmethod
    def _cells(r: dict[str, Any]) -> list[str]:
        """A row's text cells; the gap rate - score signed, as a difference (``vc.ppi_mean``'s rectifier)."""
        signed = r["quantity"] == "rate - score"
        low, high = bound_texts(r["ci_low"], r["ci_high"], sign=signed) if signed else (fmt(r["ci_low"]),
                                                                                      fmt(r["ci_high"]))
        return [r["quantity"], fmt(r["estimate"], sign=signed), interval_cell(low, high),
                fmt(r["cbpe"], sign=signed), fmt(r["classical"], sign=signed), f"{r['n_labelled']:,}"]

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}% CI"
        body = [self._cells(r) for r in self.rows]
        head = ["quantity", "PPI++", pct, "CBPE", "labels only", "labels"]
        if any(r.get("sufficient") is False for r in self.rows):
            head.append("")
            for b, r in zip(body, self.rows):
                b.append("insufficient" if r.get("sufficient") is False else "")
        lines = [(f"PPI++ audit of the window: {self.n_labelled:,} random labels + {self.n_unlabelled:,} scored rows "
                 f"(threshold {self.threshold:g}; per-row confusion and cost, c_FP={self.cost_fp:g}, "
                 f"c_FN={self.cost_fn:g})"),
                 render_table(head, body, align="lrrrrrl" if len(head) > 6 else None)]
        if self.note:
            lines.append(f"note: {self.note}")
        return "\n".join(lines)


def ppi_audit(labels: Any, scores_labelled: Any, scores_unlabelled: Any, *, bins: Any = 10,
              threshold: float = 0.5, cost_fp: float = 1.0, cost_fn: float = 1.0, level: float = 0.95,
              power_tuning: bool = True, sample_weight: Any = None, sample_weight_unlabelled: Any = None,
              audit_sample: Any = None, sample_check: str = "raise", pos_label: Any = None,
              score_type: str = "probability") -> PpiAudit:
    """PPI++ estimates with intervals of a window's rate, calibration-in-the-large (rate − score),
    observed rate per score bin (``bins``: a count of equal-width bins or edges), and the
    expected confusion and cost per row at ``threshold`` (flag when score ≥ threshold).
    A bin's interval is the Wilson interval at its PPI estimate with an effective number of labels
    (module docstring); the other rows' the normal interval cut at their range (the rate with fewer than 10
    labels of one class: the Wilson-type interval of vc.ppi_mean; TP ... TN and the cost with few labelled
    events: :func:`confusion_intervals`; uneven weights widen the rate's as vc.ppi_mean's, the shares' and
    the cost's the same way). The other options
    are those of :func:`~veracity.ppi_mean` (``score_type="logit"``: the scores are logits, read as
    expit(s), and ``threshold`` and ``bins`` are on the probability scale)."""
    level = check_level(level)
    if not isinstance(power_tuning, (bool, np.bool_)):  # "no" would read as True (vc.ppi_mean's check)
        raise VeracityError(f"power_tuning must be True or False, got {power_tuning!r}", param="power_tuning")
    c_fp, c_fn = check_cost(cost_fp, "cost_fp"), check_cost(cost_fn, "cost_fn")
    t = check_threshold(threshold)  # the one check of threshold=: its message shows the value as given
    edges = _edges(bins)
    check_row_indexes(labels, scores_labelled, scores_unlabelled, sample_weight=sample_weight,
                      sample_weight_unlabelled=sample_weight_unlabelled, audit_sample=audit_sample)
    y, f, g, w, u, excluded, p, valid = _prepare(
        labels, scores_labelled, scores_unlabelled, sample_weight=sample_weight,
        sample_weight_unlabelled=sample_weight_unlabelled, audit_sample=audit_sample, pos_label=pos_label,
        sample_check=sample_check, score_type=score_type, what="vc.ppi_audit")
    a, b = (f >= t).astype(np.float64), (g >= t).astype(np.float64)
    # the cost row is computed with both costs scaled by one power of two (exact: λ and every interval
    # scale with it) and scaled back at the end, so that costs near 1e308 (whose squares overflow: NaN)
    # or subnormal ones (whose squares underflow: an interval [0, 0]) price rows as 1 and 2 would
    e = math.frexp(max(c_fp, c_fn))[1]
    k_fp, k_fn = math.ldexp(c_fp, -e), math.ldexp(c_fn, -e)
    targets = {"rate": (y, f, g), "tp": (y * a, f * a, g * b), "fp": ((1 - y) * a, (1 - f) * a, (1 - g) * b),
               "fn": (y * (1 - a), f * (1 - a), g * (1 - b)), "tn": ((1 - y) * (1 - a), (1 - f) * (1 - a),
                                                                   (1 - g) * (1 - b)),
               "cost": (k_fp * (1 - y) * a + k_fn * y * (1 - a), k_fp * (1 - f) * a + k_fn * f * (1 - a),
                        k_fp * (1 - g) * b + k_fn * g * (1 - b))}
    parts = [PpiSums.of(ty, tf, tg, w, u) for ty, tf, tg in targets.values()]
    stacked = PpiSums(**{k: np.array([getattr(s, k) for s in parts]) for k in PpiSums.__dataclass_fields__})
    out = ppi_from_sums(stacked, level=level, power_tuning=bool(power_tuning))
    if power_tuning:  # the shares and the cost: one lambda (shared_lambda), so they add up exactly
        lam = np.asarray(out["lam"], dtype=np.float64).copy()
        lam[1:] = shared_lambda(PpiSums(**{k: np.asarray(getattr(stacked, k))[1:5]
                                           for k in PpiSums.__dataclass_fields__}))
        out = ppi_from_sums(stacked, level=level, lam=np.where(np.isnan(lam), 0.0, lam))
    # shares below 0 moved onto the simplex (onto_shares), the cost priced from the shares as they are
    est = np.asarray(out["estimate"], dtype=np.float64).copy()
    est[1:5] = onto_shares(est[1:5])
    est[5] = k_fp * est[2] + k_fn * est[3]
    out["estimate"] = est
    # CBPE's spread for the cost is not Bernoulli: c(a)^2 f(1 - f) per row under calibration
    z = z_of(level)
    ca, cb = np.where(a > 0, k_fp, k_fn), np.where(b > 0, k_fp, k_fn)
    ww = np.ones_like(f) if w is None else w
    uu = np.ones_like(g) if u is None else u
    tw = ww.sum() + uu.sum()
    cost_sd = np.sqrt((ww * ca) ** 2 @ (f * (1 - f)) + (uu * cb) ** 2 @ (g * (1 - g))) / tw
    out["cbpe_low"][-1] = out["cbpe"][-1] - z * cost_sd
    unweighted = w is None and u is None
    if unweighted:  # the rate's CBPE of few expected events: vc.ppi_mean's count interval
        s1, s2, s3 = (float(np.sum(f**k)) + float(np.sum(g**k)) for k in (1, 2, 3))
        rare_cbpe_interval(out, s1, s2, s3, f.size + g.size, level, where=np.arange(len(targets)) == 0)
    else:  # weighted rows: the rate's hull with its count interval at an effective size, as vc.ppi_mean's
        weighted_cbpe_interval(out, np.concatenate([f, g]), np.concatenate([ww, uu]), level)
    out["cbpe_high"][-1] = out["cbpe"][-1] + z * cost_sd
    # rates and shares of rows lie in [0, 1], a cost per row in [0, max(c_FP, c_FN)]: a normal interval
    # reaching beyond is cut at the bound, as vc.ppi_mean cuts its rate's
    top = np.array([1.0] * (len(targets) - 1) + [max(k_fp, k_fn)])
    cut_to_range(out, {"ci": (0.0, top), "classical": (0.0, top), "cbpe": (0.0, top), "rectifier": (-1.0, 1.0)})
    # the rate with fewer than 10 labels of one class (weighted: by the Kish size): the Wilson-type interval
    # of vc.ppi_mean; the shares TP ... TN and the cost with few labelled events: confusion_intervals
    size = float(y.size) if w is None else float(w.sum()) ** 2 / float(w @ w)
    rate = {k: np.asarray(out[k], dtype=np.float64)[:1] for k in ("estimate", "se", "ci_low", "ci_high")}
    rare_outcome_interval(rate, size, float(out["classical"][0]) * size, level)
    rate["classical_se"] = np.asarray(out["classical_se"], dtype=np.float64)[:1]
    rate["lam"] = np.asarray(out["lam"], dtype=np.float64)[:1]
    weighted_rate_interval(rate, parts[0], level)  # uneven labelled weights: vc.ppi_mean's interval
    weighted_score_interval(rate, parts[0], level)
    gap = {k: np.asarray(out[k], dtype=np.float64)[:1]
           for k in ("rectifier", "rectifier_low", "rectifier_high")}
    weighted_gap_interval(gap, parts[0], level)  # uneven labelled weights: vc.ppi_mean's rate - score
    for key in ("rectifier_low", "rectifier_high"):
        out[key] = np.asarray(out[key], dtype=np.float64).copy()
        out[key][0] = gap[key][0]
    conf = {k: np.asarray(out[k], dtype=np.float64)[1:]
            for k in ("estimate", "se", "lam", "ci_low", "ci_high")}
    conf_sums = PpiSums(**{k: np.asarray(getattr(stacked, k))[1:] for k in PpiSums.__dataclass_fields__})
    confusion_intervals(conf, conf_sums, k_fp=k_fp, k_fn=k_fn, level=level)
    for key in ("ci_low", "ci_high"):
        out[key] = np.concatenate([rate[key], conf[key]])
    with np.errstate(over="ignore"):  # back to the caller's cost units (a bound beyond 1.8e308 is inf)
        for key in ("estimate", "se", "ci_low", "ci_high", "classical", "classical_se", "classical_low",
                    "classical_high", "cbpe", "cbpe_se", "cbpe_low", "cbpe_high"):
            out[key] = np.asarray(out[key], dtype=np.float64).copy()
            out[key][-1] = np.ldexp(out[key][-1], e)
    n, m = int(y.size), int(g.size)
    rows: list[dict[str, Any]] = []
    for i, name in enumerate(targets):
        rows.append({"quantity": name, "estimate": float(out["estimate"][i]), "ci_low": float(out["ci_low"][i]),
                     "ci_high": float(out["ci_high"][i]), "cbpe": float(out["cbpe"][i]),
                     "cbpe_low": float(out["cbpe_low"][i]), "cbpe_high": float(out["cbpe_high"][i]),
                     "classical": float(out["classical"][i]), "lam": float(out["lam"][i]),
                     "n_labelled": n, "n_unlabelled": m})
        if name == "rate":
            rows.append({"quantity": "rate - score", "estimate": float(out["rectifier"][0]),
                         "ci_low": float(out["rectifier_low"][0]), "ci_high": float(out["rectifier_high"][0]),
                         "cbpe": 0.0, "cbpe_low": 0.0, "cbpe_high": 0.0,
                         "classical": float(out["rectifier"][0]), "lam": 1.0, "n_labelled": n, "n_unlabelled": m})
    # the exact rare-class judgement: the counts unweighted; weighted, the weighted means times the Kish size
    # (vc.ppi_mean's rule: judged_calibrated's rare_n)
    classical, rect = float(out["classical"][0]), float(out["rectifier"][0])
    calibrated = bool(judged_calibrated(rows[1]["ci_low"], rows[1]["ci_high"], out["rectifier_se"][0],
                                        n if w is None else float(w.sum() / w.max()), level,
                                        label_se=out["classical_se"][0], rectifier=out["rectifier"][0],
                                        positives=float(y.sum()) if w is None else classical * size,
                                        expected=float(f.sum()) if w is None else (classical - rect) * size,
                                        rare_n=None if w is None else size))
    bs = _bin_sums(y, f, g, w, u, edges)
    bo = ppi_from_sums(bs, level=level, power_tuning=bool(power_tuning))
    if unweighted:  # each bin's CBPE of few expected events: the count interval of its rows
        both, b_all = np.concatenate([f, g]), np.concatenate([bin_of(f, edges), bin_of(g, edges)])
        b1, b2, b3 = (np.bincount(b_all, weights=both**k, minlength=edges.size - 1) for k in (1, 2, 3))
        rare_cbpe_interval(bo, b1, b2, b3, np.asarray(bs.n) + np.asarray(bs.m), level)
    else:  # weighted: each bin's hull with its count interval at an effective size
        rows_bin = np.concatenate([bin_of(f, edges), bin_of(g, edges)])
        weighted_cbpe_interval(bo, np.concatenate([f, g]), np.concatenate([ww, uu]), level, group=rows_bin,
                               groups=edges.size - 1)
    cut_to_range(bo, RATE_BOUNDS)
    with np.errstate(divide="ignore", invalid="ignore"):  # the labels' Kish size: n unweighted, NaN for none
        bin_size = np.asarray(bs.w) ** 2 / np.asarray(bs.w2)
        wilson_rate_interval(bo, bin_size, level)
    # a bin is sufficient from MIN_LABELS labels, weighted: effective ones (Kish size), as a reliability
    # table's bins and a segment are, up to the sums' rounding (enough_effective; equal weights: the counts')
    enough = (bs.n >= MIN_LABELS) & enough_effective(np.nan_to_num(bin_size, nan=0.0), MIN_LABELS, bs.n)
    for k in range(edges.size - 1):
        nk, mk = int(bs.n[k]), int(bs.m[k])
        if nk + mk == 0:
            continue
        lo, hi = float(edges[k]), float(edges[k + 1])
        rows.append({"quantity": f"rate in [{lo:g}, {hi:g}{']' if k == edges.size - 2 else ')'}",
                     "estimate": float(bo["estimate"][k]), "ci_low": float(bo["ci_low"][k]),
                     "ci_high": float(bo["ci_high"][k]), "cbpe": float(bo["cbpe"][k]),
                     "cbpe_low": float(bo["cbpe_low"][k]), "cbpe_high": float(bo["cbpe_high"][k]),
                     "classical": float(bo["classical"][k]), "lam": float(bo["lam"][k]), "n_labelled": nk,
                     "n_unlabelled": mk, "lo": lo, "hi": hi, "conf": float(bo["cbpe"][k]),
                     "sufficient": bool(enough[k])})
    return PpiAudit(rows=tuple(rows), level=level, threshold=t, cost_fp=c_fp, cost_fn=c_fn, n_labelled=n,
                    n_unlabelled=m, calibrated=calibrated, valid=valid, sample_p=p, n_excluded=excluded,
                    n_effective=None if w is None else float(w.sum()) ** 2 / float(w @ w),
                    uneven_note=None if w is None else weighted_class_note(parts[0]))
