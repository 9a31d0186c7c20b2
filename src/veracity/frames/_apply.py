"""Calibrated scores streamed from Parquet to Parquet (or CSV, tab-separated, gzip-compressed), in bounded memory.

:func:`apply_stream` reads the input Parquet file(s) one record batch at a time
(``pyarrow.parquet.ParquetFile.iter_batches``: one row group decoded at a time),
applies the calibrator to the batch's score column(s) vectorised, and appends the
batch with its new column(s) to a ``pyarrow.parquet.ParquetWriter`` (or a CSV
writer). Memory is one batch, whatever the number of rows; every input column is
kept, and the output is the in-memory ``transform`` of the whole column, row for row.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core._validation import VeracityError
from ..sources._arrow_numpy import from_numpy
from ..sources._source import require_columns

#: rows per record batch (about 0.5 MB per float column)
BATCH_ROWS = 65_536


@dataclass(frozen=True)
class Applied:
    """What a streamed apply wrote: rows, batches, the new column names, the output path."""

    rows: int
    batches: int
    columns: tuple[str, ...]
    out: str


def is_parquet_source(path: str) -> bool:
    """True when ``path`` (a file, a directory or a glob) names Parquet files."""
    from ..sources._duckdb import expand

    try:
        return expand(path)[1] == "parquet"
    except VeracityError:
        return False


def _batches(files: list[str], batch_rows: int) -> Iterator[tuple[str, Any]]:
    import pyarrow.parquet as pq

    for f in files:
        with pq.ParquetFile(f) as pf:
            for batch in pf.iter_batches(batch_size=batch_rows):
                yield f, batch


def _scores(batch: Any, names: list[str], path: str, first_row: int) -> np.ndarray:
    import pyarrow as pa

    from .. import io

    table = pa.Table.from_batches([batch])
    try:
        return io.score_matrix(table, ",".join(names), path=path)
    except VeracityError as exc:  # param, hint and value kept: each front end spells the advice its own way
        raise VeracityError(_absolute_rows(exc.message, first_row), exc.param, exc.hint,
                            value=exc.value) from None


#: a calibrator's count of the batch's offending scores ("149 of 200 are not (min=-5.9, max=5.88)")
_COUNT = re.compile(r"\b\d+ of \d+ (?:are|do)(?: not)?(?: \([^)]*\))?")


def _transform_error(exc: VeracityError, path: str, first_row: int, n: int,
                     names: list[str]) -> VeracityError:
    """A calibrator's error about a batch of ``n`` scores (rows ``first_row + 1 .. first_row + n`` of
    ``path``) in the words of the in-memory ``veracity apply``: the score column(s) named ("column 'p'
    (scores) must be ..."), the first offending row of the file (", first at data row k" after the count,
    from the rows the error carries; a multiclass row "(row 6 sums to 1.1)" as "(data row k sums to
    1.1)"), and its ``param``/``hint``/``value`` kept, so that the advice is spelled by the front end
    (``--score-type logit`` on the command line; in Python ``str()`` keeps the calibrator's own spelling,
    ``IsotonicCalibration(score_type='logit')``)."""
    def words(text: str) -> str:
        if text.startswith("scores ") and names:
            where = (f"column {names[0]!r}" if len(names) == 1 else
                     "columns " + ", ".join(repr(c) for c in names))
            text = f"{where} (scores) {text[len('scores '):]}"
        if "data row" not in text:
            text = re.sub(r"\(row (\d+) sums to",
                          lambda m: f"(data row {first_row + int(m.group(1)) + 1} sums to", text)
        count = _COUNT.search(text)
        if "data row" not in text and count and exc.rows is not None and exc.rows.size and exc.n_rows == n:
            first = first_row + int(exc.rows.min()) + 1
            text = f"{text[:count.end()]}, first at data row {first}{text[count.end():]}"
        return f"{path}, rows {first_row + 1}..{first_row + n}: {text}"

    error = VeracityError(words(exc.message), exc.param, exc.hint, value=exc.value)
    error.args = (words(str(exc)),)  # the Python text as the calibrator spelled it (its constructor's name)
    return error


def _absolute_rows(message: str, first_row: int) -> str:
    """A batch's message with its row numbers counted from the file's first data row (and its row
    count, "of 300 rows", as the batch's rows: "of rows 601..900")."""
    message = re.sub(r" of (\d+) rows",
                     lambda m: f" of rows {first_row + 1}..{first_row + int(m.group(1))}", message)
    return re.sub(r"data row (\d+)", lambda m: f"data row {int(m.group(1)) + first_row}", message)


def apply_stream(cal: Any, source: str | os.PathLike[str], out: str | os.PathLike[str], *, score: str | list[str],
                 column: str = "calibrated", batch_rows: int = BATCH_ROWS,
                 features: Sequence[str] = ()) -> Applied:
    """Write every row of the Parquet ``source`` plus ``cal``'s calibrated column(s) to ``out``.

    ``features``: the columns a calibrator reads beside the score (a :class:`veracity.SegmentCalibration`'s
    feature names), passed to its ``transform`` as ``features={name: column}`` batch by batch.

    ``out`` is written as the source layer reads its name back (``_files``' rule): Parquet for
    ``.parquet``/``.pq``/``.parq``, else CSV, tab-separated for ``.tsv``/``.tsv.gz`` and
    gzip-compressed for a ``.gz`` name; ``score`` names the score
    column (or the K columns of multiclass scores). Columns are named ``column``
    (binary) or ``column_0 .. column_{K-1}`` (multiclass), as ``veracity apply`` names them.
    """
    from ..sources._duckdb import expand

    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        raise VeracityError(f"batch_rows must be a positive integer, got {batch_rows!r}")
    names = [score] if isinstance(score, str) else list(score)
    files, kind = expand(source)
    if kind != "parquet":
        raise VeracityError(f"{os.fspath(source)} is not Parquet; streaming apply reads Parquet files")
    from .._files import write_atomic  # a temporary file renamed into place

    state: dict[str, Any] = {}

    def write(tmp: Path) -> None:
        state.update(_write(cal, files, os.fspath(source), tmp, names, column, batch_rows,
                            form=_form(Path(out).name), features=list(features)))

    try:
        target = Path(out)
        if target.exists() and not target.is_file():  # /dev/stdout, a FIFO: write through
            write(target)
        else:
            write_atomic(target, write)
    except OSError as exc:
        raise VeracityError(f"could not write {os.fspath(out)}: {exc.strerror or exc}; check the path") from None
    return Applied(state["rows"], state["batches"], tuple(state["columns"]), os.fspath(out))


def _schema_difference(first: Any, other: Any) -> str:
    """How a file's schema (``other``) differs from the first file's (``first``), in words: the columns it
    lacks or adds, else a column's other type, else the same columns in another order ("has other columns
    or types" left the user to find which, where each file listed the same columns)."""
    missing = [n for n in first.names if n not in other.names]
    extra = [n for n in other.names if n not in first.names]
    if missing or extra:
        said = [f"lacks {', '.join(map(repr, missing))}" if missing else "",
                f"adds {', '.join(map(repr, extra))}" if extra else ""]
        return "it " + " and ".join(w for w in said if w)
    for name in first.names:
        a, b = first.field(name).type, other.field(name).type
        if a != b:
            return f"its column {name!r} is {b}, not {a}"
    return "the same columns, in another order"


def _form(name: str) -> tuple[bool, str, bool]:
    """``(parquet, delimiter, gzip)`` of an output file name, as the source layer reads the name back."""
    from .._files import _PARQUET

    low = name.lower()
    return low.endswith(_PARQUET), "\t" if low.endswith((".tsv", ".tsv.gz")) else ",", low.endswith(".gz")


def _write(cal: Any, files: list[str], shown: str, tmp: Path, names: list[str], column: str, batch_rows: int,
           *, form: tuple[bool, str, bool], features: list[str]) -> dict[str, Any]:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from ..sources._api import _refuse_duplicates

    parquet, delimiter, gzip = form
    sink: Any = None
    writer: Any = None
    schema: Any = None
    rows = batches = 0
    new: list[str] = []
    current, before = None, 0  # the file being read, and the rows of it read before this batch
    try:
        for path, batch in _batches(files, batch_rows):
            if path != current:  # rows named in the file that holds them (a glob's second file: 1, 2, ...)
                current, before = path, 0
                # a file with two columns of one name refused in the in-memory read's words (a score
                # looked up by name would otherwise fail inside pyarrow)
                _refuse_duplicates(batch.schema.names, Path(path))
            if not new:
                require_columns([*names, *features], batch.schema.names, where=shown)
            s = _scores(batch, names, path, before)
            try:
                p = (cal.transform(s, {f: batch.column(f) for f in features}) if features
                     else cal.transform(s))
            except VeracityError as exc:
                raise _transform_error(exc, path, before, batch.num_rows, names) from None
            cols = [p] if p.ndim == 1 else [p[:, k] for k in range(p.shape[1])]
            if not new:
                new = [column] if p.ndim == 1 else [f"{column}_{k}" for k in range(p.shape[1])]
                clash = [n for n in new if n in batch.schema.names]
                if clash:
                    raise VeracityError(
                        f"column {clash[0]!r} already exists in {shown}; pass --column NAME for the output")
            out_batch = pa.RecordBatch.from_arrays([*batch.columns, *(from_numpy(np.asarray(c)) for c in cols)],
                                                   names=[*batch.schema.names, *new])
            if writer is None:
                schema = out_batch.schema
                if parquet:
                    writer = pq.ParquetWriter(str(tmp), schema)
                else:
                    sink = pa.CompressedOutputStream(str(tmp), "gzip") if gzip else str(tmp)
                    writer = pacsv.CSVWriter(sink, schema, write_options=pacsv.WriteOptions(delimiter=delimiter))
            elif out_batch.schema != schema:
                how = _schema_difference(schema, out_batch.schema)
                raise VeracityError(f"{path} differs from the first file of {shown}: {how}; apply to files "
                                    "of one schema at a time")
            writer.write_batch(out_batch)
            rows += batch.num_rows
            before += batch.num_rows
            batches += 1
    except (pa.ArrowInvalid, OSError) as exc:
        from ..io import _arrow_reason

        raise VeracityError(f"could not read {shown} as Parquet: {_arrow_reason(exc)}") from None
    finally:
        if writer is not None:
            writer.close()
        if sink is not None and not isinstance(sink, str):
            sink.close()  # the gzip stream's trailer
    if rows == 0:
        raise VeracityError(f"{shown} has no rows; nothing to apply")
    return {"rows": rows, "batches": batches, "columns": new}
