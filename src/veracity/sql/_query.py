r"""The audit's SQL, generated through sqlglot for the connection's dialect.

Only aggregates leave the database:

* :func:`screen_sql` — one row: the rows, and how many break the input contract (a cheap
  aggregate, for the audits that need the row count first; the default audit screens inside
  :func:`stats_sql`); only when some do, :func:`contract_sql` counts which ways (missing/NaN/
  infinite scores, probabilities outside [0, 1], labels other than 0/1, bad weights) for
  the same one-line errors as the other backends;
* :func:`stats_sql` — per (slice, bin): the count and the weighted sums of
  :class:`~veracity.BinStats` (Σw, Σw², Σwp, Σwy, Σwp², Σwpy, Σw·ℓ), Σw·[correct] and the
  bin's share of the exact Mann–Whitney AUC. The rows are aggregated once per distinct
  score with their positive and negative weight; a running sum of the negative weight in
  score order gives each score's part of :math:`2U = \sum_v w_+(v)\,(2W_-(<v) + w_-(v))`
  (ties count ½) — partitioned by bin on parallel engines, where :func:`combine_bins` adds
  the pairs across bins, over the whole slice on row-at-a-time ones (PostgreSQL, SQLite),
  whose grouping sort then feeds the window (:func:`window_by_bin`). One statement, one
  pass over the rows;
* :func:`auc_sql` — the same 2U for the whole table of a sliced audit (or a pooled slice);
* :func:`positions_sql` — the scores at given sorted positions (equal-mass edges).

The user's names (table, columns) and values (``pos_label``, slice keys) enter the
tree only as sqlglot identifier and literal nodes: sqlglot quotes and escapes them for
the dialect, so no name or value can end a string or a statement. Fixed parts are
templates of internal names (``_s``, ``_y`` …) and numbers formatted by :func:`_num`.
"""

from __future__ import annotations

import functools
import re
import math
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from ..core._validation import PROB_EPS, VeracityError

#: largest finite double: beyond it a value is infinite (written as a cast, exact in every dialect)
_MAX = "CAST('1.7976931348623157e308' AS DOUBLE)"
#: |x| above which exp(-|x|) is 0 in double precision's sums (PostgreSQL refuses exp's underflow)
_EXP_CAP = 700
#: p² of a row, 0 where it would underflow (p < 1e-150: PostgreSQL refuses a product that underflows;
#: such a square is below 1e-300, nothing in any sum of the audit)
_SQUARE_P = "(CASE WHEN _p < 1e-150 THEN 0.0 ELSE _p * _p END)"


#: dialects whose multiplication refuses a nonzero product that rounds to 0 ("value out of range:
#: underflow"), where every other engine and numpy give 0
_STRICT_UNDERFLOW = frozenset({"postgres", "redshift"})
#: ln of the largest product that still rounds to 0 in doubles is ln(2**-1075) = -745.13: below this
#: (a margin for LN's rounding) the product is 0 or the smallest subnormal, 5e-324
_LN_ZERO = -744.4


def _mul(a: str, b: str, dialect: str) -> str:
    """``a * b`` as IEEE doubles (and numpy) compute it: a product that rounds to 0 is 0.

    On PostgreSQL and Redshift such a product is an error (weights below 1e-162 squared, a weight of
    1e-20 times the probability of a logit of -720): there, the product is taken only where both
    factors are at least 1e-154 (a normal result), or where ``ln|a| + ln|b|`` says it is not 0."""
    if dialect not in _STRICT_UNDERFLOW:
        return f"{a} * {b}"
    return (f"(CASE WHEN ABS({a}) >= 1e-154 AND ABS({b}) >= 1e-154 THEN {a} * {b} "
            f"WHEN {a} = 0 OR {b} = 0 THEN 0.0 "
            f"WHEN LN(ABS({a})) + LN(ABS({b})) < {_LN_ZERO} THEN 0.0 ELSE {a} * {b} END)")


def _sqlglot() -> Any:
    try:
        import sqlglot
    except ImportError:  # pragma: no cover - sqlglot is a dependency of this feature
        raise VeracityError("auditing inside a database needs sqlglot: pip install sqlglot") from None
    return sqlglot


def write(tree: Any, dialect: str) -> str:
    """``tree.sql(dialect=dialect, unsupported_level=RAISE)``, the same text written faster: by the
    generator the calibrators' SQL uses (:func:`veracity.export._sql.dialect_generator`; SQLite's skips
    sqlglot's re-parse of five type names at every ``CAST``, each a tokenizer and a parser). The tree is copied first, as
    ``tree.sql`` copies it (it holds the caller's nodes: ``base``, the placeholders' values)."""
    from ..export._sql import dialect_generator

    generator = dialect_generator(dialect, plain=True)(unsupported_level=_sqlglot().ErrorLevel.RAISE)
    return str(generator.generate(tree, copy=True))


def ident(name: Any, role: str) -> Any:
    """A quoted identifier node for a user's name (the one place names enter the SQL)."""
    from sqlglot import exp

    if not isinstance(name, str) or not name:
        raise VeracityError(f"{role} must name a column or table (a non-empty string), got {name!r}")
    if "\x00" in name:
        raise VeracityError(f"{role} {name!r} contains a NUL character, which no database accepts in a name")
    return exp.to_identifier(name, quoted=True)


def table_node(table: Any) -> Any:
    """``"t"`` or ``("schema", "t")`` / ``("catalog", "schema", "t")`` as a quoted table node."""
    from sqlglot import exp

    parts = [table] if isinstance(table, str) else list(table) if isinstance(table, (list, tuple)) else None
    if not parts or len(parts) > 3:
        raise VeracityError(
            f"table= names one table: a string, or a tuple (schema, table) / (catalog, schema, table); got {table!r}"
        )
    nodes = [ident(p, "table") for p in parts]
    kwargs = dict(zip(("this", "db", "catalog"), reversed(nodes)))
    return exp.Table(**kwargs)


def literal(value: Any, dialect: str | None = None) -> Any:
    """A literal node for a label value or slice key (strings escaped by sqlglot); ``dialect``
    writes an infinite number and the bytes of a BLOB/BYTEA value (:func:`_bytes`)."""
    import datetime

    from sqlglot import exp

    if value is None:
        return exp.null()
    if isinstance(value, (bool, np.bool_)):
        return exp.Boolean(this=bool(value))
    if isinstance(value, np.timedelta64):  # a numpy integer too: an interval key (Arrow's), never a number
        value = datetime.timedelta(microseconds=int(value.astype("timedelta64[us]").astype(np.int64)))
    elif isinstance(value, (int, np.integer)):
        return exp.Literal.number(int(value))
    if isinstance(value, (float, np.floating)):
        if value != value:  # a NaN slice key (equal to itself in DuckDB and PostgreSQL, absent in SQLite)
            return exp.Cast(this=exp.Literal.string("NaN"), to=exp.DataType.build("double"))
        if math.isinf(value):  # an infinite slice key: SQLite reads 1e999 as inf (and its text 'Infinity' as 0)
            if dialect == "sqlite":
                return exp.Literal.number("1e999" if value > 0 else "-1e999")
            return exp.Cast(this=exp.Literal.string("Infinity" if value > 0 else "-Infinity"),
                            to=exp.DataType.build("double"))
        if dialect == "sqlite":  # as a CAST of its text, which sqlite_exact_doubles writes exactly
            return exp.Cast(this=exp.Literal.string(_num(float(value))), to=exp.DataType.build("double"))
        return exp.Literal.number(_num(float(value)))
    if isinstance(value, str):
        if "\x00" in value:
            if dialect not in _NUL_CHAR:
                raise VeracityError(f"the value {value!r} contains a NUL character; {dialect or 'this'} "
                                    "database cannot take it in a query")
            # DuckDB and SQLite hold NUL in text (a key of a capped by=): the parts joined by CHR(0) / CHAR(0)
            nul = exp.Anonymous(this=_NUL_CHAR[dialect], expressions=[exp.Literal.number(0)])
            parts = value.split("\x00")
            node: Any = exp.Literal.string(parts[0])
            for part in parts[1:]:
                node = exp.DPipe(this=exp.DPipe(this=node, expression=nul.copy()), expression=exp.Literal.string(part))
            return exp.Paren(this=node)
        return exp.Literal.string(value)
    import decimal
    import uuid

    if isinstance(value, decimal.Decimal) and value.is_finite():
        return exp.Literal.number(str(value))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _bytes(bytes(value), dialect)
    if isinstance(value, datetime.timedelta):
        # an INTERVAL key as its length in microseconds: PostgreSQL and DuckDB compare intervals by length
        # (1 month = 30 days = 720 hours), and hand each back as that length
        micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
        return exp.Cast(this=exp.Literal.string(f"{micros} microseconds"), to=exp.DataType.build("interval"))
    # slice keys of a DATE, TIMESTAMP, TIME or UUID column (a capped by=): the value as text, cast back to
    # its type, so the database compares it as it compared the rows (isoformat keeps every microsecond)
    typed = _TYPED_TEXT.get(type(value))
    if isinstance(value, datetime.datetime):
        typed = "TIMESTAMPTZ" if value.tzinfo is not None else "TIMESTAMP"
    if typed is not None:
        text = value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else (
            str(value) if isinstance(value, uuid.UUID) else value.isoformat())
        return exp.Cast(this=exp.Literal.string(text), to=exp.DataType.build(typed))
    raise VeracityError(
        f"a value of type {type(value).__name__} ({value!r}) cannot be written into the query; "
        "use a column of numbers, text or booleans"
    )


#: dialects whose text may hold NUL, and their function that makes the character
_NUL_CHAR = {"duckdb": "CHR", "sqlite": "CHAR"}


def _bytes(value: bytes, dialect: str | None) -> Any:
    """A BLOB/BYTEA constant: ``DECODE('00ff', 'hex')`` on PostgreSQL (where ``x'00ff'`` is a bit
    string), ``FROM_HEX('00ff')`` on DuckDB, sqlglot's hex string (SQLite's ``x'00ff'``) elsewhere."""
    from sqlglot import exp

    text = exp.Literal.string(value.hex())
    if dialect in ("postgres", "redshift"):
        return exp.Anonymous(this="DECODE", expressions=[text, exp.Literal.string("hex")])
    if dialect == "duckdb":
        return exp.Anonymous(this="FROM_HEX", expressions=[text])
    return exp.HexString(this=value.hex())


def _typed_text() -> dict[type, str]:
    import datetime
    import uuid

    return {datetime.datetime: "TIMESTAMP", datetime.date: "DATE", datetime.time: "TIME", uuid.UUID: "UUID"}


#: Python types of slice keys written as ``CAST('text' AS type)`` (see :func:`literal`)
_TYPED_TEXT = _typed_text()


def _num(x: float | int) -> str:
    """A number as SQL text (shortest round-trip digits); refuses NaN and infinity."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return str(int(x))
    x = float(x)
    if not math.isfinite(x):
        raise VeracityError(f"cannot write the number {x!r} into SQL")
    return repr(x)


def _dbl(x: float) -> str:
    """A double-precision constant, parsed by the database from its shortest round-trip text (on SQLite
    rewritten exactly by :func:`sqlite_exact_doubles`)."""
    return f"CAST('{_num(x)}' AS DOUBLE)"


#: a quoted identifier, a string literal, or ``CAST('<decimal>' AS REAL)`` as SQLite's SQL writes a double
_SQLITE_DOUBLE = re.compile(r"""("(?:[^"]|"")*")|('(?:[^']|'')*')"""
                            r"""|CAST\('([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)' AS REAL\)""")
#: 2⁶², the largest power of two an INTEGER literal holds
_TWO_62 = 1 << 62


def _exact_double(text: str) -> str:
    """SQLite SQL for the double ``float(text)``, exact: ``CAST(m AS REAL)`` (an integer, |m| < 2⁵³) times or
    over powers of two (integers up to 2⁶²; each product and quotient is exact, its value representable),
    ``CAST(CAST(5727746808064675 AS REAL) / 9007199254740992 AS REAL)`` for ``0.635907638553665``."""
    x = float(text)
    if x == 0.0 or not math.isfinite(x):
        return f"CAST('{text}' AS REAL)"
    mantissa, exponent = math.frexp(x)  # x = mantissa · 2^exponent, 0.5 <= |mantissa| < 1
    m, e = int(mantissa * 2.0 ** 53), exponent - 53
    while m % 2 == 0:
        m, e = m // 2, e + 1
    out = f"CAST({m} AS REAL)"
    op = " * " if e > 0 else " / "
    e = abs(e)
    while e > 0:
        step = min(e, 62)
        out += f"{op}{1 << step}"
        e -= step
    return f"CAST({out} AS REAL)"  # (still a CAST of a double, as the text it replaces)


def sqlite_exact_doubles(sql: str) -> str:
    """``sql`` with every double constant written ``CAST('0.635907638553665' AS REAL)`` replaced by
    :func:`_exact_double`'s exact form. SQLite (3.40 here) parses a decimal text to the nearest double only
    most of the time: ``0.635907638553665`` reads as ``0.6359076385536651``, about 1 in 10⁵ texts of random
    doubles. An equal-mass edge is a score: read one ulp off, the rows holding that score changed bin (a
    2,500-bin weighted audit printed a bin of weight 4.4 where the rows in memory give 3.7). Quoted names
    and string literals are left as they are."""
    def one(found: re.Match[str]) -> str:
        return found.group(0) if found.group(3) is None else _exact_double(found.group(3))

    return _SQLITE_DOUBLE.sub(one, sql)


def _isnan(col: str, dialect: str) -> str:
    """SQL that is true where ``col`` is NaN (false where the engine cannot store NaN)."""
    if dialect in ("sqlite", "mysql", "tsql"):  # NaN is stored as NULL or refused
        return "FALSE"
    if dialect in ("postgres", "redshift", "snowflake"):  # NaN equals itself there
        return f"{col} = CAST('NaN' AS DOUBLE)"
    return f"ISNAN({col})"  # duckdb, spark, databricks (ISNAN); bigquery, trino (IS_NAN); clickhouse


@dataclass(frozen=True)
class Columns:
    """The user's column names and how the label is read."""

    table: Any
    score: str
    label: str
    weight: str | None = None
    by: str | None = None
    #: "numeric" (cast to double), "bool" (TRUE/FALSE), or "pos" (equals :attr:`pos_value`)
    label_kind: str = "numeric"
    pos_value: Any = None
    #: power of two the weights are multiplied by (the array contract's rescaling)
    weight_scale: float = 1.0
    #: BOOLEAN score / weight columns, read as 1.0 / 0.0 as the arrays and frames read them
    score_bool: bool = False
    weight_bool: bool = False
    #: the slice cap, applied in the database: (kept slice keys, whether the NULL key is kept). The rows of
    #: every other key are one slice there (``_o`` = 1, ``_g`` NULL), so a ``by=`` of a million values
    #: brings back the cap's slices, never one aggregate per value
    pool: tuple[tuple[Any, ...], bool] | None = None
    #: the ``by=`` column read as text (DuckDB's TIMESTAMP_NS / TIME_NS: Python's datetime holds microseconds,
    #: so keys that differ below one would be one key, and a kept key's literal would miss its rows)
    by_text: bool = False
    #: the ``by=`` column holds numbers that may be NaN (a DOUBLE, or a PostgreSQL NUMERIC): its NaN is read
    #: as NULL, the one missing key of every route (:func:`veracity.core._keys.is_missing`)
    by_nan: bool = False
    #: the ``by=`` column is a NUMERIC whose values the driver hands back as text (ADBC's PostgreSQL driver):
    #: its keys are read back as ``Decimal``, as psycopg hands them (:data:`PG_NUMBER_TYPES`)
    by_decimal_text: bool = False
    #: the ``by=`` column holds single-precision floats (DuckDB's FLOAT, PostgreSQL's REAL): a key is named as
    #: the float32 it is (``0.1``, as the array form names a float32 key), not as its double
    #: (``0.10000000149011612``, which DuckDB and ADBC hand back)
    by_float32: bool = False


def _as_double(col: Any, boolean: bool) -> Any:
    """``CAST(col AS DOUBLE)``, or for a BOOLEAN column ``CASE WHEN col THEN 1.0 WHEN NOT col THEN 0.0
    END`` (NULL stays NULL: PostgreSQL has no cast from boolean to double)."""
    from sqlglot import exp

    if not boolean:
        return exp.Cast(this=col, to=exp.DataType.build("double"))
    one_zero = exp.case().when(col.copy(), exp.Literal.number("1.0")).when(exp.Not(this=col.copy()),
                                                                        exp.Literal.number("0.0"))
    return exp.Cast(this=one_zero, to=exp.DataType.build("double"))


def numeric_nan(dialect: str) -> bool:
    """Whether a NUMERIC / DECIMAL column of ``dialect`` can hold NaN (PostgreSQL's can; NaN equals
    itself there)."""
    return dialect in ("postgres", "redshift", "snowflake")


def missing_nan(g: Any, dialect: str) -> Any:
    """``CASE WHEN NOT <g is NaN> THEN g END``: the slice key ``g`` with NaN made NULL, so a NaN key and
    a NULL key are one slice, ``(missing)``, as on every other route (a float array or a pandas column
    cannot tell them apart). Unchanged where the engine stores no NaN (SQLite, MySQL, SQL Server)."""
    from sqlglot import exp

    if dialect in ("sqlite", "mysql", "tsql"):  # NaN is stored as NULL or refused
        return g
    if numeric_nan(dialect):  # NaN equals itself there (a NUMERIC's NaN too)
        nan: exp.Expression = exp.EQ(this=g.copy(), expression=literal(float("nan"), dialect))
    else:  # ISNAN (DuckDB, Spark, Databricks), IS_NAN (BigQuery, Trino), isNaN (ClickHouse)
        nan = exp.IsNan(this=g.copy())
    return exp.case().when(exp.Not(this=nan), g)


def base_select(c: Columns, dialect: str, *, integer: bool = False) -> Any:
    """``SELECT _s, _y, _w[, _g][, text flags] FROM table``: the only node holding user names.

    Unweighted, ``_w`` is the double 1.0 (a bare ``1.0`` would be an exact decimal in PostgreSQL
    and DuckDB, whose arithmetic is many times slower), or the integer 1 with ``integer``.
    """
    from sqlglot import exp

    double = exp.DataType.build("double")
    s = exp.column(ident(c.score, "score"))
    y = exp.column(ident(c.label, "label"))
    y_expr: exp.Expression
    if c.label_kind == "pos":
        y_expr = exp.case().when(y.is_(exp.null()), exp.null()).when(
            exp.EQ(this=y.copy(), expression=literal(c.pos_value, dialect)), exp.Literal.number("1.0")
        ).else_(exp.Literal.number("0.0"))
    elif c.label_kind == "bool":
        y_expr = exp.case().when(y.copy(), exp.Literal.number("1.0")).when(
            exp.Not(this=y.copy()), exp.Literal.number("0.0"))
    else:
        y_expr = y
    cols = [exp.alias_(_as_double(s, c.score_bool), "_s"),
            exp.alias_(exp.Cast(this=y_expr, to=double.copy()), "_y")]
    if c.weight is not None:
        w: exp.Expression = _as_double(exp.column(ident(c.weight, "sample_weight")), c.weight_bool)
        if c.weight_scale != 1.0:
            scaled: exp.Expression = exp.Mul(this=w, expression=exp.Literal.number(_num(c.weight_scale)))
            k = -math.frexp(c.weight_scale)[1] + 1  # weight_scale = 2**-k
            if dialect in _STRICT_UNDERFLOW and k > 0:  # w * 2**-k rounds to 0 iff |w| <= 2**(k - 1075)
                limit = exp.Literal.number(_num(math.ldexp(1.0, k - 1075)))
                zero = exp.LTE(this=exp.Abs(this=w.copy()), expression=limit)
                scaled = exp.case().when(zero, exp.Literal.number("0.0")).else_(scaled)
            w = scaled
        cols.append(exp.alias_(w, "_w"))
    else:
        one = exp.Literal.number(1)
        cols.append(exp.alias_(one if integer else exp.Cast(this=one, to=double.copy()), "_w"))
    if c.by is not None:
        g: exp.Expression = exp.column(ident(c.by, "by"))
        if c.by_text:
            g = exp.Cast(this=g, to=exp.DataType.build("text"))
        elif c.by_nan:
            g = missing_nan(g, dialect)
        if c.pool is None:
            cols.append(exp.alias_(g, "_g"))
        else:  # the capped slices (see Columns.pool): kept keys as they are, the others NULL with _o = 1
            values, null_kept = c.pool
            tests: list[Any] = [g.copy().isin(*(literal(k, dialect) for k in values))] if values else []
            if null_kept:
                tests.append(g.copy().is_(exp.null()))
            kept = tests[0] if len(tests) == 1 else exp.or_(*tests)
            cols.append(exp.alias_(exp.case().when(kept, g.copy()), "_g"))
            cols.append(exp.alias_(exp.case().when(kept.copy(), exp.Literal.number(0))
                                   .else_(exp.Literal.number(1)), "_o"))
    if dialect == "sqlite":  # dynamic typing: text in a numeric column would cast to 0 silently
        def text_flag(col: Any) -> Any:
            kind = exp.Anonymous(this="typeof", expressions=[col])
            return exp.case().when(kind.isin(exp.Literal.string("text"), exp.Literal.string("blob")),
                                   exp.Literal.number(1)).else_(exp.Literal.number(0))

        cols.append(exp.alias_(text_flag(exp.column(ident(c.score, "score"))), "_ts"))
        if c.label_kind == "numeric":
            cols.append(exp.alias_(text_flag(exp.column(ident(c.label, "label"))), "_ty"))
        if c.weight is not None:
            cols.append(exp.alias_(text_flag(exp.column(ident(c.weight, "sample_weight"))), "_tw"))
    return exp.select(*cols).from_(table_node(c.table))


def render(template: str, base: Any, dialect: str, *, binned: tuple | None = None, **nodes: Any) -> str:
    """The template (DuckDB syntax, internal names only) with ``_base`` defined as ``base``,
    placeholders ``:name`` replaced by nodes, generated for ``dialect``.

    ``binned`` = ``(p, bins, edges, strategy)``: the template's :data:`_BIN` is :func:`_bin`'s bin
    index of ``p``. Many edges (a quantile audit of a thousand bins) make it a binary search over a
    test per edge (:func:`_cuts_passed`), tests which differ only in the edge: the statement is then
    written with two tests, at sentinel edges, in their sum, and that sum is replaced by the search
    with the written test's text copied for every edge -- the text the statement with the search
    written out gives (sqlglot writes a CASE as ``CASE WHEN t THEN a ELSE b END``, a CASE inside a
    sum without parentheses, and an edge as its digits), at the cost of two tests instead of a
    thousand. Where the sentinels' text is not found as written, every test is written out."""
    if binned is None:
        return _render(template, base, dialect, **nodes)
    p, bins, edges, strategy = binned
    cuts = _cuts(edges, strategy)
    if cuts is None or len(cuts) < _COPIED_TESTS:
        return _render(template.replace(_BIN, _bin(p, bins, edges, strategy)), base, dialect, **nodes)
    op = _cut_op(strategy)
    one, two = (_num(v) for v in _EDGE_SENTINELS)

    def test(cut: str) -> str:
        return f"CASE WHEN {p} {op} CAST('{cut}' AS DOUBLE) THEN 1 ELSE 0 END"

    once = _render(template.replace(_BIN, f"{test(one)} + {test(two)}"), base, dialect, **nodes)
    item = _written_item(test(one), dialect)
    key1, key2 = f"'{one}'", f"'{two}'"
    pair = f"{item} + {item.replace(key1, key2)}"
    head, tail = "CASE WHEN ", " THEN 1 ELSE 0 END"
    if (not item or item.count(key1) != 1 or once.count(pair) != 1 or once.count(key1) != 1
            or once.count(key2) != 1 or not item.startswith(head) or not item.endswith(tail)
            ):  # pragma: no cover - every dialect writes the tests alike
        return _render(template.replace(_BIN, _bin(p, bins, edges, strategy)), base, dialect, **nodes)
    written = item[len(head):-len(tail)]  # the test ``p >= CAST('..' AS DOUBLE)`` as the dialect writes it
    return once.replace(pair, _cuts_passed(lambda c: written.replace(key1, f"'{_num(c)}'"), cuts))


def _written_item(item: str, dialect: str) -> str:
    """One select item (DuckDB syntax) as sqlglot writes it for ``dialect`` inside a statement
    ("" where it is not written as a lone item): the text :func:`render` and
    :func:`weighted_cuts_sql` copy."""
    sqlglot = _sqlglot()
    written = write(sqlglot.parse_one(f"SELECT {item}", read="duckdb"), dialect)
    return written[len("SELECT "):] if written.startswith("SELECT ") else ""


#: where a template of :func:`render` takes the bin index of its ``binned`` argument
_BIN = "\x00bin\x00"
#: from this many edges on, :func:`render` writes one edge's test and copies its text
_COPIED_TESTS = 16
#: the edges of the two tests :func:`render` writes (digits no statement holds otherwise)
_EDGE_SENTINELS = (0.987654321987654, 0.876543219876543)


@functools.lru_cache(maxsize=256)
def _parsed_template(template: str) -> Any:
    """A template (DuckDB syntax, internal names only) parsed once a process: :func:`_render` edits a copy.

    An audit writes the same few statements for each of its queries, and again for every audit of a
    process (a monitoring loop, a test run: ~1,300 renders of ~250 distinct templates over tests/sql); a
    parse is a tokenizer and a parser over the whole text, a copy of the tree a fraction of that."""
    return _sqlglot().parse_one(template, read="duckdb")


def _render(template: str, base: Any, dialect: str, **nodes: Any) -> str:
    """:func:`render` of a template without a bin index."""
    from sqlglot import exp
    from sqlglot.dialects.dialect import Dialect

    # a copy of the parsed template, never the template itself (replace_placeholders writes a copy);
    # the placeholders are the template's own (``base`` holds none)
    cached = _parsed_template(template)
    tree = exp.replace_placeholders(cached, **nodes) if nodes else cached.copy()
    for cte in tree.find_all(exp.CTE):
        if cte.alias == "_base":
            cte.set("this", base)
            break
    # the internal sort keys are never NULL: state the target's own NULL order, so nothing is translated
    nulls_small = Dialect.get_or_raise(dialect).NULL_ORDERING == "nulls_are_small"
    for ordered in tree.find_all(exp.Ordered):
        ordered.set("nulls_first", nulls_small if not ordered.args.get("desc") else not nulls_small)
    return write(tree, dialect)


# -- the input contract -----------------------------------------------------------------------------
#: the contract's aggregates, named as :mod:`veracity.sources._aggregates` names them (``_c_`` + name)
CONTRACT = ("_c_n", "_c_s_miss", "_c_s_inf", "_c_s_min", "_c_s_max", "_c_p_bad", "_c_y_bad", "_c_y_min",
            "_c_y_max", "_c_y_sum", "_c_w_bad", "_c_w_neg", "_c_w_min", "_c_w_pos_min", "_c_w_max",
            "_c_w_sum", "_c_t_score", "_c_t_label", "_c_t_weight")

#: the smallest positive weight (NULL where none is): with the largest, the weights' rescaling reads it
#: (:func:`veracity.sources._aggregates.weight_scale`, one rule with the array form)
POS_MIN = "MIN(CASE WHEN _w > 0 THEN _w END)"


def _row_ok(c: Columns, score_type: str) -> str:
    """True where a row meets the contract. NULL fails every comparison, and so does NaN (or, where
    NaN is the largest double, as in PostgreSQL and DuckDB, it fails "<= 1" and "<= MAX")."""
    s_ok = "_s >= 0 AND _s <= 1" if score_type == "probability" else f"_s >= -{_MAX} AND _s <= {_MAX}"
    w_ok = f" AND _w >= 0 AND _w <= {_MAX}" if c.weight is not None else ""
    return f"{s_ok} AND (_y = 0.0 OR _y = 1.0){w_ok}"


def _text_flags(c: Columns, dialect: str) -> list[str]:
    """SQLite's flags of text in numeric columns (see :func:`base_select`)."""
    if dialect != "sqlite":
        return []
    return [f for f, on in (("_ts", True), ("_ty", c.label_kind == "numeric"), ("_tw", c.weight is not None)) if on]


def screen_sql(c: Columns, dialect: str, *, score_type: str) -> str:
    """One row: ``_c_n`` rows, ``_c_bad`` rows that break the contract in any way, the largest
    and the smallest positive weight, and (SQLite) text in numeric columns — a cheap aggregate;
    only when something is wrong does :func:`contract_sql` count what, for the message."""
    ok = _row_ok(c, score_type)
    text = " + ".join(f"SUM({f})" for f in _text_flags(c, dialect)) or "0"
    return render(f"""
WITH _base AS (SELECT 1)
SELECT COUNT(*) AS _c_n, SUM(CASE WHEN {ok} THEN 0 ELSE 1 END) AS _c_bad, MAX(_w) AS _c_w_max,
  {POS_MIN} AS _c_w_pos_min, {text} AS _c_text
FROM _base
""", base_select(c, dialect), dialect)


def contract_sql(c: Columns, dialect: str, *, score_type: str) -> str:
    """One row: every count of the input contract (one flat aggregate over the rows)."""
    weighted = c.weight is not None
    nan_s, nan_y, nan_w = _isnan("_s", dialect), _isnan("_y", dialect), _isnan("_w", dialect)
    s_miss = f"_s IS NULL OR {nan_s}"
    s_inf = f"_s > {_MAX} OR _s < -{_MAX}"
    s_fin = f"NOT ({s_miss}) AND NOT ({s_inf})"
    y_ok = "_y = 0.0 OR _y = 1.0"
    y_miss = f"_y IS NULL OR {nan_y}"
    p_bad = (f"SUM(CASE WHEN ({s_fin}) AND (_s < 0 OR _s > 1) THEN 1 ELSE 0 END)" if score_type == "probability"
             else "0")
    if weighted:
        w_bad = f"_w IS NULL OR {nan_w} OR _w > {_MAX} OR _w < -{_MAX}"
        weights = (f"SUM(CASE WHEN {w_bad} THEN 1 ELSE 0 END) AS _c_w_bad, "
                   f"SUM(CASE WHEN NOT ({w_bad}) AND _w < 0 THEN 1 ELSE 0 END) AS _c_w_neg, "
                   f"MIN(CASE WHEN NOT ({w_bad}) THEN _w END) AS _c_w_min, "
                   f"MIN(CASE WHEN NOT ({w_bad}) AND _w > 0 THEN _w END) AS _c_w_pos_min, "
                   f"MAX(CASE WHEN NOT ({w_bad}) THEN _w END) AS _c_w_max, "
                   # not summed: the contract reads the largest weight, and a sum of weights near the
                   # largest double overflows (PostgreSQL refuses it; the audit rescales them first)
                   "CAST(NULL AS DOUBLE) AS _c_w_sum")
    else:
        weights = ("0 AS _c_w_bad, 0 AS _c_w_neg, 1.0 AS _c_w_min, 1.0 AS _c_w_pos_min, 1.0 AS _c_w_max, "
                   "SUM(_w) AS _c_w_sum")
    sqlite = dialect == "sqlite"
    text = {name: (f"SUM({flag})" if sqlite and flag else "0") for name, flag in
            (("score", "_ts"), ("label", "_ty" if c.label_kind == "numeric" else None),
             ("weight", "_tw" if weighted else None))}
    return render(f"""
WITH _base AS (SELECT 1)
SELECT
  COUNT(*) AS _c_n, SUM(CASE WHEN {s_miss} THEN 1 ELSE 0 END) AS _c_s_miss,
  SUM(CASE WHEN NOT ({s_miss}) AND ({s_inf}) THEN 1 ELSE 0 END) AS _c_s_inf,
  MIN(CASE WHEN {s_fin} THEN _s END) AS _c_s_min, MAX(CASE WHEN {s_fin} THEN _s END) AS _c_s_max,
  {p_bad} AS _c_p_bad,
  SUM(CASE WHEN {y_ok} THEN 0 ELSE 1 END) AS _c_y_bad,
  MIN(CASE WHEN NOT ({y_ok}) AND NOT ({y_miss}) THEN _y END) AS _c_y_min,
  MAX(CASE WHEN NOT ({y_ok}) AND NOT ({y_miss}) THEN _y END) AS _c_y_max,
  SUM(CASE WHEN {y_ok} THEN _y ELSE 0.0 END) AS _c_y_sum,
  {weights},
  {text["score"]} AS _c_t_score, {text["label"]} AS _c_t_label, {text["weight"]} AS _c_t_weight
FROM _base
""", base_select(c, dialect), dialect)


def weight_totals_sql(c: Columns, dialect: str) -> str:
    """One row: Σw and Σw² (the effective size of ``bins="auto"``), weights already rescaled."""
    sq = _products(c, dialect)("_w", "_w")
    return render(f"WITH _base AS (SELECT 1) SELECT SUM(_w) AS _sw, SUM({sq}) AS _sq FROM _base",
                  base_select(c, dialect), dialect)


def logit_scale_sql(c: Columns, dialect: str) -> str:
    """One row: the smallest and the largest score and how many lie strictly inside (0, 1) — declared
    logits that all lie in [0, 1] are probabilities (:func:`veracity.core._validation.check_logit_scale`)."""
    return render("WITH _base AS (SELECT 1) SELECT MIN(_s) AS _c_s_min, MAX(_s) AS _c_s_max, "
                  "SUM(CASE WHEN _s > 0 AND _s < 1 THEN 1 ELSE 0 END) AS _c_s_mid FROM _base",
                  base_select(c, dialect), dialect)


# -- the per-bin statistics and the exact AUC, from one aggregate per distinct score ---------------------
#: the sums of :class:`BinStats` (and Σw·correct), in the order the query returns them
SUMS = ("count", "weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll", "correct",
        "sum_r", "sum_q1", "sum_r2", "sum_w2y", "sum_w2pq")
#: unweighted counts above this are summed as integers (below, doubles hold every partial sum exactly)
EXACT_DOUBLE_ROWS = 10**8


#: -s beyond which exp(-s) would overflow (PostgreSQL refuses it): the logistic is below 1.2e-308 there
_SIGMOID_CAP = 709


def _probability(v: str, score_type: str) -> str:
    """The logistic of a logit as the array form computes it (``scipy.special.expit``: 1 / (1 + exp(-s))
    for every s, bit for bit; exp(s) / (1 + exp(s)) differs in the last bit, moving scores on a bin edge).
    exp's argument is kept within [-700, 709] (PostgreSQL refuses exp's overflow and underflow): beyond,
    the logistic is exactly 1.0, or below 1.2e-308."""
    if score_type == "probability":
        return v
    arg = (f"CASE WHEN {v} < -{_SIGMOID_CAP} THEN {_SIGMOID_CAP} WHEN {v} > {_EXP_CAP} THEN -{_EXP_CAP} "
           f"ELSE -({v}) END")
    return f"1.0 / (1.0 + EXP({arg}))"


def _bin(p: str, bins: int, edges: np.ndarray | None, strategy: str) -> str:
    """The bin index rule of :func:`veracity.core._binning.bin_index`, in SQL.

    Uniform: ``min(floor(p·m), m − 1)``; a score below 0 (a row that breaks the contract, which the
    screen counts and whose sums are never used) is bin 0, never a cast of ``floor(-inf)`` to an
    integer: that cast fails the statement, and on DuckDB a failed statement aborts the caller's
    open transaction (DuckDB has no savepoints)."""
    if edges is None or strategy == "uniform":
        m = int(bins)
        return (f"CASE WHEN {p} * {m} >= {m - 1} THEN {m - 1} WHEN {p} * {m} >= 0 "
                f"THEN CAST(FLOOR({p} * {m}) AS BIGINT) ELSE 0 END")
    cuts = _cuts(edges, strategy)
    if not cuts:
        return "0"
    op = _cut_op(strategy)
    return _cuts_passed(lambda c: f"{p} {op} {_dbl(c)}", cuts)


def _cuts_passed(test: Callable[[float], str], cuts: list[float]) -> str:
    """``#{i : test(c_i)}``, the number of cuts a score passes (``p >= c`` or ``p > c``): the bin index.

    Over sorted cuts the tests that hold are a prefix, so the count is a binary search, ``CASE WHEN
    test(c_mid) THEN <count over the later cuts, at least mid + 1> ELSE <over the earlier, at most
    mid> END``, nested log2(cuts) deep: log2(cuts) comparisons a row, where the sum of a test per cut
    made one per cut (a quantile audit of 1,000 bins: 999). Each row takes the branch each test would
    give it: a NULL score fails every test, 0 as in the sum; a NaN one passes all (DuckDB, PostgreSQL) or
    none, as in the sum. Cuts out of order (never: edges are sorted) are counted by the sum."""
    if any(b < a for a, b in zip(cuts, cuts[1:])):  # pragma: no cover - bin edges are sorted
        return _balanced_sum([f"CASE WHEN {test(c)} THEN 1 ELSE 0 END" for c in cuts])

    def count(lo: int, hi: int) -> str:  # cuts[:lo] passed, cuts[hi:] not: the count among cuts[lo:hi]
        if lo >= hi:
            return str(lo)
        mid = (lo + hi) // 2
        return f"CASE WHEN {test(cuts[mid])} THEN {count(mid + 1, hi)} ELSE {count(lo, mid)} END"

    return count(0, len(cuts))


def _cuts(edges: np.ndarray | None, strategy: str) -> list[float] | None:
    """The inner edges :func:`_bin` tests (None: the uniform rule, no tests)."""
    if edges is None or strategy == "uniform":
        return None
    return [float(c) for c in edges[1:-1]]


def _cut_op(strategy: str) -> str:
    return ">=" if strategy == "quantile" else ">"  # searchsorted side='right' / side='left'


def _balanced_sum(terms: list[str]) -> str:
    """``t1 + t2 + …`` as a balanced tree of parenthesised halves: a depth of log2(terms), where the
    flat sum of a thousand edges' tests is an expression tree a thousand deep, beyond SQLite's and
    DuckDB's limit of 1000."""
    if len(terms) <= 8:
        return " + ".join(terms)
    mid = len(terms) // 2
    return f"({_balanced_sum(terms[:mid])}) + ({_balanced_sum(terms[mid:])})"


def _nll(score_type: str, positive: bool) -> str:
    """Log-loss of a row with this score and label (:func:`veracity.core._validation.binary_nll_terms`)."""
    if score_type == "logit":  # softplus(x) = max(x, 0) + log(1 + exp(-|x|)), x = -s for y = 1, s for y = 0
        x = "(-_s)" if positive else "_s"
        ax = f"(CASE WHEN ABS({x}) > {_EXP_CAP} THEN {_EXP_CAP} ELSE ABS({x}) END)"
        return f"(CASE WHEN {x} > 0 THEN {x} ELSE 0.0 END) + LN(1.0 + EXP(-{ax}))"
    q = "_p" if positive else "(1.0 - _p)"
    return f"-LN(CASE WHEN {q} < {_dbl(PROB_EPS)} THEN {_dbl(PROB_EPS)} ELSE {q} END)"


def _decision(score_type: str, threshold: float) -> str:
    if score_type == "logit" and 0.0 < threshold < 1.0:  # on the logit scale, as vc.accuracy decides
        return f"_s >= {_dbl(math.log(threshold / (1.0 - threshold)))}"
    return f"_p >= {_dbl(threshold)}"


#: dialects whose running sum is partitioned by bin (the engine sorts the bins in parallel); on the
#: others — row-at-a-time engines, which sort once — it runs over the whole slice in score order, so
#: the per-score aggregate's own order (a sort by score) feeds the window without a second sort
_WINDOW_BY_BIN = frozenset({"duckdb", "spark", "databricks", "bigquery", "snowflake", "trino", "clickhouse"})


def window_by_bin(dialect: str) -> bool:
    """Whether :func:`stats_sql` and :func:`auc_sql` partition the AUC's running sum by bin
    (then :func:`combine_bins` adds the pairs across bins)."""
    return dialect in _WINDOW_BY_BIN


def _products(c: Columns, dialect: str) -> Any:
    """``mul(a, b)``: the SQL of a product of the weighted sums (:func:`_mul`; unweighted, every product
    has a factor of at least 1 or exactly 0, and none can underflow)."""
    strict = dialect if c.weight is not None else ""
    return lambda a, b: _mul(a, b, strict)


def _slices(c: Columns, grouped: bool) -> str:
    """The slice columns of a grouped statement: ``_g``, or ``_o, _g`` where the cap is applied in the
    database (:attr:`Columns.pool`); empty when not grouped."""
    if not grouped:
        return ""
    return "_o, _g" if c.pool is not None else "_g"


def _per_value(c: Columns, grouped: bool, integer: bool, where: str = "",
               screen: tuple[str, list[str]] | None = None, dialect: str = "", squares: bool = False) -> str:
    """CTE ``_val``: per [slice and] distinct score, the rows, Σw, Σw² and the positive weight.

    Grouped by the score alone (its bin is a function of it, computed on the grouped rows):
    an engine that sorts to group (PostgreSQL, SQLite) hands the window below its rows
    already in score order — one sort, on the narrowest key.

    ``screen`` = (the contract's row condition, SQLite's text flags): also count the rows that
    break the contract (``_nb``), the text cells (``_nt``), the largest weight (``_wm``) and the
    smallest positive one (``_wp``). ``squares`` (weighted only): also the positives' Σw² (``_w21``)."""
    g = f"{_slices(c, grouped)}, " if grouped else ""
    one = "CASE WHEN _y = 1.0 THEN 1 ELSE 0 END" if integer else "CASE WHEN _y = 1.0 THEN _w ELSE 0.0 END"
    extra_aggs = ""
    if screen is not None:
        ok, flags = screen
        text = " + ".join(f"SUM({f})" for f in flags) or "0"
        extra_aggs = (f", SUM(CASE WHEN {ok} THEN 0 ELSE 1 END) AS _nb, {text} AS _nt, MAX(_w) AS _wm, "
                      f"{POS_MIN} AS _wp")
    square = _products(c, dialect)('_w', '_w')
    if squares and c.weight is not None:  # the positives' Σw² (Σw²y, see _square_sums)
        extra_aggs = f", SUM(CASE WHEN _y = 1.0 THEN {square} ELSE 0.0 END) AS _w21{extra_aggs}"
    return (f"_val AS (SELECT {g}_s, COUNT(*) AS _n, SUM(_w) AS _ws, SUM({square}) AS _w2, "
            f"SUM({one}) AS _w1"
            f"{extra_aggs} FROM _base {where} GROUP BY {g}_s)")


def _below(c: Columns, grouped: bool, dialect: str) -> str:
    """The negative weight before each distinct score: in its bin, or in its slice (see :func:`window_by_bin`)."""
    keys = ([_slices(c, grouped)] if grouped else []) + (["_b"] if window_by_bin(dialect) else [])
    part = f"PARTITION BY {', '.join(keys)} " if keys else ""
    return (f"SUM(_ws - _w1) OVER ({part}ORDER BY _s ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
            " - (_ws - _w1)")


def stats_sql(c: Columns, dialect: str, *, score_type: str, threshold: float, bins: int, n: int,
              edges: np.ndarray | None = None, strategy: str = "uniform", grouped: bool = False,
              screen: bool = False, rows: bool = False, limit: int | None = None) -> str:
    r"""Per (slice, bin): the sums of :class:`BinStats`, Σw·correct and the bin's share of 2U.

    The rows are aggregated once per distinct score (and slice); every per-row quantity is
    a function of the score and the label, so the per-bin sums follow from the per-score
    totals. A running sum of the negative weight in score order gives each bin's share of
    2U: inside each bin (a contiguous range of scores) on parallel engines, which sort the
    bins in parallel, and :func:`combine_bins` adds the pairs across bins; over the whole
    slice on row-at-a-time engines (:func:`window_by_bin`).
    The sums mean something only when every row meets the contract: screen first
    (:func:`screen_sql`), or pass ``screen=True`` to count the rows that break it in this same
    pass (``_c_bad``, ``_c_text``, ``_c_w_max``, ``_c_w_pos_min``) and use the sums only when none
    does — such rows may also make the statement fail (a cast of an infinite bin), which the
    caller treats alike.

    With ``rows`` (mostly distinct scores on a row-at-a-time engine, see :func:`route_sql`) the
    per-score aggregate is skipped: :func:`_rows_stats_sql` runs the window over the rows.

    ``limit``: at most this many (slice, bin) rows come back (a sliced audit asks for one more than its
    cap's slices can fill: more means too many slices, which are then capped in the database).
    """
    if rows:
        return _rows_stats_sql(c, dialect, score_type=score_type, threshold=threshold, bins=bins, n=n,
                               edges=edges, strategy=strategy, grouped=grouped, screen=screen, limit=limit)
    integer = c.weight is None and n > EXACT_DOUBLE_ROWS
    g = f"{_slices(c, grouped)}, " if grouped else ""
    kept = (", _w21" if c.weight is not None else "") + (", _nb, _nt, _wm, _wp" if screen else "")
    screened = (", SUM(_nb) AS _c_bad, SUM(_nt) AS _c_text, MAX(_wm) AS _c_w_max, MIN(_wp) AS _c_w_pos_min"
                if screen else "")
    per_value = _per_value(c, grouped, integer, dialect=dialect, squares=True,
                           screen=(_row_ok(c, score_type), _text_flags(c, dialect)) if screen else None)
    mul = _products(c, dialect)
    prob = _probability("_s", score_type)
    return render(f"""
WITH _base AS (SELECT 1),
{per_value},
_pb AS (SELECT {g}_s, _n, _ws, _w2, _w1{kept}, {prob} AS _p, {_BIN} AS _b FROM _val),
_run AS (
  SELECT {g}_b, _s, _n, _ws, _w2, _w1{kept}, _ws - _w1 AS _w0, _p, {_below(c, grouped, dialect)} AS _below
  FROM _pb),
_fin AS (
  SELECT {g}_b, _n, _ws, _w2, _w1{kept}, _w0, _p, _below,
    {_nll(score_type, True)} AS _l1, {_nll(score_type, False)} AS _l0,
    CASE WHEN {_decision(score_type, threshold)} THEN _w1 ELSE _w0 END AS _ok, {_complement(score_type)} AS _q
  FROM _run)
SELECT {g}_b,
  SUM(_n) AS "count", SUM(_ws) AS weight, SUM(_w2) AS weight_sq, SUM({mul("_p", "_ws")}) AS sum_p,
  SUM(_w1) AS sum_y, SUM({mul(_SQUARE_P, "_ws")}) AS sum_p2, SUM({mul("_p", "_w1")}) AS sum_py,
  SUM({mul("_l1", "_w1")} + {mul("_l0", "_w0")}) AS sum_nll,
  SUM(_ok) AS correct, SUM({mul("_w1", "(2 * _below + _w0)")}) AS _num, SUM(_w1) AS _pos, SUM(_w0) AS _neg,
  {_residual_sums(mul, "_w0", "_w1", "_q")}, {_square_sums(c, mul, "_w21", "_w2", "_q")}{screened}
FROM _fin
GROUP BY {g}_b{_limit(limit)}
""", base_select(c, dialect, integer=integer), dialect, binned=(prob, bins, edges, strategy))


#: the running weight up to and including a score's ties (the default RANGE frame, written out)
_UPTO = "(ORDER BY _s RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
#: dialects whose sort of the rows leads with an integer image of the score (see :func:`_upto`)
_INTEGER_KEY = frozenset({"postgres"})
#: the scores are clamped to ±2**_KEY_CLAMP, then scaled by 2**(62 - _KEY_CLAMP): |key| <= 2**62
_KEY_CLAMP = 1


def _upto(dialect: str, partition: str = "") -> str:
    r"""The window of :data:`_UPTO`, optionally ``PARTITION BY`` ``partition``.

    On PostgreSQL the order is ``(k(_s), _s)`` with the integer
    :math:`k(s) = \mathrm{round}(\mathrm{clamp}(s, \pm 2)\cdot 2^{61})`: non-decreasing in
    :math:`s`, so the rows' order and the peers of a row (equal on both keys: equal scores) are
    those of ``ORDER BY _s``, but the sort compares a leading ``bigint`` (PostgreSQL's
    specialised integer sort) and looks at ``_s`` only where two keys are equal (probabilities
    below 2⁻⁹ or beyond the clamp). A NaN is clamped (the largest value there), never an error."""
    part = f"PARTITION BY {partition} " if partition else ""
    key = "_s"
    if dialect in _INTEGER_KEY:
        bound, scale = 2.0 ** _KEY_CLAMP, 2.0 ** (62 - _KEY_CLAMP)
        key = (f"CAST(LEAST(GREATEST(_s, {_dbl(-bound)}), {_dbl(bound)}) * {_dbl(scale)} AS BIGINT), _s")
    return f"({part}ORDER BY {key} RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"


#: the first rows :func:`route_sql` reads
PROBE_ROWS = 10_000
#: share of distinct scores among those rows from which a row-at-a-time engine takes the rows route
ROWS_SHARE = 0.5


def route_sql(c: Columns, dialect: str) -> str:
    """One row: ``_n`` of the first :data:`PROBE_ROWS` rows, and ``_d`` distinct scores among them.

    Which route :func:`stats_sql` takes on a row-at-a-time engine (not :func:`window_by_bin`):
    the per-score aggregate shrinks the rows the AUC's window sorts only where scores repeat
    (rounded scores: hashed down to a few thousand values); where they are mostly distinct it
    is a sort and a grouping of every row for nothing, and the window runs over the rows."""
    return render(f"""
WITH _base AS (SELECT 1),
_head AS (SELECT _s FROM _base LIMIT {int(PROBE_ROWS)})
SELECT COUNT(*) AS _n, COUNT(DISTINCT _s) AS _d FROM _head
""", base_select(c, dialect), dialect)


def _class_weights(integer: bool) -> tuple[str, str]:
    """Per row: the weight when positive (``_w1``), and when not (``_w0``)."""
    zero = "0" if integer else "0.0"
    return f"CASE WHEN _y = 1.0 THEN _w ELSE {zero} END", f"CASE WHEN _y = 1.0 THEN {zero} ELSE _w END"


def _rows_stats_sql(c: Columns, dialect: str, *, score_type: str, threshold: float, bins: int, n: int,
                    edges: np.ndarray | None, strategy: str, grouped: bool, screen: bool,
                    limit: int | None = None) -> str:
    r""":func:`stats_sql` without the per-score aggregate: one sort of the rows, one window, one
    aggregate per (slice, bin).

    Two running sums over the rows in score order, each up to and including the row's ties
    (a RANGE frame: no per-score grouping needed for the ½ of ties), give
    :math:`2U = \sum_{+} w\,W_-(\le s) - \sum_{-} w\,W_+(\le s) + W_+W_-`: a pair (positive
    above negative) counts 1 + 0 + 1, a tie 1 − 1 + 1, a pair the other way 0 − 1 + 1. Per bin
    the query returns the first two sums' difference; :func:`combine_bins` (``rows=True``) adds
    :math:`W_+W_-`. Unweighted, every term is an integer below 2⁵³ (exact in doubles) up to
    :data:`EXACT_DOUBLE_ROWS` rows, integers beyond."""
    integer = c.weight is None and n > EXACT_DOUBLE_ROWS
    g = f"{_slices(c, grouped)}, " if grouped else ""
    upto = _upto(dialect, _slices(c, grouped))
    w1, w0 = _class_weights(integer)
    made, kept, screened = "", "", ""
    if screen:  # the contract's screen rides along (see stats_sql)
        text = _text_flags(c, dialect)
        made = f", CASE WHEN {_row_ok(c, score_type)} THEN 0 ELSE 1 END AS _nb" + "".join(f", {f}" for f in text)
        kept = "".join(f", {f}" for f in ["_nb", *text])
        counted = " + ".join(f"SUM({f})" for f in text) or "0"
        screened = f", SUM(_nb) AS _c_bad, {counted} AS _c_text, MAX(_w) AS _c_w_max, {POS_MIN} AS _c_w_pos_min"
    prob = _probability("_s", score_type)
    mul = _products(c, dialect)
    nll = f"CASE WHEN _y = 1.0 THEN {mul(f'({_nll(score_type, True)})', '_w')} ELSE {mul(f'({_nll(score_type, False)})', '_w')} END"
    return render(f"""
WITH _base AS (SELECT 1),
_pb AS (SELECT {g}_s, _y, _w, {w1} AS _w1, {w0} AS _w0{made}, {prob} AS _p FROM _base),
_run AS (
  SELECT {g}_s, _y, _w, _w1, _w0, _p{kept},
    {_BIN} AS _b,
    SUM(_w0) OVER {upto} AS _nle, SUM(_w1) OVER {upto} AS _ple
  FROM _pb)
SELECT {g}_b,
  COUNT(*) AS "count", SUM(_w) AS weight, SUM({mul("_w", "_w")}) AS weight_sq, SUM({mul("_p", "_w")}) AS sum_p,
  SUM(_w1) AS sum_y, SUM({mul(_SQUARE_P, "_w")}) AS sum_p2, SUM({mul("_p", "_w1")}) AS sum_py, SUM({nll}) AS sum_nll,
  SUM(CASE WHEN {_decision(score_type, threshold)} THEN _w1 ELSE _w0 END) AS correct,
  SUM({mul("_w1", "_nle")}) - SUM({mul("_w0", "_ple")}) AS _num, SUM(_w1) AS _pos, SUM(_w0) AS _neg,
  {_residual_sums(mul, "_w0", "_w1", _complement(score_type))},
  {_square_sums(c, mul, mul("_w1", "_w"), mul("_w", "_w"), _complement(score_type))}{screened}
FROM _run
GROUP BY {g}_b{_limit(limit)}
""", base_select(c, dialect, integer=integer), dialect, binned=("_p", bins, edges, strategy))


def _complement(score_type: str) -> str:
    """``1 − p`` of the score ``_s``: a logit's as the logistic of ``−s``, 1 / (1 + exp(s)), as
    :func:`veracity.core._stats.residuals` takes it (``1 − p`` of the rounded logistic is 0 beyond
    s ≈ 37, where the true value is e^{−s}); exp's argument kept within [-700, 709] as in
    :func:`_probability` (beyond, 1.0, or below 1.2e-308)."""
    if score_type == "probability":
        return "(1.0 - _p)"
    arg = f"CASE WHEN _s > {_SIGMOID_CAP} THEN {_SIGMOID_CAP} WHEN _s < -{_EXP_CAP} THEN -{_EXP_CAP} ELSE _s END"
    return f"(1.0 / (1.0 + EXP({arg})))"


def _residual_sums(mul: Any, w0: str, w1: str, miss: str) -> str:
    r"""``sum_r``, ``sum_q1``, ``sum_r2`` of :class:`BinStats`: :math:`\sum w(p - y)`,
    :math:`\sum_{y=1} w(1 - p)` and :math:`\sum w(p - y)^2`, from the negative (``w0``) and
    positive (``w1``) weight of each row or score and its ``miss`` = 1 − p (:func:`_complement`).
    Summed as they are, not expanded from Σwp², Σwpy and Σwy: a sharp forecast's Brier score (1e-13)
    would cancel to a few percent, or below zero. A square below 1e-300 is taken as 0 (PostgreSQL
    refuses a product that underflows)."""
    square = f"(CASE WHEN {miss} < 1e-150 THEN 0.0 ELSE {miss} * {miss} END)"
    return (f"SUM({mul('_p', w0)} - {mul(miss, w1)}) AS sum_r, SUM({mul(miss, w1)}) AS sum_q1, "
            f"SUM({mul(_SQUARE_P, w0)} + {mul(square, w1)}) AS sum_r2")


def _square_sums(c: Columns, mul: Any, w2y: str, w2: str, miss: str) -> str:
    r"""``sum_w2y``, ``sum_w2pq`` of :class:`BinStats`: :math:`\sum w^2 y` and :math:`\sum w^2 p(1 - p)` of
    each row or score's positives' squared weight ``w2y``, its squared weight ``w2`` and ``miss`` = 1 − p
    (:func:`_complement`, as in memory). Only where a weight column is given (the reliability table's
    interval size, :func:`veracity.core._weights.honest_size`); unweighted NULL, never summed."""
    if c.weight is None:
        return "NULL AS sum_w2y, NULL AS sum_w2pq"
    return f"SUM({w2y}) AS sum_w2y, SUM({mul(mul('_p', miss), w2)}) AS sum_w2pq"


def _limit(limit: int | None) -> str:
    return "" if limit is None else f"\nLIMIT {int(limit)}"


def slice_counts_sql(c: Columns, dialect: str) -> str:
    """``_g, _n``: the rows of each slice key (which keys the slice cap keeps)."""
    return render("WITH _base AS (SELECT 1) SELECT _g, COUNT(*) AS _n FROM _base GROUP BY _g",
                  base_select(replace(c, pool=None), dialect), dialect)


def combine_bins(parts: list[tuple[int, Any, Any, Any]], *, by_bin: bool = True,
                 rows: bool = False) -> tuple[Any, Any, Any]:
    r"""``(2U, W+, W-)`` from per-bin ``(bin, 2U_b, W+_b, W-_b)`` of contiguous score ranges.

    With running sums partitioned by bin (``by_bin``, see :func:`window_by_bin`) each 2U_b
    counts the pairs inside its bin, and the pairs across bins are added:
    :math:`2U = \sum_b \big(2U_b + 2\,W_{+,b} \sum_{b' < b} W_{-,b'}\big)` (a loop over
    bins, never rows). Without, the running sum spans the slice and the 2U_b add up. With
    ``rows`` (:func:`_rows_stats_sql`) the 2U_b are :math:`\sum w_+ W_-(\le s) - \sum w_- W_+(\le s)`
    and :math:`2U = \sum_b 2U_b + W_+ W_-`."""
    total, pos, below = 0, 0, 0
    for _, num, w_pos, w_neg in sorted(parts, key=lambda t: t[0]):
        total += num + (2 * w_pos * below if by_bin and not rows else 0)
        pos += w_pos
        below += w_neg
    if rows:
        total += pos * below
    return total, pos, below


def auc_sql(c: Columns, dialect: str, *, n: int, bins: int, edges: np.ndarray | None = None,
            strategy: str = "uniform", score_type: str = "probability",
            pool: tuple[list[Any], bool] | None = None, rows: bool = False) -> str:
    """Per bin ``_b, _num, _pos, _neg`` (see :func:`combine_bins`) of every row — the whole table
    of a sliced audit — or with ``pool`` = (kept keys, whether the NULL key is kept) of the rows
    of the other keys: the pooled slice of a capped ``by=``."""
    from sqlglot import exp

    integer = c.weight is None and n > EXACT_DOUBLE_ROWS
    mul = _products(c, dialect)
    where = ""
    nodes: dict[str, Any] = {}
    if pool is not None:
        kept, null_kept = pool
        values = [k for k in kept if k is not None]
        if values:
            nodes["kept"] = exp.column("_g").isin(*(literal(k, dialect) for k in values))
            where = "WHERE _g IS NOT NULL AND NOT (:kept)" if null_kept else "WHERE _g IS NULL OR NOT (:kept)"
        elif null_kept:
            where = "WHERE _g IS NOT NULL"
    if rows:  # the window over the rows themselves (see _rows_stats_sql): one row of parts
        w1, w0 = _class_weights(integer)
        return render(f"""
WITH _base AS (SELECT 1),
_pb AS (SELECT _s, {w1} AS _w1, {w0} AS _w0 FROM _base {where}),
_run AS (SELECT _w1, _w0, SUM(_w0) OVER {_upto(dialect)} AS _nle, SUM(_w1) OVER {_upto(dialect)} AS _ple FROM _pb)
SELECT 0 AS _b, SUM({mul("_w1", "_nle")}) - SUM({mul("_w0", "_ple")}) AS _num, SUM(_w1) AS _pos, SUM(_w0) AS _neg
FROM _run
""", base_select(c, dialect, integer=integer), dialect, **nodes)
    prob = _probability("_s", score_type)
    return render(f"""
WITH _base AS (SELECT 1),
{_per_value(c, False, integer, where, dialect=dialect)},
_pb AS (SELECT _s, _ws, _w1, {_BIN} AS _b FROM _val),
_run AS (SELECT _b, _w1, _ws - _w1 AS _w0, {_below(c, False, dialect)} AS _below FROM _pb)
SELECT _b, SUM({mul("_w1", "(2 * _below + _w0)")}) AS _num, SUM(_w1) AS _pos, SUM(_w0) AS _neg FROM _run GROUP BY _b
""", base_select(c, dialect, integer=integer), dialect, binned=(prob, bins, edges, strategy), **nodes)


# -- equal-mass edges ------------------------------------------------------------------------------
def positions_sql(c: Columns, dialect: str, *, score_type: str, positions: list[int]) -> str:
    """``_i, _p``: the probabilities at the given 0-based sorted row positions."""
    wanted = ", ".join(_num(int(i)) for i in sorted(set(positions)))
    return render(f"""
WITH _base AS (SELECT 1),
_prob AS (SELECT {_probability("_s", score_type)} AS _p FROM _base),
_o AS (SELECT _p, ROW_NUMBER() OVER (ORDER BY _p) - 1 AS _i FROM _prob)
SELECT _i, _p FROM _o WHERE _i IN ({wanted})
""", base_select(c, dialect), dialect)


#: most cuts one statement of :func:`weighted_cuts_sql` picks (PostgreSQL returns at most 1664 columns,
#: SQLite 2000): more bins take several statements
CUTS_PER_STATEMENT = 1000


def weighted_cuts_sql(c: Columns, dialect: str, *, score_type: str, bins: int, first: int = 1,
                      last: int | None = None) -> str:
    """One row: min and max probability, then for j = ``first``…``last`` (default 1…M−1) the first
    probability whose cumulative weight (in score order) exceeds j·W/M by more than the running
    sum's own rounding, N·ε·W (:func:`veracity.core._binning.cumulative_slack`) —
    :func:`veracity.core._binning.quantile_picks`'s rule. Without that slack, constant weights of
    0.1 cut elsewhere than no weights (0.1 + 0.1 + … misses 5 × 0.1 by an ulp) and elsewhere than
    the same rows in memory.

    The picks differ only in j: the statement is written (parsed and generated) with one pick, for
    a sentinel j, and that pick's text is then copied for every j -- the text the statement with
    every pick written out gives (sqlglot writes each select item on its own, and an integer as
    its digits), at the cost of one pick instead of a thousand (a 1,700-bin weighted audit spent
    most of its time here). Where the sentinel's text is not found exactly once, every pick is
    written out."""
    last = bins - 1 if last is None else last
    js = list(range(first, last + 1))

    def pick(j: int) -> str:
        return f"MIN(CASE WHEN _cum > ({j} * _tot) / {bins} + _slack THEN _p END) AS _q{j}"

    def statement(picks: list[str]) -> str:
        return render(f"""
WITH _base AS (SELECT 1),
_prob AS (SELECT {_probability("_s", score_type)} AS _p, _w FROM _base),
_o AS (SELECT _p, SUM(_w) OVER (ORDER BY _p ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _cum FROM _prob),
_t AS (SELECT MAX(_cum) AS _tot, (COUNT(*) * {_dbl(_EPS)}) * MAX(_cum) AS _slack FROM _o)
SELECT MIN(_p) AS _lo, MAX(_p) AS _hi{"".join(", " + p for p in picks)} FROM _o CROSS JOIN _t
""", base_select(c, dialect), dialect)

    if len(js) < 2:
        return statement([pick(j) for j in js])
    sentinel = str(_CUT_SENTINEL)
    once = statement([pick(_CUT_SENTINEL)])
    item = _written_item(pick(_CUT_SENTINEL), dialect)
    if not item or once.count(item) != 1 or once.count(sentinel) != item.count(sentinel):
        return statement([pick(j) for j in js])  # pragma: no cover - every dialect writes the item alike
    return once.replace(item, ", ".join(item.replace(sentinel, str(j)) for j in js))


#: twice the unit roundoff, 2⁻⁵²: :func:`weighted_cuts_sql`'s slack per row, as ``cumulative_slack``'s
_EPS = float(np.finfo(np.float64).eps)

#: the j of the one pick :func:`weighted_cuts_sql` writes (digits no statement holds otherwise)
_CUT_SENTINEL = 987_654_321_987


# -- reading the table -----------------------------------------------------------------------------
def columns_sql(table: Any, dialect: str) -> str:
    """``SELECT * FROM table`` returning no rows (its description names the columns)."""
    from sqlglot import exp

    tree = exp.select("*").from_(table_node(table)).where(exp.false())
    return write(tree, dialect)


#: DuckDB types finer than Python's datetime and time (microseconds): a by= of them is read as text
SUB_MICROSECOND = frozenset({"TIMESTAMP_NS", "TIME_NS"})


def type_sql(table: Any, name: str, dialect: str) -> str:
    """One row (none for an empty table): DuckDB's ``typeof`` of the column ``name``."""
    from sqlglot import exp

    col = exp.column(ident(name, "column"))
    tree = exp.select(exp.Anonymous(this="typeof", expressions=[col])).from_(table_node(table)).limit(1)
    return write(tree, dialect)


#: SQLite's declared types of a BOOLEAN column (stored as the integers 0 and 1, read as False / True)
SQLITE_BOOLEAN_TYPES = frozenset({"BOOLEAN", "BOOL"})


def sqlite_declared_type_sql(table: Any, name: str) -> str:
    """One row (none for no such column): SQLite's declared type of the column ``name`` of ``table`` (a
    name, or ``(database, table)``), from ``pragma_table_info``; the names enter as string literals."""
    from sqlglot import exp

    parts = [table] if isinstance(table, str) else list(table)
    args = [exp.Literal.string(str(part)) for part in reversed(parts)]  # (table[, database])
    source = exp.Table(this=exp.Anonymous(this="pragma_table_info", expressions=args))
    tree = exp.select(exp.column(exp.to_identifier("type", quoted=True))).from_(source).where(
        exp.EQ(this=exp.column(exp.to_identifier("name", quoted=True)), expression=exp.Literal.string(name)))
    return write(tree, "sqlite")


#: the names of single-precision float types: DuckDB's ``typeof`` and PostgreSQL's ``pg_typeof``
FLOAT32_TYPES = frozenset({"FLOAT", "real"})

#: PostgreSQL's names (``pg_typeof``) of the types whose values are numbers: ADBC's PostgreSQL driver hands
#: a NUMERIC back as text (``'0.8050'``, ``'nan'``), which must not read as a column of text
PG_NUMBER_TYPES = frozenset({"numeric", "smallint", "integer", "bigint", "real", "double precision"})


def pg_types_sql(table: Any, names: list[str], dialect: str) -> str:
    """One row (none for an empty table): PostgreSQL's ``pg_typeof`` of each column ``names``, as text."""
    from sqlglot import exp

    picks = []
    for i, name in enumerate(names):
        typeof = exp.Anonymous(this="pg_typeof", expressions=[exp.column(ident(name, "column"))])
        picks.append(exp.alias_(exp.Cast(this=typeof, to=exp.DataType.build("text")), f"_t{i}"))
    tree = exp.select(*picks).from_(table_node(table)).limit(1)
    return write(tree, dialect)


def probe_sql(table: Any, names: list[str], dialect: str) -> str:
    """One row: a non-missing value of each column (its Python type tells how to read it)."""
    from sqlglot import exp

    picks = []
    for i, name in enumerate(names):
        col = exp.column(ident(name, "column"))
        sub = exp.select(col).from_(table_node(table)).where(col.copy().is_(exp.null()).not_()).limit(1)
        picks.append(exp.alias_(exp.Subquery(this=sub), f"_v{i}"))
    return write(exp.select(*picks), dialect)


def label_values_sql(table: Any, label: str, dialect: str, limit: int) -> tuple[str, str]:
    """``(missing, distinct)`` counts, and the first ``limit`` distinct values in order."""
    from sqlglot import exp

    col = exp.column(ident(label, "label"))
    counts = exp.select(
        exp.alias_(exp.Sub(this=exp.Count(this=exp.Star()), expression=exp.Count(this=col.copy())), "_missing"),
        exp.alias_(exp.Count(this=exp.Distinct(expressions=[col.copy()])), "_distinct"),
    ).from_(table_node(table))
    values = (exp.select(col.copy()).distinct().from_(table_node(table))
              .where(col.copy().is_(exp.null()).not_()).order_by(col.copy()).limit(limit))
    return write(counts, dialect), write(values, dialect)


def nan_count_sql(table: Any, label: str, dialect: str) -> str:
    """One row: the rows whose ``label`` is NaN (where NaN equals itself: DuckDB, PostgreSQL)."""
    from sqlglot import exp

    col = exp.column(ident(label, "label"))
    tree = exp.select(exp.Count(this=exp.Star())).from_(table_node(table)).where(
        exp.EQ(this=col, expression=literal(float("nan"))))
    return write(tree, dialect)
