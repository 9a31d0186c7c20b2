"""Calibration over time from a monitoring store (a DuckDB file).

Predictions are logged once, outcomes are joined by id when they arrive, and
status is computed from the store per period and slice:

    veracity monitor init monitor.duckdb
    veracity monitor log monitor.duckdb day1.csv --id id --time ts --score p --by segment
    veracity monitor outcomes monitor.duckdb labels.csv --id id --label y --time observed
    veracity monitor status monitor.duckdb --freq W --horizon 30d --fail-on-alert
    veracity monitor recalibrate monitor.duckdb --method platt --freq W --out cal.json

Re-sending rows is a no-op; a conflicting re-send is refused (or --replace);
each ingest is one transaction. `veracity monitor scan FILE` is the one-off
per-period table of a single file, without a store. Needs DuckDB:
pip install veracity[duckdb].

Exit codes: 0 success; 1 an alert, only with status --fail-on-alert; 2 bad
input; 75 store busy (another process held the store past --timeout: retry later).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from .._files import _PARQUET
from ..core._text import count_noun
from ..core._validation import VeracityError
from ._bad_rows import data_rows
from ._common import add_engine_arguments, add_input_arguments, emit
from ._labels import add_pos_label_argument

ACTIONS = ("init", "log", "outcomes", "status", "plan", "recalibrate", "scan")


#: what each sub-command does, shown by ``veracity monitor COMMAND --help``
_DESCRIPTIONS = {
    "init": "Create an empty monitoring store (a DuckDB file) to log predictions and outcomes into.",
    "log": "Store predictions (id, time, score and slice columns) from a CSV or Parquet file; "
           "re-sending a stored row is a no-op; a changed score or time is refused unless --replace.",
    "outcomes": "Store outcomes (0/1 labels) from a CSV or Parquet file, joined to the stored predictions by id.",
    "status": "Calibration per period and slice from the store: reliability, ECE with intervals, label "
              "maturity, alerts and a diagnosis of what drifted.",
    "plan": "How many randomly chosen rows to label per window (an audit sample, sent with outcomes "
            "--audit-sample) for a PPI interval of a given width on the window's rate, from the scores' own "
            "variance; beside it the labels an interval from labels alone would need.",
    "recalibrate": "Fit a calibrator on a mature window of the store and report it on the next window "
                   "(a ledger of before and after).",
    "scan": "A one-off per-period calibration table of one file, without a store.",
}


def _json_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", nargs="?", const="-", default=None, metavar="PATH|-",
                   help="print the result as JSON instead of the table (--json or --json -), or also write "
                        "it to PATH")


def _store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("store", metavar="STORE", help="the monitoring store (a DuckDB file, e.g. monitor.duckdb)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds to wait while another process writes the store; past it the command "
                        "exits 75 (store busy: try again later) (default: 60)")


def _max_periods_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-periods", type=int, default=1000, metavar="N",
                   help="refuse to list more than N periods from the earliest prediction to the latest (a "
                        "mistyped year makes thousands of empty ones; the error names them) (default: 1000)")


def _period_args(p: argparse.ArgumentParser, min_count: str | None = None) -> None:
    """The periods' options; ``min_count``: the help of ``--min-count`` and ``--bins`` (what the action
    does with them), None for an action that reads neither (``plan``: given, they changed nothing)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--freq", default=None, choices=["D", "W", "M", "Q"],
                   help="calendar periods: days, ISO weeks (Monday..Sunday), months, quarters (default: W)")
    g.add_argument("--window", default=None, help="rolling windows ending at --as-of, e.g. 7d or 12h")
    p.add_argument("--as-of", default=None, help="evaluate as of this UTC date/time (default: now)")
    p.add_argument("--horizon", default=None,
                   help="label maturity: a label counts once time + horizon <= as-of; 30d, 12h, 2w or a "
                        "number of days (default: a stored outcome counts as soon as it arrives)")
    p.add_argument("--by", default=None, metavar="COL", help="slice column logged with --by")
    p.add_argument("--model", default=None, help="only predictions logged with this --model")
    if min_count is None:
        return
    p.add_argument("--min-count", type=int, default=100, help=f"{min_count} (default: 100)")
    p.add_argument("--bins", type=int, default=15, help="equal-width reliability bins (default: 15, as veracity audit)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    p = sub.add_parser("init", description=_DESCRIPTIONS["init"],
                       help="create a monitoring store")
    _store_arg(p)
    _json_arg(p)

    p = sub.add_parser("log", description=_DESCRIPTIONS["log"],
                       help="store predictions (id, time, score, slices)")
    _store_arg(p)
    p.add_argument("file", metavar="FILE", help="CSV or Parquet file of predictions")
    p.add_argument("--id", required=True, help="prediction id column (the key)")
    p.add_argument("--time", required=True,
                   help="prediction time column (timestamps, ISO strings or epoch seconds; stored as UTC)")
    p.add_argument("--score", required=True, help="column of predicted probabilities, in [0, 1]")
    p.add_argument("--by", action="append", default=[], metavar="COL", help="slice column (repeatable)")
    p.add_argument("--model", default=None, help="model name/version recorded with these predictions")
    p.add_argument("--replace", action="store_true", help="overwrite stored rows whose score or time differ")
    _json_arg(p)

    p = sub.add_parser("outcomes", description=_DESCRIPTIONS["outcomes"],
                       help="store outcomes (labels) joined by prediction id")
    _store_arg(p)
    p.add_argument("file", metavar="FILE", help="CSV or Parquet file of outcomes")
    p.add_argument("--id", required=True, help="prediction id column")
    p.add_argument("--label", required=True, help="label column (0/1 or true/false; text with --pos-label)")
    add_pos_label_argument(p)
    p.add_argument("--time", default=None, help="when each outcome was observed (default: now)")
    p.add_argument("--replace", action="store_true",
                   help="overwrite stored outcomes whose label differs (an audit-sample mark stays)")
    p.add_argument("--audit-sample", action="store_true",
                   help="these labels are a RANDOM audit sample (rows chosen at random and labelled on purpose): "
                        "status uses them for prediction-powered estimates before the other labels mature; "
                        "the mark stays with the row when the full label feed sends the same label again")
    _json_arg(p)

    p = sub.add_parser("status", description=_DESCRIPTIONS["status"],
                       help="calibration per period and slice, alerts and diagnosis")
    _store_arg(p)
    _period_args(p, "fewest labelled rows for a calibration alert")
    p.add_argument("--level", type=float, default=0.95,
                   help="level of the printed intervals, in (0, 1) (default: 0.95)")
    p.add_argument("--alert-level", type=float, default=0.99,
                   help="in (0, 1): a window's three alert tests run at (1 - ALERT_LEVEL)/3 each, so a "
                        "calibrated, stationary window alerts with probability at most 1 - ALERT_LEVEL "
                        "(default: 0.99)")
    p.add_argument("--reference", default=None, metavar="PERIOD",
                   help="reference period for the score shift and the prior (default: first with enough labels)")
    p.add_argument("--threshold", type=float, default=0.5,
                   help="deployed decision threshold for the label-free estimate and the PPI confusion and cost "
                        "(default: 0.5)")
    p.add_argument("--cost-fp", type=float, default=1.0, help="cost of a false positive (default: 1)")
    p.add_argument("--cost-fn", type=float, default=1.0, help="cost of a false negative (default: 1)")
    p.add_argument("--fail-on-alert", action="store_true",
                   help="exit with code 1 when any listed period alerts (with --since/--last: only those); "
                        "bad input still exits 2, a busy store 75")
    p.add_argument("--since", default=None, metavar="WHEN",
                   help="list (and count the alerts of) only the periods that end after WHEN: a UTC "
                        "date/time, or a period key as the status prints it (2026-W10, 2026-03, 2026Q1), which "
                        "lists that period on; the reference and the numbers stay those of the full listing "
                        "(default: every period from the first prediction)")
    p.add_argument("--last", default=None, metavar="N",
                   help="list only the last N periods up to the one holding --as-of (1: that one)")
    p.add_argument("--alerts", default="window", choices=["window", "sequential"],
                   help="window: a fixed-sample test per window; sequential: anytime-valid confidence sequences "
                        "on mean(y - p), overall and per score bin (the false-alarm level, 1 - alert level per "
                        "cohort, holds however often you look) (default: window)")
    p.add_argument("--tolerance", type=float, default=0.0,
                   help="with --alerts sequential only (refused with --alerts window, whose tests it would not "
                        "change): a gap |rate - conf| this small counts as calibrated (default: 0)")
    p.add_argument("--segments", action="store_true",
                   help="per window, search the logged slice columns for miscalibrated segments (vc.segments; "
                        "JSON key 'segments')")
    _max_periods_arg(p)
    # None: not given (refused without --by)
    p.add_argument("--max-slices", type=int, default=None, metavar="N",
                   help="with --by: the N slices with most rows keep their name, the rest are pooled into "
                        "'(other)' (default: 20)")
    _json_arg(p)

    p = sub.add_parser("plan", description=_DESCRIPTIONS["plan"],
                       help="labels to draw at random per window for a PPI interval of a given width")
    _store_arg(p)
    _period_args(p)  # no --min-count, no --bins: the plan reads neither (accepted, they changed nothing)
    p.add_argument("--width", type=float, required=True, help="full width of the interval on the rate, e.g. 0.02")
    p.add_argument("--level", type=float, default=0.95,
                   help="level of that interval, in (0, 1) (default: 0.95)")
    _json_arg(p)

    p = sub.add_parser("recalibrate", description=_DESCRIPTIONS["recalibrate"],
                       help="fit a calibrator on a mature window, ledger on the next")
    _store_arg(p)
    _period_args(p, "fewest labelled rows of the period the calibrator is fit on (--fit)")
    p.add_argument("--method", default="platt", metavar="METHOD",
                   help="calibration method, as veracity fit --method: temperature, platt, isotonic, "
                        "histogram, beta or venn-abers (default: platt)")
    p.add_argument("--fit", default=None, metavar="PERIOD",
                   help="fit period, with at least --min-count labelled rows (default: the last such period "
                        "followed by a labelled one)")
    p.add_argument("--slice", default=None, help="with --by: the slice value to recalibrate")
    p.add_argument("--out", default=None, help="write the calibrator's JSON artifact here")
    _max_periods_arg(p)
    _json_arg(p)

    p = sub.add_parser("scan", description=_DESCRIPTIONS["scan"],
                       help="one-off per-period table of one file (no store)")
    add_input_arguments(p, no_ranking="the table reads probabilities")
    add_pos_label_argument(p)
    add_engine_arguments(p, "where the rows are grouped: auto (default: DuckDB for a glob, a folder of Parquet "
                            "or a file over 256 MB, else in memory), memory, duckdb, spark or dask; every "
                            "engine gives the same numbers")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--period", default=None, help="column holding the period key (e.g. month)")
    g.add_argument("--time", default=None, help="column of prediction timestamps (use with --freq)")
    p.add_argument("--freq", default=None, choices=["D", "W", "M", "Q", "Y"], help="period for --time (default: M)")
    p.add_argument("--mature", default=None, help="boolean column: true when the row's label is final")
    p.add_argument("--as-of", default=None,
                   help="with --time and --horizon: labels final when time + horizon <= as-of; rows "
                        "dated after as-of are left out (not yet predicted)")
    p.add_argument("--horizon", default=None, help="label horizon (e.g. 30d, or a number of days)")
    p.add_argument("--bins", type=int, default=15, help="equal-width bins (default: 15, as veracity audit)")
    p.add_argument("--min-count", type=int, default=100,
                   help="a period with fewer labelled rows is shown 'insufficient' (default: 100)")
    p.add_argument("--level", type=float, default=0.95,
                   help="level of each period's interval of the rate (alert: the mean confidence outside "
                        "it), in (0, 1) (default: 0.95)")
    p.add_argument("--reference", default=None, metavar="PERIOD", help="reference period for the PSI")
    _json_arg(p)


def _store(args: argparse.Namespace) -> Any:
    from ..monitoring import MonitorStore

    if args.timeout != args.timeout or args.timeout < 0:
        raise VeracityError(f"--timeout must be a number of seconds >= 0, got {args.timeout!r}")
    return MonitorStore(args.store, timeout=args.timeout)


def _input_name(args: argparse.Namespace) -> str | None:
    """``<stdin>`` for rows piped into ``-`` (read from a temporary copy, whose name the batch must not
    record), else None: the path."""
    return getattr(args, "_input_name", None)


def _periods(args: argparse.Namespace) -> dict[str, Any]:
    """The periods' options of status and recalibrate (plan has no --min-count or --bins)."""
    freq = args.freq or (None if args.window else "W")
    return dict(freq=freq, window=args.window, as_of=args.as_of, horizon=args.horizon, by=args.by,
                min_count=args.min_count, bins=args.bins, model=args.model)


def _last(text: str | None) -> int | None:
    """``--last N`` as a whole number (its range is checked with the Python keyword's words)."""
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        raise VeracityError(f"--last must be a whole number of periods, at least 1 (e.g. 1: the period "
                            f"holding the as-of time); got {text!r}") from None


def _status_only(args: argparse.Namespace) -> dict[str, Any]:
    """status's own options. ``--max-slices`` caps the slices of ``--by``: given without it (every period one
    row, whatever the store logged) it changed nothing, silently, and is refused."""
    if args.max_slices is not None and not args.by:
        raise VeracityError("--max-slices caps the slices of --by; pass --by COL too, or drop --max-slices")
    return dict(max_slices=20 if args.max_slices is None else args.max_slices, alerts=args.alerts,
                tolerance=args.tolerance, segments=args.segments, max_periods=args.max_periods)


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    if action is None:
        raise VeracityError("say what to do: veracity monitor init|log|outcomes|status|recalibrate STORE ... "
                            "(or scan FILE); see veracity monitor --help")
    if action == "scan":
        return _scan(args)
    from ..monitoring._columns import refuse_shared_columns
    store = _store(args)
    if action == "init":
        store.init()
        counts = store.counts()
        # the counts in the number they take ("1 predictions, 1 outcomes" was said of one of each)
        held = f"{count_noun(counts['predictions'], 'prediction')}, {count_noun(counts['outcomes'], 'outcome')}"
        emit(args, f"{store.path}: monitoring store ready ({held})", {"store": str(store.path), **counts})
        return 0
    if action == "log":
        refuse_shared_columns([("--id", "prediction id", args.id), ("--time", "prediction time", args.time),
                               ("--score", "score", args.score), ("--by", "slice", args.by)])
        with data_rows():  # the store reads every row of the one FILE, in order
            res = store.log(args.file, id=args.id, time=args.time, score=args.score, by=args.by,
                            model=args.model, replace=args.replace, source=_input_name(args))
        emit(args, str(res), res.to_dict())
        return 0
    if action == "outcomes":
        refuse_shared_columns([("--id", "prediction id", args.id), ("--label", "label", args.label),
                               ("--time", "time the outcome was observed", args.time)])
        with data_rows():
            res = store.outcomes(args.file, id=args.id, label=args.label, time=args.time,
                                 replace=args.replace, audit_sample=args.audit_sample,
                                 source=_input_name(args), pos_label=args.pos_label)
        emit(args, str(res), res.to_dict())
        return 0
    if action == "status":
        if args.min_count < 1:
            raise VeracityError(f"--min-count must be at least 1, got {args.min_count}")
        status = store.status(**_periods(args), level=args.level, alert_level=args.alert_level, reference=args.reference,
                              threshold=args.threshold, cost_fp=args.cost_fp, cost_fn=args.cost_fn,
                              since=args.since, last=_last(args.last), **_status_only(args))
        emit(args, str(status), {"store": str(store.path), **status.to_dict()}, note_text=str(store.path))
        return 1 if (args.fail_on_alert and status.alerts) else 0
    if action == "plan":
        freq = args.freq or (None if args.window else "W")
        plan = store.plan(width=args.width, level=args.level, freq=freq, window=args.window, as_of=args.as_of,
                          horizon=args.horizon, by=args.by, model=args.model)
        emit(args, str(plan), {"store": str(store.path), **plan.to_dict()}, note_text=str(store.path))
        return 0
    # recalibrate
    res = store.recalibrate(method=args.method, fit=args.fit, slice=args.slice, max_periods=args.max_periods,
                            **_periods(args))
    text = str(res)
    if args.out:
        out = Path(args.out)
        try:
            res.calibrator.save(out)
        except OSError as exc:
            raise VeracityError(f"could not write {out}: {exc.strerror or exc}; check the path") from None
        text += f"\nsaved to {out}"
    emit(args, text, {"store": str(store.path), "out": args.out, **res.to_dict()})
    return 0


def _scan(args: argparse.Namespace) -> int:
    """``vc.monitor`` on the file (``--engine auto``: in memory, or where it lives with DuckDB for a
    glob, a folder of Parquet or a file over 256 MB), through the rows seam like ``audit``."""
    from ..monitoring import monitor
    from ..monitoring._columns import refuse_shared_columns
    from ..monitoring._time import parse_duration, parse_instant
    from ._common import auto_engine, read_rows, score_columns, several_files

    if args.period is None and args.time is None:
        raise VeracityError("say how rows map to periods: --period COL (a key) or --time COL (timestamps)")
    if args.freq is not None and args.time is None:  # --period keys are the periods: --freq cut nothing, silently
        raise VeracityError("--freq cuts --time COL's timestamps into periods; with --period the column's keys "
                            "are the periods: drop --freq, or pass --time COL instead of --period")
    if (args.as_of is None) != (args.horizon is None):
        raise VeracityError("--as-of and --horizon go together (labels are final when time + horizon <= as-of)")
    if args.as_of is not None and args.time is None:
        raise VeracityError("--as-of/--horizon need --time COL with the prediction timestamps")
    if args.as_of is not None:  # read here first, so that a bad value is refused in the flags' words
        parse_instant(args.as_of)
        parse_duration(args.horizon)
    if args.bins < 1:
        raise VeracityError(f"--bins must be a positive integer, got {args.bins}")
    periods = args.period or args.time
    # --score, --label and --sample-weight among themselves: refused in their own words as they read the rows
    for flag, role, column in (("--score", "score", score_columns(args)), ("--label", "label", args.label),
                               ("--sample-weight", "weight", args.weight)):
        period = ("--period", "period key") if args.period else ("--time", "prediction time")
        refuse_shared_columns([(*period, periods), ("--mature", "final-label flag", args.mature),
                               (flag, role, column)])
    engine = auto_engine(args, lazy_ok=len(score_columns(args)) == 1, many=several_files(args), doing="scanning")
    rows = read_rows(args, engine, columns=(periods, args.mature),
                     pending_labels=args.mature is not None or args.as_of is not None)
    if engine == "dask" and args.time and not rows.path.lower().endswith(_PARQUET):
        rows.select = lambda frame: _dask_times(frame, args.time, rows.path)
    with data_rows():  # the period column's rows named by position: every row of FILE (its files), in order
        result = rows.call(monitor, periods=periods, freq=(args.freq or "M") if args.time else None,
                           mature=args.mature, as_of=args.as_of, horizon=args.horizon, bins=args.bins,
                           score_type=args.score_type, level=args.level, min_count=args.min_count,
                           reference=args.reference)
    emit(args, str(result), {"file": rows.path, "rows_read": result.rows_read, **result.to_dict()},
         note_text=f"{rows.note}: {count_noun(result.rows_read, 'row')} read")
    return 0


def _dask_times(frame: Any, column: str, path: str) -> Any:
    """Dask reads a CSV's times as text (DuckDB, Spark and the memory route parse them): parse a
    text --time column as the memory route does (:func:`veracity.monitoring._time.parse_time_strings`:
    ISO 8601 only, every time with a UTC offset converted to UTC or every one without read as UTC; pandas'
    own reading took ``01/02/2024`` for January 2). Numbers stay numbers (epoch seconds, as everywhere).
    Lazy: a partition is parsed when its rows are read; a text that is no ISO 8601 time is refused then,
    in the memory route's line (:func:`_not_iso_times`). The frame is still known to hold the rows of
    ``path``, so that the monitor reads the column's text as the memory route does (a mix of times with
    and without a UTC offset refused in its words before any row is parsed)."""
    import pandas as pd

    from ..monitoring._time import parse_time_strings
    from ..sources._source import opened_from

    if column not in frame.columns:  # the frame form names the missing column in its own words
        return frame
    if pd.api.types.is_numeric_dtype(frame[column].dtype) or pd.api.types.is_datetime64_any_dtype(frame[column].dtype):
        return frame
    subject = f"column {column!r} (periods) must be dates or datetimes in one ISO 8601 form, but it"

    def parse(part: Any) -> Any:
        import pyarrow as pa

        text = pa.array(part.to_numpy(dtype=object, na_value=None), type=pa.string())
        try:
            times = parse_time_strings(text, subject)  # naive UTC timestamp[us], nulls kept
        except VeracityError as exc:  # its row counted in the partition: named again over the file's rows
            raise _not_iso_times(column, path, subject) or _unplaced(exc) from None
        parsed = pd.Series(times.to_numpy(zero_copy_only=False), index=part.index, name=part.name)
        return parsed.dt.tz_localize("UTC").astype("datetime64[ns, UTC]")

    parsed = frame[column].map_partitions(parse, meta=(column, "datetime64[ns, UTC]"))
    return opened_from(frame.assign(**{column: parsed}), path)


def _unplaced(exc: VeracityError) -> VeracityError:
    """``exc`` without the positions of the rows it names ("(row 2: 'x')" reads "('x')"): counted in one
    of Dask's partitions, they are no row of FILE, which :func:`._bad_rows.data_rows` would call them."""
    return VeracityError(re.sub(r"\(row \d+: ", "(", exc.message), exc.param, exc.hint, value=exc.value)


def _not_iso_times(column: str, path: str, subject: str) -> VeracityError | None:
    """The memory route's refusal of a CSV time column that is not one form of ISO 8601 time, its rows
    counted over the files of ``path`` in order (``_strings_problem`` of the column's first 100,000
    values, as the memory route reads them): one pass over the column's text, made once the rows are
    known to be refused. None when the files cannot be read so."""
    import pyarrow as pa

    from .._files import expand
    from ..monitoring._monitor_frames import cells_as_read
    from ..monitoring._time import _strings_problem
    from ..sources._csv_text import text_blocks

    try:
        files, kind = expand(path)
        if kind != "csv":
            return None
        head, rows = [], 0
        # every block read (a reader closed early may deadlock); missing cells as the memory route reads them
        for block in map(cells_as_read, text_blocks(files, column)):
            if rows < 100_000:
                head.append(block)
                rows += len(block)
        problem = _strings_problem(pa.concat_arrays(head).cast(pa.string()))
    except (VeracityError, pa.ArrowInvalid, OSError, ValueError):
        return None
    return VeracityError(f"{subject} {problem}", param="periods")
