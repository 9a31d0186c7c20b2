"""Audit the calibration of a scored CSV or Parquet file.

Prints the reliability table (counts, confidence, observed frequency, gap,
binomial interval, insufficient bins flagged) and ECE, MCE, Brier and its
decomposition, NLL, accuracy and AUC. Without FILE it audits the bundled demo
data. Example:

    veracity audit scores.parquet --score p --label y --by segment --json audit.json

How far the numbers can be trusted: ``--noise-floor`` (expected ECE of a perfectly
calibrated model, with a p-value), ``--bootstrap`` (bootstrap intervals; ``--ci`` is the old name), ``--estimators``
(plug-in, debiased and smooth ECE), ``--tests`` (Spiegelhalter, Hosmer-Lemeshow,
calibration slope), ``--corp`` (MCB - DSC + UNC); ``--honest`` turns them all on:

    veracity audit scores.csv --bins auto --honest --resamples 1000 --random-state 0
"""

from __future__ import annotations

import argparse

from .. import io
from ..core._audit import audit
from ._common import add_input_arguments, add_json_argument, emit, inputs, load, shown_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--bins", type=_bins, default=15,
                        help="number of bins, or 'auto' for ceil(N^(1/3)) (default: 15)")
    parser.add_argument("--strategy", default="uniform", choices=["uniform", "quantile", "equal-count"],
                        help="equal-width or equal-mass bins (default: uniform)")
    parser.add_argument("--interval", default="wilson", choices=["wilson", "clopper-pearson"],
                        help="per-bin binomial interval (default: wilson)")
    parser.add_argument("--level", type=float, default=0.95, help="interval level (default: 0.95)")
    parser.add_argument("--min-count", type=int, default=20,
                        help="bins with fewer rows are flagged insufficient (default: 20)")
    parser.add_argument("--threshold", type=float, default=0.5,
                        help="decision threshold for accuracy (default: 0.5)")
    parser.add_argument("--by", default=None, help="column to slice by (one audit per value)")
    parser.add_argument("--max-groups", type=int, default=100, metavar="N",
                        help="at most N slices with --by; smaller ones are pooled as '(other ...)' (default: 100)")
    parser.add_argument("--engine", default="memory", choices=["memory", "duckdb"],
                        help="memory: load the file (default); duckdb: audit out of core inside "
                             "DuckDB (files larger than memory, globs such as 'logs/*.parquet'; "
                             "equal-width bins, exact AUC; needs veracity[duckdb])")
    honest = parser.add_argument_group("honest estimators (how far the numbers can be trusted)")
    honest.add_argument("--bootstrap", "--ci", dest="ci", nargs="?", const="bca", default=None,
                        choices=["percentile", "bca"],
                        help="bootstrap intervals for ECE, MCE, Brier, NLL, AUC, accuracy "
                             "(default method when given: bca)")
    honest.add_argument("--noise-floor", action="store_true",
                        help="expected ECE if the model were perfectly calibrated, with a p-value")
    honest.add_argument("--estimators", action="store_true",
                        help="plug-in, debiased and smooth ECE side by side")
    honest.add_argument("--tests", action="store_true",
                        help="Spiegelhalter z, Hosmer-Lemeshow, calibration-in-the-large and slope")
    honest.add_argument("--corp", action="store_true",
                        help="CORP (PAV) reliability curve: MCB - DSC + UNC for Brier and log loss")
    honest.add_argument("--honest", action="store_true",
                        help="all of the above (--bootstrap bca --noise-floor --estimators --tests --corp)")
    honest.add_argument("--resamples", type=int, default=1000,
                        help="bootstrap resamples and noise-floor redraws (default: 1000)")
    honest.add_argument("--random-state", "--seed", dest="seed", type=int, default=0,
                        help="random seed (default: 0; --seed is the old name)")
    add_json_argument(parser)


def _bins(value: str) -> int | str:
    if value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a positive integer or 'auto', got {value!r}"
        ) from None


def _run_duckdb(args: argparse.Namespace) -> int:
    from ..core._validation import VeracityError
    from ..datasets import demo_path
    from ..engines import audit_duckdb

    extras = [flag for flag, on in [("--bootstrap", args.ci), ("--noise-floor", args.noise_floor),
              ("--estimators", args.estimators), ("--tests", args.tests), ("--corp", args.corp),
              ("--honest", args.honest)] if on]
    if extras:
        raise VeracityError(
            f"--engine duckdb computes the core audit only; drop {', '.join(extras)} or use --engine memory"
        )
    if args.strategy != "uniform" or args.bins == "auto":
        raise VeracityError("--engine duckdb uses equal-width bins: pass an integer --bins and --strategy uniform")
    if "," in args.score:
        raise VeracityError("--engine duckdb audits binary scores; pass one --score column")
    path = args.file if args.file is not None else str(demo_path())
    result = audit_duckdb(
        path, score=args.score, label=args.label, weight=args.weight, by=args.by, bins=args.bins,
        score_type=args.score_type, interval=args.interval, level=args.level,
        min_count=args.min_count, threshold=args.threshold,
    )
    payload = {"file": path, "score": args.score, "label": args.label, "engine": "duckdb", **result.to_dict()}
    emit(args, str(result), payload, note_text=f"{shown_path(args, path)} (DuckDB engine)")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.engine == "duckdb":
        return _run_duckdb(args)
    table, path = load(args)
    scores, labels, weights = inputs(table, args, path)
    by = io.column(table, args.by, path=path) if args.by else None
    result = audit(
        scores,
        labels,
        bins=args.bins,
        strategy=args.strategy,
        score_type=args.score_type,
        interval=args.interval,
        level=args.level,
        min_count=args.min_count,
        threshold=args.threshold,
        sample_weight=weights,
        by=by,
        by_name=args.by,
        max_groups=args.max_groups,
        bootstrap=args.ci or ("bca" if args.honest else False),
        n_resamples=args.resamples,
        noise_floor=args.noise_floor or args.honest,
        random_state=args.seed,
        estimators=args.estimators or args.honest,
        tests=args.tests or args.honest,
        corp=args.corp or args.honest,
    )
    payload = {"file": path, "score": args.score, "label": args.label, **result.to_dict()}
    emit(args, str(result), payload, note_text=shown_path(args, path))
    return 0
