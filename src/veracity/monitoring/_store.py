r"""The monitoring store: one DuckDB file holding predictions, outcomes and batches.

Schema (version :data:`SCHEMA_VERSION`)::

    veracity_meta(key VARCHAR PRIMARY KEY, value VARCHAR)      -- app, schema_version, slices
    predictions(id VARCHAR PRIMARY KEY, ts TIMESTAMP NOT NULL,
                score DOUBLE NOT NULL CHECK (0 <= score <= 1), model VARCHAR, batch INTEGER NOT NULL,
                label TINYINT CHECK (label IN (0, 1)), observed TIMESTAMP,   -- copied from outcomes
                audit BOOLEAN,                                 -- copied from outcomes
                s_<slice> VARCHAR ...)                         -- one row per prediction id
    outcomes(id VARCHAR PRIMARY KEY, label TINYINT NOT NULL CHECK (label IN (0, 1)),
             observed TIMESTAMP NOT NULL, batch INTEGER NOT NULL,
             audit BOOLEAN NOT NULL)                           -- a label of the random audit sample
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
One process writes at a time: DuckDB locks the file, and a second process (or a
second thread asking for another access mode) retries until ``timeout`` seconds have
passed, then fails with a clear message. Each call opens the file and closes it again (the lock is
held only while a call runs), unless it runs inside a ``with store:`` block, which keeps one
connection (and so the lock) from its first call to its end: the calls in the block open the file
once (each DuckDB open costs ~15 ms of CPU and replays the write-ahead log), every ingest still its
own transaction, and another process waits for the block to end (see :meth:`MonitorStore.__enter__`).

A store is trusted only as far as it is checked: every open verifies the tables, their
columns, types and constraints (a hand-edited or truncated store is refused in one
line, and nothing is written into a store that cannot be read), unless the file is exactly
as this process left it after such a check or its own write (see :meth:`MonitorStore.connect`:
a process logging batch after batch checks once); ids are text exactly
as written (``007`` and ``7`` are two ids); the connection reads nothing but the
store's own file (external access disabled), and every identifier that reaches SQL is
quoted by :func:`veracity.core._sql_names.quote_identifier`.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core._compat import positional_options
from ..core._display import Display
from ..core._sql_names import quote_identifier
from ..core._text import count_noun
from ..core._validation import VeracityError
from ..sources._arrow_numpy import from_numpy, to_numpy
from ._columns import refuse_shared_columns
from ._slice_names import slice_texts
from ._time import to_utc_timestamps

SCHEMA_VERSION = 3  # 2: predictions carry their outcome's label/observed; 3: keys and CHECK constraints
APP = "veracity-monitor"
DEFAULT_TIMEOUT = 60.0
#: longest wait between two tries for a store another writer holds (DuckDB has no blocking lock wait): a
#: try costs ~5 ms of CPU, and each wait is time the store may already stand free (0.5 s before session 22)
_POLL_MAX = 0.1

#: the write-ahead log's size at which a write's commit checkpoints the store (DuckDB's
#: ``checkpoint_threshold``, its default 16 MiB; DuckDB checkpoints at a commit when the log's size plus
#: its estimate of the transaction's passes it). A write connection does not checkpoint when it closes
#: (DuckDB's default does): a checkpoint rewrites a metadata block of the file in place
#: (``MetadataManager::Flush``), and a ``kill -9`` landing inside that write leaves a block whose checksum
#: fails, so the file no longer opens (seen once in CI). A commit appends to the log, whose torn tail
#: DuckDB's replay drops. So one small ingest (200 rows: ~9 KB of log, estimated at over 1 MiB) in about
#: 100 checkpoints, not every one; each open replays the log (~0.2 s per MiB of it), hence 2 MiB, not 16.
#: An ingest estimated past the threshold (~10⁵ rows) still checkpoints as it commits.
_CHECKPOINT_BYTES = 2 << 20
#: absolute path -> the file's state (:meth:`MonitorStore._file_state`) as a checked write (or a full check)
#: of this process left it: while unchanged, an open skips the checks and a write the read-only pre-check
_LEFT_AS: dict[str, tuple[Any, ...]] = {}


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


class StoreBusy(VeracityError):
    """The store is held by another process or thread past the wait (``timeout``): a temporary state, not
    bad input — retry later. The command line exits 75 (``EX_TEMPFAIL``) on it, not 2, so a cron job can
    tell a store in use from a mistake."""


class _Held:
    """The connection a ``with store:`` block keeps (:meth:`MonitorStore.__enter__`): the DuckDB
    connection itself for every use, but ``close()`` leaves it open (the block closes it)."""

    __slots__ = ("_con",)

    def __init__(self, con: Any) -> None:
        self._con = con

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)

    def close(self) -> None:
        """Nothing: the block's end closes the connection."""


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
    #: stored rows that gained a value they lacked (a slice or model first sent now; an outcome: the
    #: audit-sample mark, its label sent again with ``audit_sample=True``)
    filled: int = 0
    #: why nothing was read (an empty file or frame is a no-op, not an error)
    note: str | None = None
    #: predictions of this batch whose outcome was observed more than a day before the prediction's time
    #: (a prediction time or an observed time that is wrong; kept, and warned about)
    observed_before: int = 0
    #: rows of the batch that repeat another row of the same batch (same id and values; an outcome's
    #: observed time may differ, the earliest is kept): stored
    #: once, so ``rows`` = distinct ids + ``repeated`` (new + already stored + replaced = the distinct ids)
    repeated: int = 0
    #: unmatched outcome ids that equal a logged prediction id in another form (``3.0`` sent, ``3`` logged;
    #: ``007`` / ``7``; surrounding spaces): ``(how many, an example sent, the id logged)``; ids are
    #: exact text
    other_form: tuple[int, str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __str__(self) -> str:
        what = "predictions" if self.kind == "predictions" else "outcomes"
        if self.note:
            return f"{self.source}: {self.note}; nothing stored (no-op)"
        parts = [f"{self.source}: {count_noun(self.rows, what[:-1])} read; {self.inserted} new"]
        parts.append(f"{self.duplicates} already stored (no-op)")
        if self.replaced:
            parts.append(f"{self.replaced} replaced")
        if self.filled:
            gained = ("slice/model values " + ("it" if self.filled == 1 else "they") + " lacked"
                      if self.kind == "predictions" else "the audit-sample mark")
            parts.append(f"{count_noun(self.filled, 'stored row')} gained {gained}")
        if self.repeated:
            same = ("same id and values; counted once" if self.kind == "predictions"
                    else "same id and label; counted once, observed at the earliest time sent")
            parts.append(f"{self.repeated} repeated within the file ({same})")
        text = ", ".join(parts)
        if self.batch is not None:
            text += f" (batch {self.batch})"
        else:
            text += " (nothing to commit)"
        if self.seen_before is not None:
            text += f"\n(this file's content was ingested before, as batch {self.seen_before})"
        if self.unmatched:
            one = self.unmatched == 1
            text += (f"\n({count_noun(self.unmatched, 'outcome')} {'has' if one else 'have'} no logged prediction "
                     f"yet; kept, {'it counts' if one else 'they count'} once the prediction is logged)")
        if self.other_form:
            k, sent, logged = self.other_form
            them = "them" if self.unmatched <= _FORMS_CHECKED else f"the first {_FORMS_CHECKED:,} checked"
            text += (f"\n({k} of {them} match a logged id in another form, e.g. {sent!r} sent, {logged!r} "
                     "logged: ids are compared as exact text, so these outcomes will not join them; re-send "
                     "them with the ids as logged)")
        if self.observed_before:
            was = "was" if self.observed_before == 1 else "were"
            text += (f"\n({count_noun(self.observed_before, 'outcome')} {was} observed more than a day before "
                     "their prediction's time: check the --time columns)")
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
        # the file (and its WAL) as this object last left it after a checked write (or a full check): while
        # they are unchanged, the next open skips the checks (a second DuckDB open before a write, ~40 ms;
        # the catalogue queries, ~7 ms; reading every stored value before a write, which grows with the store)
        self._left_as: tuple[Any, ...] | None = None
        #: a ``with store:`` block: the thread that opened it and how deeply it is nested
        self._hold_thread: int | None = None
        self._hold_depth = 0
        #: the connection the block keeps (opened by its first call) and whether it may write
        self._held: Any = None
        self._held_writes = False

    def __repr__(self) -> str:
        return f"MonitorStore({str(self.path)!r})"

    # -- one connection for a block of calls ------------------------------------------
    def __enter__(self) -> MonitorStore:
        """``with store:`` keeps one connection for every call in the block (``log``, ``outcomes``,
        ``status``, ``counts`` ...), opened by its first call and closed when the block ends.

        A script logging a day of files calls ``log`` and ``outcomes`` once per file: each call opens
        the DuckDB file (~15 ms of CPU, plus replaying the write-ahead log) and closes it. In a block the
        file is opened once (once more if a read opened it and a write follows: reads open it read-only)
        and checked once; each ingest is still one transaction (a batch commits or nothing does), and a
        failed one closes the connection (the next call opens and checks the file again). The file's
        lock is held for the whole block: another process (or another ``MonitorStore`` object of this
        one asking for another access mode) waits for the block to end, up to its ``timeout``. Outside a
        block nothing changes. The block belongs to the thread that opened it (calls from another thread
        open their own connection, as without a block); blocks of one thread nest.

        >>> import tempfile, os
        >>> with MonitorStore(os.path.join(tempfile.mkdtemp(), "m.duckdb")).init() as store:
        ...     store.counts()
        {'predictions': 0, 'outcomes': 0, 'batches': 0}
        """
        me = threading.get_ident()
        if self._hold_depth and self._hold_thread != me:
            raise VeracityError(f"{self!r} is held by a `with` block of another thread; give each thread its "
                                "own MonitorStore")
        self._hold_thread = me
        self._hold_depth += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        self._hold_depth -= 1
        if self._hold_depth == 0:
            self._hold_thread = None
            self._release()

    def _holding(self) -> bool:
        """A ``with`` block of this thread is open."""
        return self._hold_depth > 0 and self._hold_thread == threading.get_ident()

    def _release(self, *, failed: bool = False) -> None:
        """Close the block's connection (a write one remembered as this process left the file, unless
        ``failed``: then the next open checks the file again)."""
        held, writes = self._held, self._held_writes
        self._held, self._held_writes = None, False
        if held is None:
            return
        if writes and not failed:
            self._close_written(held)
        else:
            held.close()

    # -- connection -----------------------------------------------------------------
    def _file_state(self) -> tuple[Any, ...]:
        """Device, inode, size and modification time (ns) of the file and of DuckDB's WAL beside it."""
        state: list[Any] = []
        for p in (self.path, self.path.with_name(self.path.name + ".wal")):
            try:
                st = os.stat(p)
            except OSError:
                state.append(None)
            else:
                state.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
        return tuple(state)

    def _close_written(self, con: Any) -> None:
        """Close a write connection (opened, so checked) and remember the file as it was left, for
        every store object of this process on the same file (the CLI and ``outcomes`` after ``log``
        often open a new one)."""
        if isinstance(con, _Held):  # the block's connection: closed (and remembered) when the block ends
            return
        con.close()
        self._remember()

    def _remember(self) -> None:
        """Remember the file as it is now as checked (every check of :meth:`connect` passed, or this process's
        own checked write left it so)."""
        self._left_as = self._file_state()
        _LEFT_AS[os.path.abspath(self.path)] = self._left_as

    def _as_left(self) -> bool:
        """The file (and its WAL) is exactly as a checked write (or a full check) of this process left it."""
        state = self._file_state()
        return state == self._left_as or state == _LEFT_AS.get(os.path.abspath(self.path))

    def _check_file(self) -> None:
        p = self.path
        if p.is_dir():
            raise VeracityError(f"store {p} is a directory; pass a file path such as monitor.duckdb")
        if p.exists():
            from ..sources._duckdb import is_duckdb_database

            if not is_duckdb_database(p, strict=False):
                raise VeracityError(
                    f"{p} is not a veracity monitoring store (not a DuckDB database file); "
                    "pass the store's path, or a new path to create one"
                )

    def connect(self, *, read_only: bool = False, create: bool = False, _checked: bool = False,
                _precheck: bool = False) -> Any:
        """A DuckDB connection holding the file's lock (waits up to ``timeout`` for another writer).

        Every open checks the store (tables, columns, types, constraints; before a write, every stored
        value is read once) unless the file and its WAL are exactly as this process last left them
        after such a check or a checked write (device, inode, size and modification time, compared
        while the lock is held): a file changed by anyone else is checked again. ``_precheck``: the
        read-only open before a write, which reads every value too and remembers the file as checked.

        In a ``with store:`` block (:meth:`__enter__`) the first open is kept and handed to the later
        calls, its ``close()`` a no-op until the block ends; a write asked of a read-only one reopens
        the file for writing.
        """
        hold = not _precheck and self._holding()
        if hold and self._held is not None:
            if self._held_writes or read_only:
                return _Held(self._held)
            self._release()  # a read-only open, and now a write: reopened for writing, then kept
        writes = not (read_only and self.path.exists())  # as _open opens it: read-only where the file is
        con = self._open(read_only=read_only, create=create, _checked=_checked, _precheck=_precheck)
        if not hold:
            return con
        self._held, self._held_writes = con, writes
        return _Held(con)

    def _open(self, *, read_only: bool, create: bool, _checked: bool, _precheck: bool) -> Any:
        """A new connection (:meth:`connect`, without the block's reuse)."""
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
        elif not read_only and not _checked and not self._as_left():
            # check an existing file read-only before writing to it (a foreign or damaged file stays
            # untouched), unless it is exactly as this object's last checked write left it
            self.connect(read_only=True, _precheck=True).close()
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
                        raise StoreBusy(
                            f"store {self.path} is busy: another process holds it (waited "
                            f"{self.timeout:g} s); retry when it finishes"
                        ) from None
                    time.sleep(delay)
                    delay = min(delay * 1.5, _POLL_MAX)
                    continue
                if "different configuration" in msg.lower():  # another thread of this process holds it
                    if time.monotonic() >= deadline:
                        raise StoreBusy(
                            f"store {self.path} is busy: another thread of this process holds it (waited "
                            f"{self.timeout:g} s); retry when it finishes") from None
                    time.sleep(delay)
                    delay = min(delay * 1.5, _POLL_MAX)
                    continue
                raise VeracityError(_damaged(self.path, exc)) from None
            except duckdb.ConnectionException as exc:
                if "different configuration" in str(exc).lower() and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 1.5, _POLL_MAX)
                    continue
                raise StoreBusy(
                    f"store {self.path} is busy: another thread of this process holds it (waited "
                    f"{self.timeout:g} s); retry when it finishes") from None
            except duckdb.Error as exc:
                raise VeracityError(
                    f"{self.path} could not be opened as a monitoring store: {str(exc).splitlines()[0][:160]}"
                ) from None
        try:
            con.execute("SET TimeZone = 'UTC'")
        except duckdb.Error:  # pragma: no cover - builds without ICU have no TimeZone setting
            pass
        if not (read_only and exists):  # a write: into DuckDB's log, the checkpoint left to its size
            con.execute("PRAGMA disable_checkpoint_on_shutdown")
            con.execute(f"SET checkpoint_threshold = '{_CHECKPOINT_BYTES}B'")
        try:
            if not exists:  # made here, as this version makes it: the checks would read back _create's DDL
                self._create(con)
            # the lock is held: a file as this process left it after a full check cannot have been
            # changed by another writer since, so the checks would read the same catalogue and values
            elif not self._as_left():
                self._check_schema(con)
                if exists and (_precheck or not read_only):
                    self._check_readable(con)
                    if _precheck:  # a read-only open changes nothing: the write that follows may trust it
                        self._remember()
        except BaseException:
            con.close()
            raise
        return con

    def _create(self, con: Any) -> None:
        con.execute("BEGIN TRANSACTION")
        con.execute("CREATE TABLE veracity_meta(key VARCHAR PRIMARY KEY, value VARCHAR)")
        con.execute(_PREDICTIONS_DDL.format(name="predictions", slices=""))
        con.execute(_OUTCOMES_DDL.format(name="outcomes"))
        con.execute(_BATCHES_DDL)
        con.executemany("INSERT INTO veracity_meta VALUES (?, ?)",
                        [["app", APP], ["schema_version", str(SCHEMA_VERSION)], ["slices", ""]])
        con.execute("COMMIT")

    def _check_readable(self, con: Any) -> None:
        """Read every stored value once before a write: a file that lost blocks (cut short, a bad
        copy) fails here, in one line, instead of taking new rows it could never give back."""
        duckdb = require_duckdb()
        slices = [_quote(_slice_column(b)) for b in self.slices(con=con)]
        pred = ", ".join(["sum(length(id))", "sum(epoch_us(ts))", "sum(score)", "sum(length(model))",
                          "sum(batch)", "sum(label)", "sum(epoch_us(observed))",
                          *(f"sum(length({c}))" for c in slices)])
        try:
            con.execute(f"SELECT {pred} FROM predictions").fetchall()
            con.execute("SELECT sum(length(id)), sum(label), sum(epoch_us(observed)), sum(batch) FROM outcomes"
                        ).fetchall()
            con.execute("SELECT sum(batch), sum(length(content_hash)), sum(rows) FROM batches").fetchall()
        except duckdb.Error as exc:
            raise VeracityError(_damaged(self.path, exc) + "; nothing was written") from None

    def _check_schema(self, con: Any) -> None:
        duckdb = require_duckdb()
        try:
            meta = dict(con.execute("SELECT key, value FROM veracity_meta").fetchall())
        except (duckdb.IOException, duckdb.InternalException) as exc:
            raise VeracityError(_damaged(self.path, exc)) from None
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
            _migrate(con, version, self)
        self._check_tables(con, meta)

    def _check_tables(self, con: Any, meta: dict[str, str]) -> None:
        """Tables, columns, types and constraints as this version writes them; else a one-line refusal."""
        duckdb = require_duckdb()
        slices = [s for s in (meta.get("slices") or "").split("\x1f") if s]
        expected = {
            "predictions": {**_PREDICTION_COLUMNS, **{_slice_column(b): "VARCHAR" for b in slices}},
            "outcomes": _OUTCOME_COLUMNS,
            "batches": _BATCH_COLUMNS,
        }
        try:
            found: dict[str, dict[str, str]] = {}
            for table, column, dtype in con.execute(
                    "SELECT table_name, column_name, data_type FROM duckdb_columns() "
                    "WHERE database_name = current_database() AND schema_name = 'main'").fetchall():
                found.setdefault(table, {})[column] = dtype
            constraints = {(t, ctype, tuple(cols)) for t, ctype, cols in con.execute(
                "SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints() "
                "WHERE database_name = current_database() AND schema_name = 'main'").fetchall()}
        except duckdb.Error as exc:
            raise VeracityError(_damaged(self.path, exc)) from None
        for table, columns in expected.items():
            have = found.get(table)
            if have is None:
                raise VeracityError(
                    f"{self.path} has no {table!r} table: the store was modified outside veracity or is "
                    "damaged; restore it from a backup or start a new store")
            for column, dtype in columns.items():
                if have.get(column) != dtype:
                    what = "is missing" if column not in have else f"is {have[column]}, not {dtype}"
                    raise VeracityError(
                        f"{self.path}: column {column!r} of table {table!r} {what}: the store was modified "
                        "outside veracity; restore it from a backup or start a new store")
        for table, ctype, cols in _CONSTRAINTS:
            if (table, ctype, cols) not in constraints:
                raise VeracityError(
                    f"{self.path}: table {table!r} lost its {ctype} constraint on {', '.join(cols)} (the store "
                    "was modified outside veracity, so its rows cannot be trusted); restore it from a backup "
                    "or start a new store")

    _migrate_ok = False

    def init(self) -> MonitorStore:
        """Create the store if missing, or migrate an older schema; returns ``self``."""
        if self.path.exists():
            self._check_file()
            self._migrate_ok = True
            try:
                self._close_written(self.connect(create=True, _checked=True))
            finally:
                self._migrate_ok = False
        else:
            self._close_written(self.connect(create=True))
        return self

    @positional_options("con")
    def slices(self, *, con: Any | None = None) -> list[str]:
        """The slice columns logged so far (``by=`` of :meth:`log`), in the order first logged.

        ``con`` (keyword-only; positional still works, with a deprecation warning) reuses an open
        connection from :meth:`connect`.
        """
        own = con is None
        con = con or self.connect(read_only=True)
        try:
            value = con.execute("SELECT value FROM veracity_meta WHERE key = 'slices'").fetchall()[0][0]
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
            model: str | None = None, replace: bool = False, source: str | None = None) -> IngestResult:
        """Store predictions from ``data`` (a CSV/Parquet path, or a pandas/polars/pyarrow frame).

        ``model`` names the model version; ``by`` names slice columns. A row whose id is
        stored already is a no-op when its time and score agree (a slice or model value the
        stored row lacks is filled in); otherwise it is a conflict, refused unless
        ``replace=True``, which overwrites time, score, model and slices. ``source`` is the
        name the batch records and prints (default: the path, or ``<DataFrame>`` for a frame).
        """
        by_cols = [by] if isinstance(by, str) else list(by or [])
        _column_names(id=id, time=time, score=score, by=by_cols)
        refuse_shared_columns([("id=", "prediction id", id), ("time=", "prediction time", time),
                               ("score=", "score", score), ("by=", "slice", by_cols)])
        if model is not None and not isinstance(model, str):
            raise VeracityError(f"model= must be a string naming the model version, got {model!r}")
        table, shown, digest, empty = _read(data, [id, time, score, *by_cols], text=[id])
        source = _source_name(source, shown)
        if table is None:
            return IngestResult("predictions", source, None, 0, 0, 0, 0, note=empty)
        ids = _id_column(table, id, source)
        ts = to_utc_timestamps(_col(table, time, source), time)
        scores = _score_column(table, score, source)
        import pyarrow as pa

        cols = {"id": ids, "ts": ts, "score": scores,
                "model": _repeated_text(model, table.num_rows)}
        for b in by_cols:
            # named as vc.audit names the values (slice_texts)
            cols[_slice_column(b)] = _slice_values(slice_texts(_col(table, b, source), b, source), b, source)
        stage = pa.table(cols)
        return self._ingest("predictions", stage, source, digest, replace, by_cols)

    def outcomes(self, data: Any, *, id: str, label: str, time: str | None = None,
                 replace: bool = False, audit_sample: bool = False, source: str | None = None,
                 pos_label: Any = None) -> IngestResult:
        """Store outcomes (labels 0/1) joined to predictions by id; ``time`` = when observed (default: now).

        ``pos_label`` names the positive outcome of a two-valued label column (``"yes"`` among
        ``"yes"``/``"no"``; a string is read in the column's type, as ``--pos-label``: ``"2"`` on a
        numeric column, ``"true"`` on a boolean one): rows equal to it are stored as 1, the others
        as 0. A batch may hold one value only (a day of negatives); when ``pos_label`` is not
        among its values every row is stored as 0, with a warning (it could be a misspelt
        ``pos_label``). Three or more values are refused.

        ``audit_sample=True`` marks these labels as a **random** audit sample: rows chosen
        at random (not by score, flag or complaint) and labelled on purpose. Status uses them
        for prediction-powered estimates (valid intervals before the other labels mature). The mark
        belongs to the row, not to the feed: the same label sent again without it (the full label
        feed repeating the audited rows) is a no-op, sent again with it marks a stored label, and
        ``replace`` keeps it.
        ``source``: the name the batch records and prints, as for :meth:`log`.
        """
        if not isinstance(audit_sample, bool):
            raise VeracityError(f"audit_sample must be True or False, got {audit_sample!r}", param="audit_sample")
        from ..core._validation import check_pos_label

        pos_label = check_pos_label(pos_label)  # one value: a list or an array is refused as on every route
        _column_names(id=id, label=label, time=[] if time is None else time)
        refuse_shared_columns([("id=", "prediction id", id), ("label=", "label", label),
                               ("time=", "time the outcome was observed", time)])
        import pyarrow as pa

        table, shown, digest, empty = _read(data, [id, label, *([time] if time is not None else [])], text=[id])
        source = _source_name(source, shown)
        if table is None:
            return IngestResult("outcomes", source, None, 0, 0, 0, 0, note=empty)
        ids = _id_column(table, id, source)
        labels = _label_column(table, label, source, pos_label)
        if time is not None:
            observed = to_utc_timestamps(_col(table, time, source), time)
        else:
            now = np.datetime64(_utcnow(), "us")
            observed = from_numpy(np.full(table.num_rows, now).view(np.int64)).view(pa.timestamp("us"))
        stage = pa.table({"id": ids, "label": labels, "observed": observed,
                          "audit": from_numpy(np.full(table.num_rows, audit_sample, dtype=bool))})
        return self._ingest("outcomes", stage, source, digest, replace, [], check_observed=time is not None)

    def _ingest(self, kind: str, stage: Any, source: str, digest: str, replace: bool,
                by_cols: list[str], check_observed: bool = False) -> IngestResult:
        duckdb = require_duckdb()
        con = self.connect(create=True)
        failed = True
        try:
            con.register("incoming", stage)
            con.execute("BEGIN TRANSACTION")
            try:
                result = _ingest_sql(con, kind, source, digest, replace, by_cols, self, check_observed,
                                     rows=stage.num_rows)
                con.execute("COMMIT")
            except BaseException:
                try:
                    con.execute("ROLLBACK")
                except duckdb.Error:  # pragma: no cover
                    pass
                raise
            if result.observed_before:  # said once the batch is stored (a warning made an error rolls nothing back)
                import warnings

                was = "was" if result.observed_before == 1 else "were"
                warnings.warn(f"{source}: {count_noun(result.observed_before, 'outcome')} {was} observed more than a "
                              "day before their prediction's time (kept; one of the two times is wrong: check the time columns of "
                              "the predictions and of the outcomes)", stacklevel=3)
            if result.other_form:  # outcomes that will never join: a silent gap in every window's labels
                import warnings

                k, sent, logged = result.other_form
                some = f"{k}" if result.unmatched <= _FORMS_CHECKED else f"at least {k}"
                warnings.warn(f"{source}: {some} outcome ids match a logged prediction id only in "
                              f"another form (e.g. {sent!r} sent, {logged!r} logged); ids are compared as "
                              "exact text, so they will not join them: re-send them with the ids as logged",
                              stacklevel=3)
            failed = False
            return result
        except VeracityError:  # refused (a conflict, a bad slice): rolled back, the connection as it was
            failed = False
            raise
        except duckdb.Error as exc:
            raise VeracityError(f"ingest into {self.path} failed and was rolled back: "
                                f"{str(exc).splitlines()[0][:200]}") from None
        finally:
            if isinstance(con, _Held):  # a block's connection: kept unless the ingest failed
                if failed:
                    self._release(failed=True)
                else:
                    con.unregister("incoming")
            else:
                self._close_written(con)

    # -- reading ----------------------------------------------------------------------
    def status(self, *, freq: str | None = "W", window: str | None = None, as_of: Any = None,
               horizon: str | float | None = None, by: str | None = None, bins: int = 15, level: float = 0.95,
               alert_level: float = 0.99, min_count: int = 100, reference: str | None = None,
               threshold: float = 0.5, cost_fp: float = 1.0, cost_fn: float = 1.0, model: str | None = None,
               max_slices: int = 20, alerts: str = "window", tolerance: float = 0.0,
               segments: bool = False, max_periods: int = 1000, since: Any = None,
               last: int | None = None) -> Any:
        """Calibration per period (``freq`` D/W/M/Q, or a rolling ``window`` like ``7d``) and slice ``by``.

        ``horizon``: labels become final this long after the prediction (pending rows are never
        counted as negatives); ``model``: only predictions logged with that model; ``max_slices``:
        the slices with most rows keep their name, the rest are pooled into ``(other)``;
        ``alerts``: ``"window"`` (a fixed-sample test per window) or ``"sequential"``
        (anytime-valid confidence sequences on mean(y - p): the false-alarm level holds however
        often you look; ``tolerance`` is a gap small enough to count as calibrated). Every row
        carries ``estimate_ppi`` (from random audit labels, see :meth:`outcomes`),
        ``estimate_cbpe``, ``provisional`` and ``sequence_low``/``sequence_high``; with
        ``segments=True`` the ``(all)`` rows carry the window's discovered miscalibrated segments
        over the logged slice columns (:func:`veracity.segments`). More than ``max_periods`` periods
        between the earliest and the latest prediction (a mistyped year) is refused in one line naming
        them. ``since`` (a date/time, or a period key as printed: ``2026-W10``, ``2026-03``, ``2026Q1``) or
        ``last=N`` (the N periods up to the one holding ``as_of``) list only the later periods, and so count
        only their alerts (a daily job's "what is new"); the reference and every listed number stay those
        of the full listing. See :func:`veracity.monitoring.store_status`.
        """
        from ._status import store_status

        return store_status(self, freq=freq, window=window, as_of=as_of, horizon=horizon, by=by, bins=bins,
                            level=level, alert_level=alert_level, min_count=min_count, reference=reference,
                            threshold=threshold, cost_fp=cost_fp, cost_fn=cost_fn, model=model,
                            max_slices=max_slices, alerts=alerts, tolerance=tolerance, segments=segments,
                            max_periods=max_periods, since=since, last=last)

    def plan(self, *, width: float, level: float = 0.95, freq: str | None = "W", window: str | None = None,
             as_of: Any = None, horizon: str | float | None = None, by: str | None = None,
             model: str | None = None) -> Any:
        """Labels to draw at random per window for a PPI interval of ``width`` (a label budget planner)."""
        from ._status import store_plan

        return store_plan(self, width=width, level=level, freq=freq, window=window, as_of=as_of, horizon=horizon,
                          by=by, model=model)

    def recalibrate(self, *, method: str = "platt", freq: str | None = "W", window: str | None = None,
                    as_of: Any = None, horizon: str | float | None = None, fit: str | None = None,
                    by: str | None = None, slice: str | None = None, min_count: int = 100, bins: int = 15,
                    model: str | None = None, max_periods: int = 1000) -> Any:
        """Fit ``method`` on a mature labelled window, ledger on the next; see :func:`recalibrate_store`."""
        from ._recalibrate import recalibrate_store

        return recalibrate_store(self, method=method, freq=freq, window=window, as_of=as_of, horizon=horizon,
                                 fit=fit, by=by, slice=slice, min_count=min_count, bins=bins, model=model,
                                 max_periods=max_periods)


_PREDICTION_COLUMNS = {"id": "VARCHAR", "ts": "TIMESTAMP", "score": "DOUBLE", "model": "VARCHAR",
                       "batch": "INTEGER", "label": "TINYINT", "observed": "TIMESTAMP", "audit": "BOOLEAN"}
_OUTCOME_COLUMNS = {"id": "VARCHAR", "label": "TINYINT", "observed": "TIMESTAMP", "batch": "INTEGER",
                    "audit": "BOOLEAN"}
_BATCH_COLUMNS = {"batch": "INTEGER", "kind": "VARCHAR", "source": "VARCHAR", "content_hash": "VARCHAR",
                  "rows": "BIGINT", "inserted": "BIGINT", "duplicates": "BIGINT", "conflicts": "BIGINT",
                  "replaced": "BIGINT", "ingested_at": "TIMESTAMP"}
_PREDICTIONS_DDL = (
    "CREATE TABLE {name}(id VARCHAR PRIMARY KEY, ts TIMESTAMP NOT NULL, "
    "score DOUBLE NOT NULL CHECK (score >= 0 AND score <= 1), model VARCHAR, batch INTEGER NOT NULL, "
    "label TINYINT CHECK (label IN (0, 1)), observed TIMESTAMP, audit BOOLEAN{slices})")
_OUTCOMES_DDL = ("CREATE TABLE {name}(id VARCHAR PRIMARY KEY, label TINYINT NOT NULL CHECK (label IN (0, 1)), "
                 "observed TIMESTAMP NOT NULL, batch INTEGER NOT NULL, audit BOOLEAN NOT NULL)")
_BATCHES_DDL = ("CREATE TABLE batches(batch INTEGER PRIMARY KEY, kind VARCHAR, source VARCHAR, "
                "content_hash VARCHAR, rows BIGINT, inserted BIGINT, duplicates BIGINT, "
                "conflicts BIGINT, replaced BIGINT, ingested_at TIMESTAMP)")
#: (table, constraint type, columns) that every open checks are still there
_CONSTRAINTS = (
    ("predictions", "PRIMARY KEY", ("id",)), ("predictions", "NOT NULL", ("ts",)),
    ("predictions", "NOT NULL", ("score",)), ("predictions", "CHECK", ("score", "score")),
    ("predictions", "CHECK", ("label",)), ("predictions", "NOT NULL", ("batch",)),
    ("outcomes", "PRIMARY KEY", ("id",)), ("outcomes", "CHECK", ("label",)),
    ("outcomes", "NOT NULL", ("observed",)), ("batches", "PRIMARY KEY", ("batch",)),
)


def _damaged(path: Path, exc: BaseException) -> str:
    return (f"{path} is not a readable monitoring store (truncated or damaged: "
            f"{str(exc).splitlines()[0][:160]}); restore it from a backup or start a new store")


def _migrate(con: Any, version: int, store: MonitorStore) -> None:
    """Bring an older store to :data:`SCHEMA_VERSION` in one transaction (refused if its rows break the rules)."""
    con.execute("BEGIN TRANSACTION")
    if version < 2:
        con.execute("ALTER TABLE predictions ADD COLUMN label TINYINT")
        con.execute("ALTER TABLE predictions ADD COLUMN observed TIMESTAMP")
        con.execute("UPDATE predictions AS p SET label = o.label, observed = o.observed FROM outcomes o "
                    "WHERE p.id = o.id")
    if version < 3:  # the same rows in tables with keys and CHECK constraints
        bad = con.execute(
            "SELECT (SELECT count(*) - count(DISTINCT id) FROM predictions), "
            "(SELECT count(*) FILTER (WHERE NOT (score >= 0 AND score <= 1) OR score IS NULL OR isnan(score) "
            "OR (label IS NOT NULL AND label NOT IN (0, 1))) FROM predictions), "
            "(SELECT count(*) - count(DISTINCT id) FROM outcomes), "
            "(SELECT count(*) FILTER (WHERE label NOT IN (0, 1)) FROM outcomes)").fetchone()
        if any(bad):
            con.execute("ROLLBACK")
            raise VeracityError(
                f"{store.path} cannot be migrated: {bad[0]} duplicated prediction ids, {bad[1]} predictions with "
                f"a score outside [0, 1] or a label not 0/1, {bad[2]} duplicated outcome ids, {bad[3]} outcomes "
                "not 0/1 (edited by hand?); fix those rows or start a new store")
        slices = [r[0] for r in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'predictions' "
            "AND column_name LIKE 's\\_%' ESCAPE '\\' ORDER BY column_index").fetchall()]
        extra = "".join(f", {quote_identifier(c)} VARCHAR" for c in slices)
        old = [c for c in _PREDICTION_COLUMNS if c != "audit"]
        cols = ", ".join(quote_identifier(c) for c in [*old, *slices])
        con.execute(_PREDICTIONS_DDL.format(name="predictions_v3", slices=extra))
        con.execute(f"INSERT INTO predictions_v3 ({cols}, audit) SELECT {cols}, "
                    "CASE WHEN label IS NULL THEN NULL ELSE FALSE END FROM predictions")
        con.execute(_OUTCOMES_DDL.format(name="outcomes_v3"))
        con.execute("INSERT INTO outcomes_v3 SELECT id, label, observed, batch, FALSE FROM outcomes")
        con.execute("DROP TABLE predictions")
        con.execute("DROP TABLE outcomes")
        con.execute("ALTER TABLE predictions_v3 RENAME TO predictions")
        con.execute("ALTER TABLE outcomes_v3 RENAME TO outcomes")
    con.execute("UPDATE veracity_meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)])
    con.execute("COMMIT")


def _utcnow() -> Any:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).replace(tzinfo=None)


def _ingest_sql(con: Any, kind: str, source: str, digest: str, replace: bool, by_cols: list[str],
                store: MonitorStore, check_observed: bool = False, *, rows: int) -> IngestResult:
    """Store the rows of the registered table ``incoming`` (``rows`` of them) in ``kind``, inside the caller's
    transaction. Each statement on the fresh connection of an ingest costs 1-4 ms: the store's slices, the
    batch's ids sent twice with different values, its batch number, whether its content was seen, and its
    unmatched outcomes (or, for predictions, whether any has an outcome already) are read in one query; the
    counts in another; the old slice names (:func:`_renamed_slices`) are looked for only when a row conflicts,
    and a prediction batch copies outcomes onto its rows only when one of its ids has an outcome."""
    if kind == "predictions":
        folded = [_fold_case(b) for b in by_cols]
        if len(set(folded)) < len(folded):  # refused before the batch is staged (DuckDB's names ignore case)
            _check_slice_names(by_cols, store.slices(con=con))
        value_cols = ["ts", "score"]
        extra = ["model"] + [_slice_column(b) for b in by_cols]
        #: sent values that must agree with a stored one when both are there (else a conflict)
        meta = extra
        what = "score, time, model or slice"
    else:
        # the audit-sample mark is no value to conflict on: it says the row was drawn at random, whichever
        # feed brought its label, so the same label sent with or without it agrees, and a mark once set stays
        # (the full label feed repeating the audit labels dropped their mark under --replace: the audit sample
        # left was the late labels, and its PPI rate 0.0 [0, 0.005] for a rate of 0.2)
        value_cols = ["label"]
        extra = ["observed", "audit"]
        meta = []
        what = "label"
    cols = ["id"] + value_cols + extra
    # an id sent twice in one batch with different values (a slice too: one would be kept at random) is
    # a conflict within the batch; as against a stored row, a missing slice value agrees with any
    differs = " OR ".join(f"min({_quote(c)}) IS DISTINCT FROM max({_quote(c)})" for c in value_cols + meta)
    # an outcome sent twice with one label but two observed times is one outcome, known since the earlier
    # (any_value kept whichever row a thread met first: the label counted at an as-of between them or not)
    sel = ", ".join(f"{'min' if c == 'observed' else 'any_value'}({_quote(c)}) AS {_quote(c)}"
                    for c in cols[1:])
    con.execute(f"CREATE OR REPLACE TEMP TABLE stage AS SELECT id, {sel}, ({differs}) AS _differs "
                "FROM incoming GROUP BY id")
    # outcomes: the batch's ids without a logged prediction (an outcome ingest changes no prediction id);
    # predictions: the batch's ids with a stored outcome (none: no outcome to copy onto its rows)
    joined = ("NOT EXISTS (SELECT 1 FROM predictions p" if kind == "outcomes"
              else "EXISTS (SELECT 1 FROM outcomes p")
    stored_slices, bad, seen, batch, linked = con.execute(
        "SELECT (SELECT list(value) FROM veracity_meta WHERE key = 'slices'), "
        "(SELECT min(id) FROM stage WHERE _differs), "
        "(SELECT min(batch) FILTER (WHERE content_hash = ? AND kind = ?) FROM batches), "
        "(SELECT coalesce(max(batch), 0) + 1 FROM batches), "
        f"(SELECT count(*) FROM stage s WHERE {joined} WHERE p.id = s.id))", [digest, kind]).fetchone()
    if kind == "predictions":
        known = ([s for s in (stored_slices[0] or "").split("\x1f") if s] if stored_slices
                 else store.slices(con=con))
        _check_slice_names(by_cols, known)
    if bad is not None:
        raise VeracityError(
            f"{source}: id {bad!r} appears more than once with a different {what}; "
            "each id must be one prediction (fix the file)")
    if kind == "predictions":
        new = [b for b in by_cols if b not in known]
        for b in new:
            con.execute(f"ALTER TABLE predictions ADD COLUMN {_quote(_slice_column(b))} VARCHAR")
        if new:
            con.execute("UPDATE veracity_meta SET value = ? WHERE key = 'slices'",
                        ["\x1f".join(known + new)])
    # stored rows that agree but lack a sent slice/model value (e.g. re-logged with a new --by)
    fill = (" OR ".join(f"(t.{_quote(c)} IS NULL AND s.{_quote(c)} IS NOT NULL)" for c in meta)
            if kind == "predictions" else "(s.audit AND NOT t.audit)")  # an outcome gains the audit mark

    def agreement(renamed: set[str]) -> tuple[str, int, int, int, int]:
        """(the SQL of "a sent row agrees with the stored one", distinct ids sent, duplicates, conflicts,
        filled)"""
        agree = [f"s.{c} = t.{c}" for c in value_cols] + [
            f"(s.{_quote(c)} IS NULL OR t.{_quote(c)} IS NULL OR s.{_quote(c)} = t.{_quote(c)}"
            + (f" OR EXISTS (SELECT 1 FROM renamed_slices r WHERE r.col = {i} AND r.sent = s.{_quote(c)} "
               f"AND r.stored = t.{_quote(c)})" if c in renamed else "") + ")" for i, c in enumerate(meta)]
        same = " AND ".join(agree)
        counts = con.execute(
            f"SELECT (SELECT count(*) FROM stage), count(*) FILTER (WHERE {same}), "
            f"count(*) FILTER (WHERE NOT ({same})), count(*) FILTER (WHERE ({same}) AND ({fill})) "
            f"FROM stage s JOIN {kind} t USING (id)").fetchone()
        return same, int(counts[0]), int(counts[1]), int(counts[2]), int(counts[3])

    same, unique, duplicates, conflicts, filled = agreement(set())
    # a slice value stored by an earlier veracity under its old name (a zoned time in its column's zone, bytes
    # as their UTF-8 text) agrees with the same key's name now: re-sending a batch stays a no-op. --replace
    # compares the names exactly, so it rewrites such rows with the names of today. Such a name only turns a
    # conflict into an agreement: without a conflict there is nothing to look for
    renamed = set() if replace or kind != "predictions" or not conflicts else _renamed_slices(con, meta)
    if renamed:
        same, unique, duplicates, conflicts, filled = agreement(renamed)
    value_cols_shown = value_cols + meta
    if conflicts and not replace:
        example = con.execute(
            f"SELECT s.id, {', '.join(f's.{_quote(c)}, t.{_quote(c)}' for c in value_cols_shown)} FROM stage s "
            f"JOIN {kind} t USING (id) WHERE NOT ({same}) ORDER BY s.id LIMIT 1").fetchone()
        pairs = ", ".join(f"{_shown_column(c)} {example[2 + 2 * i]} stored vs {example[1 + 2 * i]} sent"
                          for i, c in enumerate(value_cols_shown)
                          if example[1 + 2 * i] is not None and example[2 + 2 * i] is not None
                          and example[2 + 2 * i] != example[1 + 2 * i]
                          and not (c in renamed and _old_slice_name(example[1 + 2 * i], example[2 + 2 * i])))
        raise VeracityError(
            f"{source}: {conflicts} rows conflict with stored {kind} (same id, different {what}; "
            f"e.g. id {example[0]!r}: {pairs}); nothing was stored — fix the file, or pass --replace "
            "to overwrite them")
    batch = int(batch)
    inserted = unique - duplicates - conflicts
    if inserted == 0 and conflicts == 0 and filled == 0:
        return IngestResult(kind, source, None, rows, 0, duplicates, 0, 0, seen, repeated=rows - unique)
    if filled:
        sets = (", ".join(f"{_quote(c)} = coalesce(t.{_quote(c)}, s.{_quote(c)})" for c in meta)
                if kind == "predictions" else "audit = TRUE")
        con.execute(f"UPDATE {kind} AS t SET {sets} FROM stage s WHERE t.id = s.id AND ({same}) AND ({fill})")
    target_cols = ", ".join(_quote(c) for c in cols)
    if conflicts:  # --replace: overwrite the values (and the model/slices sent), keep the rest of the row
        sets = ", ".join([f"{c} = s.{c}" for c in value_cols + (["observed"] if kind == "outcomes" else [])]
                         + [f"{_quote(c)} = coalesce(s.{_quote(c)}, t.{_quote(c)})" for c in meta]
                         + (["audit = t.audit OR s.audit"] if kind == "outcomes" else []))
        con.execute(f"UPDATE {kind} AS t SET {sets}, batch = ? FROM stage s WHERE t.id = s.id AND NOT ({same})",
                    [batch])
    con.execute(
        f"INSERT INTO {kind} ({target_cols}, batch) SELECT {', '.join('s.' + _quote(c) for c in cols)}, ? "
        f"FROM stage s WHERE NOT EXISTS (SELECT 1 FROM {kind} t WHERE t.id = s.id)", [batch])
    con.execute("INSERT INTO batches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [batch, kind, source, digest, rows, inserted, duplicates, conflicts, conflicts, _utcnow()])
    # keep each prediction's copy of its outcome equal to the outcomes table (same transaction)
    if kind == "outcomes":
        marked = " OR o.id IN (SELECT id FROM stage)" if filled else ""  # stored labels that gained the mark
        con.execute("UPDATE predictions AS p SET label = o.label, observed = o.observed, audit = o.audit FROM outcomes o "
                    f"WHERE p.id = o.id AND (o.batch = ?{marked})", [batch])
    elif linked:  # the batch's rows (new or replaced) whose outcome came first
        con.execute("UPDATE predictions AS p SET label = o.label, observed = o.observed, audit = o.audit FROM outcomes o "
                    "WHERE p.id = o.id AND p.batch = ?", [batch])
    unmatched = 0
    other_form = None
    if kind == "outcomes":
        unmatched = int(linked)
        if unmatched:
            other_form = _other_form_ids(con)
    # an outcome observed before its prediction was made: one of the two times is wrong (a day of slack
    # for clocks and dates without a time)
    early = 0
    if kind == "outcomes" and check_observed:  # observed times the sender gave (not "now", the default)
        early = int(con.execute(
            "SELECT count(*) FROM predictions p JOIN stage s USING (id) "
            "WHERE p.observed < p.ts - INTERVAL 1 DAY").fetchone()[0])
    elif kind == "predictions" and linked:  # new or replaced predictions whose outcome came first
        early = int(con.execute(
            "SELECT count(*) FROM predictions p WHERE p.batch = ? AND p.observed < p.ts - INTERVAL 1 DAY",
            [batch]).fetchone()[0])
    return IngestResult(kind, source, batch, rows, inserted, duplicates, conflicts, unmatched, seen, filled,
                        observed_before=early, repeated=rows - unique, other_form=other_form)


#: unmatched outcome ids looked up in their other forms (:func:`_other_form_ids`), at most
_FORMS_CHECKED = 10_000


def _other_form_ids(con: Any) -> tuple[int, str, str] | None:
    """Unmatched outcome ids of ``stage`` (the first 10,000) that equal a logged prediction id in another
    form: spaces around it, a float's ``.0`` (``3.0`` for ``3``, or the other way round), leading zeros
    (``007`` for ``7``, or ``7`` sent for ``007`` logged). ``(how many, an example sent, the id logged)``,
    None when there is none. Each unmatched id is looked up in its few other forms (one join on the text
    key), and its canonical form (trimmed, no ``.0``, no leading zeros) against that of the logged ids
    that have another form (those starting with a zero or a space, ending with a space, or holding
    ``.0``: a filtered scan of the ids); run only when an outcome is unmatched."""
    canon = "regexp_replace(regexp_replace(trim({0}), '\\.0+$', ''), '^0+([0-9])', '\\1')"
    got = con.execute(
        "WITH u AS (SELECT id FROM stage s WHERE NOT EXISTS (SELECT 1 FROM predictions p WHERE p.id = s.id) "
        f"ORDER BY id LIMIT {_FORMS_CHECKED}), "
        "c AS (SELECT id, unnest([trim(id), id || '.0', regexp_replace(trim(id), '\\.0+$', ''), "
        "regexp_replace(trim(id), '^0+([0-9])', '\\1'), "
        f"{canon.format('id')}]) AS form FROM u), "
        "hit AS (SELECT c.id AS sent, p.id AS logged FROM c JOIN predictions p ON p.id = c.form "
        "WHERE c.form <> c.id), "
        f"l AS (SELECT id AS logged, {canon.format('id')} AS form FROM predictions "
        "WHERE id LIKE '0%' OR id LIKE ' %' OR id LIKE '% ' OR id LIKE '%.0%'), "
        f"hit2 AS (SELECT u.id AS sent, l.logged FROM u JOIN l ON l.form = {canon.format('u.id')} "
        "WHERE l.form <> l.logged), "
        "both_ AS (SELECT * FROM hit UNION ALL SELECT * FROM hit2) "
        "SELECT count(DISTINCT sent), min(sent), arg_min(logged, sent) FROM both_").fetchone()
    return None if not got or not got[0] else (int(got[0]), str(got[1]), str(got[2]))


#: a time as ``str`` writes a zoned ``datetime`` / ``Timestamp``: the time, its fraction, its UTC offset
_ZONED_NAME = r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(\.\d+)?([+-]\d\d:\d\d(?::\d\d)?)"


def _renamed_slices(con: Any, columns: list[str]) -> set[str]:
    """The slice columns (``s_<name>``) among ``columns`` whose stored rows hold a value under the name an
    earlier veracity gave the key of the batch in ``stage`` (:func:`_old_slice_name`), those (sent,
    stored) pairs in the temporary table ``renamed_slices(col, sent, stored)``, ``col`` the column's
    position in ``columns``. One comparison per distinct pair of names, and only of names the old and
    the new rule can spell differently (a time ending ``+00:00``, a bytes literal)."""
    con.execute("CREATE OR REPLACE TEMP TABLE renamed_slices (col INTEGER, sent VARCHAR, stored VARCHAR)")
    found = set()
    for i, c in enumerate(columns):
        if not c.startswith("s_"):
            continue
        q = _quote(c)
        pairs = con.execute(
            f"SELECT DISTINCT s.{q}, t.{q} FROM stage s JOIN predictions t USING (id) WHERE s.{q} <> t.{q} "
            f"AND (s.{q} LIKE '%+00:00' OR s.{q} LIKE 'b''%' OR s.{q} LIKE 'b\"%' "
            f"OR regexp_full_match(s.{q}, '-?[0-9][0-9.e+-]*'))").fetchall()
        same = [[i, a, b] for a, b in pairs if _old_slice_name(a, b)]
        if same:
            con.executemany("INSERT INTO renamed_slices VALUES (?, ?, ?)", same)
            found.add(c)
    return found


def _old_slice_name(sent: str, stored: str) -> bool:
    r"""True when ``stored`` is the name a veracity before the one name of a slice
    (:func:`veracity.core._keys.key_name`) gave the key named ``sent`` now: a zoned time in its
    column's zone (``2026-01-01 10:00:00+01:00``; now its UTC instant ``2026-01-01 09:00:00+00:00``),
    the same instant to the nanosecond; bytes as their UTF-8 text (``ab``; now Python's literal
    ``b'ab'``); a float32 (or float16) key as its double's digits (``0.10000000149011612``; now the
    float32's own, ``0.1``, as vc.audit names it). Any other pair of different names is two keys.

    >>> _old_slice_name("2026-01-01 09:00:00+00:00", "2026-01-01 10:00:00+01:00")
    True
    >>> _old_slice_name("2026-01-01 09:00:00+00:00", "2026-01-01 09:00:00+01:00")
    False
    >>> _old_slice_name("b'\\xc3\\xa9'", "é"), _old_slice_name("b'ab'", "b")
    (True, False)
    >>> _old_slice_name("0.1", "0.10000000149011612"), _old_slice_name("0.1", "0.1000000000000001")
    (True, False)
    """
    import ast
    import re
    from datetime import datetime

    if _old_float_name(sent, stored):
        return True

    if sent[:2] in ("b'", 'b"'):
        try:
            value = ast.literal_eval(sent)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return False
        if not isinstance(value, bytes) or str(value) != sent:  # only a name key_name writes
            return False
        try:
            return value.decode("utf-8") == stored
        except UnicodeDecodeError:  # an earlier veracity refused bytes that are no UTF-8
            return False
    new, old = re.fullmatch(_ZONED_NAME, sent), re.fullmatch(_ZONED_NAME, stored)
    if new is None or old is None or new[3] != "+00:00" or (new[2] or "") != (old[2] or ""):
        return False  # whole-second offsets: the fraction of a second (to the nanosecond) is the same
    try:
        return datetime.fromisoformat(new[1] + new[3]) == datetime.fromisoformat(old[1] + old[3])
    except ValueError:
        return False


def _old_float_name(sent: str, stored: str) -> bool:
    """``stored`` is the name an earlier veracity gave the float32 (or float16) key named ``sent`` now: the
    digits of the double it widens to (``0.10000000149011612`` for ``0.1``)."""
    if sent == stored:
        return False
    for width in (np.float32, np.float16):
        try:
            with np.errstate(over="ignore", under="ignore"):  # past the width's range: inf, never the name
                value = width(sent)
        except (ValueError, OverflowError):
            return False
        if str(value) == sent and str(float(value)) == stored:
            return True
    return False


def _fold_case(name: str) -> str:
    """A column name as DuckDB compares it: ASCII letters in lower case (``É`` and ``é`` stay two names)."""
    return name.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _check_slice_names(by_cols: list[str], known: list[str]) -> None:
    """Each slice is a store column ``s_<name>``, and DuckDB's column names ignore ASCII case: ``by`` naming
    one column twice, two columns differing only in case, or a column differing from a logged slice only in
    case is refused in one line (DuckDB's catalog or binder error about ``s_<name>`` before)."""
    logged = {_fold_case(k): k for k in known}
    seen: dict[str, str] = {}
    for b in by_cols:
        key = _fold_case(b)
        if key in seen:
            first = seen[key]
            what = (f"names {b!r} twice" if first == b
                    else f"names {first!r} and {b!r}, which differ only in case")
            raise VeracityError(f"by {what}; the store's slice columns ignore case: name each slice column "
                                "once", param="by")
        seen[key] = b
        if key in logged and logged[key] != b:
            raise VeracityError(
                f"slice column {b!r} differs only in case from the logged slice {logged[key]!r} (the store's "
                f"slice columns ignore case): rename the column to {logged[key]!r} (or log it under another "
                "name)",
                param="by")


def _column_names(**given: Any) -> None:
    """Each of ``id=``, ``time=``, ... names a column (a string; ``by`` a list of them), not the data itself."""
    for param, value in given.items():
        for v in value if isinstance(value, list) else [value]:
            if not isinstance(v, str):
                raise VeracityError(f"{param}= must name a column of the data (a string), got {type(v).__name__}",
                                    param=param)


def _source_name(source: Any, shown: str) -> str:
    """The name a batch records: ``source`` when given (e.g. ``<stdin>`` for a copy in a temporary file)."""
    if source is None:
        return shown
    if not isinstance(source, str):
        raise VeracityError(f"source must be a string naming where the rows came from, got {source!r}",
                            param="source")
    return source


def _shown_column(column: str) -> str:
    return f"slice {column[2:]!r}" if column.startswith("s_") else column


# -- reading input ------------------------------------------------------------------------
def _read(data: Any, columns: list[str], *, text: list[str]) -> tuple[Any, str, str, str | None]:
    """(pyarrow table of ``columns``, display name, content hash, why it is empty) of a path or a frame.

    Only the named columns are read (a messy column the store does not use cannot break an
    ingest); CSV columns in ``text`` are read as text exactly as written (``007`` stays
    ``007``). An empty file or frame gives ``table=None`` and the reason: a no-op.
    """
    import pyarrow as pa

    wanted = list(dict.fromkeys(c for c in columns if isinstance(c, str)))
    if isinstance(data, (str, os.PathLike)):
        from .. import io

        path = Path(data)
        try:
            table = io.read_table(path, columns=wanted, text_columns=text)
        except VeracityError as exc:
            if "header but no rows" not in str(exc):
                raise
            table = None  # a day with nothing to send is not an error
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        return table, str(path), h.hexdigest(), None if table is not None else "the file has a header but no rows"
    source = f"<{type(data).__name__}>"
    try:
        if isinstance(data, pa.Table):
            table = data.select(wanted) if _has(data.column_names, wanted) else data
        elif hasattr(data, "to_arrow") and hasattr(data, "select"):  # polars
            names = list(data.columns)
            table = (data.select(wanted) if _has(names, wanted) else data).to_arrow()
        elif hasattr(data, "columns") and hasattr(data, "iloc"):  # pandas
            names = [str(c) for c in data.columns]
            if len(set(names)) != len(names):
                dup = sorted({c for c in names if names.count(c) > 1})[0]
                raise VeracityError(f"the frame has more than one column named {dup!r}; rename them first")
            _refuse_mixed_zones(data, wanted, source)
            table = pa.Table.from_pandas(data[wanted] if _has(names, wanted) else data, preserve_index=False)
        elif isinstance(data, dict):
            _refuse_mixed_zones(data, wanted, source)
            table = pa.table({k: data[k] for k in wanted if k in data} if _has(list(data), wanted) else data)
        else:
            raise VeracityError(
                f"data must be a CSV/Parquet path or a pandas/polars/pyarrow frame, got {type(data).__name__}")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise VeracityError(
            f"{source}: a column could not be read ({str(exc).splitlines()[0][:160]}); a column must hold one "
            "type (e.g. all datetimes, or all ISO strings): convert it first") from None
    if table.num_rows == 0:
        return None, source, "", "the frame has no rows"
    h = hashlib.sha256()
    for batch in table.to_batches():
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as writer:
            writer.write_batch(batch)
        h.update(sink.getvalue().to_pybytes())
    return table, source, h.hexdigest(), None


def _refuse_mixed_zones(data: Any, wanted: list[str], source: str) -> None:
    """Refuse a pandas or dict column of datetimes with a time zone beside ones without: Arrow would read
    the naive ones as UTC, hours off where they were local times (:func:`._time.mixed_zones_problem`)."""
    from ._time import mixed_zones_problem

    for name in wanted:
        try:
            col = data[name]
        except (KeyError, TypeError, ValueError):
            continue  # a column the frame lacks is named by the caller's own check
        values = getattr(col, "to_numpy", None)
        arr = values() if values is not None else col
        if isinstance(arr, (list, tuple)) or (isinstance(arr, np.ndarray) and arr.dtype == object):
            problem = mixed_zones_problem(np.asarray(arr, dtype=object).reshape(-1))
            if problem is not None:
                raise VeracityError(f"{source}: column {name!r} {problem}")


def _has(names: list[str], wanted: list[str]) -> bool:
    """Every wanted column is there (else the whole frame goes on, so the error can list its columns)."""
    return all(c in names for c in wanted)


def _col(table: Any, name: str, source: str) -> Any:
    if name not in table.column_names:
        cols = ", ".join(table.column_names[:20])
        raise VeracityError(f"column {name!r} not found in {source}; columns: {cols}")
    return table.column(name).combine_chunks()


def _id_column(table: Any, name: str, source: str) -> Any:
    import pyarrow as pa

    col = _col(table, name, source)
    if col.null_count:
        raise VeracityError(f"id column {name!r} in {source} has {count_noun(col.null_count, 'missing id')}; "
                            "every row needs one")
    if pa.types.is_floating(col.type):
        v = to_numpy(col)
        if not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
            raise VeracityError(f"id column {name!r} in {source} holds non-integer numbers; ids must be "
                                "strings or integers")
        # past 2**53 (2**24 for float32, 2**11 for float16) no longer exact as floats: distinct ids become one
        # (and past 2**63 wrapped round by the cast)
        bits = np.finfo(v.dtype).nmant + 1 if v.dtype.kind == "f" else 53
        if np.any(np.abs(v) > 2.0**bits):
            what = "floating-point" if bits == 53 else v.dtype.name  # float32, float16
            raise VeracityError(f"id column {name!r} in {source} holds ids beyond 2**{bits} as {what} "
                                f"numbers (e.g. {float(v[np.abs(v) > 2.0**bits][0]):.17g}), where distinct "
                                "ids become one; send the ids as strings or integers")
        col = from_numpy(v.astype(np.int64))
    if pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type):
        try:
            return col.cast(pa.string())
        except pa.ArrowInvalid:  # bytes that are no UTF-8 text: no id text to join an outcome on
            raise VeracityError(f"id column {name!r} in {source} holds bytes that are not UTF-8 text; send "
                                "the ids as text or integers") from None
    return col.cast(pa.string())


#: slice names the status gives its own rows: every slice, the pooled small slices, rows without a value
RESERVED_SLICES = ("(all)", "(other)", "(missing)")


def _text_array(words: Any) -> Any:
    """``pa.array(words, type=pa.string())`` for a few strings, built from its offsets and UTF-8 bytes
    (``pa.Array.from_buffers``): ``pa.array`` and ``pa.scalar`` import pandas."""
    import pyarrow as pa

    raw = [w.encode() for w in words]
    offsets = np.zeros(len(raw) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(r) for r in raw])
    return pa.Array.from_buffers(pa.string(), len(raw), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(raw))])


def _repeated_text(value: str | None, n: int) -> Any:
    """``value`` ``n`` times as a string array (nulls for ``None``): ``pa.array([value] * n, type=pa.string())``."""
    import pyarrow as pa

    if value is None:
        return pa.nulls(n, pa.string())
    return _text_array([value]).take(from_numpy(np.zeros(n, dtype=np.int64)))


def _slice_values(col: Any, name: str, source: str) -> Any:
    """A slice column, refused when a value is one of the status's own slice names (two rows would be
    called ``(all)``, or a real value merge with the rows that have none)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    hit = pc.is_in(col, value_set=_text_array(RESERVED_SLICES))
    if pc.any(hit).as_py():
        value = col.filter(hit)[0].as_py()
        raise VeracityError(f"slice column {name!r} in {source} holds the value {value!r}, a name the status "
                            f"gives its own rows ({', '.join(RESERVED_SLICES)}); rename that value first")
    return col


def _score_column(table: Any, name: str, source: str) -> Any:
    import pyarrow as pa

    col = _col(table, name, source)
    if not (pa.types.is_floating(col.type) or pa.types.is_integer(col.type) or pa.types.is_decimal(col.type)):
        raise VeracityError(f"score column {name!r} in {source} has type {col.type}; scores must be numbers")
    v = np.asarray(to_numpy(col), dtype=np.float64)
    bad = ~np.isfinite(v) | (v < 0) | (v > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise VeracityError(
            f"score column {name!r} in {source}: {int(bad.sum())} of {v.size} values are not probabilities "
            f"in [0, 1] (first at row {i}: {float(v[i])!r}); store calibrated probabilities (apply the sigmoid "
            "to logits)")
    return from_numpy(np.asarray(v, dtype=np.float64))


def _label_column(table: Any, name: str, source: str, pos_label: Any = None) -> Any:
    import pyarrow as pa

    col = _col(table, name, source)
    if col.null_count:
        raise VeracityError(
            f"label column {name!r} in {source} has {count_noun(col.null_count, 'missing label')}; send an "
            "outcome only once it is known (pending predictions need no row)")
    if pos_label is not None:
        return _labels_with_pos_label(col, name, source, pos_label)
    if pa.types.is_boolean(col.type):
        v = np.asarray(to_numpy(col), dtype=np.float64)
    elif pa.types.is_integer(col.type) or pa.types.is_floating(col.type):
        v = np.asarray(to_numpy(col), dtype=np.float64)
    else:
        import pyarrow.compute as pc

        values = pc.unique(col).to_pylist()[:3]
        raise VeracityError(f"label column {name!r} in {source} has type {col.type} (values such as "
                            f"{', '.join(map(repr, values))}); the store keeps outcomes as 0/1: name the positive "
                            "outcome with pos_label= (e.g. pos_label='yes'), or map the positive outcome to 1 and "
                            "the other to 0 before sending them", param="pos_label")
    bad = (v != 0) & (v != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        n = int(bad.sum())
        raise VeracityError(f"label column {name!r} in {source}: {count_noun(n, 'label')} "
                            f"{'is' if n == 1 else 'are'} not 0 or 1 (first at row {i}: {v[i].item()!r}); "
                            "name the positive outcome with pos_label=, or map the labels to 0/1",
                            param="pos_label")
    return from_numpy(v.astype(np.int8))


def _labels_with_pos_label(col: Any, name: str, source: str, pos_label: Any) -> Any:
    """0/1 labels: 1 where the label is the one ``pos_label`` names, by the rule of every route
    (:func:`veracity.sources._labels._matching`): a value of the column's type equal to it, a number equal
    to it (``True == 1``), or for text (``--pos-label``) the label it names by
    :func:`veracity.core._validation.text_names_label`: ``'true'``/``'1'`` (any case) True on a true/false
    column; on a number column a decimal numeral of exactly the label's value (``'2.0'`` the integer 2;
    ``'9007199254740993'`` never :math:`2^{53}`; ``'1_0'`` none); a text label only the same text (never
    the number 1). The rows are compared with that label in the column's own type (no float reading).

    Two values and none named: refused. One value (a day of negatives) that ``pos_label`` does not name:
    every row is 0, with a warning unless ``pos_label`` names the 1 of a day of 0s; a ``pos_label`` that
    names no value a column of this type can hold (``'yes'`` on numbers, ``1`` on text) is refused."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..core._keys import key_order
    from ..core._validation import boolean_label_spelling, nul_hint, pos_label_not_among
    from ..sources._labels import _matching, _shown, brief

    value = pos_label.item() if isinstance(pos_label, np.generic) else pos_label
    if isinstance(value, float) and value != value:
        raise VeracityError("pos_label must be a label value, not NaN", param="pos_label")
    kind = ("bool" if pa.types.is_boolean(col.type)
            else "number" if pa.types.is_integer(col.type) or pa.types.is_floating(col.type)
            or pa.types.is_decimal(col.type)
            else "text" if pa.types.is_string(col.type) or pa.types.is_large_string(col.type) else None)
    if kind is None:
        raise VeracityError(f"label column {name!r} in {source} has type {col.type}; labels must be text, "
                            "numbers or true/false", param="labels")
    if pa.types.is_floating(col.type) and pc.any(pc.is_nan(col)).as_py():
        raise VeracityError(f"label column {name!r} in {source} holds NaN labels; send an outcome only once "
                            "it is known", param="labels")
    unique = pc.unique(col)
    values = unique.to_pylist()
    shown = ", ".join(brief(v) for v in key_order(values)[:5])
    if len(values) > 2:
        raise VeracityError(f"label column {name!r} in {source} takes {len(values)} values ({shown}); outcomes are "
                            "binary: pos_label= names the positive one of two values", param="pos_label")
    match = _matching(values, value)
    if match is not None:
        hit = np.asarray(to_numpy(pc.equal(col, unique[values.index(match)])), dtype=bool)
        return from_numpy(hit.astype(np.int8))
    if len(values) == 2:  # every route's words (core._validation.pos_label_not_among)
        raise pos_label_not_among(pos_label, key_order(values), shown=_shown,
                                  where=f"the values of label column {name!r} in {source}",
                                  hint=nul_hint(pos_label, values))
    if not _may_name_label(value, kind):
        what = {"bool": "true/false", "number": "number", "text": "text"}[kind]
        fix = {"bool": boolean_label_spelling([True, False]), "number": "a number, such as 1",
               "text": "the positive label as text"}[kind]
        raise VeracityError(f"{{setting}} names no label a {what} label column can hold (column {name!r} in "
                            f"{source}, all {shown}); pass {fix}", param="pos_label", value=pos_label)
    one = type(values[0])(1) if values and values[0] == 0 else None  # the 1 of a day of 0s (False, 0, 0.0)
    if one is None or _matching([one], value) is None:  # a day of 0s with pos_label=1 says nothing doubtful
        import warnings

        warnings.warn(f"pos_label={pos_label!r} is not among the labels of {source} (all {len(col):,} are "
                      f"{shown}): every outcome is stored as negative (0); if pos_label is misspelt, send "
                      "the file again with the right one, replacing them (--replace, replace=True)", stacklevel=4)
    return from_numpy(np.zeros(len(col), dtype=np.int8))


def _may_name_label(value: Any, kind: str) -> bool:
    """Whether ``pos_label`` ``value`` names some label a column of ``kind`` (``"bool"``, ``"number"``,
    ``"text"``) can hold, by :func:`veracity.sources._labels._matching`'s rule: True or False; a number
    (text: a decimal numeral, ``'inf'``); text."""
    import decimal

    from ..core._validation import text_names_label
    from ..sources._labels import _matching

    if kind == "bool":
        return _matching([False, True], value) is not None
    if kind == "text":
        return isinstance(value, str)
    if not isinstance(value, str):
        return isinstance(value, (int, float, decimal.Decimal))
    try:
        number = decimal.Decimal(value.strip())
    except decimal.InvalidOperation:
        return False
    return not number.is_nan() and any(text_names_label(value, v) for v in (number, float(number)))
