r"""The monitoring store: one DuckDB file holding predictions, outcomes and batches.

Schema (version :data:`SCHEMA_VERSION`)::

    veracity_meta(key VARCHAR PRIMARY KEY, value VARCHAR)      -- app, schema_version, slices
    predictions(id VARCHAR, ts TIMESTAMP, score DOUBLE, model VARCHAR, batch INTEGER,
                label TINYINT, observed TIMESTAMP,             -- copied from outcomes (see below)
                s_<slice> VARCHAR ...)                         -- one row per prediction id
    outcomes(id VARCHAR, label TINYINT, observed TIMESTAMP, batch INTEGER)
    batches(batch INTEGER PRIMARY KEY, kind VARCHAR, source VARCHAR, content_hash VARCHAR,
            rows BIGINT, inserted BIGINT, duplicates BIGINT, conflicts BIGINT, replaced BIGINT,
            ingested_at TIMESTAMP)

Times are UTC (timezone-naive ``TIMESTAMP``). ``outcomes`` is the record of what
arrived; each prediction's ``label``/``observed`` are kept equal to its outcome in the
same transaction that stores either of them, so status reads one table without a
join. A row's id is its key:

* re-sending a row that is already stored with the same values is a no-op
  (counted as a duplicate);
* re-sending an id with a different score or time (a prediction) or a different
  label (an outcome) is a **conflict**: the whole batch is refused and nothing
  changes, unless ``replace=True``, which overwrites those rows and records how
  many it replaced.

Each ingest is one transaction (a batch commits or nothing does; DuckDB's
write-ahead log makes a ``kill -9`` at any moment leave the last committed state).
One process writes at a time: DuckDB locks the file, and a second process
retries until ``timeout`` seconds have passed, then fails with a clear message.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core._display import Display
from ..core._sql_names import quote_identifier
from ..core._validation import VeracityError
from ._time import to_utc_timestamps

SCHEMA_VERSION = 2  # 2: predictions carry their outcome's label/observed
APP = "veracity-monitor"
DEFAULT_TIMEOUT = 60.0
_DUCKDB_MAGIC_OFFSET = 8  # DuckDB files carry b"DUCK" at bytes 8..12


def require_duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise VeracityError(
            "the monitoring store needs DuckDB: pip install veracity[duckdb]"
        ) from None
    return duckdb


_quote = quote_identifier


def _slice_column(name: str) -> str:
    return "s_" + name


def check_store_name(path: Any) -> str:
    """``path`` as a local file name, or a one-line error for names DuckDB would not treat as a file.

    DuckDB gives meaning to some names: ``:memory:`` (a database that vanishes, so every
    "stored" row would be lost), ``md:``/``motherduck:`` (a remote service) and URLs
    (``s3://``, ``http://``). A monitoring store is a file on this machine.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise VeracityError(f"the store must be a file path such as monitor.duckdb, got {type(path).__name__}")
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    lowered = text.strip().lower()
    if not text.strip() or "\x00" in text:
        raise VeracityError(f"the store must be a file path such as monitor.duckdb, got {text!r}")
    if lowered.startswith(":") or lowered.startswith(("md:", "motherduck:")):
        raise VeracityError(
            f"store {text!r} is a DuckDB special name, not a file: nothing would be kept. "
            "Pass a file path such as monitor.duckdb")
    if "://" in text:
        raise VeracityError(
            f"store {text!r} is a URL; the monitoring store is a local DuckDB file. Pass a file path such as "
            "monitor.duckdb (copy the store locally first)")
    return text


@dataclass(frozen=True, repr=False)
class IngestResult(Display):
    """What one ``log``/``outcomes`` call did to the store."""

    kind: str
    source: str
    batch: int | None
    rows: int
    inserted: int
    duplicates: int
    replaced: int
    unmatched: int = 0
    seen_before: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __str__(self) -> str:
        what = "predictions" if self.kind == "predictions" else "outcomes"
        parts = [f"{self.source}: {self.rows} {what} read; {self.inserted} new"]
        parts.append(f"{self.duplicates} already stored (no-op)")
        if self.replaced:
            parts.append(f"{self.replaced} replaced")
        text = ", ".join(parts)
        if self.batch is not None:
            text += f" (batch {self.batch})"
        else:
            text += " (nothing to commit)"
        if self.seen_before is not None:
            text += f"\n(this file's content was ingested before, as batch {self.seen_before})"
        if self.unmatched:
            text += (f"\n({self.unmatched} outcomes have no logged prediction yet; kept, they count "
                     "once the prediction is logged)")
        return text


class MonitorStore:
    """A monitoring store in a DuckDB file (created by :meth:`init` or the first ingest).

    >>> import tempfile, os
    >>> store = MonitorStore(os.path.join(tempfile.mkdtemp(), "m.duckdb")).init()
    >>> store.counts()
    {'predictions': 0, 'outcomes': 0, 'batches': 0}
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = DEFAULT_TIMEOUT,
                 memory_limit: str | None = None) -> None:
        self.path = Path(check_store_name(path))
        self.timeout = float(timeout)
        self.memory_limit = memory_limit  # DuckDB's memory_limit, e.g. "2GB" (default: DuckDB's own)

    def __repr__(self) -> str:
        return f"MonitorStore({str(self.path)!r})"

    # -- connection -----------------------------------------------------------------
    def _check_file(self) -> None:
        p = self.path
        if p.is_dir():
            raise VeracityError(f"store {p} is a directory; pass a file path such as monitor.duckdb")
        if p.exists():
            with open(p, "rb") as fh:
                head = fh.read(16)
            if len(head) < 12 or head[_DUCKDB_MAGIC_OFFSET:_DUCKDB_MAGIC_OFFSET + 4] != b"DUCK":
                raise VeracityError(
                    f"{p} is not a veracity monitoring store (not a DuckDB database file); "
                    "pass the store's path, or a new path to create one"
                )

    def connect(self, *, read_only: bool = False, create: bool = False, _checked: bool = False) -> Any:
        """A DuckDB connection holding the file's lock (waits up to ``timeout`` for another writer)."""
        duckdb = require_duckdb()
        self._check_file()
        exists = self.path.exists()
        if not exists and not create:
            raise VeracityError(
                f"no monitoring store at {self.path}; create it with `veracity monitor init {self.path}` "
                "or by logging predictions into it"
            )
        if not exists:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        elif not read_only and not _checked:  # check an existing file read-only before writing to it
            self.connect(read_only=True).close()
        # the store reads nothing but its own file: no file functions, no extensions, no network
        config: dict[str, Any] = {"autoload_known_extensions": False, "autoinstall_known_extensions": False,
                                  "enable_external_access": False}
        if self.memory_limit:
            config["memory_limit"] = self.memory_limit
        deadline = time.monotonic() + self.timeout
        delay = 0.02
        while True:
            try:
                # absolute: a relative name can never be read as one of DuckDB's special names
                con = duckdb.connect(os.path.abspath(self.path), read_only=read_only and exists, config=config)
                break
            except duckdb.IOException as exc:
                msg = str(exc)
                if "lock" in msg.lower():
                    if time.monotonic() >= deadline:
                        raise VeracityError(
                            f"store {self.path} is busy: another process holds it (waited "
                            f"{self.timeout:g} s); retry when it finishes"
                        ) from None
                    time.sleep(delay)
                    delay = min(delay * 1.5, 0.5)
                    continue
                raise VeracityError(
                    f"{self.path} is not a readable monitoring store (truncated or damaged: "
                    f"{msg.splitlines()[0][:160]}); restore it from a backup or start a new store"
                ) from None
            except duckdb.Error as exc:
                raise VeracityError(
                    f"{self.path} could not be opened as a monitoring store: {str(exc).splitlines()[0][:160]}"
                ) from None
        try:
            con.execute("SET TimeZone = 'UTC'")
        except duckdb.Error:  # pragma: no cover - builds without ICU have no TimeZone setting
            pass
        try:
            if not exists:
                self._create(con)
            self._check_schema(con)
        except BaseException:
            con.close()
            raise
        return con

    def _create(self, con: Any) -> None:
        con.execute("BEGIN TRANSACTION")
        con.execute("CREATE TABLE veracity_meta(key VARCHAR PRIMARY KEY, value VARCHAR)")
        con.execute("CREATE TABLE predictions(id VARCHAR NOT NULL, ts TIMESTAMP NOT NULL, "
                    "score DOUBLE NOT NULL, model VARCHAR, batch INTEGER NOT NULL, label TINYINT, "
                    "observed TIMESTAMP)")
        con.execute("CREATE TABLE outcomes(id VARCHAR NOT NULL, label TINYINT NOT NULL, "
                    "observed TIMESTAMP NOT NULL, batch INTEGER NOT NULL)")
        con.execute("CREATE TABLE batches(batch INTEGER PRIMARY KEY, kind VARCHAR, source VARCHAR, "
                    "content_hash VARCHAR, rows BIGINT, inserted BIGINT, duplicates BIGINT, "
                    "conflicts BIGINT, replaced BIGINT, ingested_at TIMESTAMP)")
        con.executemany("INSERT INTO veracity_meta VALUES (?, ?)",
                        [["app", APP], ["schema_version", str(SCHEMA_VERSION)], ["slices", ""]])
        con.execute("COMMIT")

    def _check_schema(self, con: Any) -> None:
        duckdb = require_duckdb()
        try:
            meta = dict(con.execute("SELECT key, value FROM veracity_meta").fetchall())
        except duckdb.Error:
            raise VeracityError(
                f"{self.path} is a DuckDB file but not a veracity monitoring store (no veracity_meta "
                "table: another database, or a truncated store); pass a store made by `veracity monitor init`"
            ) from None
        if meta.get("app") != APP:
            raise VeracityError(f"{self.path} is not a veracity monitoring store (app={meta.get('app')!r})")
        try:
            version = int(meta.get("schema_version", ""))
        except ValueError:
            raise VeracityError(f"{self.path} has no valid schema_version; it is not a usable store") from None
        if version > SCHEMA_VERSION:
            raise VeracityError(
                f"{self.path} has schema version {version}, newer than this veracity reads "
                f"({SCHEMA_VERSION}); upgrade veracity"
            )
        if version < SCHEMA_VERSION:
            if not self._migrate_ok:
                raise VeracityError(
                    f"{self.path} has schema version {version}; run `veracity monitor init {self.path}` once "
                    f"to migrate it to version {SCHEMA_VERSION}")
            _migrate(con, version)

    _migrate_ok = False

    def init(self) -> MonitorStore:
        """Create the store if missing, or migrate an older schema; returns ``self``."""
        if self.path.exists():
            self._check_file()
            self._migrate_ok = True
            try:
                self.connect(create=True, _checked=True).close()
            finally:
                self._migrate_ok = False
        else:
            self.connect(create=True).close()
        return self

    def slices(self, con: Any | None = None) -> list[str]:
        own = con is None
        con = con or self.connect(read_only=True)
        try:
            value = con.execute("SELECT value FROM veracity_meta WHERE key = 'slices'").fetchone()[0]
        finally:
            if own:
                con.close()
        return [s for s in (value or "").split("\x1f") if s]

    def counts(self) -> dict[str, int]:
        """Rows in each table."""
        con = self.connect(read_only=True)
        try:
            return {t: int(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
                    for t in ("predictions", "outcomes", "batches")}
        finally:
            con.close()

    # -- ingest ---------------------------------------------------------------------
    def log(self, data: Any, *, id: str, time: str, score: str, by: str | list[str] | None = None,
            model: str | None = None, replace: bool = False) -> IngestResult:
        """Store predictions from ``data`` (a CSV/Parquet path, or a pandas/polars/pyarrow frame)."""
        table, source, digest = _read(data)
        if table is None:
            return IngestResult("predictions", source, None, 0, 0, 0, 0)
        by_cols = [by] if isinstance(by, str) else list(by or [])
        ids = _id_column(table, id, source)
        ts = to_utc_timestamps(_col(table, time, source), time)
        scores = _score_column(table, score, source)
        import pyarrow as pa

        cols = {"id": ids, "ts": ts, "score": scores,
                "model": pa.array([model] * table.num_rows, type=pa.string())}
        for b in by_cols:
            cols[_slice_column(b)] = _col(table, b, source).cast(pa.string())
        stage = pa.table(cols)
        return self._ingest("predictions", stage, source, digest, replace, by_cols)

    def outcomes(self, data: Any, *, id: str, label: str, time: str | None = None,
                 replace: bool = False) -> IngestResult:
        """Store outcomes (labels 0/1) joined to predictions by id; ``time`` = when observed (default: now)."""
        import pyarrow as pa

        table, source, digest = _read(data)
        if table is None:
            return IngestResult("outcomes", source, None, 0, 0, 0, 0)
        ids = _id_column(table, id, source)
        labels = _label_column(table, label, source)
        if time is not None:
            observed = to_utc_timestamps(_col(table, time, source), time)
        else:
            now = np.datetime64(_utcnow(), "us")
            observed = pa.array(np.full(table.num_rows, now), type=pa.timestamp("us"))
        stage = pa.table({"id": ids, "label": labels, "observed": observed})
        return self._ingest("outcomes", stage, source, digest, replace, [])

    def _ingest(self, kind: str, stage: Any, source: str, digest: str, replace: bool,
                by_cols: list[str]) -> IngestResult:
        duckdb = require_duckdb()
        con = self.connect(create=True)
        try:
            con.register("incoming", stage)
            con.execute("BEGIN TRANSACTION")
            try:
                result = _ingest_sql(con, kind, source, digest, replace, by_cols, self)
                con.execute("COMMIT")
            except BaseException:
                try:
                    con.execute("ROLLBACK")
                except duckdb.Error:  # pragma: no cover
                    pass
                raise
            return result
        except duckdb.Error as exc:
            raise VeracityError(f"ingest into {self.path} failed and was rolled back: "
                                f"{str(exc).splitlines()[0][:200]}") from None
        finally:
            con.close()

    # -- reading ----------------------------------------------------------------------
    def status(self, **kwargs: Any) -> Any:
        """Calibration per period and slice; see :func:`veracity.monitoring.store_status`."""
        from ._status import store_status

        return store_status(self, **kwargs)

    def recalibrate(self, **kwargs: Any) -> Any:
        """Fit a calibrator on a mature window, ledger on the next; see :func:`recalibrate_store`."""
        from ._recalibrate import recalibrate_store

        return recalibrate_store(self, **kwargs)


def _migrate(con: Any, version: int) -> None:
    """Bring an older store to :data:`SCHEMA_VERSION` in one transaction."""
    con.execute("BEGIN TRANSACTION")
    if version < 2:
        con.execute("ALTER TABLE predictions ADD COLUMN label TINYINT")
        con.execute("ALTER TABLE predictions ADD COLUMN observed TIMESTAMP")
        con.execute("UPDATE predictions AS p SET label = o.label, observed = o.observed FROM outcomes o "
                    "WHERE p.id = o.id")
    con.execute("UPDATE veracity_meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)])
    con.execute("COMMIT")


def _utcnow() -> Any:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).replace(tzinfo=None)


def _ingest_sql(con: Any, kind: str, source: str, digest: str, replace: bool, by_cols: list[str],
                store: MonitorStore) -> IngestResult:
    if kind == "predictions":
        known = store.slices(con)
        new = [b for b in by_cols if b not in known]
        for b in new:
            con.execute(f"ALTER TABLE predictions ADD COLUMN {_quote(_slice_column(b))} VARCHAR")
        if new:
            con.execute("UPDATE veracity_meta SET value = ? WHERE key = 'slices'",
                        ["\x1f".join(known + new)])
        value_cols = ["ts", "score"]
        extra = ["model"] + [_slice_column(b) for b in by_cols]
        what = "score or time"
    else:
        value_cols = ["label"]
        extra = ["observed"]
        what = "label"
    cols = ["id"] + value_cols + extra
    rows = int(con.execute("SELECT count(*) FROM incoming").fetchone()[0])
    # an id sent twice in one batch with different values is a conflict within the batch
    differs = " OR ".join(f"min({c}) IS DISTINCT FROM max({c})" for c in value_cols)
    bad = con.execute(f"SELECT id FROM incoming GROUP BY id HAVING {differs} LIMIT 3").fetchall()
    if bad:
        raise VeracityError(
            f"{source}: id {bad[0][0]!r} appears more than once with a different {what}; "
            "each id must be one prediction (fix the file)")
    sel = ", ".join(f"any_value({_quote(c)}) AS {_quote(c)}" for c in cols[1:])
    con.execute(f"CREATE OR REPLACE TEMP TABLE stage AS SELECT id, {sel} FROM incoming GROUP BY id")
    unique = int(con.execute("SELECT count(*) FROM stage").fetchone()[0])
    same = " AND ".join(f"s.{c} = t.{c}" for c in value_cols)
    counts = con.execute(
        f"SELECT count(*) FILTER (WHERE {same}), count(*) FILTER (WHERE NOT ({same})) "
        f"FROM stage s JOIN {kind} t USING (id)").fetchone()
    duplicates, conflicts = int(counts[0]), int(counts[1])
    if conflicts and not replace:
        example = con.execute(
            f"SELECT s.id, {', '.join(f's.{c}, t.{c}' for c in value_cols)} FROM stage s JOIN {kind} t "
            f"USING (id) WHERE NOT ({same}) ORDER BY s.id LIMIT 1").fetchone()
        pairs = ", ".join(f"{c} {example[2 + 2 * i]} stored vs {example[1 + 2 * i]} sent"
                          for i, c in enumerate(value_cols) if example[2 + 2 * i] != example[1 + 2 * i])
        raise VeracityError(
            f"{source}: {conflicts} rows conflict with stored {kind} (same id, different {what}; "
            f"e.g. id {example[0]!r}: {pairs}); nothing was stored — fix the file, or pass --replace "
            "to overwrite them")
    seen = con.execute("SELECT min(batch) FROM batches WHERE content_hash = ? AND kind = ?",
                       [digest, kind]).fetchone()[0]
    inserted = unique - duplicates - conflicts
    if inserted == 0 and conflicts == 0:
        return IngestResult(kind, source, None, rows, 0, duplicates, 0, 0, seen)
    batch = int(con.execute("SELECT coalesce(max(batch), 0) + 1 FROM batches").fetchone()[0])
    target_cols = ", ".join(_quote(c) for c in cols)
    if conflicts:  # --replace: overwrite the values, keep the rest of the stored row
        sets = ", ".join(f"{c} = s.{c}" for c in value_cols + (["observed"] if kind == "outcomes" else []))
        con.execute(f"UPDATE {kind} AS t SET {sets}, batch = ? FROM stage s WHERE t.id = s.id AND NOT ({same})",
                    [batch])
    con.execute(
        f"INSERT INTO {kind} ({target_cols}, batch) SELECT {', '.join('s.' + _quote(c) for c in cols)}, ? "
        f"FROM stage s WHERE NOT EXISTS (SELECT 1 FROM {kind} t WHERE t.id = s.id)", [batch])
    con.execute("INSERT INTO batches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [batch, kind, source, digest, rows, inserted, duplicates, conflicts, conflicts, _utcnow()])
    # keep each prediction's copy of its outcome equal to the outcomes table (same transaction)
    if kind == "outcomes":
        con.execute("UPDATE predictions AS p SET label = o.label, observed = o.observed FROM outcomes o "
                    "WHERE p.id = o.id AND o.batch = ?", [batch])
    else:
        con.execute("UPDATE predictions AS p SET label = o.label, observed = o.observed FROM outcomes o "
                    "WHERE p.id = o.id AND p.batch = ?", [batch])
    unmatched = 0
    if kind == "outcomes":
        unmatched = int(con.execute("SELECT count(*) FROM stage s WHERE NOT EXISTS "
                                    "(SELECT 1 FROM predictions p WHERE p.id = s.id)").fetchone()[0])
    return IngestResult(kind, source, batch, rows, inserted, duplicates, conflicts, unmatched, seen)


# -- reading input ------------------------------------------------------------------------
def _read(data: Any) -> tuple[Any, str, str]:
    """(pyarrow table, display name, content hash) of a path or an in-memory frame."""
    import pyarrow as pa

    if isinstance(data, (str, os.PathLike)):
        from .. import io

        path = Path(data)
        try:
            table = io.read_table(path)
        except VeracityError as exc:
            if "header but no rows" not in str(exc):
                raise
            table = None  # a day with nothing to send is not an error
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        return table, str(path), h.hexdigest()
    if isinstance(data, pa.Table):
        table = data
    elif hasattr(data, "to_arrow"):  # polars
        table = data.to_arrow()
    elif hasattr(data, "columns") and hasattr(data, "iloc"):  # pandas
        table = pa.Table.from_pandas(data, preserve_index=False)
    elif isinstance(data, dict):
        table = pa.table(data)
    else:
        raise VeracityError(
            f"data must be a CSV/Parquet path or a pandas/polars/pyarrow frame, got {type(data).__name__}")
    if table.num_rows == 0:
        raise VeracityError("the frame has no rows; nothing to store")
    h = hashlib.sha256()
    for batch in table.to_batches():
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as writer:
            writer.write_batch(batch)
        h.update(sink.getvalue().to_pybytes())
    return table, f"<{type(data).__name__}>", h.hexdigest()


def _col(table: Any, name: str, source: str) -> Any:
    if name not in table.column_names:
        cols = ", ".join(table.column_names[:20])
        raise VeracityError(f"column {name!r} not found in {source}; columns: {cols}")
    return table.column(name).combine_chunks()


def _id_column(table: Any, name: str, source: str) -> Any:
    import pyarrow as pa

    col = _col(table, name, source)
    if col.null_count:
        raise VeracityError(f"id column {name!r} in {source} has {col.null_count} missing ids; every row needs one")
    if pa.types.is_floating(col.type):
        v = col.to_numpy(zero_copy_only=False)
        if not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
            raise VeracityError(f"id column {name!r} in {source} holds non-integer numbers; ids must be "
                                "strings or integers")
        col = pa.array(v.astype(np.int64))
    return col.cast(pa.string())


def _score_column(table: Any, name: str, source: str) -> Any:
    import pyarrow as pa

    col = _col(table, name, source)
    if not (pa.types.is_floating(col.type) or pa.types.is_integer(col.type) or pa.types.is_decimal(col.type)):
        raise VeracityError(f"score column {name!r} in {source} has type {col.type}; scores must be numbers")
    v = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
    bad = ~np.isfinite(v) | (v < 0) | (v > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise VeracityError(
            f"score column {name!r} in {source}: {int(bad.sum())} of {v.size} values are not probabilities "
            f"in [0, 1] (first at row {i}: {v[i]!r}); store calibrated probabilities (apply the sigmoid to logits)")
    return pa.array(v, type=pa.float64())


def _label_column(table: Any, name: str, source: str) -> Any:
    import pyarrow as pa

    col = _col(table, name, source)
    if col.null_count:
        raise VeracityError(
            f"label column {name!r} in {source} has {col.null_count} missing labels; send an outcome only "
            "once it is known (pending predictions need no row)")
    if pa.types.is_boolean(col.type):
        v = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
    elif pa.types.is_integer(col.type) or pa.types.is_floating(col.type):
        v = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
    else:
        raise VeracityError(f"label column {name!r} in {source} has type {col.type}; labels must be 0/1")
    bad = (v != 0) & (v != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise VeracityError(f"label column {name!r} in {source}: {int(bad.sum())} labels are not 0 or 1 "
                            f"(first at row {i}: {v[i]!r})")
    return pa.array(v.astype(np.int8), type=pa.int8())
