"""Reading scored tables from CSV and Parquet files (pyarrow)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .core._validation import VeracityError


def read_table(path: str | Path, columns: list[str] | None = None, *,
               text_columns: list[str] | None = None) -> Any:
    """A ``pyarrow.Table`` from a CSV or Parquet file (chosen by extension, then content).

    ``columns``: read only these (when all exist; otherwise every column, so that the
    error about the missing one can list what is there). ``text_columns``: CSV columns
    kept as the text written (ids such as ``000123``), never inferred as numbers.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    p = Path(path)
    if not p.exists():
        raise VeracityError(f"file not found: {_name(p)}; check the path")
    if p.is_dir():
        raise VeracityError(f"{_name(p)} is a directory; pass a CSV or Parquet file")
    if p.stat().st_size == 0:
        raise VeracityError(f"{_name(p)} is empty; it has no header and no rows")
    try:
        if p.suffix.lower() in (".parquet", ".pq"):
            schema_names = pq.read_schema(p).names
            _refuse_duplicates(schema_names, p)  # pyarrow's reader fails on them with an Arrow message
            wanted = _present(columns, schema_names)
            table = pq.read_table(p, columns=wanted)
        else:
            wanted = None
            if columns:
                with pacsv.open_csv(p) as reader:  # the header only
                    wanted = _present(columns, reader.schema.names)
            types = {c: pa.string() for c in (text_columns or [])}
            # an empty cell is a missing value in every column (as DuckDB reads it), never the text ""
            options = pacsv.ConvertOptions(include_columns=wanted or [], column_types=types,
                                           strings_can_be_null=True)
            table = _read_csv_columns(p, options) if wanted else None
            if table is None:
                table = pacsv.read_csv(p, convert_options=options)
        names = table.column_names  # decodes the header: may raise UnicodeDecodeError
    except UnicodeDecodeError as exc:
        raise VeracityError(
            f"{_name(p)} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} cannot be decoded); "
            "re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8"
        ) from None
    except (pa.ArrowInvalid, OSError) as exc:
        raise VeracityError(f"could not read {_name(p)} as CSV or Parquet: {_arrow_reason(exc)}") from None
    if p.suffix.lower() not in (".parquet", ".pq"):
        for name, field in zip(names, table.schema):
            if pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type):
                # pyarrow keeps text that is not valid UTF-8 as bytes; nothing downstream can use it
                raise VeracityError(
                    f"column {name!r} of {_name(p)} is not UTF-8 text; re-save the file as UTF-8, "
                    "e.g. iconv -f latin1 -t utf-8")
    _refuse_duplicates(names, p)
    if table.num_rows == 0:
        raise VeracityError(f"{_name(p)} has a header but no rows; nothing to audit")
    return table


def _refuse_duplicates(names: list[str], p: Path) -> None:
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise VeracityError(
            f"column {dup!r} appears {names.count(dup)} times in {_name(p)}; give every column a "
            "distinct name")


def _read_csv_columns(p: Path, options: Any) -> Any:
    """Only the wanted columns of a CSV, block by block: memory ~ those columns, not the file.

    ``pyarrow.csv.read_csv`` holds the whole file's bytes while it parses (a 42-column file
    costs 3x its two used columns); the streaming reader holds one block. It infers types
    from the first block, so a column that changes type later (ints, then floats) raises;
    then ``None`` sends the caller to the whole-file reader, which infers over every row.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        with pacsv.open_csv(p, convert_options=options,
                            read_options=pacsv.ReadOptions(block_size=1 << 20)) as reader:
            return pa.Table.from_batches(list(reader), schema=reader.schema)
    except pa.ArrowInvalid:
        return None


def read_files(pattern: str, columns: list[str] | None = None) -> Any:
    """One ``pyarrow.Table`` from a glob or a directory of CSV/Parquet files (the needed columns)."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    from ._files import expand

    files, kind = expand(pattern)
    if kind == "csv":  # the same headers, as the DuckDB engine requires (read by name here, by position there)
        from .sources._duckdb import check_same_headers

        check_same_headers(files, pattern)
    try:
        dataset = ds.dataset(files, format=kind)
        table = dataset.to_table(columns=_present(columns, dataset.schema.names))
    except (pa.ArrowInvalid, OSError) as exc:
        raise VeracityError(f"could not read {pattern} as {kind.upper()}: {_arrow_reason(exc)}") from None
    if table.num_rows == 0:
        raise VeracityError(f"{pattern} has no rows; nothing to audit")
    return table


def _present(columns: list[str] | None, names: list[str]) -> list[str] | None:
    """The columns to read: ``columns`` plus every column equal to one of them but for spaces
    (a caller may have stripped ``" p"`` to ``p``; :func:`score_matrix` picks the one written)."""
    if not columns or len(set(names)) != len(names):
        return None
    wanted = list(dict.fromkeys(columns))
    if not all(c in names for c in wanted):
        return None
    stripped = {c.strip() for c in wanted}
    return list(dict.fromkeys([*wanted, *(n for n in names if n.strip() in stripped)]))


def _name(p: Path) -> str:
    """A path for a one-line message (control characters escaped)."""
    text = str(p)
    return repr(text) if any(ord(c) < 32 for c in text) else text


def _arrow_reason(exc: BaseException) -> str:
    """First line of an Arrow error, without the row text it may quote (no file content echoed)."""
    import re

    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    first = re.sub(r"(got \d+)(?: columns?)?\s*:.*$", r"\1", first)
    first = re.sub(r"(invalid value) .*$", r"\1", first)
    return first[:200]


def column(table: Any, name: str, *, path: str | Path | None = None) -> np.ndarray:
    """One column as a numpy array; a clear error naming the available columns."""
    from .sources._source import require_columns

    require_columns([name], table.column_names, where=None if path is None else str(path))
    col = table.column(name)
    if col.null_count:
        first = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise VeracityError(
            f"column {name!r} has {col.null_count} missing (empty/NaN) values, first at data row "
            f"{first + 1}; drop or fill those rows first"
        )
    values = col.to_numpy()
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise VeracityError(
                f"column {name!r} has {int(bad.sum())} NaN/infinite values, first at data row "
                f"{first + 1} ({values[first]}); drop or fill those rows first"
            )
    return values


def score_matrix(table: Any, spec: str, *, path: str | Path | None = None) -> np.ndarray:
    """Scores from ``spec``: one column name, or comma-separated names for an (N, K) matrix.

    Names are matched as written first: a column literally named ``" p"`` or ``"a,b"`` is that
    column; otherwise the spec is split on commas, and a part is stripped of spaces only
    when the part as written is not a column (``"p0, p1"``).
    """
    present = set(table.column_names)
    if spec in present:
        names = [spec]
    else:
        names = [s if s in present else s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise VeracityError("--score needs a column name (or comma-separated names for multiclass)")
    cols = [column(table, n, path=path) for n in names]
    for n, c in zip(names, cols):
        if c.dtype.kind not in "biuf":
            raise VeracityError(
                f"column {n!r} must be numeric scores, found {c.dtype} values such as {c[0]!r}"
            )
    if len(cols) == 1:
        return cols[0]
    return np.column_stack(cols).astype(np.float64)
