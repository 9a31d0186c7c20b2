r"""How much a before/after change could be noise: paired intervals of the difference.

The ledger (:func:`veracity.compare`) measures every metric BEFORE and AFTER on the *same*
evaluation rows, so the two values are paired and the interval of their difference is
much narrower than two separate intervals. A change is called an improvement or a
regression only when its interval excludes 0; otherwise it is "within noise".

* **Mean of per-row terms** (Brier :math:`(p-y)^2`, log-loss, correct decision at the
  threshold): with :math:`d_i` the after − before difference of row *i*'s term and weights
  :math:`w_i`, :math:`\bar d = \sum w_i d_i / \sum w_i` and the sandwich (delta-method)
  variance

  .. math:: \widehat{\mathrm{Var}}(\bar d) = \frac{n}{n-1}\,
            \frac{\sum_i w_i^2 (d_i - \bar d)^2}{(\sum_i w_i)^2},

  *n* the number of rows (unweighted: the sample variance of :math:`d` over *n*, the paired
  *t*/McNemar-type interval), on Student's t with *n* − 1 degrees of freedom, or Kish's effective
  size :math:`(\sum w)^2/\sum w^2` less one with weights — the one rule of
  :mod:`veracity.core._paired_mean`, which ``vc.compare_models`` uses too. For accuracy,
  :math:`d_i \in \{-1, 0, 1\}`: 36 flipped decisions among 20,000 rows give a standard
  error of about :math:`\sqrt{36}/20000 = 0.0003`.
* **AUC**: DeLong, DeLong & Clarke-Pearson (1988) for two correlated AUCs on the same
  rows: placement values :math:`V^{10}_i` (share of negatives ranked below positive *i*,
  ties ½) and :math:`V^{01}_j`, and
  :math:`\mathrm{Var}(\Delta) = S^{10}_{\Delta}/n_1 + S^{01}_{\Delta}/n_0` with
  :math:`S_\Delta` the sample variance of the placement differences over the positives and over
  the negatives (weighted: :math:`\frac{n}{n-1}\sum w^2 (d - \bar d)^2 / W^2` over each class's rows
  of positive weight) — :mod:`veracity.core._delong`, the one implementation, which
  ``vc.compare_models`` reports too.
* **ECE** (no per-row form): a seeded paired bootstrap — the same multinomial row counts
  resample both the before and the after scores, bins fixed to those of the full sample
  (the ECE values are conditional on the binning), and a bias-aware interval of the
  difference (Armstrong & Kolesár 2020): the noise from the centred resamples, and each side's
  plug-in bias, which no resample sees, as a bound (:mod:`veracity.core._ece_bias`: each bin's
  bias read at the smallest gap its data allow — nothing for a far miscalibrated bin, up to
  :math:`\sqrt{2/\pi}\,\sigma_k` for a calibrated one). A percentile interval called a calibrated
  "after" against a miscalibrated "before" from the bias alone. The interval itself,
  :math:`[\hat\Delta - b_{after} + q_{(k)},\ \hat\Delta + b_{before} + q_{(B+1-k)}]`, is the one
  ``vc.compare_models`` uses (:func:`veracity.core._ece_difference.bias_aware_interval`); what differs
  is the statistic (the plug-in ECE on the ledger's own edges, not the debiased ECE on equal-width
  bins) and so its bias bound, and the resampling kernel (all resamples in one matrix product: see
  :mod:`veracity.core._ece_difference` for why).

The interval is :math:`\bar d \pm t_{\nu,1-\alpha/2}\,\mathrm{SE}` for the per-row differences,
DeLong's normal interval for AUC and the bias-aware bootstrap interval for ECE.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._binning import bin_index
from ..core._delong import delong_difference
from ..core._ece_difference import bias_aware_interval, plugin_bias_shifts


#: count-matrix cells per block of resamples (memory bound: 8 bytes each, plus the draws)
_CELLS = 1 << 21
#: rows × resamples above which the per-bin sums are drawn from their normal law
_EXACT = 1 << 24


def paired_mean_interval(d: np.ndarray, w: np.ndarray | None, level: float,
                         skew: bool = False) -> tuple[float, float]:
    """Student-t interval of the weighted mean of paired differences ``d``: the one rule of
    :func:`veracity.core._paired_mean.paired_mean` (the same as ``vc.compare_models``' Brier and
    log-loss differences); NaN below two rows or where one row carries all the weight, and, as
    ``vc.compare_models`` reads it (``comparison._paired.flat_estimate``), where every row's difference is the
    same nonzero value: a t interval of no width ("NLL -0.2231 [-0.2231, -0.2231] better" of a map pushed to
    0 and 1 on separated rows) says nothing of the rows where the difference would not be the same.
    ``skew`` (the Brier and NLL changes with fewer than
    :data:`~veracity.core._paired_mean.SKEW_CLASS_ROWS` of a class): the hull of the t and Hall's
    skew-corrected t intervals (:func:`veracity.core._paired_mean.skew_guarded`)."""
    from ..core._paired_mean import no_spread, paired_mean

    if d.size < 2:
        return float("nan"), float("nan")
    e = paired_mean(d, w, level, skew=skew)
    if e.value != 0.0 and bool(no_spread(e.value, e.se)):
        return float("nan"), float("nan")
    return e.low, e.high


def delong_difference_interval(s0: np.ndarray, s1: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                               level: float) -> tuple[float, float, float]:
    """``(AUC1 − AUC0, low, high)``: DeLong's paired interval of two AUCs of the same rows — the one
    implementation, :func:`veracity.core._delong.delong_difference`, that ``vc.compare_models`` reports."""
    e = delong_difference(s0, s1, y, w, level)
    return e.value, e.low, e.high


def _ece_change(S: np.ndarray, m0: int, m1: int) -> np.ndarray:
    """ECE(after) − ECE(before) of each resample from its per-bin sums ``[Σ r0 | Σ r1 | W]``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.abs(S[:, m0:m0 + m1]).sum(axis=1) - np.abs(S[:, :m0]).sum(axis=1)) / S[:, -1]


def _normal_resamples(residuals: tuple[np.ndarray, np.ndarray], i0: np.ndarray, i1: np.ndarray, m0: int,
                      m1: int, base: np.ndarray, rng: np.random.Generator, n_resamples: int) -> np.ndarray:
    r"""Large inputs: the bootstrap law of the per-bin sums by its first two moments.

    The sums :math:`S = \sum_i c_i x_i` of a multinomial resample have mean
    :math:`\sum_i x_i` and covariance :math:`\sum_i x_i x_i^\top - S S^\top / n`; with
    thousands of rows per bin they are normal to high accuracy, so S is drawn from that
    normal law (one O(n) pass for the moments, then a loop-free draw).
    """
    r0, r1 = residuals
    n = r0.size
    d = m0 + m1 + 1
    col0, col1, colw = i0, m0 + i1, np.full(n, d - 1)
    mean = np.zeros(d)
    np.add.at(mean, col0, r0)
    np.add.at(mean, col1, r1)
    mean[-1] = base.sum()
    G = np.zeros((d, d))
    vals = (r0, r1, base)
    cols = (col0, col1, colw)
    for a in range(3):
        for b in range(3):
            flat = cols[a] * d + cols[b]
            G += np.bincount(flat, weights=vals[a] * vals[b], minlength=d * d).reshape(d, d)
    G -= np.outer(mean, mean) / n
    evals, evecs = np.linalg.eigh((G + G.T) / 2.0)
    root = evecs * np.sqrt(np.clip(evals, 0.0, None))
    S = mean + rng.standard_normal((n_resamples, d)) @ root.T
    return _ece_change(S, m0, m1)


def ece_difference_interval(
    p0: np.ndarray, y0: np.ndarray, p1: np.ndarray, y1: np.ndarray, w: np.ndarray | None,
    edges: tuple[np.ndarray, np.ndarray], strategy: str, *, n_resamples: int, random_state: Any,
    level: float,
) -> tuple[float, float]:
    """Bias-aware interval of ECE(after) − ECE(before) under a paired bootstrap (see the module doc).

    Bins are those of the full sample; one vector of multinomial row counts per resample
    (n draws with replacement) weighs both sides; per-bin sums of all resamples of a block
    are one matrix product. Above ``_EXACT`` rows × resamples the per-bin sums are drawn
    from their normal law instead (:func:`_normal_resamples`).
    """
    if n_resamples < 2:
        return float("nan"), float("nan")
    n = p0.size
    i0 = np.asarray(bin_index(p0, edges[0], strategy))
    i1 = np.asarray(bin_index(p1, edges[1], strategy))
    m0, m1 = edges[0].size - 1, edges[1].size - 1
    base = np.ones(n) if w is None else w
    r0, r1 = base * (y0 - p0), base * (y1 - p1)
    rng = np.random.default_rng(random_state)
    if n * n_resamples > _EXACT:
        out = _normal_resamples((r0, r1), i0, i1, m0, m1, base, rng, n_resamples)
    else:
        # one design matrix: per-bin residual columns of both sides, then the total weight
        X = np.zeros((n, m0 + m1 + 1))
        X[np.arange(n), i0] = r0
        X[np.arange(n), m0 + i1] = r1
        X[:, -1] = base
        out = np.empty(n_resamples)
        chunk = max(1, min(n_resamples, _CELLS // max(n, 1)))
        for a in range(0, n_resamples, chunk):  # resamples in memory-bounded blocks, never rows
            b = min(n_resamples, a + chunk) - a
            draws = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
            C = np.bincount(draws.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
            S = C @ X
            out[a:a + b] = _ece_change(S, m0, m1)
    out = out[np.isfinite(out)]
    if out.size < 2:
        return float("nan"), float("nan")
    # per side, per bin: Σw, Σw², Σwp, Σwy — the plug-in ECEs and their bias bounds (core._ece_difference)
    sums = [np.stack([np.bincount(i, weights=v, minlength=m) for v in (base, base * base, base * p, base * y)])
            for i, m, p, y in ((i0, m0, p0, y0), (i1, m1, p1, y1))]
    full = np.concatenate([sums[0][3] - sums[0][2], sums[1][3] - sums[1][2], [base.sum()]])[None, :]
    estimate = float(_ece_change(full, m0, m1)[0])
    low, high, _ = bias_aware_interval(estimate, out, lambda gamma: plugin_bias_shifts(sums[0], sums[1], gamma),
                                       level, p_value=False)
    return low, high
