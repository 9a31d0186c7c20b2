r"""Binning rules: bin edges and the bin index of every score.

Three strategies:

* ``"uniform"`` — M equal-width bins on [0, 1]; the index of probability p is
  ``min(floor(p·M), M−1)`` so the last bin is closed and holds p = 1.0 (seed 000).
* ``"quantile"`` — equal-mass bins: cut points at the (weighted) j/M quantiles of
  the scores. A score equal to a cut point goes to the bin above it, so equal
  scores are never split across bins; heavy ties therefore give fewer, larger
  bins than requested (duplicate cuts are dropped).
* ``"equal-count"`` — the equal-mass binning of Kumar, Liang & Ma (2019) and of
  the ``uncertainty-calibration`` package (``get_equal_bins``): the sorted scores
  are split into M runs whose sizes differ by at most one (``numpy.array_split``),
  the cut between two runs is the midpoint of their neighbouring scores, and a
  score equal to a cut goes to the bin *below* it. Row counts decide the split
  (sample weights do not move the cuts). With M > N it uses M = N.

``bins="auto"`` chooses :math:`M = \lceil N_{\mathrm{eff}}^{1/3} \rceil` with
:math:`N_{\mathrm{eff}} = (\sum w)^2 / \sum w^2` (= N unweighted): the plug-in
ECE's squared bias shrinks like :math:`M^{-2}` for a Lipschitz calibration curve
while its variance grows like :math:`M/N`, and the two balance at
:math:`M \propto N^{1/3}` (63 rows → 4 bins, 6,000 → 19, 10⁶ → 100). The chosen M
is printed with the table; equal-mass cuts that fall on tied scores merge, and the note then says
how many bins are left (the table's ``bins``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ._text import count_noun
from ._validation import VeracityError

Strategy = Literal["uniform", "quantile", "equal-count"]
STRATEGIES = ("uniform", "quantile", "equal-count")


#: Most bins accepted: beyond this a table is noise and the arrays only cost memory.
MAX_BINS = 10_000


def check_bins(bins: int, *, auto: bool = True) -> int:
    """``bins`` as a number of bins, 1 to :data:`MAX_BINS`. ``auto``: the caller also takes ``bins='auto'``
    (resolved before this check), which the messages then offer; a caller without it passes False."""
    or_auto = " or 'auto'" if auto else ""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise VeracityError(f"bins must be a positive integer{or_auto}, got {bins!r}", param="bins")
    if bins > MAX_BINS:
        raise VeracityError(
            f"bins must be at most {MAX_BINS:,}, got {int(bins):,}; with that many bins each holds "
            f"too few rows to estimate anything. Use fewer bins{', or bins=' + repr('auto') if auto else ''}",
            param="bins")
    return int(bins)


def auto_bins(n: int | float) -> int:
    r"""The ``bins="auto"`` rule: :math:`M = \lceil n^{1/3} \rceil` (at least 1).

    >>> auto_bins(63), auto_bins(6000), auto_bins(10**6)
    (4, 19, 100)
    """
    if n <= 1:
        return 1
    root = float(n) ** (1.0 / 3.0)
    m = int(np.ceil(root - 1e-9))  # 10**6 -> exactly 100, not 101 from rounding
    return max(1, m)


def resolve_bins(bins: int | str, p: np.ndarray, w: np.ndarray | None = None) -> int:
    """An explicit bin count, or the ``"auto"`` choice for these scores (see module doc)."""
    if isinstance(bins, str):
        if bins != "auto":
            raise VeracityError(f"bins must be a positive integer or 'auto', got {bins!r}", param="bins")
        return auto_bins(effective_size(p, w))
    return check_bins(bins)


@dataclass(frozen=True)
class AutoBins:
    """The ``bins="auto"`` choice, as an audit section: M and the effective size it came from, and
    ``used``, the bins left once equal-mass cuts on tied scores merged (None: M itself).

    The note states the rule's M whatever the ties did (2,000 rows holding five distinct scores:
    M = 13, of which 5 bins remain), the same on every route: the in-memory audit once printed
    ``M = ceil(N_eff^(1/3)) = 5 (N_eff = 2000)``, arithmetically false, where a database printed 13."""

    bins: int
    n_eff: float
    used: int | None = None

    @property
    def bins_used(self) -> int:
        """The table's bin count: M, or fewer where tied scores merged cuts."""
        return self.bins if self.used is None else self.used

    def to_dict(self) -> dict[str, object]:
        return {"rule": "ceil(n_eff ** (1/3))", "bins": self.bins, "n_eff": self.n_eff,
                "bins_used": self.bins_used}

    def __str__(self) -> str:
        n = f"{self.n_eff:.0f}" if float(self.n_eff).is_integer() else f"{self.n_eff:.1f}"
        merged = (f"; cuts on tied scores merged them into {count_noun(self.bins_used, 'bin')}"
                  if self.bins_used < self.bins else "")
        return f"bins='auto': M = ceil(N_eff^(1/3)) = {self.bins} (N_eff = {n}){merged}"


def effective_size(p: np.ndarray, w: np.ndarray | None = None) -> float:
    r""":math:`(\sum w)^2 / \sum w^2` (= N unweighted)."""
    if w is None:
        return float(p.size)
    total, sq = float(w.sum()), float(np.dot(w, w))
    return total * total / sq if sq > 0 else 0.0


def check_strategy(strategy: str) -> str:
    if strategy not in STRATEGIES:
        raise VeracityError(
            f"strategy must be 'uniform', 'quantile' or 'equal-count', got {strategy!r}",
            param="strategy")
    return strategy


def uniform_edges(bins: int) -> np.ndarray:
    """``[0, 1/M, 2/M, …, 1]``."""
    return np.arange(bins + 1, dtype=np.float64) / bins


def is_uniform_edges(edges: np.ndarray) -> bool:
    r"""Whether 1-D ``edges`` (at least two) are the equal-width ``[0, 1/M, …, 1]`` of
    :func:`uniform_edges`, each within 1e-12: the edges the ``"uniform"`` rule
    :math:`\min(\lfloor pM \rfloor, M - 1)` reads."""
    return bool(edges.ndim == 1 and edges.size >= 2
                and np.allclose(edges, uniform_edges(edges.size - 1), rtol=0.0, atol=1e-12))


def quantile_edges(p: np.ndarray, bins: int, w: np.ndarray | None = None) -> np.ndarray:
    """Edges ``[0, c_1, …, c_k, 1]`` with cut points at the (weighted) j/M quantiles.

    With the scores sorted, ``c_j`` is the score at position ``floor(j·N/M)``
    (weighted: the score whose cumulative-weight interval covers ``j·W/M``).
    Cuts equal to the minimum score or to each other are dropped, so ties never
    straddle a cut. (The rule itself: :func:`sorted_edges`.)
    """
    if w is None:
        return sorted_edges(np.sort(p), bins, "quantile")
    # The row whose mass interval [before, before + w) covers j/M of the total:
    # with integer weights this is exactly the unweighted rule on repeated rows.
    order = np.argsort(p, kind="stable")
    return sorted_edges(p[order], bins, "quantile", weights=w[order])


def equal_count_edges(p: np.ndarray, bins: int) -> np.ndarray:
    """Edges ``[0, c_1, …, c_k, 1]`` of the ``"equal-count"`` strategy (see module doc).

    ``c_j`` is the midpoint between the last score of run j and the first of run
    j+1 when the sorted scores are cut into ``min(bins, N)`` runs by
    ``numpy.array_split``; duplicate cuts and cuts at 1.0 are dropped. A cut may
    equal 0.0 (then bin 0 holds exactly the scores equal to 0). (The rule itself:
    :func:`sorted_edges`.)
    """
    return sorted_edges(np.sort(p), bins, "equal-count")


def sorted_edges(values: np.ndarray, bins: int, strategy: str, *, counts: np.ndarray | None = None,
                 weights: np.ndarray | None = None) -> np.ndarray:
    """The equal-mass edges (``"quantile"``, ``"equal-count"``) of sorted scores — the one edge
    builder of every engine.

    ``values`` are sorted ascending: every row's score, or (``counts``: rows per value)
    each distinct score once, as a lazy frame's per-value aggregate gives them; the
    edges are the same either way. ``weights`` (per row or per distinct value) move the
    ``"quantile"`` cuts; ``"equal-count"`` cuts by row counts only.
    """
    if strategy == "quantile":
        return cut_edges(quantile_picks(values, bins, counts=counts, weights=weights), values[0])
    at, n = _sorted_at(values, counts)
    return edges_at(at, n, bins, strategy)


def _sorted_at(values: np.ndarray, counts: np.ndarray | None) -> tuple[Any, int]:
    """``at(positions)``: the score at sorted row positions, and the row count."""
    if counts is None:
        return (lambda pos: values[pos]), int(values.size)
    cum = np.cumsum(counts)
    return (lambda pos: values[np.searchsorted(cum, pos, side="right")]), int(cum[-1])


def quantile_picks(values: np.ndarray, bins: int, *, counts: np.ndarray | None = None,
                   weights: np.ndarray | None = None) -> np.ndarray:
    """The sorted scores at the j/M levels (j = 1..M−1), duplicates dropped: the score at
    position ``floor(j·N/M)``, or weighted the one whose cumulative-weight interval
    ``[before, before + w)`` covers ``j·W/M`` (with integer weights exactly the unweighted
    rule on repeated rows). ``values``, ``counts``, ``weights`` as in :func:`sorted_edges`;
    any ordered axis (a ranking score's own values too).

    "Covers" is decided up to the cumulative sum's own rounding, :func:`cumulative_slack`: a
    cumulative weight within it of ``j·W/M`` counts as equal to it. Without that, constant
    weights of 0.1 cut elsewhere than no weights (0.1 + 0.1 + … misses 5 × 0.1 by an ulp)."""
    if weights is not None:
        cw = np.cumsum(weights)
        rows = int(np.sum(counts)) if counts is not None else values.size
        targets = np.arange(1, bins) * cw[-1] / bins
        pos = np.searchsorted(cw, targets + cumulative_slack(rows, float(cw[-1])), side="right")
        return np.unique(values[np.minimum(pos, values.size - 1)])
    at, n = _sorted_at(values, counts)
    return np.unique(at(rule_positions(n, bins, "quantile")[1:]))


def cumulative_slack(rows: int, total: float) -> float:
    """How far a running sum of ``rows`` non-negative weights totalling ``total`` can stray from
    the exact sum by rounding, whatever order the rows are added in: ``rows · ε · total``
    (ε = 2⁻⁵², twice the unit roundoff; the classical bound for recursive summation is
    ``(rows − 1) · u · total``). Mass below it is noise; weighted cuts ignore it."""
    return float(max(rows, 1) * np.finfo(np.float64).eps * total)


def enough_effective(size: Any, minimum: float, rows: Any) -> np.ndarray:
    r"""``size >= minimum`` for Kish effective sizes :math:`(\sum w)^2 / \sum w^2` of ``rows`` weights
    each (arrays or scalars alike), decided up to the rounding of the two sums the size is made of.

    Each sum may stray by :func:`cumulative_slack` (``rows · ε`` of itself), so the ratio by about
    ``1.5 · rows · ε`` of itself; a size less than ``4 · rows · ε · minimum`` short of ``minimum``
    counts as reaching it. Equal weights then give the unweighted answer on every route, whatever
    order an engine adds them in: 20 rows weighing 0.1 have an effective size of exactly 20,
    computed as 19.999999999999996, and every bin of a 200-row, 10-bin equal-mass table was
    "insufficient" (MCE n/a) where without weights all were sufficient. Every threshold on an
    effective size (reliability bins, MCE, segments, monitoring periods, the bootstrap's bins) reads it.
    """
    rows = np.maximum(np.asarray(rows, dtype=np.float64), 1.0)
    return np.asarray(np.asarray(size) >= minimum - 4.0 * rows * np.finfo(np.float64).eps * minimum)


def rule_positions(n: int, bins: int, strategy: str) -> np.ndarray:
    """The sorted row positions whose scores the unweighted equal-mass rules read (position 0,
    the lowest score, first): ``floor(j·N/M)`` (``"quantile"``), the last and first row of
    neighbouring ``numpy.array_split`` runs (``"equal-count"``). A database fetches just these."""
    if strategy == "quantile":
        return np.concatenate(([0], (np.arange(1, bins) * n) // bins)).astype(np.int64)
    m = min(bins, n)
    q, r = divmod(n, m)
    j = np.arange(1, m)
    starts = j * q + np.minimum(j, r)  # first index of runs 1..m-1 (numpy.array_split)
    return np.concatenate(([0], starts - 1, starts)).astype(np.int64)


def edges_at(at: Any, n: int, bins: int, strategy: str) -> np.ndarray:
    """The unweighted equal-mass edges of ``n`` sorted scores, ``at(positions)`` giving the scores at
    the :func:`rule_positions` (from the rows, per-value counts, or a database query)."""
    pos = rule_positions(n, bins, strategy)
    if strategy == "quantile":
        return cut_edges(np.unique(at(pos[1:])), at(pos[:1])[0])
    k = (pos.size - 1) // 2
    cuts = np.unique((at(pos[1:1 + k]) + at(pos[1 + k:])) / 2.0)
    cuts = cuts[cuts < 1.0]
    return np.concatenate(([0.0], cuts, [1.0]))


def cut_edges(picks: np.ndarray, lowest: float) -> np.ndarray:
    """``"quantile"`` edges from the scores picked at the j/M levels: duplicates and cuts at the
    lowest score or at 0 dropped, so equal scores never straddle a cut. A cut at 1 is kept: the
    scores equal to 1 are then a bin [1, 1] of their own (scores of only 0 and 1 are two bins,
    not one bin whose gap averages a miscalibrated 0 with a miscalibrated 1 into 0)."""
    cuts = np.unique(picks)
    cuts = cuts[(cuts > lowest) & (cuts > 0.0) & (cuts <= 1.0)]
    return np.concatenate(([0.0], cuts, [1.0]))


def bin_index(p: Any, edges: np.ndarray, strategy: str) -> Any:
    """Bin of every probability for the given edges — the one bin rule of every engine.

    ``p`` is a numpy array (an ``intp`` array comes back) or a narwhals expression (an
    ``Int64`` expression comes back, computed where a lazy frame lives): equal-width
    bins are ``min(floor(p·M), M−1)``; ``"quantile"`` counts the inner cuts ``<= p``
    (``searchsorted(..., side="right")``), ``"equal-count"`` the cuts ``< p`` (``"left"``).
    """
    m = edges.size - 1
    if not isinstance(p, np.ndarray):  # an expression over the rows of a lazy frame
        import narwhals as nw

        if strategy == "uniform":
            # least(), not clip(): engines render clip as a CASE that computes floor(p·M) twice
            return nw.min_horizontal((p * float(m)).floor(), nw.lit(float(m - 1))).cast(nw.Int64)
        one, zero = nw.lit(1, nw.Int64), nw.lit(0, nw.Int64)
        expr = zero
        for c in edges[1:-1]:
            hit = (p >= float(c)) if strategy == "quantile" else (p > float(c))
            expr = expr + nw.when(hit).then(one).otherwise(zero)
        return expr
    if strategy == "uniform":
        idx = (p * m).astype(np.intp)
        np.minimum(idx, m - 1, out=idx)
        return idx
    if strategy == "equal-count":
        return np.searchsorted(edges[1:-1], p, side="left")
    return np.searchsorted(edges[1:-1], p, side="right")


def make_edges(
    p: np.ndarray, bins: int | str, strategy: str, w: np.ndarray | None = None
) -> np.ndarray:
    """Bin edges for ``strategy``; ``bins`` is a positive integer or ``"auto"``."""
    check_strategy(strategy)
    bins = resolve_bins(bins, p, w)
    if strategy == "uniform":
        return uniform_edges(bins)
    if strategy == "equal-count":
        return equal_count_edges(p, bins)
    return quantile_edges(p, bins, w)
