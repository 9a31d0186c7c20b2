"""Where is the model miscalibrated? Every segment over the named features, tested.

Categorical features split by level (rare levels pooled into "other"), numeric features
by equal-mass bins, and their intersections up to --depth. Each segment with at least
--min-count rows gets its gap (observed rate - mean score) with an interval, a test of
calibration-in-the-large and a q-value (Benjamini-Hochberg for single features,
Benjamini-Yekutieli for intersections); the table lists the discoveries, most
important first, and MCGrad's multicalibration error over the same segments.
The file is read where it is (DuckDB): only aggregates come back. Example:

    veracity segments scores.parquet --score p --label y --features region,age,device --depth 2 --json
"""

from __future__ import annotations

import argparse

from ..core._validation import VeracityError
from ..segments import segments
from ..segments._api import UNUSED_BINS
from ._bad_rows import locate
from ._common import add_json_argument, emit, feature_names, shown_path
from ._labels import add_pos_label_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="CSV or Parquet file of scored rows ('-' reads stdin)")
    parser.add_argument("--score", default="score", help="score column (default: score)")
    parser.add_argument("--label", default="label",
                        help="label column: 0/1 or true/false, another two-valued column with --pos-label "
                             "(default: label)")
    parser.add_argument("--sample-weight", dest="weight", default=None, metavar="COL",
                        help="column of non-negative row weights (default: none, every row weighs 1)")
    parser.add_argument("--score-type", default="probability", choices=["probability", "logit"],
                        help="what the --score values are: probability (in [0, 1]) or logit (log-odds); a "
                             "ranking score (--score-type score elsewhere) has no calibration to test: "
                             "calibrate it first (default: probability)")
    parser.add_argument("--features", default=None, metavar="COL[,COL...]",
                        help="comma-separated feature columns, e.g. region,age (read as --score reads columns: "
                             "a column named 'a,b' is one feature)")
    parser.add_argument("--feature", action="append", default=[], metavar="COL",
                        help="one feature column, its name taken as written, commas included (repeatable; "
                             "adds to --features)")
    parser.add_argument("--depth", type=int, default=None,
                        help="largest number of features in a segment (default: 2, or 1 with one feature)")
    parser.add_argument("--bins", type=int, default=None,
                        help="equal-mass bins of each numeric feature (default: 5; refused where no feature "
                             "is numeric: it would change nothing)")
    parser.add_argument("--min-count", type=int, default=50,
                        help="segments with fewer rows are insufficient: shown, not tested (default: 50)")
    parser.add_argument("--fdr", type=float, default=0.05,
                        help="false-discovery rate of the discoveries, in (0, 1) (default: 0.05)")
    parser.add_argument("--level", type=float, default=0.95,
                        help="level of each segment's interval of its gap, in (0, 1) (default: 0.95)")
    parser.add_argument("--n-resamples", type=int, default=199, metavar="R",
                        help="draws under calibration behind the MCE's p-value (default: 199; its smallest "
                             "value is 1/(R + 1))")
    parser.add_argument("--random-state", type=int, default=0, metavar="SEED",
                        help="random_state of those draws (default: 0, reproducible)")
    parser.add_argument("--all", action="store_true", help="print every segment, not only the discoveries")
    add_pos_label_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    features = [*feature_names(args.features, args.file), *args.feature]
    if not features:
        raise VeracityError("segments needs feature columns: pass --features region,age (or --feature NAME, "
                            "once per column)")
    if args.all and args.json == "-":  # the table --all widens is not printed; the JSON lists every segment
        raise VeracityError("--all prints every segment in the table, and --json - prints the JSON instead, "
                            "whose 'segments' lists every segment already; drop --all, or write the JSON to "
                            "a file (--json PATH) to print the table too")
    if args.random_state < 0:  # the library's words ("a numpy Generator or None") name no command-line value
        raise VeracityError(f"--random-state must be a non-negative integer (the seed of the draws), got "
                            f"{args.random_state}")
    try:
        res = segments(args.file, score=args.score, label=args.label, features=features, depth=args.depth,
                       bins=args.bins, min_count=args.min_count, fdr=args.fdr, sample_weight=args.weight,
                       pos_label=args.pos_label, score_type=args.score_type, n_resamples=args.n_resamples,
                       random_state=args.random_state, level=args.level)
    except VeracityError as exc:  # the first bad row's data row, as the other commands name it
        raise locate(exc, str(args.file), [args.score], args) from None
    if args.bins is not None and any(UNUSED_BINS in note for note in res.notes):  # no numeric feature
        raise VeracityError(f"--bins cuts numeric features into equal-mass bins, and none of --features "
                            f"{', '.join(res.features)} is numeric (their levels are their values); "
                            "drop --bins")
    # --all: every segment's row, under the same header (the FDR, the family, what was tested) and notes
    text = res._text(every=args.all)
    emit(args, text, {"file": shown_path(args, args.file), **res.to_dict()}, note_text=shown_path(args, args.file))
    return 0
