r"""The paired Poisson bootstrap behind the intervals that have no closed form.

Debiased ECE and the CORP terms (MCB, DSC) are not means of per-row values, so their
paired differences get a bootstrap. Each resample draws one Poisson(1) count
:math:`c_i` per row (Hanley & MacGibbon 2006; Chamandy et al. 2012) and **the same counts
serve every model** — the rows are resampled once for all of them, which is what makes
the interval paired. Nothing is copied: a resample is a weight vector, and each statistic
is recomputed with frequency weights :math:`c_i w_i`:

* debiased ECE (Kumar, Liang & Ma 2019, L1, the estimator of ``vc.ece(...,
  estimator="debiased")``) from per-bin sums Σcw, Σcw², Σcwp, Σcwy (``bincount``);
* CORP's MCB and DSC from the PAV fit on the model's distinct scores, whose weights are
  the counts summed over each run of the model's sort (``reduceat``; no new sort).

Unweighted, the sums are read from the integer counts themselves (:meth:`PairedBootstrap.corp_counts`,
:meth:`PairedBootstrap.ece_counts`): Σc and Σcy are integers, exact in any order, so each model's PAV
input comes from one integer running sum of its sorted counts over the stretches of one label (no
per-run ``reduceat``), and the bins' Σc, Σcy from one ``bincount`` over (label, bin) cells; the one float
sum per bin, Σcp, is the same ``bincount`` as before. The numbers are those of the plain route to the bit
(tests/comparison/test_bootstrap_counts_r29.py); at 10⁵–10⁶ rows the bootstrap of two models takes
about 2.3–2.5 times less CPU than the plain route (benchmarks/bench_compare.py ``--sliced``).

Counts are exact Poisson(1) draws up to the 2⁻³² resolution of the uniforms they come
from (inverse CDF on 32-bit integers: three vectorised comparisons, then a binary search of
the cuts for the 1.9 % of counts of 4 or more). Every interval here
reads the noise from the resampled differences and the p-value the same way,
:math:`\min(1, 2(\min(\#\{\Delta^* \le 0\}, \#\{\Delta^* \ge 0\}) + 1) / (B + 1))` of the (shifted)
resamples (ΔECE's: the least 1 − level at which its interval excludes 0; never below
:math:`2/(B+1)`, which B resamples cannot show); ΔECE, ΔMCB and ΔDSC
are bias-aware, each adding a bias that the resamples cannot see as a bound
(:func:`ece_difference_interval`: the debiased ECE's, read over the gaps the bins allow;
:func:`overfit_interval`: the PAV fit's overfit). Each interval excludes 0 exactly when its
p-value is below 1 − level. The percentile, its order statistics and the bias-aware ΔECE interval
are :mod:`veracity.core._ece_difference`, shared with the calibrator ledger's ECE change.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import exp, factorial
from typing import Any

import numpy as np

from ..core._binning import bin_index, uniform_edges
from ..core._ece_bias import DEBIASED_BIAS_HIGH, DEBIASED_BIAS_LOW, noise_scale  # noqa: F401 - named in the docs here
from ..core._ece_difference import (  # noqa: F401 - percentile, shifted_percentile: re-exported (tests import them)
    bias_aware_interval, debiased_bias_shifts, order_k, percentile, shifted_percentile,
)
from ..core._parallel import advance
from ..core._special import ndtr
from ..core._stats import residuals
from ..core._validation import Binary
from ._corp import Runs, _starts, isotonic, pooled_fit, run_sums

#: count cells (resamples x rows) drawn at once by :meth:`PairedBootstrap.run`
_CHUNK_CELLS = 1 << 16

#: at most this many rows (a slice's), :meth:`PairedBootstrap.run` fits a chunk's resamples' PAV curves
#: together (:meth:`PairedBootstrap.corp_many`) instead of one ``scipy`` call each
SMALL_ROWS = 4096

#: P(C >= k) thresholds of Poisson(1) on the 2**32 grid, k = 1, 2, ...
_POISSON_CUTS = np.array(
    [round((1.0 - sum(exp(-1.0) / factorial(j) for j in range(k))) * 2.0**32) for k in range(1, 14)]
)
_POISSON_CUTS = (2**32 - _POISSON_CUTS).astype(np.uint64)  # u >= cut  <=>  count >= k

#: counts below this by comparisons of every uniform (:func:`poisson_counts_many`), the rest by search
_DIRECT_CUTS = 3
#: the cuts a 32-bit uniform can reach (below 2**32), from the 4th on
_TAIL_CUTS = _POISSON_CUTS[_DIRECT_CUTS:][_POISSON_CUTS[_DIRECT_CUTS:] < 2**32]


def poisson_counts(rng: np.random.Generator, n: int) -> np.ndarray:
    """n Poisson(1) counts (uint8): the number of CDF cuts at or below a 32-bit uniform."""
    return poisson_counts_many(rng, n, 1)[0]


def poisson_counts_many(rng: np.random.Generator, n: int, b: int) -> np.ndarray:
    """``(b, n)`` Poisson(1) counts (uint8): for each of b resamples, n 32-bit uniforms drawn from ``rng``
    (resample after resample), each count the number of Poisson(1) CDF cuts at or below its uniform."""
    u = np.empty((b, n), dtype=np.uint32)
    for r in range(b):
        u[r] = rng.integers(0, 2**32, size=n, dtype=np.uint32)
    # counts 0-3 by three comparisons of every uniform; the few at or above the 4th cut (1.9 %) by a
    # binary search of the cuts: the same count, the number of cuts at or below the uniform
    c = (u >= np.uint32(_POISSON_CUTS[0])).view(np.uint8)
    for cut in _POISSON_CUTS[1:_DIRECT_CUTS]:
        c += u >= np.uint32(cut)
    tail = np.flatnonzero(u >= np.uint32(_POISSON_CUTS[_DIRECT_CUTS]))
    if tail.size:
        flat = c.reshape(-1)
        flat[tail] = _DIRECT_CUTS + np.searchsorted(_TAIL_CUTS, u.reshape(-1)[tail], side="right")
    return c


def debiased_l1(weight: np.ndarray, weight_sq: np.ndarray, sum_p: np.ndarray, sum_y: np.ndarray) -> np.ndarray:
    r"""Kumar et al.'s L1 debiased ECE from per-bin sums (last axis = bins), vectorised over
    the leading axes; the formula of :func:`veracity.core._honest.debiased_ece_from_stats`."""
    total = weight.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = weight > 0
        safe = np.where(keep, weight, 1.0)
        d = np.abs(sum_p - sum_y) / safe
        acc = sum_y / safe
        k = weight_sq / (safe * safe)
        sigma = np.sqrt(np.maximum(acc * (1.0 - acc) * k, 0.0))
        pos = sigma > 0
        s = np.where(pos, sigma, 1.0)
        folded = np.where(pos, s * np.sqrt(2.0 / np.pi) * np.exp(-0.5 * (d / s) ** 2)
                          + d * (1.0 - 2.0 * ndtr(-d / s)), d)
        share = np.where(keep, weight, 0.0) / total[..., None]
        return (share * np.where(keep, 2.0 * d - folded, 0.0)).sum(axis=-1)


def uniform_cuts(bins: int) -> np.ndarray:
    r"""For k = 1 … M−1 (M = ``bins``), the smallest float64 t whose equal-width bin
    :math:`\min(\lfloor t M\rfloor, M-1)` (:func:`veracity.core._binning.bin_index`) is k, so
    that on sorted probabilities ``searchsorted(p, cuts)`` finds where each bin starts.

    The product :math:`t M` is rounded, so the cut is k/M moved by the few ulps that make
    :math:`\lfloor \mathrm{fl}(tM)\rfloor \ge k` hold at t and fail just below it (the bin is a
    non-decreasing function of t: rounding is monotone).
    """
    cuts = np.empty(max(bins - 1, 0))
    for k in range(1, bins):  # a loop over bins, a few ulp steps each
        t = k / bins
        while t * bins >= k and np.nextafter(t, 0.0) * bins >= k:
            t = float(np.nextafter(t, 0.0))
        while t * bins < k:
            t = float(np.nextafter(t, 2.0))
        cuts[k - 1] = t
    return cuts


def sorted_bin_sums(p: np.ndarray, y: np.ndarray, w: np.ndarray | None, bins: int) -> np.ndarray:
    r"""Per equal-width bin: Σw, Σw², Σwp, Σwy (``(4, bins)``) of rows sorted by probability ``p``
    (labels ``y`` and weights ``w`` in the same order).

    Sorted, every bin is one slice of the rows, found by binary search at :func:`uniform_cuts`;
    each sum is a sum over a slice (``reduceat``) — the bins of ``bincount`` without a per-row
    bin index. Unweighted, Σw = Σw² = the slice's length.
    """
    n = p.shape[0]
    bounds = np.concatenate(([0], np.searchsorted(p, uniform_cuts(bins), side="left"), [n]))
    count = np.diff(bounds)
    out = np.zeros((4, bins))
    full = count > 0
    first = bounds[:-1][full]  # empty bins dropped: the filled ones' slices tile the rows
    columns: tuple[tuple[int, np.ndarray], ...]
    if w is None:
        out[0] = out[1] = count
        columns = ((2, p), (3, y))
    else:
        columns = ((0, w), (1, w * w), (2, w * p), (3, w * y))
    for row, values in columns:
        out[row, full] = np.add.reduceat(values, first)
    return out


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    r""":math:`\sum_i a_i b_i` in numpy's own loop (``einsum``), not BLAS: a resample's few dot products of
    n values each, which OpenBLAS spreads over threads that wait for one another (on a busy machine the
    bootstrap's dot products took 20 ms of CPU a resample, the rest of it 10 ms)."""
    return float(np.einsum("i,i->", a, b))


@dataclass(frozen=True, eq=False)
class _Model:
    data: Binary
    bins: np.ndarray
    runs: Runs | None
    sq: np.ndarray  # per-row squared error (p - y)^2


@dataclass(frozen=True, eq=False)
class _Units:
    r"""One model's sorted rows cut into the pieces an unweighted resample's PAV input is pooled from
    (:meth:`PairedBootstrap.corp_counts`): maximal stretches of runs of equal scores that hold one label
    only (a run holding both labels is a piece of its own). Every piece a resample keeps has one mean
    (its label, or its own Σcy/Σc), so :func:`._corp.pooled_fit` would pool its runs together anyway."""

    order: np.ndarray  # the model's sort (the rows of each sorted position)
    bounds: np.ndarray  # each piece's first sorted position, then n (increasing from 0)
    label: np.ndarray | None  # each piece's label (0.0 or 1.0); None: some piece holds both labels
    y: np.ndarray  # the labels in sorted order, as uint8 (counts of positives: Σc·y)


def _units_of(runs: Runs) -> _Units:
    """The pieces of :class:`_Units` from the model's runs of equal scores."""
    ys = runs.y
    n = ys.shape[0]
    if runs.starts is None:  # every row its own run: the pieces are the stretches of one label
        code, starts = ys, None
    else:
        starts = runs.starts
        positives = np.add.reduceat(ys, starts)
        lengths = np.diff(np.r_[starts, n]).astype(np.float64)
        # 0 or 1: a run of one label; 2, 3, ...: a run of both, never merged with its neighbours
        mixed = 2.0 + np.arange(starts.size)
        code = np.where(positives == 0.0, 0.0, np.where(positives == lengths, 1.0, mixed))
    first = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    rows = first if starts is None else starts[first]
    bounds = np.r_[rows, n].astype(np.intp)
    label = code[first]
    return _Units(order=runs.order, bounds=bounds, label=label if bool(np.all(label < 2.0)) else None,
                  y=ys.astype(np.uint8))


def _segment_sums(values: np.ndarray, bounds: np.ndarray, dtype: Any = np.int64,
                  out: np.ndarray | None = None) -> np.ndarray:
    """Sums of the integers ``values`` over the consecutive segments ``bounds[s]:bounds[s + 1]`` (``bounds``
    from 0 to ``len(values)``; ``dtype`` must hold their total), from one integer running sum (into ``out``,
    one longer than ``values``, when given) — exact, where ``np.add.reduceat`` costs a call per segment
    and a float running sum waits on every addition."""
    total = np.empty(values.shape[0] + 1, dtype=dtype) if out is None else out
    total[0] = 0
    np.cumsum(values, dtype=dtype, out=total[1:])
    return total[bounds[1:]] - total[bounds[:-1]]


class PairedBootstrap:
    """Debiased ECE and CORP (Brier) MCB/DSC of every model, on the same Poisson resamples."""

    def __init__(self, data: list[Binary], runs: list[Runs] | None, *, bins: int,
                 squared: list[np.ndarray] | None = None) -> None:
        self.edges = uniform_edges(bins)
        self.bins = bins
        self.data = data
        self.runs = runs
        self.squared = squared
        self.w = data[0].w
        self.y = data[0].y
        self.n = data[0].n

    def _buffer(self, name: str, dtype: Any, extra: int = 0) -> np.ndarray:
        """A reused array of n (+ ``extra``) rows (a fresh n-sized array per resample and model costs its page
        faults)."""
        if not hasattr(self, "_buffers"):
            self._buffers: dict[str, np.ndarray] = {}
        if name not in self._buffers:
            self._buffers[name] = np.empty(self.n + extra, dtype=dtype)
        return self._buffers[name]

    @property
    def units(self) -> list[_Units]:
        """Per model, the pieces its unweighted resamples' PAV input is pooled from (on first use)."""
        if not hasattr(self, "_units"):
            assert self.runs is not None  # only a bootstrap with the models' runs fits CORP
            self._units = [_units_of(r) for r in self.runs]
        return self._units

    @property
    def cells(self) -> list[np.ndarray]:
        """Per model, each row's (label, bin) cell ``bin + bins·y`` (on first use): Σc and Σcy per bin of an
        unweighted resample from one ``bincount`` (:meth:`ece_counts`)."""
        if not hasattr(self, "_cells"):
            self._cells = [m.bins + self.bins * (self.y == 1.0).astype(np.intp) for m in self.models]
        return self._cells

    @property
    def models(self) -> list[_Model]:
        """Per model: bin of every row, runs, squared errors (built on first use: only resamples need them)."""
        if not hasattr(self, "_models"):
            self._models = [
                _Model(d, bin_index(d.p, self.edges, "uniform"), None if self.runs is None else self.runs[k],
                       residuals(d) ** 2 if self.squared is None else self.squared[k])
                for k, d in enumerate(self.data)]
        return self._models

    def corp(self, cw: np.ndarray, counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(MCB, DSC)`` of the Brier score of every model under frequency weights ``cw``; given the counts
        (uint8) that ``cw`` is of (``cw = counts · w``), each model's sorted weights are read as its sorted
        counts times its sorted weights — the same products, a gather of bytes instead of floats."""
        y = self.y
        total = float(cw.sum())
        if not total > 0.0:  # a resample that drew no row (likely on a few rows): no statistic, dropped
            nan = np.full(len(self.models), np.nan)
            return nan, nan.copy()
        sy = _dot(cw, y)
        base = sy / total
        s_r = base * (1.0 - base)  # mean (r - y)^2 with y in {0, 1}
        mcb, dsc = np.empty(len(self.models)), np.empty(len(self.models))
        for k, m in enumerate(self.models):
            runs = m.runs
            assert runs is not None  # every model of a paired bootstrap has its runs (built with them)
            if counts is None or runs.w is None:
                sorted_cw = cw[runs.order]
            else:
                sorted_cw = np.take(counts, runs.order, out=self._buffer("gathered", np.uint8)) * runs.w
            wx, yx = run_sums(runs, sorted_cw)
            assert wx is not None  # given weights, every run has its sum
            keep = wx > 0  # runs that no resampled row fell in drop out
            fit, pw, py, _ = pooled_fit(wx[keep], yx[keep])
            s_hat = (_dot(pw, fit * fit) - 2.0 * _dot(fit, py) + sy) / total
            s_p = _dot(cw, m.sq) / total
            mcb[k], dsc[k] = s_p - s_hat, s_r - s_hat
        return mcb, dsc

    def corp_counts(self, counts: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""``(MCB, DSC)`` of every model under one unweighted resample: ``counts`` its Poisson counts
        (uint8), ``c`` the same as floats. The numbers of :meth:`corp` to the bit, with the PAV input pooled
        first:

        :meth:`corp` pools the resample's runs (those it drew) with equal neighbouring means before PAV
        (:func:`._corp.pooled_fit`); every piece of :class:`_Units` is a stretch of such runs, so its counts
        Σc and Σc·y (running sums of the counts in the model's order: exact integers) feed the same pooling
        (the kept pieces with equal neighbouring means Σcy/Σc) and give the same pooled Σw, Σwy — integers,
        whatever the order they are summed in — hence the same PAV fit and the same sums after it. No n-sized
        float array per model is built (the sorted counts and their running sum reuse two integer buffers),
        and the per-run ``reduceat`` (a call per run) is gone."""
        models = self.models
        nan = np.full(len(models), np.nan)
        mcb, dsc = np.empty(len(models)), np.empty(len(models))
        # running sums in int32 while every count sum fits (each count is at most 12)
        dtype = np.int32 if 16 * self.n < 2**31 else np.int64
        g, running = self._buffer("gathered", np.uint8), self._buffer("running", dtype, 1)
        total = sy = s_r = 0.0
        for k, u in enumerate(self.units):
            np.take(counts, u.order, out=g)
            wx = _segment_sums(g, u.bounds, dtype, running)
            kept = np.flatnonzero(wx)  # pieces that no resampled row fell in drop out
            if kept.size == 0:  # a resample that drew no row: no statistic, dropped (as corp's)
                return nan, nan.copy()
            wk = wx[kept]
            if u.label is not None:  # every piece of one label: the mean Σcy/Σc of a kept piece is its label
                values = u.label[kept]
                bounds = _starts(values)
                pw = _segment_sums(wk, bounds, dtype).astype(np.float64)
                py = pw * values[bounds[:-1]]
            else:
                yk = _segment_sums(g * u.y, u.bounds, dtype, running)[kept]
                values = yk / wk
                bounds = _starts(values)
                pw = _segment_sums(wk, bounds, dtype).astype(np.float64)
                py = _segment_sums(yk, bounds, dtype).astype(np.float64)
            if k == 0:
                total, sy = float(pw.sum()), float(py.sum())  # Σc and Σcy: integers, exact in any order
                base = sy / total
                s_r = base * (1.0 - base)
            fit = isotonic(py / pw, pw)
            s_hat = (_dot(pw, fit * fit) - 2.0 * _dot(fit, py) + sy) / total
            s_p = _dot(c, models[k].sq) / total
            mcb[k], dsc[k] = s_p - s_hat, s_r - s_hat
        return mcb, dsc

    def corp_many(self, cw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(MCB, DSC)``, each ``(b, models)``, under the b rows of frequency weights ``cw``: :meth:`corp` of
        each row, the b PAV fits of a model as one :func:`._slices.grouped_pav` (the resamples its groups;
        the same run sums, blocks and formulas, summed in another order: equal to the last bits)."""
        from ._slices import grouped_pav

        b = cw.shape[0]
        y = self.y
        total = cw.sum(axis=1)
        sy = np.einsum("ij,j->i", cw, y)
        with np.errstate(invalid="ignore", divide="ignore"):
            base = sy / total
            s_r = base * (1.0 - base)
        mcb, dsc = np.empty((b, len(self.models))), np.empty((b, len(self.models)))
        for k, m in enumerate(self.models):
            runs = m.runs
            assert runs is not None  # every model of a paired bootstrap has its runs (built with them)
            c = cw[:, runs.order]
            if runs.starts is None:
                wx, yx = c, c * runs.y
            else:
                wx = np.add.reduceat(c, runs.starts, axis=1)
                yx = np.add.reduceat(c * runs.y, runs.starts, axis=1)
            keep = wx > 0  # runs that no resampled row fell in drop out
            group = np.broadcast_to(np.arange(b)[:, None], wx.shape)[keep]
            first, bw, by = grouped_pav(wx[keep], yx[keep], group)
            bf = np.clip(by / bw, 0.0, 1.0)
            g = group[first]
            with np.errstate(invalid="ignore", divide="ignore"):
                s_hat = (np.bincount(g, bw * bf * bf, b) - 2.0 * np.bincount(g, bf * by, b) + sy) / total
                s_p = np.einsum("ij,j->i", cw, m.sq) / total
            mcb[:, k], dsc[:, k] = s_p - s_hat, s_r - s_hat
        empty = ~(total > 0.0)  # a resample that drew no row (likely on a few rows): no statistic, dropped
        mcb[empty], dsc[empty] = np.nan, np.nan
        return mcb, dsc

    def full(self) -> dict[str, np.ndarray]:
        """Debiased ECE of every model on the data itself (every count 1), in cache-sized pieces."""
        w, y, m = self.w, self.y, self.bins
        out = np.empty(len(self.data))
        for k, d in enumerate(self.data):
            sums = np.zeros((4, m))
            for a in range(0, self.n, 1 << 16):
                e = min(self.n, a + (1 << 16))
                idx = bin_index(d.p[a:e], self.edges, "uniform")
                if w is None:
                    count = np.bincount(idx, minlength=m)
                    sums[0] += count
                    sums[1] += count
                    sums[2] += np.bincount(idx, d.p[a:e], m)
                    sums[3] += np.bincount(idx, y[a:e], m)
                else:
                    wc = w[a:e]
                    sums[0] += np.bincount(idx, wc, m)
                    sums[1] += np.bincount(idx, wc * wc, m)
                    sums[2] += np.bincount(idx, wc * d.p[a:e], m)
                    sums[3] += np.bincount(idx, wc * y[a:e], m)
            out[k] = debiased_l1(*sums)
        return {"ece": out}

    def run(self, n_resamples: int, seed: Any) -> dict[str, np.ndarray]:
        """``{statistic: (n_resamples, models) array}`` over Poisson resamples."""
        rng = np.random.default_rng(seed)
        k = len(self.data)
        out = {"ece": np.empty((n_resamples, k))}
        with_corp = self.runs is not None
        if with_corp:
            out["mcb"], out["dsc"] = np.empty((n_resamples, k)), np.empty((n_resamples, k))
        # chunks of resamples: the counts and the debiased ECE are vectorised over a chunk's resamples
        # (the same draws, sums and formula as one resample at a time); CORP's PAV fits run one by one
        step = max(1, min(n_resamples, _CHUNK_CELLS // max(self.n, 1)))
        for a in range(0, n_resamples, step):
            e = min(n_resamples, a + step)
            counts = poisson_counts_many(rng, self.n, e - a)
            c = counts.astype(np.float64)
            cw, cw2 = (c, c) if self.w is None else (c * self.w, c * self.w * self.w)
            out["ece"][a:e] = self.ece_counts(c) if self.w is None else self.ece_many(cw, cw2)
            if with_corp and self.n <= SMALL_ROWS:  # a slice's few rows: the chunk's PAV fits all at once
                out["mcb"][a:e], out["dsc"][a:e] = self.corp_many(cw)
            elif with_corp and self.w is None:  # integer counts: the PAV input from running sums
                for b in range(a, e):
                    out["mcb"][b], out["dsc"][b] = self.corp_counts(counts[b - a], c[b - a])
            elif with_corp:
                for b in range(a, e):
                    out["mcb"][b], out["dsc"][b] = self.corp(cw[b - a], counts[b - a])
            advance("paired bootstrap", e - a, n_resamples)
        return out

    def ece_counts(self, c: np.ndarray) -> np.ndarray:
        """:meth:`ece_many` of unweighted resamples (``c``: ``(b, rows)`` counts as floats), to the bit: Σc
        and Σcy per bin (integers: exact in any order) from one ``bincount`` over (resample, label, bin) cells,
        Σcp from one over (resample, bin) cells (the same sums in the same order as ``ece_many``'s)."""
        b, m = c.shape[0], self.bins
        out = np.empty((b, len(self.models)))
        flat = c.reshape(-1)
        product = self._buffer("product", np.float64)[None, :] if b == 1 else None
        for k, model in enumerate(self.models):
            cell, idx = self.cells[k], model.bins
            if b > 1:
                cell = (cell[None, :] + (np.arange(b, dtype=np.intp) * (2 * m))[:, None]).reshape(-1)
                idx = (idx[None, :] + (np.arange(b, dtype=np.intp) * m)[:, None]).reshape(-1)
            by_label = np.bincount(cell, weights=flat, minlength=b * 2 * m).reshape(b, 2, m)
            weight = by_label[:, 0] + by_label[:, 1]
            cp = np.multiply(c, model.data.p, out=product) if b == 1 else c * model.data.p
            sum_p = np.bincount(idx, weights=cp.reshape(-1), minlength=b * m).reshape(b, m)
            out[:, k] = debiased_l1(weight, weight, sum_p, by_label[:, 1])
        return out

    def ece_many(self, cw: np.ndarray, cw2: np.ndarray) -> np.ndarray:
        """``(b, models)`` debiased ECEs under the b rows of frequency weights ``cw`` (Σw² per row: ``cw2``):
        :meth:`ece` of each row, its per-bin sums read by one ``bincount`` over (resample, bin) cells."""
        b = cw.shape[0]
        out = np.empty((b, len(self.models)))
        y = self.y
        offset = (np.arange(b, dtype=np.intp) * self.bins)[:, None]
        for k, m in enumerate(self.models):
            cell = (m.bins[None, :] + offset).ravel()
            sums = [np.bincount(cell, weights=v.ravel(), minlength=b * self.bins).reshape(b, self.bins)
                    for v in (cw, cw2, cw * m.data.p, cw * y)]
            out[:, k] = debiased_l1(*sums)
        return out


#: the rank of the percentile interval's ends (:func:`veracity.core._ece_difference.order_k`)
_order_k = order_k


#: the least overfit, as a share of :func:`._corp.overfit_bound` (see :func:`overfit_interval`)
OVERFIT_LOW = 0.25


def overfit_interval(estimate: float, resampled: np.ndarray, beta_a: float, beta_b: float,
                     level: float) -> tuple[float, float, float]:
    r"""``(low, high, p)`` of ΔMCB or ΔDSC (B − A), bias-aware: each model's CORP term sits above its
    truth by the PAV fit's overfit, which the resamples cannot see (each refits PAV, re-centred at its
    own overfit). It is at most β (:func:`._corp.overfit_bound`, Stein's identity: twice the fit's
    degrees of freedom times the label variance, over the blocks the two fits do not share) and at
    least :data:`OVERFIT_LOW` β — measured about 0.86 β for a continuous calibrated model and 0.5 β
    for a fixed few-valued one (a base rate, a 10-step calibrator); a quarter leaves room. So the
    bias of the difference lies in :math:`[c\beta_B - \beta_A,\ \beta_B - c\beta_A]` (c =
    :data:`OVERFIT_LOW`) and, with q the centred resamples :math:`\Delta^* - \overline{\Delta^*}`,

    .. math:: \big[\hat\Delta - (\beta_B - c\beta_A) + q_{(k)},\
              \hat\Delta - (c\beta_B - \beta_A) + q_{(B+1-k)}\big]

    (:func:`shifted_percentile`: excludes 0 exactly when its p-value is below 1 − level). The
    percentile interval it replaces covered a true ΔMCB of 0 in no draw when a calibrated model met
    the base rate or a calibrated 10-step model; this one in 38–40 of 40 (600 and 3,000 rows). The
    price: two continuous models of different rankings, whose overfits the percentile interval
    let cancel, get the allowance too (a true ΔMCB of +0.006 found in 13 of 30 draws of 3,000 rows,
    29 before); tests/comparison/test_cmp_corp_bias.py."""
    finite = resampled[np.isfinite(resampled)]
    if finite.size == 0:
        return float("nan"), float("nan"), float("nan")
    centre = estimate - float(finite.mean())
    return shifted_percentile(estimate, finite, centre - (beta_b - OVERFIT_LOW * beta_a),
                              centre - (OVERFIT_LOW * beta_b - beta_a), level)


#: the debiased term's bias bounds, in units of the bin's σ (:mod:`veracity.core._ece_bias`)
BIAS_HIGH, BIAS_LOW = DEBIASED_BIAS_HIGH, DEBIASED_BIAS_LOW


#: the debiased ECE difference's bias range (:func:`veracity.core._ece_difference.debiased_bias_shifts`)
bias_shifts = debiased_bias_shifts


def ece_difference_interval(estimate: float, resampled: np.ndarray, sums_a: np.ndarray, sums_b: np.ndarray,
                            level: float) -> tuple[float, float, float]:
    r"""``(low, high, p)`` of :math:`\Delta = \mathrm{ECE}_B - \mathrm{ECE}_A` (debiased ECEs): a bias-aware
    interval (Armstrong & Kolesár 2020), not a percentile one — the one implementation,
    :func:`veracity.core._ece_difference.bias_aware_interval` (the calibrator ledger's too), with the debiased
    ECE's bias range :func:`veracity.core._ece_difference.debiased_bias_shifts`.

    The debiased ECE is still biased, by :math:`\sum_k (W_k/W)\,\sigma_k\,g(|\delta_k|/\sigma_k)` with
    :math:`g(x) = 2F(x) - \sqrt2 F(x/\sqrt2) - x` (:func:`veracity.core._ece_bias.debiased_bias`:
    :data:`BIAS_HIGH` σ for a calibrated bin, about nothing for a far miscalibrated one), and no
    bootstrap sees it, so a percentile interval of :math:`\Delta^*` is offset, by up to the difference
    of the two models' biases (measured coverage 30–72 % at 95 % when one model is calibrated and the
    other not; tests/comparison/test_cmp_simulation.py). With :math:`\alpha = 1 - \text{level}` and q the
    centred resamples :math:`\Delta^* - \overline{\Delta^*}`:

    .. math:: \big[\hat\Delta - \beta_+ + q_{(k)}, \; \hat\Delta - \beta_- + q_{(B+1-k)}\big],
              \quad k \text{ of } (1 - \mathrm{BIAS\_SHARE})\,\alpha \ (:func:`shifted_percentile`),

    :math:`[\beta_-, \beta_+]` the bias range at :math:`\gamma = \mathrm{BIAS\_SHARE}\cdot\alpha`. The p-value
    is the least α at which the interval excludes 0 (by bisection), **1** whenever even the α = 1 interval
    holds 0 (the difference is within the bias the two estimates may carry: no evidence either way;
    tests/hardening/test_comparison_followups_r15.py), and at least :math:`2/(B+1)`."""
    return bias_aware_interval(estimate, resampled, lambda gamma: debiased_bias_shifts(sums_a, sums_b, gamma),
                               level)
