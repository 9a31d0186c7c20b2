"""Checked inputs of a model comparison: several named score columns on the same rows.

Two forms, one result:

* arrays — ``fn({"a": scores_a, "b": scores_b}, labels, sample_weight=..., pos_label=...)``;
* frames — ``fn(frame, scores=["a", "b"], label="y", sample_weight="w", by="segment")``
  on every frame ``vc.audit`` reads (through :class:`veracity.sources._api._Prepared`).
  In-memory frames hand their columns over as they are. A lazy frame (polars LazyFrame,
  DuckDB relation, Parquet/CSV path, Dask, Spark) is read once, in one projection of only
  the named columns — the model scores, the label (or ``[label == pos_label]`` computed
  where the data lives), the weight and the slice key: DeLong's placements, the CORP fit
  and the paired bootstrap pair every row of one model with the same row of the other, so
  those columns (8 bytes a value) must be in memory; nothing else is. The row count is
  asked first (one cheap aggregate) and a read that would not fit in half the memory
  still available is refused in one line. The numbers are the array form's.

Every model is validated like any other veracity input (``prepare_binary``), prefixed with
its name; models scored on different rows (another length, another pandas index) are
refused; rows of weight 0 are dropped from every model at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._keys import array_keys
from ..core._validation import (
    _NO_VALUE,
    Binary,
    VeracityError,
    as_float_array,
    check_binary_labels,
    check_same_index,
    check_weights,
    prepare_binary,
    to_numpy,
)

SCORE_TYPES = ("probability", "logit", "score")


@dataclass(frozen=True, eq=False)
class Models:
    """Named models on the same rows: ``data[k]`` is model k's checked problem (shared y and w)."""

    names: tuple[str, ...]
    data: tuple[Binary, ...]
    y: np.ndarray
    w: np.ndarray | None
    score_type: str
    notes: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def probabilistic(self) -> bool:
        return self.score_type != "score"

    def rank(self, k: int) -> np.ndarray:
        """Model k's ranking score (logits when given: the sigmoid would create ties)."""
        d = self.data[k]
        return d.logit if d.logit is not None else d.p

    def subset(self, rows: np.ndarray) -> Models:
        from ..core._stats import subset

        data = tuple(subset(d, rows) for d in self.data)
        return Models(self.names, data, data[0].y, data[0].w, self.score_type, self.notes)

    def pairs(self) -> list[tuple[int, int]]:
        """Every pair (i, j), i < j, in the order the models were given."""
        k = len(self.names)
        return [(i, j) for i in range(k) for j in range(i + 1, k)]


def check_score_type(score_type: Any, *, probabilities: bool = False, what: str = "vc.compare_models") -> str:
    if score_type not in SCORE_TYPES:
        raise VeracityError(f"score_type must be 'probability', 'logit' or 'score', got {score_type!r}")
    if probabilities and score_type == "score":
        raise VeracityError(
            f"{what} reads the scores as probabilities; score_type='score' has no probability reading: "
            "calibrate first, or declare it a probability")
    return score_type


def _length(x: Any, name: str) -> int:
    arr = to_numpy(x, name)
    if arr.ndim == 0:
        raise VeracityError(f"{name} is a single number; pass one score per row")
    if arr.ndim == 2 and arr.shape[1] == 2:  # vc.audit reads these top-label; a comparison pairs P(y = 1)
        raise VeracityError(
            f"{name} has shape {arr.shape}: model comparison takes one binary score per row (the positive "
            "class's probability), and (N, 2) scores are read top-label elsewhere in veracity; pass P[:, 1] for each model")
    if arr.ndim == 2 and arr.shape[1] > 1:
        raise VeracityError(
            f"{name} has shape {arr.shape}: model comparison takes one binary score per row; for (N, K) "
            "multiclass scores compare one class k at a time: pass its column P[:, k] for each model and the "
            "labels as 0/1, (labels == k)")
    return int(arr.shape[0])


def _one(name: str, scores: Any, labels: Any, y: np.ndarray | None, w: np.ndarray | None, *,
         sample_weight: Any, score_type: str, pos_label: Any) -> Binary:
    """Model ``name`` checked; the first model checks labels and weights, the others reuse them."""
    try:
        if score_type == "score":
            s = as_float_array(scores, "scores")
            s = s[:, 0] if s.ndim == 2 else s
            if y is None:
                y = check_binary_labels(labels, s.shape[0], pos_label)
                w = check_weights(sample_weight, s.shape[0])
            return Binary(p=s, y=y, w=w)
        if y is None:
            return prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                                  pos_label=pos_label)
        # the labels are checked already: stand-in labels whose check is two passes over a byte each
        d = prepare_binary(scores, np.zeros(y.shape[0], dtype=np.uint8), score_type=score_type)
        return Binary(p=d.p, y=y, w=w, logit=d.logit)
    except VeracityError as exc:
        text = str(exc)
        if text.startswith(("labels", "sample_weight", "pos_label")):
            raise
        value = {} if exc.value is _NO_VALUE else {"value": exc.value}  # keep what names the option
        raise VeracityError(f"model {name!r}: {exc.message}", exc.param, exc.hint, **value) from None


def models_from_arrays(scores: Any, labels: Any, *, sample_weight: Any = None, pos_label: Any = None,
                       score_type: str = "probability", what: str = "vc.compare_models",
                       minimum: int = 2) -> Models:
    """Checked :class:`Models` from a dict of named score arrays (or, when ``minimum`` is 1, one
    array, named ``"model"``) and the labels."""
    if not isinstance(scores, Mapping):
        if minimum < 2 and scores is not None and not isinstance(scores, (str, bytes)) and \
                np.ndim(to_numpy(scores, "scores")) >= 1:
            scores = {"model": scores}
        else:
            raise VeracityError(
                f"{what} takes a dict of named score arrays and the labels, e.g. "
                f"{what}({{'old': p_old, 'new': p_new}}, y), or a frame with scores=['old', 'new'] and label='y'")
    if len(scores) < minimum:
        raise VeracityError(f"{what} compares two or more models; got {len(scores)} ({list(scores)!r})")
    if labels is None:
        raise VeracityError(f"{what} needs the labels after the scores: {what}({{'a': s_a, 'b': s_b}}, labels)")
    names = tuple(str(k) for k in scores)
    if len(set(names)) < len(names):
        raise VeracityError(f"model names must be distinct, got {list(names)!r}")
    lengths = {name: _length(s, f"model {name!r}") for name, s in zip(names, scores.values())}
    first = names[0]
    for name, n in lengths.items():
        if n != lengths[first]:
            raise VeracityError(
                f"model {name!r} has {n} rows but model {first!r} has {lengths[first]}: models must be scored "
                "on the same rows; align them (same rows, same order) first")
    check_same_index(**{f"model {k!r}": v for k, v in zip(names, scores.values())},
                     labels=labels, sample_weight=sample_weight)
    score_type = check_score_type(score_type, what=what)
    data: list[Binary] = []
    for name, s in zip(names, scores.values()):
        y, w = (data[0].y, data[0].w) if data else (None, None)
        data.append(_one(name, s, labels, y, w, sample_weight=sample_weight, score_type=score_type,
                         pos_label=pos_label))
    models = Models(names, tuple(data), data[0].y, data[0].w, score_type)
    if models.w is not None and not models.w.all():
        models = models.subset(models.w > 0)  # a row of weight 0 is a dropped row, for every model
    return _with_notes(models)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.array_equal`` of two equal-length arrays, decided on the first rows when they differ
    there (as any two different models do) without a pass over every row."""
    head = 1 << 16
    return bool(np.array_equal(a[:head], b[:head])) and bool(np.array_equal(a, b))


def identical_note(a: str, b: str) -> str:
    """The note of two models with identical scores (how :func:`._compare.compare_of` finds such a pair)."""
    return f"models {a!r} and {b!r} have identical scores: every difference between them is exactly 0"


def _with_notes(models: Models) -> Models:
    notes = []
    for i, j in models.pairs():
        a, b = models.data[i], models.data[j]
        same = _same(models.rank(i), models.rank(j)) and _same(a.p, b.p)
        if same:
            notes.append(identical_note(models.names[i], models.names[j]))
    if not notes:
        return models
    return Models(models.names, models.data, models.y, models.w, models.score_type, tuple(notes))


def renoted(models: Models) -> Models:
    """``models`` (a slice's rows) with the notes of its own identical pairs: two models may score a slice's
    rows alike though not all rows, and the slice then reads as those rows alone ("a and b have identical
    scores"), not as "no clear difference" (:func:`_with_notes`)."""
    return _with_notes(Models(models.names, models.data, models.y, models.w, models.score_type))


def models_from_frame(data: Any, *, scores: Any, label: Any, sample_weight: Any = None, by: Any = None,
                      pos_label: Any = None, score_type: str = "probability",
                      what: str = "vc.compare_models", minimum: int = 2,
                      left_out: list[np.ndarray] | None = None,
                      ) -> tuple[Models, np.ndarray | None, str | None]:
    """``(models, slice keys or None, slice column or None)`` of an in-memory frame (``left_out``: as
    :func:`models_of`)."""
    from ..sources._api import _Prepared  # the in-memory column lookup

    if minimum < 2 and isinstance(scores, str):
        scores = [scores]
    if isinstance(scores, str) or not isinstance(scores, (list, tuple)) or not scores or not all(
            isinstance(c, str) for c in scores):
        raise VeracityError(
            f"with a frame, scores= names the model columns as a list, e.g. scores=['old', 'new']; got {scores!r}")
    if len(scores) < minimum:
        raise VeracityError(f"{what} compares two or more score columns; got scores={list(scores)!r}")
    if len(set(scores)) < len(scores):
        raise VeracityError(f"scores= names a column twice: {list(scores)!r}")
    for role, col in (("label", label), ("sample_weight", sample_weight), ("by", by)):
        # one column name each (as vc.audit takes them): a list of slice columns reached narwhals (a raw
        # AttributeError or TypeError), an array of labels was printed whole in the frame check's error
        if col is not None and not isinstance(col, str):
            got = f"a list of columns {list(col)!r}" if isinstance(col, (list, tuple)) and role == "by" \
                else f"a {type(col).__name__}"
            more = ("combine several columns into one key column first, or " if role == "by" else "")
            raise VeracityError(f"with a frame, {role}= names one column of the frame (a string), got {got}; "
                                f"{more}pass the column name, or use the array form "
                                f"{what}({{'a': s_a, 'b': s_b}}, labels, ...)", param=role)
    for role, col in (("label", label), ("sample_weight", sample_weight), ("by", by)):
        if isinstance(col, str) and col in scores:  # the labels scored as a model read Brier 0, AUC 1
            raise VeracityError(f"scores= names the {role} column {col!r} as a model: scores= lists the models' "
                                f"score columns only; drop {col!r} from scores={list(scores)!r}", param="scores")
    prep = _Prepared(data, scores[0], label, sample_weight, by, extra={"scores": list(scores[1:])},
                     pos_label=pos_label)
    if prep.frame.lazy:
        arrays, labels, weights, keys = _read_lazy(prep, list(scores), what)
    else:
        _, labels, weights = prep.arrays()
        keys = prep.slice_keys() if prep.by is not None else None
        arrays = {c: prep.column(c) for c in scores}
    models = models_from_arrays(arrays, labels, sample_weight=weights, score_type=score_type, what=what,
                                minimum=minimum)
    if keys is not None and weights is not None and models.n != keys.shape[0]:
        keys = _weighed_keys(keys, np.asarray(weights), left_out)
    return models, keys, prep.by


def _weighed_keys(keys: np.ndarray, weights: np.ndarray, left_out: list[np.ndarray] | None) -> np.ndarray:
    """The slice keys of the rows of positive weight (the rows compared: a row of weight 0 is dropped); the
    others' keys appended to ``left_out`` when given, so that a slice whose every row weighs 0 is said, as
    ``vc.audit`` says it ("left out, every row weighing 0"), not dropped without a word."""
    kept = weights > 0
    if left_out is not None:
        left_out.append(keys[~kept])
    return keys[kept]


def _available_bytes() -> int | None:
    """Memory still available to this process (Linux/macOS), or None when the system does not say."""
    import os

    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - other systems
        return None


def _read_lazy(prep: Any, scores: list[str], what: str) -> tuple[dict[str, np.ndarray], np.ndarray,
                                                                 np.ndarray | None, np.ndarray | None]:
    """``(model columns, labels, weights, slice keys)`` of a lazy frame, read in one projection of
    the named columns only (see the module doc); the slice key's missing values are ``None``."""
    import narwhals as nw

    from ..sources._aggregates import collect

    f = prep.frame
    lf = f.nw
    rows = int(collect(lf.select(nw.len().alias("_n"))).get_column("_n").to_list()[0])
    columns = len(scores) + 1 + (prep.weight is not None) + (prep.by is not None)
    need = rows * (columns + 2) * 8  # the columns, and the sort keys and placements the tests build
    free = _available_bytes()
    if free is not None and need > free // 2:
        raise VeracityError(
            f"{what} pairs every row, so it reads {columns} columns of {rows:,} rows into memory (about "
            f"{need / 2**30:.1f} GiB) but only {free / 2**30:.1f} GiB is free; compare on a sample of the rows "
            "(the same rows for every model) or on a machine with more memory")
    label = nw.col(prep.y) if isinstance(prep.y, str) else prep.y
    cols = [nw.col(f.ref(c)).alias(f"_m{i}") for i, c in enumerate(scores)] + [label.alias("_y")]
    if prep.weight is not None:
        cols.append(nw.col(f.ref(prep.weight)).alias("_w"))
    if prep.by is not None:  # a float key's NaN as null: the one missing key (as vc.audit reads it)
        from ..sources._aggregates import one_missing_key

        cols.append(one_missing_key(nw.col(f.ref(prep.by)), lf.collect_schema()[f.ref(prep.by)]).alias("_g"))
    table = collect(lf.select(cols))
    if type(table.to_native()).__module__.split(".")[0] == "pyarrow":  # DuckDB INTERVAL keys: durations
        from ..sources._source import intervals_as_durations

        table = nw.from_native(intervals_as_durations(table.to_native()))
    arrays = {c: table.get_column(f"_m{i}").to_numpy() for i, c in enumerate(scores)}
    labels = table.get_column("_y").to_numpy()
    weights = table.get_column("_w").to_numpy() if prep.weight is not None else None
    keys = None
    if prep.by is not None:
        from ..sources._aggregates import values as key_values

        # each key as the audit reads it (a zoned time with its zone, nanoseconds kept): to_numpy() dropped
        # the zone (slices named '2024-01-01 00:00:00' where vc.audit says '... +00:00')
        g = table.get_column("_g")
        keys = np.empty(len(table), dtype=object)
        keys[:] = key_values(g)
        keys[np.asarray(g.is_null().to_numpy(), dtype=bool)] = None  # pandas' NA, NaT: the slice None
    return arrays, labels, weights, keys


def _missing_as_none(keys: np.ndarray) -> np.ndarray:
    """Slice keys with their missing values (NaN, NaT, pandas' NA) as ``None``: one slice of missing
    keys, as a frame's null keys make (NaN is not equal to itself: each would be a slice of no rows)."""
    from ..segments._family import missing_mask

    missing = missing_mask(keys)
    if not missing.any():
        return keys
    out = keys.astype(object)
    out[missing] = None
    return out


def models_of(data: Any, labels: Any, *, scores: Any, label: Any, sample_weight: Any, pos_label: Any,
              score_type: str, by: Any = None, what: str, minimum: int = 2,
              left_out: list[np.ndarray] | None = None) -> tuple[Models, np.ndarray | None, str | None]:
    """Either form: a dict and labels, or a frame with ``scores=`` and ``label=``. ``left_out``: a list the
    slice keys of the rows of weight 0 (dropped) are appended to, one array (:func:`_weighed_keys`)."""
    if scores is not None or label is not None:
        if labels is not None:
            raise VeracityError(f"the frame form {what}(frame, scores=[...], label='y') takes no positional labels")
        if scores is None or label is None:
            raise VeracityError(f"the frame form needs both: {what}(frame, scores=['a', 'b'], label='y')")
        return models_from_frame(data, scores=scores, label=label, sample_weight=sample_weight, by=by,
                                 pos_label=pos_label, score_type=score_type, what=what, minimum=minimum,
                                 left_out=left_out)
    models = models_from_arrays(data, labels, sample_weight=sample_weight, pos_label=pos_label,
                                score_type=score_type, what=what, minimum=minimum)
    keys = None
    if by is not None:
        # slice keys on another pandas index than the scores would put rows in the wrong slices
        named = data.items() if isinstance(data, Mapping) else [("model", data)]
        check_same_index(**{f"model {k!r}": v for k, v in named}, labels=labels, by=by)
        keys = array_keys(by)
        first = next(iter(data.values())) if isinstance(data, Mapping) else data
        rows = _length(first, "scores")
        if keys.ndim != 1 or keys.shape[0] != rows:
            raise VeracityError(f"by= must hold one key per row ({rows} rows), got shape {keys.shape}")
        keys = _missing_as_none(keys)
        weights = check_weights(sample_weight, rows)
        if weights is not None:
            keys = _weighed_keys(keys, weights, left_out)
    return models, keys, None
