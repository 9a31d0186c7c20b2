"""Apply a saved calibrator to a scored file and write the calibrated probabilities.

Writes every input column (a CSV's ids and text as the file holds them: ``00501``, ``NA``)
plus ``calibrated`` (binary) or ``calibrated_0..K-1`` (multiclass) to OUT (Parquet for
.parquet/.pq, else CSV: tab-separated for .tsv, gzip-compressed for .gz; streamed Parquet
input writes .parquet/.pq or .csv). The score column
defaults to the one the calibrator was fit on; a segment calibrator (SegmentCalibration) also
reads each of its features from the column of that name. Parquet input (a file, a folder
or a glob) is streamed batch by batch, so memory stays bounded whatever the
number of rows. Example:

    veracity apply cal.json scores.csv --out calibrated.parquet
    veracity apply cal.json "logs/*.parquet" --score p -o calibrated.parquet
"""

from __future__ import annotations

import argparse
import math
import re
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .._files import _PARQUET
from ..sources import _api as source
from ..sources._arrow_numpy import from_numpy
from ..core._validation import ROW_SUM_ATOL, VeracityError, VeracityWarning
from ..calibrators import load as load_calibrator
from ..calibrators._base import LOGIT_WARN_ROWS, logits_look_like_probabilities
from ._bad_rows import first_bad_row
from ._common import feature_names, shown_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("calibrator", help="JSON artifact written by `veracity fit`")
    parser.add_argument("file", help="CSV or Parquet file of scored rows (Parquet: also a folder or a glob)")
    parser.add_argument("-o", "--out", required=True, help="output CSV or Parquet path")
    parser.add_argument("--score", default=None,
                        help="score column(s) (default: the column the calibrator was fit on)")
    parser.add_argument("--column", default="calibrated",
                        help="name of the output column (default: calibrated)")
    parser.add_argument("--batch-rows", type=int, default=None, metavar="N",
                        help="rows per batch when streaming Parquet input (default: 65536)")
    from ._common import add_json_argument

    add_json_argument(parser)


#: output suffixes that name a format apply does not write (it writes Parquet, or CSV text for every other
#: name): the file written was CSV text under that name, which Excel, a JSON or an Arrow reader then refused
_OTHER_FORMATS = {".xlsx": "an Excel workbook", ".xlsm": "an Excel workbook", ".xls": "an Excel workbook",
                  ".ods": "a spreadsheet", ".json": "JSON", ".jsonl": "JSON lines", ".ndjson": "JSON lines",
                  ".feather": "Arrow IPC (Feather)", ".arrow": "Arrow IPC", ".ipc": "Arrow IPC",
                  ".orc": "ORC", ".avro": "Avro", ".pkl": "a pickle", ".pickle": "a pickle", ".h5": "HDF5",
                  ".hdf5": "HDF5",
                  ".xml": "XML", ".html": "HTML", ".db": "a database", ".duckdb": "a DuckDB database",
                  ".sqlite": "an SQLite database"}


def _refuse_other_format(out: Path) -> None:
    """``--out`` named for a format apply does not write (``scores.xlsx``, ``out.json``) refused before any
    work, saying what it writes: Parquet for .parquet/.pq/.parq, else CSV (tab-separated for .tsv,
    gzip-compressed for .gz)."""
    suffix = out.suffix.lower()
    what = _OTHER_FORMATS.get(suffix)
    if what is not None:
        raise VeracityError(
            f"--out {out} names {what}, and apply writes Parquet (.parquet, .pq, .parq) or CSV (.csv, .tsv, "
            f".txt, .csv.gz): pass -o {out.with_suffix('.csv')} (which Excel opens) or -o "
            f"{out.with_suffix('.parquet')}")


def write_table(table, out: Path) -> None:  # type: ignore[no-untyped-def]
    """``table`` written as the source layer reads ``out`` back: Parquet for .parquet/.pq,
    tab-separated for .tsv, gzip-compressed for .gz, else comma-separated CSV (a .csv.gz or .tsv
    name was written as plain comma-separated CSV, which read back as an error or a single column)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from ._common import write_output

    name = out.name.lower()
    if name.endswith(_PARQUET):
        write_output(out, lambda tmp: pq.write_table(table, tmp))
        return
    options = pacsv.WriteOptions(delimiter="\t" if name.endswith((".tsv", ".tsv.gz")) else ",")

    def csv(tmp: Path) -> None:
        if not name.endswith(".gz"):
            pacsv.write_csv(table, tmp, write_options=options)
            return
        with pa.CompressedOutputStream(str(tmp), "gzip") as sink:
            pacsv.write_csv(table, sink, write_options=options)

    write_output(out, csv)


def _report(args: argparse.Namespace, cal, rows: int, names: list[str], out: Path) -> int:  # type: ignore[no-untyped-def]
    from ..core._text import count_noun
    from ._common import emit, shown_path

    # a map fit with --pos-label gives the probability of that label (--pos-label no: of 'no', which a column
    # named "calibrated" beside a yes/no label does not say)
    pos = (cal.metadata or {}).get("pos_label") if len(names) == 1 else None
    of = "" if pos is None else f": the probability of label {pos!r}"
    doc = {"file": shown_path(args, args.file), "out": str(out), "calibrator": cal.name, "rows": rows,
           "columns": names}
    if pos is not None:
        doc["pos_label"] = pos
    emit(args, "", doc,
         note_text=f"{shown_path(args, args.file)}: applied {cal.name} to {count_noun(rows, 'row')} -> {out} "
                   f"(column{'s' if len(names) > 1 else ''} {', '.join(names)}{of})")
    return 0


def _recorded_column(args: argparse.Namespace, exc: VeracityError, names: list[str],
                     columns: list[str] | None) -> VeracityError:
    """``exc``, saying where a missing score column's name came from when the user did not pass --score:
    the calibrator's record of the column it was fit on, which this file may name otherwise."""
    if args.score is not None:
        return exc
    if columns is None:
        from ..sources._source import as_frame
        from ._rows import lazy_errors

        try:
            with lazy_errors("duckdb", str(args.file)):
                columns = list(as_frame(str(args.file)).columns)
        except Exception:  # noqa: BLE001 - the file's own error is the one to show
            return exc
    missing = [n for n in names if n not in columns]
    if not missing:
        return exc
    recorded = ",".join(names)
    what, verb, flag = (("score column", "is", "--score NAME") if len(names) == 1 else
                        ("score columns", "are", "--score NAME,NAME,..."))
    return VeracityError(f"{exc.message}; {recorded!r} {verb} the {what} the calibrator was fit on "
                         f"(recorded in {args.calibrator}): pass {flag} for this file's {what}", exc.param,
                         exc.hint, value=exc.value)


@contextmanager
def _named_score_columns(names: list[str]) -> Iterator[None]:
    """A calibrator's error about its ``scores`` in the file's words: "column 'p' (scores) must be ...", as
    ``veracity fit`` names the column it read (before: "scores must be ...", no column)."""
    try:
        yield
    except VeracityError as exc:
        if not exc.message.startswith("scores ") or not names:
            raise
        where = (f"column {names[0]!r}" if len(names) == 1 else
                 "columns " + ", ".join(repr(n) for n in names))
        raise VeracityError(f"{where} (scores) {exc.message[len('scores '):]}", exc.param, exc.hint,
                            value=exc.value, rows=exc.rows, n_rows=exc.n_rows) from None


def _first_bad_score(scores: np.ndarray) -> AbstractContextManager[None]:
    """:func:`._bad_rows.first_bad_row` for a fitted map's checks of ``scores``: the first data row out of
    [0, 1] (a probability map's range), or, for (N, K) scores, whose row does not sum to 1."""
    s = np.asarray(scores, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        outside: np.ndarray = np.logical_or(s < 0.0, s > 1.0)
        if s.ndim == 2:
            rows: np.ndarray = np.any(outside, axis=1)
            sums: np.ndarray = np.abs(s.sum(axis=1) - 1.0) > ROW_SUM_ATOL
            return first_bad_row(out_of_range=rows, row_sums=sums)
    return first_bad_row(out_of_range=outside)


class _StreamedScores:
    """``cal`` as a streamed apply calls it, one batch at a time, judged on the whole file as the in-memory
    apply judges it: a calibrator fit on logits warns when at least
    :data:`~veracity.calibrators._base.LOGIT_WARN_ROWS` scores all lie in [0, 1] (most likely
    ``predict_proba`` output). Judged per batch, batches under 100 rows never warned (``--batch-rows 50``,
    or a glob of files of 50 rows each: 6,000 probabilities read as logits in silence) and larger ones
    warned once per batch, each counting its batch's rows; here the batches' own warning is silenced and
    :meth:`warn_probabilities` says it once, with the input's count and extremes."""

    def __init__(self, cal: Any) -> None:
        self.cal = cal
        self.name = cal.name
        self.n, self.low, self.high = 0, math.inf, -math.inf

    def __getattr__(self, attr: str) -> Any:  # everything but transform is the calibrator's own
        return getattr(self.cal, attr)

    def transform(self, scores: Any, *features: Any) -> Any:
        if self.cal.score_type != "logit":
            return self.cal.transform(scores, *features)
        s = np.asarray(scores, dtype=np.float64)
        if s.size:
            with np.errstate(invalid="ignore"):  # a NaN is the calibrator's error to raise
                self.n += int(s.size)
                self.low, self.high = min(self.low, float(np.min(s))), max(self.high, float(np.max(s)))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=f"this {re.escape(self.name)} was fit on logits",
                                    category=VeracityWarning)
            return self.cal.transform(scores, *features)

    def warn_probabilities(self) -> None:
        if self.n >= LOGIT_WARN_ROWS and self.low >= 0.0 and self.high <= 1.0:
            said = logits_look_like_probabilities(self.name, self.n, self.low, self.high)
            warnings.warn(said, stacklevel=2)


def _refuse_csv_set(path: str) -> None:
    """A folder or a glob that names no Parquet files (which are streamed), refused in words that say what
    apply reads: read as one file, a glob of CSV files said "file not found: logs/*.csv; check the path"
    of files that are there, and a folder of them "is a directory; pass a CSV or Parquet file"."""
    from .._files import expand, path_state

    found, is_dir = path_state(Path(path))
    if found and not is_dir or not found and not any(ch in path for ch in "*?["):
        return  # one file (its name may hold '[' or '*'), or none: the reader says which
    advice = "apply streams a folder or a glob of Parquet files and reads CSV one file at a time"
    if is_dir:
        raise VeracityError(f"{path} is a folder without .parquet files; {advice}: pass each CSV file, or "
                            "convert them to Parquet")
    files, _ = expand(path)  # its own words where nothing matches or CSV and Parquet files are mixed
    raise VeracityError(f"{path} matches {len(files)} CSV file{'s' if len(files) != 1 else ''}; {advice}: pass "
                        "each file, or convert them to Parquet")


def _as_written(table: Any, path: Path, *, keep: list[str]) -> Any:
    """``table`` (a CSV file read by the source layer) with each column of whole numbers or text that the
    read changed taken as the text of its cells, so that the output holds them as written: ids ``00501``
    were read as the integer 501 and written back so, the text ``NA`` (Namibia) or ``N/A`` read as missing
    and written as an empty cell, silently. A column is replaced only where its values, written as the
    output writes them (cast to text), differ from the file's cells; fractions, flags and times keep their
    type (``1.10`` is written ``1.1``: the same number), as do the columns named in ``keep``."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    kinds = (pa.types.is_integer, pa.types.is_decimal, pa.types.is_string, pa.types.is_null)
    names = [f.name for f in table.schema if any(kind(f.type) for kind in kinds) and f.name not in keep]
    if not names or path.name.lower().endswith(_PARQUET):
        return table
    # only an empty cell is missing
    convert = pacsv.ConvertOptions(include_columns=names, column_types={n: pa.string() for n in names},
                                   null_values=[""], strings_can_be_null=True)
    text = pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter=source._delimiter(path)),
                          convert_options=convert)
    for name in names:
        i, cells = table.schema.get_field_index(name), text.column(name)
        if not table.column(i).cast(pa.string()).equals(cells):
            table = table.set_column(i, pa.field(name, pa.string()), cells)
    return table


def feature_columns(cal: Any) -> list[str]:
    """The columns a calibrator reads beside its score: a segment calibrator's features (each read from the
    file's column of that name, as ``SegmentCalibration.transform(frame, score=...)`` reads a frame's), else
    none."""
    return [sp.name for sp in getattr(cal, "specs_", None) or []] if cal.kind == "segment" else []


def run(args: argparse.Namespace) -> int:
    from ..frames._apply import BATCH_ROWS, apply_stream, is_parquet_source

    cal = load_calibrator(args.calibrator)
    features = feature_columns(cal)
    spec = args.score or cal.metadata.get("score_column")
    if not spec:
        raise VeracityError("the calibrator does not record its score column; pass --score")
    if not args.column.strip() or any(not ch.isprintable() for ch in args.column):
        raise VeracityError(f"--column {args.column!r} is empty or holds control characters; pass a plain name "
                            "for the output column, e.g. --column calibrated")
    if args.batch_rows is not None and args.batch_rows < 1:
        raise VeracityError(f"--batch-rows must be a positive integer, got {args.batch_rows}")
    out = Path(args.out)
    _refuse_other_format(out)
    streamed = is_parquet_source(str(args.file))
    if streamed:
        names = feature_names(spec, path=str(args.file))  # as --score reads them: "p,1" may be one column
        if not names:
            raise VeracityError("--score needs a column name (or comma-separated names for multiclass)")
        seen = _StreamedScores(cal)
        try:
            done = apply_stream(seen, args.file, out, score=names, column=args.column,
                                batch_rows=args.batch_rows or BATCH_ROWS, features=features)
        except VeracityError as exc:
            raise _recorded_column(args, exc, names, None) from None
        seen.warn_probabilities()
        return _report(args, cal, done.rows, list(done.columns), out)
    if args.batch_rows is not None:  # the whole file is read into memory: the batch size changed nothing
        raise VeracityError(f"--batch-rows sizes the batches of streamed Parquet input, and {shown_path(args, args.file)} is not "
                            "Parquet (it is read into memory whole); drop --batch-rows, or convert the file "
                            "to Parquet to stream it")
    _refuse_csv_set(str(args.file))
    table = source.read_table(args.file)
    try:
        scores = source.score_matrix(table, spec, path=args.file)
    except VeracityError as exc:
        names = feature_names(spec, columns=table.column_names)
        raise _recorded_column(args, exc, names, table.column_names) from None
    if features:
        from ..sources._source import require_columns

        require_columns(features, table.column_names, where=shown_path(args, args.file))
    with _named_score_columns(feature_names(spec, columns=table.column_names)), _first_bad_score(scores):
        reads: Any = cal  # a segment calibrator's transform(scores, features)
        p = (reads.transform(scores, {f: table.column(f) for f in features}) if features
             else cal.transform(scores))
    if p.ndim == 1:
        names, cols = [args.column], [p]
    else:
        names = [f"{args.column}_{k}" for k in range(p.shape[1])]
        cols = [p[:, k] for k in range(p.shape[1])]
    # every other column as written (the score columns: the numbers the calibrator read)
    table = _as_written(table, Path(args.file), keep=feature_names(spec, columns=table.column_names))
    clash = [n for n in names if n in table.column_names]
    if clash:
        raise VeracityError(
            f"column {clash[0]!r} already exists in {args.file}; pass --column NAME for the output")
    for n, c in zip(names, cols):
        table = table.append_column(n, from_numpy(np.asarray(c)))  # pa.array(c), without importing pandas
    write_table(table, out)
    return _report(args, cal, table.num_rows, names, out)
