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
        if p.parent.is_dir():  # /proc, /sys: a folder that takes no new files says ENOENT too
            raise VeracityError(f"cannot write {p}: the folder {p.parent} takes no new files; pass a path in "
                                "a folder you can write") from None
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
    kinds = {_kind(f, text if len(files) == 1 else f) for f in files}
    if len(kinds) > 1:
        raise VeracityError(f"{text} matches both CSV and Parquet files; pass one kind at a time")
    return files, kinds.pop()


def _kind(path: str, shown: str | None = None) -> str:
    low = path.lower()
    if low.endswith(_PARQUET):
        return "parquet"
    try:
        with open(path, "rb") as fh:  # by content: Parquet files start with PAR1
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        if low.endswith(_CSV):
            return "csv"  # (a file that cannot be read: the reader says why, as before)
        raise
    if not low.endswith(_CSV) and head[:4] == b"PAR1":
        return "parquet"
    refuse_not_rows(head, path, shown)
    return "csv"


#: bytes read from the start of a file to tell a table from what is none (:func:`refuse_not_rows`)
_SNIFF_BYTES = 512
#: an opening that no CSV file of rows has: (magic bytes, what the file is, how to read it)
_NOT_ROWS = (
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook?)", "save the sheet as CSV (or Parquet) first"),
    (b"\xd0\xcf\x11\xe0", "an Excel .xls workbook", "save the sheet as CSV (or Parquet) first"),
)


def refuse_not_rows(head: bytes, path: str, shown: str | None = None) -> None:
    """A file of rows whose first bytes (``head``) say it is no CSV, refused in one line naming what it is
    (``shown``: the name to print, default ``path``): an Excel workbook (ZIP or OLE2 magic), UTF-16 text
    (:func:`_utf16`), JSON or JSON lines (``{"...`` or ``[{...`` after a BOM and white space; a CSV header
    has no such opening), or gzip data whose name does not end ``.gz`` (the readers tell a compressed CSV
    by that suffix). Each was read as CSV text: "column 'score' not found" listing {"score": 0.3, ...
    } among the columns, or "is not UTF-8 text (byte 0x8b)", never what the file is."""
    name = shown if shown is not None else path
    for magic, what, fix in _NOT_ROWS:
        if head.startswith(magic):
            raise VeracityError(f"{name} is {what}, not a CSV or Parquet file of rows; {fix}")
    wide = _utf16(head)
    if wide:
        raise VeracityError(f"{name} is UTF-16 text (Excel's \"Unicode Text\"?), not UTF-8; re-save it as "
                            f"UTF-8 CSV, e.g. iconv -f {wide} -t utf-8")
    if head[:2] == b"\x1f\x8b" and not path.lower().endswith(".gz"):
        raise VeracityError(f"{name} is gzip-compressed but its name does not end in .gz; name it *.csv.gz "
                            "(or decompress it with gunzip) so that it is read as a compressed CSV")
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if re.match(rb'\{\s*("|\})|\[\s*[\[{]', text):
        if b'"veracity.calibrator"' in text:  # e.g. `veracity apply rows.csv cal.json`: the two swapped
            raise VeracityError(f"{name} is a saved veracity calibrator, not a file of rows; pass the CSV or "
                                "Parquet file of scored rows (to apply the calibrator: veracity apply "
                                f"{name} ROWS -o OUT, the calibrator first)")
        lines = ", lines=True" if text[:1] == b"{" else ""  # JSON lines: one object a line
        raise VeracityError(f"{name} holds JSON, not CSV; veracity reads CSV and Parquet files: convert it "
                            f"first, e.g. with pandas: pd.read_json(path{lines}).to_parquet('rows.parquet')")


def _utf16(head: bytes) -> str:
    r"""The UTF-16 encoding ``head`` opens (iconv's name: ``utf-16`` with a byte-order mark, else ``utf-16le``
    or ``utf-16be`` by where a NUL byte stands in every other place of mostly ASCII text,
    ``s\0c\0o\0r\0e\0``, which no UTF-8 CSV holds), or ``""``. Such a file was read as "not UTF-8 text
    (byte 0xff); re-save it as UTF-8, e.g. iconv -f latin1" (advice that garbles it) or as a ragged line."""
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    pairs = len(head) // 2
    if pairs < 4:
        return ""
    even, odd = head[0:2 * pairs:2].count(0), head[1:2 * pairs:2].count(0)
    if min(even, odd) or max(even, odd) < 0.8 * pairs:
        return ""
    return "utf-16le" if odd else "utf-16be"


def refuse_not_rows_file(path: str, shown: str | None = None) -> None:
    """:func:`refuse_not_rows` on the first bytes of the file at ``path`` (a file named as Parquet, one
    that cannot be opened, or a folder or glob is left to the readers, which say what is wrong)."""
    if path.lower().endswith(_PARQUET) or not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return
    if head[:4] != b"PAR1":
        refuse_not_rows(head, path, shown)
