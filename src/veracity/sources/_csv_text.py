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
  named the ragged row; both now say :func:`not_utf8_message` (:func:`first_non_utf8_line`);
* key columns (``by=``, ``--by``, segment ``features=`` / ``--features``): every engine read them as numbers,
  so versions ``1.1`` and ``1.10`` were one slice ``1.1`` and zip codes ``02134`` and ``2134`` one slice
  ``2134`` (a file of only ``02134`` named it ``2134``), silently. A key column whose numbers lose what the
  file tells apart (two texts that are one number, or a leading zero) is read as the text written, the whole
  column, on every engine (:func:`keys_as_written`, one pyarrow pass over the key columns: memory in the
  command line, DuckDB and Dask for a path the frame form opens); a column of plain numbers (``1``, ``2``,
  ``10``; ``0.5``) stays numbers (keys sorted as numbers, features binned). Not covered: a table the caller
  read (``vc.io.read_table``, ``pd.read_csv``: its own types), Spark, remote files, ``fit --features``
  (``veracity apply`` reads a segment calibrator's features as the file's numbers), and a column whose
  every number is written one way only (``1.9`` and ``1.10`` alone: the doubles 1.9 and 1.1, named so).
  Missing values in a key column: the :data:`NULL_TEXTS` spellings are missing there as in any column (a
  region ``NA``, North America or Namibia, is the ``(missing)`` slice, not a key ``NA``), so that a path
  and the table ``vc.io.read_path`` reads of it slice alike (tests/hardening/test_hostile_sources_r12.py and
  tests/sources/test_engines_na_r34.py pin that agreement); name such a region otherwise (``N.A.``), or read
  the file yourself with ``NA`` as text (``pd.read_csv(path, keep_default_na=False, na_values=[""])``).
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


# ---------------------------------------------------------------------------------------
# key columns (by=, features=) read as the text written where numbers would lose it
# ---------------------------------------------------------------------------------------
#: a number's text with a leading zero before another digit (``007``, ``02134``, ``-01.5``): the number
#: does not print back as written, so a key named by it (``2134``, ``7``) is not the key in the file
_LEADING_ZERO = r"^[+-]?0[0-9]"


def keys_as_written(files: list[str], columns: list[str], *, keep: bool = False) -> dict[str, Any]:
    """The key columns (``by=``, segment features) among ``columns`` (each read as numbers by the engine)
    of the CSV ``files`` that are to be read as the text written, each with its cells' text when ``keep``
    (a ``pyarrow.ChunkedArray`` of strings, the missing-value spellings :data:`NULL_TEXTS` missing as in
    any text column), else None.

    Such a column is text when its numbers lose what the file tells apart: two texts that are one
    number (``1.1`` and ``1.10``, ``02134`` and ``2134``, ``1`` and ``1.0``: one slice where the file has
    two), or a leading zero (``02134``, ``007``: a key named ``2134``, ``7``). A column of plain numbers
    (``1``, ``2``, ``10``; ``0.5``) stays numbers: numeric keys sort as numbers, segment features are
    binned. Two texts are one number when they are one integer (a column of whole numbers: a sign ``+`` and
    leading zeros aside, exact at any size) or else one double (``float64`` of the trimmed text); a
    negative zero (``-0``, ``-0.0``) is zero, as every route names it. The cells as the memory engine's
    reader sees them (pyarrow, each file's delimiter), one pass over those columns for every engine, so
    that all decide alike."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = list(dict.fromkeys(columns))
    if not columns or not files:
        return {}
    spelled = pa.array(NULL_TEXTS)
    zero = dict.fromkeys(columns, False)
    numbers: dict[str, list[Any]] = {c: [] for c in columns}
    texts: dict[str, list[Any]] = {c: [] for c in columns}
    for block in _text_columns(files, columns):
        for c in columns:
            cells = block.column(c)
            distinct = pc.unique(cells)  # (a key column holds few distinct texts: the work is on them)
            # a column the engine reads as numbers: each cell a number or a missing-value spelling
            present = pc.filter(distinct, pc.invert(pc.is_in(distinct, value_set=spelled)))
            digits = pc.unique(pc.utf8_trim(present, characters=" \t"))
            digits = pc.filter(digits, pc.not_equal(digits, ""))
            zero[c] = zero[c] or bool(pc.any(pc.match_substring_regex(digits, _LEADING_ZERO)).as_py())
            numbers[c].append(digits)
            if len(numbers[c]) >= 64:  # the distinct texts so far, merged now and then (memory ~ distinct)
                numbers[c] = [pc.unique(pa.chunked_array(numbers[c], type=pa.string()).combine_chunks())]
            if keep:
                texts[c].append(cells)
    found: dict[str, Any] = {}
    for c in columns:
        distinct = pc.unique(pa.chunked_array(numbers[c], type=pa.string()).combine_chunks())
        if len(distinct) and (zero[c] or _one_number(distinct)):  # (a leading zero: no need to compare)
            cells = pa.chunked_array(texts[c], type=pa.string()) if keep else None
            missing = pa.scalar(None, pa.string())
            found[c] = None if cells is None else pc.if_else(pc.is_in(cells, value_set=pa.array(NULL_TEXTS)),
                                                             missing, cells)
    return found


def _one_number(texts: Any) -> bool:
    """Whether two of the distinct, trimmed number ``texts`` (a pyarrow string array, none with a leading
    zero) are one number: one integer when every text is a whole number (a sign ``+`` dropped: exact at
    any size, as the readers read such a column exactly), else one double. A negative zero is zero's
    text (``-0.0`` and ``0.0``: the one key ``0.0`` on every route, tests/hardening/test_slice_names_r15.py).
    Texts that are not numbers as pyarrow casts them (an engine's own spelling): False, the column as read."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pc.all(pc.utf8_is_digit(pc.utf8_ltrim(texts, characters="+-"))).as_py():
        values = pc.utf8_ltrim(texts, characters="+")
        zero = pc.equal(values, "-0")
        values = pc.if_else(zero, pa.scalar("0"), values)
    else:
        try:
            values = pc.cast(texts, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return False
        zero = pc.equal(values, 0.0)
        values = pc.if_else(zero, pa.scalar(0.0), values)  # -0.0 and 0.0: one number
    unsigned = pc.if_else(zero, pc.utf8_ltrim(texts, characters="-"), texts)  # and one text
    return len(pc.unique(values)) < len(pc.unique(unsigned))


def _text_columns(files: list[str], columns: list[str]) -> Iterator[Any]:
    """The ``columns`` of the CSV ``files``, in order, a record batch at a time, each cell as the text
    the memory engine's reader sees (the file's delimiter, quotes removed, nothing converted: an empty
    cell is ``""``). Each file is read to its end (a streaming reader closed early may deadlock, see
    :func:`first_ragged_line`): the caller consumes every batch."""
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.csv as pacsv

    from ._api import _delimiter

    for f in files:
        text = dict.fromkeys(columns, pa.string())
        convert = pacsv.ConvertOptions(include_columns=columns, column_types=text)
        yield from pacsv.open_csv(f, parse_options=pacsv.ParseOptions(delimiter=_delimiter(Path(f))),
                                  convert_options=convert, read_options=pacsv.ReadOptions(block_size=1 << 22))


def table_keys_as_written(table: Any, files: list[str], keys: list[str]) -> Any:
    """A ``pyarrow.Table`` read from the CSV ``files`` (the memory engine's read, rows in the files'
    order) with its number columns among ``keys`` read as the text written where
    :func:`keys_as_written` says so."""
    import pyarrow as pa

    names = set(table.column_names)
    numbers = [k for k in dict.fromkeys(keys) if k in names and arrow_number(table.schema.field(k).type)]
    for name, cells in keys_as_written(files, numbers, keep=True).items():
        if len(cells) == table.num_rows:  # (else not the rows read: left as read)
            i = table.schema.get_field_index(name)
            table = table.set_column(i, pa.field(name, pa.string()), cells)
    return table


def arrow_number(kind: Any) -> bool:
    """An Arrow integer, floating or decimal type (what a CSV reader makes of a column of numbers)."""
    import pyarrow as pa

    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind))
