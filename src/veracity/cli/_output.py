"""A command's output: the table or JSON on stdout (``--json``), notes on stderr, and every output
path checked before any work and written atomically."""

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

from .._files import _CSV, _PARQUET, write_atomic
from ..core._validation import VeracityError


def add_json_argument(parser: argparse.ArgumentParser, instead: str = "the table") -> None:
    """``--json``; ``instead``: what the JSON replaces on stdout (help text only)."""
    parser.add_argument("--json", metavar="PATH|-", nargs="?", const="-", default=None,
                        help=f"print the result as JSON instead of {instead} (--json or --json -), "
                             "or also write it to PATH. JSON has no infinity: an infinite number (e.g. a "
                             "threshold of inf, which flags nothing) is written as the string \"Infinity\" "
                             "or \"-Infinity\", which float() and JavaScript's Number() read back; an "
                             "undefined one (NaN) as null")


#: how ``--json`` writes the infinite numbers strict JSON cannot hold (see :func:`_clean`)
POS_INF, NEG_INF = "Infinity", "-Infinity"


def _clean(value: Any) -> Any:
    """JSON-safe: numpy scalars become Python numbers; NaN (an undefined number: a precision with
    nothing flagged) becomes null; +inf and -inf, which strict JSON has no token for, become the
    strings ``"Infinity"`` and ``"-Infinity"``. An infinity is a value, not a missing one (a threshold
    of +inf flags nothing, -inf every row; a conformal q̂ of +inf puts every class in the set), so it
    is not written as null; the two strings are the spelling that Python's ``float()``, JavaScript's
    ``Number()`` and pandas read back as the infinities."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return _clean(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else (POS_INF if value > 0 else NEG_INF)
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
    if target:  # written before the table: a reader that closes stdout early (`| head`) left no file, exit 0
        write_output(target, doc + "\n", "--json")
    if text:  # a command whose result is a file (apply) prints nothing on stdout
        print(text)
    if target:
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
        raise VeracityError(f"{option} needs a file path, got {_show(path) if path else 'an empty one'}")
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


def database_file(url: str) -> str | None:
    """The local file that a ``sqlite:///PATH`` or ``duckdb:///PATH`` URL (``--sql-url``) opens, read as the
    connection reads it (:func:`veracity.sql._connect._file_url`); None for other URLs, an in-memory
    database, or a URL the connection will refuse in its own words."""
    scheme, sep, rest = url.partition("://")
    base = scheme.split("+", 1)[0].lower()
    if not sep or base not in ("sqlite", "duckdb"):
        return None
    from ..sql._connect import _MOTHERDUCK, _file_url, _uri_path

    if base == "duckdb" and rest[1:].lower().startswith(_MOTHERDUCK):
        return None
    try:
        path, options = _file_url(url, base, "", ())
        if path is not None and base == "sqlite" and "uri" in options:
            path = _uri_path(path, "", ())
    except VeracityError:
        return None
    return path


def check_paths(args: argparse.Namespace) -> None:
    """Check every output path of a parsed command line before any work is done."""
    inputs = {label: getattr(args, attr) for attr, label in INPUT_OPTIONS.items()
              if isinstance(getattr(args, attr, None), str)}
    url = getattr(args, "sql_url", None)
    database = database_file(url) if isinstance(url, str) else None
    if database is not None:  # `--sql-url sqlite:///s.db --json s.db` wrote the JSON over the database
        inputs["the --sql-url database"] = database
    seen: dict[str, str] = {}
    for attr, option in OUTPUT_OPTIONS.items():
        value = getattr(args, attr, None)
        if not isinstance(value, str) or (attr == "json" and value == "-"):
            continue
        if value == "-" and attr != "onnx" and getattr(args, "command", None) != "apply":
            # read as stdout (as --json - is), it wrote a file named '-'; only apply and export may print there
            raise VeracityError(f"{option} - would write a file named '-'; pass a file path")
        for other_option, other in seen.items():  # another output, not an input: none "overwrites an input"
            if _same_file(Path(value), Path(other)):
                raise VeracityError(f"{option} {_show(value)} is also {other_option}; both outputs would be "
                                    "written to the one file, the second over the first. Pass another path "
                                    "for one of them")
        check_output_path(value, option, inputs=inputs)
        _check_stdout(args, attr, option, value)
        writes = _WRITES.get(attr) if attr != "out" or getattr(args, "command", None) != "apply" else None
        if writes and os.path.isfile(value) and value.lower().endswith(DATA_SUFFIXES):
            command = " ".join(str(c) for c in (args.command, getattr(args, "action", None)) if c)
            # `veracity audit --json scores.csv` reads scores.csv as --json's PATH, `veracity fit --out scores.csv`
            # (the file forgotten before the flag: the demo data is read) as --out's: either would overwrite the data
            what, suffix = writes if attr != "out" or args.command != "report" else ("the HTML report", ".html")
            flag = option if attr == "json" else f"{option} OUT{suffix}"
            read = ("" if attr == "onnx" or args.command == "monitor" else  # they read a calibrator, a store
                    f"to read it, name it before the flags (veracity {command} {_show(value)} {flag}), or ")
            raise VeracityError(f"{option} {_show(value)} is a data file, and {option} PATH writes {what} over it; "
                                f"{read}pass a {suffix} path")
        seen[option] = value


#: paths that are the process's stdout
STDOUT_PATHS = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


def _check_stdout(args: argparse.Namespace, attr: str, option: str, value: str) -> None:
    """An output written to stdout is refused where stdout carries something else too: the table (``--json
    /dev/stdout``), the JSON (``--json -``), or the summary a command prints (fit's calibrator JSON was
    followed by "Platt scaling: ...", report's HTML by "wrote ..."). apply's --out and export's --onnx,
    which print nothing on stdout, may go there alone."""
    if os.path.normpath(value) not in STDOUT_PATHS:
        return
    command = getattr(args, "command", None)
    if attr == "json":
        raise VeracityError(f"--json {value} prints the JSON after the table; pass --json - to print the JSON alone")
    if attr == "onnx" or command == "apply":
        if getattr(args, "json", None) == "-":
            raise VeracityError(f"{option} {value} and --json - both write to stdout; write {option} to a file, "
                                "or drop --json -")
        return
    raise VeracityError(f"{option} {value} would mix the output with the summary veracity {command} prints on "
                        "stdout; write it to a file")


#: output options that never write a data table (apply's --out does): what they write, and its suffix
_WRITES = {"json": ("the JSON", ".json"), "out": ("the calibrator JSON", ".json"), "onnx": ("the ONNX model", ".onnx")}


def write_output(path: str | Path, data: str | bytes | Callable[[Path], None], option: str = "--out") -> Path:
    """Write atomically (temporary file + rename); OS errors become one-line VeracityErrors."""
    p = Path(path)
    try:
        return write_atomic(p, data)  # devices and FIFOs written through, links' targets replaced
    except BrokenPipeError:  # `--out /dev/stdout | head`: the reader left, as `veracity audit | head` (exit 0)
        raise
    except OSError as exc:
        raise VeracityError(f"could not write {option} {_show(p)}: {exc.strerror or exc}; check the path") from None
