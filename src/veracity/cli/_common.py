"""Options and helpers shared by the sub-commands."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._files import _CSV, _PARQUET, expand, write_atomic
from ..core._validation import VeracityError
from ..datasets import demo_path
from ..sources import _api as source


def add_input_arguments(parser: argparse.ArgumentParser, *, file_optional: bool = True) -> None:
    """FILE, --score, --label, --weight, --score-type (defaults fit the bundled demo data)."""
    if file_optional:
        parser.add_argument(
            "file", nargs="?", default=None,
            help="CSV or Parquet file of scored rows (default: the bundled demo data)",
        )
    else:
        parser.add_argument("file", help="CSV or Parquet file of scored rows")
    parser.add_argument("--score", default="score",
                        help="score column, or comma-separated columns for (N, K) multiclass (default: score)")
    parser.add_argument("--label", default="label", help="label column (default: label)")
    parser.add_argument("--sample-weight", dest="weight", default=None, metavar="COL",
                        help="optional sample-weight column")
    parser.add_argument("--weight", dest="weight", default=None, help=argparse.SUPPRESS)  # old name, hidden
    parser.add_argument("--score-type", default="probability", choices=["probability", "logit", "score"],
                        help="are the scores probabilities, logits, or a ranking score with no probability "
                             "reading (calibrators and AUC take it; probability metrics refuse it)? "
                             "(default: probability)")


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", metavar="PATH|-", nargs="?", const="-", default=None,
                        help="print the result as JSON instead of the table (--json or --json -), "
                             "or also write it to PATH")


def load(args: argparse.Namespace, columns: list[str] | None = None) -> tuple[Any, str]:
    """The table named by ``args.file`` (or the demo data) in memory, read by the source layer
    (a file, a glob or a directory; only ``columns`` when they all exist), and its display path."""
    path = args.file if args.file is not None else demo_path()
    return source.read_path(path, columns), shown_path(args, str(path))


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


def or_default(value: Any, default: Any) -> Any:
    """An option whose parser default is None (so that giving it can be told from not): its value or
    ``default``."""
    return default if value is None else value


def refuse_unused(flags: dict[str, bool], why: str) -> None:
    """Options that cannot change the result (``--n-resamples`` without a bootstrap) are refused rather
    than silently ignored: ``flags`` maps each option to whether it was given; ``why`` ends the sentence
    "OPTION has no effect ...", with the remedy (``{it}``: "it" or "them")."""
    named = [flag for flag, on in flags.items() if on]
    if named:
        one = len(named) == 1
        listed = named[0] if one else f"{', '.join(named[:-1])} and {named[-1]}"
        raise VeracityError(f"{listed} {'has' if one else 'have'} no effect "
                            + why.replace("{it}", "it" if one else "them"))


def role_flags(args: argparse.Namespace, has_roles: bool, path: str) -> None:
    """``--fit-role`` / ``--eval-role`` (parser default None) set to their defaults (calib, test); given
    where no column holds the roles (no ``--role-col``, no ``role`` column: every row is fit and measured
    on) they changed nothing, silently, and are refused."""
    named = [flag for flag, value in (("--fit-role", args.fit_role), ("--eval-role", args.eval_role))
             if value is not None]
    args.fit_role = "calib" if args.fit_role is None else args.fit_role
    args.eval_role = "test" if args.eval_role is None else args.eval_role
    if named and not has_roles:
        raise VeracityError(f"{' and '.join(named)} pick{'s' if len(named) == 1 else ''} rows by their role, and "
                            f"{_show(path)} has no 'role' column; pass --role-col COLUMN naming each row's role, "
                            f"or drop {' and '.join(named)} (every row is then fit and measured on)")


def check_max_groups(args: argparse.Namespace) -> int:
    """``--max-groups`` in the command line's words (the library also takes None, which no flag gives);
    given without ``--by`` it would change nothing, so it is refused."""
    value = getattr(args, "max_groups", None)
    if value is None:
        from ..core._stats import MAX_GROUPS

        return MAX_GROUPS
    if not getattr(args, "by", None):
        raise VeracityError("--max-groups caps the slices of --by; pass --by COLUMN too, or drop --max-groups")
    if value < 2:
        raise VeracityError(f"--max-groups must be a whole number >= 2 (the most --by slices shown; the "
                            f"smaller ones are pooled as '(other ...)'), got {value}")
    return int(value)


def require_names(args: argparse.Namespace) -> None:
    """An empty column name (``--label ""``) is refused in the flag's words; it was skipped as if not given
    (``--sample-weight ""`` ran unweighted) or looked up among the other named columns only."""
    for attr, flag in (("label", "--label"), ("weight", "--sample-weight"), ("by", "--by")):
        if getattr(args, attr, None) == "":
            raise VeracityError(f"{flag} needs a column name, got an empty one")


def refuse_label_as_score(args: argparse.Namespace) -> None:
    """--score naming the --label (or --sample-weight) column reads the answers as scores: a perfect
    model (Brier 0, AUC 1), silently. Refused for every command, before any work."""
    score = getattr(args, "score", None)
    if not isinstance(score, str):
        return
    named = [c.strip() for c in score.split(",")]
    for flag, col in (("--label", getattr(args, "label", None)), ("--sample-weight", getattr(args, "weight", None))):
        if isinstance(col, str) and col and col in named:
            raise VeracityError(f"--score names the {flag} column {col!r}; name the score column(s) only")


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
    if pending_labels:
        from ..sources._source import require_columns

        require_columns([args.label], table.column_names, where=path)
        labels = table.column(args.label).drop_null().to_numpy(zero_copy_only=False)
    else:
        # missing labels keep the one plain wording ("column 'y' has 1 missing/NaN ..., first at data row 2"),
        # right for 0/1, text (--pos-label) and class-index labels alike
        labels = source.column(table, args.label, path=path)
    # the weights named as the flag that chose them: "column 'w' (--sample-weight) has 1 missing ..."
    weights = source.column(table, args.weight, path=path, role="sample_weight") if args.weight else None
    if weights is not None and weights.dtype.kind not in "biuf":
        shown = str(weights[0]).strip()
        hint = ("they look like numbers written with a decimal comma: write them with a decimal point (1.5)"
                if re.fullmatch(r"[+-]?\d*,\d+", shown) else
                "they look like percentages: write them as numbers without the % sign"
                if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)\s*%", shown) else "convert it to numbers")
        raise VeracityError(
            f"weight column {_show(args.weight)} must hold numbers, found {weights.dtype} values such as "
            f"{str(weights[0])[:40]!r}; {hint}")
    return scores, labels, weights


#: files larger than this are read where they live (DuckDB) by --engine auto
AUTO_BYTES = 256 << 20


def auto_engine(args: argparse.Namespace, *, lazy_ok: bool, many: bool, doing: str) -> str:
    """The engine ``--engine`` names; ``auto``: DuckDB, lazily, for several files (``many``: a glob or
    a folder) and files over :data:`AUTO_BYTES` when the command's options allow (``lazy_ok``), else
    memory. ``doing`` names the work in the note that says so (``auditing``, ``fitting on``)."""
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


def several_files(args: argparse.Namespace) -> bool:
    """``args.file`` names several files: a glob, or a folder holding Parquet files."""
    if args.file is None:
        return False
    path = str(args.file)
    return any(ch in path for ch in "*?[") or (
        os.path.isdir(path) and any(f.suffix.lower() in (".parquet", ".pq") for f in Path(path).rglob("*")))


def add_engine_arguments(parser: argparse.ArgumentParser, engine_help: str) -> None:
    """``--engine``, ``--spark-master`` and ``--memory-limit``, as audit, fit and monitor scan share them."""
    parser.add_argument("--engine", default="auto", choices=["auto", "memory", "duckdb", "spark", "dask"],
                        help=engine_help)
    parser.add_argument("--spark-master", default="local[*]",
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

    @property
    def lazy(self) -> bool:
        return self.engine != "memory"

    def call(self, fn: Callable[..., Any], **options: Any) -> Any:
        """``fn`` on the rows, in the frame form (the table read into memory, or the path opened where
        the rows live), with ``options``: one call of the public function whatever the engine."""
        spec = self.args.score
        if not self.lazy:
            names = source.score_names(spec, self.table.column_names)  # as written first ("a,b")
            return self._on(self.table, fn, names if len(names) > 1 else names[0], options)
        names = score_columns(self.args, self.path)  # "p,1" may be one column's name
        score: Any = names if len(names) > 1 else names[0]
        with lazy_errors(self.engine, self.path):
            frame = self.frame()
            if self.select is not None:
                frame = self.select(frame)
            return self._on(frame, fn, score, options)

    def _on(self, frame: Any, fn: Callable[..., Any], score: Any, options: dict[str, Any]) -> Any:
        a = self.args
        by = {"by": a.by} if getattr(a, "by", None) else {}
        return fn(frame, score=score, label=a.label, sample_weight=a.weight, **by, **self.frame_options, **options)

    def frame(self) -> Any:
        """The path opened where the rows live (call inside :func:`lazy_errors`)."""
        a = self.args
        return source.open_frame(self.path, self.engine, spark_master=a.spark_master, memory_limit=a.memory_limit,
                                 app=f"veracity {getattr(a, 'command', 'audit')}")

    def subset(self, mask: np.ndarray | None) -> Rows:
        """In memory: only the rows where ``mask`` is true (None: all of them)."""
        if mask is None:
            return self
        return Rows(self.args, self.path, self.engine, self.table.filter(mask), frame_options=self.frame_options)

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
    except VeracityError:
        raise
    except Exception as exc:
        from ..sources._duckdb import describe_error

        raise VeracityError(describe_error(exc, path)) from None


def read_rows(args: argparse.Namespace, engine: str = "memory", *, by: str | None = None,
              columns: tuple[str | None, ...] = (), pending_labels: bool = False) -> Rows:
    """The rows of ``args.file`` (or the demo data) for :meth:`Rows.call`.

    In memory: the needed columns (``by`` and ``columns`` beside the score, label and weight) read
    into a table by the source layer, their columns checked in the CLI's words (``pending_labels``:
    a label may be missing, see :func:`inputs`), and ``--pos-label`` read in the label column's
    type; the call passes the table itself. Elsewhere nothing is read until the call.
    """
    from ._labels import apply_pos_label, pos_label_value

    require_names(args)
    path = str(args.file) if args.file is not None else str(demo_path())
    if engine != "memory":
        options = {} if getattr(args, "pos_label", None) is None else {"pos_label": args.pos_label}
        return Rows(args, path, engine, frame_options=options)
    table, path = load(args, needed(args, by, *columns))
    scores, labels, _ = inputs(table, args, path, pending_labels=pending_labels)
    text = getattr(args, "pos_label", None)
    apply_pos_label(labels, text, scores=scores)  # the column's own checks, in the CLI's words
    options = {} if text is None else {"pos_label": pos_label_value(labels, text)}
    return Rows(args, path, engine, table, frame_options=options)


def _clean(value: Any) -> Any:
    """JSON-safe: NaN/inf become null, numpy scalars become Python numbers."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return _clean(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def note(args: argparse.Namespace, text: str) -> None:
    """An informational line (which file was read, where output went): stderr, never stdout; --quiet drops it."""
    if text and not getattr(args, "quiet", False):
        from ._progress import writing

        with writing(sys.stderr):
            print(text, file=sys.stderr)


def shown_path(args: argparse.Namespace, path: str) -> str:
    """The input's name for people: ``<stdin>`` when it was piped in."""
    return getattr(args, "_input_name", None) or path


def emit(args: argparse.Namespace, text: str, payload: dict[str, Any], *, note_text: str = "") -> None:
    """Print ``text``; with ``--json -`` print JSON instead; with ``--json PATH`` write it too.

    ``note_text`` (e.g. the input file's name) goes to stderr, so stdout is only the table or JSON.
    """
    target = getattr(args, "json", None)
    doc = json.dumps(_clean(payload), indent=2, allow_nan=False)
    note(args, note_text)
    if target == "-":
        sys.stdout.write(doc + "\n")
        return
    if text:  # a command whose result is a file (apply) prints nothing on stdout
        print(text)
    if target:
        write_output(target, doc + "\n", "--json")
        note(args, f"(JSON written to {target})")


# -- paths: checked before any work, written atomically ----------------------------------
#: argparse attributes that name files a command reads, and files it writes.
INPUT_OPTIONS = {"file": "the input file", "calibrator": "the calibrator", "history": "the --history file",
                 "store": "the monitoring store"}
OUTPUT_OPTIONS = {"out": "--out", "json": "--json", "onnx": "--onnx"}


def _show(path: Any) -> str:
    """A path for a one-line message (control characters escaped)."""
    text = str(path)
    return repr(text) if any(ord(c) < 32 for c in text) else text


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except (OSError, ValueError):
        return False


#: files commands read (CSV, Parquet): an existing one is never overwritten by --json
DATA_SUFFIXES = tuple(s for s in _PARQUET + _CSV if s != ".txt")


def check_output_path(path: str, option: str = "--out", *, inputs: dict[str, str] | None = None) -> Path:
    """``path`` if a result can be written there, else a one-line :class:`VeracityError`.

    Refused: an empty path, a directory, a folder that does not exist or cannot be
    written, and any path that is also one of the command's ``inputs`` (option -> path).
    """
    if not path or "\x00" in path:
        raise VeracityError(f"{option} needs a file path, got {_show(path)!s}")
    if path == "-":  # read as stdout (as --json - is), it wrote a file named '-'
        raise VeracityError(f"{option} - would write a file named '-'; pass a file path (or /dev/stdout to "
                            "print it)")
    p = Path(path)
    if p.is_dir():
        raise VeracityError(f"{option} {_show(p)} is a directory; pass a file path inside it")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise VeracityError(
            f"{option} {_show(p)}: folder {_show(folder)} does not exist; create it first or pass "
            "another path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise VeracityError(f"{option} {_show(p)}: cannot write in folder {_show(folder)} (permission denied)")
    if p.exists() and p.is_file() and not os.access(p, os.W_OK):
        raise VeracityError(f"{option} {_show(p)} is read-only; pass another path")
    for name, other in (inputs or {}).items():
        if other and other != "-" and _same_file(p, Path(other)):
            raise VeracityError(
                f"{option} {_show(p)} is also {name}; writing it would overwrite an input. "
                "Pass another output path")
        read = _read_by(p, other) if other and other != "-" else None
        if read == "a file":
            raise VeracityError(f"{option} {_show(p)} is one of the files of {name} {_show(other)}; writing it "
                                "would overwrite an input. Pass a path outside the input")
        if read:
            raise VeracityError(f"{option} {_show(p)} would land among the files of {name} {_show(other)}, and "
                                "the next read of it would count the written rows as input. Pass a path "
                                "outside the input")
    return p


def _read_by(out: Path, source: str) -> str:
    """How the input ``source`` (a glob or a folder) would read ``out``: ``"a file"`` when ``out`` is one of
    the files it reads now (writing would overwrite it), ``"a new file"`` when ``out`` is a data file the
    next read would pick up (inside the folder, or matching the glob); ``""`` when it reads neither."""
    import glob

    if any(ch in source for ch in "*?["):
        found = [Path(f) for f in glob.glob(os.path.expanduser(source), recursive=True) if os.path.isfile(f)]
        if any(_same_file(out, f) for f in found):
            return "a file"
        pattern = os.path.abspath(os.path.expanduser(source))
        new = not out.exists() and out.suffix.lower() in DATA_SUFFIXES
        return "a new file" if new and Path(os.path.abspath(out)).match(pattern) else ""
    folder = Path(source).expanduser()
    if not folder.is_dir():
        return ""
    try:
        inside = Path(os.path.realpath(out)).is_relative_to(os.path.realpath(folder))
    except (OSError, ValueError):
        return ""
    if not inside or not out.name.lower().endswith(_PARQUET):  # a folder is read for its Parquet files
        return ""
    return "a file" if out.exists() else "a new file"


def check_paths(args: argparse.Namespace) -> None:
    """Check every output path of a parsed command line before any work is done."""
    inputs = {label: getattr(args, attr) for attr, label in INPUT_OPTIONS.items()
              if isinstance(getattr(args, attr, None), str)}
    seen: dict[str, str] = {}
    for attr, option in OUTPUT_OPTIONS.items():
        value = getattr(args, attr, None)
        if not isinstance(value, str) or (attr == "json" and value == "-"):
            continue
        check_output_path(value, option, inputs={**inputs, **seen})
        if attr == "json" and os.path.isfile(value) and value.lower().endswith(DATA_SUFFIXES):
            command = " ".join(str(c) for c in (args.command, getattr(args, "action", None)) if c)
            # `veracity audit --json scores.csv` reads scores.csv as --json's PATH: JSON would overwrite the data
            raise VeracityError(
                f"--json {_show(value)} is a data file, and --json PATH writes the JSON over it; to read it, name "
                f"it before the flags (veracity {command} {_show(value)} --json), or pass a .json path")
        seen[option] = value


def write_output(path: str | Path, data: str | bytes | Callable[[Path], None], option: str = "--out") -> Path:
    """Write atomically (temporary file + rename); OS errors become one-line VeracityErrors."""
    p = Path(path)
    try:
        return write_atomic(p, data)  # devices and FIFOs written through, links' targets replaced
    except OSError as exc:
        raise VeracityError(f"could not write {option} {_show(p)}: {exc.strerror or exc}; check the path") from None
