"""Audit the calibration of a scored CSV or Parquet file.

Prints the reliability table (counts, confidence, observed frequency, gap,
binomial interval, insufficient bins flagged) and ECE, MCE, Brier and its
decomposition, NLL, accuracy and AUC. Without FILE it audits the bundled demo
data. Example:

    veracity audit scores.parquet --score p --label y --by segment --json audit.json
"""

from __future__ import annotations

import argparse

from .. import io
from .._audit import audit
from ._common import add_input_arguments, add_json_argument, emit, inputs, load


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--bins", type=int, default=15, help="number of bins (default: 15)")
    parser.add_argument("--strategy", default="uniform", choices=["uniform", "quantile"],
                        help="equal-width or equal-mass bins (default: uniform)")
    parser.add_argument("--interval", default="wilson", choices=["wilson", "clopper-pearson"],
                        help="per-bin binomial interval (default: wilson)")
    parser.add_argument("--level", type=float, default=0.95, help="interval level (default: 0.95)")
    parser.add_argument("--min-count", type=int, default=20,
                        help="bins with fewer rows are flagged insufficient (default: 20)")
    parser.add_argument("--threshold", type=float, default=0.5,
                        help="decision threshold for accuracy (default: 0.5)")
    parser.add_argument("--by", default=None, help="column to slice by (one audit per value)")
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
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
    )
    payload = {"file": path, "score": args.score, "label": args.label, **result.to_dict()}
    emit(args, f"{path}\n{result}", payload)
    return 0
