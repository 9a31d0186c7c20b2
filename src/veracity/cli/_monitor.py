"""Calibration over time: one row per period, with label maturity and a history.

Streams the file in batches (files larger than memory work), so bins are
equal-width. Each period shows labelled and pending rows, mean confidence vs
observed rate with its interval, ECE, Brier and NLL, and a status
(ok / alert / insufficient). Examples:

    veracity monitor --period month                       # the bundled demo data
    veracity monitor log.parquet --time ts --freq W --as-of 2026-06-30 --horizon 30
    veracity monitor new_rows.csv --period month --history calib-history.json

With --history, the file's per-period statistics are added to those saved in
the history file (created if missing) and the whole timeline is printed; feed
each batch of labelled rows once.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from ..core._stats import BinStats, merge_histograms, merge_into
from ..core._validation import VeracityError
from ..datasets import demo_path
from ..engines import scan_file
from ..monitoring import period_keys, summarize_periods
from ._common import add_input_arguments, add_json_argument, emit

HISTORY_FORMAT = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--period", default=None, help="column holding the period key (e.g. month)")
    group.add_argument("--time", default=None, help="column of prediction timestamps (use with --freq)")
    parser.add_argument("--freq", default="M", choices=["D", "W", "M", "Q", "Y"],
                        help="period length for --time (default: M)")
    parser.add_argument("--mature", default=None,
                        help="boolean column: true when the row's label is final")
    parser.add_argument("--as-of", default=None,
                        help="with --time and --horizon: labels are final when time + horizon <= as-of")
    parser.add_argument("--horizon", type=float, default=None, help="label horizon in days")
    parser.add_argument("--bins", type=int, default=10, help="equal-width bins (default: 10)")
    parser.add_argument("--min-count", type=int, default=100,
                        help="periods with fewer labelled rows are 'insufficient' (default: 100)")
    parser.add_argument("--level", type=float, default=0.95, help="interval level (default: 0.95)")
    parser.add_argument("--reference", default=None, metavar="PERIOD",
                        help="period whose score distribution the PSI compares against (default: the first)")
    parser.add_argument("--history", default=None, metavar="PATH",
                        help="JSON history of per-period statistics to add this file to")
    add_json_argument(parser)


def _load_history(
    path: Path, edges: np.ndarray
) -> tuple[dict[str, BinStats], dict[str, int], dict[str, np.ndarray]]:
    if not path.exists():
        return {}, {}, {}
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise VeracityError(f"history {path} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if doc.get("format") != HISTORY_FORMAT:
        raise VeracityError(f"history {path} has format {doc.get('format')!r}; expected {HISTORY_FORMAT}")
    stats = {k: BinStats.from_dict(v) for k, v in doc.get("periods", {}).items()}
    for key, s in stats.items():
        if not np.array_equal(s.edges, edges):
            raise VeracityError(
                f"history {path} was built with {s.n_bins} bins but --bins is {edges.size - 1}; "
                "use the same --bins"
            )
    histograms = {k: np.asarray(v, dtype=np.float64) for k, v in doc.get("histograms", {}).items()}
    return stats, {k: int(v) for k, v in doc.get("pending", {}).items()}, histograms


def run(args: argparse.Namespace) -> int:
    path = args.file if args.file is not None else demo_path()
    if args.period is None and args.time is None:
        raise VeracityError("say how rows map to periods: --period COL (a key) or --time COL (timestamps)")
    if (args.as_of is None) != (args.horizon is None):
        raise VeracityError("--as-of and --horizon go together (labels are final when time + horizon <= as-of)")
    if args.as_of is not None and args.time is None:
        raise VeracityError("--as-of/--horizon need --time COL with the prediction timestamps")
    if args.bins < 1:
        raise VeracityError(f"--bins must be a positive integer, got {args.bins}")
    edges = np.arange(args.bins + 1) / args.bins
    group_keys = (lambda t: period_keys(t, args.freq)) if args.time else None
    mature_from_group = None
    if args.as_of is not None:
        try:
            as_of = np.datetime64(args.as_of, "s")
        except ValueError:
            raise VeracityError(f"--as-of must be a date like 2026-06-30, got {args.as_of!r}") from None
        horizon = np.timedelta64(int(round(args.horizon * 86400)), "s")

        def mature_from_group(t: np.ndarray) -> np.ndarray:
            return (t.astype("datetime64[s]") + horizon) <= as_of

    scan = scan_file(
        path,
        score=args.score,
        label=args.label,
        edges=edges,
        weight=args.weight,
        group=args.period or args.time,
        mature=args.mature,
        score_type=args.score_type,
        group_keys=group_keys,
        mature_from_group=mature_from_group,
    )
    stats, pending, histograms = dict(scan.groups), dict(scan.pending), dict(scan.histograms)
    if args.history:
        hist_path = Path(args.history)
        old_stats, old_pending, old_histograms = _load_history(hist_path, edges)
        stats = merge_into(old_stats, stats)
        histograms = merge_histograms(old_histograms, histograms)
        for k, v in pending.items():
            old_pending[k] = old_pending.get(k, 0) + v
        pending = old_pending
        hist_path.write_text(json.dumps({
            "format": HISTORY_FORMAT,
            "bins": args.bins,
            "periods": {k: s.to_dict() for k, s in sorted(stats.items())},
            "pending": pending,
            "histograms": {k: h.tolist() for k, h in sorted(histograms.items())},
        }) + "\n")
    result = summarize_periods(dict(sorted(stats.items())), pending=pending, histograms=histograms,
                               reference=args.reference, level=args.level, min_count=args.min_count)
    text = f"{path}: {scan.rows_read} rows read\n{result}"
    if args.history:
        text += f"\n(history: {len(stats)} periods in {args.history})"
    emit(args, text, {"file": str(path), "rows_read": scan.rows_read, **result.to_dict()})
    return 0
