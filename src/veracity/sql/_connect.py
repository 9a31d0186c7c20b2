"""Reaching a database: a DB-API 2.0 or ADBC connection, a SQLAlchemy engine or connection, or a URL.

Every route ends in one DB-API cursor (``cursor.execute(sql)`` without parameters,
``fetchall()``), so the same generated SQL runs everywhere and a test can count the
rows that travel by wrapping the connection. URLs without SQLAlchemy: ``sqlite:///PATH``
and ``duckdb:///PATH`` open the file read-only (PATH read as SQLAlchemy reads it, up to the ``?``,
percent-decoded; the options after ``?`` those of :data:`SQLITE_OPTIONS` / :data:`DUCKDB_OPTIONS`, any other
refused); ``postgresql://…`` goes to psycopg (3, else 2). Any other scheme goes through SQLAlchemy when it
is installed.

A password never leaves this module: :func:`redact` (:mod:`veracity.export._redact`, where the
exported SQL and ONNX use it too) replaces it (and the whole ``user:password@`` credential's secret
part) in every message built from a URL or from a driver's error.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote, unquote_plus, urlencode, urlsplit

from ..core._validation import VeracityError
from ..export._redact import _QUERY_SECRET, redact  # noqa: F401 - redact: imported from here by sql, tracking, cli

#: dialects the generated SQL is written for (sqlglot's names); the first three are tested
#: against live engines, the others are checked by parsing the SQL back
DIALECTS = ("duckdb", "postgres", "sqlite", "bigquery", "clickhouse", "databricks", "mysql", "redshift",
            "snowflake", "spark", "trino", "tsql")

#: DB-API / ADBC driver modules and the dialect they speak
_MODULES = (
    ("sqlite3", "sqlite"), ("duckdb", "duckdb"), ("_duckdb", "duckdb"), ("psycopg", "postgres"),
    ("psycopg2", "postgres"), ("pg8000", "postgres"), ("pymysql", "mysql"), ("MySQLdb", "mysql"),
    ("mysql", "mysql"), ("mariadb", "mysql"), ("snowflake", "snowflake"), ("google", "bigquery"),
    ("trino", "trino"), ("databricks", "databricks"), ("pyhive", "spark"), ("redshift_connector", "redshift"),
    ("clickhouse_connect", "clickhouse"), ("pymssql", "tsql"),
)
#: dialects whose driver module talks to that one engine only (a dialect= naming another is refused)
_ONE_ENGINE = frozenset({"sqlite", "duckdb"})
#: SQLAlchemy dialect names (and ADBC vendor names, lower case) that differ from sqlglot's
_ALIASES = {"postgresql": "postgres", "mssql": "tsql", "mariadb": "mysql", "sqlserver": "tsql",
            "microsoft sql server": "tsql", "google bigquery": "bigquery"}

#: ``user:secret@host`` written without a scheme
_BARE_CREDENTIAL = re.compile(r"^[^/@\s:]*:(?P<secret>[^\s]*)@")


def _forms(text: str, coders: tuple[Callable[[str], str], ...]) -> list[str]:
    """``text`` and what the ``coders`` make of it, applied up to three times over (distinct, in order)."""
    out, frontier = [text], [text]
    for _ in range(3):
        frontier = [t for t in dict.fromkeys(f(t) for t in frontier for f in coders) if t not in out]
        out += frontier
    return out


def _decodings(url: str) -> list[str]:
    """``url`` and its percent-decoded forms (``%3D`` → ``=``, ``+`` → space; up to three levels): a
    password inside an encoded parameter (``odbc_connect=...PWD%3Dsecret``) is found in the decoded text."""
    return _forms(url, (unquote, unquote_plus))


def _secrets(url: str) -> tuple[str, ...]:
    """The URL's passwords, raw and decoded: after ``user:``, in ``password=``-like settings, in any
    percent-decoded form of the URL (:func:`_decodings`); longest first."""
    found: list[str] = []
    bare = _BARE_CREDENTIAL.match(url) if "://" not in url else None
    if bare:
        found += [bare.group("secret"), unquote(bare.group("secret"))]
    try:
        parts = urlsplit(url)
        if parts.password:
            found += [parts.password, unquote(parts.password)]
    except ValueError:
        pass
    for m in (m for text in _decodings(url) for m in _QUERY_SECRET.finditer(text)):
        value = m.group("secret")
        found += [value, unquote(value)]
        if len(value) >= 2 and value[0] in "'\"{":  # a quoted DSN value: the secret is inside the quotes
            close = "}" if value[0] == "{" else value[0]
            inner = value[1:-1] if value[-1] == close else value[1:]
            found += [inner, inner.replace("}}", "}") if close == "}" else re.sub(r"\\(.)", r"\1", inner)]
    found += [e for secret in found for e in _encodings(secret)]
    return tuple(sorted({s for s in found if s}, key=len, reverse=True))


def _encodings(secret: str) -> list[str]:
    """``secret`` percent-encoded as URL encoders write it (``quote`` with and without ``/`` kept,
    ``quote_plus``), up to three times over: a password found in a decoded form of the URL is hidden
    in the URL as written too."""
    return _forms(secret, (_quote_all, quote, quote_plus))[1:]


def _quote_all(text: str) -> str:
    return quote(text, safe="")


def check_dialect(dialect: str) -> str:
    name = _ALIASES.get(str(dialect).lower(), str(dialect).lower())
    if name not in DIALECTS:
        raise VeracityError(f"dialect must be one of {', '.join(DIALECTS)}; got {dialect!r}")
    return name


@dataclass
class Database:
    """One DB-API connection and the dialect its SQL is written in."""

    conn: Any
    dialect: str
    #: shown in messages for this database (a redacted URL, or the driver's name)
    shown: str
    #: opened here from a URL (closed by :meth:`close`), not the caller's
    owned: bool = False
    secrets: tuple[str, ...] = field(default=(), repr=False)
    sa_connection: Any = field(default=None, repr=False)
    #: an engine created here from a URL (disposed of by :meth:`close`)
    sa_engine: Any = field(default=None, repr=False)
    #: rows fetched so far (aggregates only; reported by tests and the benchmark)
    fetched: int = 0
    #: PostgreSQL: whether the session's ``extra_float_digits`` was read, and the value to set back where the
    #: audit raised it (:meth:`_exact_floats`)
    digits_read: bool = field(default=False, repr=False)
    digits_before: str | None = field(default=None, repr=False)

    def _cursor_run(self, sql: str) -> tuple[list[tuple], list[str]]:
        if _is_duckdb(self.conn):  # its cursor() is a new connection that would not see TEMP tables
            result = self.conn.execute(sql)
            names = [d[0] for d in (result.description or [])]
            return [tuple(r) for r in result.fetchall()], names
        cur = self.conn.cursor()
        try:
            if type(cur).__module__.split(".")[0] == "psycopg":
                # never a server-side prepared plan (psycopg prepares a statement run 5 times): the same text
                # on a table re-created with other column types would fail ("cached plan must not change
                # result type"); every statement here is an aggregate, planned in no time
                cur.execute(sql, prepare=False)
            else:
                cur.execute(sql)
            names = [d[0] for d in (cur.description or [])]
            rows = [tuple(r) for r in cur.fetchall()] if cur.description else []
        finally:
            close = getattr(cur, "close", None)
            if close is not None:
                close()
        return rows, names

    def query(self, sql: str, *, what: str = "the audit query", sorts: bool = False) -> list[tuple]:
        """The rows of ``sql`` (an aggregate: a handful of rows)."""
        rows, _ = self.run(sql, what=what, sorts=sorts)
        return rows

    def run(self, sql: str, *, what: str = "the audit query", sorts: bool = False) -> tuple[list[tuple], list[str]]:
        """The rows of ``sql`` and their column names. ``sorts``: the statement sorts every row
        (the exact AUC, equal-mass edges): on PostgreSQL it runs with :data:`SORT_WORK_MEM`
        (:meth:`_sorting`)."""
        if self.dialect in _FLOAT_DIGITS and not self.digits_read:
            self._exact_floats()
        if sorts and self.dialect == "postgres":
            return self._sorting(sql, what)
        return self._run(sql, what)

    def _exact_floats(self) -> None:
        """PostgreSQL sends a double as text with ``extra_float_digits`` deciding its digits (psycopg and
        psycopg2 read the text): at 1 (the default) or more, the shortest text that reads back exactly; at 0,
        15 significant digits (equal-mass edges moved off the scores they are: ECE 0.0890 for 0.0934); below,
        fewer (at -15, one: the AUC 0.05 off), with nothing said. Where the session's setting is below 1 it
        is raised to 3 (exact on every version) for
        the audit's statements and set back by :meth:`close` (``set_config(..., false)`` in the caller's
        transaction, where there is one: the two cancel out). Amazon Redshift (PostgreSQL 8's output rule:
        15 + ``extra_float_digits`` significant digits, default 0, at most 2) rounds every double to 15 digits
        by default: there the setting is raised to 2, whose 17 digits read back exactly."""
        self.digits_read = True
        what = "reading extra_float_digits"
        least, exact = _FLOAT_DIGITS[self.dialect]
        try:  # (a server that speaks PostgreSQL's protocol without this setting: left as it is)
            value = str(self._run("SELECT current_setting('extra_float_digits')", what)[0][0][0]).strip()
            if value.lstrip("-").isdigit() and int(value) < least:
                self._run(f"SELECT set_config('extra_float_digits', '{exact}', false)", what)
                self.digits_before = value
        except VeracityError:
            return

    def _run(self, sql: str, what: str) -> tuple[list[tuple], list[str]]:
        if self.dialect == "sqlite":  # its decimal text is not always read as the nearest double
            from ._query import sqlite_exact_doubles

            sql = sqlite_exact_doubles(sql)
        guarded = False
        try:
            guarded = self._savepoint()
            rows, names = self._cursor_run(sql)
            if guarded:
                self._cursor_run(f"RELEASE SAVEPOINT {_SAVEPOINT}")
        except VeracityError:
            raise
        except Exception as exc:  # the database's own message, on one line, without secrets
            self._undo(guarded)
            message = _short_numbers(" ".join(str(exc).split()) or type(exc).__name__)
            raise VeracityError(redact(f"{what} failed in {self.shown}: {message}", self.secrets)) from None
        self.fetched += len(rows)
        return rows, names

    def _savepoint(self) -> bool:
        """On a PostgreSQL connection that is not in autocommit mode (the caller's transaction, open or
        opened by the first statement): a savepoint before the statement, so that a statement that fails
        (some do, on rows that break the contract) undoes itself alone, never the caller's uncommitted
        work. A transaction that has already failed is refused as it is: only its owner may end it."""
        if self.dialect not in _TRANSACTIONAL or getattr(self.conn, "autocommit", None) is not False:
            return False
        if _pg_status(self.conn) == _IN_ERROR:
            raise VeracityError(
                f"the {self.shown} is in a failed transaction (an earlier statement raised an error); "
                "call connection.rollback() (or commit()) first, then audit again")
        self._cursor_run(f"SAVEPOINT {_SAVEPOINT}")
        return True

    def _undo(self, guarded: bool) -> None:
        if guarded:
            try:
                self._cursor_run(f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}")
                self._cursor_run(f"RELEASE SAVEPOINT {_SAVEPOINT}")
                return
            except Exception:  # noqa: BLE001 - the connection itself broke: end the transaction
                pass
        self._rollback()

    def _sorting(self, sql: str, what: str) -> tuple[list[tuple], list[str]]:
        """``sql`` with PostgreSQL's ``work_mem`` raised to :data:`SORT_WORK_MEM` for this statement
        alone (never lowered): ``set_config(..., is_local => true)``, PostgreSQL's ``SET LOCAL``.

        On a connection in autocommit mode the statement runs in a transaction of its own
        (``BEGIN`` … ``COMMIT``; ``ROLLBACK`` if it fails), so the setting ends with it; inside the
        caller's transaction the previous value is set back after the statement (and a failed
        statement's rollback undoes it). A connection that does not say which (no boolean
        ``autocommit``) runs the statement as it is. Nothing outlives the statement."""
        autocommit = getattr(self.conn, "autocommit", None)
        if not isinstance(autocommit, bool):
            return self._run(sql, what)
        settings = "reading work_mem"
        if autocommit:
            self._run("BEGIN", settings)
        try:
            (old, size), = self._run("SELECT current_setting('work_mem'), pg_size_bytes(current_setting('work_mem'))",
                                     settings)[0]
            raised = int(size) < SORT_WORK_MEM
            if raised:
                self._run(f"SELECT set_config('work_mem', '{SORT_WORK_MEM // 1024}kB', true)", settings)
            try:
                found = self._run(sql, what)
            finally:  # inside the caller's transaction: set back, whether the statement ran or failed
                if not autocommit and raised:
                    self._run(f"SELECT set_config('work_mem', {_text(str(old))}, true)", settings)
            if autocommit:
                self._run("COMMIT", settings)
            return found
        except VeracityError:
            if autocommit:  # end the transaction begun here (psycopg2 ignores rollback() in autocommit)
                try:
                    self._cursor_run("ROLLBACK")
                except Exception:  # noqa: BLE001 - already ended by the driver's rollback
                    pass
            raise

    def _rollback(self) -> None:
        # PostgreSQL refuses every later statement of a failed transaction: end it
        rollback = getattr(self.conn, "rollback", None)
        if rollback is not None and self.dialect in ("postgres", "redshift"):
            try:
                rollback()
            except Exception:  # noqa: BLE001 - best effort; the first error is the one reported
                pass

    def close(self) -> None:
        """Close what was opened here. A SQLAlchemy connection is closed through SQLAlchemy (its
        DB-API connection goes back to the pool, never closed under it); an engine made here from
        a URL is disposed of. A PostgreSQL (or Redshift) ``extra_float_digits`` the audit raised is set back
        first."""
        if self.digits_before is not None:
            try:
                before = _text(self.digits_before)
                self._cursor_run(f"SELECT set_config('extra_float_digits', {before}, false)")
            except Exception:  # noqa: BLE001 - a broken connection: its session ends with it
                pass
            self.digits_before = None
        if not self.owned:
            return
        owned = [self.conn] if self.sa_connection is None else [self.sa_connection]
        for obj in owned:
            try:
                obj.close()
            except Exception:  # noqa: BLE001 - closing a read-only connection cannot lose work
                pass
        if self.sa_engine is not None:
            try:
                self.sa_engine.dispose()
            except Exception:  # noqa: BLE001
                pass


#: PostgreSQL's work_mem for the statements that sort every row (bytes; raised, never lowered):
#: the default 4 MB spills the exact AUC's sort of 10⁶ rows to disk. PostgreSQL takes only the
#: memory a sort needs (about 75 bytes a row), up to this
SORT_WORK_MEM = 256 * 1024 * 1024
#: PostgreSQL's ``extra_float_digits`` while the audit reads doubles, where the session's is below 1: 3 sends
#: every double exactly (shortest round-trip text on PostgreSQL 12+, 17 significant digits before)
EXACT_FLOAT_DIGITS = 3
#: dialect -> (the least ``extra_float_digits`` that sends exact doubles, the value set where the session's is
#: below it): PostgreSQL 12+ sends the shortest exact text at 1 or more (before 12, 17 digits at 3); Amazon
#: Redshift 15 + the setting's digits, at most 2 (17: exact)
_FLOAT_DIGITS = {"postgres": (1, EXACT_FLOAT_DIGITS), "redshift": (2, 2)}


#: dialects whose failed statement aborts the whole transaction (see :meth:`Database._savepoint`)
_TRANSACTIONAL = frozenset({"postgres", "redshift"})
_SAVEPOINT = "veracity_statement"
#: PostgreSQL's transaction status of a failed transaction (libpq's PQTRANS_INERROR)
_IN_ERROR = 3


def _pg_status(conn: Any) -> int | None:
    """libpq's transaction status of a psycopg (3 or 2) connection, else None."""
    info = getattr(conn, "info", None)
    status = getattr(info, "transaction_status", None)
    if status is None and callable(getattr(conn, "get_transaction_status", None)):
        try:
            status = conn.get_transaction_status()
        except Exception:  # noqa: BLE001 - a closed connection: the statement will say so
            return None
    try:
        return None if status is None else int(status)
    except (TypeError, ValueError):
        return None


#: a run of this many digits in a database's message is shown in scientific form
_LONG_DIGITS = 25


def _short_numbers(message: str) -> str:
    """``message`` with every number of :data:`_LONG_DIGITS` or more digits written as ``d.ddddde±E``
    (PostgreSQL spells a NUMERIC 1e400 with 401 digits, 1e-400 with 400 zeros: "... is out of
    range for type double precision")."""
    def short(m: re.Match[str]) -> str:
        big, small = m.group("big"), m.group("small")
        if big is not None:
            return f"{big[0]}.{big[1:6].ljust(5, '0')}e+{len(big) - 1}"
        digits = small.lstrip("0")
        return f"{digits[0]}.{digits[1:6].ljust(5, '0')}e-{len(small) - len(digits) + 1}"

    long = _LONG_DIGITS - 1
    number = rf"(?:(?P<big>[1-9]\d{{{long},}})(?:\.\d*)?|0\.(?P<small>0{{{long},}}[1-9]\d*))"
    return re.sub(rf"(?<![\d.]){number}(?![\d.])", short, message)


def _text(value: str) -> str:
    """A SQL string literal (quotes doubled): a value read back from the database."""
    return "'" + value.replace("'", "''") + "'"


def _is_duckdb(conn: Any) -> bool:
    return type(conn).__module__.split(".")[0] in ("duckdb", "_duckdb")


def _module_dialect(conn: Any) -> str | None:
    module = type(conn).__module__ or ""
    top = module.split(".")[0]
    if top.startswith("adbc_driver_") or hasattr(conn, "adbc_get_info"):
        try:
            vendor = str(conn.adbc_get_info().get("vendor_name", "")).lower()
        except Exception:  # noqa: BLE001 - an ADBC driver without vendor info
            vendor = top.removeprefix("adbc_driver_")
        vendor = _ALIASES.get(vendor, vendor)
        return vendor if vendor in DIALECTS else None
    for prefix, dialect in _MODULES:
        if top == prefix:
            return dialect
    return None


def _sqlalchemy(obj: Any) -> str | None:
    """``"engine"`` / ``"connection"`` for SQLAlchemy objects, else None (no import of SQLAlchemy)."""
    module = type(obj).__module__ or ""
    if not module.startswith("sqlalchemy"):
        return None
    if hasattr(obj, "raw_connection") and hasattr(obj, "dialect"):
        return "engine"
    if hasattr(obj, "exec_driver_sql"):
        return "connection"
    return None


def open_database(target: Any, *, dialect: str | None = None) -> Database:
    """A :class:`Database` for a connection, SQLAlchemy engine/connection or URL string."""
    chosen = None if dialect is None else check_dialect(dialect)
    if isinstance(target, str):
        try:
            return _from_url(target, chosen)
        except VeracityError as exc:
            if exc.param is not None:
                raise
            # about the URL (param "url"): its own key=value options, never a front end's flags to respell
            raise VeracityError(exc.message, "url", exc.hint) from None
    kind = _sqlalchemy(target)
    if kind is not None:
        engine_name = str(target.dialect.name).lower()
        if chosen is not None and engine_name in _ONE_ENGINE and chosen != engine_name:
            raise VeracityError(f"dialect={dialect!r} on a {engine_name} engine: it talks to {engine_name} "
                                f"alone; drop dialect= (or pass dialect={engine_name!r})")
        name = check_dialect(engine_name) if chosen is None else chosen
        if kind == "engine":
            shown = f"{target.dialect.name} engine"
            password = getattr(getattr(target, "url", None), "password", None)
            secrets = (str(password),) if password else ()
            try:
                sa_conn = target.connect()
            except Exception as exc:  # the driver's reason on one line (a server down, a wrong password)
                message = " ".join(str(exc).split()) or type(exc).__name__
                raise VeracityError(redact(f"cannot connect through the {shown}: {message}", secrets)) from None
            return Database(_dbapi_of(sa_conn), name, shown, owned=True, sa_connection=sa_conn, secrets=secrets)
        return Database(_dbapi_of(target), name, f"{target.dialect.name} connection")
    if not (hasattr(target, "cursor") or _is_duckdb(target)):
        raise VeracityError(
            f"audit_sql needs a database connection (DB-API 2.0 such as sqlite3, psycopg or duckdb; ADBC; "
            f"a SQLAlchemy engine or connection) or a URL string; got {type(target).__name__}"
        )
    own = _module_dialect(target)
    if chosen is not None and own in _ONE_ENGINE and chosen != own:
        # SQL written for another engine reads differently here (SQLite's REAL is DuckDB's 4-byte float;
        # a PostgreSQL failure rolls back the SQLite connection's uncommitted rows): never silently
        raise VeracityError(f"dialect={dialect!r} on a {own} connection: its driver talks to {own} alone; "
                            f"drop dialect= (or pass dialect={own!r})")
    found = chosen or own
    if found is None:
        raise VeracityError(
            f"cannot tell which SQL dialect a {type(target).__module__}.{type(target).__name__} connection "
            f"speaks; pass dialect= (one of {', '.join(DIALECTS)})"
        )
    return Database(target, found, f"{found} connection")


def _dbapi_of(sa_conn: Any) -> Any:
    """The DB-API connection under a SQLAlchemy connection (1.4 and 2.x)."""
    raw = sa_conn.connection
    return getattr(raw, "dbapi_connection", None) or getattr(raw, "driver_connection", None) or raw


def _from_url(url: str, dialect: str | None) -> Database:
    secrets = _secrets(url)
    shown = redact(url, secrets)
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    base = scheme.split("+", 1)[0]
    if not scheme:
        raise VeracityError(
            f"cannot open {shown!r}: a URL starts with its scheme (sqlite:///PATH, duckdb:///PATH, "
            "postgresql://USER@HOST/DB; other databases through SQLAlchemy), or pass an open connection")
    if base in _ONE_ENGINE and dialect is not None and dialect != base:
        raise VeracityError(f"dialect={dialect!r} on a {base} URL: {base} reads only its own SQL; drop "
                            f"dialect= (or pass dialect={base!r})")
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        netloc = ""
    if netloc.count("@") > 1:  # drivers split at the first "@": the rest of the password would be the host
        raise VeracityError(
            f"cannot open {shown}: the user name or password holds an '@'; write it percent-encoded as %40 "
            "(urllib.parse.quote(password, safe=''))")
    try:
        if base == "sqlite":
            import sqlite3

            path, options = _file_url(url, base, shown, secrets)
            sqlite_args = _sqlite_options(options, shown, secrets)
            timeout = float(sqlite_args.pop("timeout", 5.0))
            if path is not None and "uri" in options:
                path = _uri_path(path, shown, secrets)
            if path is None:
                conn: Any = sqlite3.connect(":memory:", timeout=timeout)
            else:
                _must_exist(path, shown, secrets)
                conn = sqlite3.connect(_sqlite_uri(path, sqlite_args), uri=True, timeout=timeout)
            return Database(conn, dialect or "sqlite", shown, owned=True, secrets=secrets)
        if base == "duckdb":
            import duckdb

            raw = url.split("://", 1)[1][1:]
            if raw.lower().startswith(_MOTHERDUCK):  # MotherDuck reads its own settings (the token) itself
                conn = duckdb.connect(raw, read_only=True)
                return Database(conn, dialect or "duckdb", shown, owned=True, secrets=secrets)
            path, options = _file_url(url, base, shown, secrets)
            config = _duckdb_options(options, shown, secrets)
            if path is None:
                conn = duckdb.connect(":memory:", config=config)
            else:
                _must_exist(path, shown, secrets)
                conn = duckdb.connect(path, read_only=True, config=config)
            return Database(conn, dialect or "duckdb", shown, owned=True, secrets=secrets)
        if base in ("postgresql", "postgres"):
            plain = "postgresql://" + url.split("://", 1)[1]
            try:
                import psycopg

                conn = psycopg.connect(plain)
            except ImportError:
                try:
                    import psycopg2
                except ImportError:
                    raise VeracityError(
                        "a postgresql:// URL needs psycopg: pip install 'psycopg[binary]'") from None
                conn = psycopg2.connect(plain)
            return Database(conn, dialect or "postgres", shown, owned=True, secrets=secrets)
        try:
            import sqlalchemy
        except ImportError:
            raise VeracityError(
                f"cannot open {shown!r}: built-in URLs are sqlite:///PATH, duckdb:///PATH and "
                "postgresql://USER@HOST/DB; for other databases install SQLAlchemy and the database's driver, "
                "or pass an open connection"
            ) from None
        engine = sqlalchemy.create_engine(url)
        sa_conn = engine.connect()
        name = dialect or check_dialect(engine.dialect.name)
        return Database(_dbapi_of(sa_conn), name, shown, owned=True, secrets=secrets, sa_connection=sa_conn,
                        sa_engine=engine)
    except VeracityError:
        raise
    except Exception as exc:  # the driver's reason, never the password
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise VeracityError(redact(f"cannot connect to {shown}: {message}", secrets)) from None


#: a ``duckdb:///md:DB?motherduck_token=...`` URL: DuckDB's MotherDuck extension reads it as written
_MOTHERDUCK = ("md:", "motherduck:")
#: the options a ``sqlite:///PATH?...`` URL may carry: SQLite's URI parameters that keep the database
#: read-only, sqlite3.connect's ``timeout`` and SQLAlchemy's ``uri=true`` (the path is a ``file:`` URI)
SQLITE_OPTIONS = ("mode=ro", "immutable=1", "nolock=1", "cache=shared|private", "timeout=SECONDS", "uri=true")
#: the options a ``duckdb:///PATH?...`` URL may carry: DuckDB settings (the database opens read-only)
DUCKDB_OPTIONS = ("access_mode=read_only", "read_only=true", "threads=N", "memory_limit=SIZE",
                  "max_memory=SIZE", "temp_directory=PATH")
#: SQLite's spellings of a boolean URI parameter, and the value each means
_BOOLEANS = {"1": "1", "true": "1", "yes": "1", "on": "1", "0": "0", "false": "0", "no": "0", "off": "0"}


def _file_url(url: str, base: str, shown: str, secrets: tuple[str, ...]) -> tuple[str | None, dict[str, str]]:
    """The file and the options of ``sqlite:///PATH?KEY=VALUE&...`` (``duckdb:///...``), read as SQLAlchemy's
    ``make_url`` reads them: PATH runs to the first ``?`` (a ``#`` is part of the name) and is percent-decoded
    (``%20``: a space); ``sqlite:///rel.db`` is relative to the working directory, ``sqlite:////abs/x.db``
    absolute; no PATH or ``:memory:`` (``sqlite://``) is an in-memory database (None). A host
    (``sqlite://x.db``, two slashes) is refused as SQLAlchemy refuses it, and so is an option given twice."""
    rest = url.split("://", 1)[1]
    rest, _, query = rest.partition("?")
    host, _, path = rest.partition("/")
    if host:  # never shown: it may be a user:password@
        raise VeracityError(redact(
            f"cannot open {shown}: a {base} URL names its file after three slashes: {base}:///rel.db "
            f"(relative to the working directory), {base}:////abs/x.db (absolute), {base}:// (in memory)",
            secrets))
    options: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key in options:
            raise VeracityError(redact(f"cannot open {shown}: option {key!r} is given twice", secrets))
        options[key] = value
    path = unquote(path)
    return (None if path in ("", ":memory:") else path), options


def _unknown(key: str, base: str, supported: tuple[str, ...], shown: str,
             secrets: tuple[str, ...]) -> VeracityError:
    return VeracityError(redact(f"cannot open {shown}: a {base} URL takes no option {key!r}; supported: "
                                f"{', '.join(supported)}", secrets))


def _sqlite_options(options: dict[str, str], shown: str, secrets: tuple[str, ...]) -> dict[str, str]:
    """The SQLite URI parameters of a URL's ``options`` (:data:`SQLITE_OPTIONS`; ``mode`` is always ``ro``),
    plus ``timeout``; any other option, or a value the option does not take, is refused in one line."""
    found: dict[str, str] = {}
    for key, value in options.items():
        low = value.strip().lower()
        if key == "mode" and low != "ro":
            raise VeracityError(redact(f"cannot open {shown}: mode={value!r}; veracity opens a database "
                                       "read-only: write mode=ro or leave it out", secrets))
        if key in ("immutable", "nolock"):
            if low not in _BOOLEANS:
                raise VeracityError(redact(f"cannot open {shown}: {key}={value!r}; write {key}=1 or {key}=0",
                                           secrets))
            found[key] = _BOOLEANS[low]
        elif key == "cache":
            if low not in ("shared", "private"):
                raise VeracityError(redact(f"cannot open {shown}: cache={value!r}; write cache=shared or "
                                           "cache=private", secrets))
            found[key] = low
        elif key == "timeout":
            try:
                seconds = float(value)
            except ValueError:
                seconds = math.nan
            if not (math.isfinite(seconds) and seconds >= 0):
                raise VeracityError(redact(f"cannot open {shown}: timeout={value!r}; write the seconds to "
                                           "wait for a locked database (timeout=5)", secrets))
            found[key] = str(seconds)
        elif key == "uri":
            if _BOOLEANS.get(low) != "1":
                raise VeracityError(redact(f"cannot open {shown}: uri={value!r}; write uri=true (the path is "
                                           "a file: URI) or leave it out", secrets))
        elif key != "mode":
            raise _unknown(key, "sqlite", SQLITE_OPTIONS, shown, secrets)
    return found


def _duckdb_options(options: dict[str, str], shown: str, secrets: tuple[str, ...]) -> dict[str, Any]:
    """DuckDB's ``config=`` of a URL's ``options`` (:data:`DUCKDB_OPTIONS`): the database opens read-only
    whatever they say (``access_mode=read_write`` or ``read_only=false`` are refused); the values of the
    settings are DuckDB's to check. Any other option is refused in one line."""
    config: dict[str, Any] = {}
    for key, value in options.items():
        low = value.strip().lower()
        if key == "access_mode" and low != "read_only" or key == "read_only" and _BOOLEANS.get(low) != "1":
            wanted = "access_mode=read_only" if key == "access_mode" else "read_only=true"
            raise VeracityError(redact(f"cannot open {shown}: {key}={value!r}; veracity opens a database "
                                       f"read-only: write {wanted} or leave it out", secrets))
        if key == "threads":
            if not (value.strip().isdigit() and int(value) >= 1):
                raise VeracityError(redact(f"cannot open {shown}: threads={value!r}; write a whole number of "
                                           "threads, 1 or more", secrets))
            config[key] = int(value)
        elif key in ("memory_limit", "max_memory", "temp_directory"):
            config[key] = value
        elif key not in ("access_mode", "read_only"):
            raise _unknown(key, "duckdb", DUCKDB_OPTIONS, shown, secrets)
    return config


def _sqlite_uri(path: str, params: dict[str, str]) -> str:
    """SQLite's ``file:`` URI of ``path`` (percent-encoded: a ``?``, ``#`` or ``%`` in the name is the
    name's), read-only (``mode=ro``: a file that is not there is never created), with ``params``."""
    head = "file://" if path.startswith("/") else "file:"
    return head + quote(path) + "?" + urlencode({"mode": "ro", **params})


def _uri_path(path: str, shown: str, secrets: tuple[str, ...]) -> str | None:
    """The file a ``file:`` URI names (SQLAlchemy's ``uri=true``: ``sqlite:///file:x.db?mode=ro&uri=true``):
    ``file:rel.db``, ``file:///abs/x.db`` or ``file://localhost/abs/x.db``, percent-decoded; a path without
    ``file:`` is the path itself; ``file::memory:`` is in memory (None)."""
    if not path.startswith("file:"):
        return path
    body = path[len("file:"):]
    if body.startswith("//"):
        authority, _, rest = body[2:].partition("/")
        if authority not in ("", "localhost"):
            raise VeracityError(redact(f"cannot open {shown}: a file: URI names a file on this machine "
                                       "(file:rel.db, file:///abs/x.db)", secrets))
        body = "/" + rest
    body = unquote(body)
    return None if body in ("", ":memory:") else body


def _must_exist(path: str, shown: str, secrets: tuple[str, ...]) -> None:
    """A database file that is not there, refused in one line (it is opened read-only, never created)."""
    if not os.path.exists(path):
        where = "" if os.path.isabs(path) else f" (relative to {os.getcwd()})"
        raise VeracityError(redact(f"cannot connect to {shown}: no file {path}{where}; the database is "
                                   "opened read-only, never created", secrets))
