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
* with uneven weights, the jump is the largest of the sizes that match the rows' cumulants from above,
  capped at the atom's largest weight :math:`w_{max}`:

  .. math:: c = \min\Big(w_{max},\ \max\big(\tfrac{\kappa_2}{\mu} + \tfrac{\mu}{n},\
            \sqrt{\kappa_3^+ / \mu},\ (\textstyle\sum w^4 p(1-p) / \mu)^{1/3}\big)\Big),

  :math:`\kappa_2 = \sum w^2 p(1-p)`, :math:`\kappa_3 = \sum w^3 p(1-p)(1-2p)`: the first matches the
  rows' variance exactly (:math:`c\mu - \mu^2/n`), the others make the binomial's third and fourth
  cumulants (:math:`\approx c^{j-1}\mu` for rare events) at least the rows' — the tail of a rare event
  with a heavy weight. Measured (session 29, log-normal weights, 200 calibrated data sets each): false
  alarms at 5 % of 3-5 % (balanced and ~1-click-per-segment data, sigma 0.5-2), and power against a
  planted gap near that of an oracle critical value (0.54 against 0.57, 0.80 against 0.84 at sigma
  0.5). Every jump at :math:`w_{max}` (sessions 21-28) was valid but blind: no false alarm, and 0.17
  (balanced) and 0.39 (rare) of the same gaps found. The variance match alone rejected 9-13 % of
  calibrated rare-event data sets; with the third cumulant 9.5-15 %;

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


def atom_laws(table: CellTable, atoms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""``(m, q, c, mu)`` of every atom: its label sum is drawn as ``c * Binomial(m, q)`` with ``m = n``,
    ``c`` its jump (1 unweighted; weighted: the module docstring's cumulant match) and
    ``q = mu / (n c)``, ``mu = Σwp`` (module docstring);
    ``m = 0`` where it is kept fixed (q at 0 or 1)."""
    s = table.sums
    mu, n = s["wp"][atoms], s["n"][atoms]
    c = s["wmax"][atoms] if "wmax" in s else np.ones(atoms.size)
    if "wmax" in s:  # weighted: the cumulant-matching jump (module docstring)
        with np.errstate(divide="ignore", invalid="ignore"):
            var = s["w2v"][atoms] if "w2v" in s else np.maximum(s["w2p"][atoms] - s["w2p2"][atoms], 0.0)
            c2 = np.where(mu > 0, var / mu + mu / np.maximum(n, 1.0), c)
            c3 = np.sqrt(np.maximum(s["w3k"][atoms], 0.0) / np.where(mu > 0, mu, 1.0))
            c4 = np.cbrt(s["w4v"][atoms] / np.where(mu > 0, mu, 1.0))
        w, w2 = s["w"][atoms], s["w2"][atoms]
        even = np.abs(n * w2 - w * w) <= 1e-12 * w * w  # equal weights: c = the weight, as unweighted
        c = np.where(even, c, np.minimum(np.maximum(np.maximum(c2, c3), c4), c))
    with np.errstate(divide="ignore", invalid="ignore"):
        q = steady_rates(np.clip(np.where((n > 0) & (c > 0), mu / (n * c), 0.0), 0.0, 1.0))
    live = (q > 0.0) & (q < 1.0)
    return np.where(live, n, 0.0).astype(np.int64), q, c, mu


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
    m, q, c, mu = atom_laws(table, atoms)
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
    reach = 0
    index: np.ndarray | None = None
    m_live, q_live, c_live, mu_live = m[live, None], q[live, None], c[live, None], mu[live, None]
    for done in range(0, n_resamples, span):
        r = min(span, n_resamples - done)
        d = np.zeros((atoms.size, r))
        d[live] = c_live * _draws(rng, m_live, q_live, r, block) - mu_live
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
