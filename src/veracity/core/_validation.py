"""Turning user inputs into checked numpy arrays.

Everything that enters veracity passes through here: numpy arrays, lists,
pandas/polars Series, pyarrow arrays and torch tensors become float64 numpy
arrays, and every mistake becomes one :class:`VeracityError` whose message says
what was wrong, shows the offending value, and says how to fix it.
"""

from __future__ import annotations

import decimal
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal

import numpy as np
from ._special import expit, log_softmax, softmax
from ._weights import WEIGHT_EXP_FLOOR as WEIGHT_EXP_FLOOR
from ._weights import WEIGHT_EXP_LIMIT as WEIGHT_EXP_LIMIT
from ._weights import rescale_exponent, rescale_weights

ScoreType = Literal["probability", "logit", "score"]
#: ``"score"``: a ranking score with no probability reading (T-norm degrees, vote shares, an
#: uncalibrated ``predict_proba``, a ``decision_function``): calibrators take it as their feature
#: as it is and ranking metrics read its order; every reading as a probability refuses it.
SCORE_TYPES = ("probability", "logit", "score")

#: Tolerance for multiclass probability rows summing to one.
ROW_SUM_ATOL = 1e-6


_NO_VALUE: Any = object()


def python_spelling(param: str, value: Any = _NO_VALUE) -> str:
    """How Python code names a parameter (``pos_label=``) or a setting of it (``pos_label='yes'``)."""
    return f"{param}=" if value is _NO_VALUE else f"{param}={value!r}"


class VeracityError(ValueError):
    """Bad input to veracity. The message says what was wrong and how to fix it.

    ``param`` names the Python parameter the mistake is about (``"score_type"``,
    ``"sample_weight"``, ``"pos_label"``, ``"bins"``, ...) and ``hint`` says how to fix it;
    ``str(exc)`` is the message followed by the hint. Where the text names the parameter
    it writes ``{param}`` (the keyword: ``pos_label=``) or ``{setting}`` (the keyword with
    ``value``: ``pos_label='yes'``), so that each front end spells it in its own words:
    :meth:`render` with the command line's spelling gives ``--pos-label`` and
    ``--pos-label yes`` without editing any text.

    >>> e = VeracityError("labels are text", param="pos_label", hint="pass {setting}", value="yes")
    >>> str(e), e.param
    ("labels are text. pass pos_label='yes'", 'pos_label')
    >>> e.render(lambda param, *value: "--pos-label" + "".join(f" {v}" for v in value))
    'labels are text. pass --pos-label yes'

    An error about particular rows of a checked array (labels not 0/1, a negative weight, a
    score outside [0, 1], a multiclass row not summing to 1, a missing value) carries them:
    ``rows``, their 0-based positions in that array (ascending), and ``n_rows``, its number of
    rows (the positions index it); both None for an error about no one row. A front end that
    knows which of its rows it passed names them from these, whatever the message's words (the
    command line: "first at data row k").

    >>> try:
    ...     check_weights([1.0, -2.0, 3.0, -1.0], 4)
    ... except VeracityError as exc:
    ...     exc.rows.tolist(), exc.n_rows
    ([1, 3], 4)
    """

    def __init__(self, message: str, param: str | None = None, hint: str | None = None, *,
                 value: Any = _NO_VALUE, rows: Any = None, n_rows: int | None = None) -> None:
        self.message = message
        self.param = param
        self.hint = hint
        self.value = value
        self.rows: np.ndarray | None = None if rows is None else np.asarray(rows, dtype=np.int64).reshape(-1)
        self.n_rows = n_rows
        super().__init__(self.render())

    def render(self, spell: Any = python_spelling) -> str:
        """The message and hint with ``{param}`` / ``{setting}`` spelled by ``spell(param[, value])``."""
        text = self.message if not self.hint else f"{self.message}. {self.hint}"
        if self.param is None:
            return text
        text = text.replace("{param}", spell(self.param))
        if self.value is not _NO_VALUE:
            text = text.replace("{setting}", spell(self.param, self.value))
        return text

    def __reduce__(self) -> Any:  # keeps param / hint / value / rows across pickling (worker processes)
        value = () if self.value is _NO_VALUE else (self.value,)
        return (_rebuild_error, (type(self), self.message, self.param, self.hint, *value),
                {"rows": self.rows, "n_rows": self.n_rows})


class VeracityWarning(UserWarning):
    """A warning whose advice names a parameter, spelled by each front end as :class:`VeracityError`'s is:
    ``{param}`` / ``{setting}`` in ``message`` become ``spell(param[, value])`` in :meth:`render`.
    ``fallback``: the message for a front end that has no spelling of ``param`` (``spell`` returns None:
    a command without that flag), its advice left out or said another way.

    >>> w = VeracityWarning("reversed ({setting} silences this)", "on_reversed", value="allow",
    ...                     fallback="reversed")
    >>> str(w), w.render(lambda param, *value: None)
    ("reversed (on_reversed='allow' silences this)", 'reversed')
    """

    def __init__(self, message: str, param: str | None = None, *, value: Any = _NO_VALUE,
                 fallback: str | None = None) -> None:
        self.message = message
        self.param = param
        self.value = value
        self.fallback = fallback
        super().__init__(self.render())

    def render(self, spell: Callable[..., str | None] = python_spelling) -> str:
        """The message with ``{param}`` / ``{setting}`` spelled by ``spell``; ``fallback`` (else the
        message with the placeholders left bare) where ``spell`` has no spelling (returns None)."""
        if self.param is None:
            return self.message
        words = {"{param}": spell(self.param)}
        if self.value is not _NO_VALUE:
            words["{setting}"] = spell(self.param, self.value)
        used = {k: v for k, v in words.items() if k in self.message}
        if any(v is None for v in used.values()):
            return self.fallback if self.fallback is not None else self.message
        text = self.message
        for key, spelled in used.items():
            text = text.replace(key, str(spelled))
        return text


class MissingLabels(VeracityError):
    """A refusal of labels that are missing (None, NaN, null) -- on every route, whatever its words: a
    caller for whom a missing label can mean "not arrived yet" (a monitor) adds how to keep such rows."""


def _rebuild_error(cls: type[VeracityError], message: str, param: str | None, hint: str | None, *value: Any) -> VeracityError:
    return cls(message, param, hint, **({"value": value[0]} if value else {}))


def _param(name: str) -> str | None:
    """``name`` as the parameter an error is about, when it is one (``"scores"``, ``"sample_weight"``)."""
    return name if name.isidentifier() else None


def to_numpy(x: Any, name: str) -> np.ndarray:
    """Convert numpy / list / pandas / polars / pyarrow / torch input to a numpy array.

    A numpy masked array is read as its data only when nothing is masked; a masked value is refused
    (:func:`_unmasked`: ``np.asarray`` would read the masked rows' raw data, silently). A table (a
    pyarrow ``Table`` or ``RecordBatch``) where one column belongs is refused in one line."""
    if x is None:
        raise VeracityError(f"{name} is None; pass an array of values", param=_param(name))
    if isinstance(x, np.ndarray):
        return x if type(x) is np.ndarray else _unmasked(x, name)
    module = type(x).__module__
    if module.startswith("torch"):
        return np.asarray(x.detach().cpu().numpy())
    if module.startswith("pyarrow"):
        if hasattr(x, "column_names"):  # a Table or a RecordBatch: several columns, no to_numpy()
            raise _table_given(x, name)
        if hasattr(x, "null_count") and x.null_count:
            raise VeracityError(
                f"{name} has {x.null_count} missing (null) values; drop or fill those rows first",
                param=_param(name), **_null_rows(x))
        return np.asarray(x.to_numpy(zero_copy_only=False))
    if hasattr(x, "to_numpy"):  # pandas, polars
        try:
            return np.asarray(x.to_numpy())
        except Exception as exc:  # pragma: no cover - defensive
            raise VeracityError(f"could not convert {name} to an array: {exc}", param=_param(name)) from exc
    try:
        return np.asarray(x)
    except ValueError:  # numpy: "setting an array element with a sequence ... inhomogeneous shape"
        raise VeracityError(
            f"{name} is ragged: its rows have different lengths; pass one value per row, or N rows of "
            "K class scores each", param=_param(name)) from None


def _unmasked(x: np.ndarray, name: str) -> np.ndarray:
    """A numpy subclass as a plain array: a masked array (``numpy.ma``) as its data when no value is
    masked, refused in one line when one is -- every computation reads the plain data, so the masked
    rows would count with whatever they hold. Other subclasses (``np.matrix``, ...) are returned as
    given."""
    ma = sys.modules.get("numpy.ma")  # a masked array exists only once numpy.ma is loaded
    if ma is None or not isinstance(x, ma.MaskedArray):
        return x
    masked = np.asarray(ma.getmaskarray(x), dtype=bool)
    if not masked.any():
        return np.asarray(ma.getdata(x))
    from ._text import count_noun

    where = offending_rows(masked)
    rows = f" of {where['n_rows']} rows, first at row {int(where['rows'][0])}" if where else ""
    raise (MissingLabels if name == "labels" else VeracityError)(
        f"{name} has {count_noun(int(masked.sum()), 'masked value')} (numpy masked array){rows}; drop those "
        "rows from every input (keep = ~np.ma.getmaskarray(x), then x[keep] on each) or fill them "
        "(x.filled(...)) first", param=_param(name), **where)


def _table_given(table: Any, name: str) -> VeracityError:
    """The refusal of a pyarrow ``Table`` / ``RecordBatch`` passed where one column (``name``) belongs:
    which column to take, or the frame form of the call (:func:`_public_call`) that names the columns."""
    columns = [str(c) for c in table.column_names]
    first = columns[0] if columns else "p"
    shown = ", ".join(repr(c) for c in columns[:5]) + (", ..." if len(columns) > 5 else "")
    call = _public_call()
    table_of = "pa.table(batch)" if type(table).__name__ == "RecordBatch" else "table"  # frames read Tables
    form = f", or the table with its columns named: {call}({table_of}, score='p', label='y')" if call else ""
    return VeracityError(
        f"{name} is a pyarrow {type(table).__name__} (columns {shown or 'none'}), where a column of {name} "
        f"was expected; pass one of its columns, e.g. table[{first!r}]{form}", param=_param(name))


def _public_call() -> str | None:
    """How to call the frame form of the public veracity call being run (``vc.ece``, ``PlattScaling.fit``),
    read off the stack: the outermost veracity frame that is a public function or a method taking
    ``score=``; None when there is none (the function has no frame form). Only an error message reads it."""
    import inspect
    import os

    from ._compat import _PACKAGE

    frames = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
            frames.append(frame)
        frame = frame.f_back
    vc = sys.modules.get("veracity")
    for inside in reversed(frames):  # outermost first: the call the user made
        name = inside.f_code.co_name
        owner = inside.f_locals.get("self")
        if owner is not None:
            fn, shown = getattr(type(owner), name, None), f"{type(owner).__name__}.{name}"
        else:
            fn, shown = (None if name.startswith("_") else getattr(vc, name, None)), f"vc.{name}"
        try:
            if callable(fn) and "score" in inspect.signature(fn).parameters:
                return shown
        except (TypeError, ValueError):  # pragma: no cover - a callable without a signature
            continue
    return None


def _null_rows(x: Any) -> dict[str, Any]:
    """The ``rows`` / ``n_rows`` of a pyarrow array's null entries (none when it has no ``is_null``)."""
    if not hasattr(x, "is_null"):
        return {}
    return {"rows": np.flatnonzero(np.asarray(x.is_null().to_numpy(zero_copy_only=False), dtype=bool)),
            "n_rows": len(x)}


def offending_rows(bad: np.ndarray) -> dict[str, Any]:
    """``rows`` / ``n_rows`` for :class:`VeracityError` from an element mask ``bad`` of a checked array:
    the rows (first axis) with any offending element; none for a 0-d array."""
    if bad.ndim == 0:
        return {}
    return {"rows": np.flatnonzero(bad.reshape(bad.shape[0], -1).any(axis=1)), "n_rows": int(bad.shape[0])}


def as_float_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a float64 array with no NaN or infinity."""
    arr = to_numpy(x, name)
    if arr.size and (arr.dtype.kind in "US" or (arr.dtype == object and first_text(arr) is not None)):
        raise _text_numbers(arr, name)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            # pandas' NA (a nullable column's missing value) is missing, as None and NaN are: NaN, which
            # the finiteness check below refuses with its count
            absent = np.fromiter((_is_missing(v) for v in arr.ravel()), bool, arr.size).reshape(arr.shape)
            try:
                arr = np.where(absent, np.nan, arr).astype(np.float64)
            except (TypeError, ValueError):
                raise VeracityError(
                    f"{name} must be numeric; found non-numeric values ({exc}); convert them to numbers",
                    param=_param(name)) from exc
    elif arr.dtype.kind not in "biuf":
        raise VeracityError(
            f"{name} must be numeric, got dtype {arr.dtype}; convert the column to numbers",
            param=_param(name))
    arr = np.asarray(arr, dtype=np.float64)
    if arr.size == 0:
        raise VeracityError(f"{name} is empty; pass at least one row", param=_param(name))
    _check_finite(arr, name)
    return arr


def _text_numbers(arr: np.ndarray, name: str) -> VeracityError:
    """The refusal of text where numbers belong (``'0.3'`` is not read as 0.3, as a frame's text column is
    not: "must be numeric, got String"): how many values are text, of how many, and the first of them."""
    if arr.dtype == object:
        text = np.fromiter((isinstance(v, (str, bytes)) for v in arr.ravel()), bool, arr.size).reshape(arr.shape)
    else:
        text = np.ones(arr.shape, dtype=bool)
    first = plain(arr.flat[int(np.flatnonzero(text.ravel())[0])])
    shown = repr(first) if len(repr(first)) <= _EXAMPLE_LONGEST else repr(first)[:_EXAMPLE_LONGEST] + "..."
    where = "" if text.all() else f" in {int(text.sum())} of {arr.size} values"
    return VeracityError(f"{name} must be numeric, got text{where} (such as {shown}); convert them to numbers "
                         "first", param=_param(name), **offending_rows(text))


def _check_finite(arr: np.ndarray, name: str) -> None:
    # np.isfinite(arr.sum()) is a single fast pass; only locate on failure.
    with np.errstate(over="ignore", invalid="ignore"):  # huge finite values may overflow the sum
        total = arr.sum()
    if np.isfinite(total):
        return
    bad = ~np.isfinite(arr)
    if not bad.any():  # overflow of the sum itself, values are finite
        return
    n_nan = int(np.isnan(arr).sum())
    n_inf = int(bad.sum()) - n_nan
    first = int(np.flatnonzero(bad.ravel())[0])
    raise (MissingLabels if name == "labels" and n_nan else VeracityError)(
        f"{name} contains {n_nan} NaN and {n_inf} infinite values (first at flat index {first}); "
        "drop or fill those rows first", param=_param(name), **offending_rows(bad)
    )


def check_count(value: Any, name: str, minimum: int = 1) -> int:
    """``value`` as an int when it is a whole number >= ``minimum`` (counts: ``n_resamples`` …)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise VeracityError(f"{name} must be an integer >= {minimum}, got {value!r}", param=name)
    return int(value)


def is_real(value: Any) -> bool:
    """True for a finite real number (a Python or numpy int/float, never a bool or text)."""
    return (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
            and bool(np.isfinite(value)))


def check_min_count(min_count: Any) -> Any:
    """``min_count``: the fewest rows (effective size when weighted) a bin needs to count for the
    MCE, a number >= 0."""
    if not (is_real(min_count) and min_count >= 0):
        raise VeracityError(f"min_count must be a number of rows >= 0, e.g. 20; got {min_count!r}",
                            param="min_count")
    return min_count


def check_score_type(score_type: str, *, allow_score: bool = False, what: str | None = None) -> str:
    """``score_type`` when it is one this function reads.

    ``"score"`` is accepted only where ``allow_score`` (calibrators, rank statistics); anywhere
    else it is refused by :func:`refuse_score` (``what`` names the function in that message).
    """
    if score_type not in SCORE_TYPES:
        extra = " (or 'score' for a ranking score with no probability reading)" if allow_score else ""
        raise VeracityError(
            f"score_type must be 'probability' or 'logit'{extra}, got {score_type!r}", param="score_type"
        )
    if not allow_score:
        refuse_score(score_type, what)
    return score_type


def refuse_score(score_type: Any, what: str | None = None) -> None:
    """The one refusal of ``score_type="score"`` by everything that reads scores as probabilities
    (ECE, MCE, Brier, NLL, reliability, the audit's probability parts, ...)."""
    if score_type == "score":
        raise VeracityError(
            f"{what or 'this function'} reads the scores as probabilities, and {{setting}} declares a "
            "ranking score with no probability reading: calibrate first, or declare it a probability",
            param="score_type", value="score")


def check_random_state(random_state: Any) -> Any:
    """``random_state`` as a seed for ``numpy.random.default_rng``: a non-negative integer,
    a ``numpy.random.Generator`` or None (fresh entropy)."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) or random_state < 0:
        raise VeracityError(f"random_state must be a non-negative integer, a numpy Generator or None, "
                            f"got {random_state!r}", param="random_state")
    return int(random_state)




def check_weights(sample_weight: Any, n: int, *, rescale: bool = True) -> np.ndarray | None:
    """Validated weights of length ``n``, or None.

    The contract: finite, non-negative, with a positive total. Only the ratios of the
    weights matter; extreme scales are normalised by an exact power of two chosen from the
    largest and the smallest positive weight (:func:`veracity.core._weights.weight_exponent`:
    the largest below ``2**256``, the smallest at least ``2**-480`` where the two fit, the
    largest just below ``2**256`` where they are more than about ``1e221`` apart) unless
    ``rescale=False`` — which callers that merge the statistics of several chunks pass, so
    that every chunk keeps the same units.
    """
    if sample_weight is None:
        return None
    w = as_float_array(sample_weight, "sample_weight")
    if w.ndim != 1:
        raise VeracityError(f"sample_weight must be 1-D, got shape {w.shape}", param="sample_weight")
    if w.shape[0] != n:
        raise VeracityError(
            f"sample_weight has {w.shape[0]} rows but scores have {n}; pass one weight per row",
            param="sample_weight")
    lo, hi = float(w.min()), float(w.max())
    if lo < 0:
        n_neg = int((w < 0).sum())
        raise VeracityError(
            f"sample_weight must be non-negative; {n_neg} of {n} are negative (min={lo:.3g})",
            param="sample_weight", rows=np.flatnonzero(w < 0), n_rows=n)
    if not hi > 0:
        raise VeracityError("sample_weight sums to 0; at least one row needs a positive weight",
                            param="sample_weight")
    if rescale:
        (w,) = rescale_weights(w)  # exact: a power of two, so every ratio is unchanged
    return w


def scaled_weights(sample_weight: Any, n: int, *, rescale: bool = True) -> tuple[np.ndarray | None, float]:
    """:func:`check_weights` and the power of two :math:`2^k` it multiplied them by (1.0 unscaled or
    unweighted): a weight total in the caller's units is the checked weights' total divided by it."""
    w = check_weights(sample_weight, n, rescale=False)
    if w is None or not rescale:
        return w, 1.0
    k = rescale_exponent(w)
    return (w, 1.0) if k == 0 else (np.ldexp(w, k), math.ldexp(1.0, k))


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds, for a message (``1.0``, not ``np.float64(1.0)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _shown(values: Any) -> str:
    return ", ".join(repr(plain(v)) for v in values)


def _label_values(raw: np.ndarray) -> list[Any]:
    """The distinct labels, sorted; of mixed types (``['yes', 0]``) in the order every frame route lists
    them (:func:`._keys.key_order`: numbers first, then text), no longer first-seen."""
    try:
        return list(np.unique(raw))
    except TypeError:
        from ._keys import key_order

        return key_order(list(dict.fromkeys(raw.tolist())))


#: what a row's label cannot be: a record or a sequence (pyarrow's struct and list values come out of
#: ``to_numpy`` as dicts and arrays)
_NESTED = (dict, Mapping, list, tuple, set, frozenset, np.ndarray)


def _refuse_nested_labels(raw: np.ndarray) -> None:
    """Refuse labels whose rows hold a record or a sequence (a dict, a list, an array, a set): a label is
    one value per row. Without this a dict was an unhashable TypeError and a list read as the label
    value ``[1]``. One pass over the types of an object array; other arrays hold no nested values."""
    if raw.dtype != object or not raw.size:
        return
    if not any(issubclass(t, _NESTED) for t in set(map(type, raw.ravel()))):
        return
    nested = np.fromiter((isinstance(v, _NESTED) for v in raw.ravel()), bool, raw.size).reshape(raw.shape)
    first = raw.flat[int(np.flatnonzero(nested.ravel())[0])]
    kind = ("records" if isinstance(first, Mapping) else "sets" if isinstance(first, (set, frozenset))
            else "lists")
    example = repr(first.tolist() if isinstance(first, np.ndarray) else first)
    example = example if len(example) <= _EXAMPLE_LONGEST else example[:_EXAMPLE_LONGEST] + "..."
    where = offending_rows(nested)
    at = (f" in {int(nested.sum())} of {where['n_rows']} rows, first at row {int(where['rows'][0])}"
          if where else "")
    raise VeracityError(f"labels hold nested values ({kind} such as {example}){at}; nested values and lists "
                        "are not labels: pass one label per row (take the field or the element first)",
                        param="labels", **where)


def _is_missing(v: Any) -> bool:
    """None, a float NaN, pandas' NA or NaT: a missing value in an object array."""
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType")


def _refuse_missing_labels(raw: np.ndarray) -> None:
    """The one refusal of missing labels (None, NaN, pandas' NA) in an array of labels, counted of its rows
    as the frame and file routes count them (:func:`veracity.sources._aggregates.missing_labels_message`):
    "labels contain 1 missing value (None/NaN) of 300 rows; drop or fill that row first"."""
    missing = (int(np.isnan(raw).sum()) if raw.dtype.kind in "fc"
               else sum(1 for v in raw.ravel() if _is_missing(v)) if raw.dtype == object
               else 0)
    if missing:
        absent = (np.isnan(raw) if raw.dtype.kind in "fc"
                  else np.fromiter((_is_missing(v) for v in raw.ravel()), bool, raw.size).reshape(raw.shape))
        from ._text import count_noun

        rows = "that row" if missing == 1 else "those rows"
        count = count_noun(missing, "missing value")
        n = raw.shape[0] if raw.ndim else 1
        raise MissingLabels(f"labels contain {count} (None/NaN) of {n} rows; drop or fill {rows} first",
                            param="labels", **offending_rows(absent))


def check_pos_label(pos_label: Any) -> Any:
    """``pos_label`` when it is one label value (text, a number, a bool, a numpy scalar, ...).

    A 0-d numpy array is read as its value. A list, tuple, set, dict, array or Series is
    refused in one line: compared with the labels it would broadcast (``pos_label=[1]`` read
    as 1) or never match, never name one class.
    """
    if isinstance(pos_label, np.ndarray) and pos_label.ndim == 0:
        return pos_label.item()
    if isinstance(pos_label, (str, bytes)) or not isinstance(pos_label, (Iterable, Mapping)):
        return pos_label
    only: Any = _NO_VALUE
    if not isinstance(pos_label, Mapping):
        try:
            items = list(pos_label)
        except TypeError:  # iterable by type, not in fact (a 0-d tensor)
            items = []
        if len(items) == 1 and (isinstance(items[0], str) or not isinstance(items[0], (Iterable, Mapping))):
            only = plain(items[0])
    shown = " ".join(repr(pos_label).split())  # one line (a Series' repr has several)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    example = "" if only is _NO_VALUE else ", e.g. {setting}"
    raise VeracityError(
        f"{{param}} must be one label value (text, a number or a bool), got {type(pos_label).__name__} "
        f"{shown}; pass the positive class itself{example}", param="pos_label",
        **({} if only is _NO_VALUE else {"value": only}))


def _equal_labels(raw: np.ndarray, pos_label: Any) -> np.ndarray:
    """``raw == pos_label`` element by element, exactly as Python compares the values.

    numpy's fixed-width text (``<U``/``S``) cannot end in NUL: it drops trailing ``\\x00`` from
    its elements and from a text scalar compared with them, so ``np.array(['b']) == 'b\\x00'``
    is true, and an object array's ``'b\\x00'`` never equals ``'b\\x00'``. Compared here, text
    that ends in NUL equals only the same text: no fixed-width element, and in an object array
    exactly the elements equal to it.
    """
    if raw.dtype == object:
        target = np.empty((), dtype=object)
        target[()] = pos_label  # a 0-d object array: numpy leaves the text as it is
        return np.asarray(raw == target, dtype=bool)
    nul = "\x00" if isinstance(pos_label, str) else b"\x00" if isinstance(pos_label, bytes) else None
    if raw.dtype.kind in "US" and nul is not None and pos_label.endswith(nul):
        return np.zeros(raw.shape, dtype=bool)
    exact = _exact_number(raw, pos_label)
    if exact is None:
        return np.zeros(raw.shape, dtype=bool)
    return np.asarray(raw == exact, dtype=bool)


def _exact_number(raw: np.ndarray, pos_label: Any) -> Any:
    """``pos_label`` in a form numpy compares with ``raw`` exactly as Python compares numbers, or
    None where no element can equal it. numpy compares integers with a float (and floats with an int
    beyond 2**53) in float64: ``pos_label=1.8446744073709552e19`` (2**64) equalled both uint64 labels
    ``2**64 - 1`` and ``2**64 - 2`` (every row read positive), ``2**53 + 1`` the float label ``2**53``."""
    v = plain(pos_label)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return pos_label
    if raw.dtype.kind in "iu":
        if isinstance(v, float):
            if not (math.isfinite(v) and v.is_integer()):
                return None
            v = int(v)
        info = np.iinfo(raw.dtype)  # beyond the dtype's range numpy 1.x compared in float64 too
        return v if info.min <= v <= info.max else None
    if raw.dtype.kind == "f" and isinstance(v, int):
        try:
            as_float = float(v)
        except OverflowError:
            return None
        return as_float if as_float == v else None  # Python's int == float is exact
    return pos_label


def labels_with_pos_label(labels: Any, pos_label: Any, n: int | None = None, *,
                          where: str | None = None) -> np.ndarray:
    """0/1 float labels: 1 where the label equals ``pos_label`` (strings, bools, numbers).

    ``pos_label`` is one value (:func:`check_pos_label`) compared exactly (:func:`_equal_labels`:
    ``'b\\x00'`` is not ``'b'``); a list or tuple of text labels keeps its values as they are
    (numpy's fixed-width text would drop trailing NULs). ``where``: the phrase naming the labels in the
    refusal of a ``pos_label`` that names none of them (:func:`pos_label_not_among`; None: "the label
    values"; the command line's "the values of column 'y' (labels)")."""
    pos_label = check_pos_label(pos_label)
    raw = to_numpy(labels, "labels")
    _refuse_nested_labels(raw)
    if raw.dtype.kind in "US" and isinstance(labels, (list, tuple)):
        raw = np.array(labels, dtype=object)
    if raw.ndim == 2 and raw.shape[1] == 1:
        raw = raw[:, 0]
    if raw.ndim != 1:
        raise VeracityError(f"labels must be 1-D, got shape {raw.shape}", param="labels")
    if n is not None and raw.shape[0] != n:
        raise VeracityError(
            f"scores have {n} rows but labels have {raw.shape[0]}; pass one label per score", param="labels"
        )
    # missing labels are refused with pos_label exactly as without it (never read as "not positive")
    _refuse_missing_labels(raw)
    values = _label_values(raw)
    if len(values) > 2:
        raise VeracityError(
            f"{{param}} needs a binary label set, but labels take {len(values)} values "
            f"({_shown(values[:5])}); pass (N, K) scores for a multiclass problem", param="pos_label"
        )
    wanted = _named_in(values, pos_label) if isinstance(pos_label, str) else pos_label
    hit = np.zeros(raw.shape, dtype=bool) if wanted is _NO_VALUE else _equal_labels(raw, wanted)
    if not np.any(hit) and plain(wanted) not in [plain(v) for v in values]:  # Python's exact ==
        raise pos_label_not_among(pos_label, values, where=_LABEL_VALUES if where is None else where,
                                  hint=nul_hint(pos_label, values))
    return np.asarray(hit, dtype=np.float64)


def boolean_label_spelling(values: list[Any]) -> str | None:
    """How a ``pos_label`` names the true/false labels ``values`` (by :func:`text_names_label`, and as
    ``True == 1``): ``"'true' or 'false' (any case), or 1 or 0"`` for both, ``"'true' (any case) or 1"`` for
    True alone; None unless ``values`` are booleans (Python's or numpy's)."""
    if not values or not all(isinstance(v, (bool, np.bool_)) for v in values):
        return None
    names = sorted({bool(v) for v in values}, reverse=True)  # True first
    texts = " or ".join(repr(str(v).lower()) for v in names)
    return f"{texts} (any case){',' if len(names) > 1 else ''} or {' or '.join(str(int(v)) for v in names)}"


#: how :func:`pos_label_not_among` names the labels of an array
_LABEL_VALUES = "the label values"


def pos_label_not_among(pos_label: Any, values: list[Any], *, where: str = _LABEL_VALUES,
                        shown: Callable[[list[Any]], str] | None = None,
                        hint: str | None = None) -> VeracityError:
    """The one refusal of a ``pos_label`` that names none of the label ``values`` on every route (an
    array: ``where`` "the label values"; a column: "the values of column 'y' (labels)"), the values shown
    by ``shown`` (default their reprs) and written ``{setting}`` so that each front end spells it
    (``pos_label='maybe'``, ``--pos-label maybe``). On a true/false column the fix says how to name a
    boolean (:func:`boolean_label_spelling`: "pass 'true' or 'false' (any case), or 1 or 0"), as text or a
    number names it on every route:

    >>> str(pos_label_not_among("maybe", [True]))
    "pos_label='maybe' is not among the label values (True); pass 'true' (any case) or 1"
    """
    fix = boolean_label_spelling(values) or "one of them"
    return VeracityError(f"{{setting}} is not among {where} ({(shown or _shown)(values)}); pass {fix}",
                         param="pos_label", value=pos_label, hint=hint)


def _named_in(values: list[Any], text: str) -> Any:
    """The label among ``values`` (as they are, numpy scalars included) that the text ``text`` names
    (:func:`text_names_label`; a text label equal to it first), or ``_NO_VALUE``. Text on floating-point
    labels of :math:`2^{53}` or more is refused (:func:`refuse_text_on_inexact_floats`)."""
    for v in values:
        if isinstance(plain(v), str) and plain(v) == text:
            return v
    refuse_text_on_inexact_floats(text, values)
    return next((v for v in values if text_names_label(text, plain(v))), _NO_VALUE)


#: from this magnitude on not every whole number is a double (2**53 + 1 reads as 2**53)
_EXACT_WHOLE_FLOATS = 2.0 ** 53


def refuse_text_on_inexact_floats(text: str, values: Iterable[Any]) -> None:
    """Refuse a text ``pos_label`` (``--pos-label`` is always text) on floating-point labels, any of
    magnitude :math:`2^{53}` or more, on every route (arrays, frames, SQL, the command line).

    Such labels are usually integers that a reader made doubles (a CSV's integers past the int64 range,
    DuckDB's or Spark's DOUBLE reading of ``9007199254740993.0``), and doubles that large no longer tell
    neighbouring integers apart: the file's labels :math:`2^{53}` and :math:`2^{53}+1` read as the one
    value :math:`2^{53}`, which ``--pos-label 9007199254740992`` then named on every row (base rate 1,
    silently). A ``pos_label`` given as a number (Python) is compared as it is.

    >>> refuse_text_on_inexact_floats("1", [0.0, 1.0])
    >>> refuse_text_on_inexact_floats("0", [0.0, 2.0 ** 53])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    veracity.core._validation.VeracityError: pos_label='0': the labels were read as floating point and reach ...
    """
    floats = [abs(v) for v in map(plain, values) if isinstance(v, float) and math.isfinite(v)]
    if floats and max(floats) >= _EXACT_WHOLE_FLOATS:
        raise VeracityError(
            f"{{setting}}: the labels were read as floating point and reach {max(floats):.17g}, where doubles "
            "no longer tell neighbouring integers apart (two labels may read as one); map the labels to 0/1 "
            "(or to small class codes) first", param="pos_label", value=text)


#: text that names a boolean label, as every route reads it (any case, without surrounding spaces)
_BOOLEAN_TEXT = {"true": True, "1": True, "false": False, "0": False}
#: a plain decimal numeral: sign, ASCII digits, a point, an exponent; no ``_``, hex, ``inf`` or ``nan``
_NUMERAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: text that names an infinite float label (any case)
_INFINITE_TEXT = {"inf": math.inf, "+inf": math.inf, "infinity": math.inf, "+infinity": math.inf,
                  "-inf": -math.inf, "-infinity": -math.inf}


def text_names_label(text: str, value: Any) -> bool:
    """Whether a text ``pos_label`` names the non-text label ``value``, the one rule of every route
    (arrays, frames, SQL; ``--pos-label`` is always text). ``t`` is ``text`` without surrounding spaces:

    - a boolean label: ``t.lower()`` is ``'true'`` or ``'1'`` (True), ``'false'`` or ``'0'`` (False);
    - a number label :math:`v` (an int, a float, a ``Decimal``): ``t`` is a decimal numeral (``[+-]``
      digits ``[.digits]`` ``[e[+-]digits]``: ``'1'``, ``'1.0'``, ``'01'``, ``'+1'``, ``'1e0'``; not
      ``'1_0'``, ``'0x1'``, ``'true'``) whose exact value :math:`d` is :math:`v`, or, for a float
      :math:`v` that is not a whole number, whose nearest double is :math:`v` (``float(t) == v``:
      ``'0.1'`` names the float 0.1, itself not exactly 1/10); ``'inf'``/``'-inf'`` (any case) names
      an infinite float;
    - any other label (text, bytes, dates): never (a text label is named only by the same text).

    A whole number is never named by rounding: ``'9007199254740993.0'`` names the integer
    :math:`2^{53}+1`, never :math:`2^{53}` (a float reading of the text named it), and no float label
    :math:`2^{53}`; ``'1e-400'`` does not name 0.0, ``'0.99999999999999999'`` not 1.

    >>> [text_names_label(t, 1) for t in ("1", " 1.0", "01", "1e0", "True", "1_0", "1.5")]
    [True, True, True, True, False, False, False]
    >>> text_names_label("0.1", 0.1), text_names_label("TRUE", True), text_names_label("1.0", True)
    (True, True, False)
    """
    t = text.strip()
    if isinstance(value, (bool, np.bool_)):
        return _BOOLEAN_TEXT.get(t.lower()) is bool(value)
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (int, float, decimal.Decimal)):
        return False
    if isinstance(value, float) and math.isinf(value):
        return _INFINITE_TEXT.get(t.lower()) == value
    if not _NUMERAL.fullmatch(t):
        return False
    if isinstance(value, float) and not value.is_integer():  # NaN too (never equal)
        return float(t) == value  # the numeral's nearest double
    if isinstance(value, decimal.Decimal) and not value.is_finite():
        return False
    try:
        return bool(decimal.Decimal(t) == value)
    except decimal.InvalidOperation:  # an exponent beyond decimal's range (1e10**20): no label's value
        return False


def nul_hint(pos_label: Any, values: list[Any]) -> str | None:
    """Advice when ``pos_label`` and a label value differ only by NUL characters at the end
    (text from fixed-width fields; a command line cannot even pass a NUL), the hint of
    :func:`pos_label_not_among` on every route (arrays, frames, SQL, each engine of the command line)."""
    if not isinstance(pos_label, str):
        return None
    bare = pos_label.rstrip("\x00")
    close = [str(v) for v in values if isinstance(v, str) and v != pos_label and v.rstrip("\x00") == bare]
    if not close:
        return None
    if close[0] != bare:  # the labels end in NUL
        return (f"The label {close[0]!r} differs from it only by NUL characters at the end: strip them "
                "from the labels (e.g. labels.str.rstrip('\\x00')) and pass the text without them")
    return f"It differs from the label {bare!r} only by NUL characters at the end: pass {bare!r}"


def _holds_text(raw: np.ndarray) -> bool:
    """Whether an object array holds a text (``str`` or ``bytes``) value."""
    return any(isinstance(v, (str, bytes)) for v in raw.ravel())


#: the longest value (its repr) given as an example of ``pos_label`` in a message
_EXAMPLE_LONGEST = 40


def _non_numeric_labels(raw: np.ndarray) -> VeracityError:
    values = _label_values(raw)
    return text_labels_error(values[:5], len(values), got="text" if _holds_text(raw) else None)


def text_labels_error(values: list[Any], distinct: int, *, name: str | None = None, got: str | None = "text",
                      shown: Callable[[list[Any]], str] | None = None) -> VeracityError:
    """The one refusal of labels that are not 0/1 numbers or booleans (text) when no ``pos_label`` names
    the positive class, on every route: an array (``name`` None: "labels must be ...") or the label
    column ``name`` of a frame, a file or a database table ("column 'y' (labels) must hold ..."). It shows
    the first few sorted distinct ``values`` (``distinct`` in all; ``shown`` writes them, default their
    reprs) and the fix, written ``{param}`` / ``{setting}`` so that each front end spells it
    (``pos_label='yes'`` in Python, ``--pos-label yes`` on the command line; the example left out where
    the value is long, as a message shows a long value briefly). ``got``: what the labels are (None: not
    said)."""
    subject = "labels must be" if name is None else f"column {name!r} (labels) must hold"
    what = f"{subject} 0/1 numbers or booleans" + (f", got {got}" if got else "")
    listed = (shown or _shown)(values)
    if 0 < distinct <= 2:
        example = plain(values[-1])
        short = len(repr(example)) <= _EXAMPLE_LONGEST
        return VeracityError(
            f"{what} ({'value' if distinct == 1 else 'values'} {listed}); pass {{param}} naming the positive "
            "class" + (", e.g. {setting}" if short else ""), param="pos_label", value=example)
    return VeracityError(
        f"{what} ({distinct} values such as {listed}); binary labels need two values and {{param}} naming "
        "the positive one", param="pos_label")


def shown_number(value: float) -> str:
    """``value`` for a message: its short form (``%g``) when that reads back as the same number,
    else its shortest exact form (``0.9999999999999999``, never a rounded ``1``)."""
    v = float(value)
    short = f"{v:g}"
    return short if float(short) == v else repr(v)


def check_binary_labels(labels: Any, n: int | None = None, pos_label: Any = None) -> np.ndarray:
    """Labels as float64 0/1. Accepts bool, {0, 1} integers or floats; with ``pos_label``
    any two-valued labels (strings too), 1 where the label equals it.

    Text labels without ``pos_label`` are refused, ``'0'``/``'1'`` included, as the frame and SQL
    forms refuse a text label column: which text is the positive class is the caller's to say."""
    if pos_label is not None:
        return labels_with_pos_label(labels, pos_label, n)
    raw = to_numpy(labels, "labels")
    _refuse_nested_labels(raw)
    if raw.size and (raw.dtype.kind in "US" or (raw.dtype == object and _holds_text(raw))):
        if raw.dtype == object:
            _refuse_missing_labels(raw)
        raise _non_numeric_labels(raw)
    if raw.dtype == object:
        try:
            raw = raw.astype(np.float64)
        except (TypeError, ValueError):
            _refuse_missing_labels(raw)  # pandas' nullable booleans: pd.NA is a missing label, not a third class
            raise _non_numeric_labels(raw) from None
    if raw.dtype == bool:
        y = raw.astype(np.float64)
    elif raw.dtype.kind in "iu" and raw.ndim == 1 and raw.size:
        # fast path: integer labels are binary iff 0 <= min and max <= 1
        if n is not None and raw.shape[0] != n:
            raise VeracityError(
                f"scores have {n} rows but labels have {raw.shape[0]}; pass one label per score",
                param="labels")
        if raw.min() >= 0 and raw.max() <= 1:
            return raw.astype(np.float64)
        y = raw.astype(np.float64)
    else:
        y = as_float_array(raw, "labels")
    if y.ndim != 1:
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        else:
            raise VeracityError(f"labels must be 1-D, got shape {y.shape}", param="labels")
    if y.size == 0:
        raise VeracityError("labels are empty; pass at least one row", param="labels")
    if n is not None and y.shape[0] != n:
        raise VeracityError(
            f"scores have {n} rows but labels have {y.shape[0]}; pass one label per score", param="labels"
        )
    # values in [0, 1] are all 0 or 1 exactly when every nonzero one equals 1 (a sum would
    # round: 0.9999999999999999 + 1 == 2 in float64)
    if y.min() >= 0.0 and y.max() <= 1.0 and np.count_nonzero(y == 1.0) == np.count_nonzero(y):
        return y
    # the message reads integer labels as stored: through float64, 2**64 - 1 and 2**64 - 2 (or
    # 2**53 + 1 and 2**53) were one value, printed rounded, and the pos_label named was another label
    exact = raw.reshape(-1) if raw.dtype.kind in "iu" else y
    ok = (exact == 0) | (exact == 1)
    if not ok.all():
        bad = exact[~ok]
        values = np.unique(bad)[:5]
        shown = ", ".join(_label_number(v) for v in values)
        message = (f"labels must be binary 0/1 (or bool); {int((~ok).sum())} of {y.size} are not "
                   f"(values such as {shown})")
        where = offending_rows(~ok)
        if ((bad > 0) & (bad < 1)).any():
            raise VeracityError(message, param="labels", hint=(
                "These look like scores: scores come first and labels second, "
                "e.g. vc.ece(scores, labels)."), **where)
        distinct = np.unique(exact)
        if distinct.size == 2:
            lo, hi = (plain(v) for v in distinct)
            value = hi if isinstance(hi, int) else _float_label(hi)
            hint = f"Map {_label_number(lo)} to 0 and {_label_number(hi)} to 1, or pass {{setting}}."
            raise VeracityError(message, param="pos_label", value=value, hint=hint, **where)
        raise VeracityError(message + ".", param="labels", **where)
    return y


def _float_label(v: float) -> Any:
    """A float label as ``pos_label`` names it: a whole number below 2**53 as an int (``3``), else
    the float itself (``1e+300``: its int has 301 digits and matches it only in Python's comparison)."""
    return int(v) if v.is_integer() and abs(v) < 2.0 ** 53 else v


def _label_number(value: Any) -> str:
    """A numeric label for a message: an integer as stored (every digit of ``2**64 - 1``), a float by
    :func:`shown_number` (its short form when that reads back as it)."""
    v = plain(value)
    return str(v) if isinstance(v, int) else shown_number(v)


def first_text(raw: np.ndarray) -> Any:
    """The first text value (``str`` or ``bytes``) of ``raw`` in row order, as a Python value; None
    when it holds none (numbers, booleans, missing values only)."""
    if not raw.size:
        return None
    if raw.dtype.kind in "US":
        return plain(raw.flat[0])
    if raw.dtype != object:
        return None
    if isinstance(raw.flat[0], (str, bytes)):
        return raw.flat[0]
    # the set of types in one C-level pass (a generator of isinstance checks is ~7x slower on 3e6 numbers);
    # the rows are searched only when some text is there
    if not any(issubclass(t, (str, bytes)) for t in set(map(type, raw.ravel()))):
        return None
    return next(v for v in raw.ravel() if isinstance(v, (str, bytes)))


def text_class_labels(k: int, example: Any) -> VeracityError:
    """The one refusal of text labels for ``k`` score columns, on every route (arrays and frames): the
    labels of (N, K) scores are the class's column index, and which column a text names is the
    caller's to say (``example``: the first text label, in row order)."""
    return VeracityError(
        f"multiclass labels must be the class's column index 0..{k - 1} in the scores, got text such as "
        f"{plain(example)!r}; map them to columns first, e.g. np.searchsorted(model.classes_, labels) "
        "for scikit-learn's predict_proba", param="labels")


def check_class_labels(labels: Any, n: int, k: int) -> np.ndarray:
    """Integer class labels in ``0..k-1`` as int64; text labels (any text, ``'0'`` included) are refused
    by :func:`text_class_labels`."""
    raw = to_numpy(labels, "labels")
    _refuse_nested_labels(raw)
    text = first_text(raw)
    if text is not None:
        raise text_class_labels(k, text)
    y = as_float_array(raw, "labels")
    if y.ndim != 1:
        raise VeracityError(f"labels must be 1-D class indices, got shape {y.shape}", param="labels")
    if y.shape[0] != n:
        raise VeracityError(
            f"scores have {n} rows but labels have {y.shape[0]}; pass one label per row", param="labels"
        )
    if (y != np.round(y)).any():
        bad = y[y != np.round(y)][0]
        raise VeracityError(
            f"multiclass labels must be integer class indices 0..{k - 1}; found {bad:g}. "
            "Scores come first and labels second", param="labels", rows=np.flatnonzero(y != np.round(y)),
            n_rows=n
        )
    if y.min() < 0 or y.max() > k - 1:
        raise VeracityError(
            f"multiclass labels must lie in 0..{k - 1} for {k} score columns; "
            f"found min={y.min():g}, max={y.max():g}", param="labels",
            rows=np.flatnonzero((y < 0) | (y > k - 1)), n_rows=n
        )
    return y.astype(np.int64)


def check_numeric_column(col: np.ndarray, name: str, what: str = "scores") -> np.ndarray:
    """``col`` (a column read from a file or frame) if its dtype is numeric or boolean; otherwise
    the one error every route gives, naming a value and, where the text shows it, the fix:
    a decimal comma (``0,75``) or a percent sign (``75%``)."""
    if col.dtype.kind in "biuf":
        return col
    example: Any = col[0] if col.size else None
    for value in col[: min(col.size, 1000)]:
        try:
            float(value)
        except (TypeError, ValueError):
            example = value
            break
    message = f"column {name!r} must be numeric {what}, found {col.dtype} values such as {example!r}"
    text = str(example).strip()
    if re.fullmatch(r"[+-]?[1-9]\d{0,2}(,\d{3}){2,}(\.\d*)?|[+-]?[1-9]\d{0,2}(,\d{3})+\.\d*", text):
        # 1,234,567 or 1,234.5: commas that can only group thousands
        message += ("; they look like numbers written with a thousands separator: write them without it "
                    f"({text.replace(',', '')})")
    elif re.fullmatch(r"[+-]?[1-9]\d{0,2},\d{3}", text):  # 1,200: 1200 or 1.2, the text cannot say which
        message += ("; they look like numbers written with a thousands separator or a decimal comma: write "
                    f"them as plain numbers ({text.replace(',', '')}, or {float(text.replace(',', '.')):g} "
                    "if the comma is a decimal one)")
    elif re.fullmatch(r"[+-]?\d*,\d+", text):
        message += ("; they look like numbers written with a decimal comma: write them with a decimal point "
                    f"({float(text.replace(',', '.')):g})")
    elif re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)\s*%", text):
        message += "; they look like percentages: write them as fractions of 1 without the % sign"
    raise VeracityError(message, param="score" if what == "scores" else None)


def out_of_range_hint(lo: float, hi: float) -> str:
    """How to fix scores outside [0, 1] with min ``lo`` and max ``hi``: declare logits, or (scores
    within [0, 100] reaching 2 or more) divide percentages by 100 — every backend's words."""
    percent = "; if they are percentages, divide them by 100" if 0.0 <= lo and 2.0 <= hi <= 100.0 else ""
    return "If these are logits, pass {setting}" + percent


def range_text(lo: float, hi: float) -> str:
    """``min=…, max=…`` of scores outside [0, 1] at 3 significant digits, or every digit where 3 would print
    a value inside [0, 1] (1 + 2**-52 as "1" named no reason to refuse it: "1.0000000000000002")."""
    def shown(v: float) -> str:
        short = f"{v:.3g}"
        return repr(float(v)) if 0.0 <= float(short) <= 1.0 and not 0.0 <= v <= 1.0 else short

    return f"min={shown(lo)}, max={shown(hi)}"


def not_probabilities(name: str, n_bad: int, size: int, lo: float, hi: float, *, rows: Any = None,
                      n_rows: int | None = None) -> VeracityError:
    """The one error for scores outside [0, 1] (``n_bad`` of ``size``; min ``lo``, max ``hi``); ``rows``
    and ``n_rows`` as :class:`VeracityError` carries them (the rows holding such a score)."""
    return VeracityError(
        f"{name} must be probabilities in [0, 1]; {n_bad} of {size} are not "
        f"({range_text(lo, hi)})", param="score_type", hint=out_of_range_hint(lo, hi), value="logit",
        rows=rows, n_rows=n_rows)


def rows_not_summing_to_one(n_bad: int, size: int, row: int, total: float, *,
                            rows: Any = None, decimals: int | None = None, k: int = 2) -> VeracityError:
    """The one error for (N, K) probability rows that do not sum to 1 (first bad ``row`` sums to ``total``;
    ``rows``: every such row, as :class:`VeracityError` carries them, of the ``size`` rows); ``decimals``
    and ``k``: the hint of :func:`row_sum_hint` (the rows look rounded to that many decimals)."""
    return VeracityError(
        f"multiclass probability rows must sum to 1; {n_bad} of {size} do not "
        f"(row {row} sums to {total:.6g})", param="score_type",
        hint=row_sum_hint(decimals, k), value="logit",
        rows=rows, n_rows=None if rows is None else size)


#: the decimals a table of rounded probabilities is recognised by (:func:`rounded_decimals`): rounding to
#: 6 or more moves a row's sum by at most K·0.5e-6, inside the tolerance ROW_SUM_ATOL·K, so never refused;
#: 1 is counted so that rows of one decimal are read as such (and never named rounded)
ROUNDING_DECIMALS = (1, 2, 3, 4, 5)

#: how far (in units of the last decimal) a float may lie from a multiple of 10^-d and still be read as one:
#: "0.123" parsed is 0.1229999…, times 1000 is 122.99999999999999
MULTIPLE_SLACK = 1e-6


def multiple_of_decimals(x: np.ndarray, d: int) -> np.ndarray:
    r"""Elementwise: whether ``x`` is a multiple of :math:`10^{-d}` (a value rounded to ``d`` decimals):
    :math:`|x \cdot 10^d - \mathrm{round}(x \cdot 10^d)| \le 10^{-6}`."""
    scaled = x * 10.0 ** d
    return np.abs(scaled - np.round(scaled)) <= MULTIPLE_SLACK


def rounded_decimals(not_multiple: Sequence[int], off: float, k: int) -> int | None:
    r"""The decimals ``d`` that (N, K) probability rows whose sums are off 1 look rounded to, or None.

    ``not_multiple[j]``: how many of the off rows hold a value that is not a multiple of :math:`10^{-d}`
    for ``d`` = :data:`ROUNDING_DECIMALS` ``[j]`` (:func:`multiple_of_decimals`); ``off``: the largest
    :math:`|\Sigma_k p_k - 1|` of those rows. ``d`` is the fewest decimals every off row's values carry,
    and is returned when every off sum is within what rounding K values to ``d`` decimals can move it:
    :math:`|\Sigma_k p_k - 1| \le K \cdot 0.5 \cdot 10^{-d}` (plus :math:`10^{-9}` for the float sum),
    and ``d`` >= 2: values of one decimal ([0.5, 0.6]) are as likely written by hand as rounded.
    One rule for every route: the array form counts in numpy, a frame in one aggregate."""
    for d, count in zip(ROUNDING_DECIMALS, not_multiple):
        if not count:
            return d if d >= 2 and off <= k * 0.5 * 10.0 ** -d + 1e-9 else None
    return None


def row_sum_hint(decimals: int | None, k: int) -> str:
    """The fix for probability rows that do not sum to 1 (every route's words): rows that look rounded to
    ``decimals`` decimals (:func:`rounded_decimals`) are said to be, with how to renormalise them; other
    rows may be logits."""
    if decimals is None:
        return "Normalise the rows, or pass {setting} for raw logits"
    unit = f"{0.5 * 10.0 ** -decimals:g}"
    return (f"The rows look rounded to {decimals} decimals (each such sum is "
            f"within {k} x {unit} of 1); veracity does not renormalise silently: divide each row by its sum "
            "first, e.g. p / p.sum(axis=1, keepdims=True), or keep more decimals")


def rows_rounding(scores: np.ndarray, sums: np.ndarray, bad: np.ndarray) -> int | None:
    """:func:`rounded_decimals` of the rows of (N, K) ``scores`` that ``bad`` marks (their ``sums``)."""
    off = scores[bad]
    if not off.size:
        return None
    counts = [int(np.count_nonzero(~multiple_of_decimals(off, d).all(axis=1))) for d in ROUNDING_DECIMALS]
    return rounded_decimals(counts, float(np.max(np.abs(sums[bad] - 1.0))), scores.shape[1])


def check_probabilities(p: np.ndarray, name: str = "scores") -> None:
    """Refuse ``p`` unless every value lies in [0, 1] (:func:`not_probabilities`). (N, K) rows are counted
    as rows, with the first such row and its first column named: "5 of 100 rows are not (...; first at
    row 3, column 0: -0.1)". Counting the values ("10 of 300 are not") read as rows of a 100-row table."""
    lo, hi = float(p.min()), float(p.max())
    if lo < 0.0 or hi > 1.0:
        outside = (p < 0) | (p > 1)
        if p.ndim != 2:
            raise not_probabilities(name, int(outside.sum()), p.size, lo, hi, **offending_rows(outside))
        where = offending_rows(outside)
        row = int(where["rows"][0])
        col = int(np.argmax(outside[row]))
        raise VeracityError(
            f"{name} must be probabilities in [0, 1]; {where['rows'].size} of {p.shape[0]} rows are not "
            f"({range_text(lo, hi)}; first at row {row}, column {col}: {shown_number(p[row, col])})",
            param="score_type", hint=out_of_range_hint(lo, hi), value="logit", **where)


#: rows from which reading (not fitting) functions refuse declared logits that all lie in [0, 1]
LOGIT_CHECK_MIN_ROWS = 20


def check_logit_scale(s: np.ndarray, name: str = "scores", *, min_rows: int = 0) -> None:
    """Refuse declared logits that all lie in [0, 1]: they are almost surely probabilities.

    Logits of a model with any signal spread over both signs and beyond 1; a whole
    fit set inside [0, 1] is ``predict_proba`` output declared as logits, which would
    silently fit the wrong map (seed 000's temperature on probabilities: τ = 0.36
    instead of 7.4). Checked on fit data (at least 2 distinct values).

    ``min_rows``: functions that only read scores (metrics, tables, the monitor) refuse from
    :data:`LOGIT_CHECK_MIN_ROWS` rows with some value strictly inside (0, 1) — a handful of
    logits in [0, 1], or logits that are all 0 or 1, are plausible.
    """
    if s.size < min_rows or s.size == 0:
        return
    if min_rows and not np.any((s > 0.0) & (s < 1.0)):
        return
    check_logit_range(float(s.min()), float(s.max()), s.size, name)


def check_logit_range(lo: float, hi: float, size: int, name: str = "scores") -> None:
    """:func:`check_logit_scale` from the scores' min and max (what a lazy frame's aggregate returns)."""
    if lo >= 0.0 and hi <= 1.0 and hi > lo:
        raise VeracityError(
            f"{name} were declared {{setting}} but all {size} lie in [0, 1] "
            f"(min={lo:.3g}, max={hi:.3g}): they look like probabilities (predict_proba "
            "output). Drop {setting} (probabilities are the default), or pass the "
            "raw logits / decision_function values", param="score_type", value="logit"
        )


@dataclass(frozen=True, eq=False)
class Binary:
    """Checked binary inputs: probabilities ``p``, labels ``y`` (0/1 floats), weights ``w``.

    ``logit`` holds the raw logits when ``score_type='logit'`` so that log-loss can
    be computed exactly with softplus instead of from the rounded probability.
    For multiclass input in the top-label reading, ``p`` is the confidence (max
    probability), ``y`` is 1 where the argmax is the label, and ``nll_terms``
    carry the categorical log-loss per row; ``top_label`` is True (whatever K, K = 2
    included: ``predict_proba``'s two columns), and ``n_classes`` is K.
    """

    p: np.ndarray
    y: np.ndarray
    w: np.ndarray | None
    logit: np.ndarray | None = None
    nll_terms: np.ndarray | None = None
    n_classes: int = 2
    top_label: bool = False
    #: the power of two the caller's weights were multiplied by (:func:`scaled_weights`; 1.0 when
    #: they kept their scale): a weight total reported to the caller is ``w``'s total divided by it
    weight_scale: float = 1.0

    @property
    def n(self) -> int:
        return int(self.p.shape[0])

    @property
    def total_weight(self) -> float:
        return float(self.n if self.w is None else self.w.sum())


def _looks_like_labels(s: np.ndarray) -> bool:
    return s.size >= 2 and bool(np.all((s == 0) | (s == 1)))


def check_same_index(**objects: Any) -> None:
    """Refuse pandas inputs whose indexes differ: they would be matched by position.

    Two Series of the same length but a different order or different labels (a
    shuffled or filtered copy) line up by position in numpy, which silently pairs
    each score with another row's label. Align them first, or pass ``.to_numpy()``.
    """
    named = [(k, v) for k, v in objects.items()
             if v is not None and type(v).__module__.startswith("pandas") and hasattr(v, "index")]
    if len(named) < 2:
        return
    first, ref = named[0]
    for name, obj in named[1:]:
        if len(obj.index) == len(ref.index) and not obj.index.equals(ref.index):
            raise VeracityError(
                f"{first} and {name} are pandas objects with different indexes (same length, "
                "different order or labels); matching them by position would pair rows "
                f"wrongly. Align them first, e.g. {name} = {name}.loc[{first}.index], or pass "
                ".to_numpy() to match by position on purpose", param=name
            )


def refuse_pos_label_for_multiclass(pos_label: Any, n_classes: int) -> None:
    """``pos_label`` with (N, K) scores would be ignored (the labels are class indices): refuse it."""
    if pos_label is not None:
        raise VeracityError(
            f"{{setting}} names the positive class of binary labels, but the scores have {n_classes} columns "
            f"(multiclass: labels are class indices 0..{n_classes - 1}), so drop {{param}}; for one class against "
            "the rest pass that class's score column and the labels equal to it",
            param="pos_label", value=pos_label)


def prepare_binary(
    scores: Any,
    labels: Any,
    *,
    sample_weight: Any = None,
    score_type: str = "probability",
    rescale_weights: bool = True,
    pos_label: Any = None,
    trusted_logits: bool = False,
    allow_score: bool = False,
) -> Binary:
    """Validate a binary (or multiclass top-label) problem.

    ``rescale_weights=False`` keeps the weights' scale (for statistics merged over chunks;
    see :func:`check_weights`). ``pos_label`` names the positive class of two-valued
    labels (strings, booleans, numbers); pandas inputs must share one index.
    ``trusted_logits``: the logits come from veracity itself (a calibrator's logit output),
    so the declared-type check that guards user input is skipped.
    ``allow_score``: a rank statistic's caller accepts ``score_type="score"`` (``p`` then holds
    the raw scores, which only their order may be read from).
    """
    check_score_type(score_type, allow_score=allow_score)
    check_same_index(scores=scores, labels=labels, sample_weight=sample_weight)
    s = as_float_array(scores, "scores")
    if s.ndim == 2 and s.shape[1] > 1 and score_type == "score":
        raise VeracityError(f"score_type='score' reads one ranking score per row, got shape {s.shape}; "
                            "pass the column of one class", param="score_type")
    if s.ndim == 2 and s.shape[1] > 1:
        refuse_pos_label_for_multiclass(pos_label, s.shape[1])
        return prepare_top_label(s, labels, sample_weight=sample_weight, score_type=score_type)
    if s.ndim == 2:
        s = s[:, 0]
    if s.ndim != 1:
        raise VeracityError(
            f"scores must be 1-D (binary) or 2-D (N, K) (multiclass), got shape {s.shape}", param="scores"
        )
    try:
        y = check_binary_labels(labels, s.shape[0], pos_label)
    except VeracityError:
        raw = to_numpy(labels, "labels")
        if raw.dtype.kind == "f" and _looks_like_labels(s) and raw.size == s.size:
            raise VeracityError(
                "the scores are all 0/1 and the labels are not: did you swap them? "
                "Scores come first and labels second, e.g. vc.ece(scores, labels)", param="labels"
            ) from None
        raise
    w, scale = scaled_weights(sample_weight, s.shape[0], rescale=rescale_weights)
    if score_type == "logit":
        if not trusted_logits:
            check_logit_scale(s, min_rows=LOGIT_CHECK_MIN_ROWS)  # probabilities declared as logits: refused
        return Binary(p=expit(s), y=y, w=w, logit=s, weight_scale=scale)
    if score_type == "score":
        return Binary(p=s, y=y, w=w, weight_scale=scale)  # raw: read only by rank statistics (allow_score)
    check_probabilities(s)
    return Binary(p=s, y=y, w=w, weight_scale=scale)


# ---------------------------------------------------------------------------------------
# the multiclass row math: pure numpy, no checks (every engine's one definition; the Dask
# partitions call it too, see veracity.sources._dask)
# ---------------------------------------------------------------------------------------
def _rows(scores: np.ndarray) -> np.ndarray:
    """(N, K) ``scores`` as float64 in C order: each row's K values side by side, so that a row's
    reduction is one fixed sequence of operations whatever the caller's memory layout (numpy sums a
    contiguous row of 8 or more values pairwise and a strided one in order, which differ in the last bit)."""
    return np.ascontiguousarray(scores, dtype=np.float64)


def row_sums_off_one(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Each row's sum :math:`\Sigma_k p_k` and whether it is off 1:
    :math:`|\Sigma_k p_k - 1| > \mathrm{ROW\_SUM\_ATOL} \cdot \max(1, K)` (a sum beyond the largest
    float is infinite, so off). Only finite scores are meaningful here."""
    p = _rows(scores)
    with np.errstate(over="ignore"):
        sums = p.sum(axis=1)
    return sums, np.abs(sums - 1.0) > ROW_SUM_ATOL * max(1, p.shape[1])


def class_probabilities(scores: np.ndarray, *, logit: bool) -> tuple[np.ndarray, np.ndarray | None]:
    r"""(N, K) class probabilities :math:`P` and, from logits, the log-probabilities (else None).

    From logits :math:`z`: :math:`\log p_k = (z_k - \max z) - \log \Sigma_j e^{z_j - \max z}`
    (scipy's ``log_softmax``: the shift keeps every exponent :math:`\le 0`; a gap beyond the largest
    float, logits near :math:`\pm 10^{308}`, is :math:`-\infty`, probability 0), :math:`p_k = e^{\log p_k}`.
    Probabilities are returned as they are.
    """
    if not logit:
        return scores, None
    with np.errstate(over="ignore"):
        logp = log_softmax(_rows(scores), axis=1)
    return np.exp(logp), logp


def predicted_class(P: np.ndarray) -> np.ndarray:
    r"""Each row's predicted class :math:`\arg\max_k p_k` of (N, K) probabilities or logits; on ties, for
    K = 2 class 1 (:math:`[p_1 \ge p_0]`, as a 1-D :math:`p \ge 0.5` predicts 1), for K >= 3 the first
    maximum (numpy's ``argmax``)."""
    return (P[:, 1] >= P[:, 0]).astype(np.intp) if P.shape[1] == 2 else P.argmax(axis=1)


def top_label_rows(P: np.ndarray, y: np.ndarray, logP: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The top-label reading of (N, K) class probabilities ``P`` and class indices ``y``:
    ``(confidence, correct, log-loss)`` per row.

    Predicted class :math:`\hat c = \arg\max_k p_k`. On ties: for K = 2 class 1,
    :math:`\hat c = [p_1 \ge p_0]`, as a 1-D score :math:`p \ge 0.5` predicts 1 (a row [0.5, 0.5], or
    logits [z, z], predicts 1); for K >= 3 the first maximum (numpy's ``argmax``). Confidence
    :math:`p_{\hat c}`, correct :math:`[\hat c = y]` as 0.0/1.0, and the categorical log-loss
    :math:`-\log p_y`: from the log-probabilities ``logP`` when given (logits: exact, no clipping), else
    :math:`-\log \mathrm{clip}(p_y, \epsilon, 1)` with :math:`\epsilon` = :data:`PROB_EPS`.
    """
    rows = np.arange(P.shape[0])
    pred = predicted_class(P)
    conf = P[rows, pred]
    correct = (pred == y).astype(np.float64)
    if logP is None:
        nll_terms = -np.log(np.clip(P[rows, y], PROB_EPS, 1.0))
    else:
        nll_terms = -logP[rows, y]
    return conf, correct, nll_terms


def refuse_probability_rows_as_logits(n: int, lo: float, hi: float, n_off_one: int) -> None:
    """Refuse ``n`` rows of (N, K) scores declared logits that are all probability vectors: every value in
    [``lo``, ``hi``] within [0, 1] and ``n_off_one`` = 0 rows whose sum is off 1 (:func:`row_sums_off_one`).
    They are predict_proba output declared as logits: softmax of them would be a silently wrong number.
    From :data:`LOGIT_CHECK_MIN_ROWS` rows (a handful of logits in [0, 1] summing to 1 is plausible).
    One rule and one message for every route: the array form reads the four numbers from the array,
    a frame (:mod:`veracity.sources._multiclass`) from one aggregate."""
    if n >= LOGIT_CHECK_MIN_ROWS and lo >= 0.0 and hi <= 1.0 and not n_off_one:
        raise VeracityError(
            f"scores were declared {{setting}} but all {n} rows are probability vectors (in "
            "[0, 1], summing to 1): they look like predict_proba output. Drop {setting} (probabilities are "
            "the default), or pass the raw logits", param="score_type", value="logit")


def _refuse_probability_rows_as_logits(scores: np.ndarray) -> None:
    """:func:`refuse_probability_rows_as_logits` of an (N, K) array (its rows summed only when needed)."""
    n = scores.shape[0]
    if n < LOGIT_CHECK_MIN_ROWS:
        return
    lo, hi = float(scores.min()), float(scores.max())
    if lo >= 0.0 and hi <= 1.0:
        refuse_probability_rows_as_logits(n, lo, hi, int(np.count_nonzero(row_sums_off_one(scores)[1])))


def multiclass_probabilities(
    scores: np.ndarray, score_type: str
) -> tuple[np.ndarray, np.ndarray | None]:
    """(N, K) probabilities and, for logits, the log-probabilities (:func:`class_probabilities`), of
    scores that keep the contract: probabilities in [0, 1] whose rows sum to 1, or logits that are not
    such rows (:func:`row_sums_off_one`)."""
    if score_type == "logit":
        _refuse_probability_rows_as_logits(scores)
        return class_probabilities(scores, logit=True)
    check_probabilities(scores)
    sums, bad = row_sums_off_one(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise rows_not_summing_to_one(int(bad.sum()), sums.size, i, float(sums[i]), rows=np.flatnonzero(bad),
                                      decimals=rows_rounding(scores, sums, bad), k=scores.shape[1])
    return scores, None


def prepare_multiclass(
    scores: Any, labels: Any, *, sample_weight: Any = None, score_type: str = "probability"
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Validated ``(P, y, w, logP)`` for an (N, K) problem with integer labels."""
    P, y, (w, _), logP = _prepare_multiclass(scores, labels, sample_weight=sample_weight, score_type=score_type)
    return P, y, w, logP


def _prepare_multiclass(
    scores: Any, labels: Any, *, sample_weight: Any, score_type: str
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray | None, float], np.ndarray | None]:
    """:func:`prepare_multiclass`, the weights with their scale (:func:`scaled_weights`)."""
    check_score_type(score_type)
    check_same_index(scores=scores, labels=labels, sample_weight=sample_weight)
    s = as_float_array(scores, "scores")
    if s.ndim != 2 or s.shape[1] < 2:
        raise VeracityError(
            f"multiclass scores must be an (N, K) array with K >= 2, got shape {s.shape}; "
            "for a binary problem pass a 1-D array of scores", param="scores"
        )
    n, k = s.shape
    y = check_class_labels(labels, n, k)
    weights = scaled_weights(sample_weight, n)
    P, logP = multiclass_probabilities(s, score_type)
    return P, y, weights, logP


def prepare_top_label(
    scores: Any, labels: Any, *, sample_weight: Any = None, score_type: str = "probability"
) -> Binary:
    """Reduce an (N, K) problem to the top-label reading: (confidence, correct)."""
    P, y, (w, scale), logP = _prepare_multiclass(
        scores, labels, sample_weight=sample_weight, score_type=score_type
    )
    conf, correct, nll_terms = top_label_rows(P, y, logP)
    return Binary(p=conf, y=correct, w=w, nll_terms=nll_terms, n_classes=P.shape[1], top_label=True,
                  weight_scale=scale)


def prepare_classwise(
    scores: Any, labels: Any, *, sample_weight: Any = None, score_type: str = "probability"
) -> list[Binary]:
    """One one-vs-rest binary problem per class of an (N, K) input."""
    P, y, (w, scale), _ = _prepare_multiclass(
        scores, labels, sample_weight=sample_weight, score_type=score_type
    )
    return [
        Binary(p=np.ascontiguousarray(P[:, k]), y=(y == k).astype(np.float64), w=w, weight_scale=scale)
        for k in range(P.shape[1])
    ]


#: Probabilities are clipped to [PROB_EPS, 1 - PROB_EPS] before taking logs
#: (machine epsilon, the same rule as scikit-learn's ``log_loss``).
PROB_EPS = float(np.finfo(np.float64).eps)


def binary_nll_terms(data: Binary) -> np.ndarray:
    r"""Per-row log-loss.

    From logits it is exact and overflow-free: :math:`\mathrm{softplus}(-y_\pm s)`
    with :math:`y_\pm = 2y - 1`. From probabilities it is
    :math:`-\log \mathrm{clip}(q, \epsilon, 1)` with :math:`q = p` for positives and
    :math:`1 - p` for negatives and :math:`\epsilon` the float64 machine epsilon.
    """
    if data.nll_terms is not None:
        return data.nll_terms
    if data.logit is not None:
        return np.logaddexp(0.0, np.where(data.y == 1.0, -data.logit, data.logit))
    q = 1.0 - data.p  # in place from here on: one allocation for 1e7 rows, not five
    np.copyto(q, data.p, where=data.y == 1.0)
    np.maximum(q, PROB_EPS, out=q)
    np.log(q, out=q)
    np.negative(q, out=q)
    return q


__all__ = [
    "Binary",
    "PROB_EPS",
    "ScoreType",
    "VeracityError",
    "VeracityWarning",
    "as_float_array",
    "binary_nll_terms",
    "check_binary_labels",
    "check_logit_range",
    "check_logit_scale",
    "check_probabilities",
    "check_random_state",
    "check_same_index",
    "check_score_type",
    "labels_with_pos_label",
    "refuse_pos_label_for_multiclass",
    "not_probabilities",
    "range_text",
    "python_spelling",
    "refuse_score",
    "row_sum_hint",
    "row_sums_off_one",
    "rounded_decimals",
    "rows_not_summing_to_one",
    "rows_rounding",
    "check_weights",
    "class_probabilities",
    "prepare_binary",
    "prepare_classwise",
    "prepare_multiclass",
    "prepare_top_label",
    "refuse_probability_rows_as_logits",
    "softmax",
    "text_class_labels",
    "to_numpy",
    "predicted_class",
    "top_label_rows",
]
