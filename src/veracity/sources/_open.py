r"""A path opened lazily by Spark or Dask (``--engine spark`` / ``--engine dask``), read as memory reads it.

``--engine memory`` reads a CSV file with pyarrow; Spark's and pandas' (Dask's) CSV readers,
left to their defaults, read the same file otherwise:

* a row with fewer fields than the header: Spark and pandas fill the missing ones with nulls
  and count the row; Spark also drops the extra fields of a longer row, silently. pyarrow and
  DuckDB refuse the file naming the line. Spark reads here with ``mode=FAILFAST`` and Dask with
  pandas' pyarrow parser (``engine="pyarrow"``), which stop there; :func:`._duckdb.describe_error`
  names the line as the other engines do;
* missing-value spellings: pyarrow reads :data:`._csv_text.NULL_TEXTS` (``NA``, ``null``, ``N/A``,
  ``nan`` ...) as missing, and keeps ``None`` and ``<NA>`` as text. pandas also reads ``None`` and
  ``<NA>`` as missing (here: only ``NULL_TEXTS``); Spark reads only the empty cell (and ``NaN``),
  so a score column with one ``NA`` was text ("must be numeric") where memory says "1 missing value".
  :func:`spark_numbers` reads a Spark text column as numbers when every value of it is a number as
  pyarrow parses one (:data:`NUMBER`) or one of ``NULL_TEXTS`` (``BIGINT`` when every number is a
  whole number within int64, else ``DOUBLE``), the spellings as missing: one Spark job over the
  text columns only;
* the delimiter: memory and DuckDB find ``;``, tab or ``|`` in a header without commas; Spark and
  pandas read such a file as one column. Here the first file's delimiter is passed
  (:func:`._api._delimiter`);
* whole numbers with a missing value: pandas reads them as floats (a slice by such a column was named
  ``1.0`` where memory names it ``1``), and Dask, which types a column from its first rows, stopped at a
  missing value further down ("Mismatched dtypes"); here they are read in pandas' nullable types
  (``dtype_backend="numpy_nullable"``: ``Int64``, ``Float64``, ``boolean``), as pyarrow types them;
* an empty file: pandas raised ``EmptyDataError`` and Spark said "column 'p' not found; available
  columns: " (none): refused here in memory's words;
* booleans: pyarrow reads a column of ``true``/``false`` and ``1``/``0`` together
  (:data:`._duckdb.BOOLEAN_TEXTS`) as booleans. Spark's reader types it as text, and so did Dask's
  first rows (pandas' C parser), whose blocks then became the text ``'True'``/``'False'``:
  :func:`spark_numbers` and :func:`_read_booleans` read such columns as booleans, and Dask stops at
  another value in a later block (``2`` was cast to true).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ..core._validation import VeracityError
from ._csv_text import NULL_TEXTS

#: a number's text as pyarrow's CSV reader parses one into float64, without the spaces around it (a sign,
#: digits with one decimal point, an exponent; ``inf``, ``Infinity``; no ``_``, no ``0x``, no ``1d``)
NUMBER_BODY = r"[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[Ii][Nn][Ff]([Ii][Nn][Ii][Tt][Yy])?)"
#: a number as pyarrow's CSV reader parses one into float64 (:data:`NUMBER_BODY`, spaces or tabs around it)
NUMBER = rf"^[ \t]*{NUMBER_BODY}[ \t]*$"
#: a whole number as pyarrow's CSV reader parses one into int64 (within range: checked by a cast)
WHOLE = r"^[ \t]*-?[0-9]+[ \t]*$"


def csv_files(path: str) -> list[str]:
    """The local CSV files ``path`` names (a file, a glob, a directory), or ``[]`` when it names none
    here (a URL that Spark reads, say): nothing is checked then."""
    from .._files import expand

    try:
        files, kind = expand(path)
    except VeracityError:
        return []
    return files if kind == "csv" else []


def refuse_empty(path: str, files: list[str]) -> None:
    """An empty CSV file refused in the memory engine's words (Dask raised, Spark found no columns),
    and so is a header naming a column twice (Dask said "could not read ... the engine ValueError") or
    files with other headers (Spark reads every file's fields by the first file's header, by position)."""
    from ._duckdb import check_same_headers, csv_header
    from ._source import _refuse_duplicates

    for f in files:
        if os.path.getsize(f) == 0:
            raise VeracityError(f"{path if len(files) == 1 else f} is empty; it has no header and no rows")
    if files:
        _refuse_duplicates(csv_header(files[0], delimiter(files)) or [], path if len(files) == 1 else files[0])
        check_same_headers(files, path)


def delimiter(files: list[str]) -> str:
    """The first file's delimiter as memory finds it (``,`` when there is no local file)."""
    from ._api import _delimiter

    return _delimiter(Path(files[0])) if files else ","


#: log4j2 settings of a Spark driver veracity starts, on stderr: warnings (the level PySpark's shell sets,
#: so Spark does not announce "Setting default log level"), without the two that every start printed
#: (the host's address, the native Hadoop library); the session then logs errors only (setLogLevel)
_QUIET_LOG4J = """rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.utils.name = org.apache.spark.util.Utils
logger.utils.level = error
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = error
"""


def quiet_driver_options() -> dict[str, str]:
    """``spark.driver.extraJavaOptions`` pointing log4j2 at :data:`_QUIET_LOG4J` (written once to the temp
    folder), or nothing where the user configures Spark (``SPARK_CONF_DIR``, ``PYSPARK_SUBMIT_ARGS``) or the
    file cannot be written. Only a driver started here reads it: a running session keeps its logging."""
    import tempfile

    if os.environ.get("SPARK_CONF_DIR") or os.environ.get("PYSPARK_SUBMIT_ARGS"):
        return {}
    path = Path(tempfile.gettempdir()) / "veracity-spark-log4j2.properties"
    try:
        if not path.is_file() or path.read_text() != _QUIET_LOG4J:
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(_QUIET_LOG4J)
            tmp.replace(path)  # atomic: another process never reads half a file
    except OSError:
        return {}
    return {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{path}"}


#: seconds to wait for a standalone master's port to accept a connection
MASTER_TIMEOUT = 5.0


def check_master(master: str, timeout: float = MASTER_TIMEOUT) -> None:
    """A standalone master (``spark://HOST:PORT``, or several ``HOST:PORT`` after one ``spark://``) that
    accepts a TCP connection on none of its addresses is refused in one line naming it, before any JVM
    starts: Spark's driver retried for ~80 s, printed a hundred lines of Java stack traces, and the
    read then failed as "could not read d.csv as CSV: Spark Py4JJavaError" (blaming a sound file). Other
    masters (``local``, ``k8s://``, ``yarn``) are left to Spark."""
    import socket

    if not master.startswith("spark://"):
        return
    reasons = []
    for address in master[len("spark://"):].split(","):
        host, _, port = address.rpartition(":")
        host = host.strip("[]")  # an IPv6 address: spark://[::1]:7077
        if not host or not port.isdigit():
            return  # not a form checked here: Spark says what it makes of it
        try:
            with socket.create_connection((host, int(port)), timeout=timeout):
                return
        except OSError as exc:
            reasons.append(f"{address}: {exc.strerror or type(exc).__name__.lower()}")
    raise VeracityError(f"cannot reach the Spark master {master} ({'; '.join(reasons)}); start it, or pass "
                        "another --spark-master (local[*]: Spark in this process)")


def open_spark(path: str, parquet: bool, *, spark_master: str, app: str) -> Any:
    """A Spark DataFrame over ``path`` on a session at ``spark_master`` whose names are case-sensitive."""
    try:
        from pyspark.sql import SparkSession  # noqa: F401 - installed? (the session: _session)
    except ImportError:
        raise VeracityError("--engine spark needs pyspark and Java 17: pip install 'veracity[spark]'") from None
    files = [] if parquet else csv_files(path)
    refuse_empty(path, files)
    check_master(spark_master)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    try:
        return _read_spark(_session(spark_master, app), path, parquet, files)
    except VeracityError:
        raise
    except Exception as exc:
        if spark_master.startswith("spark://") and any(t in str(exc) for t in _MASTER_GONE):
            # a port that takes connections with no Spark master behind it: Spark gave up after ~60 s
            # ("All masters are unresponsive") and stopped the context under the session or the read
            raise VeracityError(f"the Spark master {spark_master} did not take the application (Spark: all "
                                "masters are unresponsive); check that a Spark master runs there, or pass "
                                "another --spark-master") from None
        raise


#: what Spark's errors say when the context stopped because the master never answered
_MASTER_GONE = ("stopped SparkContext", "All masters are unresponsive", "SparkContext was shut down")


def _session(spark_master: str, app: str) -> Any:
    """A session at ``spark_master`` whose names are case-sensitive (see :func:`open_spark`)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(spark_master).appName(app)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    for key, value in quiet_driver_options().items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    # column names as written: a session of its own (the same context) whose names are case-sensitive,
    # else Spark refuses a Parquet file with columns Score and score (COLUMN_ALREADY_EXISTS, a
    # traceback) and renames a CSV header's to Score0, score1 (neither then found)
    spark = spark.newSession()
    spark.conf.set("spark.sql.caseSensitive", "true")
    # every field of a CSV row parsed, so that FAILFAST sees a short row whose missing fields are not used
    spark.conf.set("spark.sql.csv.parser.columnPruning.enabled", "false")
    return spark


def _read_spark(spark: Any, path: str, parquet: bool, files: list[str]) -> Any:
    """The Spark DataFrame over ``path`` (see :func:`open_spark`)."""
    if parquet:
        files = _parquet_differ(path)
        durations = _durations_of(path)
        if files:  # each file read with its own columns and types, joined by name (bigint and double: double)
            from functools import reduce

            flags = _boolean_and_number(files)
            try:
                return reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True),
                              [_spark_intervals(_booleans_as_numbers(spark.read.parquet(f), flags),
                                                durations.get(f, {})) for f in files])
            except Exception as exc:  # noqa: BLE001 - types Spark does not join (a boolean and a number)
                reason = str(exc).strip().splitlines()[0][:200]
                raise VeracityError(f"the files of {path} hold a column in types Spark cannot read together "
                                    f"({reason}); give each column one type in every file, or read them "
                                    "with --engine duckdb") from None
        frame = spark.read.parquet(path)
        return _spark_intervals(frame, next(iter(durations.values()), {}))
    frame = (spark.read.option("header", True).option("inferSchema", True).option("mode", "FAILFAST")
             .option("sep", delimiter(files)).csv(path))
    return spark_numbers(frame)


def _durations_of(path: str) -> dict[str, dict[str, str]]:
    """Each local Parquet file of ``path`` -> its Arrow duration columns and their units (``{}`` for a
    path that names no local files)."""
    from .._files import expand
    from ._parquet_files import _parquet_layouts

    try:
        files, _ = expand(path)
    except VeracityError:
        return {}
    return _parquet_layouts(files, path)[3]


def _spark_intervals(frame: Any, units: dict[str, str]) -> Any:
    """A Spark frame of one Parquet file (or of files alike) whose Arrow duration columns (``units``:
    column -> unit), which Spark reads as BIGINT counts of their unit (slices named ``1000000``), are
    day-time intervals of the same duration, exact to the microsecond: ``count * u`` microseconds
    (``u`` = 10**6, 10**3, 1 for ``s``, ``ms``, ``us``; ``count / 1000`` for ``ns``). A nanosecond count
    that is not whole microseconds stops the job (``raise_error``) rather than being rounded."""
    from pyspark.sql import functions as F

    from ._duckdb import ERROR_MARK

    cast = [n for n in frame.columns if n in units]
    if not cast:
        return frame
    micro = F.expr("INTERVAL '0.000001' SECOND")
    factor = {"s": 1_000_000, "ms": 1000, "us": 1}

    def interval(column: Any, name: str) -> Any:
        unit = units[name]
        if unit != "ns":
            return column * F.lit(factor[unit]) * micro
        stop = F.raise_error(F.concat(F.lit(f"{ERROR_MARK}column {name!r} holds durations with nanoseconds ("),
                                      column.cast("string"), F.lit(" ns), which Spark's intervals cannot hold; "
                                                                   "read the file with --engine memory")))
        return F.when(column % 1000 != 0, stop).otherwise(F.floor(column / 1000) * micro)

    columns = [frame[i] for i in range(len(frame.columns))]  # by position: dots in a name are not parsed
    return frame.select(*[(interval(c, n) if n in units else c).alias(n) for c, n in zip(columns, frame.columns)])


def _parquet_differ(path: str) -> list[str]:
    """The local Parquet files of ``path`` when they hold other columns or a number column in other
    types, else ``[]``. Spark reads every file with the first file's columns and types: a column only
    later files hold was "not found", and an int64 column that another file holds as double stopped the
    job in a Java traceback (PARQUET_COLUMN_DATA_TYPE_MISMATCH; ``mergeSchema`` does not merge them
    either); a boolean and a number were the same traceback, now one line. Two files spelling a column
    ``p`` and ``P`` are refused as on the other engines."""
    import pyarrow.parquet as pq

    from .._files import expand
    from ._parquet_files import parquet_names

    try:
        files, _ = expand(path)
    except VeracityError:  # not local files (a URL Spark reads): nothing is checked
        return []
    parquet_names(files, path)
    try:
        schemas = [pq.read_schema(f) for f in files]
    except Exception:  # noqa: BLE001 - not readable by pyarrow: Spark's reader says why
        return []
    return files if any(not s.equals(schemas[0], check_metadata=False) for s in schemas[1:]) else []


def _boolean_and_number(files: list[str]) -> set[str]:
    """The columns boolean in some of ``files`` and numbers in others (read as numbers, 1/0, as the other
    engines read them: Spark does not join a BOOLEAN and a BIGINT column)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    kinds: dict[str, set[str]] = {}
    for f in files:
        for field in pq.read_schema(f):
            t = field.type
            kind = "b" if pa.types.is_boolean(t) else "n" if pa.types.is_integer(t) or pa.types.is_floating(t) else "o"
            kinds.setdefault(field.name, set()).add(kind)
    return {name for name, k in kinds.items() if {"b", "n"} <= k}


def _booleans_as_numbers(frame: Any, flags: set[str]) -> Any:
    from pyspark.sql import types as T

    cast = {f.name for f in frame.schema.fields if f.name in flags and isinstance(f.dataType, T.BooleanType)}
    if not cast:
        return frame
    columns = [frame[i] for i in range(len(frame.columns))]  # by position: dots in a name are not parsed
    return frame.select(*[(c.cast("bigint") if n in cast else c).alias(n) for c, n in zip(columns, frame.columns)])


def spark_numbers(frame: Any) -> Any:
    """``frame`` with each text column that holds only numbers (:data:`NUMBER`) and
    :data:`NULL_TEXTS` read as numbers, the spellings as missing (see the module's notes); and each
    other text column that holds only :data:`._duckdb.BOOLEAN_TEXTS` and ``NULL_TEXTS`` (one of the
    former at least) read as booleans, as pyarrow reads it: Spark's reader types ``true`` beside ``0``,
    or beside ``NA``, as text, so such a label column was refused as text where memory, DuckDB and Dask
    audit it."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from ._duckdb import BOOLEAN_TEXTS

    text = [f.name for f in frame.schema.fields if isinstance(f.dataType, T.StringType)]
    if not text:
        return frame

    def column(name: str) -> Any:
        return frame[frame.columns.index(name)]  # by position: a name with dots or backticks is not parsed

    def value(name: str) -> Any:  # the text as a number's cast reads it (tabs around it too)
        return F.trim(F.regexp_replace(column(name), "\t", " "))

    checks = []
    for i, name in enumerate(text):
        v = column(name)
        spelled = v.isNull() | v.isin(list(NULL_TEXTS))
        number = v.rlike(NUMBER)
        whole = v.rlike(WHOLE) & value(name).try_cast("bigint").isNotNull()
        # whole numbers past bigint: exact as decimal(38, 0), as Spark infers an unpadded one and as the memory
        # and DuckDB engines read them (as doubles, ids 2**63 and 2**63 + 1 were one slice)
        wide = v.rlike(WHOLE) & value(name).try_cast("decimal(38,0)").isNotNull()
        boolean = v.isin(list(BOOLEAN_TEXTS[True] + BOOLEAN_TEXTS[False]))
        checks += [F.coalesce(F.bool_and(spelled | number), F.lit(True)).alias(f"_n{i}"),
                   F.coalesce(F.bool_or(number), F.lit(False)).alias(f"_a{i}"),
                   F.coalesce(F.bool_and(spelled | whole), F.lit(True)).alias(f"_w{i}"),
                   F.coalesce(F.bool_and(spelled | wide), F.lit(True)).alias(f"_d{i}"),
                   F.coalesce(F.bool_and(spelled | boolean), F.lit(True)).alias(f"_b{i}"),
                   F.coalesce(F.bool_or(boolean), F.lit(False)).alias(f"_t{i}")]
    row = frame.agg(*checks).collect()[0]
    cast = {name: "bigint" if row[f"_w{i}"] else "decimal(38,0)" if row[f"_d{i}"] else "double"
            for i, name in enumerate(text) if row[f"_n{i}"] and row[f"_a{i}"]}
    booleans = {name for i, name in enumerate(text) if name not in cast and row[f"_b{i}"] and row[f"_t{i}"]}
    missing = {name: column(name).isin(list(NULL_TEXTS)) for name in text}  # text columns too (memory: null)

    def read(name: str) -> Any:
        if name in booleans:
            return F.when(column(name).isin(list(BOOLEAN_TEXTS[True])), F.lit(True)).otherwise(F.lit(False))
        return value(name).cast(cast[name]) if name in cast else column(name)

    return frame.select(*[
        F.when(missing[name] | column(name).isNull(), F.lit(None)).otherwise(read(name)).alias(name)
        if name in missing else column(name).alias(name) for name in frame.columns])


def open_dask(path: str, parquet: bool, *, text_keys: tuple[str, ...] = ()) -> Any:
    """A Dask DataFrame over ``path``: CSV through pandas' pyarrow parser (see the module's notes).
    ``text_keys``: CSV key columns read as the text written (:func:`._csv_text.keys_as_written` names
    them)."""
    try:
        import dask.dataframe as dd
    except ImportError:
        raise VeracityError("--engine dask needs dask: pip install 'veracity[dask]'") from None
    if parquet:
        return _dask_parquet(dd, path)
    files = csv_files(path)
    refuse_empty(path, files)
    options: dict[str, Any] = {"engine": "pyarrow", "sep": delimiter(files), "keep_default_na": False,
                               "na_values": list(NULL_TEXTS), "dtype_backend": "numpy_nullable"}
    frame = dd.read_csv(path, **options)
    _refuse_past_uint64(frame, files, options, path)
    flagged = _dask_booleans(frame, files, options)
    text = tuple(k for k in text_keys if k in frame.columns)
    flagged = tuple(c for c in flagged if c not in text)
    if not flagged and not text:
        return frame
    from functools import partial

    from dask.dataframe.io.csv import make_reader

    reader: Any = partial(_read_booleans, flagged, path, text_keys=text)
    reader.__name__ = "read_csv"  # Dask names its tasks by it
    return make_reader(reader, "read_csv", "CSV")(path, **options)


def _refuse_past_uint64(frame: Any, files: list[str], options: dict[str, Any], path: str) -> None:
    """A CSV column of whole numbers past the uint64 range refused on Dask, in the words of
    :func:`._duckdb.dask_types_message`: Dask types it as text from its sample (pandas' C parser holds no
    such integer), and its pyarrow reader reads the rows as doubles and writes them as that text, so
    neighbouring integers merged: labels 2**100 and 2**100 + 1 read as the one value
    ``'1.2676506002282294e+30'``, and ``--pos-label 1.2676506002282294e+30`` audited every row a positive
    (base rate 1, silently), where the memory and DuckDB engines read them exactly. Told by the sampled cells
    of each text column (as many rows as DuckDB's sniffer reads): every one an integer literal, one
    at least beyond the int64 and uint64 ranges."""
    import pandas as pd

    from ._duckdb import _SNIFF_ROWS

    kinds = frame._meta.dtypes
    text = [c for c, t in kinds.items() if pd.api.types.is_string_dtype(t) or t == object]
    if not text or not files:
        return
    head = pd.read_csv(files[0], sep=options["sep"], nrows=_SNIFF_ROWS, usecols=text, dtype=str,
                       keep_default_na=False, na_values=options["na_values"])
    for c in text:
        cells = head[c].dropna().str.strip()
        if not (len(cells) and cells.str.fullmatch(r"[+-]?[0-9]+").all()):
            continue
        long = cells[cells.str.lstrip("+-").str.len() >= 19]  # (shorter ones fit int64)
        if any(not -2**63 <= int(v) <= 2**64 - 1 for v in long.tolist()):
            raise VeracityError(
                f"could not read {path} as CSV: column {str(c)!r} holds whole numbers beyond the uint64 "
                "range, which Dask's reader reads as doubles (a double cannot tell such numbers apart); map "
                "them to small codes (0/1 for labels), or read the file with --engine duckdb or --engine "
                "memory")


def _dask_booleans(frame: Any, files: list[str], options: dict[str, Any]) -> tuple[str, ...]:
    """The columns of a Dask CSV frame read as the memory engine reads booleans (:func:`_read_booleans`):
    those Dask typed boolean, and the text columns whose first rows (as many as DuckDB's sniffer reads)
    spell only :data:`._duckdb.BOOLEAN_TEXTS`, with one value at least.

    Dask types a column from its first 10 rows read by pandas' C parser, which reads ``true`` and ``0``
    together as text, and then casts each block that pyarrow read (as booleans: ``0`` is false) to that
    type: the labels became ``'True'``/``'False'``, text the file does not hold (refused as "got text
    (values 'False', 'True')", where memory and DuckDB read booleans). A block pyarrow read as numbers
    (``0``, ``1``, ``2``) under a boolean type was cast too: ``2`` became true, silently."""
    import pandas as pd

    from ._duckdb import _SNIFF_ROWS, BOOLEAN_TEXTS

    kinds = frame._meta.dtypes
    flagged = [c for c, t in kinds.items() if pd.api.types.is_bool_dtype(t)]
    text = [c for c, t in kinds.items() if pd.api.types.is_string_dtype(t) or t == object]
    if text and files:
        head = pd.read_csv(files[0], sep=options["sep"], nrows=_SNIFF_ROWS, usecols=text, dtype=str,
                           keep_default_na=False, na_values=options["na_values"])
        spelled = set(BOOLEAN_TEXTS[True] + BOOLEAN_TEXTS[False])
        flagged += [c for c in text if head[c].notna().any() and set(head[c].dropna()) <= spelled]
    return tuple(str(c) for c in flagged)


def _read_booleans(flagged: tuple[str, ...], source: str, *args: Any, text_keys: tuple[str, ...] = (),
                   **kwargs: Any) -> Any:
    """pandas' ``read_csv`` (Dask's reader, for its first rows and for each block) with the ``flagged``
    columns as booleans: ``BOOLEAN_TEXTS`` (as text, or as the numbers 1 and 0 pyarrow reads a block of
    digits as) true or false, a missing value missing; any other value stops the read in one line, in
    the DuckDB engine's words. The ``text_keys`` columns as the text of their cells (the block read again,
    those columns only, by pandas' C parser; the missing-value spellings missing)."""
    import pandas as pd

    from ._duckdb import BOOLEAN_TEXTS

    frame = pd.read_csv(*args, **kwargs)
    if text_keys:
        args[0].seek(0)  # (Dask hands each block over as bytes in memory)
        # pandas' C parser: its pyarrow parser reads the cells as numbers first, then writes them as text
        raw = pd.read_csv(*args, **{**kwargs, "engine": "c", "usecols": list(text_keys), "dtype": str})
        for name in text_keys:
            frame[name] = pd.array(raw[name], dtype="string")  # (by position: the same block's rows)
    truth = {**{t: True for t in BOOLEAN_TEXTS[True]}, **{t: False for t in BOOLEAN_TEXTS[False]}}
    for name in flagged:
        if name not in frame.columns or pd.api.types.is_bool_dtype(frame[name].dtype):
            continue
        text = frame[name].astype("string")  # a block of digits (Int64): "1", "0"; a float: "1.0"
        read = text.map(truth)
        bad = text.notna() & read.isna()
        if bad.any():
            other = str(text[bad].iloc[0])[:40]
            raise VeracityError(f"column {name!r} holds true/false values and also {other!r}; write all its "
                                "values as true/false (or 1/0), or all as text and name the positive class with "
                                f"pos_label (in {source})")
        frame[name] = read.astype("boolean")
    return frame


def _dask_parquet(dd: Any, path: str) -> Any:
    """A Dask DataFrame over Parquet ``path``, its files read as the other engines read them.

    Dask types every file as the first: a column another file lacks raised ``KeyError`` when read, a
    column the first file lacks was not found, and a column dictionary-encoded in one file and plain
    in another raised ``AttributeError`` inside Dask. Files with other columns, or a column encoded in
    some only, are read here one by one (:func:`_dask_files`). Two files spelling a column ``p`` and
    ``P`` are refused as on the other engines, and a list or struct column named as a score, label or
    key is refused in their words (Dask holds it as Python objects: a struct key raised "unhashable")."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .._files import expand, is_remote
    from ._parquet_files import parquet_names
    from ._source import opened_from

    if is_remote(path):  # not local files (a URL Dask reads): nothing is checked
        return _read_parquet(dd, path)
    # a folder without Parquet files (of CSV files, say) or a path not there: refused in the memory and
    # DuckDB engines' words ("d is a directory without .parquet files; pass a file or a glob"), not as
    # Dask's reader failed on it ("could not read d as PARQUET: the engine ValueError")
    files, _ = expand(path)
    parquet_names(files, path)
    try:
        schemas = [pq.read_schema(f) for f in files]
    except Exception:  # noqa: BLE001 - not readable by pyarrow: Dask's reader says why
        return _read_parquet(dd, path)
    nested = {f.name: f.type for s in schemas for f in s if pa.types.is_nested(f.type)}
    return opened_from(_dask_files(dd, path, files, schemas), path, nested)


def _read_parquet(dd: Any, path: str) -> Any:
    """Dask's Parquet reader over ``path``, its integers in pandas' nullable types (:data:`_WHOLE`)."""
    return dd.read_parquet(path, arrow_to_pandas=_ArrowToPandas(_WHOLE))


class _ArrowToPandas(dict[str, Any]):
    """Dask's ``arrow_to_pandas`` options, whose ``types_mapper`` Dask always reads as :data:`_WHOLE`'s.

    Dask's reader (run in this process) writes into the dict it is given the mapper it makes, which
    tries the one it read there first, then its own (text as pyarrow strings), and keeps the dict of a
    file's first read in a plan later reads of that file reuse. Given the one module-level dict, read
    back each time, the mappers nested one level per partition read, across files, for the life of the
    process; and Dask pickles the nest to name each expression (cloudpickle over every loaded module,
    per function): an audit of a small Parquet file took 0.2 s of CPU, then about 3 s after 30 reads.
    Read as given, the mapper Dask makes (and so each column's type) is the one of the first read."""

    def get(self, key: Any, default: Any = None) -> Any:
        """:data:`_WHOLE`'s ``types_mapper`` (not the one Dask wrote over it), else as :meth:`dict.get`."""
        return _WHOLE["types_mapper"] if key == "types_mapper" else super().get(key, default)


def _dask_files(dd: Any, path: str, files: list[str], schemas: list[Any]) -> Any:
    """Dask's reader where every file has the same columns in the same types; else the files one by one
    (``dd.from_map``), each column in the type that holds every file's (a dictionary as its values; int64
    and double: double; boolean and numbers: numbers, 1/0), a column a file lacks missing there."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ._api import _booleans_as_int64

    dictionaries = any(pa.types.is_dictionary(f.type) for s in schemas for f in s) or any(
        c.get("pandas_type") == "categorical" for s in schemas for c in (s.pandas_metadata or {}).get("columns", []))
    if not dictionaries and all(s.equals(schemas[0], check_metadata=False) for s in schemas[1:]):
        # (a dictionary column goes through the files one by one, as its values: Dask's reader with the
        # nullable-integer mapper raised NotImplementedError on a dictionary of integers)
        return _read_parquet(dd, path)

    def values(field: Any) -> Any:
        return field.with_type(field.type.value_type) if pa.types.is_dictionary(field.type) else field

    try:
        schema = pa.unify_schemas(_booleans_as_int64([pa.schema([values(f) for f in s]) for s in schemas]),
                                  promote_options="permissive")
    except (pa.ArrowTypeError, pa.ArrowInvalid):  # text in one file, numbers in another: Dask's own reading
        return _read_parquet(dd, path)

    def part(file: str) -> Any:
        table = pq.read_table(file)
        return pa.table([table.column(n).cast(f.type) if n in table.column_names else pa.nulls(len(table), f.type)
                         for n, f in zip(schema.names, schema)], schema=schema).to_pandas(**_WHOLE)

    return dd.from_map(part, files, meta=schema.empty_table().to_pandas(**_WHOLE), enforce_metadata=False)


def _nullable_integers(kind: Any) -> Any:
    """pandas' nullable integer type (``Int64``, ``UInt8`` ...) of an Arrow integer type (None: pandas'
    default for the others)."""
    import pyarrow as pa

    if not pa.types.is_integer(kind):
        return None
    import pandas as pd

    return pd.api.types.pandas_dtype(f"{'U' if pa.types.is_unsigned_integer(kind) else ''}Int{kind.bit_width}")


#: Parquet integers read by Dask in pandas' nullable types (``Int64``), as pyarrow, DuckDB and the memory
#: engine type them (the CSV route reads them so too): pandas' own conversion makes an integer column with
#: a missing value float64, so a slice by it was named ``1.0`` where every other engine names it ``1``
_WHOLE: dict[str, Any] = {"types_mapper": _nullable_integers}
