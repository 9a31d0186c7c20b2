"""Writing files safely: atomically (a temporary file in the same folder, then a rename).

A reader never sees a half-written artifact or table, and a failed write leaves
the previous file untouched.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_atomic(path: str | Path, data: str | bytes | Callable[[Path], None]) -> Path:
    """Write ``data`` (text, bytes, or a function that writes a given path) to ``path`` atomically.

    The temporary file lives in the target's folder so that :func:`os.replace` is a
    rename on one file system; it is removed if anything fails.
    """
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:64]}.", suffix=".tmp", dir=p.parent or ".")
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
