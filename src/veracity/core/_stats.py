"""Mergeable per-bin sufficient statistics — the one object every binned number reads.

For bins b = 0…M−1 with edges ``e_0 < … < e_M`` a :class:`BinStats` holds

* ``count`` — rows in the bin (integer),
* ``weight`` — :math:`\\sum w`, ``weight_sq`` — :math:`\\sum w^2` (effective size),
* ``sum_p`` — :math:`\\sum w p`, ``sum_y`` — :math:`\\sum w y`,
* ``sum_p2`` — :math:`\\sum w p^2`, ``sum_py`` — :math:`\\sum w p y`,
* ``sum_nll`` — :math:`\\sum w \\ell` with ℓ the per-row log-loss,
* ``sum_r`` — :math:`\\sum w (p - y)` (the gap's numerator, conf − acc = ``sum_r / weight``),
* ``sum_q1`` — :math:`\\sum_{y=1} w (1 - p)` (the positives' missing probability),
* ``sum_r2`` — :math:`\\sum w (p - y)^2` (the Brier score's numerator),
* ``sum_w2y`` — :math:`\\sum w^2 y`, ``sum_w2pq`` — :math:`\\sum w^2 p(1 - p)` (weighted only: the
  sizes of :func:`veracity.core._weights.honest_size` the reliability table's interval reads when weights
  may depend on the label; None unweighted, and in statistics saved before they existed, which then
  fall back to Kish's effective size).

The last three are carried as sums of the residuals themselves, computed where the rows
live: expanded from the others (:math:`\\sum wp^2 - 2\\sum wpy + \\sum wy`) a sharp
forecast's Brier score of 1e-13 cancels to a few percent, or below zero. In memory every
sum of weights and of residuals is accurate to about one rounding whatever the rows'
order (:func:`veracity.core._rank.bin_sums`).

Two objects with the same edges merge by addition (``a + b``), so an audit of a
file read in chunks, or of partitions on a cluster, is the sum of the parts.
``sum_p2``, ``sum_py``, ``sum_nll``, ``sum_q1`` and ``sum_r2`` are optional (``None``) when
only the reliability table is needed; they are then not computed at all. ``sum_r``, ``sum_q1``
and ``sum_r2`` may be None in statistics built by hand or saved before they existed: the
formulas then fall back to the expanded sums.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any, cast

import numpy as np
from ._special import expit

from ._binning import bin_index, check_strategy
from ._rank import bin_sums, split_sums
from ._text import count_noun
from ._validation import (
    Binary,
    VeracityError,
    as_float_array,
    binary_nll_terms,
    check_probabilities,
    check_score_type,
    check_weights,
    prepare_binary,
)

_SUMS = ("weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll", "sum_r", "sum_q1", "sum_r2",
         "sum_w2y", "sum_w2pq")
_OPTIONAL = ("sum_p2", "sum_py", "sum_nll", "sum_r", "sum_q1", "sum_r2", "sum_w2y", "sum_w2pq")
#: the weighted rows' sums of squared weights (None unweighted): a part without rows adds zeros to them
_SQUARES = ("sum_w2y", "sum_w2pq")


@dataclass(frozen=True, eq=False)
class BinStats:
    """Per-bin sufficient statistics; ``a + b`` merges two (same edges)."""

    edges: np.ndarray
    strategy: str
    count: np.ndarray
    weight: np.ndarray
    weight_sq: np.ndarray
    sum_p: np.ndarray
    sum_y: np.ndarray
    sum_p2: np.ndarray | None = None
    sum_py: np.ndarray | None = None
    sum_nll: np.ndarray | None = None
    sum_r: np.ndarray | None = None
    sum_q1: np.ndarray | None = None
    sum_r2: np.ndarray | None = None
    sum_w2y: np.ndarray | None = None
    sum_w2pq: np.ndarray | None = None

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_binary(cls, data: Binary, edges: np.ndarray, strategy: str, *, full: bool = True,
                    squares: bool = True) -> BinStats:
        """Accumulate a validated binary problem into bins given by ``edges``.

        ``full=False`` computes only what the reliability table needs (counts,
        Σw, Σw², Σp, Σy, Σ(p − y), and weighted Σw²y, Σw²p(1 − p)); ``full=True`` adds Σp², Σpy,
        Σ log-loss, Σ_{y=1}(1 − p) and Σ(p − y)². Σw and Σw(p − y) are accurate to about one rounding in
        any row order (:func:`veracity.core._rank.bin_sums`). ``squares=False`` leaves Σw²y and
        Σw²p(1 − p) out (None) for weights known to be all 1 (a lazy route's stand-in for no weight column).
        """
        m = edges.size - 1
        idx = bin_index(data.p, edges, strategy)
        w = data.w
        if full:
            return cls._full(data, idx, m, edges, strategy, squares)

        def total(values: np.ndarray | None, accurate: bool = False) -> np.ndarray:
            weights = cast(np.ndarray, values if w is None else (w if values is None else values * w))
            if accurate:  # ECE's numbers: the weights and the residuals, in any row order
                return bin_sums(idx, weights, m)
            return np.bincount(idx, weights=weights, minlength=m).astype(np.float64, copy=False)

        count = np.bincount(idx, minlength=m).astype(np.int64)
        weight = count.astype(np.float64) if w is None else total(None, True)
        w2 = None if w is None else w * w
        weight_sq = weight if w2 is None else np.bincount(idx, weights=w2, minlength=m)
        # unweighted, Σ(p − y) of terms in [−1, 1] as bincount adds them (n·2^-53 at worst, no worse than the
        # sums it replaces); weighted, accurately (weights may span magnitudes)
        # Σwy as Σw is summed (weighted: accurately), so that a bin of positives has Σwy = Σw exactly
        return cls(edges, strategy, count, weight, weight_sq, total(data.p), total(data.y, w is not None),
                   sum_r=total(residuals(data), w is not None),
                   **_square_sums(data, idx, m, w2 if squares else None))

    @classmethod
    def _full(cls, data: Binary, idx: np.ndarray, m: int, edges: np.ndarray, strategy: str,
              squares: bool = True) -> BinStats:
        # One index over (bin, label): cell 2b + y. Sums per cell give every field
        # with few bincounts — Σy is the label-1 cells' weight, Σpy their Σp.
        cell = idx * 2
        cell += data.y.astype(np.intp)
        w = data.w

        def weighted(values: np.ndarray | None) -> np.ndarray:
            return cast(np.ndarray, values if w is None else (w if values is None else values * w))

        def per_cell(values: np.ndarray | None) -> np.ndarray:
            return np.bincount(cell, weights=weighted(values), minlength=2 * m).reshape(m, 2)

        rows = np.bincount(cell, minlength=2 * m).reshape(m, 2)
        count = rows.sum(axis=1).astype(np.int64)
        # the weights and the residuals (ECE's numbers) summed accurately, in any row order;
        # the other sums as bincount adds them (sums of nonnegative terms: n·2^-53 relative at worst)
        weight = rows.astype(np.float64) if w is None else bin_sums(cell, w, 2 * m).reshape(m, 2)
        w2 = None if w is None else w * w
        weight_sq = count.astype(np.float64) if w2 is None else np.bincount(idx, weights=w2, minlength=m)
        sum_p = per_cell(data.p)
        r = residuals(data)
        if w is None:  # a cell's residuals share a sign (r = p ≥ 0 at y = 0, p − 1 ≤ 0 at y = 1): its plain sum is
            # accurate (terms in [−1, 1], no cancellation), and the split costs three bincounts on every audit
            high, low = per_cell(r), np.zeros((m, 2))
        else:  # weights spanning magnitudes: the exact split, so a bin's total is one rounding in any row order
            high, low = (v.reshape(m, 2) for v in split_sums(cell, weighted(r), 2 * m, parts=2))
        cell_r = high + low  # per (bin, label); a bin's two high sums add exactly (see split_sums)
        return cls(
            edges,
            strategy,
            count,
            weight.sum(axis=1),
            weight_sq,
            sum_p.sum(axis=1),
            weight[:, 1].copy(),
            sum_p2=per_cell(data.p * data.p).sum(axis=1),
            sum_py=sum_p[:, 1].copy(),
            sum_nll=per_cell(binary_nll_terms(data)).sum(axis=1),
            # weighted: accurate even where the two cells cancel; unweighted, each cell to n·2^-53 of its own
            # size, so a bin whose cells nearly cancel (4e6 rows of one score: ECE to 3e-8 relative) is less
            # accurate than the database routes' sums, below any printed digit
            sum_r=high.sum(axis=1) + low.sum(axis=1),
            sum_q1=-cell_r[:, 1],  # label-1 rows: r = p - 1 = -(1 - p)
            sum_r2=per_cell(r * r).sum(axis=1),
            **_square_sums(data, idx, m, w2 if squares else None),
        )

    @classmethod
    def from_arrays(
        cls,
        scores: Any,
        labels: Any,
        *,
        edges: Any,
        strategy: str = "uniform",
        sample_weight: Any = None,
        score_type: str = "probability",
        full: bool = True,
    ) -> BinStats:
        """Statistics of raw arrays for fixed ``edges`` (the engine-neutral entry point)."""
        check_strategy(strategy)
        e = np.asarray(edges, dtype=np.float64)
        if e.ndim != 1 or e.size < 2 or e[0] != 0.0 or e[-1] != 1.0 or (np.diff(e) <= 0).any():
            raise VeracityError("edges must increase strictly from 0.0 to 1.0")
        data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type)
        return cls.from_binary(data, e, strategy, full=full)

    # -- merging ------------------------------------------------------------------
    def __add__(self, other: BinStats) -> BinStats:
        if not isinstance(other, BinStats):
            return NotImplemented
        if self.edges.shape != other.edges.shape or not np.array_equal(self.edges, other.edges):
            raise VeracityError(
                "cannot merge statistics with different bin edges; compute both with the same "
                "edges (fix quantile edges once, then pass edges= to each part)"
            )
        merged: dict[str, Any] = {"count": self.count + other.count}
        for name in _SUMS:
            a, b = getattr(self, name), getattr(other, name)
            if name in _SQUARES:  # a part without rows adds nothing (a file scan's total starts from one)
                a = np.zeros(self.n_bins) if a is None and not self.count.any() else a
                b = np.zeros(other.n_bins) if b is None and not other.count.any() else b
            merged[name] = None if a is None or b is None else a + b
        return BinStats(self.edges, self.strategy, **merged)

    merge = __add__

    # -- derived ------------------------------------------------------------------
    @property
    def n_bins(self) -> int:
        return int(self.edges.size - 1)

    @property
    def total_weight(self) -> float:
        return float(self.weight.sum())

    @property
    def n(self) -> int:
        return int(self.count.sum())

    @property
    def nonempty(self) -> np.ndarray:
        return self.weight > 0

    @property
    def conf(self) -> np.ndarray:
        """Mean confidence per bin (NaN for empty bins)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.nonempty, self.sum_p / self.weight, np.nan)

    @property
    def acc(self) -> np.ndarray:
        """Observed frequency of label 1 per bin (NaN for empty bins)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.nonempty, self.sum_y / self.weight, np.nan)

    @property
    def effective_count(self) -> np.ndarray:
        r"""Kish effective size per bin, :math:`(\sum w)^2 / \sum w^2` (= count unweighted).

        A bin whose weights are so small that their squares underflow (:math:`\sum w^2 = 0`
        with :math:`\sum w > 0`) gets 1, the smallest effective size of a non-empty bin: its
        interval is the widest, never NaN."""
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            ratio = self.weight**2 / self.weight_sq
        return np.where(self.nonempty, np.where(np.isfinite(ratio), ratio, 1.0), 0.0)

    def require_full(self, what: str) -> None:
        if self.sum_p2 is None or self.sum_py is None or self.sum_nll is None:
            raise VeracityError(f"{what} needs full statistics; build them with full=True")

    # -- serialisation --------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"edges": self.edges.tolist(), "strategy": self.strategy}
        for f in fields(self):
            if f.name in ("edges", "strategy"):
                continue
            value = getattr(self, f.name)
            out[f.name] = None if value is None else value.tolist()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BinStats:
        try:
            kwargs: dict[str, Any] = {
                name: (None if data.get(name) is None else np.asarray(data[name], dtype=np.float64))
                for name in _SUMS
            }
            return cls(
                edges=np.asarray(data["edges"], dtype=np.float64),
                strategy=str(data["strategy"]),
                count=np.asarray(data["count"], dtype=np.int64),
                **kwargs,
            )
        except KeyError as exc:
            raise VeracityError(f"statistics dict is missing the field {exc.args[0]!r}") from None

    def __str__(self) -> str:
        return f"BinStats({count_noun(self.n, 'row')} in {count_noun(self.n_bins, self.strategy + ' bin')})"


def _square_sums(data: Binary, idx: np.ndarray, m: int, w2: np.ndarray | None) -> dict[str, np.ndarray]:
    r"""``sum_w2y`` :math:`= \sum w^2 y` and ``sum_w2pq`` :math:`= \sum w^2 p(1 - p)` per bin of weighted rows
    (``w2`` the squared weights; none unweighted: no cost there). :math:`1 - p` of a logit is the logistic of
    :math:`-s`, as :func:`residuals` takes it (and every lazy route)."""
    if w2 is None:
        return {}
    q = 1.0 - data.p if data.logit is None else expit(-data.logit)
    return {"sum_w2y": np.bincount(idx, weights=w2 * data.y, minlength=m),
            "sum_w2pq": np.bincount(idx, weights=w2 * (data.p * q), minlength=m)}


def residuals(data: Binary) -> np.ndarray:
    r"""``p − y`` per row: exact for label 0 and for label 1 with p ≥ ½ (Sterbenz), one rounding
    otherwise. From logits :math:`s`, a positive's residual is :math:`-\sigma(-s)` itself: ``p − 1`` of
    the rounded :math:`p = \sigma(s)` keeps only its rounding error where :math:`\sigma(-s)` is tiny
    (0 beyond :math:`s \approx 37`, where the true residual is :math:`e^{-s}`)."""
    if data.logit is not None:
        return np.where(data.y == 1.0, -expit(-data.logit), data.p)
    r: np.ndarray = data.p - data.y
    return r


#: Default cap on the number of slices (``by=``): one audit per slice costs a pass each.
MAX_GROUPS = 100


def check_max_groups(max_groups: Any) -> int | None:
    if max_groups is None:
        return None
    if isinstance(max_groups, bool) or not isinstance(max_groups, (int, np.integer)) or max_groups < 2:
        raise VeracityError(f"max_groups must be an integer >= 2 (or None for no cap), got {max_groups!r}",
                            param="max_groups")
    return int(max_groups)


def other_key(n_groups: int) -> str:
    """The name of the slice that holds the smallest groups beyond the cap."""
    return f"(other {n_groups:,} values)"


def refuse_shared_names(keys: list[Any]) -> None:
    """Slices are named by their key's text (:func:`veracity.core._keys.key_name`): two different keys
    with one text (a missing key and the text ``'(missing)'``, the number ``1`` and the text ``'1'``) would be
    one slice in memory and overwrite each other elsewhere; refused
    (:func:`veracity.core._keys.refuse_shared_names`)."""
    from ._keys import refuse_shared_names as refuse

    refuse(keys)


def text_keys(keys: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Object keys (mixed types, missing ones as None) as their text, the slices' names
    (:func:`veracity.core._keys.key_names`: a zoned time in UTC, ``-0.0`` as ``0.0``, bytes as
    ``b'...'``), and the name of the missing keys' slice (:data:`~veracity.core._keys.MISSING_NAME`,
    or None without one: :func:`group_rows`' ``last``). A missing key beside the text ``'(missing)'``
    is refused (:func:`refuse_shared_names`)."""
    from ._keys import MISSING_NAME, is_missing, key_names

    text = key_names(keys)
    missing = np.fromiter((is_missing(k) for k in keys.ravel()), bool, keys.size).reshape(keys.shape)
    if not missing.any():
        return text, None
    if (text[~missing] == MISSING_NAME).any():
        refuse_shared_names([None, MISSING_NAME])
    return text, MISSING_NAME


def slice_keys(keys: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Array ``by=`` keys named as a frame's column would name them (:func:`text_keys`' pair).

    A frame hands over times as ``datetime``/``date`` objects and missing keys as None, so an
    array route that printed ``numpy.datetime64`` (``2026-01-01T10:00:00.000000000``), NaT or NaN
    named the same slices differently. Times become ``2026-01-01 10:00:00`` (finer than a
    microsecond: nine decimals, as a pandas ``Timestamp`` prints them), dates ``2026-01-01``; NaT
    (a time column's null: Arrow and every frame hold it as one) becomes the missing keys' slice
    ``(missing)``, as a float NaN does (:func:`veracity.core._keys.is_missing`), and ``-0.0`` is the
    slice ``0.0``. Object keys are named by :func:`veracity.core._keys.key_name`.
    """
    if keys.dtype.kind == "M":
        keys = _time_texts(keys)
    elif keys.dtype.kind == "m":
        keys = _duration_texts(keys)
    elif keys.dtype.kind == "f":
        keys = keys + 0.0  # -0.0 is the slice 0.0 (as veracity.core._keys.key_name names it on every route)
    return text_keys(keys) if keys.dtype == object else (keys, None)


def _duration_texts(keys: np.ndarray) -> np.ndarray:
    """``timedelta64`` keys as their slice names (:func:`veracity.core._keys.duration_name` of
    :func:`veracity.core._keys.duration_ns`, exact in Python ints; None: NaT); one conversion per
    distinct key. A cast to ``timedelta64[ns]`` wrapped durations beyond 292 years, silently: 10**10
    seconds was named ``-97763 days ...``, where the lazy routes name it ``115740 days 17:46:40``."""
    from ._keys import duration_name, duration_ns

    values, inverse = np.unique(keys, return_inverse=True)
    texts = np.empty(values.size, dtype=object)
    exact = [duration_ns(v) for v in values]  # distinct keys only
    texts[:] = [None if ns is None else duration_name(ns) for ns in exact]
    return texts[inverse.reshape(-1)]


def _time_texts(keys: np.ndarray) -> np.ndarray:
    """``datetime64`` keys as the text of the ``date``/``datetime`` a frame hands back (None: NaT);
    one conversion per distinct key."""
    values, inverse = np.unique(keys, return_inverse=True)
    unit = np.datetime_data(values.dtype)[0]
    gaps = np.isnat(values)
    texts = np.empty(values.size, dtype=object)
    if unit in ("Y", "M", "W", "D"):
        days = values.astype("datetime64[D]").astype(object)
        texts[:] = [None if g else str(d) for g, d in zip(gaps.tolist(), days.tolist())]
    else:
        micro = values.astype("datetime64[us]")
        finer = (values - micro.astype(values.dtype)).astype(np.int64) if unit in ("ns", "ps", "fs", "as") else None
        stamps = micro.astype(object).tolist()
        for i, (g, t) in enumerate(zip(gaps.tolist(), stamps)):
            if g:
                texts[i] = None
            elif not hasattr(t, "strftime"):  # beyond datetime's years 1..9999: numpy's own text
                texts[i] = str(values[i])
            elif finer is not None and finer[i]:
                per_ns = {"ns": 1, "ps": 1000, "fs": 10**6, "as": 10**9}[unit]
                texts[i] = f"{t:%Y-%m-%d %H:%M:%S}.{t.microsecond * 1000 + int(finer[i]) // per_ns:09d}"
            else:
                texts[i] = str(t)
    return texts[inverse.reshape(-1)]


def group_rows(keys: np.ndarray, max_groups: int | None = None, *, last: str | None = None,
               values: np.ndarray | None = None) -> Iterator[tuple[str, np.ndarray]]:
    """``(key, row indices)`` for every distinct key, in sorted key order (one sort); the key
    ``last`` (the missing keys' name) after the others. ``values``: the keys as given (an object,
    ``timedelta64`` or ``datetime64`` array whose text ``keys`` is), ordering the slices by value as
    every other route does (:func:`veracity.core._keys.key_order`: ``9`` before ``10``, ``-1 days``
    before ``2 days`` before ``10 days``, not as text).

    With ``max_groups``, at most that many slices: the ``max_groups - 1`` largest keys
    (ties: the first in key order), and one last slice named :func:`other_key` holding
    the rows of all the others.
    """
    max_groups = check_max_groups(max_groups)
    uniques, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(uniques.size + 1))
    ranked = np.arange(uniques.size)
    if values is not None and values.dtype == object:
        from ._keys import key_rank

        ranked = np.asarray(key_rank(values[first].tolist()), dtype=np.intp)
    elif values is not None and values.dtype.kind in "mM":  # durations and times by value (NaT last), as the
        ranked = np.argsort(values[first], kind="stable")  # lazy routes order them: -1 days before 2 days
    elif last is not None and uniques.dtype.kind in "US":
        at = np.flatnonzero(uniques == last)
        ranked = np.r_[ranked[ranked != at[0]], at] if at.size else ranked
    if max_groups is None or uniques.size <= max_groups:
        for g in ranked.tolist():
            yield str(uniques[g]), order[starts[g] : starts[g + 1]]
        return
    sizes = np.diff(starts)
    keep = np.zeros(uniques.size, dtype=bool)
    keep[ranked[np.argsort(-sizes[ranked], kind="stable")[: max_groups - 1]]] = True
    for g in ranked[keep[ranked]].tolist():
        yield str(uniques[g]), order[starts[g] : starts[g + 1]]
    yield other_key(int((~keep).sum())), np.sort(np.flatnonzero(~keep[inverse]))


def subset(data: Binary, rows: np.ndarray) -> Binary:
    """The rows ``rows`` of a validated problem."""

    def pick(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else a[rows]

    return Binary(
        p=data.p[rows],
        y=data.y[rows],
        w=pick(data.w),
        logit=pick(data.logit),
        nll_terms=pick(data.nll_terms),
        n_classes=data.n_classes,
        top_label=data.top_label,
        weight_scale=data.weight_scale,
    )


def grouped_stats(
    data: Binary, keys: np.ndarray, edges: np.ndarray, strategy: str = "uniform"
) -> dict[str, BinStats]:
    """One full :class:`BinStats` per distinct key."""
    return {
        key: BinStats.from_binary(subset(data, rows), edges, strategy, full=True)
        for key, rows in group_rows(keys)
    }


def merge_into(target: dict[str, BinStats], parts: dict[str, BinStats]) -> dict[str, BinStats]:
    """Add ``parts`` into ``target`` key by key (in place) and return it."""
    for key, stats in parts.items():
        target[key] = target[key] + stats if key in target else stats
    return target


def score_histograms(
    scores: Any,
    keys: np.ndarray | None,
    edges: np.ndarray,
    *,
    score_type: str = "probability",
    sample_weight: Any = None,
) -> dict[str, np.ndarray]:
    r"""(Weighted) count of rows per bin of the probability, per key.

    ``edges``: :math:`e_0 = 0 < e_1 < \dots < e_M = 1`. Equal-width edges :math:`[0, 1/M, \dots, 1]` (up to
    1e-12 each) bin by :math:`\min(\lfloor pM \rfloor, M - 1)`, the rule of every audit engine; any other
    edges put :math:`p` in bin :math:`i` with :math:`e_i \le p < e_{i+1}` (the last bin closed), the rule of
    given cut points (:func:`~._binning.bin_index`'s ``"quantile"``). (Every edge used to be read as
    equal-width: ``[0, 0.2, 0.5, 1]`` counted the rows of thirds under those labels.)
    Needs scores only — no labels — so rows whose label is not final count too.
    ``keys=None``: one histogram under ``"(all)"``, with no per-row key built.
    """
    edges, strategy = _histogram_rule(edges)
    s = as_float_array(scores, "scores")
    if s.ndim != 1:
        raise VeracityError(f"scores must be 1-D for score histograms, got shape {s.shape}")
    check_score_type(score_type)
    p = expit(s) if score_type == "logit" else s
    if score_type == "probability":
        check_probabilities(p)
    w = check_weights(sample_weight, s.size)
    m = edges.size - 1
    idx = bin_index(p, edges, strategy)
    if keys is None:
        return {"(all)": np.bincount(idx, weights=w, minlength=m).astype(np.float64)}
    out = {}
    for key, rows in group_rows(keys):
        out[key] = np.bincount(idx[rows], weights=None if w is None else w[rows], minlength=m).astype(np.float64)
    return out


def _histogram_rule(edges: Any) -> tuple[np.ndarray, str]:
    """:func:`score_histograms`' ``edges`` as floats and their bin rule (``"uniform"`` or ``"quantile"``),
    or a one-line refusal of edges that do not cut [0, 1] into bins (each probability in exactly one)."""
    from ._binning import is_uniform_edges

    e = np.asarray(edges, dtype=np.float64)
    if not (e.ndim == 1 and e.size >= 2 and e[0] == 0.0 and e[-1] == 1.0 and np.all(np.diff(e) > 0)):
        shown = np.asarray(edges).tolist()
        raise VeracityError(f"histogram edges must rise strictly from 0 to 1, got {shown!r}", param="edges")
    return e, "uniform" if is_uniform_edges(e) else "quantile"


def merge_histograms(target: dict[str, np.ndarray], parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Add per-key histograms into ``target`` (in place) and return it."""
    for key, h in parts.items():
        target[key] = target[key] + h if key in target else h
    return target
