"""Fit a calibrator on held-out calibration rows and save it as a JSON artifact.

The artifact records the method, fitted parameters and provenance (model
revision, score type, fit window, cohort, rows, classes, a hash of the fit data,
the split role, library version). Rows whose role is test or train are refused
(a calibrator is itself a model: what is fit on rows cannot be measured fairly on
them). Example on the bundled demo data:

    veracity fit --method temperature --score logit --score-type logit \\
        --role-col role --fit-role calib --model-revision demo-1 --out cal.json
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..core._validation import VeracityError
from ..calibrators import METHODS
from ..datasets import demo_path
from ._common import (add_input_arguments, add_json_argument, auto_engine, emit, feature_names, note,
                      read_rows, score_columns, shown_path)
from ._labels import add_pos_label_argument, apply_pos_label  # noqa: F401  (also imported from here)
from ._bad_rows import counted_on_fit_rows, file_rows
from ._output import DATA_SUFFIXES
from ._rows import blank_roles_message, role_texts, roles_named


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, score_type_note="the binary methods take it and map it to probabilities "
                                                "(beta: only scores in [0, 1])")
    parser.add_argument("--method", required=True, choices=sorted([*METHODS, SEGMENT]),
                        help="calibration method (required): every method takes binary scores and K class "
                             "columns, except vector and matrix, which are multiclass only, and segment "
                             "(a --base calibrator plus per-segment corrections over --features), binary "
                             "only")
    parser.add_argument("--role-col", default=None,
                        help="column holding each row's split role (train/val/calib/test; default: 'role' if "
                             "the file has one)")
    parser.add_argument("--fit-role", default=None,
                        help="with --role-col: fit on the rows of this role (default: calib)")
    parser.add_argument("--allow-role", default=None,
                        help="explicitly allow fitting on a 'test' or 'train' role (recorded)")
    parser.add_argument("--model-revision", default=None, help="base model revision (recorded)")
    parser.add_argument("--fit-window", default=None, help="fit period, e.g. 2026-01..2026-03 (recorded)")
    parser.add_argument("--cohort", default=None, help="cohort the rows come from (recorded)")
    # None: not given (each sets one method's fit; with another method it changed nothing and is refused)
    parser.add_argument("--bins", type=int, default=None,
                        help="with --method histogram: its number of bins, a whole number >= 1 (default: "
                             "10); with --method segment: equal-mass bins of each numeric feature "
                             "(default: 5)")
    parser.add_argument("--features", default=None, metavar="COL[,COL...]",
                        help="with --method segment: the feature columns whose segments it corrects, e.g. "
                             "region,device (read as --score reads columns)")
    parser.add_argument("--base", default=None, metavar="METHOD",
                        help="with --method segment: the global calibrator under the corrections (default: "
                             "platt)")
    parser.add_argument("--depth", type=int, default=None,
                        help="with --method segment: 1 corrects each feature's levels, 2 also each pair's "
                             "(default: 2)")
    parser.add_argument("--ties", default=None, choices=["allow", "strict"],
                        help="with --method isotonic: its tie policy (default: allow)")
    parser.add_argument("--strategy", default=None, choices=["uniform", "quantile"],
                        help="with --method histogram: equal-width bins or equal-count bins (default: uniform; "
                             "quantile with --score-type score, which has no probability axis to cut)")
    parser.add_argument("--smoothing", action="store_true", default=None,
                        help="with --method platt: Platt's target smoothing, (N+ + 1)/(N+ + 2) and 1/(N- + 2) "
                             "for the 0/1 labels (a finite fit when the score separates the labels)")
    parser.add_argument("--on-reversed", default=None, choices=["warn", "error", "allow"],
                        help="with --method platt: a fitted map that reverses the score order (slope < 0) "
                             "warns (default), is refused (error), or is accepted silently (allow)")
    add_pos_label_argument(parser)
    from ._common import AUTO_BYTES, add_engine_arguments

    add_engine_arguments(
        parser, f"auto (default): DuckDB, lazily, for globs, directories and files over {AUTO_BYTES >> 20} MB "
                "when the method fits on a frame (temperature, platt, isotonic, histogram), else memory; "
                "duckdb/spark/dask: fit from aggregates where the data lives (never loaded whole). Every "
                "engine fits the same map")
    parser.add_argument("--out", required=True, metavar="JSON",
                        help="path of the JSON artifact to write (read by apply, compare --calibrator, "
                             "report --calibrator and export)")
    add_json_argument(parser)


def select_role(table: Any, args: argparse.Namespace, path: str, role: str) -> np.ndarray | None:
    """Boolean mask of the rows whose ``--role-col`` equals ``role`` (None without --role-col)."""
    if not args.role_col:
        return None
    roles = role_texts(table, args.role_col, path)  # a row with no role (None/NaN or blank) refused
    mask = roles == role
    if not mask.any():
        values = ", ".join(sorted(set(roles.tolist()))[:10])
        raise VeracityError(
            f"no rows with role {role!r} in column {args.role_col!r} of {path} "
            f"(values: {values}); pick one of those roles"
        )
    return mask


#: methods that fit on a lazy frame from aggregates (see veracity.frames._fit)
LAZY_METHODS = ("temperature", "platt", "isotonic", "histogram")


def _engine(args: argparse.Namespace) -> str:
    """The engine --engine auto picks: DuckDB for large Parquet/CSV files and globs when the method allows
    (stdin is a file in memory)."""
    import os

    if args.engine == "auto" and getattr(args, "_input_name", None):
        return "memory"
    path = str(args.file)
    many = args.file is not None and (any(ch in path for ch in "*?[") or os.path.isdir(path))
    lazy_ok = args.method in LAZY_METHODS and ("," not in args.score or args.method == "temperature"
                                               or len(score_columns(args)) == 1)  # a column named "p,1"
    lazy_ok = lazy_ok and args.score_type != "score"  # a ranking score is fit on rows in memory
    return auto_engine(args, lazy_ok=lazy_ok, many=many, doing="fitting on")


#: ``--method segment``: :class:`veracity.SegmentCalibration` (a base calibrator plus per-segment corrections)
SEGMENT = "segment"


def _calibrator(args: argparse.Namespace) -> Any:
    kwargs: dict[str, Any] = {"score_type": args.score_type}
    own = (("--bins", args.bins, ("histogram", SEGMENT)), ("--strategy", args.strategy, ("histogram",)),
           ("--ties", args.ties, ("isotonic",)), ("--smoothing", args.smoothing, ("platt",)),
           ("--on-reversed", args.on_reversed, ("platt",)), ("--features", args.features, (SEGMENT,)),
           ("--base", args.base, (SEGMENT,)), ("--depth", args.depth, (SEGMENT,)))
    for flag, value, methods in own:
        if value is not None and args.method not in methods:
            shown = " or ".join(f"--method {m}" for m in methods)
            raise VeracityError(f"{flag} sets the {methods[0]} calibrator and has no effect on --method "
                                f"{args.method}; pass {shown}, or drop {flag}")
    if args.method == SEGMENT:
        return _segment_calibrator(args)
    if args.method == "histogram":
        kwargs["bins"] = 10 if args.bins is None else args.bins
        kwargs["strategy"] = args.strategy or ("quantile" if args.score_type == "score" else "uniform")
    if args.method == "isotonic":
        kwargs["ties"] = args.ties or "allow"
    if args.method == "platt":
        kwargs["smoothing"] = bool(args.smoothing)
        kwargs["on_reversed"] = args.on_reversed or "warn"
    return METHODS[args.method](**kwargs)


def _segment_calibrator(args: argparse.Namespace) -> Any:
    """``--method segment``: a :class:`veracity.SegmentCalibration` over the ``--features`` columns (read as
    ``--score`` reads columns), its base ``--base`` (default platt), ``--depth`` and ``--bins`` as the
    library takes them (its own one-line errors for a bad value)."""
    from ..segments import SegmentCalibration

    features = _segment_features(args)
    if not features:
        raise VeracityError("--method segment corrects by feature columns: pass --features region,device")
    options = {k: v for k, v in (("depth", args.depth), ("bins", args.bins)) if v is not None}
    return SegmentCalibration(base=args.base or "platt", features=features, score_type=args.score_type,
                              **options)


def _segment_features(args: argparse.Namespace) -> list[str]:
    """The ``--features`` columns of ``--method segment`` (none for any other method)."""
    if args.method != SEGMENT:
        return []
    return feature_names(args.features, str(args.file) if args.file is not None else str(demo_path()))


def _role_rows(source: Any, args: argparse.Namespace, path: str,
               counted: dict[str, int] | None = None) -> Any:
    """The rows whose --role-col equals --fit-role, as a lazy narwhals frame (nothing read yet); their
    number in ``counted["n"]``. A row whose role is missing is refused, as ``--engine memory`` (and
    threshold, conformal, report) refuse it: DuckDB's filter dropped it, silently, and fit on the other
    rows (a missing role is most likely a data error: which split is that row in?)."""
    import narwhals as nw

    from ..sources._aggregates import collect, missing_message
    from ..sources._source import as_frame, check_columns

    frame = as_frame(source)
    check_columns(frame, {"role_col": args.role_col})
    ref = nw.col(frame.ref(args.role_col))
    dtype = frame.schema[args.role_col]  # the schema by the user's names
    # a role as --engine memory writes it (:func:`role_texts`: numpy's text of the value), so that --fit-role
    # picks the same rows on every engine: a boolean is True/False (DuckDB's cast wrote true/false)
    role = (nw.when(ref).then(nw.lit("True")).otherwise(nw.lit("False")) if dtype == nw.Boolean
            else ref.cast(nw.String))
    absent = ref.is_null()
    if dtype.is_float():
        absent = absent | ref.is_nan().fill_null(False)
    # a blank role ('  ', text in a CSV) is a row with no role too, as in memory (:func:`role_texts`); only
    # text can be blank (a literal False summed was narwhals' "Can't apply aggregations to scalar-like
    # expressions": every integer, float or boolean role column failed as "could not read FILE as CSV")
    text = dtype == nw.String
    blank = ([(ref.str.strip_chars() == "").fill_null(False).cast(nw.Int64).sum().alias("blank")] if text
             else [])
    # one pass counts the rows, the missing roles and the fit role's rows; a missing role is filled with a
    # text other than --fit-role before the comparison (Dask's sum of a nullable comparison raised TypeError)
    other = "" if args.fit_role else "-"
    is_fit = (role.fill_null(other) == args.fit_role).fill_null(False)
    counts = collect(frame.nw.select(nw.len().alias("n"), absent.cast(nw.Int64).sum().alias("missing"),
                                     *blank, is_fit.cast(nw.Int64).sum().alias("kept")))
    n, missing = int(counts.get_column("n")[0] or 0), int(counts.get_column("missing")[0] or 0)
    blanks = int(counts.get_column("blank")[0] or 0) if text else 0
    if n == 0:
        from ..sources._api import no_rows_message  # the in-memory read's words, on every engine

        raise VeracityError(no_rows_message(str(path)))
    if missing or blanks:
        from ._bad_rows import first_row_in_file

        try:  # its data row, as --engine memory names it (one pass over the column; a glob names none)
            first = first_row_in_file(path, [args.role_col], None, missing=args.role_col, blank=bool(blanks))
        except Exception:  # noqa: BLE001  (naming the row is a courtesy; the error stands without it)
            first = None
        raise VeracityError(blank_roles_message(args.role_col, missing + blanks, n, first) if blanks
                            else missing_message(args.role_col, None, missing, 0, n, first_row=first))
    kept = frame.nw.filter(role == args.fit_role)
    if frame.internal is not None:  # Spark's positional names back to the user's
        kept = kept.rename({v: k for k, v in frame.internal.items()})
    n_kept = int(counts.get_column("kept")[0] or 0)  # the rows of kept, counted in the pass above
    if counted is not None:
        counted["n"] = n_kept
    if n_kept == 0:
        values = collect(frame.nw.select(role.alias("_r")).unique().head(10))
        shown = ", ".join(sorted(str(v) for v in values.get_column("_r").to_list()))
        raise VeracityError(
            f"no rows with role {args.fit_role!r} in column {args.role_col!r} of {path} "
            f"(values: {shown}); pick one of those roles"
        )
    return kept


def _role_column(args: argparse.Namespace) -> str | None:
    """``--role-col``, or ``role`` when the input has a column of that name (as threshold, conformal and
    report take it): without it ``veracity fit`` fit on every row, the test rows among them, and the
    calibrator then looked better than it is on those rows."""
    if args.role_col is not None:
        return str(args.role_col)
    from ..sources._source import as_frame
    from ._rows import lazy_errors

    path = str(args.file) if args.file is not None else str(demo_path())
    columns = _header_columns(path)
    if columns is None or ("role" in columns and (args.fit_role or args.allow_role)):
        # DuckDB reads it: not a plain local CSV/Parquet file, or a header not read alone; or a role column
        # named with --fit-role/--allow-role and no --role-col, which is refused ("needs --role-col") where
        # DuckDB cannot read the file (a ragged row, bad UTF-8 further down) -- the header alone cannot say
        try:
            with lazy_errors("duckdb", path):
                columns = as_frame(path).columns
        except VeracityError:
            return None  # the reader below names what is wrong with the file
    return "role" if "role" in columns else None


def _header_columns(path: str) -> tuple[str, ...] | None:
    """The column names of a plain local ``.csv``/``.tsv``/``.txt`` or Parquet file, read from its header
    line (Python's csv reader, as :func:`~veracity.sources._duckdb.csv_names` reads it) or its Parquet
    schema (pyarrow) without opening DuckDB (~50 ms of a small fit); None where that read could differ
    from DuckDB's relation, which then decides: ``-`` (stdin), a glob, a remote path, a directory, a
    missing or unreadable file, a compressed or content-sniffed CSV, an empty one, a header that is not
    UTF-8 or holds another delimiter DuckDB's sniffer could pick (``|``, ``;``, tab) or a repeated name
    (which the reader refuses)."""
    from .._files import _CSV, _PARQUET, is_remote

    if path == "-" or is_remote(path) or any(ch in path for ch in "*?["):
        return None
    file = os.path.expanduser(path)
    low = file.lower()
    try:
        if not os.path.isfile(file) or os.path.getsize(file) == 0:
            return None
        if low.endswith(_PARQUET):
            import pyarrow.parquet as pq

            names = [str(n) for n in pq.read_schema(file).names]
        elif low.endswith(tuple(s for s in _CSV if not s.endswith(".gz"))):
            from ..sources._duckdb import csv_header

            header = csv_header(file, ",")
            if header is None or any(d in h for h in header for d in ("|", ";", "\t")):
                return None
            names = header
        else:
            return None
    except Exception:  # noqa: BLE001  (an unreadable file or schema: DuckDB's read names what is wrong)
        return None
    if len({n.casefold() for n in names}) != len(names):  # a repeated name (or one but for case)
        return None
    return tuple(names)


#: --out names fit does not write (it writes the calibrator as JSON): a data file, a serialised model
_NOT_ARTIFACTS = (*DATA_SUFFIXES, ".xlsx", ".xls", ".pkl", ".pickle", ".joblib", ".npy", ".npz", ".html",
                  ".png", ".pdf")


def _refuse_not_json(out: str) -> None:
    """``--out`` named for a file fit does not write refused before any work: ``cal.onnx`` / ``cal.sql``
    (which ``veracity export`` writes from the JSON artifact), a data file or a pickle. Other names
    (``cal.json``, ``cal.yaml`` — JSON is YAML —, no suffix) are written as the JSON artifact."""
    name = Path(out).name.lower()
    json_name = Path(out).with_suffix(".json")
    if name.endswith((".onnx", ".sql")):
        kind = f"--onnx {out}" if name.endswith(".onnx") else "--sql DIALECT"
        raise VeracityError(f"--out {out}: fit writes the calibrator as a JSON artifact, not "
                            f"{Path(out).suffix}; pass --out {json_name}, then `veracity export {json_name} "
                            f"{kind}`")
    if name.endswith(_NOT_ARTIFACTS):
        raise VeracityError(f"--out {out}: fit writes the calibrator as a JSON artifact (which veracity "
                            f"apply, report and export read), not {Path(out).suffix}; pass --out {json_name}")


def run(args: argparse.Namespace) -> int:
    _refuse_not_json(args.out)
    args.role_col = _role_column(args)
    given = [flag for flag, value in (("--fit-role", args.fit_role), ("--allow-role", args.allow_role)) if value]
    if given and not args.role_col:  # without a role column every row is fit on, whatever the flag says
        raise VeracityError(f"{given[0]} needs --role-col naming the column of each row's role; without it the "
                            "calibrator is fit on every row")
    args.fit_role = args.fit_role or "calib"
    engine = _engine(args)
    cal = _calibrator(args)
    if args.method == SEGMENT and engine != "memory":  # its frame form reads in-memory frames only
        raise VeracityError(f"--method segment fits on rows in memory; drop --engine {engine} (or pass "
                            "--engine memory), or use a method that fits where the rows live: temperature, "
                            "platt, isotonic or histogram")
    # the number of fit rows, which an error's count ("1 of 106 are not") is said to be: counted when they
    # are selected (in memory from the file read, else where the rows live)
    counted: dict[str, int] = {}
    named = roles_named(args.role_col, args.fit_role) if args.role_col else None

    def used(table: Any, path: str) -> tuple[np.ndarray | None, str]:
        mask = select_role(table, args, path, args.fit_role)
        if mask is not None:
            counted["n"] = int(np.count_nonzero(mask))
        return mask, named or ""

    # in memory only the rows of the fit role are read and checked (as DuckDB filters them where they live),
    # an error naming the row's data row in FILE
    with counted_on_fit_rows(named, lambda: counted.get("n")):
        rows = read_rows(args, engine, columns=(args.role_col, *_segment_features(args)), used=used)
    role = args.fit_role if args.role_col else None
    if rows.lazy:  # the rows of the fit role, filtered where they live
        from ..frames import _fit as _frame_fit  # noqa: F401  registers the calibrators' fit(frame, ...)

        rows.select = (lambda frame: _role_rows(frame, args, rows.path, counted)) if args.role_col else None
        rows.role = (args.role_col, args.fit_role) if args.role_col else None
    try:  # the calibrator's own fit, in the form the engine takes (arrays, or the frame where it lives)
        with counted_on_fit_rows(named, lambda: counted.get("n")), \
                file_rows(rows.mask, rows.named):
            rows.call(cal.fit, role=role, allow_role=args.allow_role,
                      metadata=_metadata(args, shown_path(args, rows.path)))
    except VeracityError as exc:
        if rows.lazy:
            raise _cli_words(exc) from None
        raise
    return _report(args, cal, shown_path(args, rows.path), role, engine)


def _cli_words(exc: VeracityError) -> VeracityError:
    """A lazy frame's remedy in the CLI's words ("collect the columns" is ``--engine memory`` here);
    errors that name a parameter are left to main(), which spells it as its flag."""
    if exc.param is not None:
        said = re.sub(r"collect the calibration rows of the lazy \w+ frame \(score and label columns\) first",
                      "use --engine memory", exc.message)
        return exc if said == exc.message else VeracityError(said, exc.param, exc.hint, value=exc.value)
    msg = str(exc).replace("pass an in-memory frame (collect the needed columns)", "use --engine memory")
    return VeracityError(msg.replace("or collect the columns for the one-vs-rest form",
                                     "or --engine memory for one-vs-rest"))


def _metadata(args: argparse.Namespace, path: str) -> dict[str, Any]:
    meta = {
        "model_revision": args.model_revision,
        "fit_window": args.fit_window,
        "cohort": args.cohort,
        "source_file": path,
        "score_column": args.score,
        "label_column": args.label,
        "role_column": args.role_col,
        # the width of the fit scores, which a lazy fit does not record itself: a column named "p,1" is
        # one score column for veracity export, not two
        "n_columns": len(score_columns(args)),
    }
    if args.pos_label is not None:
        meta["pos_label"] = args.pos_label
    return meta


def _report(args: argparse.Namespace, cal: Any, path: str, role: str | None, engine: str) -> int:
    out = Path(args.out)
    try:
        cal.save(out)
    except OSError as exc:
        raise VeracityError(f"could not write {out}: {exc.strerror or exc}; check the path") from None
    rows = cal.metadata["n_rows"]
    where = f" (role {role!r})" if role else " (no --role-col: all rows)"
    shown = getattr(cal, "_ovr", None) or cal  # (N, K) scores: the one-vs-rest form
    # stdout: the fitted map; stderr: which file was read and where the artifact went
    lazy = {"duckdb": " (DuckDB engine)", "spark": " (Spark engine)", "dask": " (Dask engine)"}.get(engine, "")
    emit(args, str(shown), {"file": path, "out": str(out), **cal.to_dict()},
         note_text=f"{path}: fit {cal.name} on {rows} rows{where}{lazy}")
    note(args, f"saved to {out}")
    return 0
