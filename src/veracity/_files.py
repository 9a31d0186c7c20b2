"""Files: finding them (a path, directory or glob as a list of local files) and writing them safely.

:func:`expand` turns what a user names into absolute local paths and their kind
(``"parquet"`` or ``"csv"``); remote URLs are refused. :func:`write_atomic` writes
through a temporary file in the same folder, then a rename: a reader never sees a
half-written artifact or table, and a failed write leaves the previous file untouched.
A leaf of the package: it imports nothing of veracity's but the error type.
"""

from __future__ import annotations

import glob as _glob
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from .core._validation import VeracityError

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_PARQUET = (".parquet", ".pq", ".parq")
_CSV = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz")


def write_atomic(path: str | Path, data: str | bytes | Callable[[Path], None]) -> Path:
    """Write ``data`` (text, bytes, or a function that writes a given path) to ``path`` atomically.

    The temporary file lives in the target's folder so that :func:`os.replace` is a
    rename on one file system; it is removed if anything fails. A path that is not a
    regular file (``/dev/stdout``, ``/dev/null``, a FIFO) is written through, and a symbolic
    link's target is replaced, not the link: a rename over them replaced the device (as root)
    or the link with a regular file.
    """
    p = Path(path)
    if p.is_dir():
        raise VeracityError(f"{p} is a directory; pass a file name to write")
    if p.exists() and not p.is_file():  # /dev/stdout, /dev/null, a FIFO: written through, never renamed over
        if callable(data):
            data(p)
        else:
            with open(p, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        return p
    if p.is_symlink():  # the file it points to is replaced, the link stays
        write_atomic(Path(os.path.realpath(p)), data)
        return p
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:64]}.", suffix=".tmp", dir=p.parent or ".")
    except FileNotFoundError:
        raise VeracityError(f"cannot write {p}: the folder {p.parent} does not exist; create it first") from None
    tmp_path = Path(tmp)
    try:
        if callable(data):
            os.close(fd)
            data(tmp_path)
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        try:
            mode = os.stat(p).st_mode & 0o777 if p.exists() else 0o666 & ~_umask()
            os.chmod(tmp_path, mode)
        except OSError:  # pragma: no cover - permissions are best effort
            pass
        os.replace(tmp_path, p)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    return p


def path_state(path: Path, what: str = "") -> tuple[bool, bool]:
    """``(exists, is a directory)`` of ``path``; a path the file system refuses (a name too long, ...)
    is one line naming it (``what``: the thing read, e.g. ``"calibrator file "``)."""
    try:
        return path.exists(), path.is_dir()
    except OSError as exc:
        raise VeracityError(f"cannot read {what}{str(path)[:100]}: {exc.strerror or exc}; check the path") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def is_remote(path: str) -> bool:
    return bool(_URL.match(path))


def expand(source: str | os.PathLike[str]) -> tuple[list[str], str]:
    """``(absolute file paths, "parquet"|"csv")`` for a file, a directory or a glob."""
    text = os.fspath(source)
    if is_remote(text):
        scheme = text.split("://", 1)[0]
        raise VeracityError(
            f"remote paths ({scheme}://) are not read by veracity; download the file first, or open it "
            "with your own DuckDB connection and pass the relation (vc.audit(con.read_parquet(url), ...))"
        )
    p = Path(text).expanduser()
    if any(ch in text for ch in "*?["):
        files = sorted(f for f in _glob.glob(str(p), recursive=True) if os.path.isfile(f))
        if not files:
            raise VeracityError(f"no file matches {text}; check the pattern")
    else:
        found, is_dir = path_state(p)
        if is_dir:
            files = sorted(str(f) for f in p.rglob("*") if f.is_file() and f.name.lower().endswith(_PARQUET))
            if not files:
                raise VeracityError(f"{text} is a directory without .parquet files; pass a file or a glob")
        elif found:
            files = [str(p)]
        else:
            raise VeracityError(f"file not found: {text}; check the path")
    files = [os.path.abspath(f) for f in files]
    kinds = {_kind(f) for f in files}
    if len(kinds) > 1:
        raise VeracityError(f"{text} matches both CSV and Parquet files; pass one kind at a time")
    return files, kinds.pop()


def _kind(path: str) -> str:
    low = path.lower()
    if low.endswith(_PARQUET):
        return "parquet"
    if low.endswith(_CSV):
        return "csv"
    with open(path, "rb") as fh:  # by content: Parquet files start with PAR1
        return "parquet" if fh.read(4) == b"PAR1" else "csv"
