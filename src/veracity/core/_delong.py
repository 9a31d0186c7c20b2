r"""DeLong's paired test of two AUCs, from placements found with one sort per model.

**Placements** (DeLong, DeLong & Clarke-Pearson 1988). With :math:`\psi(x, z) = [x > z] + \tfrac12[x = z]`,
each positive row i has :math:`V_{10}(i) = \sum_{j: y_j = 0} w_j\,\psi(s_i, s_j) / W_0` (the share of
negatives it outranks) and each negative row j has :math:`V_{01}(j) = \sum_{i: y_i=1} w_i\,\psi(s_i, s_j) / W_1`;
the AUC is the weighted mean of either. Sun & Xu (2014) obtain them from midranks; here one
``argsort`` of the model's scores gives, for every tie level, the negative mass strictly below
and the positive mass strictly above, so all placements cost O(N log N) — never the O(N²)
kernel (the tests check the two agree to 1e-10).

**Covariance.** For models a, b the placements' (weighted) covariances over the positives and
over the negatives give

.. math:: \mathrm{Cov}(\hat A_a, \hat A_b) = \kappa_1\frac{\sum_{y_i=1} w_i^2 (V^a_{10}(i) - \hat A_a)(V^b_{10}(i) - \hat A_b)}{W_1^2}
          + \kappa_0\frac{\sum_{y_j=0} w_j^2 (V^a_{01}(j) - \hat A_a)(V^b_{01}(j) - \hat A_b)}{W_0^2}

with :math:`\kappa_c` the paired mean's unbiasing factor over class c's weights
(:mod:`veracity.core._paired_mean`: :math:`\kappa = q/(q - 2\sum h^3 + q^2)`, :math:`h = w/\sum w`,
:math:`q = \sum h^2`) — unweighted (and for equal weights) Bessel's :math:`n_c/(n_c - 1)`, so exactly
DeLong's :math:`S_{10}/n_1 + S_{01}/n_0`; :math:`n_1`, :math:`n_0` count the rows of positive weight (a
row of weight 0 is no row). Bessel's factor under unequal weights left the variance low (exponential
weights: about 20 % with 10-15 positives, 7 % with 100), since a heavy row pulls the class mean toward
itself. The matrix is symmetrised, :math:`(C + C^\top)/2`: weighted, :math:`C_{ab}` and :math:`C_{ba}`
are two sums of the same products that round apart, and swapping two models must mirror their test to
the bit (``vc.compare_models`` and the calibrator ledger alike). A class whose
weight one row all but carries (Kish's effective size :math:`(\sum w)^2/\sum w^2` below 2) has no
variance either: that row sits at the class's weighted mean, so the sum of squares holds only the
negligible others and would claim a precise AUC from what is in effect one row.

**Test.** The paired test of :math:`\Delta = \hat A_b - \hat A_a` has variance
:math:`v = \mathrm{Var}_a + \mathrm{Var}_b - 2\,\mathrm{Cov}_{ab} = v_1 + v_0`, the sum of a positives'
and a negatives' term, each estimated from its class alone. Its reference law is Student's t on the
Welch–Satterthwaite degrees of freedom

.. math:: \nu = \frac{(v_1 + v_0)^2}{v_1^2/\nu_1 + v_0^2/\nu_0},\qquad \nu_c = n_c - 1
          \ \text{(weighted: Kish's effective size of class c less one)}

(:func:`delong_test`): :math:`\Delta \pm t_{\nu, 1-\alpha/2}\sqrt v`, :math:`p = 2F_\nu(-|\Delta|/\sqrt v)`.
With hundreds of rows of each class :math:`\nu` is in the hundreds and this is DeLong's normal test
(the variance is DeLong's to the bit unweighted); with 10-30 rows of a class the normal law rejected two
equally good models in 7.3 % of seeded draws at 5 % (10 positives; weighted 13 %), t on :math:`\nu`
in 4-5 % (tests/comparison/test_delong_level_r23.py). Below two rows of positive weight in a class
there is no variance (NaN).
Two models that rank the rows identically (ties included) differ by exactly 0, never by the
float noise of two sums (:func:`delong_test`), and an unweighted AUC is exact,
:math:`2U / (2 n_1 n_0)` from integer counts, whether or not the scores tie.

The one implementation of DeLong in veracity: ``vc.compare_models``
(:mod:`veracity.comparison._delong` re-exports it) and the calibrator ledger's AUC change
(``vc.compare``, :func:`delong_difference`) both read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._paired_mean import Estimate, p_of, p_t, student_df, t_of, variance_factor, weight_sums, z_of
from ._parallel import submit
from ._validation import VeracityError
from ._weights import kish_size


@dataclass(frozen=True, eq=False)
class Ranked:
    """One model's scores in sorted order: ``order`` (a stable-enough argsort), the sorted scores,
    labels and weights, and the DeLong placement ``v`` of every row (original order)."""

    order: np.ndarray
    scores: np.ndarray
    y: np.ndarray
    w: np.ndarray | None
    v: np.ndarray
    auc: float
    tied: bool = True  # False: the sorted scores are strictly increasing


#: bits of the packed sort key (see :func:`_argsort`): below 2**62, so that plus 2**52 it is a normal double
KEY_BITS = 62

#: rows per piece of the chunked passes (their temporaries stay in cache and are never n-sized:
#: a fresh n-sized array costs its page faults, about a tenth of a second per 10^7 rows)
CHUNK = 1 << 16


def _sort_keys(s: np.ndarray) -> np.ndarray:
    """uint64 keys ordered like the float64 values (sign-magnitude to offset binary): negative
    values have every bit flipped, the others only the sign bit."""
    bits = s.view(np.uint64)
    flip = bits >> np.uint64(63)
    flip *= np.uint64((1 << 63) - 1)
    flip |= np.uint64(1 << 63)
    flip ^= bits
    return flip


def _from_keys(keys: np.ndarray) -> np.ndarray:
    """The float64 values of order-preserving keys (the inverse of :func:`_sort_keys`)."""
    keys = keys.astype(np.uint64)
    negative = keys < np.uint64(1 << 63)
    bits = np.where(negative, ~keys, keys ^ np.uint64(1 << 63))
    return bits.view(np.float64)


def _key_span(s: np.ndarray, signed: bool, lo: float | None = None, hi: float | None = None) -> tuple[np.uint64, int]:
    """``(lowest key, bits of the key range)`` of float64 ``s`` (keys as in :func:`_sort_keys`,
    or the raw bits when no value has its sign bit set): every key lies in
    ``[lowest, lowest + 2**bits)``. Signed, a 0 at an end stands for -0.0 (lowest) or +0.0
    (highest), whichever of the two the data holds. ``lo``, ``hi``: the minimum and maximum, when known."""
    lo = float(s.min()) if lo is None else lo
    hi = float(s.max()) if hi is None else hi
    if signed:
        ends = _sort_keys(np.array([-0.0 if lo == 0.0 else lo, 0.0 if hi == 0.0 else hi]))
    else:
        ends = np.array([lo, hi]).view(np.uint64)
    return ends[0], int(ends[1] - ends[0]).bit_length()


def argsort(s: np.ndarray, y: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """``(order, s[order])`` — and ``y[order]`` when 0/1 labels ``y`` are given — of float64 ``s``
    (equal values in any order), about 3x faster than ``np.argsort``; see :func:`_argsort`."""
    out = _argsort(s, y)
    return out[:3] if y is not None else out[:2]


def _argsort(s: np.ndarray, y: np.ndarray | None = None) -> tuple[Any, ...]:
    """``(order, s[order])`` — and ``y[order]`` when 0/1 labels ``y`` are given — of float64 ``s``
    (equal values in any order), about 3x faster than ``np.argsort``.

    The row index is packed into the low bits of the value's order-preserving 64-bit key, and
    the packed keys are sorted as float64 (numpy's vectorised float sort, about 30 % faster here
    than its uint64 sort): a key below :math:`2^{62}` plus :math:`2^{52}` is the bit pattern of a
    positive, normal, finite double, and such doubles order as their bit patterns do. The key is
    taken relative to the lowest one and shifted right by just what the index needs (``drop``
    bits: the key range has ``b`` bits, the index ``i``, so ``drop = max(0, b + i - 62)``), so the values keep
    every bit the range allows — for probabilities in (0, 1) about 5 more than the raw key's
    top bits. Rows whose kept bits agree but whose values differ are then put in order by a
    second, small sort. Inputs whose values crowd the kept bits fall back to ``np.argsort``.
    A label rides along as the lowest bit, so the sorted labels come without a second
    random-access pass.

    Returns ``(order, sorted s, sorted y or None, strict)``, ``strict`` True when the sorted
    values are known to be strictly increasing (no ties; one comparison pass finds both that
    and that no fix-up is needed).
    """
    n = s.shape[0]
    label = 0 if y is None else 1

    def done(order: np.ndarray, ss: np.ndarray, ys: np.ndarray | None = None,
             strict: bool = False) -> tuple[Any, ...]:
        return order, ss, (None if y is None else (y[order] if ys is None else ys)), strict

    index_bits = max(1, (n - 1).bit_length()) + label
    if n < 2 or index_bits > 40:  # beyond 10^12 rows: numpy's argsort
        order = np.argsort(s)
        return done(order, s[order])
    shift = np.uint64(index_bits)
    low = np.uint64((1 << index_bits) - 1)
    smallest, largest = float(s.min()), float(s.max())
    # a sign bit set: below 0, or -0.0 (which only a scan tells from +0.0)
    signed = smallest < 0.0 or (smallest == 0.0 and bool(np.signbit(s).any()))
    base, span = _key_span(s, signed, smallest, largest)
    drop = np.uint64(max(0, span + index_bits - KEY_BITS))
    normal = np.uint64(1 << 52)  # the smallest normal double's bits
    packed = np.empty(n, dtype=np.uint64)
    step = 1 + label
    for a in range(0, n, CHUNK):  # built in cache-sized pieces: one n-sized allocation in all
        e = min(n, a + CHUNK)
        part = packed[a:e]
        np.subtract(_sort_keys(s[a:e]) if signed else s[a:e].view(np.uint64), base, out=part)
        part >>= drop
        part <<= shift
        part |= np.arange(step * a, step * e, step, dtype=np.uint64)  # index (<< 1 | label)
        if y is not None:  # label == 1
            np.bitwise_or(part, y[a:e] == 1.0, out=part)
        part += normal  # below 2**62 + 2**52: a positive normal double (never inf or NaN)
    packed.view(np.float64).sort()  # the doubles' order is the keys' order; the low bits are kept
    ys = None if not label else np.empty(n)
    one = np.uint64(1)
    for a in range(0, n, CHUNK):  # the index (and label) of each sorted key: one cache-sized pass
        part = packed[a:a + CHUNK]
        part &= low
        if ys is not None:
            np.bitwise_and(part, one, out=ys[a:a + CHUNK], casting="unsafe")
            part >>= one
    order = packed.view(np.int64)
    ss = s[order]
    if not np.any(ss[1:] <= ss[:-1]):  # strictly increasing: sorted, and no ties
        return done(order, ss, ys, True)
    descending = ss[1:] < ss[:-1]
    if not descending.any():
        return done(order, ss, ys)
    bad = np.flatnonzero(descending)
    # the groups of equal kept bits that hold unsorted values: sort each by value (the kept bits
    # are non-decreasing along the sorted rows, so each group is found by binary search): a
    # group's rows are exactly the values from its smallest key's to its largest key's, and
    # "value below a bound" is monotone along the rows, so ``searchsorted`` finds each group
    # without computing every row's bits. The largest key (not the next group's smallest) never
    # wraps past 2**64; -0.0 and +0.0, adjacent keys but equal values, may straddle two groups:
    # each group starts where the one before ends
    bad_keys = _sort_keys(ss[bad]) if signed else ss[bad].view(np.uint64)
    groups = np.unique((bad_keys - base) >> drop) << drop
    groups += base
    value_of = _from_keys if signed else (lambda k: k.view(np.float64))  # raw bits when unsigned
    lo = np.searchsorted(ss, value_of(groups), side="left")
    groups += (np.uint64(1) << drop) - np.uint64(1)
    hi = np.searchsorted(ss, value_of(groups), side="right")
    np.maximum(lo[1:], hi[:-1], out=lo[1:])
    np.maximum(hi, lo, out=hi)
    size = int((hi - lo).sum())
    if size > n // 4:
        order = np.argsort(s)
        return done(order, s[order])
    members = np.repeat(lo - np.cumsum(np.r_[0, (hi - lo)[:-1]]), hi - lo) + np.arange(size)
    owner = np.repeat(np.arange(lo.size), hi - lo)
    fix = members[np.lexsort((ss[members], owner))]
    order[members] = order[fix]
    ss[members] = ss[fix]
    if ys is not None:
        ys[members] = ys[fix]
    return done(order, ss, ys)


def rank_model(s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> Ranked:
    """Placements of one model (see the module doc); one sort, the rest linear."""
    n = s.shape[0]
    order, ss, ys, strict = _argsort(s, y)
    if w is None and (strict or not np.any(ss[1:] == ss[:-1])):
        return _untied(order, ss, ys)
    pos = ys == 1.0
    ws = None
    if w is None:
        pw = pos.astype(np.float64)
        nw = 1.0 - pw
    else:
        ws = w[order]
        pw = np.where(pos, ws, 0.0)
        nw = ws - pw
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(ss[1:], ss[:-1], out=new[1:])
    tied = not new.all()
    if not tied:  # every row is its own level
        level = None
        P, N = pw, nw
    else:
        level = np.cumsum(new) - 1
        P = np.bincount(level, weights=pw)
        N = np.bincount(level, weights=nw)
    W1, W0 = float(P.sum()), float(N.sum())
    if not (W1 > 0 and W0 > 0):
        only = "1" if W0 == 0 else "0"
        raise VeracityError(
            f"AUC needs both classes; all {n} labels are {only}. Compare the models on rows that contain "
            "positives and negatives")
    below_neg = np.cumsum(N)
    below_neg -= N
    below_neg += 0.5 * N  # negatives strictly below, and half of those tied
    below_neg /= W0
    above_pos = W1 - np.cumsum(P)
    above_pos += 0.5 * P
    above_pos /= W1
    if level is not None:
        below_neg, above_pos = below_neg[level], above_pos[level]
    v_sorted = np.where(pos, below_neg, above_pos)
    if w is None:  # integer counts: 2U = Σ_levels P (2·N below + N), exact below 2**53, so equal AUCs compare equal
        twice = 2.0 * np.cumsum(N) - N
        auc = float(np.dot(P, twice)) / (2.0 * W1 * W0)
    else:
        auc = float(np.dot(pw, v_sorted) / W1)
    v = np.empty(n)
    v[order] = v_sorted
    return Ranked(order=order, scores=ss, y=ys, w=ws, v=v, auc=auc, tied=tied)


def _untied(order: np.ndarray, ss: np.ndarray, ys: np.ndarray) -> Ranked:
    r"""Unweighted placements without ties, from integer counts. With :math:`c_i` the positives
    among the first i sorted rows (1-based), a positive at position i has :math:`i - c_i`
    negatives below it and a negative has :math:`n_1 - c_i` positives above it, so

    .. math:: v_i = \frac{n_1 - c_i + y_i\,(i - n_1)}{n_1 + y_i\,(n_0 - n_1)},
              \qquad U = \sum_{y_i = 1} (i - c_i)

    (every term an integer below :math:`2^{53}`, so the float64 arithmetic is exact up to the one
    division, which is the division by :math:`n_0` or :math:`n_1` itself). In cache-sized pieces,
    into reused buffers: the placements are the one n-sized array."""
    n = ss.shape[0]
    n1 = int(np.count_nonzero(ys))  # 0/1 labels: the positives are the nonzero ones
    n0 = n - n1
    if n1 == 0 or n0 == 0:
        only = "1" if n0 == 0 else "0"
        raise VeracityError(
            f"AUC needs both classes; all {n} labels are {only}. Compare the models on rows that contain "
            "positives and negatives")
    u = 0  # the Mann-Whitney U: Σ over positives of the negatives below them, exact
    v = np.empty(n)
    buf = np.empty((3, min(n, CHUNK)))
    f1, gap = float(n1), float(n0 - n1)
    carry = 0.0
    for a in range(0, n, CHUNK):
        e = min(n, a + CHUNK)
        y = ys[a:e]
        c, num, den = buf[0, :e - a], buf[1, :e - a], buf[2, :e - a]
        np.cumsum(y, out=c)
        c += carry  # positives up to each position
        carry = float(c[-1])
        num[:] = np.arange(a + 1 - n1, e + 1 - n1, dtype=np.float64)  # position - n1
        num *= y
        num += f1
        num -= c
        # integers: exact in float64 (a piece's sum is far below 2**53); no BLAS dot, whose
        # threads would compete with the other models' tasks
        u += int(np.multiply(num, y, out=den).sum())
        np.multiply(y, gap, out=den)
        den += f1
        num /= den
        v[order[a:e]] = num
    return Ranked(order=order, scores=ss, y=ys, w=None, v=v, auc=u / (n1 * n0), tied=False)


def rank_models(scores: list[np.ndarray], y: np.ndarray, w: np.ndarray | None) -> list[Ranked]:
    """:func:`rank_model` of every model, the sorts side by side on the shared pool (numpy
    releases the GIL while sorting)."""
    futures = [submit(y.shape[0], rank_model, s, y, w) for s in scores]
    return [f.result() for f in futures]


class DeLongCovariance(np.ndarray):
    r"""The (m, m) covariance matrix of the m models' AUCs (a numpy array, symmetric to the bit), carrying
    ``by_class`` — its two terms, over the positives and over the negatives, shape (2, m, m) — and ``nu``,
    each class's degrees of freedom :math:`(\nu_1, \nu_0)`, from which :func:`delong_test` takes the
    Welch–Satterthwaite degrees of freedom of a pair (see the module doc)."""

    by_class: np.ndarray | None
    nu: tuple[float, float]

    def __array_finalize__(self, obj: Any) -> None:
        self.by_class = getattr(obj, "by_class", None)
        self.nu = getattr(obj, "nu", (float("inf"), float("inf")))


def _class_factor(w: np.ndarray | None, n: int) -> tuple[float, float]:
    r"""``(kappa, nu)`` of one class: Bessel's n/(n - 1) and n - 1 unweighted; weighted (``w`` the class's
    weights, ``n`` its rows of positive weight) the paired mean's :math:`\kappa` and Kish's effective
    size less one (:func:`veracity.core._paired_mean.variance_factor`, :func:`student_df`)."""
    if w is None:
        return class_factor(n)
    total, total_sq, cube_share = weight_sums(w, w.shape[0])  # rows of weight 0 add nothing to the sums
    return class_factor(n, total, total_sq, cube_share)


def class_factor(n: int, total: float | None = None, total_sq: float = 0.0,
                 cube_share: float | None = 0.0) -> tuple[float, float]:
    """:func:`_class_factor` from a class's sums: ``(n/(n - 1), n - 1)`` without ``total`` (unweighted),
    else the paired mean's factor and Kish's effective size less one (also for a lazy frame's sums)."""
    if total is None:
        return n / (n - 1.0), float(n - 1)
    return variance_factor(n, total, total_sq, cube_share), student_df(n, total, total_sq)


def delong_covariance(ranked: list[Ranked], y: np.ndarray, w: np.ndarray | None) -> DeLongCovariance:
    """The (m, m) covariance matrix of the m models' AUCs (see the module doc), with its two class terms
    and the classes' degrees of freedom (:class:`DeLongCovariance`)."""
    pos = y == 1.0
    n = y.shape[0]
    n1 = int(np.count_nonzero(pos))
    n0 = n - n1
    if w is not None and not w.all():  # rows of weight 0 are no rows (vc.compare_models drops them first)
        counted = w > 0
        n1 = int(np.count_nonzero(pos & counted))
        n0 = int(np.count_nonzero(counted)) - n1
    m = len(ranked)
    if n1 < 2 or n0 < 2 or (w is not None and min(kish_size(w[pos]), kish_size(w[~pos])) < 2.0 - 1e-9):
        out: DeLongCovariance = np.full((m, m), np.nan).view(DeLongCovariance)
        out.by_class, out.nu = np.full((2, m, m), np.nan), (float("nan"), float("nan"))
        return out
    auc = np.array([r.auc for r in ranked])[:, None]
    half = (n // 2 // CHUNK + 1) * CHUNK  # two halves, side by side on the shared pool
    parts = [submit(n, _cross_products, ranked, auc, y, pos, w, a, min(n, a + half)) for a in range(0, n, half)]
    both, on_pos = np.zeros((m, m)), np.zeros((m, m))
    for f in parts:
        b, p = f.result()
        both += b
        on_pos += p
    if w is None:
        t1, t0 = float(n1), float(n0)
        (k1, nu1), (k0, nu0) = _class_factor(None, n1), _class_factor(None, n0)
    else:
        w1, w0 = w[pos], w[~pos]
        t1 = float(w1.sum())
        t0 = float(w.sum()) - t1
        (k1, nu1), (k0, nu0) = _class_factor(w1, n1), _class_factor(w0, n0)
    terms = np.stack([on_pos * (k1 / (t1 * t1)), (both - on_pos) * (k0 / (t0 * t0))])
    # symmetric to the bit: weighted, cov[i, j] and cov[j, i] are two sums of the same products taken as
    # (D_i w^2) D_j and (D_j w^2) D_i, which round apart, so swapping two models moved their ΔAUC
    # interval's ends and p-value in the last bits (vc.compare_models and the calibrator ledger alike)
    terms = (terms + terms.transpose(0, 2, 1)) / 2.0
    cov: DeLongCovariance = (terms[0] + terms[1]).view(DeLongCovariance)
    cov.by_class, cov.nu = terms, (nu1, nu0)
    return cov


def satterthwaite_df(cov: np.ndarray, i: int, j: int) -> float:
    r"""Welch–Satterthwaite degrees of freedom of the variance of :math:`\hat A_j - \hat A_i`:
    :math:`(v_1 + v_0)^2 / (v_1^2/\nu_1 + v_0^2/\nu_0)`, :math:`v_c` the class's term of the pair's
    variance and :math:`\nu_c` its degrees of freedom (:class:`DeLongCovariance`); infinite (the normal
    law) for a plain matrix, or where the variance is 0."""
    if not isinstance(cov, DeLongCovariance) or cov.by_class is None:
        return float("inf")
    terms, (nu1, nu0) = cov.by_class, cov.nu
    v1, v0 = (float(t[i, i] + t[j, j] - 2.0 * t[i, j]) for t in terms)
    return welch_df(v1, v0, nu1, nu0)


def welch_df(v1: float, v0: float, nu1: float, nu0: float) -> float:
    r""":math:`(v_1 + v_0)^2 / (v_1^2/\nu_1 + v_0^2/\nu_0)` of two class terms (each clipped at 0) with their
    degrees of freedom; infinite where the variance is 0, NaN where a term is."""
    v1, v0 = max(v1, 0.0), max(v0, 0.0)
    den = v1 * v1 / nu1 + v0 * v0 / nu0
    if not den > 0.0:
        return float("inf") if den == 0.0 else float("nan")
    return float((v1 + v0) ** 2 / den)


#: DeLong's test (and the paired bootstrap of ``vc.compare_models``) needs at least this many rows
#: of each class (weighted: the class's Kish effective size :math:`(\sum w)^2/\sum w^2`) — veracity's rule
#: that a normal approximation of a count needs 10 of each outcome
#: (``veracity.delayed._ppi_sums.EXACT_BELOW``, the rule of ``vc.ppi_mean``). Below it the placements'
#: sampling law is degenerate: with 2-3 positives DeLong called two equally good models different in
#: 10-40 % of draws at 5 % (tests/comparison/test_cmp_tiny_samples_r21.py), so ``vc.compare_models`` and
#: the calibrator ledger (``vc.compare``) show the ΔAUC interval and p-value n/a.
MIN_CLASS_ROWS = 10


def few_class_rows(y: np.ndarray, w: np.ndarray | None) -> str:
    """How many rows of each class, when a class has fewer than :data:`MIN_CLASS_ROWS` (weighted: by its Kish
    effective size) — "3 positive and 397 negative rows" — else "" (0/1 labels ``y``)."""
    if w is None:
        k1 = int(np.count_nonzero(y))
        sizes = [float(k1), float(y.shape[0] - k1)]
    else:  # each class's (Σw)²/Σw² from sums over the rows (no per-class copy)
        s1, q1 = float(np.dot(w, y)), float(np.dot(w * w, y))
        s0, q0 = float(w.sum()) - s1, float(np.dot(w, w)) - q1
        sizes = [s * s / q if q > 0 else 0.0 for s, q in ((s1, q1), (s0, q0))]
    return few_rows_text(sizes[0], sizes[1], w is not None, y.shape[0])


def few_rows_text(size1: float, size0: float, weighted: bool, n_rows: int) -> str:
    """:func:`few_class_rows`'s words from the classes' sizes (rows; weighted, Kish's effective sizes) — also
    for sums without rows (a lazy frame's fit)."""
    if min(size1, size0) >= MIN_CLASS_ROWS * (1.0 - 1e-9):  # equal weights read n to rounding, as student_df does
        return ""
    if not weighted:
        k1, k0 = int(size1), int(size0)
        return f"{k1:,} positive and {k0:,} negative row{'s' if k0 != 1 else ''}"
    return f"Kish effective sizes {size1:.1f} positive and {size0:.1f} negative of the {n_rows:,} weighted rows"




def _cross_products(ranked: list[Ranked], auc: np.ndarray, y: np.ndarray, pos: np.ndarray, w: np.ndarray | None,
                    start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Over rows ``start:stop``: :math:`\sum w^2 D D^T` over all rows and over the positives, D the
    placements minus the AUCs (one row per model), in cache-sized pieces (no n-sized temporaries)."""
    m = len(ranked)
    both, on_pos = np.zeros((m, m)), np.zeros((m, m))
    for a in range(start, stop, CHUNK):
        e = min(stop, a + CHUNK)
        D = np.vstack([r.v[a:e] for r in ranked])
        D -= auc  # placement minus AUC
        u = y[a:e] if w is None else np.where(pos[a:e], w[a:e] ** 2, 0.0)  # 0/1 labels: 1 on positives
        Dw = D if w is None else D * (w[a:e] ** 2)
        # einsum's own loops, not BLAS: OpenBLAS would thread each product and compete with the
        # other half and the models' tasks
        both += np.einsum("ik,jk->ij", Dw, D)
        on_pos += np.einsum("ik,jk->ij", D * u, D)
    return both, on_pos


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.array_equal`` of two equal-length arrays, deciding on the first piece when it differs
    there (as it does for any two different models) without a pass over every row."""
    return a is b or (bool(np.array_equal(a[:CHUNK], b[:CHUNK])) and bool(np.array_equal(a, b)))


def same_ranking(a: Ranked, b: Ranked) -> bool:
    """Whether two models order the rows identically, ties included: the same placements, or (when the
    placements' float sums differ in their last bits, as weighted sums taken in another order may) the
    second model's scores, in the first's sorted order, non-decreasing with equal values exactly where
    the first's are equal."""
    if _same(a.v, b.v):
        return True
    if abs(a.auc - b.auc) > 1e-9:  # a different AUC: a different ranking (no O(n) pass)
        return False
    sb = np.empty(b.scores.shape[0])
    sb[b.order] = b.scores
    sb = sb[a.order]  # b's scores in a's order
    step_a = a.scores[1:] > a.scores[:-1]
    step_b = sb[1:] > sb[:-1]
    return bool(np.array_equal(step_a, step_b) and not np.any(sb[1:] < sb[:-1]))


def delong_test(ranked: list[Ranked], cov: np.ndarray, i: int, j: int, level: float) -> Estimate:
    r"""Paired DeLong interval and p-value of ``AUC_j - AUC_i``: :math:`\Delta \pm t_{\nu}\,\mathrm{se}` with
    :math:`\mathrm{se}^2 = \mathrm{Var}_i + \mathrm{Var}_j - 2\,\mathrm{Cov}_{ij}` (clipped at 0) and
    :math:`p = 2F_\nu(-|\Delta|/\mathrm{se})`, Student's t on the Welch–Satterthwaite degrees of freedom
    :math:`\nu` of the two class terms (:func:`satterthwaite_df`; the normal law for a plain covariance
    matrix); exactly ``(0, 0, 0, 0, 1)`` for two identical rankings
    (:func:`same_ranking`); NaN se, interval and p below two rows of positive weight in a class, and
    where two different rankings leave a variance of 0 (every placement difference the same within
    each class: both models separate the classes perfectly)."""
    diff = ranked[j].auc - ranked[i].auc
    var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
    if same_ranking(ranked[i], ranked[j]):
        diff, var = 0.0, 0.0  # the same ranking: exactly no difference
    return difference_estimate(diff, var, lambda: satterthwaite_df(cov, i, j), level)


def difference_estimate(diff: float, var: float, df: Callable[[], float], level: float) -> Estimate:
    r"""A DeLong difference's :class:`Estimate` from its variance: :math:`\Delta \pm t_{\nu}\,\mathrm{se}` and
    :math:`p = 2F_\nu(-|\Delta|/\mathrm{se})` with ``df()`` the degrees of freedom :math:`\nu`; NaN se where
    ``var`` is, or where a variance of 0 sits beside a difference (perfect separation is no certainty); the
    normal law's edge cases where there is no spread."""
    se = float(np.sqrt(max(var, 0.0))) if var == var else float("nan")
    if diff != 0.0 and se <= 1e-9 * abs(diff):
        # different rankings whose placement differences are constant within each class (both models
        # separate the classes perfectly, one of them inverted): DeLong's variance estimate is 0, which
        # is no evidence of certainty (AUC 1 against 0 on 4 rows read p = 0) — no variance, no test
        se = float("nan")
    if not se > 0.0:  # no spread (identical rankings) or no variance: the normal law's edge cases
        z = z_of(level)
        return Estimate(diff, se, diff - z * se, diff + z * se, float(p_of(diff, se)))
    nu = df()
    q = t_of(level, nu)
    return Estimate(diff, se, diff - q * se, diff + q * se, p_t(diff, se, nu))


def auc_interval(ranked: Ranked, var: float, level: float) -> tuple[float, float]:
    r"""DeLong's interval of one AUC :math:`\hat A` with variance ``var`` (the diagonal of
    :func:`delong_covariance`), on the logit scale with Student's t on the smaller class's size less one:

    .. math:: \operatorname{logit}^{-1}\Bigl(\operatorname{logit}\hat A \pm t_{\nu}\,
              \frac{\sqrt{\mathrm{var}}}{\hat A(1 - \hat A)}\Bigr),\qquad
              \nu = \min_c k_c - 1

    (:math:`k_c` the rows of class c, weighted its Kish effective size :math:`(\sum w)^2/\sum w^2`; the
    delta method's standard error of :math:`\operatorname{logit}\hat A`). The normal interval
    :math:`\hat A \pm z\sqrt{\mathrm{var}}` it replaces under-covered near an AUC of 1, where :math:`\hat A`'s
    law is skewed, even unweighted, and heavily with heavy-tailed weights. Seeded, 95 %, binormal scores,
    AUC 0.7-0.95, 100-3,000 rows, 2,000 draws a setting (tests/core/test_delong_auc_interval_r32.py keeps
    two of the settings): unweighted the normal interval covered 0.841 (AUC 0.95, 13 positives), 0.880 (30)
    and 0.928 (90), this one 0.941-0.965 everywhere; with log-normal weights :math:`e^{\sigma Z}`
    (:math:`\sigma` 0.5, 1.2) the normal one 0.79-0.95, this one 0.925-0.979 — short of the level only at
    :math:`\sigma = 1.2` with AUC 0.85-0.95 (0.925-0.933, the interval mostly above the true AUC), where
    the smaller class's Kish size was 13-86 (weights :math:`e^{\sigma Z + 2p}` tilted toward the positives,
    :math:`p \sim U(0, 1)`, AUC 0.83, 300-1,000 rows: 0.934-0.945, normal 0.894-0.940). No report shows
    it (``vc.compare_models`` shows the paired difference, :func:`delong_test`). :math:`\hat A` at 0 or 1,
    or no spread, gives :math:`\hat A \pm t_\nu\sqrt{\mathrm{var}}`; NaN ``var`` or fewer than 2 rows of
    a class, NaN."""
    auc = ranked.auc
    if ranked.w is None:
        n1 = float(np.count_nonzero(ranked.y))
        small = min(n1, ranked.y.shape[0] - n1)
    else:
        pos = ranked.y == 1.0
        small = min(kish_size(ranked.w[pos]), kish_size(ranked.w[~pos]))
    if not (var == var and small >= 2.0 - 1e-9):
        return float("nan"), float("nan")
    return logit_auc_interval(auc, var, max(small - 1.0, 1.0), level)


def logit_auc_interval(auc: float, var: float, df: float, level: float) -> tuple[float, float]:
    r"""The logit-scale interval of an AUC :math:`\hat A` with variance ``var`` and ``df`` degrees of freedom,
    :math:`\mathrm{logit}^{-1}(\mathrm{logit}\,\hat A \pm t_{df}\sqrt{\mathrm{var}}/(\hat A(1 - \hat A)))`
    (:func:`auc_interval`); :math:`\hat A \pm t_{df}\sqrt{\mathrm{var}}` at :math:`\hat A` 0 or 1, or
    with no spread."""
    q = t_of(level, df)
    se = float(np.sqrt(max(var, 0.0)))
    if not (0.0 < auc < 1.0 and se > 0.0):
        return auc - q * se, auc + q * se
    centre, half = float(np.log(auc / (1.0 - auc))), q * se / (auc * (1.0 - auc))
    return float(1.0 / (1.0 + np.exp(-(centre - half)))), float(1.0 / (1.0 + np.exp(-(centre + half))))


def delong_difference(s0: np.ndarray, s1: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                      level: float) -> Estimate:
    r"""DeLong's paired estimate of ``AUC(s1) - AUC(s0)`` on the same rows (0/1 labels ``y``, optional
    weights ``w``): :func:`rank_models`, :func:`delong_covariance` and :func:`delong_test` of the two
    models — what ``vc.compare_models`` reports for a pair, and the calibrator ledger's AUC change.
    Weights are read relative to the largest (every statistic here is scale-free), so weights near
    the float range neither overflow nor underflow in :math:`\sum w^2`."""
    if w is not None:
        top = float(w.max()) if w.size else 0.0
        w = w / top if top > 0.0 and np.isfinite(top) else w
    ranked = rank_models([s0, s1], y, w)
    return delong_test(ranked, delong_covariance(ranked, y, w), 0, 1, level)
