"""The rows an error is about, named in the file's words: "data row k" of the rows a command uses
becomes the row's number in FILE (:func:`file_rows`), a check that fails names the first offending row
(:func:`first_bad_row`: from the rows the library's error carries, else from per-row masks built by
:func:`bad_rows`), and a lazy engine's count of bad rows is located by one streamed pass of the file after
the error (:func:`locate`); a row the library names by its 0-based position in FILE's whole column is
named as a data row (:func:`data_rows`)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._files import _PARQUET
from ..core._validation import ROW_SUM_ATOL, VeracityError
from ..sources import _api as source


@contextmanager
def file_rows(mask: np.ndarray | None, named: str) -> Iterator[None]:
    """Errors about the rows a command uses in the file's words: "data row k" (k-th used row, counted
    from 1) becomes the row's number in FILE, ``flatnonzero(mask)[k - 1] + 1`` (data rows counted from 1,
    the header not counted, as every message of the source layer counts them), and "of n rows" says
    they are the ``named`` rows (``"measured rows (role == 'test')"``). ``mask`` None: every row, the
    errors unchanged."""
    try:
        yield
    except VeracityError as exc:
        if mask is None:
            raise
        rows = np.flatnonzero(mask) + 1  # used row k (1-based) is data row rows[k - 1] of FILE
        message = re.sub(r"data row (\d+)", lambda m: f"data row {rows[int(m.group(1)) - 1]}"
                         if 0 < int(m.group(1)) <= rows.size else m.group(0), exc.message)
        message = re.sub(r" of (\d+) rows\b", lambda m: f" of the {m.group(1)} {named}", message)
        if message == exc.message:
            raise
        raise VeracityError(message, exc.param, exc.hint, value=exc.value) from None


#: a row the library names by its 0-based position in an array ("(row 2: '2026-01-0x')", "without (row 0:
#: ...)", "(first at row 1)", "first at row 2: 1.7)"), with the value shown after it (a repr: quoted with
#: double quotes when it holds a single quote) read whole, so that a value's own text is never taken for a
#: position; a column's name (a repr too) is read whole for the same reason
_QUOTED = r"""(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
_POSITION = re.compile(rf"column {_QUOTED}|(?P<lead>\(|\bfirst at )row (?P<k>\d+)\b(?P<value>: {_QUOTED})?")


@contextmanager
def data_rows() -> Iterator[None]:
    """Errors naming a row by its 0-based position in the array the library was given ("(row 2:
    '2026-01-0x')", "(first at row 1)"; the Python API's convention) in the command line's words: "data
    row k+1", counted from 1, the header not counted (both positions of "mixes times with a UTC offset
    (row 2: ...) and without (row 0: ...)"). Only around a call whose arrays hold FILE's rows, all of them
    in order (over the files of a glob or a folder in order), and whose errors count no other rows."""
    try:
        yield
    except VeracityError as exc:
        message = _POSITION.sub(lambda m: m.group(0) if m.group("k") is None else
                                f"{m.group('lead')}data row {int(m.group('k')) + 1}{m.group('value') or ''}",
                                exc.message)
        if message == exc.message:
            raise
        raise VeracityError(message, exc.param, exc.hint, value=exc.value, rows=exc.rows,
                            n_rows=exc.n_rows) from None


@contextmanager
def first_bad_row(*, row_sums: np.ndarray | None = None, out_of_range: np.ndarray | None = None,
                  **bad: np.ndarray | None) -> Iterator[None]:
    """A library input error about the rows ("labels must be binary 0/1; 1 of 598 are not") with the
    first offending row's number: the message gains ", first at data row k" (k counted from 1) after its
    count, which :func:`file_rows` around it turns into the row's number in FILE. The masks (each over the
    rows of the table, in order) say which rows the code inside is given: an error that carries its rows
    (:class:`VeracityError` ``rows``, of ``n_rows`` rows: the core checks') is about the table's rows when
    ``n_rows`` is the masks' length, and names its first, whatever its words. An error that carries none
    is read by its words (:func:`_mask_of`): ``bad[param]`` marks the rows the check about ``param``
    refuses; the frame form's errors name no parameter: a message about ``(labels)`` or
    ``(sample_weight)`` reads ``bad["labels"]`` or ``bad["sample_weight"]``, multiclass rows that do not
    sum to 1 ``row_sums``, scores outside [0, 1] ``out_of_range``. A multiclass row named by its 0-based
    position ("row 6 sums to 1.1", "first at row 3, column 0") is named as a data row. Errors that already name a data row, that are
    about no one row, or without masks, pass unchanged."""
    try:
        yield
    except VeracityError as exc:
        message = exc.message
        if "data row" not in message:
            message = re.sub(r"(\(|\bfirst at )row (\d+)(?= sums to|, column )",
                             lambda m: f"{m.group(1)}data row {int(m.group(2)) + 1}", message)
        first = _first_row(exc, bad, row_sums, out_of_range)
        if "data row" not in message and first is not None:
            message = _after_count(message, f", first at data row {first + 1}")
        if message == exc.message:
            raise
        raise VeracityError(message, exc.param, exc.hint, value=exc.value, rows=exc.rows,
                            n_rows=exc.n_rows) from None


def _first_row(exc: VeracityError, bad: dict[str, np.ndarray | None], row_sums: np.ndarray | None,
               out_of_range: np.ndarray | None) -> int | None:
    """The 0-based position in the table of the first row ``exc`` is about, or None: the first of the
    rows it carries when they index the table's rows (``n_rows`` is the length of the masks
    :func:`first_bad_row` was given: not a subset or another array), else the first its mask marks."""
    lengths = {m.shape[0] for m in (*bad.values(), row_sums, out_of_range) if m is not None}
    if exc.rows is not None and exc.rows.size and lengths == {exc.n_rows}:
        return int(exc.rows.min())
    mask = _mask_of(exc, bad, row_sums, out_of_range)
    return int(np.argmax(mask)) if mask is not None and mask.any() else None


def _mask_of(exc: VeracityError, bad: dict[str, np.ndarray | None], row_sums: np.ndarray | None,
             out_of_range: np.ndarray | None) -> np.ndarray | None:
    """The rows :func:`first_bad_row` reads for an ``exc`` that carries none: by what the message is about,
    else by its param."""
    message = exc.message
    if "must sum to 1" in message:
        return row_sums
    if "probabilities in [0, 1]" in message:
        return out_of_range
    if exc.param is None:
        for word, param in (("(labels)", "labels"), ("(sample_weight)", "sample_weight"),
                            ("(--sample-weight)", "sample_weight")):
            if word in message:
                return bad.get(param)
        return None
    return bad.get(exc.param)


def _after_count(message: str, words: str) -> str:
    """``message`` with ``words`` after its count of offending rows ("1 of 300 are not (min=2, max=2)",
    "1 of 300 rows of 'p0', 'p1' do not", "values of 300 rows", "1 NaN and 0 infinite values (first at
    flat index 5)", "1 missing value (None/NaN) of 300 rows") or the range it names, else at the end of its
    first sentence."""
    count = re.search(r"\b\d+ of \d+ (?:rows of .+? )?(?:are|do)(?: not| negative)?(?: \([^)]*\))?"
                      r"|\bvalues of \d+(?: rows)?"
                      r"|\b\d+ (?:NaN and \d+ infinite|missing(?: \(null\))?) values?(?: \([^)]*\))?"
                      r"(?: of \d+ rows)?",
                      message)
    if count is None:  # "probs must be probabilities in [0, 1] (min=0, max=2); if these are logits ..."
        count = re.search(r"probabilities in \[0, 1\] \([^)]*\)", message)
    if count is None:
        return _first_sentence_plus(message, words)
    return f"{message[:count.end()]}{words}{message[count.end():]}"


def _first_sentence_plus(message: str, words: str) -> str:
    """``message`` with ``words`` at the end of its first sentence (before its period, if any)."""
    end = re.search(r"\.(?=\s+[A-Z(]|$)", message)  # "e.g. --budget 5%" goes on
    cut = len(message) if end is None else end.start()
    return f"{message[:cut]}{words}{message[cut:]}"


@contextmanager
def on_fit_rows(role_col: str | None, role: str, n: int) -> Iterator[None]:
    """An error of the fit (a threshold, a q̂) says it is about the fit role's rows only: "the labels
    have none" or "--sample-weight sums to 0" read as if about the whole file, which may hold positives
    and weights in its other roles. Without a role column the fit rows are every row: unchanged."""
    with on_role_rows(role_col, role, n, "fit on"):
        yield


@contextmanager
def on_role_rows(role_col: str | None, role: str, n: int, doing: str) -> Iterator[None]:
    """An error about one role's rows says so after its first sentence: "(``doing`` the n rows with
    role_col == role)". Without a role column the rows are every row: the error unchanged."""
    try:
        yield
    except VeracityError as exc:
        if role_col is None:
            raise
        message = _first_sentence_plus(exc.message, f" ({doing} the {n} rows with {role_col} == {role!r})")
        raise VeracityError(message, exc.param, exc.hint, value=exc.value) from None


@contextmanager
def counted_on_fit_rows(named: str | None, n: Callable[[], int | None]) -> Iterator[None]:
    """An error of a command that reads only the fit role's rows (``veracity fit``) whose count is of
    those rows says so: "1 of 106 are not" gains " (fit on the 106 rows with role == 'calib')" at the end
    of its first sentence (as :func:`on_fit_rows` words it), "values of 106 rows" reads "values of the
    106 rows with role == 'calib'" (as :func:`file_rows` words it). ``named``: those rows in the error's
    words (``"rows with role == 'calib'"``; None: every row is fit on, errors unchanged); ``n()``: their
    number (None while not known: the error came before they were counted). Errors that count other
    rows (all of FILE's, a score matrix's entries) or that already name the rows: unchanged."""
    try:
        yield
    except VeracityError as exc:
        rows = None if named is None else n()
        if named is None or rows is None:
            raise
        message = re.sub(rf" of {rows} rows\b", f" of the {rows} {named}", exc.message)
        if named not in message and re.search(rf"\bof {rows}\b", message):
            message = _first_sentence_plus(message, f" (fit on the {rows} {named})")
        if message == exc.message:
            raise
        raise VeracityError(message, exc.param, exc.hint, value=exc.value) from None


def bad_rows(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None, *,
             pos_label: bool = False) -> dict[str, np.ndarray | None]:
    """The masks :func:`first_bad_row` reads, of checked score, label and weight arrays: labels not 0/1
    (binary; none with ``pos_label``, whose labels the library maps itself) or not a class index 0..K-1
    (K score columns), negative weights, multiclass rows not summing to 1 (the library's tolerance,
    ``ROW_SUM_ATOL * max(1, K)``) and scores outside [0, 1]."""
    P = np.asarray(scores)
    y = np.asarray(labels)
    numeric = P.dtype.kind in "biuf"
    wrong: np.ndarray | None
    sums: np.ndarray | None
    outside: np.ndarray | None
    if P.ndim == 2 and numeric:
        k = P.shape[1]
        yf = np.asarray(y, dtype=np.float64) if y.dtype.kind in "biuf" else None
        wrong = None if yf is None else ~((yf == np.round(yf)) & (yf >= 0) & (yf <= k - 1))
        with np.errstate(invalid="ignore"):
            sums = np.abs(P.sum(axis=1) - 1.0) > ROW_SUM_ATOL * max(1, k)
            outside = np.asarray(((P < 0) | (P > 1)).any(axis=1))
    else:
        wrong = None if pos_label else not_binary(y)
        sums = None
        with np.errstate(invalid="ignore"):
            outside = ((P < 0) | (P > 1)) if numeric else None
    w = None if weights is None or np.asarray(weights).dtype.kind not in "biuf" else np.asarray(weights) < 0
    return {"labels": wrong, "pos_label": wrong, "sample_weight": w, "row_sums": sums, "out_of_range": outside}


def not_binary(labels: np.ndarray) -> np.ndarray | None:
    """The rows whose label is not 0/1 (None for text labels: their error names no row)."""
    y = np.asarray(labels)
    if y.dtype.kind not in "biuf":
        return None
    return ~((y == 0) | (y == 1))


def locate(exc: VeracityError, path: str, scores: list[str], args: argparse.Namespace,
           role: tuple[str, str] | None = None, final: FinalRows | None = None) -> VeracityError:
    """A lazy engine's error about the rows ("1 of 300 are not", counted where the rows live) with the first
    offending row's data row in FILE, as ``--engine memory`` names it: found by one pass over the needed
    columns of the file, a block at a time (the rows of ``role``'s column equal to its role only; for an
    error about the labels, the rows ``final`` keeps only: a pending row's label may be anything). A glob
    or a folder (a row of which file?), a file that pass cannot read, or an error about no one row
    (a weight sum of 0): ``exc`` unchanged. Missing keys or times of ``monitor scan --period COL`` or
    ``--time COL`` ("column 'g' (periods) has 1 missing value") are named as the memory route names them,
    "(first at data row k)"."""
    if "data row" in exc.message or _TYPE_REFUSED.search(exc.message):
        return exc
    message = exc.message
    period = getattr(args, "period", None) or getattr(args, "time", None)
    if period and message.startswith(f"column {period!r} (periods) has ") and " missing value" in message:
        if "(first at row " in message:  # named where the rows were read (over a glob's files too)
            return exc
        try:
            row = _first_missing(path, period)
        except Exception:  # noqa: BLE001  (as below: a courtesy)
            row = None
        return exc if row is None else VeracityError(
            _after_count(message, f" (first at data row {row})"), exc.param, exc.hint, value=exc.value)
    label, weight = getattr(args, "label", None), getattr(args, "weight", None)
    pos_label = getattr(args, "pos_label", None) is not None
    # missing labels, with --pos-label or without ("column 'y' (labels) has 1 missing value (None/NaN) of 3
    # rows")
    gone = label if label and message.startswith(f"column {label!r} (labels) has ") else None
    try:
        test = _lazy_test(message, scores, label, weight, pos_label)
        keep = final if final is not None and "(labels)" in message else None
        row = None if test is None and gone is None else first_row_in_file(
            path, [*scores, *(c for c in (label, weight, role[0] if role else None) if c),
                   *(keep.columns if keep else ())], test, role, missing=gone, keep=keep)
    except Exception:  # noqa: BLE001  (naming the row is a courtesy; the error stands without it)
        row = None
    if row is None:
        return exc
    return VeracityError(_after_count(message, f", first at data row {row}"), exc.param, exc.hint, value=exc.value)


#: a label column refused for its type ("must hold 0/1 numbers or booleans, got String"): about the whole
#: column, not a row (memory names none; a row of a text column read as numbers was always the first)
_TYPE_REFUSED = re.compile(r"\(labels\) must hold [^;]*, got ")


@dataclass(frozen=True)
class FinalRows:
    """The rows of ``monitor scan`` whose label is final, as a test of a block of FILE (a record batch):
    the ``mature`` column true (a missing flag: pending), or, with ``as_of`` and ``horizon``, the rows
    whose ``time`` satisfies ``time + horizon <= as_of`` (:func:`veracity.label_maturity`, which reads
    the times as the memory route reads them; a missing time: pending)."""

    time: str | None = None
    as_of: str | None = None
    horizon: str | None = None
    mature: str | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns the test reads."""
        return (self.mature,) if self.mature else (self.time,) if self.time else ()

    def __call__(self, batch: Any) -> np.ndarray:
        """True for the block's rows whose label is final."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from ..monitoring import label_maturity

        if self.mature:
            flags = pc.fill_null(pc.cast(batch.column(self.mature), pa.bool_()), False)
            return np.asarray(flags.to_numpy(zero_copy_only=False), dtype=bool)
        col = batch.column(self.time)
        present = np.asarray(pc.invert(pc.is_null(col, nan_is_null=True)).to_numpy(zero_copy_only=False),
                             dtype=bool)
        final = np.zeros(batch.num_rows, dtype=bool)
        if present.any():
            times = col.filter(pa.array(present)).to_numpy(zero_copy_only=False)
            final[present] = label_maturity(times, self.as_of, self.horizon)
        return final

    @classmethod
    def of(cls, args: argparse.Namespace) -> FinalRows | None:
        """The final rows ``monitor scan``'s flags name (``--mature COL``, or ``--time`` with ``--as-of``
        and ``--horizon``); None: every row's label counts."""
        if getattr(args, "mature", None):
            return cls(mature=args.mature)
        if getattr(args, "as_of", None) is not None and getattr(args, "time", None):
            return cls(time=args.time, as_of=args.as_of, horizon=args.horizon)
        return None


def _lazy_test(message: str, scores: list[str], label: str | None, weight: str | None,
               pos_label: bool = False) -> Callable[[dict[str, np.ndarray]], np.ndarray] | None:
    """The rows the lazy contract's ``message`` is about, as a test of a block's columns (float arrays,
    NaN for a missing value), or None for an error about no one row."""
    def missing(x: np.ndarray) -> np.ndarray:
        return ~np.isfinite(x)

    if "must sum to 1" in message:
        k = len(scores)
        return lambda c: np.abs(np.column_stack([c[s] for s in scores]).sum(axis=1) - 1.0) > ROW_SUM_ATOL * max(1, k)
    if "(labels)" in message and label and not pos_label:
        if "class indices" in message:
            k = len(scores)
            return lambda c: ~((c[label] == np.round(c[label])) & (c[label] >= 0) & (c[label] <= k - 1))
        return lambda c: ~((c[label] == 0) | (c[label] == 1))
    if "(sample_weight)" in message and weight:
        if "negative" in message:
            return lambda c: c[weight] < 0
        if "missing" in message:
            return lambda c: missing(c[weight])
        return None
    if "(scores)" in message or message.startswith("score columns "):
        if "missing" in message:
            return lambda c: np.asarray(np.column_stack([missing(c[s]) for s in scores]).any(axis=1))
        if "probabilities in [0, 1]" in message:
            return lambda c: np.asarray(np.column_stack([(c[s] < 0) | (c[s] > 1) for s in scores]).any(axis=1))
    return None


def first_row_in_file(path: str, columns: list[str], test: Callable[[dict[str, np.ndarray]], np.ndarray] | None,
                      role: tuple[str, str] | None = None, *, missing: str | None = None,
                      blank: bool = False, keep: FinalRows | None = None) -> int | None:
    """The data row (counted from 1, the header not counted) of the first row of the one file ``path``
    where ``test`` holds (of the rows whose ``role[0]`` column, read as text, equals ``role[1]``, and that
    ``keep`` keeps), read a block at a time, only ``columns`` (each read as floats, NaN where missing or
    not a number; ``keep`` reads its columns as the file holds them);
    ``missing``: instead the first row where that column is missing (null or NaN; with ``blank``, or blank
    text, as a row with no role). None when no row is found, or for a glob or a folder."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if source.is_many(path):
        return None
    seen = 0
    for batch in _blocks(Path(path), list(dict.fromkeys(columns))):
        if missing is not None:
            hit = np.asarray(pc.is_null(batch.column(missing), nan_is_null=True).to_numpy(zero_copy_only=False),
                             dtype=bool)
            if blank:
                from ..calibrators._base import blank_roles
                from ..sources._arrow_numpy import to_numpy

                hit |= blank_roles(to_numpy(batch.column(missing)))
        else:
            values: dict[str, np.ndarray] = {}
            for name in batch.schema.names:
                try:
                    values[name] = np.asarray(pc.cast(batch.column(name), pa.float64()).to_numpy(zero_copy_only=False),
                                              dtype=np.float64)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    values[name] = np.full(batch.num_rows, np.nan)
            with np.errstate(invalid="ignore"):
                hit = np.asarray(test(values) if test is not None else np.zeros(batch.num_rows), dtype=bool)
        if role is not None:
            texts = pc.cast(batch.column(role[0]), pa.string()).to_numpy(zero_copy_only=False)
            hit &= np.asarray(texts == role[1], dtype=bool)
        if keep is not None:
            hit &= keep(batch)
        if hit.any():
            return seen + int(np.argmax(hit)) + 1
        seen += batch.num_rows
    return None


def _first_missing(path: str, column: str) -> int | None:
    """The data row of the first row whose ``column`` is missing (null or NaN) in the file ``path``, or in
    the files of a glob or a folder counted in order, as the memory route reads them into one table (the
    monitor's period column: a row of the whole input, wherever it lies); None when none is."""
    import pyarrow.compute as pc

    from .._files import expand

    seen = 0
    for f in expand(path)[0]:
        for batch in _blocks(Path(f), [column]):
            hit = np.asarray(pc.is_null(batch.column(column), nan_is_null=True).to_numpy(zero_copy_only=False),
                             dtype=bool)
            if hit.any():
                return seen + int(np.argmax(hit)) + 1
            seen += batch.num_rows
    return None


def _blocks(p: Path, columns: list[str]) -> Iterator[Any]:
    """The file's ``columns``, a record batch at a time (Parquet: a row group; CSV: a block, read as the
    source layer reads it: its delimiter, an empty cell missing)."""
    if p.name.lower().endswith(_PARQUET):
        import pyarrow.parquet as pq

        with pq.ParquetFile(p) as pf:
            yield from pf.iter_batches(columns=columns, batch_size=65_536)
        return
    import pyarrow.csv as pacsv

    options = pacsv.ConvertOptions(include_columns=columns, strings_can_be_null=True)
    with pacsv.open_csv(p, convert_options=options, parse_options=pacsv.ParseOptions(delimiter=source._delimiter(p)),
                        read_options=pacsv.ReadOptions(block_size=1 << 20)) as reader:
        yield from reader
