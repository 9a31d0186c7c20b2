"""Apply a saved calibrator to a scored file and write the calibrated probabilities.

Writes every input column plus ``calibrated`` (binary) or ``calibrated_0..K-1``
(multiclass) to OUT (CSV, or Parquet for .parquet/.pq). The score column
defaults to the one the calibrator was fit on. Example:

    veracity apply cal.json scores.csv --out calibrated.parquet
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import io
from ..core._validation import VeracityError
from ..calibrators import load as load_calibrator


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("calibrator", help="JSON artifact written by `veracity fit`")
    parser.add_argument("file", help="CSV or Parquet file of scored rows")
    parser.add_argument("--out", required=True, help="output CSV or Parquet path")
    parser.add_argument("--score", default=None,
                        help="score column(s) (default: the column the calibrator was fit on)")
    parser.add_argument("--column", default="calibrated",
                        help="name of the output column (default: calibrated)")
    from ._common import add_json_argument

    add_json_argument(parser)


def write_table(table, out: Path) -> None:  # type: ignore[no-untyped-def]
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from ._common import write_output

    if out.suffix.lower() in (".parquet", ".pq"):
        write_output(out, lambda tmp: pq.write_table(table, tmp))
    else:
        write_output(out, lambda tmp: pacsv.write_csv(table, tmp))


def run(args: argparse.Namespace) -> int:
    import pyarrow as pa

    cal = load_calibrator(args.calibrator)
    table = io.read_table(args.file)
    spec = args.score or cal.metadata.get("score_column")
    if not spec:
        raise VeracityError("the calibrator does not record its score column; pass --score")
    scores = io.score_matrix(table, spec, path=args.file)
    p = cal.transform(scores)
    if p.ndim == 1:
        names, cols = [args.column], [p]
    else:
        names = [f"{args.column}_{k}" for k in range(p.shape[1])]
        cols = [p[:, k] for k in range(p.shape[1])]
    clash = [n for n in names if n in table.column_names]
    if clash:
        raise VeracityError(
            f"column {clash[0]!r} already exists in {args.file}; pass --column NAME for the output")
    for n, c in zip(names, cols):
        table = table.append_column(n, pa.array(c))
    out = Path(args.out)
    write_table(table, out)
    from ._common import emit, shown_path

    emit(args, "", {"file": shown_path(args, args.file), "out": str(out), "calibrator": cal.name,
                    "rows": table.num_rows, "columns": names},
         note_text=f"{shown_path(args, args.file)}: applied {cal.name} to {table.num_rows} rows -> {out} "
               f"(column{'s' if len(names) > 1 else ''} {', '.join(names)})")
    return 0
