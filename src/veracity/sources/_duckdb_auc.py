r"""DuckDB's exact AUC: one scan spills the rows by (score range, class) to local files; numpy counts each range.

A ranked SQL window per score range re-reads and re-sorts the table once per
range inside DuckDB (measured at 1e8 rows, 13 ranges: 24.8 s). Here one
streaming scan tags every row with ``2·range + class`` (a ``CASE`` tree over the
cut points, in SQL) and appends the rows, grouped by tag, to one file per
column in the temp directory — the score (8 bytes a row), the weight and a slice
code when there are any. The table never sits in memory whole: a batch at a
time on the way out, one range at a time on the way back, when
:func:`veracity.core._rank.class_numerators` (the 2U kernel of every engine) sorts
the range's negatives and looks its positives up in them, :data:`WORKERS`
ranges at once. Unweighted sums are int64: exact for any N.

A table that fits one range (:func:`rows_per_range`, from the connection's
memory limit) is counted in memory: no file is written.
"""

from __future__ import annotations

import contextlib
import os
import queue
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import numpy as np

from ..core._validation import VeracityError
from ._arrow_numpy import to_numpy

#: ranges counted at once (numpy's sort and lookups release the GIL)
WORKERS = 2
#: bytes of numpy memory one row of a range needs while it is counted (score, sorted copies,
#: lookups; measured at 1e8 rows: ~24 unweighted; weighted adds the weights and an argsort, ~60)
BYTES_PER_COUNTED_ROW = 64
#: rows per batch of the spilling scan
BATCH_ROWS = 1 << 20


def rows_per_range(memory_limit: int) -> int:
    """Rows one range may hold: :data:`WORKERS` ranges in flight use at most half the memory limit."""
    return max(10_000, memory_limit // 2 // (WORKERS * BYTES_PER_COUNTED_ROW))


def _tag_sql(bounds: list[float], *, weighted: bool, grouped: bool) -> str:
    """``_t`` = 2·range + (label is 1), with the range found by binary search over ``bounds``."""

    def tree(lo: int, hi: int) -> str:  # ranges lo..hi-1
        if hi - lo == 1:
            return str(lo)
        mid = (lo + hi) // 2
        # bounds are floats computed here; the string cast round-trips them exactly
        return f"CASE WHEN _s < CAST('{float(bounds[mid - 1])!r}' AS DOUBLE) THEN {tree(lo, mid)} ELSE {tree(mid, hi)} END"

    kind = "USMALLINT" if 2 * (len(bounds) + 1) <= 1 << 16 else "UINTEGER"
    tag = f"CAST(2 * ({tree(0, len(bounds) + 1)}) + CAST(_y = 1.0 AS INTEGER) AS {kind})"
    return f"SELECT {tag} AS _t, _s{', _w' if weighted else ''}{', _g' if grouped else ''} FROM _rows"


class _Spill:
    """Rows appended batch by batch, grouped by a small integer tag; read back one tag at a time.

    Each column is one file (or, without a directory, a list of arrays); every
    batch is written grouped by tag, and ``offsets[i]`` records where each tag's
    rows of batch ``i`` start.
    """

    def __init__(self, tags: int, dtypes: dict[str, Any], directory: str | None) -> None:
        self.tags, self.dtypes, self.directory = tags, {k: np.dtype(v) for k, v in dtypes.items()}, directory
        self.starts: list[int] = []
        self.offsets: list[np.ndarray] = []
        self.rows = 0
        self.parts: dict[str, list[np.ndarray]] = {name: [] for name in dtypes}
        self.files = {name: open(self.path(name), "wb") for name in dtypes} if directory else {}

    def path(self, name: str) -> str:
        return os.path.join(str(self.directory), name)

    def add(self, tag: np.ndarray, columns: dict[str, np.ndarray]) -> None:
        order = np.argsort(tag, kind="stable")  # a radix sort of small integers
        self.offsets.append(np.concatenate(([0], np.cumsum(np.bincount(tag, minlength=self.tags)))))
        self.starts.append(self.rows)
        self.rows += tag.size
        for name, values in columns.items():
            grouped = np.ascontiguousarray(values[order], dtype=self.dtypes[name])
            if self.files:
                grouped.tofile(self.files[name])
            else:
                self.parts[name].append(grouped)

    def finish(self) -> None:
        for fh in self.files.values():
            fh.close()

    def read(self, tag: int, name: str) -> np.ndarray:
        """Every row of ``tag`` (in the order written)."""
        lo = np.array([o[tag] for o in self.offsets], dtype=np.int64)
        hi = np.array([o[tag + 1] for o in self.offsets], dtype=np.int64)
        dtype = self.dtypes[name]
        if not self.files:
            return np.concatenate([p[a:z] for p, a, z in zip(self.parts[name], lo, hi)] or [np.zeros(0, dtype)])
        out = np.empty(int((hi - lo).sum()), dtype)
        view = out.data.cast("B")
        at = 0
        with open(self.path(name), "rb") as fh:
            for start, a, z in zip(self.starts, lo, hi):
                if z > a:
                    fh.seek((start + int(a)) * dtype.itemsize)
                    size = int(z - a) * dtype.itemsize
                    fh.readinto(view[at:at + size])
                    at += size
        return out


class _SliceCodes:
    """Slice keys as small integer codes, the same across batches (a loop over keys, never rows)."""

    def __init__(self) -> None:
        self.keys: list[Any] = []
        self.index: dict[Any, int] = {}

    def encode(self, column: Any) -> np.ndarray:
        import pyarrow as pa
        import pyarrow.compute as pc

        if pa.types.is_dictionary(column.type):  # an ENUM key: its values (a dictionary keeps its nulls)
            column = column.dictionary_decode()
        enc = pc.dictionary_encode(column, null_encoding="encode")
        lut = np.array([self.index.setdefault(k, len(self.index)) for k in enc.dictionary.to_pylist()],
                       dtype=np.int32)
        self.keys = list(self.index)
        return np.asarray(lut[to_numpy(enc.indices)])


def auc_table(relation: Any, *, weighted: bool, grouped: bool, bounds: list[float],
              directory: str, whole: bool = False) -> dict[str, list[Any]]:
    """Per (slice, score range): ``_num`` (= 2U of the range), ``_pos``, ``_neg`` (``whole``: plus
    the ranges of all rows together, ``_all`` true — from the same scan)."""
    from ..core._rank import class_numerators

    ranges = len(bounds) + 1
    sql = _tag_sql(bounds, weighted=weighted, grouped=grouped)
    dtypes: dict[str, Any] = {"_s": np.float64, **({"_w": np.float64} if weighted else {}),
                              **({"_c": np.int32} if grouped else {})}
    rel = relation.query("_rows", sql)
    reader = rel.to_arrow_reader(BATCH_ROWS) if hasattr(rel, "to_arrow_reader") else rel.fetch_arrow_reader(BATCH_ROWS)
    codes = _SliceCodes()
    with contextlib.ExitStack() as stack:  # one range (a small table): counted in memory, no file
        tmp = None if ranges == 1 else stack.enter_context(_spill_directory(directory))
        spill = _Spill(2 * ranges, dtypes, tmp)
        try:
            for batch in _prefetched(reader):
                cols = {"_s": to_numpy(batch.column(1))}  # from Arrow's buffers: pyarrow's imports pandas
                if weighted:
                    cols["_w"] = to_numpy(batch.column(2))
                if grouped:
                    cols["_c"] = codes.encode(batch.column(batch.num_columns - 1))
                spill.add(to_numpy(batch.column(0)), cols)
        except OSError as exc:
            raise VeracityError(
                f"the exact AUC writes the rows by score range to {directory} ({spill.rows * 8 * len(dtypes) // 10**6}"
                f"+ MB so far) and could not: {exc.strerror or exc}; free space there or set "
                "vc.configure_duckdb(temp_directory=...)") from None
        finally:
            spill.finish()
            reader.close()  # DuckDB's scan buffers go before the ranges are counted
            del reader, rel

        def count(r: int) -> list[tuple[Any, int, Any, Any, Any, bool]]:
            neg = {name: spill.read(2 * r, name) for name in dtypes}
            pos = {name: spill.read(2 * r + 1, name) for name in dtypes}
            out = []
            wanted = [*range(len(codes.keys) if grouped else 1), *([-1] if whole and grouped else [])]
            for k in wanted:  # a loop over slices, never rows; -1: every row
                if grouped and k >= 0:
                    pos_k, neg_k = pos["_c"] == k, neg["_c"] == k
                    if not (pos_k.any() or neg_k.any()):
                        continue
                    part = {n: (pos[n][pos_k], neg[n][neg_k]) for n in ("_s", "_w") if n in dtypes}
                else:  # every row (sorted in place: nothing reads them after)
                    part = {n: (pos[n], neg[n]) for n in ("_s", "_w") if n in dtypes}
                w_pos, w_neg = part.get("_w", (None, None))
                present, num, p, q = class_numerators(*part["_s"], w_pos, w_neg, np.zeros(0))
                if present.size:
                    out.append((codes.keys[k] if grouped and k >= 0 else None, r, num[0], p[0], q[0], k < 0))
            return out

        with ThreadPoolExecutor(min(WORKERS, ranges)) as pool:
            rows = [row for part in pool.map(count, range(ranges)) for row in part]
    cast = float if weighted else int
    table: dict[str, list[Any]] = {"_g": [t[0] for t in rows], "_r": [t[1] for t in rows],
                              "_num": [cast(t[2]) for t in rows], "_pos": [cast(t[3]) for t in rows],
                              "_neg": [cast(t[4]) for t in rows]}
    if whole and grouped:
        table["_all"] = [t[5] for t in rows]
    if not grouped:
        del table["_g"]
    return table


def _prefetched(reader: Any, depth: int = 2) -> Iterator[Any]:
    """The reader's batches, pulled by a second thread so that DuckDB scans the next batches
    while numpy files this one (at most ``depth`` batches wait: bounded memory)."""
    batches: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def pump() -> None:
        try:
            for batch in reader:
                while not stop.is_set():
                    try:
                        batches.put(batch, timeout=0.05)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            batches.put(done)
        except BaseException as exc:  # handed to the consumer, raised there
            batches.put(exc)

    worker = threading.Thread(target=pump, name="veracity-duckdb-scan", daemon=True)
    worker.start()
    try:
        while True:
            item = batches.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while worker.is_alive():  # let a blocked put finish, then the thread ends
            try:
                batches.get(timeout=0.05)
            except queue.Empty:
                pass
        worker.join()


def _spill_directory(directory: str) -> Any:
    try:
        os.makedirs(directory, exist_ok=True)
        return tempfile.TemporaryDirectory(prefix="veracity-auc-", dir=directory)
    except OSError as exc:
        raise VeracityError(f"the exact AUC needs a temp directory to write rows by score range and "
                            f"could not make one in {directory}: {exc.strerror or exc}; set "
                            "vc.configure_duckdb(temp_directory=...)") from None
