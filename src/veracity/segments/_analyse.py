"""From the per (segment, score cell) table to every segment's numbers (numpy, engine-free)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core._binning import enough_effective
from ..core._intervals import binomial_interval
from ..core._weights import honest_size, kish_sizes
from ._cells import MAXES, CellTable, cell_bins
from ._family import decode
from ._mce import ecce_per_segment, family_pvalue, pvalue_from_sigma, sigma_scale
from ._mce_null import N_RESAMPLES, RANDOM_STATE, mce_null_pvalue
from ._result import SegmentRow, SegmentsResult
from ._spec import FeatureSpec
from ._tests import (EXACT_MAX, EXACT_SKEW, LATTICE_MAX, lattice_pvalues, poisson_binomial_pvalue, qvalues,
                     skew_pvalues, z_pvalues)
from ._values import quoted

#: z_{0.975} + z_{0.80}: a gap this many null standard deviations is detected 80 % of the time at 5 %
_DETECT = 1.959963984540054 + 0.8416212335729143


def segment_arrays(table: CellTable, sets: list[tuple[int, ...]], *, ece_bins: int) -> dict[str, Any]:
    """Per-segment sums and derived arrays (segment order: grouping set, then key)."""
    big = int(table.key.max()) + 1 if table.key.size else 1
    comb = table.set_id * big + table.key
    segs, seg = np.unique(comb, return_inverse=True)
    seg = seg.reshape(-1)
    S = segs.size
    tot = {k: np.bincount(seg, weights=v, minlength=S) for k, v in table.sums.items() if k not in MAXES}
    d_cell = table.sums["wy"] - table.sums["wp"]
    # each cell's null variance sum w^2 p(1 - p); on the logit route from the logits (see _cells)
    v_cell = table.sums["w2v"] if "w2v" in table.sums else np.maximum(table.sums["w2p"] - table.sums["w2p2"], 0.0)
    # the (segment, ECE bin) pairs that hold rows: a sparse sum, never a dense S x ece_bins table
    pairs, pair = np.unique(seg.astype(np.int64) * ece_bins + cell_bins(table, ece_bins)[table.cell],
                            return_inverse=True)
    pair = pair.reshape(-1)
    d_bin = np.bincount(pair, weights=d_cell, minlength=pairs.size)
    v_bin = np.bincount(pair, weights=v_cell, minlength=pairs.size)
    seg_of = pairs // ece_bins
    W = tot["w"]
    return {
        "set": segs // big, "key": segs % big, "seg": seg, "tot": tot, "W": W,
        "d": tot["wy"] - tot["wp"], "V": tot["w2v"] if "w2v" in tot else np.maximum(tot["w2p"] - tot["w2p2"], 0.0),
        "ece": np.bincount(seg_of, weights=np.abs(d_bin), minlength=S) / W,
        "ece_floor": np.bincount(seg_of, weights=np.sqrt(2.0 * v_bin / math.pi), minlength=S) / W,
        "ecce": ecce_per_segment(seg, d_cell, S) / W,
    }


def equal_weights(table: CellTable) -> bool:
    """True when every row weighs the same (unweighted, or one constant weight c): then each
    segment's S = Σ w·y is c times a Poisson-binomial count, and the exact test applies as
    unweighted (every cell has Σw = c·n and Σw² = c·Σw, which forces each weight to be c)."""
    if not table.weighted:
        return True
    n, w, w2 = table.sums["n"], table.sums["w"], table.sums["w2"]
    c = float(w.sum() / n.sum())
    return bool(np.allclose(w, c * n, rtol=1e-9, atol=0.0) and np.allclose(w2, c * w, rtol=1e-9, atol=0.0))


def skewness(table: CellTable, seg: np.ndarray, n_segments: int) -> np.ndarray:
    r"""Each segment's skewness of the null law of the label count, :math:`\sum p(1-p)(1-2p) / (\sum
    p(1-p))^{3/2}` (each cell's rows at the cell's mean score; 0 where the variance is 0)."""
    r = np.clip(table.sums["wp"] / np.where(table.sums["w"] > 0, table.sums["w"], 1.0), 0.0, 1.0)
    v = table.sums["n"] * r * (1.0 - r)
    k2 = np.bincount(seg, weights=v, minlength=n_segments)
    k3 = np.bincount(seg, weights=v * (1.0 - 2.0 * r), minlength=n_segments)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(k2 > 0, k3 / np.sqrt(np.where(k2 > 0, k2, 1.0)) ** 3, 0.0)


def largest_jumps(table: CellTable, seg: np.ndarray, n_segments: int) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's largest weight among its rows scored below 1/2, and among those above 1/2 (each
    cell at its mean score; 0 where none): the largest jump of S on the side a rare-positive (resp.
    rare-negative) law leans to."""
    r = table.sums["wp"] / np.where(table.sums["w"] > 0, table.sums["w"], 1.0)
    low, high = np.zeros(n_segments), np.zeros(n_segments)
    np.maximum.at(low, seg, np.where(r < 0.5, table.sums["wmax"], 0.0))
    np.maximum.at(high, seg, np.where(r > 0.5, table.sums["wmax"], 0.0))
    return low, high


def interval_size(tot: dict[str, np.ndarray], V: np.ndarray, *, even: bool) -> np.ndarray:
    r"""The size each segment's interval of the gap takes Wilson on, at its rate r = Σwy/W: the rule of
    :func:`veracity.core._weights.honest_size` (the reliability table's too) on the segment's sums. With equal
    weights (and unweighted) the effective size (Σw)²/Σw², which is n; with uneven weights the smallest of it,
    the observed (sandwich) size r(1 − r)W²/Σw²(y − r)² and calibration's c(1 − c)W²/V (V = Σw²p(1 − p):
    on the logit route from the logits, see :mod:`._cells`). Without it, Wilson on (Σw)²/Σw² alone covered
    down to 54 % (docs/segments.md)."""
    if even:
        return honest_size(tot["w"], tot["w2"], None, None, None, None, even=True)
    return honest_size(tot["w"], tot["w2"], tot["wy"], tot["w2y"], tot["wp"], V)


def analyse(table: CellTable, specs: list[FeatureSpec], sets: list[tuple[int, ...]], *, min_count: int,
            fdr: float, level: float, ece_bins: int, depth: int, notes: tuple[str, ...] = (),
            n_resamples: int = N_RESAMPLES, random_state: Any = RANDOM_STATE,
            weight_scale: float = 1.0) -> SegmentsResult:
    """The rows, tests and MCE of a per (segment, score cell) table. ``weight_scale``: the exact power of two
    the caller's weights were multiplied by (:func:`~veracity.core._validation.scaled_weights`, extreme
    scales only; 1.0 otherwise): every number here is a ratio of the weights, unchanged by it, but the rows'
    and the result's ``weight`` (Σw) are reported in the caller's units, Σw / ``weight_scale`` (weights of
    10¹⁰⁰ read Σw = 118 where the caller's weights summed to 6.6·10¹⁰³)."""
    a = segment_arrays(table, sets, ece_bins=ece_bins)
    tot, W = a["tot"], a["W"]
    n = tot["n"]
    depth_of = np.array([len(sets[s]) for s in a["set"]])
    conf, rate = tot["wp"] / W, tot["wy"] / W
    gap = rate - conf
    # the tests' normal and exact laws need min_count *effective* rows, (Σw)²/Σw² (= n unweighted or
    # with equal weights): 60 rows of which one carries nearly all the weight are one observation,
    # and a z test on it reads one surprising label as 10 sigma (a false discovery in a third of
    # calibrated data sets with log-normal weights). MCGrad's family for the MCE counts rows.
    n_eff = kish_sizes(W, tot["w2"])
    enough_rows = n >= min_count
    sufficient = enough_rows & enough_effective(n_eff, min_count, n)  # up to the sums' rounding
    z, p = z_pvalues(a["d"], a["V"])
    test = np.where(sufficient, "z", "").astype(object)
    even = equal_weights(table)
    if even:  # exact Poisson-binomial for small segments (equal weights c: S = c·Σy)
        # and for larger ones whose law is skewed (few of the rarer label expected): the normal law's far
        # tail, where BH's thresholds lie, is then much thinner than theirs
        skewed = np.abs(skewness(table, a["seg"], n.size)) >= EXACT_SKEW
        small = np.flatnonzero(sufficient & ((n <= EXACT_MAX) | skewed) & (depth_of > 0))
        if small.size:
            starts = np.searchsorted(a["seg"], np.arange(a["set"].size))
            ends = np.r_[starts[1:], a["seg"].size]
            for k in small:
                cells = slice(starts[k], ends[k])  # the segment's score cells
                counts = table.sums["n"][cells]
                rates = table.sums["wp"][cells] / table.sums["w"][cells]
                if "w2v" in table.sums and np.any((rates <= 0.0) | (rates >= 1.0)):
                    continue  # logits whose probability rounds to 0 or 1: the exact law would read them as
                    # certain (p = 0 for one contradicting label); the z test keeps their variance
                p[k] = poisson_binomial_pvalue(int(round(tot["wy"][k] * n[k] / W[k])), counts, rates)
                test[k] = "exact"
    elif "w3k" in tot:  # uneven weights: no exact law; where S's law is skewed (rare events), the shifted
        # gamma law with its three cumulants on the side it leans to (z's tail is far too thin there)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(a["V"] > 0, tot["w3k"] / np.sqrt(np.where(a["V"] > 0, a["V"], 1.0)) ** 3, 0.0)
        ok = sufficient & (np.abs(g) >= EXACT_SKEW) & np.isfinite(g) & np.isfinite(z) & (depth_of > 0)
        if "w2v" in table.sums:  # as for the exact law: logits whose probability rounds to 0 or 1 keep z
            r = table.sums["wp"] / table.sums["w"]
            rounded = ((r <= 0.0) | (r >= 1.0)).astype(np.float64)
            ok &= np.bincount(a["seg"], weights=rounded, minlength=n.size) == 0
        # a few heavy rows can carry most of the variance: S is then near a mixture of atoms that no
        # continuous law spreads right; the largest jump b as an atom of rate lam (module _tests)
        low, high = largest_jumps(table, a["seg"], n.size)
        b = np.where(g > 0, low, high)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            lam = np.fmin(np.abs(tot["w3k"]) / b / b / b, tot["w4v"] / b / b / b / b)
            beta = b / np.sqrt(a["V"])
        lean = np.flatnonzero(ok)
        p[lean] = skew_pvalues(z[lean], g[lean], beta[lean], lam[lean])
        test[lean] = "gamma"
        # below the skewness threshold z stays, but one row whose weight is a standard deviation of S or
        # more, its event rare, is still an atom: on the side the law leans to, the larger p-value
        with np.errstate(invalid="ignore"):  # z = ±inf where V underflows to 0 (g = 0 there): not an atom
            atom = np.flatnonzero(sufficient & ~ok & (depth_of > 0) & (z * g > 0) & np.isfinite(z)
                                  & (beta >= 1.0) & np.isfinite(beta) & (lam > 0) & (lam <= LATTICE_MAX))
        if atom.size:
            p[atom] = np.maximum(p[atom], lattice_pvalues(z[atom], beta[atom], lam[atom]))
    # a score of exactly 0 with label 1 (or 1 with label 0) cannot happen under calibration: such a
    # segment's p-value is 0 whatever its sums say (with every score 0 or 1 and as many of each kind
    # of contradiction, the gap is 0 and the z test alone would read p = 1)
    bad = tot.get("bad", np.zeros(W.size))  # absent: no row is contradicted
    certain = sufficient & (bad > 0)
    p = np.where(certain, 0.0, p)
    test[certain] = "certain"
    tested = sufficient & (depth_of > 0)
    p = np.where(tested, p, np.nan)
    q = qvalues(p, depth_of)
    discovery = tested & (q <= fdr)
    size = interval_size(tot, a["V"], even=even)
    lo, hi = binomial_interval(rate * size, size, method="wilson", level=level)
    sd = np.sqrt(a["V"]) / W
    mdg = _DETECT * sd
    sig = sigma_scale(a["ecce"], sd)
    whole = np.flatnonzero(depth_of == 0)[0]
    in_mce = (depth_of == 0) | enough_rows  # MCGrad's min_samples_per_segment: rows
    uneven = int(np.sum(enough_rows & ~sufficient & (depth_of > 0)))
    # weights below ~1e-221 of the largest (core._weights' note): their squares underflow, so a segment of
    # only such rows reads an effective size of 1 however even its weights are
    tiny = int(np.sum(enough_rows & (tot["w2"] == 0.0) & (W > 0.0) & (depth_of > 0)))
    if uneven - tiny:
        hold = "s hold" if uneven - tiny != 1 else " holds"
        notes = (*notes, f"({uneven - tiny:,} segment{hold} min_count = {min_count:,} rows but weights so "
                         "uneven that the effective size (sum w)^2 / sum w^2 is below it: shown, not tested)")
    if tiny:
        hold = "s hold" if tiny != 1 else " holds"
        notes = (*notes, f"({tiny:,} segment{hold} only rows weighing less than about 1e-221 of the "
                         "largest weight, whose squares underflow: effective size 1, shown, not tested; set "
                         "such weights to 0, or raise them, to test these segments)")
    n_bad = int(bad[whole])
    if n_bad and (certain & tested).any():  # the discoveries' p = 0 needs its reason where they are read
        notes = (*notes, f"({n_bad:,} row{'s score' if n_bad != 1 else ' scores'} exactly 0 or 1 against "
                         f"{'their' if n_bad != 1 else 'its'} label, which cannot happen under calibration: every "
                         "tested segment holding one has p = 0 (test 'certain') and is a discovery, whatever its gap)")
    mce_sigma = float(np.max(sig[in_mce]))
    sd_all = float(sd[whole])
    # MCGrad's mce = mce_sigma * sigma_all is inf * 0 = NaN when every score is 0 or 1: a segment whose
    # certain scores its labels contradict is infinitely many sigmas off, and so is the MCE
    mce = math.inf if math.isinf(mce_sigma) else mce_sigma * sd_all
    if math.isinf(mce_sigma):
        notes = (*notes, _infinite_note(a, sig, in_mce, whole, sets, specs))
    mce_p = float(pvalue_from_sigma(np.array([mce_sigma]))[0])  # MCGrad's: of one segment, Brownian
    mce_k = int(in_mce.sum())
    mce_bonferroni = float(family_pvalue(mce_sigma, mce_k))  # MCGrad's law, Bonferroni over the family
    # the family's p-value: the maximum itself drawn under calibration (valid at any event rate)
    mce_family_p = mce_null_pvalue(table, sets, specs, a["seg"], in_mce, W, sd, n_resamples=n_resamples,
                                   random_state=random_state)
    share = W / W[whole]
    with np.errstate(divide="ignore"):
        importance = np.where(tested, -np.log10(np.maximum(p, 1e-300)) * share, 0.0)

    rows: list[SegmentRow] = []
    codes_cache: dict[int, np.ndarray] = {}
    order_in_set: dict[int, np.ndarray] = {}
    for sid in np.unique(a["set"]):
        members = np.flatnonzero(a["set"] == sid)
        order_in_set[int(sid)] = members
        codes_cache[int(sid)] = decode(specs, sets[sid], a["key"][members])
    for sid, members in order_in_set.items():
        codes = codes_cache[sid]
        s = sets[sid]
        if not s:
            continue
        for j, i in enumerate(members):
            feats = {specs[f].name: specs[f].labels[int(codes[j, t])] for t, f in enumerate(s)}
            text = " & ".join(f"{quoted(k, level=False)}={v}" for k, v in feats.items())
            rows.append(SegmentRow(
                segment=text, features=feats, depth=int(depth_of[i]), n=int(n[i]),
                weight=float(W[i]) / weight_scale,
                conf=float(conf[i]), rate=float(rate[i]), gap=float(gap[i]),
                ci_low=float(lo[i] - conf[i]), ci_high=float(hi[i] - conf[i]),
                z=float(z[i]) if tested[i] and not certain[i] else None,
                p_value=float(p[i]) if tested[i] else None, q_value=float(q[i]) if tested[i] else None,
                sufficient=bool(sufficient[i]), discovery=bool(discovery[i]),
                test=str(test[i]) if tested[i] else None, ece=float(a["ece"][i]),
                ece_floor=float(a["ece_floor"][i]), min_detectable_gap=float(mdg[i]), ecce=float(a["ecce"][i]),
                ecce_sigma=float(sig[i]), importance=float(importance[i]), level=level))
    rows.sort(key=lambda r: (not r.discovery, -r.importance if r.discovery else 0.0,
                             r.p_value if r.p_value is not None else 2.0, r.depth, r.segment))
    return SegmentsResult(
        rows=tuple(rows), n=int(n[whole]), weight=float(W[whole]) / weight_scale, conf=float(conf[whole]),
        rate=float(rate[whole]), features=tuple(sp.name for sp in specs), depth=depth, fdr=fdr,
        min_count=min_count, level=level, mce=mce, mce_sigma=mce_sigma, mce_pvalue=mce_p,
        mde=5.0 * sd_all, global_ecce=float(a["ecce"][whole]), n_segments=len(rows), n_tested=int(tested.sum()),
        cells=table.mode, levels={sp.name: list(sp.labels) for sp in specs}, notes=notes,
        mce_family_pvalue=mce_family_p, mce_segments=mce_k, mce_family_pvalue_mcgrad=mce_bonferroni,
        n_resamples=n_resamples,
        random_state=int(random_state) if isinstance(random_state, (int, np.integer)) else None)


def _infinite_note(a: dict[str, Any], sig: np.ndarray, in_mce: np.ndarray, whole: int,
                   sets: list[tuple[int, ...]], specs: list[FeatureSpec]) -> str:
    """Why the MCE is infinite: the segment (the largest such) whose scores are all exactly 0 or 1
    with labels that contradict them."""
    k = whole
    if np.isinf(sig[whole]):
        where = "every score is exactly 0 or 1"
    else:
        k = int(max(np.flatnonzero(in_mce & np.isinf(sig)), key=lambda i: a["W"][i]))
        s = sets[int(a["set"][k])]
        codes = decode(specs, s, a["key"][k:k + 1])[0]
        seg = " & ".join(f"{quoted(specs[f].name, level=False)}={specs[f].labels[int(c)]}" for f, c in zip(s, codes))
        where = f"every score in segment {seg} is exactly 0 or 1"
    bad = int(a["tot"]["bad"][k]) if "bad" in a["tot"] else 0
    of = " of its" if k != whole else ""
    rows = (f"{bad:,}{of} rows score exactly 0 or 1 against their label" if bad != 1
            else f"1{of} row{'s' if of else ''} scores exactly 0 or 1 against its label")
    return (f"(MCE and its sigma are infinite: {where}, and {rows} — impossible under calibration, so no "
            "sigma scale is finite)")
