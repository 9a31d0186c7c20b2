"""CSV text read alike by every engine: missing-value spellings, padded numbers, ragged rows.

The memory engine reads CSV files with pyarrow; the DuckDB engine with DuckDB's sniffer. Left
alone they read the same file differently:

* pyarrow reads ``NA``, ``null``, ``N/A``, ``nan`` … (:data:`NULL_TEXTS`, pyarrow's own list)
  as missing; DuckDB reads them as text, so a score column with one ``NA`` was refused as
  "must be numeric" on DuckDB and as "1 missing value" in memory;
* pyarrow reads ``"0.3 "``, ``" 0.3 "`` and ``"+0.3"`` as numbers; DuckDB's sniffer types a
  column holding one of them as text (``VARCHAR``): :func:`numbers_as_memory_reads_them`
  names those columns and the type pyarrow gives them (``BIGINT`` when every value is an
  integer, else ``DOUBLE``), and the caller re-reads them so;
* DuckDB's sniffer reads ``01/02/2024`` as a date, day first (1 February), and ``02.01.2024`` too;
  pyarrow reads only ISO 8601 (``2024-01-02``, ``2024-01-02T10:00:00+02:00``) and keeps the rest as
  the text written: :func:`dates_as_memory_reads_them` names the date/time columns whose sniffed
  rows are not all ISO, which the caller reads as text (a slice by them is named as written);
* a row with more or fewer fields than the header: :func:`ragged_message` says which line
  (1-based, as an editor numbers it, the header being line 1) and how many fields it has,
  the same on both engines (:func:`first_ragged_line` finds it with pyarrow's parser);
* a file that is not UTF-8: DuckDB said "InvalidInput error", pyarrow (when a row was also ragged)
  named the ragged row; both now say :func:`not_utf8_message` (:func:`first_non_utf8_line`).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from typing import Any

#: the cell texts pyarrow's CSV reader takes as missing (its default ``null_values``)
NULL_TEXTS: tuple[str, ...] = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                               "1.#IND", "1.#QNAN", "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null")


def numbers_as_memory_reads_them(relation: Any, sniff_rows: int) -> dict[str, str]:
    """``{column: "BIGINT" | "DOUBLE"}`` for the text (``VARCHAR``) columns of a CSV relation whose
    first ``sniff_rows`` rows hold only numbers as pyarrow parses them (spaces around the digits, a
    leading ``+``, leading zeros) and at least one value.

    A value is a number when DuckDB's ``TRY_CAST(v AS DOUBLE)`` reads it and it has no ``_``
    (DuckDB reads ``1_000`` as 1000, pyarrow as text); the column is ``BIGINT`` when every value
    is ``[spaces][-]digits[spaces]`` within BIGINT's range (pyarrow's int64), else ``DOUBLE``."""
    from ..core._sql_names import quote_identifier

    text = [c for c, t in zip(relation.columns, relation.types) if str(t) == "VARCHAR"]
    if not text:
        return {}
    parts = []
    for c in text:
        v = quote_identifier(c)
        parts.append(f"count({v})")
        parts.append(f"coalesce(bool_and({v} IS NULL OR (TRY_CAST({v} AS DOUBLE) IS NOT NULL "
                     f"AND NOT contains({v}, '_'))), FALSE)")
        parts.append(f"coalesce(bool_and({v} IS NULL OR (regexp_full_match({v}, '[ \\t]*-?[0-9]+[ \\t]*') "
                     f"AND TRY_CAST({v} AS BIGINT) IS NOT NULL)), FALSE)")
    row = relation.limit(sniff_rows).aggregate(", ".join(parts)).fetchall()[0]
    found = {}
    for i, c in enumerate(text):
        present, numbers, integers = row[3 * i: 3 * i + 3]
        if present and numbers:
            found[c] = "BIGINT" if integers else "DOUBLE"
    return found


#: the date/time texts pyarrow's CSV reader infers (ISO 8601; a time of day alone: ``hh:mm[:ss]``)
_ISO = (r"[ \t]*([0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}(:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?)?"
        r"(Z|[+-][0-9]{2}(:?[0-9]{2})?)?)?|[0-9]{2}:[0-9]{2}(:[0-9]{2})?)[ \t]*")
_TEMPORAL = ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE")


def dates_as_memory_reads_them(relation: Any, texts: Any, sniff_rows: int) -> dict[str, str]:
    """``{column: "VARCHAR"}`` for the date/time columns DuckDB sniffed in ``relation`` whose first
    ``sniff_rows`` rows (as text, from ``texts``: a callable giving the relation with those columns
    read as VARCHAR) are not all ISO 8601 (:data:`_ISO`), the only dates pyarrow infers."""
    from ..core._sql_names import quote_identifier

    temporal = [c for c, t in zip(relation.columns, relation.types) if str(t) in _TEMPORAL]
    if not temporal:
        return {}
    raw = texts({c: "VARCHAR" for c in temporal})
    iso = raw.limit(sniff_rows).aggregate(", ".join(
        f"coalesce(bool_and({quote_identifier(c)} IS NULL OR regexp_full_match({quote_identifier(c)}, '{_ISO}')), TRUE)"
        for c in temporal)).fetchall()[0]
    return {c: "VARCHAR" for c, ok in zip(temporal, iso) if not ok}


def ragged_message(source: str, line: int, found: int, expected: int, file: str | None = None) -> str:
    """The one line for a CSV row whose field count is not the header's (``line``: 1-based, header = 1)."""
    where = source if file is None or os.path.abspath(file) == os.path.abspath(source) else f"{file} (in {source})"
    return (f"could not read {where} as CSV: line {line} has {found} field{'s' if found != 1 else ''} where the "
            f"header has {expected}; fix or remove that line (a value holding the delimiter must be in double quotes)")


def first_non_utf8_line(path: str, chunk: int = 1 << 22) -> tuple[int, int] | None:
    """``(line, byte)`` of the first byte of ``path`` that is not UTF-8 (``line`` 1-based), or None.

    Read in chunks with an incremental decoder (a character cut by a chunk's end is carried over)."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    lines = 1
    try:
        with open(path, "rb") as handle:
            while True:
                block = handle.read(chunk)
                data = decoder.getstate()[0] + block  # what the decoder sees: a cut character carried over
                try:
                    decoder.decode(block, final=not block)
                except UnicodeDecodeError as exc:
                    return lines + data.count(b"\n", 0, exc.start), data[exc.start]
                if not block:
                    return None
                lines += block.count(b"\n")
    except OSError:
        return None


def not_utf8_message(source: str, line: int, byte: int, file: str | None = None) -> str:
    """The one line for a CSV file that is not UTF-8 text."""
    where = source if file is None or os.path.abspath(file) == os.path.abspath(source) else f"{file} (in {source})"
    return (f"{where} is not UTF-8 text (byte 0x{byte:02x} on line {line}); re-save it as UTF-8, "
            "e.g. iconv -f latin1 -t utf-8")


def text_blocks(files: list[str], column: str) -> Iterator[Any]:
    """``column`` of the CSV ``files``, in order, as Arrow string arrays a block at a time: the text as
    the memory engine's reader sees it (the file's delimiter, nothing converted). Each file is read to
    its end (a streaming reader closed early may deadlock, see :func:`first_ragged_line`)."""
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.csv as pacsv

    from ._api import _delimiter

    for f in files:
        convert = pacsv.ConvertOptions(include_columns=[column], column_types={column: pa.string()})
        reader = pacsv.open_csv(f, parse_options=pacsv.ParseOptions(delimiter=_delimiter(Path(f))),
                                convert_options=convert)
        for batch in reader:
            yield batch.column(0)


#: a column name no CSV header holds (a NUL byte): read as all-missing, so a parse keeps no values
_NO_COLUMN = "\x00veracity: no column"


def first_ragged_line(path: str, delimiter: str) -> tuple[int, int, int] | None:
    """``(line, fields found, fields expected)`` of the first row of ``path`` whose field count is not
    the header's, or None (pyarrow's parser; one pass, no value converted)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    found: list[tuple[int, int, int]] = []

    def handler(row: Any) -> str:
        if not found and row.number is not None:
            found.append((int(row.number), int(row.actual_columns), int(row.expected_columns)))
        return "skip"

    # latin-1 decodes every byte (and keeps each line and delimiter where it was): pyarrow decodes a
    # bad row's text before it calls the handler, and a file that is not UTF-8 would raise in there.
    # The whole-file reader, serial (use_threads=False), calls the handler on this thread; the streaming
    # reader called it (and dropped its last reference to it) on its read-ahead thread, which then needed
    # the GIL: a deadlock when a reader was closed early, and, under load, an abort at exit ("terminate
    # called without an active exception") when that thread ran on as the interpreter finalised.
    # Only a column that is not in the file is kept (all null, no memory): the parser still checks
    # every row's field count.
    read = pacsv.ReadOptions(use_threads=False, block_size=1 << 20, encoding="latin-1")
    convert = pacsv.ConvertOptions(include_columns=[_NO_COLUMN], include_missing_columns=True)
    try:
        pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter=delimiter, invalid_row_handler=handler),
                       read_options=read, convert_options=convert)
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError):
        pass  # not readable as CSV at all: the caller's own message
    if not found:
        return None
    row, got, expected = found[0]
    return _line_of_row(path, row, delimiter), got, expected


def _opened_text(path: str) -> Any:
    """``path`` as latin-1 text (every byte one character; gzip read through), lines kept as written."""
    import gzip

    if path.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="latin-1", newline="")
    return open(path, encoding="latin-1", newline="")


def _line_of_row(path: str, row: int, delimiter: str) -> int:
    """The editor's line (1-based) on which pyarrow's row ``row`` starts (its rows: the header is 1, an empty
    line is no row, a quoted value may span lines). The same number when the file has no empty line and no
    quote (one scan of the bytes); else counted with the csv module up to that row (an error path only)."""
    blank_or_quote = ("\n\n", "\r\r", "\r\n\r\n", '"')
    try:
        with _opened_text(path) as handle:
            carry = "\n"  # the file's start: an empty first line is an empty line
            while True:
                block = handle.read(1 << 22)
                if not block:
                    return row
                text = carry + block
                if any(mark in text for mark in blank_or_quote):
                    break
                carry = text[-3:]
        with _opened_text(path) as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            rows, previous = 0, 0
            for fields in reader:  # only on a file with an empty line or a quote, up to the ragged row
                if fields:  # pyarrow skips an empty line; csv gives []
                    rows += 1
                    if rows == row:
                        return previous + 1
                previous = reader.line_num
    except (OSError, csv.Error, EOFError):
        pass
    return row
