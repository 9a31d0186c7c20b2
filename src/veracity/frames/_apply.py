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
from collections.abc import Iterator
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
    except VeracityError as exc:
        raise VeracityError(_absolute_rows(str(exc), first_row)) from None


def _absolute_rows(message: str, first_row: int) -> str:
    """A batch's message with its row numbers counted from the file's first data row (and its row
    count, "of 300 rows", as the batch's rows: "of rows 601..900")."""
    message = re.sub(r" of (\d+) rows",
                     lambda m: f" of rows {first_row + 1}..{first_row + int(m.group(1))}", message)
    return re.sub(r"data row (\d+)", lambda m: f"data row {int(m.group(1)) + first_row}", message)


def apply_stream(cal: Any, source: str | os.PathLike[str], out: str | os.PathLike[str], *, score: str | list[str],
                 column: str = "calibrated", batch_rows: int = BATCH_ROWS) -> Applied:
    """Write every row of the Parquet ``source`` plus ``cal``'s calibrated column(s) to ``out``.

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
                            form=_form(Path(out).name)))

    try:
        target = Path(out)
        if target.exists() and not target.is_file():  # /dev/stdout, a FIFO: write through
            write(target)
        else:
            write_atomic(target, write)
    except OSError as exc:
        raise VeracityError(f"could not write {os.fspath(out)}: {exc.strerror or exc}; check the path") from None
    return Applied(state["rows"], state["batches"], tuple(state["columns"]), os.fspath(out))


def _form(name: str) -> tuple[bool, str, bool]:
    """``(parquet, delimiter, gzip)`` of an output file name, as the source layer reads the name back."""
    from .._files import _PARQUET

    low = name.lower()
    return low.endswith(_PARQUET), "\t" if low.endswith((".tsv", ".tsv.gz")) else ",", low.endswith(".gz")


def _write(cal: Any, files: list[str], shown: str, tmp: Path, names: list[str], column: str, batch_rows: int,
           *, form: tuple[bool, str, bool]) -> dict[str, Any]:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    parquet, delimiter, gzip = form
    sink: Any = None
    writer: Any = None
    schema: Any = None
    rows = batches = 0
    new: list[str] = []
    try:
        for path, batch in _batches(files, batch_rows):
            if not new:
                require_columns(names, batch.schema.names, where=shown)
            s = _scores(batch, names, path, rows)
            try:
                p = cal.transform(s)
            except VeracityError as exc:
                raise VeracityError(f"{path}, rows {rows + 1}..{rows + batch.num_rows}: {exc}") from None
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
                raise VeracityError(
                    f"{path} has other columns or types than the first file of {shown}; "
                    "apply to files of one schema at a time")
            writer.write_batch(out_batch)
            rows += batch.num_rows
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
