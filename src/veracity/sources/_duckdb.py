"""Files through DuckDB, safely: a locked-down connection that can read only the named files.

Every path the user names (a CSV/Parquet file, a directory of Parquet files, or a
glob such as ``logs/*.parquet``) is expanded here, in Python, to a list of local
files. A fresh DuckDB connection then gets

* ``allowed_paths`` = exactly those files (plus its temp directory) and
  ``enable_external_access = false`` — no other file, no network;
* ``autoinstall_known_extensions = autoload_known_extensions = false`` — no
  extension is fetched or loaded (nothing is written under ``~/.duckdb``);
* a memory limit and a temp directory for spilling (:data:`DEFAULTS`, change with
  :func:`configure`), then ``lock_configuration = true``.

Paths reach SQL only as bound parameters, never as text. Remote URLs
(``http://``, ``s3://`` …) are refused: to audit remote data, open it with your
own DuckDB connection (with the extensions and credentials you choose) and pass
the relation — that connection is used as it is.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any

from .._files import _CSV, _PARQUET, expand, is_remote  # noqa: F401 (expanded in _files: io reads them too)
from ..core._validation import VeracityError
from ._csv_text import (NULL_TEXTS, dates_as_memory_reads_them, first_non_utf8_line, first_ragged_line,
                        not_utf8_message, numbers_as_memory_reads_them, ragged_message)
from ._parquet_files import (_case_pairs, _parquet_layouts, _union_by_exact_name,  # noqa: F401
                             durations_as_intervals, mixed_units, parquet_names)

#: Defaults of the connections veracity opens for files (see :func:`configure`).
DEFAULTS: dict[str, Any] = {"memory_limit": "1GB", "temp_directory": None, "threads": None}



def configure(*, memory_limit: str | None = None, temp_directory: str | None = None,
              threads: int | None = None) -> dict[str, Any]:
    """Set the memory limit (e.g. ``"2GB"``), spill directory and thread count of file audits."""
    if memory_limit is not None:
        DEFAULTS["memory_limit"] = str(memory_limit)
    if temp_directory is not None:
        DEFAULTS["temp_directory"] = str(temp_directory)
    if threads is not None:
        DEFAULTS["threads"] = int(threads)
    return dict(DEFAULTS)


def require_duckdb() -> Any:
    try:
        import duckdb
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise VeracityError("reading files lazily needs DuckDB: pip install 'veracity[duckdb]'") from None
    return duckdb


def connect(files: list[str]) -> Any:
    """A locked DuckDB connection that may read ``files`` and nothing else."""
    duckdb = require_duckdb()
    config: dict[str, Any] = {
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "memory_limit": DEFAULTS["memory_limit"],
    }
    if DEFAULTS["threads"]:
        config["threads"] = int(DEFAULTS["threads"])
    temp = temp_directory()
    config["temp_directory"] = temp
    con = duckdb.connect(config=config)
    try:  # zone-aware times read as their UTC instant, whatever $TZ says (periods are UTC everywhere)
        con.execute("SET TimeZone = 'UTC'")
    except duckdb.Error:  # pragma: no cover - builds without ICU have no TimeZone setting
        pass
    try:  # DuckDB 2.0 pushes CAST(bool_column AS DOUBLE) into a CSV scan, which then parses
        # "False" as a number ("Conversion Error"): every boolean label column of a CSV file
        con.execute("SET disabled_optimizers = 'type_pushdown'")
    except duckdb.Error:  # pragma: no cover - versions without that optimizer
        pass
    con.execute("SET allowed_paths = ?", [files])
    con.execute("SET allowed_directories = ?", [[temp]])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def read_parquet(con: Any, files: list[str], source: str) -> Any:
    """A lazy DuckDB relation, on the connection ``con``, over the Parquet ``files`` (named ``source``
    in errors): their columns matched by exact name, and each Arrow duration column an INTERVAL of the
    same duration (:func:`durations_as_intervals`). The file route and ``vc.audit_duckdb(path,
    connection=con)`` both read Parquet here (the latter read durations as BIGINT counts)."""
    names, same, layouts, durations = _parquet_layouts(files, source)
    # Arrow durations: DuckDB reads them as BIGINT counts of their unit (slices named 1000000 where
    # every other route says 0 days 00:00:00.001000); read as INTERVAL (durations_as_intervals), each
    # file in its own unit when the files' units differ
    whole = len(layouts) == len(files)
    if whole and ((_case_pairs(layouts) and len({tuple(n) for n in layouts}) > 1) or mixed_units(durations)):
        return _union_by_exact_name(con, files, layouts, durations)
    if mixed_units(durations):  # pragma: no cover - a file pyarrow cannot read: DuckDB cannot either
        raise VeracityError(f"the files of {source} hold a duration column in different units, "
                            "and one of them cannot be read; read the files separately")
    # files with other columns: matched by name, a column a file lacks read as missing (NULL) there,
    # so the contract names it; by default DuckDB stops with "InvalidInput" when a used one is absent
    relation = con.read_parquet(files) if same else con.read_parquet(files, union_by_name=True)
    if (names is None or len(names) != len(relation.columns)
            or len({n.lower() for n in names}) == len(names)):
        return durations_as_intervals(relation, durations)
    # DuckDB renamed a column equal to another but for case ("score" of Score, score became
    # score_1): the file's names, by position (see _source._duckdb_readable); an empty name keeps
    # DuckDB's (no lookup reaches it)
    return durations_as_intervals(relation, durations, names, rename=True)


#: where a DuckDB database file carries its magic ``DUCK`` (bytes 8..12, after a checksum; a binary
#: storage version follows)
_DATABASE_MAGIC_OFFSET = 8


def is_duckdb_database(path: str | os.PathLike, *, strict: bool = True) -> bool:
    """Whether the file ``path`` is a DuckDB database (a monitoring store), told by content: ``DUCK`` at
    bytes 8..12 and (``strict``) a NUL byte in the binary version after it, which no CSV text holds. False
    for a file that cannot be opened (its reader says why)."""
    at = _DATABASE_MAGIC_OFFSET
    try:
        with open(path, "rb") as fh:
            head = fh.read(at + 12)
    except OSError:
        return False
    return head[at:at + 4] == b"DUCK" and (not strict or b"\x00" in head[at + 4:])


def refuse_database(files: list[str], source: str) -> None:
    """A DuckDB database file (a monitoring store, ``monitor.duckdb``) among the files of scored rows
    refused as what it is: every engine read it as CSV and said "could not read monitor.duckdb as CSV or
    Parquet: CSV parse error: Empty CSV file ..." (memory) or "is not UTF-8 text (byte 0xd8 on line 1)"
    (DuckDB) (:func:`is_duckdb_database`)."""
    for f in files:
        if is_duckdb_database(f):
            shown = source if len(files) == 1 else f
            raise VeracityError(f"{shown} is a DuckDB database (a monitoring store?), not a CSV or Parquet "
                                "file of scored rows; pass the file of scored rows (a store is read by "
                                "veracity monitor and report --store, or vc.MonitorStore)")


def read(source: str | os.PathLike, con: Any = None, *, text_keys: tuple[str, ...] = ()) -> Any:
    """A lazy DuckDB relation over the file(s) named by ``source`` (nothing is read yet), on a connection of
    its own, or on the caller's ``con`` (the deprecated ``vc.audit_duckdb(..., connection=)``: read the same).
    ``text_keys``: CSV key columns read as the text written (``VARCHAR``; :func:`._csv_text.keys_as_written`
    names them), their missing-value spellings missing as in any text column."""
    files, kind = expand(source)
    refuse_database(files, os.fspath(source))
    con = connect(files) if con is None else con
    return _read(source, con, files, kind, text_keys)


def _read(source: str | os.PathLike, con: Any, files: list[str], kind: str,
          text_keys: tuple[str, ...]) -> Any:
    """:func:`read`'s relation (``files``, ``kind``: the expanded ``source``) on ``con``."""
    try:
        if kind == "parquet":
            return read_parquet(con, files, os.fspath(source))
        for f in files:  # DuckDB reads an empty file as one column "column0" (then "column 'p' not found")
            if os.path.getsize(f) == 0:
                shown = os.fspath(source) if len(files) == 1 else f
                raise VeracityError(f"{shown} is empty; it has no header and no rows")
        check_same_headers(files, os.fspath(source))  # DuckDB would read the others by position
        # the first line is the header (DuckDB's sniffer takes a header of numbers for a row)
        relation = read_csv(con, files)
        refuse_ragged(files, os.fspath(source), len(relation.columns))
        numbers = numbers_as_memory_reads_them(relation, _SNIFF_ROWS)  # " 0.3 ", "+0.3": numbers in memory too
        numbers.update(dates_as_memory_reads_them(relation, lambda d: read_csv(con, files, d), _SNIFF_ROWS))
        numbers.update(times_across_files(con, files, relation))
        numbers.update(_as_text(files, os.fspath(source), relation, text_keys))
        if numbers:
            relation = read_csv(con, files, numbers)
        names = csv_names(files, os.fspath(source), len(relation.columns))
        relation, selected = booleans_as_memory_reads_them(con, files, relation, numbers)
        if selected is None and (names is None or names == relation.columns):
            return relation
        # renamed by position (read_csv(names=...) makes DuckDB's sniffer type the columns wrongly)
        from ..core._sql_names import quote_identifier

        names = names or list(relation.columns)
        selected = selected or [quote_identifier(c) for c in relation.columns]
        return relation.project(", ".join(f"{expr} AS {quote_identifier(new)}" for expr, new in zip(selected, names)))
    except VeracityError:
        raise
    except Exception as exc:
        raise VeracityError(describe_error(exc, os.fspath(source), kind)) from None


def _as_text(files: list[str], source: str, relation: Any, keys: tuple[str, ...]) -> dict[str, str]:
    """``{column: "VARCHAR"}`` for the key columns ``keys`` (the file's names, matched by their position
    in the header: DuckDB may have trimmed or renamed them) of the CSV ``relation``."""
    if not keys:
        return {}
    names = csv_names(files, source, len(relation.columns)) or list(relation.columns)
    return {relation.columns[i]: "VARCHAR" for i, name in enumerate(names) if name in keys}


#: the texts the memory engine (pyarrow's CSV reader) reads as booleans; DuckDB's sniffer also
#: takes yes/no, y/n and t/f, which pyarrow keeps as text (two-valued text labels then need pos_label)
BOOLEAN_TEXTS = {True: ("true", "True", "TRUE", "1"), False: ("false", "False", "FALSE", "0")}
#: rows DuckDB's sniffer samples (its ``sample_size``): a boolean column's spelling is read there
_SNIFF_ROWS = 20480
#: a DuckDB ``error()`` of a query veracity wrote starts with this; :func:`describe_error` shows the rest
ERROR_MARK = "veracity: "


def read_csv(con: Any, files: list[str], dtype: dict[str, str] | None = None) -> Any:
    """DuckDB's relation over CSV ``files`` (header first), the texts pyarrow reads as missing
    (:data:`._csv_text.NULL_TEXTS`: ``NA``, ``null``, ``nan`` …) read as missing, as ``--engine memory``
    reads them; quoted as pyarrow quotes (``"``, doubled inside: the sniffer would take ``'a b'`` as
    quoted or a backslash as an escape, and name a slice ``a b`` that memory names ``'a b'``); ``dtype``
    overrides the sniffed type of some columns."""
    return con.read_csv(files, header=True, na_values=list(NULL_TEXTS), quotechar='"', escapechar='"',
                        **({"dtype": dtype} if dtype else {}))


def times_across_files(con: Any, files: list[str], relation: Any) -> dict[str, str]:
    """``{column: "TIMESTAMP"}`` for the text columns of a glob's ``relation`` that hold dates in some
    files and times (without a UTC offset) in others: DuckDB's sniffer types such a column VARCHAR
    across the files ("is String; cast it first" where a time is needed), while the memory and Dask
    engines read its cells as those times. Each file is sniffed alone (DuckDB's sample of its first
    rows, no pass over the data), from the first, only while some text column is still DATE or
    TIMESTAMP in every file sniffed; a column with a UTC offset in some file stays text (refused as a
    mix of times with and without an offset on every engine)."""
    if len(files) < 2:
        return {}
    kinds: dict[int, set[str]] = {i: set() for i, t in enumerate(relation.types) if str(t) == "VARCHAR"}
    for f in files:
        if not kinds:
            return {}
        types = read_csv(con, [f]).types
        for i in list(kinds):
            kinds[i].add(str(types[i]))
            if not kinds[i] <= {"DATE", "TIMESTAMP"}:
                del kinds[i]
    return {relation.columns[i]: "TIMESTAMP" for i, kind in kinds.items() if kind == {"DATE", "TIMESTAMP"}}


def refuse_ragged(files: list[str], source: str, count: int) -> None:
    """A CSV row with more or fewer fields than the header, refused with its line, as in memory.

    DuckDB's sniffer, meeting such a row in its sample, reads the file as one column (``p,y``; then
    "column 'p' not found"): when its ``count`` of columns is not the header's (split by the
    delimiter ``--engine memory`` uses), the first such row is looked for (a ragged row further
    down stops the scan: :func:`describe_error`)."""
    from pathlib import Path

    from ._api import _delimiter

    delimiter = _delimiter(Path(files[0]))
    header = csv_header(files[0], delimiter)
    if header is None or len(header) == count:
        return
    for f in files:
        ragged = first_ragged_line(f, delimiter)
        if ragged is not None:
            raise VeracityError(ragged_message(source, *ragged, file=f))


def booleans_as_memory_reads_them(con: Any, files: list[str], relation: Any,
                                  dtype: dict[str, str] | None = None) -> tuple[Any, list[str] | None]:
    """CSV columns DuckDB sniffed as BOOLEAN, read as the memory engine reads them.

    Returns the relation (those columns re-read as text) and one SQL expression per column,
    or ``(relation, None)`` when no column is BOOLEAN. A column whose sniffed rows spell only
    :data:`BOOLEAN_TEXTS` stays boolean, through a ``CASE`` that maps those texts and stops the
    query in one line at any other text further down the file (DuckDB would read ``yes`` as
    true there, silently); any other column (``yes``/``no``, ``t``/``f``) stays text, as in
    memory, so a label column of them asks for ``pos_label`` on both engines. A column DuckDB
    sniffed as VARCHAR because it mixes the spellings (``1``/``0`` with ``true``/``false``), which
    the memory engine reads as booleans, is read as booleans through the same ``CASE``. A BIGINT
    column is read as text and cast back (:func:`_whole_numbers`: a fraction further down stops the
    query instead of being rounded), so the returned expressions may be there without booleans. ``dtype``:
    the types the relation was read with (kept when the file is read again).
    """
    from ..core._sql_names import quote_identifier

    flagged = [c for c, t in zip(relation.columns, relation.types) if str(t) == "BOOLEAN"]
    text = [c for c, t in zip(relation.columns, relation.types) if str(t) == "VARCHAR"]
    if text:  # one boolean per text column: do its sniffed rows spell only BOOLEAN_TEXTS?
        every = _in_list(BOOLEAN_TEXTS[True] + BOOLEAN_TEXTS[False])
        spelled_only = relation.limit(_SNIFF_ROWS).aggregate(
            ", ".join(f"bool_and({quote_identifier(c)} IN {every})" for c in text)).fetchall()[0]
        flagged += [c for c, only in zip(text, spelled_only) if only]
    whole = [c for c, t in zip(relation.columns, relation.types) if str(t) == "BIGINT"]
    if not flagged and not whole:
        return relation, None
    texts = read_csv(con, files, {**(dtype or {}), **{c: "VARCHAR" for c in flagged + whole}})
    seen = texts.limit(_SNIFF_ROWS).aggregate(
        ", ".join(f"list(DISTINCT {quote_identifier(c)})" for c in flagged)).fetchall()[0] if flagged else ()
    spelled = set(BOOLEAN_TEXTS[True] + BOOLEAN_TEXTS[False])
    selected = []
    for column in texts.columns:
        name = quote_identifier(column)
        if column in whole:
            selected.append(_whole_numbers(column))
        elif column in flagged and set(seen[flagged.index(column)]) - {None} <= spelled:  # (empty cells: NULL)
            shown = column.replace("'", "''")
            stop = (f"error('{ERROR_MARK}column ''{shown}'' holds true/false values and also ''' || "
                    f"left({name}, 40) || '''; write all its values as true/false (or 1/0), or all as text "
                    "and name the positive class with pos_label')")
            selected.append(f"CASE WHEN {name} IN {_in_list(BOOLEAN_TEXTS[True])} THEN TRUE "
                            f"WHEN {name} IN {_in_list(BOOLEAN_TEXTS[False])} THEN FALSE "
                            f"WHEN {name} IS NULL THEN NULL ELSE {stop} END")
        else:
            selected.append(name)
    return texts, selected


def _whole_numbers(column: str) -> str:
    """A CSV column DuckDB's sniffer typed BIGINT (read as text) as BIGINT, stopping the query in one
    line at a value that is not a whole number further down: DuckDB's reader rounds it (``0.5`` to 1,
    ``0.3`` to 0: hard 0/1 scores followed by probabilities gave a silently wrong audit), where
    ``--engine memory`` reads the whole column as numbers."""
    from ..core._sql_names import quote_identifier

    name = quote_identifier(column)
    shown = column.replace("'", "''")
    stop = (f"error('{ERROR_MARK}column ''{shown}'' holds whole numbers in its first {_SNIFF_ROWS} rows and "
            f"then ''' || left({name}, 40) || ''', which DuckDB would round; write the column''s values with a "
            "decimal point (1.0), or read the file into memory (--engine memory)')")
    text = (f"error('{ERROR_MARK}column ''{shown}'' holds whole numbers in its first {_SNIFF_ROWS} rows and "
            f"then ''' || left({name}, 40) || ''', which is not a number; fix that value, or read the file into "
            "memory (--engine memory), which reads the column as text')")
    return (f"CASE WHEN strpos({name}, '.') + strpos({name}, 'e') + strpos({name}, 'E') = 0 "
            f"AND TRY_CAST({name} AS BIGINT) IS NOT NULL THEN CAST({name} AS BIGINT) "
            f"WHEN {name} IS NULL THEN NULL "
            f"WHEN TRY_CAST({name} AS DOUBLE) IS NULL OR contains({name}, '_') THEN {text} ELSE {stop} END")


def _in_list(texts: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{t}'" for t in texts) + ")"


#: delimiters DuckDB's sniffer tries, in its order
_DELIMITERS = (",", "|", ";", "\t")


def csv_header(path: str, delimiter: str = ",") -> list[str] | None:
    """The first record of a CSV file as written (None when it cannot be read as UTF-8 text)."""
    import csv

    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            return next(csv.reader(fh, delimiter=delimiter), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None


def _shown_header(header: list[str]) -> str:
    from ._source import column_name

    shown = ", ".join(column_name(c) for c in header[:12])
    return shown + (f", ... ({len(header)} columns)" if len(header) > 12 else "")


def check_same_headers(files: list[str], source: str) -> None:
    """Every CSV file in ``files`` has the first one's header, else one line naming two files
    and their headers (a reader takes the columns of the others by position, or fills nulls)."""
    first = csv_header(files[0])
    for other in files[1:]:
        header = csv_header(other)
        if header is not None and first is not None and header != first:
            raise VeracityError(
                f"{files[0]} and {other} (both in {source}) have different headers: "
                f"{_shown_header(first)} vs {_shown_header(header)}; give every file the same columns in the "
                "same order, or read them separately")


def csv_names(files: list[str], source: str, count: int) -> list[str] | None:
    """The column names of a CSV as written (None: keep DuckDB's).

    DuckDB trims the spaces around header names and renames clashes (``"p "`` becomes
    ``p`` and a real ``p`` then ``p_1``), so a name could reach another column. The
    header is read here with the delimiter that gives DuckDB's ``count`` of columns (None when
    none does: DuckDB's own names are kept); an exact duplicate is refused, an empty name
    becomes ``column<i>`` (``column<i>_`` where that is taken) — a name no lookup of the written
    one can reach. Names equal but for case are kept as written: the frame reads them by
    position (see :func:`._source._duckdb_readable`), as pandas and ``--engine memory`` do.
    """
    for delimiter in _DELIMITERS:
        header = csv_header(files[0], delimiter)
        if header is not None and len(header) == count:
            break
    else:
        return None
    from ._source import _refuse_duplicates

    _refuse_duplicates(header, files[0] if len(files) > 1 else source)  # one file: named as memory names it
    taken = set(header)
    names = []
    for i, h in enumerate(header):
        name = h
        if not h.strip():
            name = f"column{i}"
            while name in taken:
                name += "_"
            taken.add(name)
        names.append(name)
    return names


def describe_error(exc: BaseException, source: str, kind: str | None = None) -> str:
    """One line about a read failure that never repeats the file's content."""
    if type(exc).__name__ == "OutOfMemoryException":
        return (
            f"DuckDB ran out of its memory limit ({DEFAULTS['memory_limit']}) on {source}; raise it with "
            "vc.configure_duckdb(memory_limit='4GB') or give it a larger temp_directory to spill to"
        )
    if kind is None:
        low = source.lower()
        # a directory is read as its .parquet files (see _files.expand)
        kind = ("parquet" if low.endswith(_PARQUET) or os.path.isdir(source) else "csv" if low.endswith(_CSV)
                else "file")
    text = str(exc)
    if ERROR_MARK in text:  # a check veracity wrote into the query: its own line (Spark's raise_error adds
        said = text.split(ERROR_MARK, 1)[1].splitlines()[0]  # " SQLSTATE: P0001" to it)
        return f"{re.sub(r' SQLSTATE: [0-9A-Z]+$', '', said)} (in {source})"
    ragged = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
    line_at = re.search(r"CSV Error on Line: (\d+)", text)
    if kind == "csv" and (ragged or "Invalid unicode" in text):  # not UTF-8 first, as the memory engine says
        file = re.search(r"^\s*file = (.+)$", text, re.MULTILINE)
        bad = _first_non_utf8(source, file.group(1).strip() if file else None)
        if bad is not None:
            return not_utf8_message(source, *bad[1:], file=bad[0])
    if ragged and line_at:  # a row with more or fewer fields than the header: its line, as in memory
        file = re.search(r"^\s*file = (.+)$", text, re.MULTILINE)
        return ragged_message(source, int(line_at.group(1)), int(ragged.group(2)), int(ragged.group(1)),
                              file=file.group(1).strip() if file else None)
    converting = re.search(r'Error when converting column "(.+?)"\. Could not convert string "(.*?)" to \'(\w+)\'',
                           text)
    if converting and line_at:  # text below the rows DuckDB's sniffer typed a column by
        column, value, kind_of = converting.groups()
        return (f"could not read {source} as CSV: column {column!r} holds {value[:40]!r} at line {line_at.group(1)}, "
                f"where the rows above read as {kind_of}; fix or remove that row")
    sniffed = re.search(r'Error when sniffing file "(.+?)"', text)
    # pandas' readers (Dask's: the line counts within its block) and Spark's FAILFAST mode
    fields = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)|Expected \d+ columns, got \d+|"
                       r"MALFORMED_CSV_RECORD|Malformed CSV record", text)
    spark_file = re.search(r"while reading file (?:file:)?(/[^\s]+?)\.?\s", text)
    if kind == "csv" and (sniffed or fields):  # the first ragged row of the files
        found = _first_ragged(source, sniffed.group(1) if sniffed else spark_file.group(1) if spark_file else None)
        if found is not None:
            return ragged_message(source, *found[1:], file=found[0])
    if "Mismatched dtypes found" in text:  # Dask typed a column from its first block's rows
        return dask_types_message(source, text)
    line = re.search(r"[Ll]ine:?\s*(\d+)", text)
    where = f" (near line {line.group(1)})" if line else ""
    what = type(exc).__name__.replace("Exception", " error").strip()
    engine = {"duckdb": "DuckDB", "pyspark": "Spark", "py4j": "Spark", "dask": "Dask", "pyarrow": "Arrow",
              "pandas": "pandas"}.get(type(exc).__module__.split(".")[0].lstrip("_"), "the engine")
    return (f"could not read {source} as {kind.upper()}{where}: {engine} {what}; "
            f"check that it is a valid {'CSV or Parquet' if kind == 'file' else kind} file")


def dask_types_message(source: str, text: str) -> str:
    """Dask's "Mismatched dtypes found in pd.read_csv" (a column typed from the rows of the file's first
    block, and other rows further down that do not fit: a decimal point or a missing value in a column of
    whole numbers, text in a column of numbers) in one line naming the column and both types."""
    rows = [m for m in re.findall(r"^\|\s*(.+?)\s*\|\s*(\S+)\s*\|\s*(\S+)\s*\|\s*$", text, re.MULTILINE)
            if m[0] != "Column"]
    if not rows:
        return f"could not read {source} as CSV: Dask typed a column from its first rows and later rows do not fit"
    column, found, expected = rows[0]
    if expected.lower() == "uint64" and found.lower().startswith("float"):  # beyond int64: pandas' reader
        return (f"could not read {source} as CSV: column {column!r} holds whole numbers beyond the int64 range, "
                f"which Dask's reader types as {expected} in its sample and as {found} when it reads the rows (a "
                "double cannot tell such numbers apart); map them to small codes (0/1 for labels), or read the "
                "file with --engine duckdb")
    return (f"could not read {source} as CSV: column {column!r} reads as {expected} in the rows Dask samples and as "
            f"{found} further down (a decimal point, a missing value or text there); write the column's values "
            "alike throughout (1.0 for whole numbers), or read the file with --engine memory or --engine duckdb")


def _first_non_utf8(source: str, file: str | None) -> tuple[str, int, int] | None:
    """``(file, line, byte)`` of the first byte that is not UTF-8 in ``file`` (else in the files
    ``source`` names), or None."""
    try:
        files = [file] if file is not None and os.path.isfile(file) else expand(source)[0]
    except VeracityError:
        return None
    for f in files:
        found = first_non_utf8_line(f)
        if found is not None:
            return (f, *found)
    return None


def _first_ragged(source: str, file: str | None) -> tuple[str, int, int, int] | None:
    """``(file, line, fields, expected)`` of the first ragged row of ``file`` (else of the files ``source``
    names), or None."""
    from pathlib import Path

    from ._api import _delimiter

    try:
        files = [file] if file is not None and os.path.isfile(file) else expand(source)[0]
    except VeracityError:
        return None
    for f in files:
        found = first_ragged_line(f, _delimiter(Path(f)))
        if found is not None:
            return (f, *found)
    return None


def is_duckdb_error(exc: BaseException) -> bool:
    return type(exc).__module__.split(".")[0].lstrip("_") == "duckdb"


def memory_limit(relation: Any) -> int:
    """The memory limit (bytes) of the connection behind ``relation``."""
    try:
        limit = relation.query("_v", "SELECT current_setting('memory_limit')").fetchall()[0][0]
    except Exception:  # pragma: no cover - an engine without the setting
        limit = DEFAULTS["memory_limit"]
    return parse_bytes(str(limit))


def rows_per_range(relation: Any) -> int:
    """Rows one score range of the exact AUC may hold (see :mod:`._duckdb_auc`)."""
    from ._duckdb_auc import rows_per_range as per_range

    return per_range(memory_limit(relation))


def temp_directory() -> str:
    """Where veracity's DuckDB work spills: :func:`configure`'s ``temp_directory``, else the system's."""
    return DEFAULTS["temp_directory"] or os.path.join(tempfile.gettempdir(), "veracity-duckdb")


def parse_bytes(text: str) -> int:
    """``"1GB"``, ``"244.1 MiB"`` … as bytes."""
    m = re.match(r"^\s*([\d.]+)\s*([KMGT]?i?B)?\s*$", text, re.IGNORECASE)
    if not m:
        return 1 << 30
    unit = (m.group(2) or "B").upper()
    scale = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
             "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}.get(unit, 1)
    return int(float(m.group(1)) * scale)
