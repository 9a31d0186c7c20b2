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
from pathlib import Path
from typing import Any

import numpy as np

from .. import io
from ..core._validation import VeracityError
from ..calibrators import METHODS
from ._common import add_input_arguments, add_json_argument, emit, inputs, load, note
from ._labels import add_pos_label_argument, apply_pos_label  # noqa: F401  (also imported from here)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--method", required=True, choices=sorted(METHODS),
                        help="calibration method")
    parser.add_argument("--role-col", default=None,
                        help="column holding each row's split role (train/val/calib/test)")
    parser.add_argument("--fit-role", default="calib",
                        help="fit on the rows of this role (default: calib)")
    parser.add_argument("--allow-role", default=None,
                        help="explicitly allow fitting on a 'test' or 'train' role (recorded)")
    parser.add_argument("--model-revision", default=None, help="base model revision (recorded)")
    parser.add_argument("--fit-window", default=None, help="fit period, e.g. 2026-01..2026-03 (recorded)")
    parser.add_argument("--cohort", default=None, help="cohort the rows come from (recorded)")
    parser.add_argument("--bins", type=int, default=10, help="histogram bins (default: 10)")
    parser.add_argument("--ties", default="allow", choices=["allow", "strict"],
                        help="isotonic tie policy (default: allow)")
    add_pos_label_argument(parser)
    from ._audit import AUTO_BYTES, add_engine_arguments

    add_engine_arguments(
        parser, f"auto (default): DuckDB, lazily, for globs, directories and files over {AUTO_BYTES >> 20} MB "
                "when the method fits on a frame (temperature, platt, isotonic, histogram), else memory; "
                "duckdb/spark/dask: fit from aggregates where the data lives (never loaded whole). Every "
                "engine fits the same map")
    parser.add_argument("--out", required=True, help="path of the JSON artifact to write")
    add_json_argument(parser)


def select_role(table: Any, args: argparse.Namespace, path: str, role: str) -> np.ndarray | None:
    """Boolean mask of the rows whose ``--role-col`` equals ``role`` (None without --role-col)."""
    if not args.role_col:
        return None
    roles = io.column(table, args.role_col, path=path).astype(str)
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
    """The engine --engine auto picks: DuckDB for large Parquet/CSV files and globs when the method allows."""
    import os

    from ._audit import AUTO_BYTES

    if args.engine != "auto":
        return args.engine
    if args.file is None or getattr(args, "_input_name", None):
        return "memory"
    path = str(args.file)
    many = any(ch in path for ch in "*?[") or os.path.isdir(path)
    large = os.path.isfile(path) and os.path.getsize(path) > AUTO_BYTES
    lazy_ok = args.method in LAZY_METHODS and ("," not in args.score or args.method == "temperature")
    if (many or large) and lazy_ok:
        note(args, f"note: fitting on {path} lazily with DuckDB (--engine memory loads it instead)")
        return "duckdb"
    return "memory"


def _calibrator(args: argparse.Namespace) -> Any:
    kwargs: dict[str, Any] = {"score_type": args.score_type}
    if args.method == "histogram":
        kwargs["bins"] = args.bins
    if args.method == "isotonic":
        kwargs["ties"] = args.ties
    return METHODS[args.method](**kwargs)


def _fit_lazy(args: argparse.Namespace, engine: str, cal: Any, meta: dict[str, Any]) -> tuple[str, str | None]:
    """Fit ``cal`` where the data lives; returns ``(path, role)``."""
    import warnings

    from ..datasets import demo_path
    from ._audit import _lazy_source

    if args.pos_label is not None:
        raise VeracityError(f"--engine {engine} reads 0/1 (or true/false) labels; drop --pos-label "
                            "or use --engine memory")
    path = str(args.file) if args.file is not None else str(demo_path())
    role = args.fit_role if args.role_col else None
    try:
        with warnings.catch_warnings():
            if engine != "duckdb":  # the engines' own deprecation notices are not the user's to act on
                warnings.simplefilter("ignore", FutureWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
            source: Any = _lazy_source(args, engine, path)
            if args.role_col:
                source = _role_rows(source, args, path)
            score: Any = [c.strip() for c in args.score.split(",")] if "," in args.score else args.score
            cal.fit(source, score=score, label=args.label, sample_weight=args.weight, role=role,
                    allow_role=args.allow_role, metadata=meta)
    except VeracityError:
        raise
    except Exception as exc:  # an engine's read error: one line, never the file's rows
        from ..sources._duckdb import describe_error

        raise VeracityError(describe_error(exc, path)) from None
    return path, role


def _role_rows(source: Any, args: argparse.Namespace, path: str) -> Any:
    """The rows whose --role-col equals --fit-role, as a lazy narwhals frame (nothing read yet)."""
    import narwhals as nw

    from ..sources._aggregates import collect
    from ..sources._source import as_frame, check_columns

    frame = as_frame(source)
    check_columns(frame, {"role_col": args.role_col})
    role = nw.col(frame.ref(args.role_col)).cast(nw.String)
    kept = frame.nw.filter(role == args.fit_role)
    if frame.internal is not None:  # Spark's positional names back to the user's
        kept = kept.rename({v: k for k, v in frame.internal.items()})
    if collect(kept.select(nw.len())).item() == 0:
        values = collect(frame.nw.select(role.alias("_r")).unique().head(10))
        shown = ", ".join(sorted(str(v) for v in values.get_column("_r").to_list()))
        raise VeracityError(
            f"no rows with role {args.fit_role!r} in column {args.role_col!r} of {path} "
            f"(values: {shown}); pick one of those roles"
        )
    return kept


def run(args: argparse.Namespace) -> int:
    engine = _engine(args)
    cal = _calibrator(args)
    if engine != "memory":
        from ..datasets import demo_path

        meta = _metadata(args, str(args.file) if args.file is not None else str(demo_path()))
        try:
            path, role = _fit_lazy(args, engine, cal, meta)
        except VeracityError as exc:
            raise _cli_words(exc) from None
        return _report(args, cal, path, role, engine)
    path = str(args.file) if args.file is not None else ""
    if any(ch in path for ch in "*?[") or (path and Path(path).is_dir()):
        table = io.read_files(path)  # a glob or a folder of files, loaded
    else:
        table, path = load(args)
    scores, labels, weights = inputs(table, args, path)
    labels = apply_pos_label(labels, args.pos_label, scores=scores)
    mask = select_role(table, args, path, args.fit_role)
    role = args.fit_role if mask is not None else None
    if mask is not None:
        scores, labels = scores[mask], labels[mask]
        weights = None if weights is None else weights[mask]
    meta = _metadata(args, path)
    cal.fit(scores, labels, sample_weight=weights, role=role, allow_role=args.allow_role, metadata=meta)
    return _report(args, cal, path, role, engine)


def _cli_words(exc: VeracityError) -> VeracityError:
    """A lazy frame's remedy in the CLI's words ("collect the columns" is ``--engine memory`` here);
    errors that name a parameter are left to main(), which spells it as its flag."""
    if exc.param is not None:
        return exc
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
