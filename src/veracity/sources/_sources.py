"""The two sources: rows in memory (numpy) and rows where a lazy frame lives.

Both answer the same questions, so everything above is written once:

* :meth:`Source.contract_counts` — the input contract's counts (``n``, ``y_sum``, ...),
  after the one-line error when a row breaks the contract;
* :meth:`Source.bin_stats` / :meth:`Source.slice_stats` — :class:`~veracity.BinStats`
  for given edges, whole or per slice (``by=``; several columns give tuple keys);
* :meth:`Source.auc` / :meth:`Source.slice_auc` — the exact Mann–Whitney AUC;
* :meth:`Source.counts_at` — positive and negative weight at or above thresholds (the caller's units);
* :meth:`Source.per_value` — count and weight per distinct probability (equal-mass edges).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core._binning import check_strategy
from ..core._stats import BinStats, text_keys
from ..core._validation import VeracityError, check_score_type


class Source:
    """What the layers above the rows ask of them (see the module doc)."""

    #: True when the rows are never collected (a lazy frame)
    lazy: bool = False
    weighted: bool = False

    def contract_counts(self) -> dict[str, Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def bin_stats(self, edges: Any, strategy: str = "uniform", *, threshold: float = 0.5) -> BinStats:
        raise NotImplementedError  # pragma: no cover - interface

    def slice_stats(self, edges: Any, strategy: str = "uniform", *,
                    threshold: float = 0.5) -> dict[Any, BinStats]:
        raise NotImplementedError  # pragma: no cover - interface

    def auc(self) -> float | None:
        raise NotImplementedError  # pragma: no cover - interface

    def slice_auc(self) -> dict[Any, float | None]:
        raise NotImplementedError  # pragma: no cover - interface

    def counts_at(self, thresholds: Any) -> tuple[np.ndarray, np.ndarray, float, float]:
        raise NotImplementedError  # pragma: no cover - interface

    def per_value(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError  # pragma: no cover - interface


def _user_counts(per_pos: np.ndarray, per_neg: np.ndarray, t: np.ndarray, u: np.ndarray,
                 scale: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    r""":meth:`Source.counts_at` from the per-gap weights of the positives and the negatives: the weights
    at or above each threshold and the totals, in the caller's units. Extreme weights were rescaled by
    a power of two, :math:`w \cdot s` (:func:`._aggregates.weight_scale`); each sum is divided by
    :math:`s` (exact; a sum beyond the largest double is ``inf``). The lazy frames' threshold table
    counted in the rescaled units: weights of 1e-200 and 1 gave counts :math:`2^{185}` times too large."""
    from ..core._weights import in_user_units
    from ._thresholds import at_or_above

    tp, fp = at_or_above(per_pos, t, u), at_or_above(per_neg, t, u)
    n_pos, n_total = float(per_pos.sum()), float(per_pos.sum()) + float(per_neg.sum())
    if scale != 1.0:
        k = 1 - math.frexp(scale)[1]  # scale = 2**-k
        with np.errstate(over="ignore", under="ignore"):
            tp, fp = np.ldexp(tp, k), np.ldexp(fp, k)
        n_pos, n_total = in_user_units(n_pos, scale), in_user_units(n_total, scale)
    return tp, fp, n_total, n_pos


def _edges(edges: Any) -> np.ndarray:
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.size < 2 or e[0] != 0.0 or e[-1] != 1.0 or (np.diff(e) <= 0).any():
        raise VeracityError("edges must increase strictly from 0.0 to 1.0", param="edges")
    return e


class ArraySource(Source):
    """Rows in memory: the array code (numpy), bit for bit the array form's numbers."""

    lazy = False

    def __init__(self, scores: Any, labels: Any, *, sample_weight: Any = None, by: Any = None,
                 score_type: str = "probability", pos_label: Any = None, prep: Any = None) -> None:
        self.scores, self.labels, self.sample_weight = scores, labels, sample_weight
        self.by, self.score_type, self.pos_label = by, check_score_type(score_type), pos_label
        self.weighted = sample_weight is not None
        #: the frame these arrays came from (its column names for the contract's messages)
        self.prep = prep
        self._data: Any = None

    def _explained(self, compute: Any) -> Any:
        try:
            return compute()
        except VeracityError as exc:
            if self.prep is None:
                raise
            raise self.prep.explain(self.score_type, exc) from None

    def call(self, fn: Any, *args: Any, **options: Any) -> Any:
        """``fn(scores, labels, *args, sample_weight=..., score_type=..., **options)`` (the array form)."""
        if self.pos_label is not None:
            options["pos_label"] = self.pos_label
        return self._explained(lambda: fn(self.scores, self.labels, *args, sample_weight=self.sample_weight,
                                          score_type=self.score_type, **options))

    @property
    def data(self) -> Any:
        if self._data is None:
            from ..core._validation import prepare_binary

            self._data = self._explained(lambda: prepare_binary(
                self.scores, self.labels, sample_weight=self.sample_weight, score_type=self.score_type,
                pos_label=self.pos_label))
        return self._data

    def _keys(self) -> np.ndarray:
        from ..core._validation import to_numpy

        if self.by is None:
            raise VeracityError("slices need by=: as_source(..., by=keys or 'column')", param="by")
        keys = to_numpy(self.by, "by")
        if keys.ndim != 1 or keys.shape[0] != self.data.n:
            raise VeracityError(f"by must hold one key per row: got {keys.shape[0] if keys.ndim else 0} keys "
                                f"for {self.data.n} rows", param="by")
        return text_keys(keys)[0] if keys.dtype == object else keys

    def contract_counts(self) -> dict[str, Any]:
        d = self.data
        return {"n": d.n, "y_sum": float(d.y.sum() if d.w is None else np.dot(d.y, d.w)),
                "w_sum": d.total_weight, "s_min": float(d.p.min()), "s_max": float(d.p.max())}

    def bin_stats(self, edges: Any, strategy: str = "uniform", *, threshold: float = 0.5) -> BinStats:
        return BinStats.from_binary(self.data, _edges(edges), check_strategy(strategy), full=True)

    def _multi_keys(self) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
        """Several key arrays: one code per row and the key tuple of each code (sorted)."""
        from ..core._validation import to_numpy

        cols = [to_numpy(k, "by") for k in self.by]
        if any(c.ndim != 1 or c.shape[0] != self.data.n for c in cols):
            raise VeracityError(f"each by= key array must hold one key per row ({self.data.n} rows)", param="by")
        rec = np.rec.fromarrays([c.astype(str) if c.dtype == object else c for c in cols])
        uniques, codes = np.unique(rec, return_inverse=True)
        return codes.reshape(-1), [tuple(u.item()) if hasattr(u, "item") else tuple(u) for u in uniques]

    def slice_stats(self, edges: Any, strategy: str = "uniform", *,
                    threshold: float = 0.5) -> dict[Any, BinStats]:
        from ..core._stats import grouped_stats

        e, strategy = _edges(edges), check_strategy(strategy)
        if isinstance(self.by, list):  # several key columns: tuple keys, as on a lazy frame
            codes, names = self._multi_keys()
            return {names[int(k)]: st for k, st in grouped_stats(self.data, codes, e, strategy).items()}
        return grouped_stats(self.data, self._keys(), e, strategy)

    @staticmethod
    def _auc_of(data: Any) -> float | None:
        from ..core._metrics import auc_of

        if data.n == 0 or not (data.y.min() == 0.0 and data.y.max() == 1.0):
            return None
        return auc_of(data)

    def auc(self) -> float | None:
        return self._auc_of(self.data)

    def slice_auc(self) -> dict[Any, float | None]:
        from ..core._stats import group_rows, subset

        return {key: self._auc_of(subset(self.data, rows)) for key, rows in group_rows(self._keys())}

    def counts_at(self, thresholds: Any) -> tuple[np.ndarray, np.ndarray, float, float]:
        from ._thresholds import array_gap_sums, thresholds_grid

        d = self.data
        s = d.logit if d.logit is not None else d.p
        t = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        u = thresholds_grid(t)
        pos = d.y == 1.0
        w = d.w
        per_pos = array_gap_sums(s[pos], None if w is None else w[pos], u)
        per_neg = array_gap_sums(s[~pos], None if w is None else w[~pos], u)
        return _user_counts(per_pos, per_neg, t, u, d.weight_scale)

    def per_value(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        d = self.data
        v, inverse, count = np.unique(d.p, return_inverse=True, return_counts=True)
        weight = count.astype(np.float64) if d.w is None else np.bincount(inverse, weights=d.w, minlength=v.size)
        return v, count.astype(np.int64), weight


class FrameSource(Source):
    """A lazy frame's rows, read by aggregates where they live (never collected whole)."""

    lazy = True

    def __init__(self, prep: Any, score_type: str = "probability") -> None:
        #: the checked frame and its column names (:class:`._api._Prepared`)
        self.prep = prep
        self.score_type = check_score_type(score_type)
        self.weighted = prep.weight is not None
        self.backend = prep.frame.backend
        self._counts: dict[str, Any] | None = None

    def contract_counts(self) -> dict[str, Any]:
        if self._counts is None:
            self._counts = self.prep.check_lazy(self.score_type)
        return self._counts

    def _sums(self, edges: np.ndarray, strategy: str, threshold: float, grouped: Any) -> Any:
        from . import _aggregates as agg

        self.contract_counts()
        prep = self.prep
        return agg.bin_sums(prep.working(bool(grouped)), bins=edges.size - 1, score_type=prep.bin_score_type,
                            threshold=threshold, grouped=grouped, edges=edges, strategy=strategy,
                            top_label=prep.multiclass, weighted=self.weighted)

    def bin_stats(self, edges: Any, strategy: str = "uniform", *, threshold: float = 0.5) -> BinStats:
        from ._api import _stats_of

        e, strategy = _edges(edges), check_strategy(strategy)
        return _stats_of(self.prep, self._sums(e, strategy, threshold, False), e, strategy, False)[0]

    def slice_stats(self, edges: Any, strategy: str = "uniform", *,
                    threshold: float = 0.5) -> dict[Any, BinStats]:
        from ._api import _stats_of

        by = self.prep.by
        if by is None:
            raise VeracityError("slices need by=: as_source(frame, ..., by='column')", param="by")
        e, strategy = _edges(edges), check_strategy(strategy)
        grouped: Any = tuple(f"_g{i}" for i in range(len(by))) if isinstance(by, list) else True
        return _stats_of(self.prep, self._sums(e, strategy, threshold, grouped), e, strategy, True)[1]

    def auc(self) -> float | None:
        from ._api import lazy_auc

        n = int(self.contract_counts()["n"])
        return lazy_auc(self.prep, score_type=self.score_type, n=n)[None]

    def slice_auc(self) -> dict[Any, float | None]:
        from ._api import lazy_auc

        n = int(self.contract_counts()["n"])
        return lazy_auc(self.prep, score_type=self.score_type, n=n, grouped=True)

    def counts_at(self, thresholds: Any) -> tuple[np.ndarray, np.ndarray, float, float]:
        from ._thresholds import at_or_above, gap_sums, thresholds_grid

        counts = self.contract_counts()
        t = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        u = thresholds_grid(t)
        per_pos, per_neg = gap_sums(self.prep.working(False), u, weighted=self.weighted)
        if not self.weighted:
            n_pos = float(per_pos.sum())
            return at_or_above(per_pos, t, u), at_or_above(per_neg, t, u), float(int(counts["n"])), n_pos
        return _user_counts(per_pos, per_neg, t, u, self.prep.weight_scale)

    def per_value(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from . import _aggregates as agg

        self.contract_counts()
        x = self.prep.working(False).with_columns(_p=agg.probability(self.prep.bin_score_type))
        return agg.per_value(x)


def as_source(data: Any, labels: Any = None, *, score: Any = None, label: Any = None, sample_weight: Any = None,
              by: Any = None, engine: str = "auto", score_type: str = "probability",
              pos_label: Any = None) -> Source:
    """The rows of ``data`` as a :class:`Source`.

    Array form ``as_source(scores, labels, sample_weight=w, by=keys)``; frame form
    ``as_source(frame_or_path, score="p", label="y", sample_weight="w", by="segment")``.
    ``engine="auto"`` keeps in-memory frames in memory (their columns as numpy arrays)
    and lazy frames and paths where they live; ``engine="memory"`` collects the needed
    columns of any frame first.
    """
    if engine not in ("auto", "memory"):
        raise VeracityError(f"engine must be 'auto' or 'memory' here, got {engine!r}; a lazy frame's "
                            "engine is its own backend (pass a DuckDB relation, Spark or Dask DataFrame)",
                            param="engine")
    if score is None and label is None:
        if labels is None:
            raise VeracityError("as_source needs labels: as_source(scores, labels) or "
                                "as_source(frame, score='p', label='y')", param="labels")
        return ArraySource(data, labels, sample_weight=sample_weight, by=by, score_type=score_type,
                           pos_label=pos_label)
    from ._api import _Prepared

    if labels is not None:
        raise VeracityError("the frame form names the label column with label=; pass no labels array",
                            param="labels")
    prep = _Prepared(data, score, label, sample_weight, by, pos_label=pos_label)
    if prep.frame.lazy and engine == "memory":  # the needed columns, collected
        import narwhals as nw

        from ._aggregates import collect

        f = prep.frame
        wanted = list(dict.fromkeys(c for c in (*prep.score, label, prep.weight, prep.by) if c))
        table = collect(f.nw.select([nw.col(f.ref(c)).alias(c) for c in wanted])).to_native()
        if type(table).__module__.split(".")[0] == "pyarrow":  # DuckDB's INTERVAL keys as durations
            from ._source import intervals_as_durations

            table = intervals_as_durations(table)
        prep = _Prepared(table, score, label, sample_weight, by, pos_label=pos_label)
    if not prep.frame.lazy:
        scores, ys, weights = prep.arrays()
        if isinstance(prep.by, list):
            keys: Any = [prep.column(b) for b in prep.by]
        else:
            keys = None if prep.by is None else prep.slice_keys()
        return ArraySource(scores, ys, sample_weight=weights, by=keys, score_type=score_type, prep=prep)
    return FrameSource(prep, score_type)
