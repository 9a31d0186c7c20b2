r"""The MCE's p-value by simulation under calibration (valid at any event rate).

MCGrad reads :math:`\mathrm{MCE}_\sigma` against the law of the range of a Brownian motion
(:mod:`._mce`): a large-segment law, far too thin where a segment expects few of its rarer label
(its path is then a handful of jumps), and a per-segment one, applied to a maximum over K segments.
Here the statistic itself, :math:`T = \max_k \mathrm{ECCE}_k/\sigma_k` over the same K segments
(MCGrad's ``mce_sigma``), is drawn ``R`` times under the null of calibration, :math:`y^* \sim
\mathrm{Bernoulli}(p)` with the weights kept, and

.. math:: p = \frac{1 + \#\{r : T^*_r \ge T\}}{R + 1},

a p-value of the family (the maximum is simulated), exact in level for any R: under the null,
:math:`P(p \le \alpha) \le \alpha` (Davison & Hinkley 1997, §4.2.1); its smallest value is
:math:`1/(R+1)`.

**From the aggregate, on every backend.** The draws are made on the cell table, not on the rows: an
*atom* is one entry of a largest grouping set (one segment of the finest family level, one score
cell), whose label sum :math:`S = \sum w y` over its n rows is drawn as :math:`c \cdot \mathrm{Binomial}(n,
\mu / (n c))`, :math:`\mu = \sum wp` (its mean under calibration, kept exactly) and c its jump (1
unweighted):

* unweighted, and with equal weights (c the weight): exact on distinct scores (every row of the atom
  has the same p); on equal-width score cells a binomial at the cell's mean score;
* with uneven weights, two parts (:func:`uneven_parts`): the heaviest row exactly, :math:`w_{max}
  \cdot \mathrm{Bernoulli}(\bar p)` (:math:`\bar p = \mu / \sum w`, the atom's mean score), and the
  other n - 1 rows as :math:`\pm c\,(\mathrm{Binomial}(n - 1, q) - (n - 1) q)`, c and q chosen so that
  its variance and third cumulant are those rows' exactly (:math:`\kappa_2 = \sum w^2 p(1-p)`,
  :math:`\kappa_3 = \sum w^3 p(1-p)(1-2p)` less the heaviest row's):

  .. math:: c^2 = (\kappa_3/\kappa_2)^2 + 4\kappa_2/(n - 1),\qquad
            q = \tfrac12\big(1 - \sqrt{1 - 4\kappa_2/((n - 1)c^2)}\big),

  exact for one score and one or two rows. Measured (session 44, 100-600 seeded data sets each, 99
  draws): scores rounded to 0.1 and log-normal weights (sigma 1), false alarms at 5 % of 4.8-5.3 %
  and a planted +0.06 gap in one region of 4 found nearly as often as row-level label redraws (an
  oracle: 0.217 against 0.233 in 60 data sets); rare events rounded to 0.01 3-4 %; unrounded scores
  (equal-width cells of a few rows each, sigma 0.5 and 1) 4.2-5.2 %; session 29's cases 1.4-5.0 %,
  power 0.49 and 0.88 (was 0.475 and 0.867). Earlier laws were valid but blind: every jump at
  :math:`w_{max}` (sessions 21-28: no false alarm, 0.17 of a planted gap found where an oracle found
  0.57), then one jump matching the third
  and fourth cumulants from above with their rare-event forms (sessions 29-43), about 3 times the
  variance-matching jump where a cell holds many rows (tied scores): calibrated data sets never
  flagged (median p 0.93-0.99) and a planted gap found in 0 of 100 where the oracle found 20 %;

an atom whose q is 0 or 1 (certain scores) keeps its sum. Every other segment's cell sums
are sums of its largest set's atoms (the margins of :func:`._cells.complete`), so the segments of one
largest set (and the whole, a margin of the first) are drawn jointly. Segments of *different* largest
sets (depth 1 with several features; depth 2 with three or more) are drawn independently of each
other: each event :math:`\{\mathrm{ECCE}_k \le t\,\sigma_k\}` is a symmetric convex set of the label
noise (an intersection of slabs :math:`|C_j - C_i| \le t\sigma_k`), so by the Gaussian correlation
inequality (Royen 2014) the true chance that all of them hold is at least the product over the
independent blocks — the p-value is then conservative where the normal approximation holds, and exact
with one feature (or ``depth`` = the number of features).

Each replicate's ECCEs are those of :func:`._mce.ecce_per_segment`, vectorised over a block of
replicates (an (entries x block) matrix, blocks of :data:`BLOCK` numbers); the observed table is taken
through the same arithmetic as replicate 0, and a replicate counts when it reaches
:math:`T(1 - 10^{-9})` (ties of discrete data are never lost to rounding).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._cells import CellTable
from ._family import decode, strides
from ._spec import FeatureSpec

#: the default number of draws: a p-value resolves to 1/(R + 1) = 0.005
N_RESAMPLES = 199
#: the default seed, as every random_state= in veracity: None reads as 0 (a result is reproducible);
#: pass a numpy Generator for fresh draws
RANDOM_STATE = None
#: numbers per block of replicates (entries x replicates): 64 KB a matrix, a few alive at once
BLOCK = 1 << 13
#: numbers per pass over the replicates (entries x replicates, whole blocks of :data:`BLOCK`): the
#: arithmetic of many blocks at once, 256 KB a matrix; the draws keep :data:`BLOCK`'s order
WORK = 1 << 15
#: a replicate counts when it reaches the observed statistic to this relative tolerance
_TIE = 1e-9
#: an uneven atom's skew |t|/v below this share of its largest weight is read as 0 (:func:`uneven_parts`)
_FLAT = 1e-9


def atom_map(table: CellTable, sets: list[tuple[int, ...]], specs: list[FeatureSpec],
             entries: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """``(atoms, atom_of)``: the table's entries that are atoms (those of the largest grouping sets), and,
    for each of ``entries`` (indices into the table), the pairs (entry position, atom position) whose
    atom sums into it — as two index arrays ``rows``, ``cols`` of equal length."""
    depth_of_set = np.array([len(s) for s in sets])
    top = int(depth_of_set.max())
    is_atom = depth_of_set[table.set_id] == top
    atoms = np.flatnonzero(is_atom)
    pos = np.full(table.set_id.size, -1, dtype=np.int32)
    pos[atoms] = np.arange(atoms.size)
    C = table.n_cells
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    want = np.zeros(table.set_id.size, dtype=bool)
    want[entries] = True
    row_of = np.full(table.set_id.size, -1, dtype=np.int32)
    row_of[entries] = np.arange(entries.size)
    tops = sorted(int(t) for t in np.flatnonzero(depth_of_set == top))
    for sid, s in enumerate(sets):
        in_set = np.flatnonzero(table.set_id == sid)
        if not want[in_set].any():
            continue
        if len(s) == top:
            mine = in_set[want[in_set]]
            rows.append(row_of[mine])
            cols.append(pos[mine])
            continue
        tid = next(t for t in tops if set(s) <= set(sets[t]))  # complete()'s parent of this margin
        src = np.flatnonzero(table.set_id == tid)
        codes = decode(specs, sets[tid], table.key[src])
        key = np.zeros(src.size, dtype=np.int64)
        for i, st in zip(s, strides(specs, s)):
            key += codes[:, sets[tid].index(i)] * st
        flat = key * C + table.cell[src]
        target = table.key[in_set] * C + table.cell[in_set]  # sorted: the table is (set, key, cell) ordered
        at = in_set[np.searchsorted(target, flat)]
        keep = want[at]
        rows.append(row_of[at[keep]])
        cols.append(pos[src[keep]])
    return atoms, (np.concatenate(rows).astype(np.int32), np.concatenate(cols).astype(np.int32))


def atom_laws(table: CellTable, atoms: np.ndarray) -> tuple[np.ndarray, ...]:
    r"""The laws of the atoms' label sums, as *parts* ``(atom, m, q, c, centre)``: each part adds
    :math:`c \cdot \mathrm{Binomial}(m, q) - \mathrm{centre}` to its atom's centred sum :math:`S - \mu`
    (module docstring): one part per atom drawn as ``c * Binomial(n, mu / (n c))`` (unweighted, equal
    weights: c the weight), and two per atom of uneven weights (:func:`uneven_parts`), those after the
    first ``atoms.size`` (the first part of such an atom is its heaviest row); ``m = 0`` where a part is
    kept fixed (q at 0 or 1)."""
    s = table.sums
    mu, n = s["wp"][atoms], s["n"][atoms]
    c = np.ones(atoms.size)
    uneven = np.zeros(atoms.size, dtype=bool)
    n = n.astype(np.float64)
    if "wmax" in s:
        w, w2 = s["w"][atoms], s["w2"][atoms]
        uneven = ~(np.abs(n * w2 - w * w) <= 1e-12 * w * w)  # equal weights: c = the weight, as unweighted
        c = np.where(uneven, 1.0, s["wmax"][atoms])
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.clip(np.where((n > 0) & (c > 0), mu / (n * c), 0.0), 0.0, 1.0)
    parts: list[tuple[np.ndarray, ...]] = [(np.arange(atoms.size), n, q, c, mu)]
    if uneven.any():
        k = np.flatnonzero(uneven)
        heavy, rest = uneven_parts(table, atoms, k)
        for one, col in zip(parts[0][1:], heavy[1:]):
            one[k] = col  # an uneven atom's first part: its heaviest row
        parts.append(rest)
    at, m, q, c, centre = (np.concatenate(x) for x in zip(*parts))
    q = steady_rates(q)
    live = (q > 0.0) & (q < 1.0) & (m > 0)
    return at, np.where(live, m, 0.0).astype(np.int64), q, c, np.where(live, centre, 0.0)


def uneven_parts(table: CellTable, atoms: np.ndarray, k: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    r"""The two parts of each atom ``k`` (positions in ``atoms``) of uneven weights, of n rows,
    :math:`\mu = \sum wp`, :math:`\kappa_2 = \sum w^2 p(1-p)`, :math:`\kappa_3 = \sum w^3 p(1-p)(1-2p)`
    and largest weight :math:`w_{max}`, its rows' scores read as their mean :math:`\bar p = \mu / \sum w`
    (one score on distinct-score cells; a cell's width apart on equal-width ones):

    * the heaviest row alone, exactly: :math:`w_{max} \cdot \mathrm{Bernoulli}(\bar p)`;
    * the other :math:`n' = n - 1` rows, of cumulants :math:`v = \kappa_2 - w_{max}^2 \bar p(1 - \bar p)`
      and :math:`t = \kappa_3 - w_{max}^3 \bar p(1-\bar p)(1-2\bar p)`, as
      :math:`\pm c\,(\mathrm{Binomial}(n', q) - n'q)` (the sign of t), whose variance
      :math:`c^2 n' q(1-q)` and third cumulant :math:`c^3 n' q(1-q)(1-2q)` are v and t exactly:

      .. math:: c = \sqrt{(t/v)^2 + 4v/n'},\qquad q = \tfrac12\big(1 - \sqrt{1 - 4v/(n'c^2)}\big)

      (:math:`(1-2q)^2 = 1 - 4q(1-q)`, so :math:`1 - 2q = |t|/(vc)`; |t|/v capped at :math:`w_{max}`,
      which it cannot pass for rows of one score, and read as 0 below :data:`_FLAT` of it, where t is
      the rounding of a symmetric law: every backend then draws the same sign). With one score this is
      exact for one or two rows, and for equal weights.

    The variance is the rows' exactly, so the law neither widens the null (every jump at a large
    weight: calibrated data never flagged, gaps missed) nor thins it; the heaviest row keeps the
    tail of a rare event on a heavy weight."""
    s = table.sums
    a = atoms[k]
    mu, n, wmax = s["wp"][a], s["n"][a], s["wmax"][a]
    kappa2 = s["w2v"][a] if "w2v" in s else np.maximum(s["w2p"][a] - s["w2p2"][a], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        pbar = np.clip(np.where(s["w"][a] > 0, mu / s["w"][a], 0.0), 0.0, 1.0)
        var1 = pbar * (1.0 - pbar)
        v = kappa2 - wmax * wmax * var1
        t = s["w3k"][a] - wmax ** 3 * var1 * (1.0 - 2.0 * pbar)
        rest = np.maximum(n - 1.0, 0.0)
        keep = (v > 1e-12 * kappa2) & (rest > 0)
        vv = np.where(keep, v, 1.0)
        lean = np.minimum(np.abs(t) / vv, wmax)
        flat = ~(lean > _FLAT * wmax)  # a symmetric law (one score of 0.5) whose t is rounding noise
        lean = np.where(flat, 0.0, lean)
        c = np.sqrt(lean * lean + 4.0 * vv / np.maximum(rest, 1.0))
        # q = (1 - lean/c)/2 without the cancellation: c - lean = (4v/n')/(c + lean)
        q = np.where(keep, np.minimum(2.0 * vv / (np.maximum(rest, 1.0) * c * (c + lean)), 0.5), 0.0)
    c = np.where((t < 0) & ~flat, -c, c)
    heavy = (k, np.ones(k.size), pbar, wmax, wmax * pbar)
    return [heavy, (k, np.where(keep, rest, 0.0), q, c, c * rest * steady_rates(q))]


#: significant digits kept of each atom's rate's smaller tail min(q, 1 - q) (:func:`steady_rates`)
RATE_DIGITS = 12


def steady_rates(q: np.ndarray) -> np.ndarray:
    r"""Each atom's rate ``q`` with its smaller tail :math:`\min(q, 1 - q)` rounded to :data:`RATE_DIGITS`
    significant digits: the same number on every backend. ``q = Σwp / (n c)`` is summed in each engine's
    own order, so numpy, polars and DuckDB give rates an ulp or two apart, and numpy's binomial is not
    continuous in its rate where :math:`(n + 1)q` is a whole number (its mode's floor): 139 rows scored
    0.3 drew other counts at 0.29999999999999993 than at 0.2999999999999997, from the first draw on, and
    the MCE's p-value of one calibrated table of scores rounded to 0.01 read 0.215 in memory and 0.155 on
    polars LazyFrame and DuckDB. Rounded, a sum of rows scored 0.3 is the double 0.3 wherever it was
    summed; the rounding moves a rate by at most 5·10⁻¹³ of its tail, far below any sampling effect.
    Tails below 1e-280 (whose scale would overflow) and rates of exactly 0 or 1 are kept."""
    tail = np.minimum(q, 1.0 - q)
    fine = tail >= 1e-280
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = 10.0 ** (RATE_DIGITS - 1 - np.floor(np.log10(np.where(fine, tail, 1.0))))
        rounded = np.where(fine, np.round(tail * scale) / scale, tail)
    return np.where(q <= 0.5, rounded, 1.0 - rounded)


def _max_sigma(D: np.ndarray, starts: np.ndarray, seg_of: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Per column of ``D`` (entries x replicates, segment-contiguous from ``starts``; ``seg_of``: each
    entry's segment among them): the largest ECCE/sigma over the segments (``scale`` = W_k sigma_k
    each; MCGrad's conventions at 0). ``D`` is overwritten (its running sums)."""
    run = np.cumsum(D, axis=0, out=D)
    before = np.zeros((starts.size, D.shape[1]))
    before[1:] = run[starts[1:] - 1]
    run -= before[seg_of]  # each segment's path from 0
    hi = np.maximum.reduceat(run, starts, axis=0)
    lo = np.minimum.reduceat(run, starts, axis=0)
    np.maximum(hi, 0.0, out=hi)
    hi -= np.minimum(lo, 0.0, out=lo)
    sc = scale[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        sig = np.where(sc == 0, np.where(hi != 0, np.inf, 0.0), hi / np.where(sc == 0, 1.0, sc))
    return np.max(sig, axis=0)


def _entries(d: np.ndarray, rows: np.ndarray, cols: np.ndarray, n_entries: int,
             idx: np.ndarray | None = None) -> np.ndarray:
    """Each entry's sum of its atoms' columns of ``d`` (atoms x replicates): one ``bincount``; ``idx``:
    :func:`_entry_index` of ``rows`` for ``d``'s number of columns, when the caller has it (a block of
    replicates after another of the same size)."""
    r = d.shape[1]
    idx = _entry_index(rows, r) if idx is None else idx
    return np.bincount(idx, weights=d[cols].ravel(), minlength=n_entries * r).reshape(n_entries, r)


def _entry_index(rows: np.ndarray, r: int) -> np.ndarray:
    """The ``bincount`` bins of :func:`_entries` for ``r`` replicates: entry ``rows[j]``'s column c at
    ``rows[j] * r + c``, row-major like ``d[cols].ravel()``."""
    return (rows[:, None].astype(np.int64) * r + np.arange(r)).ravel()


def mce_null_pvalue(table: CellTable, sets: list[tuple[int, ...]], specs: list[FeatureSpec], seg: np.ndarray,
                    in_mce: np.ndarray, W: np.ndarray, sd: np.ndarray, *, n_resamples: int,
                    random_state: Any) -> float:
    r"""The Monte Carlo p-value of :math:`\max_k \mathrm{ECCE}_k/\sigma_k` over the segments ``in_mce``
    (``seg``: every table entry's segment; ``W``, ``sd``: each segment's Σw and σ_k), from
    ``n_resamples`` draws under calibration seeded by ``random_state`` (module docstring)."""
    entries = np.flatnonzero(in_mce[seg])
    atoms, (rows, cols) = atom_map(table, sets, specs, entries)
    part_of, m, q, c, centre = atom_laws(table, atoms)
    eseg = seg[entries]
    new = np.r_[True, eseg[1:] != eseg[:-1]]
    starts = np.flatnonzero(new)
    seg_of = np.cumsum(new) - 1
    scale = W[eseg[starts]] * sd[eseg[starts]]
    E = entries.size
    observed = (table.sums["wy"][atoms] - table.sums["wp"][atoms])[:, None]
    t_obs = float(_max_sigma(_entries(observed, rows, cols, E), starts, seg_of, scale)[0])
    if math.isnan(t_obs):
        return math.nan
    if math.isinf(t_obs):
        return 0.0  # a certain score contradicted: impossible under calibration, never drawn
    rng = np.random.default_rng(0 if random_state is None else random_state)  # None: the fixed seed 0
    width = max(E + atoms.size, 1)
    block = max(1, min(n_resamples, BLOCK // width))  # the draws' order: the stream of every seed
    span = block * max(1, WORK // (block * width))  # replicates per pass: whole blocks of draws
    live = np.flatnonzero(m > 0)
    first = live < atoms.size  # an atom's one part, or its first; then the second parts of uneven atoms
    into, again = part_of[live[first]], part_of[live[~first]]
    reach = 0
    index: np.ndarray | None = None
    m_live, q_live, c_live, centre_live = m[live, None], q[live, None], c[live, None], centre[live, None]
    for done in range(0, n_resamples, span):
        r = min(span, n_resamples - done)
        d = np.zeros((atoms.size, r))
        drawn = c_live * _draws(rng, m_live, q_live, r, block) - centre_live
        d[into] = drawn[first]
        d[again] += drawn[~first]
        if index is None or index.size != rows.size * r:
            index = _entry_index(rows, r)
        t = _max_sigma(_entries(d, rows, cols, E, index), starts, seg_of, scale)
        reach += int(np.sum(t >= t_obs * (1.0 - _TIE)))
    return (1.0 + reach) / (n_resamples + 1.0)


def _draws(rng: np.random.Generator, m: np.ndarray, q: np.ndarray, r: int, block: int) -> np.ndarray:
    """``r`` replicates of ``Binomial(m, q)`` (``m``, ``q``: one row per atom), atoms x replicates, drawn in
    the stream order of ``r / block`` calls of ``rng.binomial(m, q, size=(atoms, block))`` (the last one
    short), each atom's replicates of a block in a row: one call for the whole blocks, whose (blocks, atoms,
    block) array is that order, laid side by side (the generator draws element by element, so one call
    or several give the same numbers)."""
    whole, rest = divmod(r, block)
    parts = []
    if whole:
        a = rng.binomial(m, q, size=(whole, m.shape[0], block))
        parts.append(a.transpose(1, 0, 2).reshape(m.shape[0], whole * block))
    if rest:
        parts.append(rng.binomial(m, q, size=(m.shape[0], rest)))
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
