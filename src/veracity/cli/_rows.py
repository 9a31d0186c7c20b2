"""Reading a command's rows: the input flags, the file (or the demo data) read by the source layer
or opened where the rows live (``--engine``), and the score, label and weight columns checked in the
command line's words."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._files import _PARQUET, expand
from ..core._validation import MissingLabels, VeracityError
from ..datasets import demo_path
from ..sources import _api as source
from ..sources._arrow_numpy import from_numpy, to_numpy
from ._bad_rows import FinalRows, bad_rows, file_rows, first_bad_row, locate
from ._output import _show, note, shown_path


#: what ``--score-type score`` does, said by ``--score-type``'s help unless a command says its own
SCORE_TYPE_NOTE = "calibrators and AUC take it; probability metrics refuse it"

#: how a ranking score (``--score-type score``) reaches a command that reads probabilities: calibrated first
CALIBRATE_FIRST = ("calibrate it first (veracity fit --score-type score, e.g. --method isotonic, then "
                   "veracity apply)")

#: the commands that take a ranking score as it is, named by those that do not
RANKING_TAKEN = "or rank with it: veracity compare --against, or veracity threshold --target-recall, " \
                "--target-precision or --budget"


def add_input_arguments(parser: argparse.ArgumentParser, *, file_optional: bool = True,
                        score_type_note: str = SCORE_TYPE_NOTE, no_ranking: str | None = None,
                        calibrate_first: str = CALIBRATE_FIRST) -> None:
    """FILE, --score, --label, --weight, --score-type (defaults fit the bundled demo data).

    ``score_type_note``: what the command does with ``--score-type score`` (help text only).
    ``no_ranking``: why the command has no use for a ranking score ("an audit reads probabilities"):
    ``score`` is then not among ``--score-type``'s choices (:func:`add_score_type_argument`)."""
    if file_optional:
        parser.add_argument(
            "file", nargs="?", default=None,
            help="CSV or Parquet file of scored rows; '-' reads stdin (default: the bundled demo data)",
        )
    else:
        parser.add_argument("file", help="CSV or Parquet file of scored rows; '-' reads stdin")
    parser.add_argument("--score", default="score",
                        help="score column, or comma-separated columns for (N, K) multiclass (default: score)")
    parser.add_argument("--label", default="label",
                        help="label column: 0/1 or true/false, another two-valued column with --pos-label, "
                             "class indices 0..K-1 for multiclass (default: label)")
    parser.add_argument("--sample-weight", dest="weight", default=None, metavar="COL",
                        help="column of non-negative row weights (default: none, every row weighs 1)")
    parser.add_argument("--weight", dest="weight", default=None, help=argparse.SUPPRESS)  # old name, hidden
    add_score_type_argument(parser, score_type_note=score_type_note, no_ranking=no_ranking,
                            calibrate_first=calibrate_first)


def add_score_type_argument(parser: argparse.ArgumentParser, *, score_type_note: str = SCORE_TYPE_NOTE,
                            no_ranking: str | None = None, calibrate_first: str = CALIBRATE_FIRST) -> None:
    """--score-type: probability, logit, or score (a ranking score; ``score_type_note`` says what the command
    does with it). A command with ``no_ranking`` (why it has no use for one) offers probability and logit
    only, and ``--score-type score`` is argparse's usage error (exit 2) saying why, how to calibrate it
    (``calibrate_first``) and which commands take it as it is: a choice that every run refused was offered,
    its refusal coming only after the rows were read."""
    if no_ranking is None:
        kinds = ("what the --score values are: probability (in [0, 1]), logit (log-odds, or K class "
                 f"logits), or score (a ranking score with no probability reading: {score_type_note}) "
                 "(default: probability)")
        parser.add_argument("--score-type", default="probability", choices=["probability", "logit", "score"],
                            help=kinds)
        return
    choices = ["probability", "logit"]
    fix = f"{calibrate_first}, {RANKING_TAKEN}"

    def score_type(value: str) -> str:
        if value == "score":  # argparse's own words for a choice not offered, then why and what to do
            shown = ", ".join(repr(c) for c in choices)
            raise argparse.ArgumentTypeError(f"invalid choice: 'score' (choose from {shown}): {no_ranking}, "
                                             f"so a ranking score is not taken here; {fix}")
        return value

    score_type.__name__ = "score type"  # argparse names a type's failure by it
    parser.add_argument("--score-type", default="probability", choices=choices, type=score_type,
                        help="what the --score values are: probability (in [0, 1]) or logit (log-odds, or K "
                             "class logits) (default: probability). A ranking score with no probability "
                             "reading (--score-type score elsewhere) is not taken here, as "
                             f"{no_ranking}: {fix}")


def load(args: argparse.Namespace, columns: list[str] | None = None) -> tuple[Any, str]:
    """The table named by ``args.file`` (or the demo data) in memory, read by the source layer
    (a file, a glob or a directory; only ``columns`` when they all exist), and its display path."""
    path = args.file if args.file is not None else demo_path()
    table = source.read_path(path, columns)
    keys = key_columns(args, table.column_names)
    if keys:  # "1.1" and "1.10", "02134": the key columns as the file writes them
        files, kind = expand(str(path))
        if kind == "csv":
            from ..sources._csv_text import table_keys_as_written

            table = table_keys_as_written(table, files, keys)
    return table, shown_path(args, str(path))


def key_columns(args: argparse.Namespace, names: Any) -> list[str]:
    """The columns of ``names`` (a table's) that a slicing command (:data:`SLICING`) reads as keys: ``--by``,
    ``--features`` and ``--feature``, read from a CSV file as the text written where numbers would lose it
    (:func:`..sources._csv_text.keys_as_written`), as the frame form reads a path's. ``fit --features``
    is not among them: ``veracity apply`` reads a segment calibrator's features as the file's numbers."""
    if getattr(args, "command", None) not in SLICING:
        return []
    wanted = [args.by] if isinstance(getattr(args, "by", None), str) else []
    features = getattr(args, "features", None)
    if isinstance(features, str):
        wanted += feature_names(features, columns=names)
    wanted += [f for f in getattr(args, "feature", None) or [] if isinstance(f, str)]
    present = set(names)
    return [c for c in dict.fromkeys(wanted) if c in present]


def feature_names(spec: str | None, path: str | None = None, columns: Any = None) -> list[str]:
    """The columns a comma-separated flag names, read as ``--score`` reads them (the source layer's
    ``score_names``): the whole text when a column is named so (``"a,b"``), else its parts. The column
    names are ``columns``, or those of the file at ``path`` (read only when the text holds a comma)."""
    if spec is None:
        return []
    if "," in spec and columns is None and path is not None:
        from ..sources._source import as_frame

        with lazy_errors("duckdb", path):
            columns = as_frame(path).columns
    return source.score_names(spec, columns if columns is not None else ())


def score_columns(args: argparse.Namespace, path: str | None = None) -> list[str]:
    """The score column(s) ``--score`` names in the input, read as :func:`feature_names` reads them:
    a column literally named ``"p,1"`` is one binary score, never the two columns ``p`` and ``1``
    (the file's header is read only when the text holds a comma)."""
    spec = str(args.score)
    if "," not in spec:
        return [spec]
    where = path if path is not None else (str(args.file) if args.file is not None else str(demo_path()))
    return feature_names(spec, path=where)


def require_names(args: argparse.Namespace) -> None:
    """An empty column name (``--label ""``) is refused in the flag's words; it was skipped as if not given
    (``--sample-weight ""`` ran unweighted) or looked up among the other named columns only."""
    for attr, flag in (("label", "--label"), ("weight", "--sample-weight"), ("by", "--by")):
        if getattr(args, attr, None) == "":
            raise VeracityError(f"{flag} needs a column name, got an empty one")


def refuse_label_as_score(args: argparse.Namespace) -> None:
    """--score naming the --label (or --sample-weight) column reads the answers as scores: a perfect
    model (Brier 0, AUC 1), silently; --sample-weight naming the --label column weighs every negative row
    0; --score naming one column twice (``z0,z0,z1``) reads a class's scores from another class's column
    (logits, which need not sum to 1, silently). Refused for every command, before any work."""
    score = getattr(args, "score", None)
    if not isinstance(score, str):
        return
    named = [c.strip() for c in score.split(",")]
    parts = [c for c in named if c]
    twice = next((c for i, c in enumerate(parts) if c in parts[:i]), None)
    if twice is not None:  # "z0,z0,z1": class 1 read from class 0's column, silently (logits need no row sum)
        raise VeracityError(f"--score names the column {twice!r} twice ({score!r}); name each class's score "
                            "column once, in class order (e.g. --score p0,p1,p2)")
    for flag, col in (("--label", getattr(args, "label", None)), ("--sample-weight", getattr(args, "weight", None))):
        if isinstance(col, str) and col and col in named:
            raise VeracityError(f"--score names the {flag} column {col!r}; name the score column(s) only")
    weight, label = getattr(args, "weight", None), getattr(args, "label", None)
    if isinstance(weight, str) and weight and weight == label:  # every negative weighed 0: base rate 1
        raise VeracityError(f"--sample-weight names the --label column {label!r}, which would weigh every "
                            "negative row 0; name the column of the rows' weights (or leave it out)")
    refuse_label_as_slice(args)


#: the commands whose --by / --features slice the rows they measure calibration on
SLICING = ("audit", "compare", "report", "segments")


def refuse_label_as_slice(args: argparse.Namespace) -> None:
    """--by / --features naming the --label column slice the rows by their answers: every slice holds one
    label value, so its "gap" is only how far its scores lie from 0 or 1 (segments flagged every slice,
    p < 1e-300), never miscalibration. Refused, before any work."""
    label = getattr(args, "label", None)
    if getattr(args, "command", None) not in SLICING or not isinstance(label, str) or not label:
        return
    by, features, feature = getattr(args, "by", None), getattr(args, "features", None), getattr(args, "feature", None)
    for flag, names in (("--by", [by] if isinstance(by, str) else []),
                        ("--features", [features, *features.split(",")] if isinstance(features, str) else []),
                        ("--feature", feature if isinstance(feature, list) else [])):
        if label in (str(n).strip() for n in names):
            raise VeracityError(
                f"{flag} names the --label column {label!r}: each slice of it holds one label value, so its gap "
                "is how far its scores lie from 0 or 1, not miscalibration; slice by a column known before the "
                "outcome")


def needed(args: argparse.Namespace, *more: str | None) -> list[str]:
    """The columns a command reads: the score column(s), the label, the weight and ``more``."""
    return [c.strip() for c in args.score.split(",")] + [c for c in (args.label, args.weight, *more) if c]


def inputs(table: Any, args: argparse.Namespace, path: str, *,
           pending_labels: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The checked score, label and weight arrays of an in-memory table (the source layer's column lookup).

    ``pending_labels``: labels may be missing (rows whose label is not final yet, which the
    command's public function tells apart); only the labels present are returned and checked."""
    require_names(args)
    scores = source.score_matrix(table, args.score, path=path)
    if getattr(args, "score_type", None) == "probability" and scores.ndim == 1 and scores.dtype.kind == "f":
        _refuse_out_of_range(scores, args.score.strip())
    if pending_labels:
        from ..sources._source import require_columns

        require_columns([args.label], table.column_names, where=path)
        labels = to_numpy(table.column(args.label).drop_null())
    else:
        # missing labels in the labels' own words, with or without --pos-label, as every engine words them
        # ("column 'y' (labels) has 1 missing value (None/NaN) of 3 rows, first at data row 2; drop or fill
        # that row first")
        _refuse_missing_labels(table, args.label)
        labels = source.column(table, args.label, path=path)
    if not (scores.ndim == 2 and scores.shape[1] > 1) and getattr(args, "pos_label", None) is None:
        # binary labels, no positive class named: a column of text refused in every engine's words
        _refuse_text_labels(table.column(args.label).drop_null(), args)
    # the weights named as the flag that chose them: "column 'w' (--sample-weight) has 1 missing ..."
    weights = source.column(table, args.weight, path=path, role="sample_weight") if args.weight else None
    if weights is not None and weights.dtype.kind not in "biuf":
        refuse_text_numbers(table, args.weight, f"weight column {_show(args.weight)}")
    return scores, labels, weights


def refuse_text_numbers(table: Any, name: str, said: str) -> None:
    """A column of numbers (``name`` of the in-memory ``table``) that holds text, refused as ``said`` ("weight
    column w") "must hold numbers, found text", naming the first value that is not a number and the fix its
    text shows, as the frame form's type check finds them on every other route (:func:`veracity.sources.
    _source.text_numbers_hint`): the command line named the column's FIRST value ("found object values such
    as '1'"), a number, where a later row held 'heavy'."""
    from ..sources._source import text_numbers_hint, as_frame

    hint = text_numbers_hint(as_frame(table.select([name])), name)
    raise VeracityError(f"{said} must hold numbers, found text" + (hint or "; convert it to numbers"))


def _refuse_missing_labels(table: Any, name: str) -> None:
    """Missing labels (0/1, class indices, or text, numbers or booleans that ``--pos-label`` reads) refused
    in the words every engine uses for them (:func:`..sources._aggregates.missing_labels_message`), with the
    first one's data row, as :func:`._bad_rows.locate` names it where the rows live; a :class:`MissingLabels`,
    to which ``monitor scan`` adds how to keep rows whose label has not arrived (:func:`_may_pend`)."""
    from ..sources._aggregates import missing_labels_message
    from ._bad_rows import _after_count

    if name not in table.column_names:
        return  # the column lookup that follows names the columns there are
    gone = _missing(table, name)
    if gone.any():
        message = missing_labels_message(name, int(gone.sum()), len(gone))
        raise MissingLabels(_after_count(message, f", first at data row {int(np.argmax(gone)) + 1}"))


def _refuse_text_labels(column: Any, args: argparse.Namespace) -> None:
    """A label column of text (an Arrow column, its missing labels refused or dropped already) with no
    ``--pos-label`` refused in the words every engine uses for it
    (:func:`veracity.core._validation.text_labels_error`: the column, its first few sorted values,
    ``--pos-label``), its values read as the lazy engines read them (:func:`..sources._labels.label_values`);
    a column of any other type, or a ``--calibrator`` that names the positive class it was fit with
    (``compare`` and ``report`` read it after the rows): nothing."""
    import pyarrow as pa

    from ..core._validation import text_labels_error
    from ..sources._labels import _arrow_label_values, _shown

    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
        column = column.cast(kind)
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return
    _, _, distinct, values = _arrow_label_values(column)
    if values and not _calibrator_names_positive_class(args):
        raise text_labels_error(values, distinct, name=args.label, shown=_shown)


def _calibrator_names_positive_class(args: argparse.Namespace) -> bool:
    """Whether ``--calibrator`` names a positive class (the ``pos_label`` it was fit with), or cannot be
    read here (the command reads it and says what is wrong); False without ``--calibrator``."""
    path = getattr(args, "calibrator", None)
    if not path:
        return False
    try:
        from ..calibrators import load as load_calibrator

        return load_calibrator(path).metadata.get("pos_label") is not None
    except Exception:  # noqa: BLE001 - the command's own read of the calibrator names the problem
        return True


def _missing(table: Any, name: str) -> np.ndarray:
    """Where the column ``name`` of ``table`` is missing (null, or NaN), as a numpy bool array (read from
    Arrow's buffers: pyarrow's own ``to_numpy`` imports pandas)."""
    import pyarrow.compute as pc

    return np.asarray(to_numpy(pc.is_null(table.column(name), nan_is_null=True)), dtype=bool)


def _refuse_out_of_range(scores: np.ndarray, name: str) -> None:
    """Probabilities outside [0, 1] in the score column ``name``: the library's one error
    (``core._validation.not_probabilities``), its subject the column as the lazy route names it
    ("column 'p' (scores)"), with the first such row's number in the file, so that one bad value among
    thousands is found."""
    bad = (scores < 0.0) | (scores > 1.0)
    if not bad.any():
        return
    from ..core._validation import not_probabilities

    err = not_probabilities(f"column {name!r} (scores)", int(bad.sum()), scores.size,
                            float(np.nanmin(scores)), float(np.nanmax(scores)))
    where = f", first at data row {int(np.argmax(bad)) + 1}"
    raise VeracityError(err.message + where, param=err.param, hint=err.hint, value=err.value)


#: files larger than this are read where they live (DuckDB) by --engine auto
AUTO_BYTES = 256 << 20


def auto_engine(args: argparse.Namespace, *, lazy_ok: bool, many: bool, doing: str) -> str:
    """The engine ``--engine`` names; ``auto``: DuckDB, lazily, for several files (``many``: a glob or
    a folder) and files over :data:`AUTO_BYTES` when the command's options allow (``lazy_ok``), else
    memory. ``doing`` names the work in the note that says so (``auditing``, ``fitting on``)."""
    check_engine_options(args)
    if args.engine != "auto":
        return str(args.engine)
    if args.file is None:
        return "memory"
    path = str(args.file)
    large = os.path.isfile(path) and os.path.getsize(path) > AUTO_BYTES
    if (many or large) and lazy_ok:
        if many:  # a glob that matches nothing is one line, not a note about DuckDB and then the error
            expand(path)
        note(args, f"note: {doing} {path} lazily with DuckDB (--engine memory loads it instead)")
        return "duckdb"
    return "memory"


def check_engine_options(args: argparse.Namespace) -> None:
    """``--spark-master`` (parser default None) does something only with ``--engine spark``, and
    ``--memory-limit`` only with DuckDB (``--engine duckdb``, or ``auto`` when it reads lazily): given with
    another engine they changed nothing, silently, and are refused."""
    engine = getattr(args, "engine", "auto")
    if getattr(args, "spark_master", None) is not None and engine != "spark":
        raise VeracityError(f"--spark-master sets the Spark session of --engine spark, and --engine is {engine}; "
                            "pass --engine spark, or drop --spark-master")
    master = getattr(args, "spark_master", None)
    if master is not None and not _SPARK_MASTER.fullmatch(master):
        # Spark's own refusal came as a JVM stack trace on stderr, then "could not read FILE as CSV ... check
        # that it is a valid csv file"
        raise VeracityError(f"--spark-master {master!r} is not a Spark master URL; pass local, local[N], "
                            "local[*], local[N,F], local-cluster[N,C,M], spark://HOST:PORT, k8s://URL, yarn or "
                            "mesos://URL (or drop it: local[*])")
    limit = getattr(args, "memory_limit", None)
    if limit is not None and engine not in ("duckdb", "auto"):
        raise VeracityError(f"--memory-limit caps DuckDB's memory, and --engine {engine} does not use DuckDB; "
                            "pass --engine duckdb, or drop --memory-limit")
    # DuckDB's own refusal of the setting read "could not read FILE as CSV: DuckDB Parser error"
    amount = re.fullmatch(r"\s*(\d+\.?\d*|\.\d+)\s*([kmgt]i?b|%)\s*", limit or "", re.IGNORECASE)
    if limit is not None and (amount is None or float(amount.group(1)) <= 0):
        raise VeracityError(f"--memory-limit must be a positive amount of memory with its unit, such as 4GB, "
                            f"500MB, 1.5GiB or 80% (of the machine's), got {limit!r}")


#: the master URLs Spark reads (SparkContext's forms; mesos:// for Spark 3): anything else failed in the JVM
_SPARK_MASTER = re.compile(r"local|local\[(?:[1-9]\d*|\*)(?:\s*,\s*\d+)?\]|"
                           r"local-cluster\[\s*[1-9]\d*\s*,\s*[1-9]\d*\s*,\s*[1-9]\d*\s*\]|"
                           r"(?:spark|k8s|mesos)://\S+|yarn")


def several_files(args: argparse.Namespace) -> bool:
    """``args.file`` names several files: a glob, or a folder holding Parquet files."""
    if args.file is None:
        return False
    path = str(args.file)
    return any(ch in path for ch in "*?[") or (
        os.path.isdir(path) and any(f.name.lower().endswith(_PARQUET) for f in Path(path).rglob("*")))


def add_engine_arguments(parser: argparse.ArgumentParser, engine_help: str) -> None:
    """``--engine``, ``--spark-master`` and ``--memory-limit``, as audit, fit and monitor scan share them."""
    parser.add_argument("--engine", default="auto", choices=["auto", "memory", "duckdb", "spark", "dask"],
                        help=engine_help)
    parser.add_argument("--spark-master", default=None,
                        help="Spark master URL for --engine spark (default: local[*])")
    parser.add_argument("--memory-limit", default=None,
                        help="DuckDB memory limit for --engine duckdb/auto, e.g. 4GB (default: 1GB)")


#: the engines' names in a note
ENGINE_NAMES = {"duckdb": "DuckDB", "spark": "Spark", "dask": "Dask"}


@dataclass
class Rows:
    """A command's rows as the public functions take them, whatever ``--engine`` says.

    ``memory``: the file's needed columns read into a ``pyarrow.Table`` by the source layer;
    ``duckdb``, ``spark``, ``dask``: the path opened where the rows live. Either way :meth:`call`
    is the one call of the public function in its frame form
    ``fn(frame, score="p", label="y", sample_weight="w", by="column", pos_label=..., **options)``.
    """

    args: argparse.Namespace
    path: str
    engine: str = "memory"
    #: memory: the needed columns, in memory
    table: Any = None
    #: options of the frame form beside the columns (``pos_label``, read in the label column's type)
    frame_options: dict[str, Any] = field(default_factory=dict)
    #: lazy: the rows kept, as a function of the opened frame (e.g. fit's --role-col), or None for all
    select: Callable[[Any], Any] | None = None
    #: memory: the file's rows the table holds (a mask over FILE's rows; None: all), see :func:`file_rows`
    mask: np.ndarray | None = None
    #: the rows the mask keeps, in an error's words (``"rows with role == 'calib'"``)
    named: str = ""
    #: memory: the table's rows each check refuses (:func:`bad_rows`), so that the call's error names the first
    bad: dict[str, np.ndarray | None] = field(default_factory=dict)
    #: lazy: (role column, role) of the rows :attr:`select` keeps, for :func:`locate` (None: every row)
    role: tuple[str, str] | None = None

    @property
    def lazy(self) -> bool:
        return self.engine != "memory"

    def call(self, fn: Callable[..., Any], **options: Any) -> Any:
        """``fn`` on the rows, in the frame form (the table read into memory, or the path opened where
        the rows live), with ``options``: one call of the public function whatever the engine."""
        spec = self.args.score
        if not self.lazy:
            names = source.score_names(spec, self.table.column_names)  # as written first ("a,b")
            with first_bad_row(**self.bad):  # "1 of 300 are not", and which data row is first
                try:
                    return self._on(self.table, fn, names if len(names) > 1 else names[0], options)
                except VeracityError as exc:
                    raise self._missing_final_label(exc) from None
        names = score_columns(self.args, self.path)  # "p,1" may be one column's name
        score: Any = names if len(names) > 1 else names[0]
        # (--pos-label's missing labels, refused before the monitor's own hint, gain it here)
        pending = any(getattr(self.args, flag, None) is not None for flag in ("mature", "as_of"))
        with _may_pend(self.args, pending), lazy_errors(self.engine, self.path):
            frame = self.frame()
            if self.select is not None:
                frame = self.select(frame)
            try:
                return self._on(frame, fn, score, options)
            except VeracityError as exc:  # the lazy contract counts the rows; one pass of FILE names the first
                located = locate(exc, self.path, names, self.args, self.role, FinalRows.of(self.args))
                if isinstance(exc, MissingLabels) and located is not exc:  # kept: the monitor's hint reads it
                    located = MissingLabels(located.message, located.param, located.hint, value=located.value)
                raise located from None

    def _missing_final_label(self, exc: VeracityError) -> VeracityError:
        """``exc`` naming its first row where it counts the missing labels that ``--pos-label`` reads
        among the rows whose label is final (``monitor scan --mature`` or ``--as-of``: a pending row's
        label may be missing), as :func:`._bad_rows.locate` names it where the rows live; else ``exc``."""
        from ._bad_rows import _after_count

        label, final, message = self.args.label, FinalRows.of(self.args), exc.message
        if (getattr(self.args, "pos_label", None) is None or self.mask is not None or "data row" in message
                or not message.startswith(f"column {label!r} (labels) has ")
                or label not in self.table.column_names):
            return exc
        gone = _missing(self.table, label)
        if final is not None:
            gone &= final(self.table)
        if not gone.any():
            return exc
        where = f", first at data row {int(np.argmax(gone)) + 1}"
        return VeracityError(_after_count(message, where), exc.param, exc.hint, value=exc.value)

    def _on(self, frame: Any, fn: Callable[..., Any], score: Any, options: dict[str, Any]) -> Any:
        a = self.args
        by = {"by": a.by} if getattr(a, "by", None) else {}
        return fn(frame, score=score, label=a.label, sample_weight=a.weight, **by, **self.frame_options, **options)

    def frame(self) -> Any:
        """The path opened where the rows live (call inside :func:`lazy_errors`)."""
        a = self.args
        return source.open_frame(self.path, self.engine, spark_master=a.spark_master or "local[*]", memory_limit=a.memory_limit,
                                 app=f"veracity {getattr(a, 'command', 'audit')}")

    def subset(self, mask: np.ndarray | None) -> Rows:
        """In memory: only the rows where ``mask`` is true (None: all of them)."""
        if mask is None:
            return self
        return Rows(self.args, self.path, self.engine, self.table.filter(from_numpy(mask)),
                    frame_options=self.frame_options)

    @property
    def note(self) -> str:
        """The input's name for the stderr note, with the engine that computed a lazy result."""
        shown = shown_path(self.args, self.path)
        return f"{shown} ({ENGINE_NAMES[self.engine]} engine)" if self.lazy else shown


@contextmanager
def lazy_errors(engine: str, path: str) -> Iterator[None]:
    """An engine's read error in one line (never the file's rows); the engines' own deprecation notices
    (pandas 3 in Dask/Spark) hidden, as they are not the user's to act on."""
    try:
        with warnings.catch_warnings():
            if engine != "duckdb":
                warnings.simplefilter("ignore", FutureWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
            yield
    except VeracityError as exc:
        if _CONFIGURE not in str(exc):
            raise
        # the library's remedy in the command line's words (it read "vc.configure_duckdb(--memory-limit 4GB)")
        raise VeracityError(str(exc).replace(_CONFIGURE, "--memory-limit 4GB")) from None
    except Exception as exc:
        from ..sources._duckdb import describe_error

        raise VeracityError(describe_error(exc, path)) from None


#: the library's remedy for DuckDB running out of memory, as Python writes it
_CONFIGURE = "vc.configure_duckdb(memory_limit='4GB')"


def refuse_text(table: Any, names: list[str]) -> None:
    """A score column of text is refused on the whole file (it is not a score column, whatever rows are
    used), naming a value that is not a number from any row, as before the rows are picked."""
    import pyarrow as pa

    from ..core._validation import check_numeric_column

    for name in names:
        if name not in table.column_names:
            continue  # read from the used rows, where the error names the columns there are
        kind = table.schema.field(name).type
        if pa.types.is_null(kind) or pa.types.is_integer(kind) or pa.types.is_floating(kind) \
                or pa.types.is_boolean(kind) or pa.types.is_decimal(kind):
            continue
        check_numeric_column(to_numpy(table.column(name).drop_null()), name)


def used_rows(table: Any, args: argparse.Namespace, mask: np.ndarray | None) -> Any:
    """The table's rows a command uses (``mask``; None: the table itself), the only rows it reads and
    checks: rows of a role it neither fits nor measures on may hold missing scores, labels or weights.
    A score column of text is refused whatever rows are used (:func:`refuse_text`)."""
    if mask is None:
        return table
    refuse_text(table, source.score_names(args.score, table.column_names))
    return table.filter(from_numpy(mask))  # the mask as Arrow from its memory (pa.array imports pandas)


def role_texts(table: Any, col: str, path: str) -> np.ndarray:
    """Each row's role in the column ``col`` of an in-memory table, as text (``--role-col``). A row with no
    role is refused in one line, as Python's ``fit(..., role=...)`` refuses it (which split is that row
    in?): a missing one (empty cell, null, NaN) in the source layer's words for a missing value, and one of
    blank text (``'  '``, which a CSV holds as text; ``''`` in a Parquet file) counted with them by
    :func:`blank_roles_message` -- it was read as a role of its own, and the command used the other rows,
    silently. Blank is Python's ``not role.strip()``, decided on the column's distinct values."""
    import pyarrow as pa

    from ..calibrators._base import blank_roles
    from ..sources._arrow_numpy import is_missing
    from ..sources._source import require_columns

    require_columns([col], table.column_names, where=path)
    column = table.column(col)
    text = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if pa.types.is_string(text) or pa.types.is_large_string(text):
        blanks = [v for v in column.unique().to_pylist() if isinstance(v, str) and not v.strip()]
        if blanks:
            values = column.cast(text) if text != column.type else column
            gone = blank_roles(to_numpy(values)) | is_missing(column)  # (pyarrow's compare imports pandas)
            raise VeracityError(blank_roles_message(col, int(gone.sum()), len(gone), int(np.argmax(gone)) + 1))
    return np.asarray(source.column(table, col, path=path)).astype(str)


def blank_roles_message(col: str, missing: int, n: int, first_row: int | None) -> str:
    """The one wording of rows with no role (``missing``: the None/NaN and blank roles of ``col``'s ``n``
    rows; ``first_row``: the data row of the first, None where unknown), on every engine of
    ``veracity fit`` and in every command taking ``--role-col``; Python's ``fit(..., role=...)`` words."""
    from ..core._text import count_noun

    where = "" if first_row is None else f", first at data row {first_row}"
    rows = "that row" if missing == 1 else "those rows"
    return (f"column {col!r} (roles) has {count_noun(missing, 'missing value')} (None/NaN or empty text) of "
            f"{n} rows{where}: a row with no role is in no split; drop or fill {rows} first")


def roles_named(col: str | None, *roles: str) -> str:
    """The rows of ``roles`` in ``col``, as :func:`file_rows` names them ("rows with role == 'calib'")."""
    shown = " or ".join(repr(r) for r in dict.fromkeys(roles))
    return f"rows with {col} == {shown}"


def read_rows(args: argparse.Namespace, engine: str = "memory", *, by: str | None = None,
              columns: tuple[str | None, ...] = (), pending_labels: bool = False,
              used: Callable[[Any, str], tuple[np.ndarray | None, str]] | None = None) -> Rows:
    """The rows of ``args.file`` (or the demo data) for :meth:`Rows.call`.

    In memory: the needed columns (``by`` and ``columns`` beside the score, label and weight) read
    into a table by the source layer, their columns checked in the CLI's words (``pending_labels``:
    a label may be missing, see :func:`inputs`), and ``--pos-label`` read in the label column's
    type; the call passes the table itself. ``used(table, path)``: (the mask of the rows the command
    uses, their name for :func:`file_rows`), or (None, "") for every row; only those rows are kept,
    read and checked, an error naming the row's data row in FILE. Elsewhere nothing is read until the call.
    """
    from ._labels import apply_pos_label, pos_label_value

    require_names(args)
    path = str(args.file) if args.file is not None else str(demo_path())
    if engine != "memory":
        options = {} if getattr(args, "pos_label", None) is None else {"pos_label": args.pos_label}
        return Rows(args, path, engine, frame_options=options)
    table, path = load(args, needed(args, by, *columns))
    mask, named = used(table, path) if used is not None else (None, "")
    table = used_rows(table, args, mask)
    with file_rows(mask, named):
        with _may_pend(args, pending_labels):
            scores, labels, weights = inputs(table, args, path, pending_labels=pending_labels)
        text = getattr(args, "pos_label", None)
        bad = {} if pending_labels else bad_rows(scores, labels, weights, pos_label=text is not None)
        with first_bad_row(**bad):
            # the column's own checks, in the CLI's words
            apply_pos_label(labels, text, label=args.label, scores=scores)
        options = {} if text is None else {"pos_label": pos_label_value(labels, text)}
    return Rows(args, path, engine, table, frame_options=options, mask=mask, named=named, bad=bad)


def _may_pend(args: argparse.Namespace, pending_labels: bool) -> Any:
    """``monitor scan`` without ``--mature`` or ``--as-of``: a refusal of missing labels says how to keep the
    rows whose label has not arrived as pending, as the library's monitor says it on the lazy engines
    (:func:`veracity.monitoring._monitor._missing_labels_may_pend`); other commands: errors unchanged, and
    the monitor's modules not imported (~0.07 s of every other command's start)."""
    if getattr(args, "command", None) != "monitor":
        return contextlib.nullcontext()
    from ..monitoring._monitor import _missing_labels_may_pend

    return _missing_labels_may_pend(not pending_labels, "mature='column'")
