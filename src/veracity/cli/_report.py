"""Write a self-contained HTML calibration report (one file, works offline).

The page holds the summary, the reliability diagram and full table, slices
(--by), where it is miscalibrated (--features: vc.segments), which model is
better (--against: vc.compare_models), the before/after ledger and metadata of
a calibrator (--calibrator), operating curves and an interactive threshold
explorer. Without FILE it
reports on the bundled demo data. Examples:

    veracity report scores.parquet --score p --label y --by segment --out report.html
    veracity fit data.csv --method temperature --score logit --score-type logit --out cal.json
    veracity report data.csv --score logit --score-type logit --calibrator cal.json --cost-fn 9
    veracity report scores.csv --score p --label y --features region,age --depth 2
    veracity report scores.csv --score p_old --against p_new --label y

When the file has a role column (--role-col, default 'role' if present), the
report shows the --eval-role rows ('test') and the target-recall threshold is
chosen on the --fit-role rows ('calib'); otherwise all rows are shown.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ..sources._api import column
from ..core._validation import VeracityError, check_numeric_column
from ..decisions._inputs import RECALL_ONE, check_target
from ._common import (add_input_arguments, add_json_argument, check_max_groups, emit, feature_names, inputs,
                      load, or_default, refuse_unused, role_flags, shown_path)
from ._audit import _bins
from ._labels import add_pos_label_argument, apply_pos_label
from ._bad_rows import bad_rows, file_rows, first_bad_row
from ._rows import role_texts, roles_named, used_rows


#: how a ranking score (--score-type score, or a --calibrator fit on one) is reported: its calibrated column
_CALIBRATED = ("veracity apply CAL.json FILE -o calibrated.csv, then veracity report calibrated.csv "
               "--score calibrated")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keep the examples' lines
    add_input_arguments(parser, no_ranking="the report reads probabilities",
                        calibrate_first=("calibrate it (veracity fit --score-type score --out CAL.json) and "
                                         f"report the calibrated column ({_CALIBRATED})"))
    parser.add_argument("--out", "-o", default="report.html", help="output HTML file (default: report.html)")
    add_json_argument(parser, instead="the line naming the page (the HTML file is written either way)")
    parser.add_argument("--by", default=None, metavar="COLUMN",
                        help="column to slice by: one audit per value (at most --max-groups)")
    add_pos_label_argument(parser)
    parser.add_argument("--max-groups", type=int, default=None, metavar="N",
                        help="at most N slices with --by; smaller ones are pooled as '(other ...)' (default: 100)")
    parser.add_argument("--calibrator", default=None, metavar="JSON",
                        help="a saved calibrator (veracity fit --method ... --out cal.json): adds the before/after "
                             "ledger and its metadata; the explorer then uses calibrated probabilities")
    parser.add_argument("--bins", type=_bins, default=15,
                        help="number of reliability bins on the probability axis, a whole number >= 1, or "
                             "'auto' for ceil(N^(1/3)) (default: 15)")
    parser.add_argument("--strategy", default="uniform", choices=["uniform", "quantile", "equal-count"],
                        help="uniform: equal-width bins on [0, 1]; quantile: equal-mass bins cut at the "
                             "(weighted) score quantiles; equal-count: equal row counts, cut midway between "
                             "neighbouring scores (Kumar et al. 2019) (default: uniform)")
    parser.add_argument("--interval", default="wilson", choices=["wilson", "clopper-pearson"],
                        help="per-bin binomial interval (default: wilson)")
    parser.add_argument("--level", type=float, default=0.95,
                        help="level of every interval on the page (per bin, bootstrap, slices, segments, the "
                             "comparison, the calibrator's ledger, the store's periods), in (0, 1) "
                             "(default: 0.95)")
    parser.add_argument("--min-count", type=int, default=20,
                        help="bins with fewer rows than this are flagged insufficient; with --sample-weight, "
                             "fewer effective rows (Kish: (sum w)^2 / sum w^2) (default: 20)")
    parser.add_argument("--features", default=None, metavar="COLUMN[,COLUMN...]",
                        help="adds 'Where it is miscalibrated': every segment over these columns (and their "
                             "intersections up to --depth) tested for calibration, with q-values (vc.segments)")
    parser.add_argument("--feature", action="append", default=[], metavar="COLUMN",
                        help="one more --features column, its name taken as written, commas included (repeatable)")
    parser.add_argument("--depth", type=int, default=None,
                        help="with --features: intersections of up to this many features (default: 2)")
    parser.add_argument("--against", default=None, metavar="COLUMN",
                        help="adds 'Which model?': the --score model (A) against this second score column (B) "
                             "on the same rows, paired (vc.compare_models), with a Murphy diagram and a "
                             "decision curve")
    parser.add_argument("--cost-fp", type=float, default=None,
                        help="cost of a false alarm (default: 1 if --cost-fn is given; with neither, the "
                             "page says it assumes 1:1 and the explorer opens at the recall target)")
    parser.add_argument("--cost-fn", type=float, default=None,
                        help="cost of a missed positive (default: 1 if --cost-fp is given)")
    parser.add_argument("--target-recall", type=float, default=None,  # None: not given
                        help="recall target marked in the explorer (default: 0.95)")
    parser.add_argument("--no-bootstrap", dest="no_ci", action="store_true",
                        help="skip the bootstrap intervals and the ECE noise floor (faster on big files)")
    parser.add_argument("--no-ci", dest="no_ci", action="store_true", help=argparse.SUPPRESS)  # old name, hidden
    parser.add_argument("--n-resamples", dest="resamples", type=int, default=None,  # None: not given
                        help="bootstrap resamples (default: 1000; refused with --no-bootstrap)")
    parser.add_argument("--resamples", dest="resamples", type=int, default=None, help=argparse.SUPPRESS)  # old name
    parser.add_argument("--title", default="Calibration report",
                        help="page title (default: Calibration report)")
    parser.add_argument("--detail", action="append", default=[], metavar="KEY=VALUE",
                        help="a line for the page header, e.g. --detail model=v3.2 (repeatable)")
    parser.add_argument("--timestamp", action="store_true",
                        help="print the generation time on the page (off: the same input gives the same file)")
    parser.add_argument("--role-col", default=None,
                        help="column naming each row's role (default: 'role' if the file has one)")
    parser.add_argument("--fit-role", default=None,
                        help="role the target-recall threshold is chosen on (default: calib)")
    parser.add_argument("--eval-role", default=None, help="role the report shows (default: test)")
    parser.add_argument("--store", default=None, metavar="STORE",
                        help="a monitoring store: adds the 'Over time' section (without FILE the report "
                             "audits the store's labelled rows)")
    parser.add_argument("--freq", default="W", choices=["D", "W", "M", "Q"],
                        help="with --store: periods (default: W, ISO weeks)")
    parser.add_argument("--as-of", default=None, help="with --store: evaluate as of this UTC date (default: now)")
    parser.add_argument("--horizon", default=None, help="with --store: label maturity, e.g. 30d")


def _roles(table, args: argparse.Namespace, path: str) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    """(fit mask, eval mask, description) — (None, None, '') when there is no role column."""
    col = args.role_col
    role_flags(args, col is not None or "role" in table.column_names, path)
    if col is None:
        if "role" not in table.column_names:
            return None, None, ""
        col = "role"
    values = role_texts(table, col, path)  # a row with no role (None/NaN or blank) refused
    present = ", ".join(repr(v) for v in sorted(set(values.tolist()))[:10])  # quoted: " Test" shows its space
    masks = {}
    for role in (args.fit_role, args.eval_role):
        mask = values == role
        if not mask.any():
            implicit = "" if args.role_col else (" (the file's 'role' column is read as each row's split; "
                                                 "--role-col names another)")
            raise VeracityError(
                f"no rows with {col} == {role!r} in {path} (values: {present}); "
                f"pass --fit-role/--eval-role with one of those{implicit}"
            )
        masks[role] = mask
    return masks[args.fit_role], masks[args.eval_role], f"{col} = {args.eval_role}"


def _check_role_rows(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None, total: int,
                     args: argparse.Namespace, where: str, path: str) -> None:
    """The rows of both roles (the rows read, of ``total`` in FILE) checked together, so that a mistake is
    counted among the rows read (a bad label in the test rows of a 600-row file said "1 of 300"), with the
    roles named."""
    from ..core._validation import prepare_binary

    try:
        prepare_binary(scores, labels, sample_weight=weights, score_type=args.score_type, allow_score=True)
    except VeracityError as exc:
        col = where.split(" = ", 1)[0]
        context = (f" (checked the {len(labels)} rows with {col} = {args.fit_role} or {args.eval_role}, "
                   f"of the {total} rows in {path})")
        raise VeracityError(exc.message.rstrip().rstrip(".") + context, exc.param, exc.hint,
                            value=exc.value) from None


def _cli_words(note: str, store_rows: bool = False) -> str:
    """A page note in the command line's words (the page names the Python keyword). ``store_rows``: the
    page audits a store's rows (--store, no FILE), which have no role column: the advice names a FILE."""
    for spelling in ("correction=False", "--no-correction"):  # report has no such flag
        note = note.replace(f", lower the target, or pass {spelling}", " or lower --target-recall")
    from ..reporting._sections import LOWER_TARGET_RECALL

    note = note.replace(LOWER_TARGET_RECALL, "lower --target-recall")  # the command has no --recall-threshold
    return note.replace("choose it on calib rows (recall_threshold=)",
                        f"choose it on other rows: {'pass FILE with ' if store_rows else ''}a role column "
                        "(--role-col) whose --fit-role rows are not the --eval-role rows")


def _details(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise VeracityError(f"--detail must look like KEY=VALUE, e.g. model=v3.2; got {item!r}")
        out[key.strip()] = value.strip()
    return out


#: --out suffixes that name a format other than the one HTML page report writes: it wrote the HTML under
#: that name ("wrote report.pdf (174 KB)", exit 0), which a PDF viewer or an image reader then refused
_NOT_HTML = {".pdf": "a PDF", ".png": "an image", ".svg": "an image", ".jpg": "an image", ".jpeg": "an image",
             ".json": "JSON", ".docx": "a Word document", ".pptx": "a slide deck",
             ".xlsx": "an Excel workbook"}


def _refuse_not_html(out: str) -> None:
    """``--out report.pdf`` (or .png, .json, ...) refused before any work: report writes one HTML page."""
    path = Path(out)
    what = _NOT_HTML.get(path.suffix.lower())
    if what is not None:
        hint = " (a browser prints it to PDF)" if what == "a PDF" else ""
        json_hint = "; --json PATH writes the report's summary as JSON" if what == "JSON" else ""
        raise VeracityError(f"--out {out} names {what}, and report writes one self-contained HTML page: pass "
                            f"--out {path.with_suffix('.html')}{hint}{json_hint}")


def run(args: argparse.Namespace) -> int:
    _refuse_not_html(args.out)
    status = None
    given_target, args.target_recall = args.target_recall is not None, or_default(args.target_recall, 0.95)
    # checked before the fit rows are asked for it (their failure is only a note)
    check_target(args.target_recall, "--target-recall", one=RECALL_ONE)
    if args.no_ci:  # the resamples of a bootstrap that is skipped changed nothing, silently
        refuse_unused({"--n-resamples": args.resamples is not None},
                      "with --no-bootstrap, which skips the bootstrap it sizes; drop one of them")
    max_groups = check_max_groups(args)
    _refuse_ranking_calibrator(args)
    _refuse_store_as_file(args)
    if not args.store:  # the 'Over time' options did nothing without a store, silently
        given = [flag for flag, on in (("--freq", args.freq != "W"), ("--as-of", args.as_of is not None),
                                       ("--horizon", args.horizon is not None)) if on]
        if given:
            raise VeracityError(f"{', '.join(given)} shape{'s' if len(given) == 1 else ''} the 'Over time' "
                                "section of a monitoring store; pass --store STORE too, or drop "
                                f"{'it' if len(given) == 1 else 'them'}")
    if args.store and args.file is None:  # the store's rows: the options naming a FILE's columns did nothing
        refuse_unused({"--score": args.score != "score", "--label": args.label != "label",
                       "--sample-weight": args.weight is not None, "--role-col": args.role_col is not None,
                       "--fit-role": args.fit_role is not None, "--eval-role": args.eval_role is not None},
                      "with --store and no FILE: the report audits the store's labelled rows (their logged "
                      "scores and 0/1 outcomes, unweighted, no roles); pass FILE with those columns, or drop "
                      "{it}")
    if args.store:
        from ..monitoring import MonitorStore
        from ..monitoring._recalibrate import labelled_rows

        store = MonitorStore(args.store)
        # the status's intervals at --level and its ECEs over --bins, as the report's ('auto': its 15)
        status = store.status(freq=args.freq, as_of=args.as_of, horizon=args.horizon, level=args.level,
                              bins=15 if isinstance(args.bins, str) else args.bins)
    if args.store and args.file is None:
        scores, labels = labelled_rows(store, as_of=args.as_of, horizon=args.horizon)
        if scores.size == 0:
            raise VeracityError(f"store {args.store} has no labelled rows yet; pass a FILE to audit, "
                                "or wait for outcomes")
        table, path, weights = None, str(args.store), None
        if args.by:
            raise VeracityError("--by needs a FILE; the store's slices are in `veracity monitor status --by`")
        fit, keep, where, used, total = None, None, "", None, 0
    else:
        table, path = load(args)
        fit, keep, where = _roles(table, args, path)
        # only the rows of the fit and eval roles are read and checked (rows of other roles may hold missing
        # values), an error naming the row's data row in FILE; a score column of text is refused on every row
        used, total = (None if keep is None or fit is None else fit | keep), table.num_rows
        table = used_rows(table, args, used)
        if used is not None and fit is not None and keep is not None:
            fit, keep = fit[used], keep[used]
    with file_rows(used, roles_named(where.split(" = ", 1)[0], args.fit_role, args.eval_role)):
        if table is not None:
            scores, labels, weights = inputs(table, args, path)
        by = _by_column(table, args.by, path) if args.by else None
        features = _features(table, args, path)
        against = _against(table, args, path, keep, where.split(" = ", 1)[0])
        details = _details(args.detail)
        calibrator = None
        if args.calibrator:
            from ..calibrators import load as load_calibrator

            calibrator = load_calibrator(args.calibrator)
            details.setdefault("calibrator", args.calibrator)
            if args.pos_label is None and calibrator.metadata.get("pos_label") is not None:
                args.pos_label = str(calibrator.metadata["pos_label"])  # the label it was fit with
        # the rows each check refuses (the file's rows read; a store's rows have no row in a file), so that
        # an error names the first one's data row
        mapped = args.pos_label is not None
        with first_bad_row(**({} if table is None else bad_rows(scores, labels, weights, pos_label=mapped))):
            labels = apply_pos_label(labels, args.pos_label, scores=scores,
                                     label=None if table is None else args.label)  # a store: 0/1, no column
        bad = {} if table is None else bad_rows(scores, labels, weights)
        if keep is not None:
            with first_bad_row(**bad):
                _check_role_rows(scores, labels, weights, total, args, where, path)
    if scores.ndim == 2 and scores.shape[1] > 1:  # no explorer (binary scores only): they changed nothing
        refuse_unused({"--cost-fp": args.cost_fp is not None, "--cost-fn": args.cost_fn is not None,
                       "--target-recall": given_target},
                      "on several --score columns: the costs and the recall target set the threshold "
                      "explorer, which a multiclass report omits (it needs binary scores); drop {it}")
    recall_t, target = None, args.target_recall
    recall_notes: tuple[str, ...] = ()
    if keep is not None and fit is not None:
        if args.fit_role != args.eval_role:  # the same role: the page chooses it there and says it flatters
            fit_w = None if weights is None else weights[fit]
            recall_t, why = _fit_recall_threshold(scores[fit], labels[fit], fit_w, args, calibrator)
            if why:  # never chosen on the rows shown instead, with advice to use a role column the file has
                target, recall_notes = None, (f"target-recall threshold omitted: the {where.split(' = ')[0]} = "
                                              f"{args.fit_role} rows it is chosen on {why}",)
        scores, labels = scores[keep], labels[keep]
        weights = None if weights is None else weights[keep]
        by = None if by is None else by[keep]
        features = None if features is None else {k: v[keep] for k, v in features.items()}
        against = None if against is None else against[keep]
    source = f"{path} ({where})" if where else path
    from ..reporting._html import Inputs, _report

    rows = Inputs(scores=scores, labels=labels, sample_weight=weights, by=by, by_name=args.by, features=features,
                  against=against, score_name=args.score if scores.ndim == 1 else "scores",
                  against_name=args.against or "against",
                  positive=(None if args.pos_label is None or table is None
                            else f"{args.label} = {args.pos_label}"))
    with first_bad_row(**(bad if keep is None else {})):  # with roles the rows were checked above
        result = _report(
            lambda _s, _l: rows, scores=scores, labels=labels, store=status, out=args.out, calibrator=calibrator,
            score_type=args.score_type, max_groups=max_groups, depth=args.depth, bins=args.bins,
            strategy=args.strategy, interval=args.interval, level=args.level, min_count=args.min_count, threshold=0.5,
            cost_fp=args.cost_fp, cost_fn=args.cost_fn, target_recall=target, recall_threshold=recall_t,
            notes_in=recall_notes,
            bootstrap=not args.no_ci, n_resamples=or_default(args.resamples, 1000), title=args.title, source=source, details=details,
            timestamp=args.timestamp, max_cuts=4000, figures=True,
        )
    from pathlib import Path

    text = f"wrote {args.out} ({result.size / 1024:,.0f} KB): {', '.join(result.sections)}"
    for key, title in (("segments", "where it is miscalibrated"), ("comparison", "which model")):
        if key in result.summary:
            text += f"\n{title}: {result.summary[key]}"
    store_rows = table is None  # --store without FILE
    text += "".join(f"\nnote: {_cli_words(n, store_rows)}" for n in result.notes)
    payload = result.to_dict()
    payload["notes"] = [_cli_words(n, store_rows) for n in payload.get("notes", [])]
    emit(args, text, {"file": shown_path(args, path), "out": str(Path(args.out).resolve()), **payload})
    return 0


def _refuse_store_as_file(args: argparse.Namespace) -> None:
    """A monitoring store passed as FILE (``veracity report monitor.duckdb``) said "could not read
    monitor.duckdb as CSV or Parquet: CSV parse error: Empty CSV file or block: cannot infer number of
    columns"; it is named as the DuckDB file it is, with the --store flag that reads it."""
    from pathlib import Path

    from ..sources._duckdb import is_duckdb_database

    if args.file is None or str(args.file) == "-" or not Path(args.file).is_file():
        return
    if is_duckdb_database(args.file):
        hint = ("drop FILE to audit the store's labelled rows" if args.store else
                f"pass it as --store {args.file} (with no FILE the report audits the store's labelled rows)")
        raise VeracityError(f"FILE {args.file} is a DuckDB database (a monitoring store?), not a CSV or "
                            f"Parquet file of scored rows; {hint}")


def _refuse_ranking_calibrator(args: argparse.Namespace) -> None:
    """A --calibrator fit on ranking scores (--score-type score, which the report does not offer) is refused
    before the rows are read: they were refused as probabilities out of [0, 1] with "if these are logits,
    pass --score-type logit", which names neither the calibrator nor how to report its probabilities."""
    if not args.calibrator:
        return
    from ..calibrators import load as load_calibrator

    try:
        fitted_on = getattr(load_calibrator(args.calibrator), "score_type", None)
    except VeracityError:
        return  # the report's own read of the calibrator names the problem
    if fitted_on == "score":
        raise VeracityError(f"--calibrator {args.calibrator} was fit on ranking scores (--score-type score), "
                            "and the report reads probabilities before and after it; report the calibrated "
                            f"column: {_CALIBRATED}")


def _by_column(table, name: str, path: str, *, numbers: bool = False) -> np.ndarray:
    """The --by column as ``vc.report(frame, by=)`` and `veracity audit --by` read it (the source layer's
    slice keys: missing values, NaN included, a slice of their own; floats named ``2.0``, flags ``True``,
    durations ``0 days 00:00:01``, DECIMALs exact), or with ``numbers`` a --features column as
    `veracity segments --features` reads it (:func:`veracity.segments._api.series_values`). Read here
    apart from them, a column with gaps was read as its text ("2", "true", "1" for one second), a DECIMAL as
    floats (the CSV ids 2**63 and 2**63 + 1 one slice "9.223372036854776e+18"), and NaN was refused."""
    from ..sources._api import slice_keys
    from ..sources._source import as_frame, refuse_ns_times, require_columns

    require_columns([name], table.column_names, where=path)
    frame = as_frame(table.select([name]))
    if numbers:
        from ..segments._api import series_values

        refuse_ns_times(frame.nw.get_column(name), name)
        return series_values(frame.nw.get_column(name))
    return slice_keys(frame, name)


def _features(table, args: argparse.Namespace, path: str) -> dict[str, np.ndarray] | None:
    """The --features columns (a missing one is a one-line error naming the columns there are)."""
    if args.features is None and not args.feature:
        if args.depth is not None:
            raise VeracityError("--depth needs --features (the columns to search for miscalibrated segments)")
        return None
    if table is None:
        raise VeracityError("--features needs a FILE with those columns (a store's rows have no features)")
    names = [*feature_names(args.features, columns=table.column_names), *args.feature]
    if not names:
        raise VeracityError("--features needs column names, e.g. --features region,age")
    if len(set(names)) < len(names):
        raise VeracityError(f"--features names a column twice ({', '.join(names)}); name each once")
    return {name: _by_column(table, name, path, numbers=True) for name in names}


def _against(table, args: argparse.Namespace, path: str, keep: np.ndarray | None = None,
             role_col: str = "") -> np.ndarray | None:
    """The --against column: a second model's numeric scores on the same rows. With roles (``keep``: the
    --eval-role rows among the rows read) only the rows the comparison measures are read and checked, as
    `veracity compare` reads them, the other rows NaN: a second model scored on the test rows only (its
    score empty on the calib rows) was refused ("column 'b' has 500 missing/NaN ... drop or fill those rows
    first") where `veracity compare --against` compares it."""
    if args.against is None:
        return None
    name = args.against.strip()
    if not name or "," in name:
        raise VeracityError(f"--against names one score column (the second model), got {args.against!r}; "
                            "to compare several models use `veracity compare --against a,b`")
    if table is None:
        raise VeracityError("--against needs a FILE with that score column")
    if name == args.score:
        raise VeracityError(f"--against {name} is the --score column itself; name the second model's column")
    for flag, col in (("--label", args.label), ("--sample-weight", args.weight)):
        if name == col:  # the answers read as a second model: "label is better", a perfect model, silently
            raise VeracityError(f"--against {name} is the {flag} column; name the second model's score column")
    if keep is None:
        return check_numeric_column(column(table, name, path=path), name)
    import pyarrow as pa

    with file_rows(keep, roles_named(role_col, args.eval_role)):  # an error names the row's data row
        measured = check_numeric_column(column(table.filter(pa.array(keep)), name, path=path), name)
    values = np.full(table.num_rows, np.nan)
    values[keep] = measured
    return values


def _fit_recall_threshold(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                          args: argparse.Namespace, calibrator) -> tuple[float | None, str]:
    """(the target-recall threshold on the fit-role rows, on the scale the explorer shows, or None;
    why the fit rows give none, or "" where the page has its own reason)."""
    if scores.ndim == 2 and scores.shape[1] > 1:
        return None, ""  # multiclass: no explorer
    from ..core._validation import prepare_binary
    from ..decisions import recall_threshold

    if calibrator is not None:
        if getattr(calibrator, "score_type", args.score_type) != args.score_type:
            return None, ""  # report() explains the mismatch
        p = np.asarray(calibrator.transform(scores), dtype=np.float64)
    else:
        p = prepare_binary(scores, labels, score_type=args.score_type).p
    y = prepare_binary(p, labels).y
    if not (y == 1).any():
        return None, "have no positives"
    try:
        return float(recall_threshold(p, y, target=args.target_recall, sample_weight=weights)), ""
    except VeracityError as exc:
        from . import cli_message

        return None, "give none: " + _cli_words(cli_message(exc, {"sample_weight": "--sample-weight"}))
