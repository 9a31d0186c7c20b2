"""Streaming scan: per-bin statistics of a CSV/Parquet file too large for memory.

The file is read in record batches as ``pyarrow.dataset`` reads it (:func:`read_batches`, with
pyarrow's Parquet and CSV readers: importing ``pyarrow.dataset`` imports pandas, half a second of
every run); each batch is validated and binned, and the per-bin statistics are merged by addition — the
same :class:`~veracity.BinStats` an in-memory audit builds, so every binned
number (table, ECE, Brier and its decomposition, NLL) is identical. Optional
grouping keeps one statistics object per key (a period, a cohort).
"""

from __future__ import annotations

import copy
import os

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._files import _PARQUET
from ..core._stats import BinStats, grouped_stats, merge_histograms, merge_into, score_histograms
from ..core._validation import VeracityError, prepare_binary
from ..core._display import Display
from ._arrow_numpy import from_numpy, to_numpy

#: rows per record batch read from the file
BATCH_ROWS = 1 << 20
#: rows per record batch when a whole table is read (``pyarrow.dataset``'s default batch size)
TABLE_BATCH_ROWS = 1 << 17
#: names that directory discovery skips at any depth (``pyarrow.dataset``'s ``selector_ignore_prefixes``)
_IGNORED_PREFIXES = (".", "_")


@dataclass(frozen=True, eq=False, repr=False)
class ScanResult(Display):
    """Merged statistics of one file: ``total`` and, when grouped, one per key.

    ``histograms`` counts every row's score per bin (pending rows included), the
    input of label-free drift measures such as the population stability index.
    """

    total: BinStats
    groups: dict[str, BinStats] = field(default_factory=dict)
    pending: dict[str, int] = field(default_factory=dict)
    rows_read: int = 0
    #: per key, the (weighted) count of ALL rows per bin — labelled or pending
    histograms: dict[str, np.ndarray] = field(default_factory=dict)


def dataset_files(path: Path) -> list[str]:
    """The files ``pyarrow.dataset.dataset(path)`` reads: ``path`` itself, or every file below a
    directory whose path below it has no part starting with ``.`` or ``_``, sorted by path text."""
    if not path.is_dir():
        return [str(path)]
    base = str(path).rstrip("/") or "/"
    found = []
    for root, dirs, names in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith(_IGNORED_PREFIXES)]
        found += [os.path.join(root, n) for n in names if not n.startswith(_IGNORED_PREFIXES)]
    return sorted(f for f in found if os.path.isfile(f))


def csv_schema(first: str, parse: Any = None, convert: Any = None) -> Any:
    """The schema ``pyarrow.dataset`` gives CSV files: the first file's, typed from its first block."""
    import pyarrow.csv as pacsv

    with naming(first, "CSV"), pacsv.open_csv(first, parse_options=parse, convert_options=convert) as reader:
        return reader.schema


def selected(schema: Any, columns: list[str] | None) -> Any:
    """``schema`` narrowed to ``columns`` (all of it for None), its metadata kept."""
    import pyarrow as pa

    if columns is None:
        return schema
    return pa.schema([schema.field(c) for c in columns], metadata=schema.metadata)


def read_batches(files: list[str], kind: str, schema: Any, columns: list[str] | None = None, *,
                 batch_rows: int = TABLE_BATCH_ROWS, parse: Any = None, convert: Any = None) -> Iterator[Any]:
    """The record batches of ``files`` in order, in ``schema``'s types (its ``columns``; all for None), as
    ``pyarrow.dataset`` yields them for that schema: a Parquet file row group by row group, a CSV file
    block by block (``parse``/``convert``: its options; the columns typed as ``schema`` says), each cut
    into batches of at most ``batch_rows`` rows (the same batches: sums over them are bit-identical);
    a column a file lacks as nulls, one of another type cast to the schema's (a safe cast, which refuses
    0.5 as int64 as the dataset does)."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    target = selected(schema, columns)
    for f in files:
        if kind == "parquet":
            with naming(f, "Parquet"):
                opened = pq.ParquetFile(f)
            with opened as parquet:
                present = set(parquet.schema_arrow.names)
                have = [n for n in target.names if n in present]
                for group in range(parquet.num_row_groups):
                    if not have:  # no column of the file is read: its rows as nulls
                        yield from _cut(_conform(None, target, parquet.metadata.row_group(group).num_rows),
                                        batch_rows)
                        continue
                    for batch in parquet.iter_batches(batch_rows, row_groups=[group], columns=have):
                        yield _conform(batch, target)
        else:
            typed = pacsv.ConvertOptions() if convert is None else copy.copy(convert)
            typed.column_types = {field.name: field.type for field in schema}
            typed.include_columns = target.names
            typed.include_missing_columns = True
            with naming(f, "CSV"), pacsv.open_csv(f, parse_options=parse, convert_options=typed) as reader:
                for batch in reader:
                    yield from _cut(batch, batch_rows)


@contextmanager
def naming(path: str, kind: str) -> Iterator[None]:
    """A file that cannot be read named in the error, in ``pyarrow.dataset``'s words (``Could not open CSV
    input source '...': Invalid: ...``; a CSV file's rows too, a Parquet file's footer)."""
    import pyarrow as pa

    try:
        yield
    except (pa.ArrowInvalid, OSError) as exc:
        status = "Invalid: " if kind == "CSV" and isinstance(exc, pa.ArrowInvalid) else ""
        raise type(exc)(f"Could not open {kind} input source '{path}': {status}{exc}") from None


def _conform(batch: Any, target: Any, rows: int = 0) -> Any:
    """``batch`` with ``target``'s columns in its types: missing ones null, others cast (safely)."""
    import pyarrow as pa

    n = rows if batch is None else batch.num_rows
    names = [] if batch is None else batch.schema.names
    cols = []
    for field in target:
        if field.name not in names:
            cols.append(pa.nulls(n, field.type))
            continue
        col = batch.column(names.index(field.name))
        cols.append(col if col.type == field.type else col.cast(field.type))
    return pa.RecordBatch.from_arrays(cols, schema=target)


def _cut(batch: Any, rows: int) -> Iterator[Any]:
    """``batch`` in slices of at most ``rows`` rows (an empty batch: none)."""
    for start in range(0, batch.num_rows, rows):
        yield batch.slice(start, rows)


def _dataset(path: str | Path) -> tuple[list[str], str, Any]:
    """``(files, format, schema)`` of a file or a directory of Parquet files, as ``pyarrow.dataset``
    opens it."""
    import pyarrow.parquet as pq

    p = Path(path)
    if not p.exists():
        raise VeracityError(f"file not found: {p}; check the path")
    fmt = "parquet" if p.name.lower().endswith(_PARQUET) or p.is_dir() else "csv"  # .parq too, as _files reads it
    files = dataset_files(p)
    if not files:  # no columns: the column check names the missing one
        import pyarrow as pa

        return files, fmt, pa.schema([])
    try:
        return files, fmt, pq.read_schema(files[0]) if fmt == "parquet" else csv_schema(files[0])
    except Exception as exc:  # pyarrow raises several types for unreadable files
        raise VeracityError(f"could not open {p} as {fmt}: {str(exc).splitlines()[0]}") from None


def _check_columns(schema: Any, names: list[str], path: str | Path) -> None:
    from ..sources._source import require_columns

    require_columns(names, schema.names, where=str(path))


def _equal_width(edges: Any) -> np.ndarray:
    """``edges`` as the float64 array of M + 1 equal-width edges ``[0, 1/M, ..., 1]`` (up to 1e-12 each:
    :func:`~veracity.core._binning.uniform_edges`), or a one-line refusal. The scan bins every row by ``floor(p·M)``, the
    equal-width rule: other edges (``[0, 0.2, 0.5, 1]``) labelled statistics binned by thirds, silently
    (68, 62 and 70 rows where the file holds 42, 55 and 103)."""
    from ..core._binning import is_uniform_edges, uniform_edges

    try:
        e = np.asarray(edges, dtype=np.float64)
    except (TypeError, ValueError):
        e = np.empty(0)
    if is_uniform_edges(e):
        return uniform_edges(e.size - 1)
    flat = [f"{v:g}" for v in e.ravel().tolist()]
    values = flat if len(flat) <= 7 else [*flat[:5], "...", flat[-1]]
    shown = f"[{', '.join(values)}]" if e.ndim == 1 and e.size else repr(edges)
    raise VeracityError(f"scan_file bins by equal widths: edges must be the M + 1 edges [0, 1/M, ..., 1] "
                        f"(M equal-width bins), got {shown}", param="edges")


def _empty_stats(edges: np.ndarray) -> BinStats:
    m = edges.size - 1
    z = np.zeros(m)
    return BinStats(edges, "uniform", np.zeros(m, np.int64), z, z, z, z, z, z, z)


def _refuse_undecodable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A file that is not UTF-8 text is refused in one line, like io.read_table does."""
    import functools

    @functools.wraps(fn)
    def wrapper(path: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(path, *args, **kwargs)
        except UnicodeDecodeError as exc:
            from ._csv_text import first_non_utf8_line, not_utf8_message

            bad = first_non_utf8_line(str(path)) if isinstance(path, (str, os.PathLike)) else None
            if bad is not None:
                raise VeracityError(not_utf8_message(str(path), *bad)) from None
            raise VeracityError(
                f"{path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} cannot be decoded); "
                "re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8") from None

    return wrapper


def _group_names(col: Any) -> np.ndarray:
    """An Arrow group column (no nulls) as the names of its slices, one :func:`~veracity.core._keys.key_name`
    per distinct value: times as ``2026-01-01 10:00:00`` (not numpy's ``2026-01-01T10:00:00.000000000``),
    a zoned one as its UTC instant, ``-0.0`` as ``0.0``, bytes as ``b'...'``."""
    import pyarrow as pa

    from ..core._keys import key_name

    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if pa.types.is_timestamp(col.type) and col.type.tz is not None:
        col = col.cast(pa.timestamp(col.type.unit, tz="UTC"))
    encoded = col.dictionary_encode()
    names = np.array([key_name(v) for v in encoded.dictionary.to_pylist()], dtype=str)
    return names[np.asarray(to_numpy(encoded.indices), dtype=np.intp)]


@_refuse_undecodable
def scan_file(
    path: str | Path,
    *,
    score: str,
    label: str,
    edges: np.ndarray,
    weight: str | None = None,
    group: str | None = None,
    mature: str | None = None,
    score_type: str = "probability",
    batch_rows: int = BATCH_ROWS,
    group_keys: Callable[[np.ndarray], np.ndarray] | None = None,
    mature_from_group: Callable[[np.ndarray], np.ndarray] | None = None,
) -> ScanResult:
    """Stream ``path`` and return the merged per-bin statistics (uniform edges only).

    ``group`` names a column whose values key one statistics object each (e.g. the
    month of the prediction). ``mature`` names a boolean column: rows where it is
    false have labels that are not final yet and are counted as pending, never as
    negatives (seed 004's label maturity). ``group_keys`` maps the raw group column
    to keys (e.g. timestamps to months) and ``mature_from_group`` derives the
    maturity flags from the raw group column (e.g. prediction time + horizon ≤ as-of).
    """
    edges = _equal_width(edges)
    files, fmt, schema = _dataset(path)
    columns = list(dict.fromkeys(c for c in (score, label, weight, group, mature) if c))
    _check_columns(schema, columns, path)
    total = _empty_stats(edges)
    groups: dict[str, BinStats] = {}
    pending: dict[str, int] = {}
    histograms: dict[str, np.ndarray] = {}
    rows = 0
    for batch in read_batches(files, fmt, schema, columns, batch_rows=batch_rows):
        if batch.num_rows == 0:
            continue
        cols = {name: batch.column(name) for name in columns}
        for name, col in cols.items():
            # labels may be missing on rows whose label is not final yet; checked below
            if col.null_count and name != label:
                raise VeracityError(
                    f"column {name!r} has missing values (after row {rows}); drop or fill them first"
                )
        raw_group = np.asarray(to_numpy(cols[group])) if group else None
        # no per-row key without a group column: the whole batch is one slice; the column's values named as
        # vc.audit(..., by=) names them, a group_keys mapping's keys as their text
        keys = None
        if raw_group is not None:
            keys = group_keys(raw_group).astype(str) if group_keys else _group_names(batch.column(group))
        flags = None
        if mature:
            flags = to_numpy(cols[mature])
            if flags.dtype != bool:
                raise VeracityError(f"column {mature!r} must be boolean (true when the label is final)")
        elif mature_from_group is not None and raw_group is not None:
            flags = mature_from_group(raw_group)
        s = to_numpy(cols[score])
        w = to_numpy(cols[weight]) if weight else None
        # every row has a score, labelled or not: the score distribution per key
        merge_histograms(histograms, score_histograms(s, keys, edges, score_type=score_type, sample_weight=w))
        rows += batch.num_rows
        labels = cols[label]
        if flags is not None:
            if keys is None:
                waiting, counts = np.array(["(all)"]), np.array([int((~flags).sum())])
            else:
                waiting, counts = np.unique(keys[~flags], return_counts=True)
            for k, c in zip(waiting, counts):
                if c:
                    pending[str(k)] = pending.get(str(k), 0) + int(c)
            labels = labels.filter(from_numpy(flags))  # (a numpy mask: pyarrow's conversion imports pandas)
            s, keys = s[flags], (None if keys is None else keys[flags])
            w = None if w is None else w[flags]
        if labels.null_count:
            raise VeracityError(
                f"column {label!r} has {labels.null_count} missing labels on rows counted as final "
                f"(after row {rows - batch.num_rows}); fill them, or mark those rows as not final"
            )
        if s.size == 0:
            continue
        data = prepare_binary(s, to_numpy(labels), sample_weight=w,
                              score_type=score_type, rescale_weights=False)
        total = total + BinStats.from_binary(data, edges, "uniform", full=True)
        if keys is not None:  # (a group column gives every row a key)
            merge_into(groups, grouped_stats(data, keys, edges))
    if rows == 0:
        raise VeracityError(f"{path} has no rows; nothing to scan")
    return ScanResult(total=total, groups=dict(sorted(groups.items())), pending=pending, rows_read=rows,
                      histograms=dict(sorted(histograms.items())))
