r"""Many slices of ``vc.compare_models(..., by=...)`` at once: the slices without resamples, vectorised.

A slice with fewer than :data:`MIN_CLASS_ROWS` rows of a class (weighted: Kish effective size) draws no
paired bootstrap and shows DeLong's interval n/a (:func:`._compare.compare_of`); what is left of it — each
model's Brier score and log loss and their paired t intervals, the AUC, the CORP (PAV) fit and
decomposition, the debiased ECE — are sums over the slice's rows, its runs of equal scores and its PAV
blocks. Ten thousand such slices cost ten thousand calls of a few hundred numpy operations each (2-3 ms of
CPU a slice); here each quantity is one grouped pass over all of their rows, sorted by (slice, score) with
one ``lexsort`` per model:

* per-slice sums are ``np.bincount`` on the slice index (and ``np.add.reduceat`` over runs of equal
  scores, and over PAV blocks);
* running sums within a slice (DeLong's placements) are :func:`segmented_cumsum`: slices padded to a
  power-of-two length and summed along rows, the sequential sums of ``np.cumsum`` on each slice;
* the PAV fits of all slices are one :func:`grouped_pav` — adjacent violators pooled in rounds, never
  across two slices (pooling adjacent violators in any order gives the one isotonic fit).

The formulas are :func:`._compare.compare_of`'s (the same per-row losses, placements, pooled PAV blocks,
bin sums and scalar finishing); sums taken in another order differ in the last bits only
(tests/comparison/test_cmp_slices_fast_r26.py checks every number against the per-slice route to 1e-12).
A slice with enough rows of each class for the bootstrap goes to :func:`._compare.compare_of`, one at a
time; a slice of a single class gets the error compare_of raises (from its first model's sort).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._binning import bin_index, uniform_edges
from ..core._delong import few_class_rows, rank_model
from ..core._special import xlogy
from ..core._validation import Binary, VeracityError
from ..core._weights import kish_size
from ..honest._corp import CORPResult, ScoreDecomposition
from . import _compare
from ._compare import CORPDifference, ModelComparison, _few_resamples, _few_rows_note, _row
from ._corp import difference
from ._inputs import Models, identical_note, renoted
from ._paired import Estimate, _chunk_losses, no_spread, p_of
from ._resample import debiased_l1


def segmented_cumsum(x: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """``np.cumsum`` of each segment ``x[bounds[s]:bounds[s + 1]]`` (``bounds`` increasing from 0 to
    ``len(x)``), each a sequential sum as ``np.cumsum`` takes it on the segment alone: the segments of
    one power-of-two length class are padded into the rows of one matrix and summed along them."""
    out = np.empty(x.shape[0])
    sizes = np.diff(bounds)
    if sizes.size == 0:
        return out
    width = np.zeros(sizes.shape, dtype=np.int64)
    big = sizes > 1
    width[big] = np.ceil(np.log2(sizes[big])).astype(np.int64)
    for c in np.unique(width):
        segs = np.flatnonzero(width == c)
        cols = np.arange(1 << int(c))
        idx = bounds[segs][:, None] + cols
        inside = cols < sizes[segs][:, None]
        m = np.where(inside, x[np.where(inside, idx, 0)], 0.0)
        out[idx[inside]] = np.cumsum(m, axis=1)[inside]
    return out


def _run_starts(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, run)``: the positions where any of the (sorted) ``keys`` changes, 0 first — the runs of
    equal keys — and each position's run."""
    n = keys[0].shape[0]
    new = np.zeros(n, dtype=bool)
    new[:1] = True
    for k in keys:
        new[1:] |= k[1:] != k[:-1]
    return np.flatnonzero(new), np.cumsum(new) - 1


def grouped_pav(wx: np.ndarray, yx: np.ndarray,
                group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The PAV fits (weighted isotonic regressions, increasing) of many groups of points at once:
    point i has weight ``wx[i]`` and weighted sum ``yx[i]`` (mean ``yx/wx``), ``group`` is non-decreasing.
    Each round pools every pair of neighbouring blocks of one group whose means do not increase
    (:math:`\bar y_b \ge \bar y_{b+1}`, ties pooled as ``scipy.optimize.isotonic_regression`` pools them),
    until none is left; any order of pooling adjacent violators gives the one isotonic fit, whose blocks
    then strictly increase. Returns ``(first, Σw, Σwy)`` per block (``first``: its first point)."""
    first = np.arange(wx.shape[0])
    bw, by, g = wx.astype(np.float64), yx.astype(np.float64), group
    while bw.shape[0] > 1:
        mean = by / bw
        bad = (mean[:-1] >= mean[1:]) & (g[:-1] == g[1:])
        if not bad.any():
            break
        keep = np.flatnonzero(np.r_[True, ~bad])
        bw, by, g, first = np.add.reduceat(bw, keep), np.add.reduceat(by, keep), g[keep], first[keep]
    return first, bw, by


@dataclass(frozen=True, eq=False)
class SliceModel:
    """One model on every light slice: per slice its AUC, mean Brier score and log loss, CORP fit and
    decomposition, debiased ECE; per row (the rows' order) its DeLong placement."""

    auc: np.ndarray
    brier: np.ndarray
    nll: np.ndarray
    v: np.ndarray
    ece: np.ndarray
    corp: list[CORPResult]
    order: np.ndarray  # rows sorted by (slice, ranking score)


def _per_row_losses(d: Binary) -> tuple[np.ndarray, np.ndarray]:
    """Per-row Brier score and log loss :math:`-\\log\\max(q, \\epsilon)` (from the logits when given):
    :func:`._paired._chunk_losses` over all the rows, its log loss negated back."""
    n = d.p.shape[0]
    brier, log_q = _chunk_losses(d, 0, n, 1.0 - d.y, d.y + d.y - 1.0, np.empty((2, n)))
    return brier, -log_q


def _sums(seg: np.ndarray, values: np.ndarray, m: int) -> np.ndarray:
    return np.bincount(seg, weights=values, minlength=m)


class LightSlices:
    """Everything :func:`._compare.compare_of` reads on slices that draw no resamples (see the module doc),
    for the rows ``part`` (the slices' rows one slice after another; ``seg`` each row's slice 0…m-1)."""

    def __init__(self, part: Models, seg: np.ndarray, m: int, bins: int, level: float) -> None:
        self.part, self.seg, self.m, self.level = part, seg, m, level
        y, w = part.y, part.w
        self.bounds = np.r_[0, np.cumsum(np.bincount(seg, minlength=m))]
        self.count = np.diff(self.bounds)
        wr = np.ones(y.shape[0]) if w is None else w
        self.total = _sums(seg, wr, m) if w is not None else self.count.astype(np.float64)
        self.total_sq = _sums(seg, wr * wr, m) if w is not None else self.total
        self.sy = _sums(seg, wr * y, m)
        self.w1 = self.sy
        self.w0 = self.total - self.sy if w is not None else self.count - self.sy
        if w is not None:
            h = w / self.total[seg]
            self.cube = _sums(seg, h * h * h, m)
        self._cache: dict[Any, Any] = {}
        self.models = [self._model(k, bins) for k in range(len(part.names))]
        names = part.names
        self.pairs = part.pairs()
        # per pair, per slice: the two models score every row of the slice alike (as :func:`._inputs.renoted`
        # finds it on the slice's rows alone)
        self.identical = {(i, j): (_sums(seg, ((part.rank(i) != part.rank(j))
                                               | (part.data[i].p != part.data[j].p)).astype(np.float64), m)
                                   == 0).tolist() for i, j in self.pairs}
        self.counts = self.count.tolist()
        # per model, per slice, as Python floats (indexing a list, not an array, per slice)
        self.values = [{"auc": mod.auc.tolist(), "brier": mod.brier.tolist(), "nll": mod.nll.tolist(),
                        "ece": mod.ece.tolist()} for mod in self.models]

    def _model(self, k: int, bins: int) -> SliceModel:
        part, seg, m = self.part, self.seg, self.m
        d = part.data[k]
        y, w = part.y, part.w
        score = part.rank(k)
        order = np.lexsort((score, seg))
        ss, ys, gs = score[order], y[order], seg[order]
        ws = None if w is None else w[order]
        pos = ys == 1.0
        pw = pos.astype(np.float64) if ws is None else np.where(pos, ws, 0.0)
        nw = 1.0 - pw if ws is None else ws - pw
        # DeLong's placements over the levels (runs of one score in one slice): rank_model's formulas
        lv, level = _run_starts(gs, ss)
        P, N = np.add.reduceat(pw, lv), np.add.reduceat(nw, lv)
        lseg = gs[lv]
        lbounds = np.r_[0, np.cumsum(np.bincount(lseg, minlength=m))]
        cn, cp = segmented_cumsum(N, lbounds), segmented_cumsum(P, lbounds)
        if w is None:  # integer counts: exact in any order
            W1, W0 = self.w1[lseg], self.w0[lseg]
        else:  # rank_model's float(P.sum()), float(N.sum()) over the slice's levels, to the bit: two models'
            # placements compare equal or not on them (same_ranking), as on each slice alone
            cuts = lbounds.tolist()
            by_slice = [(float(P[a:e].sum()), float(N[a:e].sum())) for a, e in zip(cuts[:-1], cuts[1:])]
            W1, W0 = (np.array(v)[lseg] for v in zip(*by_slice))
        below_neg = (cn - N + 0.5 * N) / W0
        above_pos = (W1 - cp + 0.5 * P) / W1
        v_sorted = np.where(pos, below_neg[level], above_pos[level])
        if w is None:  # integer counts: 2U exact, as rank_model's
            auc = _sums(lseg, P * (2.0 * cn - N), m) / (2.0 * self.w1 * self.w0)
        else:
            auc = _sums(gs, pw * v_sorted, m) / W1[np.searchsorted(lseg, np.arange(m))]
        v = np.empty(ss.shape[0])
        v[order] = v_sorted
        if not part.probabilistic:  # rankings: the AUC alone
            empty = np.empty(0)
            return SliceModel(auc=auc, brier=empty, nll=empty, v=v, ece=empty, corp=[], order=order)
        # the model's Brier score and log loss
        brier_row, nll_row = _per_row_losses(d)
        wr = None if w is None else w
        brier = _sums(seg, brier_row if wr is None else brier_row * wr, m) / self.total
        nll = _sums(seg, nll_row if wr is None else nll_row * wr, m) / self.total
        # the CORP fit: runs of equal probabilities in the model's sort, pooled by PAV within each slice
        ps = d.p[order]
        runs = _run_starts(gs, ps)[0]
        wx = np.add.reduceat(np.ones(ss.shape[0]) if ws is None else ws, runs)
        yx = np.add.reduceat(ys if ws is None else ws * ys, runs)
        rseg = gs[runs]
        first, bw, by = grouped_pav(wx, yx, rseg)
        bf = np.clip(by / bw, 0.0, 1.0)
        bseg = rseg[first]
        nblocks = np.bincount(bseg, minlength=m)
        s_hat = (_sums(bseg, bw * bf * bf, m) - 2.0 * _sums(bseg, bf * by, m) + self.sy) / self.total
        l_hat = -_sums(bseg, xlogy(by, bf) + xlogy(bw - by, 1.0 - bf), m) / self.total
        base = self.sy / self.total
        s_r = base * (1.0 - base)
        l_r = -(xlogy(base, base) + xlogy(1.0 - base, 1.0 - base))
        one = nblocks == 1
        s_hat = np.where(one, s_r, np.minimum(s_hat, s_r))
        l_hat = np.where(one, l_r, np.minimum(l_hat, l_r))
        fit = np.repeat(bf, np.diff(np.r_[first, runs.shape[0]]))
        rbounds = np.r_[0, np.cumsum(np.bincount(rseg, minlength=m))].tolist()
        # MCB, DSC >= 0 (corp_result's max(0.0, .); + 0.0 turns -0.0 into 0.0), as Python floats per slice
        mcb_b, dsc_b = np.maximum(0.0, brier - s_hat) + 0.0, np.maximum(0.0, s_r - s_hat) + 0.0
        mcb_l, dsc_l = np.maximum(0.0, nll - l_hat) + 0.0, np.maximum(0.0, l_r - l_hat) + 0.0
        columns = zip(*(a.tolist() for a in (brier, mcb_b, dsc_b, s_r, nll, mcb_l, dsc_l, l_r, self.count)))
        x = ps[runs]
        unit = ws is None and runs.shape[0] == ss.shape[0]  # unweighted and no ties: every run one row
        ones = np.broadcast_to(1.0, x.shape)  # the weight of unweighted single-row runs, as corp_fit's
        corp = []
        for s, (b, mb, db, ub, ll, ml, dl, ul, n) in enumerate(columns):
            a, e = rbounds[s], rbounds[s + 1]
            single = unit or (ws is None and e - a == n)
            corp.append(CORPResult(x=x[a:e], y=fit[a:e], weight=ones[a:e] if single else wx[a:e],
                                   brier=ScoreDecomposition(score=b, mcb=mb, dsc=db, unc=ub),
                                   log_loss=ScoreDecomposition(score=ll, mcb=ml, dsc=dl, unc=ul), n=n))
        # the debiased ECE on equal-width bins (each row's bin as sorted_bin_sums finds it)
        cell = seg * bins + bin_index(d.p, uniform_edges(bins), "uniform")
        size = m * bins
        wv = np.ones(y.shape[0]) if w is None else w
        sums = [np.bincount(cell, weights=v_, minlength=size).reshape(m, bins)
                for v_ in (wv, wv * wv, wv * d.p, wv * y)]
        ece = debiased_l1(*sums)
        return SliceModel(auc=auc, brier=brier, nll=nll, v=v, ece=ece, corp=corp, order=order)

    def comparison(self, s: int, few_rows: str, n_resamples: int, random_state: Any, bins: int) -> Any:
        """Slice ``s``'s :class:`._compare.ModelComparison`, as :func:`._compare.compare_of` builds it on a
        slice that draws no resamples (``few_rows``: what :func:`few_class_rows` says of it) — but for its
        verdicts, which :func:`._compare._slice_readings` writes (it reads every slice's again, with the
        q-values across the slices): left empty here."""
        part = self.part
        names, pairs, level = part.names, self.pairs, self.level
        nan = float("nan")
        identical = {pair: same[s] for pair, same in self.identical.items()}
        # the slice's own notes of identical pairs (those of all the rows are every slice's)
        own = tuple(identical_note(names[i], names[j]) for (i, j), same in identical.items() if same)
        few_rows_shown = few_rows if not all(identical.values()) else ""
        mods = self.models
        val = self.values
        rows: list[Any] = []
        aucs = {}
        for i, j in pairs:
            if self._same(i, j)[s]:
                aucs[(i, j)] = Estimate(0.0, 0.0, 0.0, 0.0, 1.0)  # one ranking: exactly no difference
                continue
            # DeLong's se, interval and p-value n/a (too few of a class: compare_of's _gated), an equal AUC of
            # two rankings too: their placements differ, so DeLong's variance is not 0 (or is NaN, below two
            # rows of a class), and only (0, 0, 0, 0, 1) — one ranking — is kept
            aucs[(i, j)] = Estimate(val[j]["auc"][s] - val[i]["auc"][s], nan, nan, nan, nan)
        if not part.probabilistic:
            for i, j in pairs:
                rows.append(_row(names, i, j, "auc", val[i]["auc"][s], val[j]["auc"][s], aucs[(i, j)]))
            return ModelComparison(models=names, rows=tuple(rows), corp={}, corp_differences=(),
                                   verdicts=(), n=self.counts[s], level=level, n_resamples=0,
                                   random_state=random_state, bins=bins, score_type=part.score_type,
                                   notes=own + _few_rows_note(few_rows_shown, False),
                                   readings=tuple((identical[p], False, few_rows) for p in pairs),
                                   n_effective=self.kish(s))
        corp = {name: mods[k].corp[s] for k, name in enumerate(names)}
        few_note = self._once(("few", n_resamples), lambda: _few_resamples(n_resamples, level))
        few = bool(few_note)
        diffs = []
        for i, j in pairs:
            paired = self._paired(i, j)[s]
            for t, (metric, values) in enumerate((("brier", "brier"), ("log_loss", "nll"))):
                rows.append(_row(names, i, j, metric, val[i][values][s], val[j][values][s], paired[t]))
            ece = Estimate(val[j]["ece"][s] - val[i]["ece"][s], nan, nan, nan, nan)
            if identical[(i, j)]:
                ece = Estimate(0.0, 0.0, 0.0, 0.0, 1.0)
            rows.append(_row(names, i, j, "ece", val[i]["ece"][s], val[j]["ece"][s], ece))
            rows.append(_row(names, i, j, "auc", val[i]["auc"][s], val[j]["auc"][s], aucs[(i, j)]))
            dec = difference(corp[names[i]], corp[names[j]])
            if identical[(i, j)]:
                bounds, ps = (0.0,) * 4, (1.0 if n_resamples else nan,) * 2
            else:
                bounds, ps = (nan,) * 4, (nan,) * 2
            diffs.append(CORPDifference(names[i], names[j], dec.score, dec.mcb, dec.dsc, dec.unc, bounds[0],
                                        bounds[1], bounds[2], bounds[3], ps[0], ps[1]))
        no_t = _compare.no_t_interval(int(self.count[s]), float(self.total[s]), float(self.total_sq[s]))
        t_na, flat = _compare.t_na_or_flat(rows, no_t)
        all_flat = _compare.all_flat(rows, flat)
        notes = self._once(("notes", own, few_rows_shown, t_na, all_flat, n_resamples),
                           lambda: own + few_note + _few_rows_note(few_rows_shown, True, t_na, all_flat))
        notes += _compare.flat_note(flat)
        return ModelComparison(models=names, rows=tuple(rows), corp=corp, corp_differences=tuple(diffs),
                               verdicts=(), n=self.counts[s], level=level, n_resamples=n_resamples,
                               random_state=random_state, bins=bins, score_type=part.score_type, notes=notes,
                               readings=tuple((identical[p], few, few_rows) for p in pairs),
                               n_effective=self.kish(s))

    def kish(self, s: int) -> float | None:
        """Slice ``s``'s Kish effective size (None unweighted), as :func:`._compare.compare_of` reads it on
        the slice's rows: its header said "20 rows" where the same rows alone say "20 rows, weighted (Kish
        effective size 12.8)"."""
        w = self.part.w
        return None if w is None else kish_size(w[self.bounds[s]:self.bounds[s + 1]])

    def _once(self, key: Any, make: Any) -> Any:
        """``make()``, computed once per ``key`` for the whole batch (the notes many slices share)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def _same(self, i: int, j: int) -> list[bool]:
        return self._once(("same", i, j), lambda: self.same_ranking(i, j).tolist())

    def _paired(self, i: int, j: int) -> list[list[Estimate]]:
        return self._once(("paired", i, j), lambda: self.paired(i, j))

    def same_ranking(self, i: int, j: int) -> np.ndarray:
        """Per slice, :func:`veracity.core._delong.same_ranking` of models i and j: the same placements, or
        (AUCs within 1e-9) j's scores in i's order non-decreasing with steps exactly where i's are."""
        a, b = self.models[i], self.models[j]
        seg, m = self.seg, self.m
        same_v = np.bincount(seg, weights=(a.v != b.v).astype(np.float64), minlength=m) == 0
        si, sj = self.part.rank(i)[a.order], self.part.rank(j)[a.order]
        gs = seg[a.order]
        inside = gs[1:] == gs[:-1]
        bad = inside & (((si[1:] > si[:-1]) != (sj[1:] > sj[:-1])) | (sj[1:] < sj[:-1]))
        order_same = np.bincount(gs[1:][bad], minlength=m) == 0
        return same_v | ((np.abs(a.auc - b.auc) <= 1e-9) & order_same)

    def paired(self, i: int, j: int) -> list[list[Estimate]]:
        """Per slice, the paired Brier and log-loss differences j - i: :func:`._paired.paired_losses`'s
        pilot-centred moments and its finishing (:func:`student_df`, :func:`variance_factor`, Student's t),
        slice by slice in arrays."""
        part, seg, m = self.part, self.seg, self.m
        w = part.w
        di, dj = _per_row_losses(part.data[i]), _per_row_losses(part.data[j])
        columns = []
        for t in (0, 1):
            d = dj[t] - di[t]
            differs = np.bincount(seg, weights=(d != 0).astype(np.float64), minlength=m) > 0
            pilot = _sums(seg, d if w is None else d * w, m) / self.total
            c = d - pilot[seg]
            if w is None:
                s1 = _sums(seg, c, m)
                s1w, s2 = s1, _sums(seg, c * c, m)
            else:
                w2 = w * w
                s1, s1w, s2 = _sums(seg, c * w, m), _sums(seg, c * w2, m), _sums(seg, c * c * w2, m)
            columns.append(self._finish(differs, pilot, s1, s1w, s2))
        return [[columns[0][s], columns[1][s]] for s in range(m)]

    def _finish(self, differs: np.ndarray, pilot: np.ndarray, s1: np.ndarray, s1w: np.ndarray,
                s2: np.ndarray) -> list[Estimate]:
        """:func:`._paired.paired_losses`'s estimate of each slice from its moments (see there)."""
        from scipy.special import stdtr, stdtrit

        n, total, total_sq = self.count, self.total, self.total_sq
        shift = s1 / total
        mean = pilot + shift
        ss = np.maximum(s2 - 2.0 * shift * s1w + shift * shift * total_sq, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            nf = n.astype(np.float64)
            eff = total * total / total_sq
            equal = np.abs(eff - nf) <= 1e-9 * nf
            df = np.where(equal, nf - 1.0, eff - 1.0)
            df = np.where((n >= 2) & (df >= 1.0 - 1e-9), df, np.nan)  # student_df
            if self.part.w is None:
                factor = nf / (nf - 1.0)
            else:  # variance_factor
                q = total_sq / (total * total)
                den = q - 2.0 * self.cube + q * q
                factor = np.where(equal, nf / (nf - 1.0), np.where((df == df) & (den > 0.0), q / den, np.nan))
            factor = np.where(n >= 2, factor, np.nan)
            var = np.where(n > 1, ss / (total * total) * factor, np.nan)
            se = np.sqrt(var)
            some = np.where(df == df, df, 1.0)  # the t law's arguments where df is known (NaN elsewhere)
            quantile = np.where(df == df, stdtrit(some, 0.5 + self.level / 2.0), np.nan)
            p_t = np.where(df == df, 2.0 * stdtr(some, -np.abs(mean) / se), np.nan)
        spread = se > 0.0
        low = np.where(spread, mean - quantile * se, mean - 0.0 * se)
        high = np.where(spread, mean + quantile * se, mean + 0.0 * se)
        p = np.where(spread, p_t, p_of(mean, se))
        # every row's difference the same nonzero value: no se, interval or p-value (._paired.flat_estimate)
        flat = (mean != 0.0) & no_spread(mean, se)
        se, low, high, p = (np.where(flat, np.nan, v) for v in (se, low, high, p))
        zero = Estimate(0.0, 0.0, 0.0, 0.0, 1.0)  # identical losses: exactly 0, no interval to speak of
        values = zip(*(a.tolist() for a in (mean, se, low, high, p)))
        return [Estimate(*v) if d else zero for d, v in zip(differs.tolist(), values)]


def compare_slices(models: Models, rows: list[np.ndarray], *, level: float, n_resamples: int,
                   random_state: Any, bins: int) -> list[Any]:
    """Per slice (``rows``: the row indices of each), its :class:`._compare.ModelComparison`, what
    :func:`._compare.compare_of` gives on ``models.subset(rows[s])``, for :func:`._compare._slice_readings`
    to read (which writes every slice's verdicts: a light slice's are left empty); a slice compare_of raises
    on (a single class) gets the :class:`VeracityError` instead. Light slices (fewer than
    :data:`veracity.core._delong.MIN_CLASS_ROWS` rows of a class) are computed together
    (:class:`LightSlices`), the others one at a time."""
    options = {"level": level, "n_resamples": n_resamples, "random_state": random_state, "bins": bins}
    y, w = models.y, models.w
    out: list[Any] = [None] * len(rows)
    light, few = [], []
    for s, r in enumerate(rows):
        ys = y[r]
        n1 = int(np.count_nonzero(ys))
        if n1 == 0 or n1 == r.shape[0]:  # one class: the error compare_of raises (its first model's sort)
            try:
                rank_model(models.rank(0)[r], ys, None if w is None else w[r])
            except VeracityError as exc:
                out[s] = exc
                continue
        text = few_class_rows(ys, None if w is None else w[r])
        if text:
            light.append(s)
            few.append(text)
        else:
            out[s] = None
    if light:
        seg = np.repeat(np.arange(len(light)), [rows[s].shape[0] for s in light])
        part = models.subset(np.concatenate([rows[s] for s in light]))
        batch = LightSlices(part, seg, len(light), bins, level)
        for k, s in enumerate(light):
            out[s] = batch.comparison(k, few[k], n_resamples, random_state, bins)
    for s, r in enumerate(rows):
        if out[s] is None:  # the bootstrap's slices, and a light slice the batch leaves to compare_of
            try:
                out[s] = _compare.compare_of(renoted(models.subset(r)), **options)
            except VeracityError as exc:
                out[s] = exc
    return out
