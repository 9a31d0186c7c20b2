"""Options and helpers shared by the sub-commands."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import io
from .._files import write_atomic
from ..core._validation import VeracityError
from ..datasets import demo_path


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


def load(args: argparse.Namespace) -> tuple[Any, str]:
    """The table named by ``args.file`` (or the demo data) and its display path."""
    path = args.file if args.file is not None else demo_path()
    return io.read_table(path), str(path)


def inputs(table: Any, args: argparse.Namespace, path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    scores = io.score_matrix(table, args.score, path=path)
    labels = io.column(table, args.label, path=path)
    weights = io.column(table, args.weight, path=path) if args.weight else None
    if weights is not None and weights.dtype.kind not in "biuf":
        raise VeracityError(
            f"weight column {_show(args.weight)} must hold numbers, found {weights.dtype} values such as "
            f"{str(weights[0])[:40]!r}; convert it to numbers")
    return scores, labels, weights


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
OUTPUT_OPTIONS = {"out": "--out", "json": "--json"}


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


def check_output_path(path: str, option: str = "--out", *, inputs: dict[str, str] | None = None) -> Path:
    """``path`` if a result can be written there, else a one-line :class:`VeracityError`.

    Refused: an empty path, a directory, a folder that does not exist or cannot be
    written, and any path that is also one of the command's ``inputs`` (option -> path).
    """
    if not path or "\x00" in path:
        raise VeracityError(f"{option} needs a file path, got {_show(path)!s}")
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
    return p


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
        seen[option] = value


def write_output(path: str | Path, data: str | bytes | Callable[[Path], None], option: str = "--out") -> Path:
    """Write atomically (temporary file + rename); OS errors become one-line VeracityErrors."""
    p = Path(path)
    try:
        if p.exists() and not p.is_file():  # /dev/stdout, a FIFO: write through, no rename
            if callable(data):
                data(p)
            else:
                with open(p, "wb") as fh:
                    fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            return p
        return write_atomic(p, data)
    except OSError as exc:
        raise VeracityError(f"could not write {option} {_show(p)}: {exc.strerror or exc}; check the path") from None
