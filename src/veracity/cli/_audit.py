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

    veracity audit scores.csv --bins auto --honest --n-resamples 1000 --random-state 0

A table in a SQL database is audited where it is (only aggregates travel), and
``--mlflow`` logs the audit to an MLflow run:

    veracity audit --sql-url sqlite:///scores.db --table scores --score p --label y --by segment --mlflow
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..core._audit import audit
from ._common import (AUTO_BYTES, add_engine_arguments, add_input_arguments, add_json_argument, auto_engine,
                      check_max_groups, emit, note, or_default, read_rows, refuse_unused, score_columns,
                      several_files, shown_path)
from ._labels import add_pos_label_argument

T = TypeVar("T")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, no_ranking="an audit reads probabilities")
    parser.add_argument("--bins", type=_bins, default=15,
                        help="number of reliability bins on the probability axis, a whole number >= 1, or "
                             "'auto' for ceil(N^(1/3)), N the rows (with --sample-weight, the effective rows: "
                             "(sum w)^2 / sum w^2) (default: 15)")
    parser.add_argument("--strategy", default="uniform", choices=["uniform", "quantile", "equal-count"],
                        help="uniform: equal-width bins on [0, 1]; quantile: equal-mass bins cut at the "
                             "(weighted) score quantiles; equal-count: equal row counts, cut midway between "
                             "neighbouring scores (Kumar et al. 2019) (default: uniform)")
    parser.add_argument("--interval", default="wilson", choices=["wilson", "clopper-pearson"],
                        help="per-bin binomial interval (default: wilson)")
    parser.add_argument("--level", type=float, default=0.95,
                        help="level of the per-bin intervals and of the --bootstrap intervals, in (0, 1) "
                             "(default: 0.95)")
    parser.add_argument("--min-count", type=int, default=20,
                        help="bins with fewer rows than this are flagged insufficient; with --sample-weight, "
                             "fewer effective rows (Kish: (sum w)^2 / sum w^2) (default: 20)")
    parser.add_argument("--threshold", type=float, default=None,  # None: not given (see _threshold_used)
                        help="decision threshold of the accuracy, on the probability scale even with "
                             "--score-type logit: a row predicts 1 when p >= THRESHOLD (default: 0.5); with "
                             "logits the output also gives the logit it is, log(T/(1-T)) (veracity threshold "
                             "reads and prints thresholds on the scores' own scale, logits there)")
    parser.add_argument("--by", default=None, metavar="COLUMN",
                        help="column to slice by: one audit per value (at most --max-groups)")
    parser.add_argument("--multiclass", default="top-label", choices=["top-label", "classwise"],
                        help="several --score columns (one per class): the top-label reading (default), or "
                             "classwise: one one-vs-rest audit per class, classwise ECE and multiclass Brier")
    add_pos_label_argument(parser)
    parser.add_argument("--max-groups", type=int, default=None, metavar="N",
                        help="at most N slices with --by; smaller ones are pooled as '(other ...)' (default: 100)")
    add_engine_arguments(
        parser, f"auto (default): DuckDB, lazily, for globs, directories and files over {AUTO_BYTES >> 20} MB, "
                "else memory; memory: load the needed columns; duckdb: out of core inside DuckDB; spark: a "
                "Spark session (--spark-master); dask: Dask DataFrame. Every engine gives the same numbers")
    honest = parser.add_argument_group("honest estimators (how far the numbers can be trusted)")
    honest.add_argument("--bootstrap", dest="ci", nargs="?", const="bca", default=None,
                        choices=["percentile", "bca"],
                        help="bootstrap intervals for ECE, MCE, Brier, NLL, AUC, accuracy "
                             "(default method when given: bca)")
    honest.add_argument("--ci", dest="ci", nargs="?", const="bca", default=None, choices=["percentile", "bca"],
                        help=argparse.SUPPRESS)  # old name, hidden
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
    # None: not given (a resampling option without --bootstrap/--noise-floor changes nothing and is refused)
    honest.add_argument("--n-resamples", dest="resamples", type=int, default=None,
                        help="bootstrap resamples and noise-floor redraws, with --bootstrap, --noise-floor or "
                             "--honest (default: 1000)")
    honest.add_argument("--resamples", dest="resamples", type=int, default=None, help=argparse.SUPPRESS)  # old name
    honest.add_argument("--random-state", dest="seed", type=int, default=None,
                        help="random_state of the bootstrap, the noise-floor redraws and the Monte-Carlo "
                             "Hosmer-Lemeshow p-value of --tests (default: 0)")
    honest.add_argument("--seed", dest="seed", type=int, default=None, help=argparse.SUPPRESS)  # old name, hidden
    sql = parser.add_argument_group("a table in a SQL database (computed inside the database)")
    sql.add_argument("--sql-url", default=None, metavar="URL",
                     help="database URL: sqlite:///PATH, duckdb:///PATH, postgresql://USER@HOST/DB, or any "
                          "SQLAlchemy URL when SQLAlchemy is installed (a password in it is never printed)")
    sql.add_argument("--table", default=None, help="table to audit with --sql-url; schema.table (one dot) names "
                                                    "table in schema when no table has the dotted name itself")
    parser.add_argument("--mlflow", action="store_true",
                        help="also log the audit (metrics, audit.json, reliability.png, report.html) to MLflow: "
                             "the active run, or a new run in MLFLOW_TRACKING_URI / MLFLOW_EXPERIMENT_NAME")
    parser.add_argument("--no-figures", action="store_true",
                        help="with --mlflow: draw no figure (no reliability.png; report.html without its "
                             "diagram), which saves the seconds drawing takes")
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


def _honest_flags(args: argparse.Namespace) -> list[str]:
    return [flag for flag, on in [("--bootstrap", args.ci), ("--noise-floor", args.noise_floor),
            ("--estimators", args.estimators), ("--tests", args.tests), ("--corp", args.corp),
            ("--honest", args.honest)] if on]


def _multiclass(args: argparse.Namespace) -> bool:
    """--score names several columns (a column literally named "p,1" is one binary score)."""
    return "," in args.score and len(score_columns(args)) > 1


def _resampling(args: argparse.Namespace) -> None:
    """--n-resamples and --random-state drive the bootstrap and the noise-floor redraws, and
    --random-state also the Monte-Carlo Hosmer-Lemeshow p-value of --tests (2,000 label redraws):
    without them they changed nothing, silently; refused in the command line's words."""
    resampling = bool(args.ci or args.noise_floor or args.honest)
    if not resampling and not args.tests:
        refuse_unused({"--n-resamples": args.resamples is not None, "--random-state": args.seed is not None},
                      "without --bootstrap, --noise-floor, --tests or --honest (the resampling they set); "
                      "add one of those, or drop {it}")
    if not resampling:
        refuse_unused({"--n-resamples": args.resamples is not None},
                      "without --bootstrap, --noise-floor or --honest (the resampling it sets; --tests always "
                      "redraws 2,000 times); add one of those, or drop {it}")


def _threshold_used(args: argparse.Namespace) -> float:
    """``--threshold`` (0.5 when not given). The top-label reading of several ``--score`` columns scores
    the argmax (top-label accuracy), which no threshold changes: given there, it changed nothing but the
    JSON's ``threshold``, silently, and is refused. ``--threshold -0`` reads 0 (``+ 0.0``: "acc(-0)")."""
    if args.threshold is not None and _multiclass(args) and args.multiclass == "top-label":
        refuse_unused({"--threshold": True},
                      "on the top-label reading of several --score columns (its accuracy is the top-label "
                      "one, the argmax's); drop it, or pass --multiclass classwise (one one-vs-rest accuracy "
                      "per class at the threshold)")
    return or_default(args.threshold, 0.5) + 0.0


def _engine(args: argparse.Namespace) -> str:
    """The engine --engine auto picks: DuckDB for large files and globs when the options allow."""
    return auto_engine(args, lazy_ok=not _honest_flags(args) and not _multiclass(args), many=several_files(args),
                       doing="auditing")


def _check_lazy(args: argparse.Namespace, engine: str) -> None:
    """What the lazy engines do not compute, refused before any work in the command line's words."""
    from ..core._validation import VeracityError

    extras = _honest_flags(args)
    if extras:
        raise VeracityError(
            f"--engine {engine} computes the core audit only; drop {', '.join(extras)} or use --engine memory"
        )
    if _multiclass(args):
        raise VeracityError(f"--engine {engine} audits binary scores; pass one --score column or --engine memory")


def _check_classwise(args: argparse.Namespace) -> None:
    """--multiclass classwise reads several --score columns and fills the slices itself."""
    from ..core._validation import VeracityError

    if args.multiclass != "classwise":
        return
    if not _multiclass(args):
        raise VeracityError(f"--multiclass classwise reads one --score column per class; got --score {args.score!r}"
                            " (pass them comma-separated: --score p0,p1,p2)")
    if args.by is not None:
        raise VeracityError("--multiclass classwise gives one slice per class, and --by slices too; pass one of them")


def _run_sql(args: argparse.Namespace) -> int:
    from ..core._validation import VeracityError
    from ..sql._connect import _secrets, redact

    if args.table is None:
        raise VeracityError("--sql-url needs --table naming the table to audit")
    if args.file is not None:
        raise VeracityError("pass either FILE or --sql-url, not both")
    extras = _honest_flags(args) + [flag for flag, value in (("--memory-limit", args.memory_limit),
                                                             ("--spark-master", args.spark_master)) if value]
    if args.multiclass != "top-label":
        extras.append("--multiclass")
    if extras or args.engine != "auto" or "," in args.score:
        drop = extras + (["--engine"] if args.engine != "auto" else []) + (["multiclass --score"] if "," in args.score else [])
        raise VeracityError(f"--sql-url computes the core binary audit inside the database; drop {', '.join(drop)}")
    result = _sql_table(args, lambda table: audit(  # the public function's table form: computed in the database
        args.sql_url, table=table, score=args.score, label=args.label, by=args.by, sample_weight=args.weight,
        bins=args.bins, strategy=args.strategy, pos_label=args.pos_label, score_type=args.score_type,
        interval=args.interval, level=args.level, min_count=args.min_count, threshold=_threshold_used(args),
        max_groups=check_max_groups(args),
    ))
    # as the connection shows it: the URL's password hidden wherever it recurs in the URL (a query
    # parameter, its decoded form), not only in user:password@ and password= (redact alone)
    shown = redact(args.sql_url, _secrets(args.sql_url))
    payload = {"database": shown, "sql_table": args.table, "score": args.score, "label": args.label, **result.to_dict()}
    text, payload = _positive_class(args, *_threshold_scale(args, result, str(result), payload))
    emit(args, text, payload, note_text=f"{shown} table {args.table!r} (computed in the database)")
    _log_mlflow(args, result)
    return 0


def _sql_table(args: argparse.Namespace, audit_table: Callable[[Any], T]) -> T:
    """``audit_table(name)`` for ``--table NAME``; when no table is named ``"s.t"`` itself (one dot), the
    table ``t`` in schema ``s`` (the Python API's ``table=("s", "t")``). A name not found is refused in
    the command line's words."""
    from ..core._validation import VeracityError

    name = args.table
    try:
        return audit_table(name)
    except VeracityError as exc:
        said = str(exc)
        dotted = f"; table={name!r} names one table whose name holds a dot"
        if dotted not in said:  # found (another mistake), or no dot: the database's own words
            raise
        base = said.split(dotted, 1)[0]
    parts = name.split(".")
    if len(parts) != 2 or not all(parts):
        raise VeracityError(f"{base}; --table {name!r} is read as one table name (only schema.table, with one "
                            "dot, is split); check the name") from None
    schema, table = parts
    try:
        return audit_table((schema, table))
    except VeracityError as exc:
        if "reading the table's columns failed" not in str(exc):  # the table was found: its own mistake
            raise
    raise VeracityError(f"{base}; --table {name!r} names neither a table of that name nor table {table!r} in "
                        f"schema {schema!r}; check the name") from None


def threshold_logit(threshold: float) -> float | None:
    r"""The logit cut a probability threshold :math:`t` makes on logit scores, as the audit decides:
    :math:`s \ge \log(t / (1 - t))` for :math:`0 < t < 1` (exact there, as ``vc.accuracy`` compares it);
    :math:`-\infty` at :math:`t = 0` (every row); None at :math:`t = 1`, where the audit compares
    :math:`\sigma(s) \ge 1` in floating point (the rows whose probability rounds to 1), no logit cut."""
    if 0.0 < threshold < 1.0:
        return float(np.log(threshold / (1.0 - threshold)))
    return -math.inf if threshold == 0.0 else None


def _threshold_scale(args: argparse.Namespace, result: Any, text: str,
                     payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Binary logit scores (``--score-type logit``): the accuracy's threshold said on both scales, a line
    under the audit and ``threshold_logit`` in the JSON. ``--threshold`` is a probability here, while
    ``veracity threshold`` reads and prints logits: "acc(0.3)" alone did not say which a logit audit
    meant (0.3 read as p >= 0.3, i.e. logit >= -0.8473, not logit >= 0.3). Other audits: unchanged."""
    if args.score_type != "logit" or result.top_label:
        return text, payload
    t = float(result.threshold)
    cut = threshold_logit(t)
    where = ("every row" if cut == -math.inf else "the rows whose probability is 1 in floating point"
             if cut is None else f"logit >= {cut:.6g}")
    line = (f"(--threshold {t:g} is a probability, with --score-type logit too: a row predicts 1 when "
            f"p >= {t:g}, i.e. {where}; veracity threshold reads thresholds as logits)")
    return f"{text}\n{line}", {**payload, "threshold_logit": cut}


def _positive_class(args: argparse.Namespace, text: str,
                    payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``--pos-label X``: the positive class named under the audit's header and in the JSON (``pos_label``,
    the text given). The base rate, every score and every number read P(label = X); before, nothing said
    which class that was (``--pos-label no`` on scores of ``yes`` printed a base rate of the no's and an AUC
    of 0.16 with no word that the classes were the other way round). Without it: unchanged."""
    if args.pos_label is None:
        return text, payload
    shown = " ".join(str(args.pos_label).split()) or repr(args.pos_label)
    line = (f"(positive class: {args.label} = {shown}, from --pos-label; the base rate and every number read "
            f"the scores as P({args.label} = {shown}))")
    head, _, rest = text.partition("\n")
    items = list(payload.items())
    at = next((i + 1 for i, (key, _) in enumerate(items) if key == "label"), len(items))
    ordered = {**dict(items[:at]), "pos_label": args.pos_label, **dict(items[at:])}
    return f"{head}\n{line}" + (f"\n{rest}" if rest else ""), ordered


def _log_mlflow(args: argparse.Namespace, result: object) -> None:
    """``--mlflow``: log to the active run, or to a new run that is ended here — or, where the environment
    names a run (``MLFLOW_RUN_ID``, as ``mlflow run`` sets it for its entry point), to that run, resumed as
    MLflow's own ``start_run`` does and left with its name (it had been renamed "veracity audit")."""
    if not getattr(args, "mlflow", False):
        return
    from ..core._validation import VeracityError
    from ..tracking import log_mlflow
    from ..tracking._mlflow import _mlflow, _unreachable

    mlflow = _mlflow()
    started = mlflow.active_run() is None
    try:
        if started:  # a store that cannot be opened or reached: one redacted line, as vc.log_mlflow says it
            try:
                import os

                named = bool(os.environ.get("MLFLOW_RUN_ID"))  # that run, resumed: not renamed
                mlflow.start_run(run_name=None if named else "veracity audit")
            except Exception as exc:  # noqa: BLE001 - MlflowException, a missing store driver
                raise _unreachable(mlflow, exc) from None
        logged = log_mlflow(result, figures=not getattr(args, "no_figures", False))
    except VeracityError:
        raise
    except Exception as exc:  # the tracking server's reason on one line, never a credential
        from ..sql._connect import redact

        raise VeracityError(redact(f"logging to MLflow failed: {' '.join(str(exc).split())}")) from None
    finally:
        if started and mlflow.active_run() is not None:
            mlflow.end_run()
    note(args, f"(logged to MLflow run {logged.run_id}: {len(logged.metrics)} metrics, "
               f"{', '.join(logged.artifacts)})")
    held = f"run {logged.run_id} still holds"  # that note is a warning too, already on stderr
    for text in logged.notes:  # renamed slice keys, metrics an earlier log left now NaN: as vc.log_mlflow says
        if not text.startswith(held):
            note(args, f"note: {text}")


def run(args: argparse.Namespace) -> int:
    _resampling(args)
    if not args.mlflow:  # the figures --no-figures leaves out are the ones logged to MLflow
        refuse_unused({"--no-figures": args.no_figures},
                      "without --mlflow (the only figures the audit draws are those it logs); add --mlflow, "
                      "or drop {it}")
    check_max_groups(args)
    if getattr(args, "sql_url", None) is not None:
        return _run_sql(args)
    if getattr(args, "table", None) is not None:
        from ..core._validation import VeracityError

        raise VeracityError("--table names a table of --sql-url; pass --sql-url URL too")
    _check_classwise(args)
    engine = _engine(args)
    if engine != "memory":
        _check_lazy(args, engine)
    rows = read_rows(args, engine, by=args.by)
    honest = {} if rows.lazy else dict(  # options only the rows in memory compute (refused above otherwise)
        bootstrap=args.ci or ("bca" if args.honest else False), n_resamples=or_default(args.resamples, 1000),
        noise_floor=args.noise_floor or args.honest, random_state=or_default(args.seed, 0),
        estimators=args.estimators or args.honest, tests=args.tests or args.honest,
        corp=args.corp or args.honest)
    if args.multiclass == "classwise":
        honest["multiclass"] = "classwise"
    result = rows.call(  # the public function, in the form the engine takes (arrays, or the frame where it lives)
        audit, bins=args.bins, strategy=args.strategy, score_type=args.score_type, interval=args.interval,
        level=args.level, min_count=args.min_count, threshold=_threshold_used(args),
        max_groups=check_max_groups(args),
        **honest)
    payload = {"file": shown_path(args, rows.path), "score": args.score, "label": args.label,
               **({"engine": engine} if rows.lazy else {}), **result.to_dict()}
    text, payload = _positive_class(args, *_threshold_scale(args, result, str(result), payload))
    emit(args, text, payload, note_text=rows.note)
    _log_mlflow(args, result)
    return 0
