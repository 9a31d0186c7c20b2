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
  columns: " (none): refused here in memory's words.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ..core._validation import VeracityError
from ._csv_text import NULL_TEXTS

#: a number as pyarrow's CSV reader parses one into float64 (spaces or tabs around it; ``inf``,
#: ``Infinity``; no ``_``, no ``0x``, no ``1d``)
NUMBER = (r"^[ \t]*[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[Ii][Nn][Ff]([Ii][Nn][Ii][Tt][Yy])?)[ \t]*$")
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
    """An empty CSV file refused in the memory engine's words (Dask raised, Spark found no columns)."""
    for f in files:
        if os.path.getsize(f) == 0:
            raise VeracityError(f"{path if len(files) == 1 else f} is empty; it has no header and no rows")


def delimiter(files: list[str]) -> str:
    """The first file's delimiter as memory finds it (``,`` when there is no local file)."""
    from ._api import _delimiter

    return _delimiter(Path(files[0])) if files else ","


def open_spark(path: str, parquet: bool, *, spark_master: str, app: str) -> Any:
    """A Spark DataFrame over ``path`` on a session at ``spark_master`` whose names are case-sensitive."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise VeracityError("--engine spark needs pyspark and Java 17: pip install 'veracity[spark]'") from None
    files = [] if parquet else csv_files(path)
    refuse_empty(path, files)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(spark_master).appName(app)
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    # column names as written: a session of its own (the same context) whose names are case-sensitive,
    # else Spark refuses a Parquet file with columns Score and score (COLUMN_ALREADY_EXISTS, a
    # traceback) and renames a CSV header's to Score0, score1 (neither then found)
    spark = spark.newSession()
    spark.conf.set("spark.sql.caseSensitive", "true")
    # every field of a CSV row parsed, so that FAILFAST sees a short row whose missing fields are not used
    spark.conf.set("spark.sql.csv.parser.columnPruning.enabled", "false")
    if parquet:
        return spark.read.parquet(path)
    frame = (spark.read.option("header", True).option("inferSchema", True).option("mode", "FAILFAST")
             .option("sep", delimiter(files)).csv(path))
    return spark_numbers(frame)


def spark_numbers(frame: Any) -> Any:
    """``frame`` with each text column that holds only numbers (:data:`NUMBER`) and
    :data:`NULL_TEXTS` read as numbers, the spellings as missing (see the module's notes)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

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
        checks += [F.coalesce(F.bool_and(spelled | number), F.lit(True)).alias(f"_n{i}"),
                   F.coalesce(F.bool_or(number), F.lit(False)).alias(f"_a{i}"),
                   F.coalesce(F.bool_and(spelled | whole), F.lit(True)).alias(f"_w{i}")]
    row = frame.agg(*checks).collect()[0]
    cast = {name: "bigint" if row[f"_w{i}"] else "double"
            for i, name in enumerate(text) if row[f"_n{i}"] and row[f"_a{i}"]}
    missing = {name: column(name).isin(list(NULL_TEXTS)) for name in text}  # text columns too (memory: null)
    return frame.select(*[
        F.when(missing[name], F.lit(None)).otherwise(value(name).cast(cast[name]) if name in cast else column(name))
        .alias(name) if name in missing else column(name).alias(name) for name in frame.columns])


def open_dask(path: str, parquet: bool) -> Any:
    """A Dask DataFrame over ``path``: CSV through pandas' pyarrow parser (see the module's notes)."""
    try:
        import dask.dataframe as dd
    except ImportError:
        raise VeracityError("--engine dask needs dask: pip install 'veracity[dask]'") from None
    if parquet:
        return dd.read_parquet(path)
    files = csv_files(path)
    refuse_empty(path, files)
    return dd.read_csv(path, engine="pyarrow", sep=delimiter(files), keep_default_na=False,
                       na_values=list(NULL_TEXTS), dtype_backend="numpy_nullable")
