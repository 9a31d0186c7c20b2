"""Compare: a calibrator before/after, or two models scored on the same rows.

Models: is the new model better, and is the difference real? Brier, log
loss, debiased ECE and AUC of both, each difference (B - A) with a paired interval
and p-value, the CORP decomposition (who resolves better, who is better calibrated) and
a verdict; ``--by`` adds one comparison per slice. Example:

    veracity compare scores.csv --score p_old --against p_new --label y --json

Both modes measure the same rows: when the file has a ``role`` column (or ``--role-col`` names one), the
rows whose role is ``--eval-role`` (default: test), never the calib rows a calibrator was fit on (which
flatter it); ``--role-col ''`` measures every row. The JSON records ``role_col``, ``eval_role`` ("all"
for every row) and ``eval_rows``. Only the measured rows are read and checked: a model scored on the test
rows only (its score empty on the calib and train rows) is compared there, and an error about a measured
row names its data row in FILE. A score column holding text is refused whatever rows are measured.

Calibrator: ECE, NLL, Brier, accuracy at 0.5 and AUC before and after a saved
calibrator on evaluation rows it never saw, whether the method can move each,
regressions printed, and the order-preservation certificates (stable argsort, AUC
bit-identical, 0.5 decisions). Example:

    veracity compare --calibrator cal.json --role-col role --eval-role test
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..sources import _api as source
from ..sources._arrow_numpy import from_numpy, to_numpy
from ..sources._source import require_columns
from ..core._validation import VeracityError, check_numeric_column
from ..calibrators import compare
from ..calibrators import load as load_calibrator
from ..comparison._compare import SHOWN
from ..core._binning import MAX_BINS
from ._common import (_show, add_input_arguments, add_json_argument, emit, feature_names, inputs, load,
                      or_default, refuse_unused, shown_path)
from ._fit import add_pos_label_argument, apply_pos_label
from ._apply import feature_columns
from ._bad_rows import file_rows
from ._rows import refuse_text, role_texts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, score_type_note="with --against, the models are compared by rank only "
                                                "(AUC, DeLong); a --calibrator fit on such scores is refused")
    parser.set_defaults(score=None, score_type=None)
    for action in parser._actions:  # the defaults differ by mode: say them (help text only)
        if action.dest == "score":
            action.help = ("score column, or comma-separated columns for (N, K) multiclass: model A with "
                           "--against (required there); with --calibrator, default: the column it was fit "
                           "on, else score")
        elif action.dest == "score_type":
            shared = str(action.help).removesuffix(" (default: probability)")
            action.help = (f"{shared} (default: with --calibrator, the score type it was fit on, and only "
                           "that; with --against, probability)")
    parser.add_argument("--calibrator", default=None, metavar="JSON",
                        help="JSON artifact written by `veracity fit`: its before/after ledger (not with "
                             "--against)")
    parser.add_argument("--against", default=None, metavar="COLUMN[,COLUMN...]",
                        help="compare the --score model (A) against this model's score column (B); "
                             "comma-separated for several")
    parser.add_argument("--by", default=None, metavar="COLUMN",
                        help="with --against: also compare within each value of this column (read with the "
                             "false-discovery rate controlled across the slices: Benjamini-Hochberg)")
    parser.add_argument("--min-count", type=int, default=None, metavar="ROWS",
                        help="with --by: slices of fewer rows are listed as too small, not tested "
                             "(default: 0)")
    parser.add_argument("--level", type=float, default=0.95,
                        help="level of the paired intervals of each difference, in (0, 1) (default: 0.95)")
    # None: not given (--score-type score draws nothing and bins nothing: given there, they are refused)
    parser.add_argument("--n-resamples", dest="resamples", type=int, default=None,
                        help="paired bootstrap resamples for the ECE (and, with --against, CORP) intervals "
                             "(default: 200; 0: none)")
    parser.add_argument("--resamples", dest="resamples", type=int, default=None, help=argparse.SUPPRESS)  # old name
    # None: not given (with --n-resamples 0 nothing is drawn, and a seed that changes nothing is refused)
    parser.add_argument("--random-state", dest="seed", type=int, default=None,
                        help="random_state of the paired bootstrap (default: 0)")
    parser.add_argument("--seed", dest="seed", type=int, default=None, help=argparse.SUPPRESS)  # old name, hidden
    parser.add_argument("--role-col", default=None,
                        help="column holding each row's split role (default: 'role' if the file has one; "
                             "--role-col '' measures every row, the calib rows a calibrator was fit on too)")
    parser.add_argument("--eval-role", default=None,
                        help="measure on the rows of this role (default: test)")
    parser.add_argument("--bins", type=int, default=None,
                        help="equal-width bins of the ECE (default: 15; refused with --score-type score)")
    add_pos_label_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.against is not None and args.calibrator is not None:
        raise VeracityError("pass either --calibrator (a calibrator before/after) or --against (two models), not both")
    args.eval_role_given = args.eval_role is not None  # read by _measured_rows once the file is open
    args.eval_role = "test" if args.eval_role is None else args.eval_role
    if args.resamples == 0:  # the seed drives the paired bootstrap only
        refuse_unused({"--random-state": args.seed is not None},
                      "with --n-resamples 0, which skips the paired bootstrap it seeds; drop one of them")
    if args.against is not None and args.score_type == "score":  # AUC only: DeLong, no bootstrap, no bins
        refuse_unused({"--n-resamples": args.resamples is not None, "--random-state": args.seed is not None,
                       "--bins": args.bins is not None},
                      "with --score-type score, which compares the models' ranking only (AUC, DeLong's test: "
                      "no bootstrap, no ECE bins); drop {it}, or pass probabilities")
    args.seed = or_default(args.seed, 0)
    args.resamples = or_default(args.resamples, 200)
    args.bins = or_default(args.bins, 15)
    if args.bins > MAX_BINS:  # the library's words end "or bins='auto'", which compare's --bins does not take
        raise VeracityError(f"--bins must be at most {MAX_BINS:,}, got {args.bins:,}; with that many bins "
                            "each holds too few rows to estimate anything. Pass fewer bins (default: 15)")
    if args.min_count is not None and args.by is None:
        raise VeracityError("--min-count sets the fewest rows of a --by slice: pass --by COLUMN too, or drop "
                            "--min-count")
    if args.by is not None and args.against is None:
        raise VeracityError("--by slices the comparison of two models (--score A --against B); a calibrator's "
                            "ledger has no slices: drop --by, or see each slice with veracity audit --by")
    if args.against is not None:
        return _run_models(args)
    if args.calibrator is None:
        raise VeracityError("compare needs --calibrator CAL.json, or --score A --against B to compare two models")
    cal = load_calibrator(args.calibrator)
    _refuse_demo_for_other_file(args, cal)
    if args.score is None:  # an empty --score is refused as a name of no column, never taken as not given
        args.score = cal.metadata.get("score_column") or "score"
    if args.score_type is not None and args.score_type != cal.score_type:
        raise VeracityError(
            f"the calibrator was fit on {cal.score_type} scores but --score-type is "
            f"{args.score_type}; pass scores of the kind it was fit on")
    table, path = load(args)
    mask = _measured_rows(table, args, path)
    if mask is not None:
        fit_role = cal.metadata.get("role")
        if fit_role and args.eval_role in str(fit_role).split(","):
            raise VeracityError(
                f"the calibrator was fit on role {fit_role!r}; measuring it on the same role "
                f"flatters it. Pass --eval-role test (rows it never saw)")
    names = source.score_names(args.score, table.column_names)
    for name in names:  # a column of text is refused whatever rows are measured: not a score column
        source.numbers_or_refuse(table, name)
    measured = _measured_table(table, mask)
    # only the measured rows are read and checked, named by their row in FILE
    with file_rows(mask, _named(args)):
        scores, labels, weights = inputs(measured, args, path)
        if args.pos_label is None and cal.metadata.get("pos_label") is not None:
            labels = _calibrator_pos_label(labels, str(cal.metadata["pos_label"]), args)
        else:
            labels = apply_pos_label(labels, args.pos_label, label=args.label)
    if _fit_rows(cal, scores, labels, weights):  # a warning, as threshold says "(optimistic)": the ledger stays
        import sys

        from ._progress import writing

        with writing(sys.stderr):  # never glued to the progress bar
            print(f"veracity compare: warning: the calibrator was fit on these very rows ({cal.metadata['n_rows']} "
                  "rows, the data hash it recorded): the 'after' column is optimistic. Pass --role-col COLUMN "
                  "--eval-role test (rows it never saw), or a file of rows it was not fit on", file=sys.stderr)
    features = feature_columns(cal)  # a segment calibrator reads each feature from the column of its name
    if features:
        require_columns(features, table.column_names, where=shown_path(args, path))
    ledger = compare(scores, labels, cal, bins=args.bins, sample_weight=weights, level=args.level,
                     n_resamples=args.resamples, random_state=args.seed,
                     features={f: measured.column(f) for f in features} if features else None)
    emit(args, str(ledger), {"file": shown_path(args, path), "calibrator": args.calibrator,
                             **_measured(args, table, mask), **ledger.to_dict()},
         note_text=f"{shown_path(args, path)}{_where(args, mask)}")
    return 0


def _measured_rows(table: Any, args: argparse.Namespace, path: str) -> np.ndarray | None:
    """The rows both modes measure, as a boolean mask (None: every row).

    ``--role-col`` (default: ``role`` when the file has a column of that name, as fit, threshold, conformal
    and report take it) picks the rows whose role is ``--eval-role`` (default: test): never the calib rows
    `veracity fit` fit a calibrator on, which flatter it. ``--role-col ''`` measures every row; with it (or
    without a role column) a given ``--eval-role`` would change nothing, silently, and is refused."""
    implicit = args.role_col is None and "role" in table.column_names
    if implicit:
        args.role_col = "role"
    if not args.role_col:
        if args.eval_role_given:
            why = (f"{_show(path)} has no 'role' column" if args.role_col is None
                   else "--role-col '' measures every row")
            raise VeracityError(f"--eval-role needs --role-col naming the column of each row's role, and "
                                f"{why}; pass --role-col COLUMN, or drop --eval-role (every row is then "
                                "measured)")
        return None
    if args.role_col == args.label:  # every measured row would carry the one label --eval-role names
        raise VeracityError(f"--label names the role column {args.role_col!r}, whose --eval-role rows all "
                            "hold one value; name the label column with --label (or pass --role-col '' to "
                            "measure every row)")
    roles = role_texts(table, args.role_col, path)  # a row with no role (None/NaN or blank) refused
    mask: np.ndarray = roles == args.eval_role
    if not mask.any():
        present = sorted(set(roles.tolist()))
        more = f", ... ({len(present)} roles)" if len(present) > 10 else ""
        shown = ", ".join(repr(v) for v in present[:10]) + more
        read = " (the file's 'role' column is read as each row's split)" if implicit else ""
        raise VeracityError(f"no rows with {args.role_col} == {args.eval_role!r} in {_show(path)}{read}; "
                            f"roles present: {shown}. Pass --eval-role ROLE to measure one of those, or "
                            "--role-col '' to measure every row")
    return mask


def _named(args: argparse.Namespace) -> str:
    """The measured rows, as :func:`._rows.file_rows` names them in an error ("of the 3 measured rows")."""
    return f"measured rows ({args.role_col} == {args.eval_role!r})"


def _measured_table(table: Any, mask: np.ndarray | None) -> Any:
    """The table's measured rows (``mask``; None: the table itself), the only rows either mode reads:
    a model scored on the test rows only (its score empty on the calib and train rows) is compared there,
    and rows not measured may hold missing scores, labels or weights."""
    return table if mask is None else table.filter(from_numpy(mask))


def _measured(args: argparse.Namespace, table: Any, mask: np.ndarray | None) -> dict[str, Any]:
    """The JSON's record of the rows measured: the role column, the role ("all": every row) and how many."""
    return {"role_col": args.role_col or None, "eval_role": args.eval_role if mask is not None else "all",
            "eval_rows": int(mask.sum()) if mask is not None else int(table.num_rows)}


def _where(args: argparse.Namespace, mask: np.ndarray | None) -> str:
    """The rows measured, for the note naming the file (stderr; the table says how many)."""
    return f" (role {args.eval_role!r})" if mask is not None else ""


def _refuse_demo_for_other_file(args: argparse.Namespace, cal: Any) -> None:
    """No FILE reads the bundled demo data; a calibrator fit on another file (the ``source_file`` its
    metadata records: a path, ``<stdin>``, a store) would be measured there, on rows that are not its data,
    and print a ledger of numbers that say nothing about it. Refused, naming the file it was fit on."""
    import os

    from ..datasets import demo_path

    source = cal.metadata.get("source_file")
    if args.file is not None or not source or os.path.basename(str(source)) == demo_path().name:
        return
    raise VeracityError(
        f"no FILE given, so the bundled demo data would be measured, but {_show(args.calibrator)} was fit on "
        f"{_show(str(source))}; pass the file of rows to measure it on: veracity compare FILE --calibrator "
        f"{args.calibrator}")


def _calibrator_pos_label(labels: np.ndarray, text: str, args: argparse.Namespace) -> np.ndarray:
    """Labels as 0/1 with the positive label the calibrator recorded (``veracity fit --pos-label``), no
    ``--pos-label`` given. A refusal of it says where it came from ("the positive label 'yes' recorded in
    cal.json"), never "--pos-label yes", which the user did not type, and how to name this file's own."""
    try:
        return apply_pos_label(labels, text, label=args.label)
    except VeracityError as exc:
        said = f"the positive label {text!r} recorded in {_show(args.calibrator)} (no --pos-label given)"
        message = exc.message.replace("{setting}", said).replace("{param}", said)
        if message.startswith(f"--pos-label {text}:"):  # the words of pos_label_value, which has no {setting}
            message = said + message[len(f"--pos-label {text}"):]
        if message == exc.message:
            raise
        fix = "Name this file's positive class with --pos-label LABEL" if "{setting}" in exc.message else None
        hint = "; ".join(h for h in (exc.hint, fix) if h) or None
        raise VeracityError(message, exc.param, hint, rows=exc.rows, n_rows=exc.n_rows) from None


def _fit_rows(cal: Any, scores: Any, labels: Any, weights: Any) -> bool:
    """The rows are those ``cal`` was fit on: their data hash (scores, labels and weights as the fit read
    them, rows of weight 0 dropped) is the one the calibrator recorded. Rows its fit would refuse are not."""
    from ..calibrators._base import _label_bytes, data_hash

    recorded = cal.metadata.get("data_hash")
    if not recorded or cal.metadata.get("n_rows") is None:
        return False
    try:
        s = cal._scores(scores, fitting=True)
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        keep = w > 0 if w is not None and not w.all() else None
        y = cal._labels(labels, s, keep)
    except (VeracityError, ValueError, TypeError):
        return False
    if keep is not None and w is not None:
        s, w = s[keep], w[keep]
    if int(s.shape[0]) != int(cal.metadata["n_rows"]):
        return False
    if data_hash(s, _label_bytes(y), w) == recorded:
        return True
    # a fit on a lazy frame (fit --engine duckdb/spark/dask) recorded the hash of its aggregates
    from ..frames._fit import aggregate_hash

    return np.ndim(scores) == 1 and aggregate_hash(scores, labels, weights) == recorded


def _run_models(args: argparse.Namespace) -> int:
    from ..comparison import compare_models

    if args.score is None:  # not the 'score' that other commands (and --calibrator, last) default to
        raise VeracityError("--against compares two models, and --score has no default with it (a 'score' "
                            "column is not taken as model A): name model A's score column with --score")
    if not args.score.strip():
        raise VeracityError(f"--score {args.score!r} names no column: name model A's score column with "
                            "--score (--against names model B's)")
    table, path = load(args)
    mask = _measured_rows(table, args, path)
    several = feature_names(args.score, columns=table.column_names)
    if len(several) > 1:  # (N, K) multiclass scores: read whole, "column 'p0,p1,p2' not found" misled
        raise VeracityError(f"--against compares binary models, one score column each, but --score names "
                            f"{len(several)} columns ({', '.join(several)}), as (N, K) multiclass scores; "
                            "compare one class at a time: its column for each model (--score A_k --against "
                            "B_k) and a --label column that is 1 on that class's rows and 0 elsewhere")
    against = feature_names(args.against, columns=table.column_names)  # as --score reads columns
    if not against:
        raise VeracityError("--against needs a score column name")
    names = [args.score, *against]
    if len(set(names)) < len(names):
        raise VeracityError(f"--score and --against name the same column twice ({', '.join(names)}); "
                            "compare two different score columns")
    for flag, col in (("--label", args.label), ("--sample-weight", getattr(args, "weight", None)),
                      ("--by", args.by), ("--role-col", getattr(args, "role_col", None))):
        if col is not None and col in names:  # the labels scored as a model read Brier 0, AUC 1
            raise VeracityError(f"--score/--against name the {flag} column {col!r} as a model; name the models' "
                                "score columns only")
    refuse_text(table, names)
    measured = _measured_table(table, mask)
    # only the measured rows are read and checked, named by their row in FILE
    with file_rows(mask, _named(args)):
        model_scores = {}
        for name in names:
            model_scores[name] = check_numeric_column(source.column(measured, name, path=path, role="scores"), name)
        _, _, weights = inputs(measured, _with_score(args, names[0]), path)  # first: the labels' own line
        labels = source.column(measured, args.label, path=path)
        labels = apply_pos_label(labels, args.pos_label, label=args.label, scores=model_scores[names[0]])
    keys = _slice_keys(measured, args.by, path) if args.by else None
    result = compare_models(model_scores, labels, sample_weight=weights, score_type=args.score_type or "probability",
                            level=args.level, n_resamples=args.resamples, random_state=args.seed, bins=args.bins,
                            by=keys, min_count=args.min_count or 0)
    payload = result.to_dict()
    rows = [{**r, "metric_label": _label(r["metric"]), "segment": None} for r in payload["comparison"]]
    for key, group in payload.get("groups", {}).items():
        group["comparison"] = [{**r, "metric_label": _label(r["metric"])} for r in group["comparison"]]
        rows += [{**r, "segment": key} for r in group["comparison"]]
    payload = {"file": shown_path(args, path), **({"by": args.by} if args.by else {}), **payload,
               "comparison": rows}
    if args.by:
        payload.pop("group_column", None)
    payload = {"file": payload.pop("file"), **_measured(args, table, mask), **payload}
    emit(args, str(result), payload, note_text=f"{shown_path(args, path)}{_where(args, mask)}")
    return 0


#: metric -> what the command line calls it: compare_models' "ece" is the debiased ECE (Kumar et al. 2019),
#: not the plug-in ECE that veracity audit prints as "ECE"; the printed table (ModelComparison) names it so
#: too, and the JSON keeps ``metric`` as the library names it and adds ``metric_label``
LABELS = SHOWN


def _label(metric: str) -> str:
    return LABELS.get(metric, metric)


def _with_score(args: argparse.Namespace, score: str) -> argparse.Namespace:
    copy = argparse.Namespace(**vars(args))
    copy.score = score
    return copy


def _slice_keys(table: Any, name: str, path: str) -> Any:
    """The --by column with its missing values kept (one slice of them, as vc.compare_models makes)."""
    require_columns([name], table.column_names, where=str(path))
    return to_numpy(table.column(name))
