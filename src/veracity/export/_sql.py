r"""A calibrator's map as one SQL expression, built with sqlglot and written for a dialect.

The tree of :mod:`._plan` becomes a sqlglot expression (never a string template), which
sqlglot then writes in the target dialect. Choices that keep every engine on the same
numbers as ``transform()``:

* **literals** are the shortest text the dialect reads back as the same binary64 number, and
  as a double (:func:`float_literal`): Python's shortest round-trip digits (``repr``), in exponent
  form where a decimal point alone makes a DECIMAL (``25e-2`` on DuckDB, Spark, Trino and
  Snowflake), with a point or an exponent everywhere (``1.0``, never the INTEGER ``1``);
  SQLite's reader, not correctly rounded, gets digits kept off the midpoints between doubles
  instead (:func:`_sqlite_digits`);
* **exp** never overflows or underflows: its argument is clamped to [−700, 700]
  (PostgreSQL raises an error on either; BigQuery on overflow); a clamped term changes
  a probability by less than 1e-300 (a one-vs-rest head's maps, which it divides by their sum,
  keep ``transform``'s sigmoid below that: :meth:`_Builder.sigmoid`);
* **no arithmetic error on PostgreSQL**, whose doubles raise "value out of range" where IEEE rounds
  a product or quotient to 0 (0.07 · 5e-324) or overflows (10 · 1e308): there, the operations whose
  operands' range (:func:`extent`) reaches those bounds are guarded to give numpy's double
  (:meth:`_Builder.guarded`, :meth:`_Builder.guarded_sum`); maps of ordinary probabilities write no guard;
* **NULL in, NULL out**: every output is ``CASE WHEN <score> IS NULL OR <score is NaN> OR <refused>
  THEN NULL ELSE … END``: a score ``transform`` refuses (NaN, a probability outside [0, 1], ±inf, a
  multiclass probability row not summing to 1; on SQLite, text: :meth:`_Builder.not_a_number`; a score
  where a loaded Venn–ABERS artifact's quotient is 0/0: :func:`~._plan.zero_over_zero`) gets no probability
  (:meth:`_Builder.refused`);
* the output is ``CAST(… AS DOUBLE)`` (DOUBLE PRECISION, REAL, FLOAT64 by dialect), and the score is
  first cast to a double too, on every dialect, so a NUMERIC, REAL or integer column (unsigned and HUGEINT
  ones too: DuckDB's ``-x`` of a UBIGINT fails) is computed in doubles as ``transform`` computes it; on
  PostgreSQL, whose constants are all NUMERIC, no operation takes two NUMERICs (decimal: ``0.3 − 0.1``
  = 0.2): one on two literals is written as its binary64 result, another NUMERIC operand (a step table
  of literals) is cast to DOUBLE PRECISION (:meth:`_Builder.in_doubles`);
* **feature levels** (a segment calibrator's ``level`` nodes, :meth:`_Builder.level`): one ``CASE`` over
  the feature column, ``FeatureSpec.codes`` semantics (missing first, then the values or the cuts in order,
  the pooled level as ``ELSE``), text levels as string literals sqlglot escapes, the column's name quoted;
* **step tables** (isotonic, histogram, Venn–ABERS): a binary tree of ``CASE WHEN x < knot``
  (log₂ K comparisons per row on a row-at-a-time engine: SQLite, PostgreSQL). Where the
  dialect has arrays and the table is long, a cell index instead:
  ``g = floor((x − lo)·scale)`` picks one of ~2K uniform cells; an array gives the number
  of knots certainly below the cell, and at most a few comparisons with the knots inside
  the cell (per-cell arrays, each written once: :meth:`_Builder._array_lookup`) finish the
  count — exact, because ``g`` is monotone in ``x`` and computed
  with the same IEEE operations as the table was built with. Knots that crowd a few cells
  (more than 16 in one: scores spread over many decades) keep the tree. DuckDB runs every branch
  of a nested CASE over every vector, so a tree of 1,000 knots costs it ~1,000 branches
  per row; it gets a flat **CASE chain** over per-cell arrays instead
  (:meth:`_Builder._chain_lookup`): the cell index (one rounding cast), then "before the cell's first
  knot? its first piece; before the second? …" — a row in a cell without knots (most of
  them) costs one comparison and two array look-ups, and a CASE branch runs only on the
  rows that reach it. The arrays sit in scalar subqueries there, evaluated once per query
  instead of once per vector. A linear isotonic's rare fraction pieces (knots closer than
  1/max-float) are tested first by their own interval, so they never force the tree.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import Any

import numpy as np

from ..core._validation import ROW_SUM_ATOL, VeracityError
from ._plan import (LOG1P_ONE, Levels, Node, Plan, Rescue, SoftmaxExtra, merged_venn_abers, numpy_sum,
                    provenance, zero_over_zero)
from ._ranges import (EXP_FINITE, EXP_LIMIT, MAX_FLOAT as _MAX_FLOAT, TINY as _TINY, extent, first_double,
                      limits)

#: dialects whose text is checked (executed on DuckDB, SQLite, Spark and PostgreSQL; parsed back on the rest)
DIALECTS = ("bigquery", "duckdb", "postgres", "snowflake", "spark", "sqlite", "trino")
#: dialects with array literals and subscripts
_ARRAYS = {"bigquery", "duckdb", "postgres", "snowflake", "spark", "trino"}
#: dialects whose array constants are one string literal cast to an array (see _array_text)
_TEXT_ARRAYS = {"duckdb", "postgres", "spark"}
#: dialects where array constants go in a scalar subquery (materialised once, not per vector)
_HOIST = {"duckdb"}
#: dialects whose long step tables are a short CASE chain over per-cell arrays (see _chain_lookup)
_CHAIN = {"duckdb"}
#: most scalar subqueries in one output (each is a join for DuckDB's planner); beyond, arrays are inline
_MAX_HOISTED = 24
#: every dialect reads the input column cast to a double first (:meth:`_Builder.col`), so the map runs in
#: doubles as ``transform`` does whatever the column's type: an unsigned or huge integer column made
#: DuckDB's ``-x`` fail ("Overflow in negation" of a UBIGINT, UTINYINT, UHUGEINT: a beta map of logits),
#: and on PostgreSQL, which reads the exponent-form constants as NUMERIC, a NUMERIC score was compared
#: with the knots in decimal (0.1 above the double knot 0.1000000000000000055…, which transform() finds
#: equal) and GREATEST/LEAST of a REAL score ran in single precision (the clamp 1 − 2⁻⁵³ became 1:
#: "cannot take logarithm of zero")
#: dialects where NaN = NaN is true (no ISNAN function): NaN is found by equality
_NAN_EQUALS_ITSELF = {"postgres", "snowflake"}
#: dialects whose GREATEST/LEAST skip NULLs (sqlglot's ``ignore_nulls``)
_IGNORES_NULLS = {"duckdb", "postgres"}
#: dialects whose double arithmetic raises an error where IEEE rounds to 0 or overflows to ±inf
#: (PostgreSQL: "value out of range: underflow" for 0.07 · 5e-324, "overflow" for 10 · 1e308):
#: there the products and quotients that can do so are guarded (:meth:`_Builder.guarded`; ranges:
#: :mod:`._ranges`)
_STRICT_FLOAT = {"postgres"}
#: step tables at most this long are always a CASE tree
_SHORT_TABLE = 16
#: most uniform cells of the array lookup
_MAX_CELLS = 1 << 12
#: most edges one cell of the chain lookup or the cell-index array lookup may hold (beyond: the next
#: lookup, and last the CASE tree)
_MAX_PER_CELL = 16
#: cells per edge of the chain lookup (each of its arrays has one entry a cell, copied per vector)
_CHAIN_CELLS_PER_EDGE = 2.0
#: most step-table entries one SQL text may hold (over all outputs, repeats included): ~10 MB of text
MAX_TABLE_ENTRIES = 200_000


#: dialects that read every number literal, exponent forms too, as a NUMERIC: an operation on two NUMERICs
#: runs in decimal there, so the text holds none (:meth:`_Builder.in_doubles`)
_DECIMAL_LITERALS = {"postgres"}
#: the binary64 operation of each sqlglot arithmetic node (numpy's, as transform computes it)
_FOLD = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}
#: sqlglot nodes whose value is a NUMERIC where each of their ``this``/``expressions`` values is one
_KEEPS_DECIMAL = ("Paren", "Neg", "Abs", "Floor", "Greatest", "Least", "Coalesce", "Nullif")


#: dialects that read a number with a decimal point and no exponent as a DECIMAL (NUMBER): their
#: literals are in exponent form (``25e-2``), which they read as a double
_EXPONENT_LITERALS = {"duckdb", "snowflake", "spark", "trino"}
#: SQLite (3.40) misreads many of these, whatever the digits (7% of the normal ones below 1e-280, ~1% of
#: the subnormals above 1e-309): they keep the 17 significant digits, which it misreads least there
_SQLITE_UNSURE = (1e-309, 1e-280)


def _digits(text: str) -> tuple[str, int]:
    """``(D, E)`` of a decimal ``text`` (``[digits][.digits][e±N]``): the value is ``int(D)·10^E``, ``D``
    without leading or trailing zeros (``"0"`` for zero)."""
    mant, _, e = text.partition("e")
    whole, _, frac = mant.partition(".")
    d = (whole + frac).lstrip("0")
    if not d:
        return "0", 0
    trimmed = d.rstrip("0")
    return trimmed, (int(e) if e else 0) - len(frac) + len(d) - len(trimmed)


def _sqlite_digits(v: float) -> tuple[str, int]:
    r"""The fewest significant digits of a positive ``v`` whose decimal lies within 7/16 of the gap to
    the neighbouring double on its side, at least 1/16 of a gap from the midpoint (at most 17; 17
    where none is, or where SQLite misreads every form: :data:`_SQLITE_UNSURE`).

    SQLite (3.40: ``sqlite3AtoF``) scales the digits by powers of ten in long double and rounds that
    to a double: twice, so a decimal near the midpoint of two doubles -- a shortest form can lie
    anywhere within half a gap -- is read as the wrong one (``0.65487175909209``, 1 in ~10^5 of the
    doubles in [0, 1]). Its long-double error, a few roundings of 2^-64, is far below 1/16 of a gap
    (none of 4·10^5 doubles misread, where their shortest forms gave 37); the shortest digits are kept
    for ~95% of the doubles.
    """
    if _SQLITE_UNSURE[0] <= v < _SQLITE_UNSURE[1]:
        return _digits(f"{v:.16e}")
    a, b = v.as_integer_ratio()   # v = a/b, b a power of two; in integers: |D·10^E − a/b|, times b·10^-E
    for n in range(len(_digits(repr(v))[0]), 17):
        digits, e = _digits(f"{v:.{n - 1}e}")   # the n-digit decimal nearest v
        num, den = (int(digits) * 10 ** e * b, b) if e >= 0 else (int(digits) * b, b * 10 ** -e)
        off = num - a * (den // b)   # (d − v)·den
        gap = abs(math.nextafter(v, math.inf if off >= 0 else -math.inf) - v)  # exact: a power of two
        g, h = gap.as_integer_ratio()
        if 16 * abs(off) * h <= 7 * g * den:
            return digits, e
    return _digits(f"{v:.16e}")


@functools.lru_cache(maxsize=1 << 16)
def float_literal(v: float, dialect: str) -> str:
    r"""The shortest text of a finite ``v >= 0`` that ``dialect`` reads as that very double, and as a
    double (``"text"``: the inside of a string the engine casts to doubles, any number form).

    The digits ``D`` (``v`` read back is ``D·10^E``) are Python's shortest round-trip ones (``repr``;
    SQLite: :func:`_sqlite_digits`), written as the shortest of the positional form (``0.25``,
    ``1.0``, ``1000.0``) and the exponent forms (``25e-2``, ``1e3``, ``1.5e-300``). Where a decimal point
    makes a DECIMAL (:data:`_EXPONENT_LITERALS`) only the exponent forms; elsewhere the positional
    form keeps a point (``1.0``: ``1`` is an INTEGER, and ``1 / 2`` an integer division).
    """
    v = float(v)
    if not (np.isfinite(v) and v >= 0.0):  # pragma: no cover - num() passes |v| of a finite number
        raise VeracityError(f"cannot write {v!r} as an SQL number")
    d, e = _sqlite_digits(v) if dialect == "sqlite" and v != 0.0 else _digits(repr(v))
    n = len(d)
    forms = []
    if dialect not in _EXPONENT_LITERALS:
        if e >= 0:
            forms.append(d + "0" * e + ("" if dialect == "text" else ".0"))
        elif n + e > 0:
            forms.append(d[:n + e] + "." + d[n + e:])
        else:
            forms.append("0." + "0" * -(n + e) + d)
    forms += [d[:p] + ("." + d[p:] if p < n else "") + f"e{e + n - p}" for p in range(n, 0, -1)]
    return min(forms, key=len)


@functools.lru_cache(maxsize=None)
def _parsed_type(name: str) -> Any:
    from sqlglot import exp

    return exp.DataType.build(name)


def data_type(name: str) -> Any:
    """``exp.DataType.build(name)`` (``"DOUBLE"``, ``"ARRAY<BIGINT>"``): a fresh copy of the type parsed once.

    sqlglot parses a type's text on every ``build``, a tokenizer and a parser each time: a map writes one
    such cast per reference of its score column (a SQLite tree of 1,000 knots, ~2,000)."""
    return _parsed_type(name).copy()


#: the types whose casts sqlglot's SQLite generator writes as a function (DATE(x), DATETIME(x), TIME(x))
_SQLITE_FUNCTION_CASTS = ("DATE", "DATETIME", "TIMESTAMP", "TIMESTAMPNTZ", "TIME", "USERDEFINED")


@functools.lru_cache(maxsize=None)
def dialect_generator(dialect: str, plain: bool = False) -> Any:
    """A factory of sqlglot generators for ``dialect`` that writes the same text as ``e.sql(dialect=…)``.

    SQLite's generator asks of every ``CAST`` whether its type is a date, a datetime, a timestamp or a
    time, parsing each of those type names again (a tokenizer and a parser, five times a cast: over half
    the time to write a SQLite text, whose every reference of the score is a cast). Here a cast to a type
    that is none of them (its ``DType`` is not one of :data:`_SQLITE_FUNCTION_CASTS`, so each of those
    comparisons is false) is written by the base generator's ``cast_sql``, which SQLite's calls for it
    too. BigQuery's rewrites every cast's types first (:func:`_plain_types`): where no type needs it
    (every map, ``plain`` False) its casts are written without that rewrite. DuckDB's and PostgreSQL's test
    every type two or three times (each test building a type) before writing it: a plain DOUBLE, which passes
    none, is written by the generator theirs defer to. The other dialects get their own generator class, as
    ``e.sql(dialect=…)`` does."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.generator import Generator

    dialect_obj = sqlglot.Dialect.get_or_raise(dialect)
    base: Any = dialect_obj.generator_class
    if dialect == "bigquery" and not plain:
        class _BigQueryGenerator(base):  # type: ignore[misc, valid-type]
            # without the Cast transform (:func:`_plain_types`): its cast_sql writes every CAST
            TRANSFORMS = {k: v for k, v in base.TRANSFORMS.items() if k is not exp.Cast}

        return functools.partial(_BigQueryGenerator, dialect=dialect_obj)
    if dialect in ("duckdb", "postgres"):
        class _DoubleGenerator(base):  # type: ignore[misc, valid-type]
            def datatype_sql(self, expression: Any) -> str:
                # DuckDB's asks of every type whether it is an ARRAY or a time type, PostgreSQL's whether it is
                # an ARRAY, an ENUM, or a DOUBLE or FLOAT with a precision (each test builds the type it
                # compares with): a plain DOUBLE (every cast of the score) is none of them, and both then
                # write it with the generator below theirs
                if expression.this == exp.DType.DOUBLE and not expression.expressions:
                    return str(super(base, self).datatype_sql(expression))
                return str(super().datatype_sql(expression))

        return functools.partial(_DoubleGenerator, dialect=dialect_obj)
    if dialect != "sqlite":
        return functools.partial(base, dialect=dialect_obj)
    function_casts = {getattr(exp.DType, name) for name in _SQLITE_FUNCTION_CASTS}

    class _SQLiteGenerator(base):  # type: ignore[misc, valid-type]
        def cast_sql(self, expression: Any, safe_prefix: str | None = None) -> str:
            to = expression.args.get("to")
            if isinstance(to, exp.DataType) and to.this not in function_casts:
                return str(Generator.cast_sql(self, expression))
            return str(super().cast_sql(expression, safe_prefix))

    return functools.partial(_SQLiteGenerator, dialect=dialect_obj)


def _plain_types(exprs: list[Any]) -> bool:
    """Whether no type in the trees ``exprs`` is a DECIMAL or holds a parameter (``DECIMAL(38, 0)``,
    ``VARCHAR(10)``): then BigQuery's Cast transform rewrites nothing there.

    sqlglot's BigQuery generator runs two rewrites on every ``CAST`` before writing it, each over every type
    below the cast (a DECIMAL whose precision needs it becomes BIGNUMERIC; type parameters are dropped); a
    map's casts nest, so each walked the rest of the tree again. The map's own types are DOUBLE, BIGINT and
    arrays of them (:func:`data_type`), and the casts the generator adds (TIMESTAMP, BIGINT) take none."""
    from sqlglot import exp

    return not any(isinstance(n, exp.DataTypeParam) or n.this == exp.DType.DECIMAL
                   for e in exprs for n in e.find_all(exp.DataType, exp.DataTypeParam))


def check_dialect(dialect: Any) -> str:
    d = str(dialect).lower() if isinstance(dialect, str) else dialect
    if d == "postgresql":
        d = "postgres"
    if d not in DIALECTS:
        raise VeracityError(f"unsupported SQL dialect {dialect!r}; supported: {', '.join(DIALECTS)}")
    return d


#: dialects that compare quoted column names ignoring the case of ASCII letters (``"Z"`` reads ``z``)
_FOLDS_ASCII = {"duckdb", "sqlite"}
#: dialects that compare column names ignoring case (Java's ``toLowerCase``, Unicode: ``"É"`` reads ``é``)
_FOLDS_CASE = {"bigquery", "spark", "trino"}
#: PostgreSQL keeps the first 63 bytes of a name (NAMEDATALEN − 1) and drops the rest without an error
_PG_NAME_BYTES = 63


def identifier_key(name: str, dialect: str) -> str:
    """The column a quoted ``name`` reads in ``dialect``: two names with one key are one column there.

    DuckDB and SQLite ignore the case of ASCII letters, Spark, Trino and BigQuery the case of every
    letter; PostgreSQL keeps the case but reads only the first 63 bytes of the UTF-8 name (never half a
    character: the rest is dropped with a NOTICE, so ``"x…x_0"`` and ``"x…x_1"`` past that length are one
    column); Snowflake reads a quoted name exactly."""
    if dialect in _FOLDS_ASCII:
        return "".join(ch.lower() if ch.isascii() else ch for ch in name)
    if dialect in _FOLDS_CASE:
        return name.lower()
    if dialect == "postgres":
        return name.encode("utf-8")[:_PG_NAME_BYTES].decode("utf-8", "ignore")
    return name


def _one_column_why(dialect: str) -> str:
    if dialect == "postgres":
        return f"which reads only the first {_PG_NAME_BYTES} bytes of a name"
    return "which ignores the case of letters in names"


def check_columns(column: Any, n_inputs: int, dialect: str | None = None) -> list[str]:
    """The input column names: one for binary, K for multiclass (a list, or ``column_0..K-1``).

    With ``dialect``, K names that the dialect reads as one column (:func:`identifier_key`) are refused
    as a repeated name is: that column would be read as two classes' scores."""
    if isinstance(column, str):
        if not column:  # a multiclass prefix too: "" would name the columns "_0", "_1", ...
            raise VeracityError("column name '' is empty; pass the column's plain name (multiclass: a prefix "
                                "for PREFIX_0..PREFIX_{K-1}, or K names)")
        names = [column] if n_inputs == 1 else [f"{column}_{k}" for k in range(n_inputs)]
    elif isinstance(column, (list, tuple)) and all(isinstance(c, str) for c in column):
        names = list(column)
    else:
        raise VeracityError(f"column must be a column name (or K names for multiclass), got {column!r}")
    if len(names) != n_inputs:
        what = "one score column" if n_inputs == 1 else f"{n_inputs} score columns, one per class"
        raise VeracityError(f"this calibrator reads {what}; got {len(names)} names {names!r}")
    for name in names:
        if not name or any(not ch.isprintable() for ch in name):
            raise VeracityError(
                f"column name {name!r} is empty or holds control characters; pass the column's plain name")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:  # one column read as two classes' scores: a softmax of equal logits, uniform and wrong
        raise VeracityError(
            f"the {n_inputs} score columns must be distinct, one per class; {', '.join(map(repr, repeated))} "
            "is named more than once")
    if dialect is not None and len(names) > 1:
        first: dict[str, str] = {}
        for name in names:
            other = first.setdefault(identifier_key(name, dialect), name)
            if other != name:
                raise VeracityError(
                    f"the {n_inputs} score columns must be distinct, one per class; {other!r} and {name!r} "
                    f"are one column in {dialect}, {_one_column_why(dialect)}; rename the columns")
    return names


def _spread_text(spread: float) -> str:
    """The difference of the largest and smallest bias, for a message: ``more than max-float`` where it
    overflows."""
    return f"{spread:.3g}" if math.isfinite(spread) else "more than the largest double (1.8e308)"


class _Builder:
    """Renders plan nodes into sqlglot expressions for one dialect."""

    def __init__(self, dialect: str, names: list[str], *, hoist: bool = True,
                 features: dict[str, str] | None = None):
        from sqlglot import exp

        #: feature name -> the column holding it (``level`` nodes of a segment calibrator)
        self.features = features or {}

        self.exp = exp
        self.dialect = dialect
        self.strict = dialect in _STRICT_FLOAT
        self.score_type = "probability"  # of the plan being written (output() sets it): the inputs' range
        self._arg_tiny = _TINY             # smallest nonzero |x − x0| of the step table being written
        self.hoist = hoist and dialect in _HOIST
        self.names = names
        #: rendering a branch that runs only on rows whose logits are known finite (:meth:`head`): no
        #: overflow guard and no strict form of ``z - r`` there (underflow guards stay)
        self.finite = False
        import sqlglot

        self.index_offset = int(sqlglot.Dialect.get_or_raise(dialect).INDEX_OFFSET)

    # -- atoms --------------------------------------------------------------------------
    def num(self, v: float) -> Any:
        exp = self.exp
        v = float(v)
        if not math.isfinite(v):  # pragma: no cover - artifacts hold finite numbers (schema)
            raise VeracityError(f"cannot write the non-finite number {v!r} as SQL")
        # the node Literal.number builds for a non-negative number, without its check of the sign (which
        # parses the text as a Decimal after int() fails: most of the time to write a long array of doubles);
        # the sign and finiteness of a Python float by math and a comparison, not two numpy ufunc calls a
        # literal (-0.0 is written 0: ``v < 0.0`` is false there, as ``signbit(v) and v != 0`` was)
        lit = exp.Literal(this=float_literal(abs(v), self.dialect), is_string=False)
        return exp.Paren(this=exp.Neg(this=lit)) if v < 0.0 else lit

    def int_(self, v: int) -> Any:
        i = int(v)
        return self.exp.Literal(this=str(i), is_string=False) if i >= 0 else self.exp.Literal.number(str(i))

    def col(self, k: int) -> Any:
        """The k-th input column as a double, ``CAST("x" AS DOUBLE)`` (DOUBLE PRECISION, REAL, FLOAT64 by
        dialect): every reference of the map reads it so, whatever the column's type (an integer, unsigned,
        HUGEINT, NUMERIC or REAL column is computed in doubles, as ``transform`` computes it). The NULL test
        and SQLite's test for text (:meth:`not_a_number`) read the column itself."""
        column = self.exp.column(self.names[k], quoted=True)
        return self.exp.Cast(this=column, to=data_type("DOUBLE"))

    def p(self, e: Any) -> Any:
        """Parenthesise anything that is not an atom (sqlglot does not add precedence parens)."""
        exp = self.exp
        if isinstance(e, (exp.Column, exp.Literal, exp.Paren, exp.Anonymous, exp.Func, exp.Case, exp.Cast,
                          exp.Bracket)):
            return e
        return exp.Paren(this=e)

    def case(self, ifs: list[tuple[Any, Any]], default: Any) -> Any:
        exp = self.exp
        return exp.Case(ifs=[exp.If(this=c, true=t) for c, t in ifs], default=default)

    def clip(self, e: Any, lo: float | None, hi: float | None) -> Any:
        """:func:`numpy.clip`: ``LEAST(GREATEST(e, lo), hi)`` (``e`` written once).

        NULLs never reach it (every output starts with ``CASE WHEN <score> IS NULL``), so
        the dialects' different NULL rules for GREATEST/LEAST do not matter; the flag below
        only stops sqlglot from emulating another dialect's rule with extra copies of ``e``,
        so each dialect gets its native function (MAX/MIN in SQLite).
        """
        exp = self.exp
        native = self.dialect in _IGNORES_NULLS
        if lo is not None:
            e = exp.Greatest(this=e, expressions=[self.num(lo)], ignore_nulls=native)
        if hi is not None:
            e = exp.Least(this=e, expressions=[self.num(hi)], ignore_nulls=native)
        return e

    def exp_(self, e: Any) -> Any:
        return self.exp.Exp(this=self.clip(e, -EXP_LIMIT, EXP_LIMIT))

    def log1p(self, e: Any) -> Any:
        r"""``numpy.log1p(e)`` of ``e >= 0`` (no dialect but Spark has LOG1P), in Kahan's form
        (:data:`~._plan.LOG1P_ONE`): ``CASE WHEN e <= 2^-53 THEN e ELSE LN(1 + e) * (e / ((1 + e) - 1)) END``
        -- ``LN(1 + e)`` alone is 0 below :math:`2^{-53}` and off by up to :math:`10^{-16}` above. The
        quotient lies in [1/2, 2]: nothing in it over- or underflows; a row where ``e <= 2^-53`` never reads
        it (a dialect that runs every branch gets its ``e / 0`` as NULL or inf there, unread)."""
        exp = self.exp
        e = self.p(e)
        u = lambda: exp.Paren(this=exp.Add(this=self.num(1.0), expression=e.copy()))  # noqa: E731
        ratio = exp.Div(this=e.copy(), expression=exp.Paren(this=exp.Sub(this=u(), expression=self.num(1.0))))
        value = exp.Mul(this=exp.Ln(this=u()), expression=exp.Paren(this=ratio))
        return self.case([(exp.LTE(this=e, expression=self.num(LOG1P_ONE)), e.copy())], value)

    def sigmoid(self, node: Node, exact: bool = False) -> Any:
        r"""``transform``'s sigmoid (scipy's ``expit``), :math:`1/(1 + e^{-z})`, of the plan node ``z``.

        ``exact`` (``("sigmoid", z, True)``: a map that a one-vs-rest head divides by the row's sum), where
        :math:`z` can fall below :math:`-700` (:func:`~._ranges.extent`: logits or ranking scores times a
        weight): ``CASE WHEN z < -m THEN 0 ELSE 1 / (1 + EXP(LEAST(GREATEST(-z, -700), m))) END``, with
        :math:`m` = :data:`~._ranges.EXP_FINITE` the largest argument whose exp is finite: ``expit`` is
        :math:`e^{z}` (to rounding) down to :math:`e^{-m} \approx 5.6\cdot 10^{-309}`, and 0 below, where
        its :math:`e^{-z}` overflows. Clamped to 700 as the other exps are, the sigmoid of every
        :math:`z < -700` was :math:`1/(1 + e^{700}) \approx 10^{-304}`: off by less than that alone, but a
        one-vs-rest row divides the classes' maps by their sum, so a row whose maps were all that small came
        out uniform where ``transform`` gives the ratios of the :math:`e^{z_k}` (0.25 for 0.64 at
        :math:`z = (-705, -706, -707, -708)`). Otherwise the plain ``1 / (1 + EXP(LEAST(GREATEST(-z, -700),
        700)))``, ``z`` written once: above 700, :math:`1/(1 + e^{-700})` is 1, as ``expit`` gives it, and a
        binary map's output is off by less than :math:`10^{-304}` below -700."""
        exp = self.exp
        z = self.render(node)
        if not exact or extent(node, self.score_type)[1] <= EXP_LIMIT:
            return exp.Div(this=self.num(1.0),
                           expression=exp.Paren(this=exp.Add(this=self.num(1.0),
                                                             expression=self.exp_(exp.Neg(this=self.p(z))))))
        clamped = self.clip(exp.Neg(this=self.p(z.copy())), -EXP_LIMIT, EXP_FINITE)
        value = exp.Div(this=self.num(1.0),
                        expression=exp.Paren(this=exp.Add(this=self.num(1.0), expression=exp.Exp(this=clamped))))
        return self.case([(exp.LT(this=self.p(z), expression=self.num(-EXP_FINITE)), self.num(0.0))], value)


    # -- strict engines (PostgreSQL): no product or quotient that rounds to 0 or overflows -------------
    def infinity(self, negative: bool) -> Any:
        exp = self.exp
        inf = exp.Cast(this=exp.Literal.string("Infinity"), to=data_type("DOUBLE"))
        return exp.Neg(this=inf) if negative else inf

    def guarded(self, node: Node) -> Any:
        """A ``mul``/``div`` node as IEEE computes it, on an engine that raises an error instead of
        rounding to 0 or overflowing (None: nothing to guard, the plain form is written).

        By constants (``e·c``, or a chain ``e·c1·c2/c3``): ``CASE WHEN ABS(e) < zero_below THEN 0 WHEN
        e >= inf_from THEN ±Infinity WHEN e <= −inf_from THEN ∓Infinity ELSE e·c END`` with the chain's
        own bounds (:func:`limits` for one step) — the very double numpy computes (the sign of a zero
        aside), written only where the operand's :func:`extent` reaches those bounds. Two expressions
        (``a / b``, ``0 <= a <= b``: the prior shift, Venn–ABERS, a one-vs-rest renormalisation):
        ``CASE WHEN a·2^k < b THEN 0 ELSE a / b END`` — a quotient below ``2^-k`` (``k`` up to 1000) read
        as 0, an absolute difference of at most ``2^-k``.
        """
        exp = self.exp
        op, a, b = node
        if op == "div" and a[0] != "const" and b[0] != "const":
            return self.quotient(self.render(a), self.render(b), extent(a, self.score_type),
                                 extent(b, self.score_type))
        steps: list[tuple[str, float, bool]] = []   # outermost first: (op, constant, constant written first)
        e = node
        while e[0] in ("mul", "div"):
            if e[2][0] == "const" and e[1][0] != "const":
                steps.append((e[0], float(e[2][1]), False))
                e = e[1]
            elif e[0] == "mul" and e[1][0] == "const" and e[2][0] != "const":
                steps.append((e[0], float(e[1][1]), True))
                e = e[2]
            else:
                break
        if not steps or any(c == 0.0 or not np.isfinite(c) for _, c, _ in steps):
            return None
        # a chain e·c1·c2/c3 …: one guard on e with the chain's own thresholds (each step is monotone, so the
        # result is 0, or inf, exactly from a bound on |e| on; no step of a finite nonzero result is 0 or inf)
        inner = steps[::-1]
        zero_below, inf_from = _chain_limits(tuple((o, abs(c)) for o, c, _ in inner))
        tiny, big = extent(e, self.score_type)
        under = zero_below if zero_below is not None and tiny < zero_below else None
        over = inf_from if inf_from is not None and big >= inf_from and not self.finite else None
        if under is None and over is None:
            return None
        x = self.render(e)
        negative = sum(c < 0 for _, c, _ in steps) % 2 == 1
        ifs = []
        if under is not None:
            ifs.append((exp.LT(this=exp.Abs(this=x.copy()), expression=self.num(under)), self.num(0.0)))
        if over is not None:
            ifs.append((exp.GTE(this=self.p(x.copy()), expression=self.num(over)), self.infinity(negative)))
            ifs.append((exp.LTE(this=self.p(x.copy()), expression=self.num(-over)), self.infinity(not negative)))
        body = x
        for o, c, const_first in inner:
            cls = exp.Mul if o == "mul" else exp.Div
            body = (cls(this=self.num(c), expression=self.p(body)) if const_first
                    else cls(this=self.p(body), expression=self.num(c)))
        return self.case(ifs, body)

    def guarded_sum(self, node: Node) -> Any:
        r"""A chain of ``add``/``sub`` nodes that can overflow, on a strict engine (None: it cannot).

        Summed in halves, then doubled: :math:`2\,\mathrm{clip}(S', \pm M/2)` with
        :math:`S' = \sum \pm t_i/2` (``c·e/2`` as ``(c/2)·e``; another term below ``1e-323``, whose half
        would round to 0, read as 0) and :math:`M` the largest double -- halving and doubling are
        exact, so this is numpy's sum wherever that is finite; where numpy's overflows to ±inf this is
        ±M, which every map reads the same (a sigmoid of either is 0 or 1; a softmax saturates at a
        difference of 700).
        """
        exp = self.exp
        terms: list[tuple[bool, Node]] = []

        def flatten(n: Node, negative: bool) -> None:
            if n[0] in ("add", "sub"):
                flatten(n[1], negative)
                flatten(n[2], negative != (n[0] == "sub"))
            else:
                terms.append((negative, n))

        flatten(node, False)
        spans = [extent(t, self.score_type) for _, t in terms]
        with np.errstate(over="ignore"):
            total = float(np.sum(np.array([b for _, b in spans], dtype=np.float64)))
        if np.isfinite(total) and total < _MAX_FLOAT:
            return None
        varying = [b for (_, t), (_, b) in zip(terms, spans) if t[0] != "const"]
        fixed = sum(abs(float(t[1])) for _, t in terms if t[0] == "const")
        if len(varying) <= 1 and fixed < 2.0 ** 969:  # a finite term plus less than half its unit: no overflow
            return None
        halves: Any = None
        for (negative, t), (tiny, _) in zip(terms, spans):
            if t[0] == "const":
                half: Any = self.num(float(t[1]) * 0.5)
            elif t[0] == "mul" and t[1][0] == "const":  # (c/2)·e: the half of c·e, exactly
                half = self.render(("mul", ("const", float(t[1][1]) * 0.5), t[2]))
            elif t[0] == "div" and t[2][0] == "const":
                half = self.render(("div", t[1], ("const", float(t[2][1]) * 2.0)))
            else:
                x = self.render(t)
                half = exp.Mul(this=self.p(x), expression=self.num(0.5))
                if tiny < 1e-323:
                    half = self.case([(exp.LT(this=exp.Abs(this=x.copy()), expression=self.num(1e-323)),
                                       self.num(0.0))], half)
            if halves is None:
                halves = exp.Neg(this=self.p(half)) if negative else half
            else:
                halves = (exp.Sub if negative else exp.Add)(this=halves, expression=self.p(half))
        half_max = _MAX_FLOAT / 2.0
        return exp.Mul(this=self.clip(halves, -half_max, half_max), expression=self.num(2.0))

    def clamped_difference(self, a: Any, b: Any, ea: tuple[float, float], eb: tuple[float, float],
                           d: float = 0.0) -> Any:
        """``exp(clamp(a − b + d, ±700))``; on a strict engine, where ``a − b`` can overflow, the clamp is
        decided first (``a > b + 1400 + |d|``: 700) so the difference is taken only where it is small."""
        exp = self.exp
        diff = exp.Sub(this=self.p(a), expression=self.p(b))
        if d != 0.0:
            diff = exp.Add(this=diff, expression=self.num(d))
        if not self.strict or ea[1] + eb[1] < _MAX_FLOAT:  # Python floats: inf past the largest, no warning
            return self.exp_(diff)
        far = self.num(2.0 * EXP_LIMIT + abs(d))
        limit = self.clip(diff, -EXP_LIMIT, EXP_LIMIT)
        return self.exp.Exp(this=self.case([
            (exp.GT(this=self.p(a.copy()), expression=exp.Add(this=self.p(b.copy()), expression=far)),
             self.num(EXP_LIMIT)),
            (exp.LT(this=self.p(a.copy()), expression=exp.Sub(this=self.p(b.copy()), expression=far.copy())),
             self.num(-EXP_LIMIT))], limit))

    def quotient(self, a: Any, b: Any, ea: tuple[float, float], eb: tuple[float, float]) -> Any:
        """``a / b`` for ``0 <= a <= b`` (see :meth:`guarded`); the plain quotient where it cannot round to 0."""
        exp = self.exp
        plain = exp.Div(this=self.p(a), expression=self.p(b))
        if not self.strict or not (eb[1] > 0.0 and ea[0] / eb[1] < 2 * _TINY):  # else it cannot round to 0
            return plain
        k = 1000
        while k > 64 and not np.isfinite(ea[1] * 2.0 ** k):
            k -= 64
        scaled = exp.Mul(this=self.p(a.copy()), expression=self.num(2.0 ** k))
        return self.case([(exp.LT(this=scaled, expression=self.p(b.copy())), self.num(0.0))], plain)

    def _slope_guard(self, slope: float, x0: float) -> float | None:
        """The ``zero_below`` of ``slope·(x − x0)`` where that product can round to 0 (strict engines)."""
        if not self.strict or slope == 0.0:
            return None
        gap = max(float(np.spacing(abs(x0))) / 2.0, _TINY) if x0 != 0.0 else self._arg_tiny
        zero_below = limits(abs(slope), "mul")[0]
        return zero_below if zero_below is not None and gap < zero_below else None

    # -- nodes --------------------------------------------------------------------------
    def render(self, node: Node) -> Any:
        exp = self.exp
        op = node[0]
        if op == "col":
            return self.col(node[1])
        if op == "const":
            return self.num(node[1])
        if op in ("mul", "div", "add", "sub") and self.strict:
            guarded = self.guarded(node) if op in ("mul", "div") else (None if self.finite
                                                                       else self.guarded_sum(node))
            if guarded is not None:
                return guarded
        if op in ("add", "sub", "mul", "div"):
            cls = {"add": exp.Add, "sub": exp.Sub, "mul": exp.Mul, "div": exp.Div}[op]
            return cls(this=self.p(self.render(node[1])), expression=self.p(self.render(node[2])))
        if op == "neg":
            return exp.Neg(this=self.p(self.render(node[1])))
        if op == "abs":
            return exp.Abs(this=self.render(node[1]))
        if op == "max0":
            return self.clip(self.render(node[1]), 0.0, None)
        if op in ("max", "min"):  # GREATEST/LEAST (SQLite: MAX/MIN of several arguments); no NULL reaches it
            cls = exp.Greatest if op == "max" else exp.Least
            args = [self.render(a) for a in node[1:]]
            return cls(this=args[0], expressions=args[1:], ignore_nulls=self.dialect in _IGNORES_NULLS)
        if op == "shift":
            return self.shifted(node)
        if op == "ln":
            return exp.Ln(this=self.render(node[1]))
        if op == "exp":
            return self.exp_(self.render(node[1]))
        if op == "log1p":
            return self.log1p(self.render(node[1]))
        if op == "sigmoid":
            return self.sigmoid(node[1], exact=len(node) > 2 and bool(node[2]))
        if op == "clip":
            return self.clip(self.render(node[1]), node[2], node[3])
        if op == "inside":  # CASE WHEN lo <= a AND a <= hi THEN .. ELSE .. END (NaN: ELSE)
            x = self.p(self.render(node[1]))
            cond = exp.And(this=exp.GTE(this=x, expression=self.num(node[2])),
                           expression=exp.LTE(this=x.copy(), expression=self.num(node[3])))
            return self.case([(cond, self.render(node[4]))], self.render(node[5]))
        if op == "piecewise":
            x = self.render(node[1])
            self._arg_tiny = extent(node[1], self.score_type)[0]
            return self.piecewise(x, np.asarray(node[2], dtype=np.float64), node[3], node[4])
        if op == "head":
            return self.head(node[1], node[2], node[3], node[4] if len(node) > 4 else None)
        if op == "level":
            return self.level(node[1], node[2])
        raise AssertionError(op)  # pragma: no cover

    # -- feature levels (a segment calibrator) -------------------------------------------
    def level_value(self, lv: Levels, v: Any) -> Any:
        """A level value or cut point as a literal: text escaped by sqlglot, a boolean ``TRUE``/``FALSE``, an
        integer as itself (exact levels: the column's own integers), a number as :meth:`num` writes it."""
        exp = self.exp
        if isinstance(v, bool):
            return exp.Boolean(this=v)
        if isinstance(v, str):
            return exp.Literal.string(v)
        if isinstance(v, int) and (lv.exact or lv.kind == "category"):
            return self.int_(v)
        return self.num(float(v))

    def level(self, lv: Levels, branches: tuple) -> Any:
        r"""``("level", lv, branches)``: one ``CASE`` over the feature column, each branch rendered where the
        row's level code selects it (:class:`~._plan.Levels`, ``FeatureSpec.codes`` semantics):

        * missing first: ``col IS NULL`` (numbers: or NaN, :meth:`isnan`) -> the missing level's branch;
        * ``category`` / ``values``: ``WHEN x = v_i THEN branch_i`` (numbers compared as doubles, the column
          cast to one, as ``codes`` compares float64; exact levels as the column's integers), ``ELSE`` the
          pooled level's branch (no pooled level: code -1's);
        * ``bins``: ``WHEN x < c_1 THEN branch_0 WHEN x < c_2 THEN branch_1 … ELSE branch_K``: a value on a
          cut goes to the bin above it (``searchsorted(cuts, x, "right")``).

        ``WHEN``s whose branch is the ``ELSE``'s are dropped (the values' tests are disjoint; a bin's rows
        then fall to the next bin's test, whose branch is theirs), and a NULL or NaN that no test catches
        reaches the ``ELSE`` (NULL compares unknown, NaN false or above every cut) only where that is its
        branch."""
        exp = self.exp
        column = exp.column(self.features.get(lv.name, lv.name), quoted=True)
        as_double = exp.Cast(this=column, to=data_type("DOUBLE"))
        numeric = lv.kind != "category" or lv.what == "number"
        x = column if lv.exact or lv.kind == "category" else as_double

        def branch(code: int | None) -> Node:
            return branches[-1] if code is None or code < 0 else branches[code]

        if lv.kind == "bins":
            default = branch(len(lv.cuts))
            tests = [(exp.LT(this=x.copy(), expression=self.level_value(lv, c)), branch(k))
                     for k, c in enumerate(lv.cuts) if branch(k) != branch(k + 1)]
        else:
            default = branch(lv.other)
            tests = [(exp.EQ(this=x.copy(), expression=self.level_value(lv, v)), branch(k))
                     for k, v in enumerate(lv.values) if branch(k) != default]
        missing = branch(lv.missing)
        if missing != default:
            cond: Any = exp.Is(this=column.copy(), expression=exp.Null())
            nan = self.isnan(as_double.copy()) if numeric else None
            if nan is not None:
                cond = exp.Or(this=cond, expression=nan)
            tests.insert(0, (cond, missing))
        if not tests:
            return self.render(default)
        return self.case([(c, self.render(b)) for c, b in tests], self.render(default))

    def piece(self, x: Any, piece: tuple) -> Any:
        exp = self.exp
        if piece[0] == "affine":
            _, slope, x0, y0 = piece
            if slope == 0.0:
                return self.num(y0)
            line = exp.Add(this=exp.Mul(this=self.num(slope),
                                        expression=exp.Paren(this=exp.Sub(this=self.p(x.copy()),
                                                                          expression=self.num(x0)))),
                           expression=self.num(y0))
            zero_below = self._slope_guard(slope, x0)
            if zero_below is None:
                return line
            # slope·(x − x0) rounds to 0 there: y0 + 0, the value numpy gives (PostgreSQL would raise)
            gap = exp.Sub(this=self.p(x.copy()), expression=self.num(x0))
            return self.case([(exp.LT(this=gap, expression=self.num(zero_below)), self.num(y0))], line)
        # y0 + (x − x0)/(x1 − x0)·(y1 − y0), the two differences of constants taken here in binary64 as
        # transform takes them (PostgreSQL took them in NUMERIC: 0.3 − 0.1 = 0.2, not 0.19999999999999998)
        _, x0, x1, y0, y1 = piece
        dx, dy = float(np.float64(x1) - np.float64(x0)), float(np.float64(y1) - np.float64(y0))
        t = exp.Div(this=exp.Paren(this=exp.Sub(this=self.p(x.copy()), expression=self.num(x0))),
                    expression=self.num(dx))
        return exp.Add(this=self.num(y0), expression=exp.Mul(this=exp.Paren(this=t), expression=self.num(dy)))

    def _below(self, x: Any, edge: float, side: str) -> Any:
        """The condition that ``x`` falls before ``edge`` (edge not counted)."""
        cls = self.exp.LT if side == "right" else self.exp.LTE
        return cls(this=self.p(x.copy()), expression=self.num(edge))

    def piecewise(self, x: Any, edges: np.ndarray, side: str, pieces: list[tuple]) -> Any:
        if edges.size == 0:
            return self.piece(x, pieces[0])
        steep = [j for j, p in enumerate(pieces) if p[0] == "frac"]
        if self.dialect in _ARRAYS and edges.size > _SHORT_TABLE and len(steep) <= _SHORT_TABLE:
            flat = [p if p[0] == "affine" else ("affine", 0.0, 0.0, p[3]) for p in pieces]  # stand-ins
            lookup = self._lookup(x, edges, side, flat)
            if lookup is not None:
                return self._steep_first(x, edges, side, pieces, steep, lookup)
        return self._tree(x, edges, side, pieces, 0, len(pieces) - 1)

    def _lookup(self, x: Any, edges: np.ndarray, side: str, pieces: list[tuple]) -> Any:
        """The dialect's array lookup of affine ``pieces`` (DuckDB's chain, else the cell index), or
        None where the edges do not fit a uniform grid (then the caller builds the tree)."""
        if self.dialect in _CHAIN:
            chain = self._chain_cells(edges)
            if chain is not None:
                return self._chain_lookup(x, edges, side, pieces, *chain)
        cells = self._cells(edges)
        if cells is not None and self.strict and (
                any(p[1] != 0.0 and self._slope_guard(p[1], p[2]) is not None for p in pieces)
                or self._slope_guard(cells[1], cells[0]) is not None):
            return None  # a product the engine would refuse: the tree, whose pieces are guarded one by one
        return None if cells is None else self._array_lookup(x, edges, side, pieces, *cells)

    def _steep_first(self, x: Any, edges: np.ndarray, side: str, pieces: list[tuple], steep: list[int],
                     lookup: Any) -> Any:
        """``CASE WHEN x in piece j THEN piece j … ELSE lookup END`` for the few fraction pieces.

        The lookups keep one affine form a piece; a fraction piece (knots closer than
        1/max-float, so no finite slope) is answered before them by its own interval test
        (after edge j − 1, before edge j), its rows never reaching the stand-in.
        """
        exp = self.exp
        ifs = []
        for j in steep:
            parts = []
            if j > 0:
                parts.append(exp.Not(this=exp.Paren(this=self._below(x, float(edges[j - 1]), side))))
            if j < edges.size:
                parts.append(self._below(x, float(edges[j]), side))
            cond = parts[0] if len(parts) == 1 else exp.And(this=parts[0], expression=parts[1])
            ifs.append((cond, self.piece(x, pieces[j])))
        return self.case(ifs, lookup) if ifs else lookup

    def _tree(self, x: Any, edges: np.ndarray, side: str, pieces: list[tuple], lo: int, hi: int) -> Any:
        """Pieces lo..hi: a balanced tree of comparisons (edge j separates piece j and j + 1)."""
        if lo == hi:
            return self.piece(x, pieces[lo])
        mid = (lo + hi + 1) // 2
        return self.case([(self._below(x, float(edges[mid - 1]), side),
                           self._tree(x, edges, side, pieces, lo, mid - 1))],
                         self._tree(x, edges, side, pieces, mid, hi))

    @staticmethod
    def _cells(edges: np.ndarray) -> tuple[float, float, int, np.ndarray] | None:
        """(lo, scale, cells, cell of every edge) of the uniform cell index, or None."""
        lo, hi = float(edges[0]), float(edges[-1])
        span = hi - lo
        if not (span > 0.0 and np.isfinite(span)):
            return None
        cells = int(min(max(2 * edges.size, 64), _MAX_CELLS))  # ~2 cells a knot: few comparisons
        cells = 1 << (cells - 1).bit_length()
        scale = cells / span
        if not np.isfinite(scale):
            return None
        with np.errstate(all="ignore"):
            g = np.floor((edges - lo) * scale)  # the SQL computes these same two roundings
        g_edges = g.astype(np.int64)
        if np.bincount(g_edges).max() > _MAX_PER_CELL:
            # edges crowded into a few cells (the probabilities of a rare-event model, spread over hundreds
            # of decades near 0): each row would compare the score with every edge of its cell, one nested
            # term and one copy of the edge array each (400 edges: RecursionError); the tree takes log2 K
            return None
        return lo, scale, cells, g_edges

    @staticmethod
    def _chain_cells(edges: np.ndarray) -> tuple[float, float, int, np.ndarray] | None:
        """(scale, offset, cells, cell of every edge) of the chain lookup's cell index, or None.

        A score's cell is ``c = rint(x·scale + offset)`` (DuckDB's ``TRY_CAST(… AS UINTEGER)``
        rounds half to even, as :func:`numpy.rint`; NULL outside 0..2³²−1 and for NaN), the
        same two IEEE roundings here and in the SQL, so ``c`` is monotone in ``x`` and the
        edges' cells computed here are the cells the engine finds. The edges lie in cells
        1..cells; a score in no listed cell (0, past the last, NULL) is before the first
        edge or after the last.
        """
        lo, hi = float(edges[0]), float(edges[-1])
        span = hi - lo
        if not (span > 0.0 and np.isfinite(span)):
            return None
        cells = int(min(max(_CHAIN_CELLS_PER_EDGE * edges.size, 64), _MAX_CELLS))
        cells = 1 << (cells - 1).bit_length()
        scale = cells / span
        offset = 1.0 - lo * scale
        if not (np.isfinite(scale) and np.isfinite(offset)):
            return None
        with np.errstate(all="ignore"):
            g = np.rint(edges * scale + offset)  # the SQL's operations
        if not (np.isfinite(g).all() and g[0] >= 1.0 and g[-1] <= 2.0 * cells + 2.0):
            return None
        g_edges = g.astype(np.int64)
        if np.bincount(g_edges).max() > _MAX_PER_CELL:  # edges too close for the grid's resolution
            return None
        return scale, offset, int(g_edges[-1]), g_edges

    def _chain_lookup(self, x: Any, edges: np.ndarray, side: str, pieces: list[tuple],
                      scale: float, offset: float, cells: int, g_edges: np.ndarray) -> Any:
        """DuckDB: ``COALESCE(CASE WHEN x < T_0[c] THEN piece_0[c] WHEN x < T_1[c] THEN … ELSE piece_m[c] END, ends)``.

        ``T_j[c]`` is the j-th edge inside cell c, ``piece_j[c]`` the piece after the cell's
        first j edges; where the cell holds exactly j edges, ``T_j[c]`` is inf (every finite
        score is before it: the branch gives the cell's last piece), and where it holds fewer,
        a branch no row reaches, both are 0 (one character of text, not a repeated edge and
        piece: most of the arrays' entries). The cell index is monotone in x
        (see :meth:`_chain_cells`), so the edges of earlier cells are all before x and
        those of later cells all after: the CASE finishes the count exactly. A row in a
        cell without edges (most rows, with ~2 cells a knot) costs two array look-ups and
        one comparison; DuckDB evaluates a branch only on the rows that reach it. A score
        outside the listed cells (or NaN) gets NULL from every look-up, and the COALESCE
        gives it the first piece (before the first edge) or the last (after the last, NaN).
        """
        exp = self.exp
        ids = np.arange(1, cells + 1)                              # cell k is element k of each array
        count = np.bincount(g_edges, minlength=cells + 1)[1:]
        first = np.searchsorted(g_edges, ids, side="left")          # edges in earlier cells
        m = int(count.max())
        assert self.dialect in _TEXT_ARRAYS  # inf is written in the array's text, never as a literal
        c = exp.TryCast(this=exp.Add(this=exp.Mul(this=self.p(x.copy()), expression=self.num(scale)),
                                     expression=self.num(offset)),
                        to=data_type("UINT"))
        cmp = exp.LT if side == "right" else exp.LTE

        def at(values: Any) -> Any:
            return exp.Bracket(this=self._array(values, "float"), expressions=[c.copy()], offset=1)

        # the pieces' (slope, x0, y0) as three arrays
        slope_of, x0_of, y0_of = (np.array([p[f] for p in pieces], dtype=np.float64) for f in (1, 2, 3))

        def value(j: int) -> Any:
            # the piece after j edges of the cell; a branch past the cell's sentinel is never reached: 0
            idx = first + np.minimum(j, count)
            reached = j <= count
            slope, x0, y0 = (np.where(reached, a[idx], 0.0) for a in (slope_of, x0_of, y0_of))
            if (slope == 0.0).all():
                return at(y0)
            return exp.Add(this=exp.Mul(this=at(slope), expression=exp.Paren(this=exp.Sub(
                this=self.p(x.copy()), expression=at(x0)))), expression=at(y0))

        ifs = []
        for j in range(m):
            pos = np.minimum(first + j, edges.size - 1)
            # the cell's j-th edge; inf just past its last (x < inf: every score that reaches it); 0 beyond
            inside = (first + j < edges.size) & (g_edges[pos] == ids)
            T_j = np.where(inside, edges[pos], np.where(j == count, np.inf, 0.0))
            ifs.append((cmp(this=self.p(x.copy()), expression=at(T_j)), value(j)))
        ends = self.case([(self._below(x, float(edges[0]), side), self.piece(x, pieces[0]))],
                         self.piece(x, pieces[edges.size]))
        return exp.Coalesce(this=self.case(ifs, value(m)), expressions=[ends])

    def _array(self, values: Any, kind: str) -> Any:
        exp = self.exp
        to = data_type("ARRAY<BIGINT>" if kind == "int" else "ARRAY<DOUBLE>")
        if self.dialect in _TEXT_ARRAYS:
            typed = exp.Cast(this=self._array_text(values, kind), to=to)
        else:
            items = [self.int_(v) for v in values] if kind == "int" else [self.num(v) for v in values]
            typed = exp.Cast(this=exp.Array(expressions=items), to=to)
        if self.hoist:
            return exp.select(typed).subquery()
        return exp.Paren(this=typed)  # PostgreSQL subscripts only a parenthesised CAST

    def _array_text(self, values: Any, kind: str) -> Any:
        """An array constant as one string the engine casts (a single token to parse, folded once).

        Floats are written in their shortest round-trip form (:func:`float_literal`, ``"text"``: the
        cast makes them doubles): DuckDB, PostgreSQL and Spark read them with a correctly rounded
        parser, so each is the same binary64.
        """
        exp = self.exp
        if kind == "int":
            body = ",".join(str(int(v)) for v in values)
        else:  # 0 and inf (chain lookup placeholders and sentinels) in their shortest form
            def text(v: float) -> str:
                return ("inf" if v == np.inf else "-0.0" if v == 0.0 and np.signbit(v)
                        else ("-" if v < 0.0 else "") + float_literal(abs(v), "text"))

            # each distinct double written once (by its bits: -0.0 is not 0.0), then looked up per entry
            bits, at = np.unique(np.asarray(values, dtype=np.float64).view(np.int64), return_inverse=True)
            texts = np.array([text(v) for v in bits.view(np.float64).tolist()], dtype=object)
            body = ",".join(texts[at.ravel()].tolist())
        if self.dialect == "spark":  # no string-to-array cast: split, then cast the strings
            return exp.RegexpSplit(this=exp.Literal.string(body), expression=exp.Literal.string(","))
        return exp.Literal.string("{" + body + "}" if self.dialect == "postgres" else "[" + body + "]")

    def _at(self, array: Any, index0: Any) -> Any:
        """``array[index0]`` with a 0-based index, written in the dialect's own base."""
        exp = self.exp
        idx = index0 if self.index_offset == 0 else exp.Add(this=self.p(index0), expression=self.int_(self.index_offset))
        return exp.Bracket(this=array, expressions=[idx], offset=self.index_offset)

    def _array_lookup(self, x: Any, edges: np.ndarray, side: str, pieces: list[tuple],
                      lo: float, scale: float, cells: int, g_edges: np.ndarray) -> Any:
        r"""``CASE WHEN x before the first edge … WHEN after the last … ELSE piece[i] END``, the piece index
        ``i = b[g] + CASE WHEN x < T_0[g] THEN 0 WHEN x < T_1[g] THEN 1 … ELSE m END``.

        ``g = floor((x − lo)·scale)`` is the score's cell (0..cells for lo <= x <= hi; computed with the
        IEEE operations :meth:`_cells` used, so monotone in x and the edges' cells are the ones the engine
        finds), ``b[g]`` the number of edges in earlier cells (all before x), ``T_j[g]`` the cell's j-th
        edge: the CASE counts the cell's edges before x. Just past a cell's last edge ``T_j[g]`` is a
        short number at or above every score that reaches the lookup (the CASE stops there), and beyond
        it an entry no row reads, written ``0``. Each array is written once (it was written once per
        comparison, and the edge and cell arrays again inside every index: 165 KB of PostgreSQL for
        1,000 knots); only the short cell index ``g`` repeats, and, for linear pieces, the piece index.
        (``<`` is ``<=`` for side ``"left"``.)
        """
        exp = self.exp
        n = edges.size
        base = np.searchsorted(g_edges, np.arange(cells + 1), side="left")  # edges certainly before x
        per_cell = np.bincount(g_edges, minlength=cells + 1)
        m = int(per_cell.max())                                              # edges to compare at most
        g = exp.Cast(this=exp.Floor(this=exp.Mul(this=exp.Paren(this=exp.Sub(this=self.p(x.copy()),
                                                                             expression=self.num(lo))),
                                                 expression=self.num(scale))),
                     to=data_type("BIGINT"))
        # at or above every score that reaches the lookup (x <= the last edge), in a few characters
        stop = float(np.ceil(float(edges[-1])))
        stop = stop if abs(stop) < 1e15 else float(edges[-1])
        cmp = exp.LT if side == "right" else exp.LTE
        ifs = []
        for j in range(m):
            pos = np.minimum(base + j, n - 1)
            T_j = np.where(j < per_cell, edges[pos], np.where(j == per_cell, stop, 0.0))
            ifs.append((cmp(this=self.p(x.copy()), expression=self._at(self._array(T_j, "float"), g.copy())),
                        self.int_(j)))
        within = self.case(ifs, self.int_(m))
        idx: Any = exp.Add(this=self._at(self._array(base, "int"), g), expression=within)
        y0 = self._at(self._array([p[3] for p in pieces], "float"), idx)
        if all(p[1] == 0.0 for p in pieces):
            inner = y0
        else:
            slope = self._at(self._array([p[1] for p in pieces], "float"), idx.copy())
            x0 = self._at(self._array([p[2] for p in pieces], "float"), idx.copy())
            inner = exp.Add(this=exp.Mul(this=slope, expression=exp.Paren(this=exp.Sub(this=self.p(x.copy()),
                                                                                        expression=x0))),
                            expression=y0)
        first, last = float(edges[0]), float(edges[-1])
        before = self._below(x, first, side)
        after = (exp.GTE if side == "right" else exp.GT)(this=self.p(x.copy()), expression=self.num(last))
        return self.case([(before, self.piece(x, pieces[0])), (after, self.piece(x, pieces[n]))], inner)

    def head(self, name: str, items: list[Node], k: int, fallback: Any = None) -> Any:
        exp = self.exp
        if name == "softmax":
            extra = fallback if isinstance(fallback, SoftmaxExtra) else SoftmaxExtra()
            shift = extra.shift
            r = extra.rescue
            if r is None:
                return self.softmax(items, k, shift)
            # each softmax below runs only on rows whose logits its condition found finite (a CASE branch
            # is evaluated only where its condition holds): written without the overflow guards, which
            # repeated every operand three times (the PostgreSQL text of vector scaling at 10 classes was
            # 1.9 MB)
            plain = self.softmax(items, k, shift, finite=True)
            rescued = self.rescued_softmax(r, k, shift)  # logits that can overflow: the rows where they do
            if r.shifted is None or r.plain is None:
                return self.case([(self.finite_logits(items, r), plain)], rescued)
            # logits of z - r (Rescue): where z - r overflows, those of z, as transform reads the row
            ok = self.shift_exact(r.shifted)
            shifted = r.on_shifted()
            unshifted = replace(r, shifted=None, plain=None, offsets=None, W_shifted=None)
            return self.case([
                (exp.And(this=ok, expression=self.p(self.finite_logits(items, shifted))), plain),
                (exp.And(this=exp.Not(this=self.p(ok.copy())),
                         expression=self.p(self.finite_logits(r.plain, unshifted))),
                 self.softmax(r.plain, k, shift, finite=True))], rescued)
        rendered = [self.render(it) for it in items]
        total: Any = self.p(rendered[0].copy())
        for r in rendered[1:]:
            total = exp.Add(this=total, expression=self.p(r.copy()))
        spans = [extent(it, self.score_type) for it in items]
        e_total = (min(t for t, _ in spans), sum(b for _, b in spans))
        if name == "normalise":
            return self.quotient(rendered[k], exp.Paren(this=total), spans[k], e_total)
        # one-vs-rest: a row whose maps all give 0 is uniform, or the head's fallback (the maps
        # are >= 0, so the sum is <= 0 only when it is 0): q_k / NULLIF(sum, 0), then that value
        share = self.quotient(rendered[k], exp.Nullif(this=total, expression=self.num(0.0)), spans[k], e_total)
        flat = 1.0 / len(items) if fallback is None else fallback[k]
        return exp.Coalesce(this=share, expressions=[self.num(flat)])

    def softmax(self, items: list[Node], k: int, shift: np.ndarray | None, finite: bool = False) -> Any:
        """softmax_k = 1 / sum_j exp(l_j - l_k): no overflow, the k-th term is exactly 1; a prior shift on
        large logits (:class:`SoftmaxExtra`) adds ln r_j - ln r_k to each difference. ``finite``: the
        logits are rendered for rows where they are all finite (:attr:`finite`); their differences are
        still clamped before they are taken (two finite logits can differ by more than the largest double)."""
        exp = self.exp
        before, self.finite = self.finite, finite
        try:
            rendered = [self.render(it) for it in items]
        finally:
            self.finite = before
        spans = [extent(it, self.score_type) for it in items] if self.strict else [(0.0, 0.0)] * len(items)
        terms: Any = self.num(1.0)
        for j, lj in enumerate(rendered):
            if j != k:
                d = 0.0 if shift is None else float(shift[j] - shift[k])
                term = self.clamped_difference(lj, rendered[k].copy(), spans[j], spans[k], d)
                terms = exp.Add(this=terms, expression=term)
        return exp.Div(this=self.num(1.0), expression=exp.Paren(this=terms))

    def shifted(self, node: Node) -> Any:
        r"""``("shift", z, r)``: :math:`z - r` (±inf where it overflows). On a strict engine, where an
        overflow is an error, :math:`\max(z, \max(r, 0) - M) - r` for :math:`r` the row's largest
        (:math:`\min(z, \min(r, 0) + M) - r` for its smallest): :math:`z - r` itself wherever that is finite,
        about :math:`\mp M` where it is not (a row the head reads unshifted: :meth:`shift_exact`)."""
        exp = self.exp
        z, r = self.render(node[1]), self.render(node[2])
        if self.strict and not self.finite:
            big = node[2][0] == "max"
            zero = self.clip(r.copy(), 0.0, None) if big else self.clip(r.copy(), None, 0.0)
            edge = (exp.Sub if big else exp.Add)(this=zero, expression=self.num(_MAX_FLOAT))
            z = (exp.Greatest if big else exp.Least)(this=z, expressions=[edge],
                                                     ignore_nulls=self.dialect in _IGNORES_NULLS)
        return exp.Sub(this=self.p(z), expression=self.p(r))

    def shift_exact(self, shifted: list[Node]) -> Any:
        r"""True on a row where no :math:`z_j - r` (``shifted``: the nodes ``("shift", z_j, r)``) overflows:
        :math:`|z_j - r| \le M` (inf fails it; SQLite's NaN is NULL, which fails it too); on a strict engine
        :math:`|z_j/2 - r/2| \le M/2` (halving is exact, so the halves' difference rounds to the half of the
        difference, and it cannot overflow; a subnormal's half is read as 0 there)."""
        exp = self.exp
        conds = []
        for d in shifted:
            if self.strict:
                diff = exp.Sub(this=self.p(self.render(("mul", d[1], ("const", 0.5)))),
                               expression=self.p(self.render(("mul", d[2], ("const", 0.5)))))
                conds.append(exp.LTE(this=exp.Abs(this=diff), expression=self.num(_MAX_FLOAT / 2.0)))
            else:
                conds.append(exp.LTE(this=exp.Abs(this=self.render(d)), expression=self.num(_MAX_FLOAT)))
        out = conds[0]
        for c in conds[1:]:
            out = exp.And(this=out, expression=c)
        return exp.Paren(this=out)

    # -- softmax logits that overflow (transform's _shifted_logits) ---------------------------------------
    def finite_logits(self, items: list[Node], r: Rescue) -> Any:
        r"""True on a row whose plain logits are all finite (``transform``'s test), where the plain softmax
        holds; on the others :meth:`rescued_softmax`.

        Divided: :math:`|z_j| <` the first double whose quotient by :math:`T` is inf, for every j.
        Affine, on an IEEE engine: :math:`|L_k| \le M` for every k (inf or NaN fail it; SQLite's NaN is NULL,
        which fails it too). On a strict engine, where :math:`L` itself must not overflow: no product
        :math:`W_{rj} z_j` reaches the first double that overflows and no partial sum of the scaled
        :math:`P_r` (:meth:`Rescue.scaled`, the real one times :math:`2^{-n}` exactly) reaches
        :math:`2^{1024-n}` -- exactly where numpy's left-to-right sum would give ±inf or NaN (``r.zs``: the
        features the logits read, :math:`z_j - r` where they are shifted, :class:`Rescue`).
        """
        exp = self.exp
        conds: list[Any] = []
        if r.kind == "divided":
            inf_from = limits(r.T, "div")[1]
            assert inf_from is not None  # a rescue is planned only where z / T can overflow
            conds = [exp.LT(this=exp.Abs(this=self.render(z)), expression=self.num(inf_from)) for z in r.zs]
        elif not self.strict:
            conds = [exp.LTE(this=exp.Abs(this=self.render(it)), expression=self.num(_MAX_FLOAT)) for it in items]
        else:
            bad = self._affine_overflow(r)
            if not bad:
                return exp.true()
            found = bad[0]
            for c in bad[1:]:
                found = exp.Or(this=found, expression=c)
            return exp.Not(this=exp.Paren(this=found))
        good = conds[0]
        for c in conds[1:]:
            good = exp.And(this=good, expression=c)
        return good

    def _affine_overflow(self, r: Rescue) -> list[Any]:
        """The conditions (any true: the row's ``W z + b`` overflows) of :meth:`finite_logits` on a strict engine."""
        from ._plan import _overflows, _sum

        exp = self.exp
        assert r.W is not None
        bounds = [extent(z, self.score_type)[1] for z in r.zs]
        thr = self.num(2.0 ** (1024 - r.n))
        found: list[Any] = []
        for row in range(r.W.shape[0]):
            terms = r.scaled_terms(row)
            for j, _ in terms:  # a product that overflows on its own
                inf_from = limits(abs(float(r.W[row, j])), "mul")[1]
                if inf_from is not None and bounds[j] >= inf_from:
                    found.append(exp.GTE(this=exp.Abs(this=self.render(r.zs[j])), expression=self.num(inf_from)))
            for i in range(2, len(terms) + 1):  # a partial sum that does
                if _overflows([float(r.W[row, j]) for j, _ in terms[:i]], [bounds[j] for j, _ in terms[:i]], 0.0):
                    node = _sum([t for _, t in terms[:i]])
                    found.append(exp.GTE(this=exp.Abs(this=self.render(node)), expression=thr.copy()))
            bias = float(r.b[row])
            scaled_bias = float(np.ldexp(bias, -r.n))
            if terms and abs(bias) >= 2.0 ** 969 and float(np.ldexp(scaled_bias, r.n)) == bias:
                # only a bias of 2^969 or more can move a finite sum to inf
                node = ("add", _sum([t for _, t in terms]), ("const", scaled_bias))
                found.append(exp.GTE(this=exp.Abs(this=self.render(node)), expression=thr.copy()))
        return found

    def _times_pow2(self, e: Any, n: int) -> Any:
        """``e · 2^n`` (n >= 0), exactly: in two factors where 2^n is not a double."""
        exp = self.exp
        if n <= 1000:
            return exp.Mul(this=self.p(e), expression=self.num(2.0 ** n))
        return exp.Mul(this=exp.Mul(this=self.p(e), expression=self.num(2.0 ** (n - 1000))),
                       expression=self.num(2.0 ** 1000))

    def rescued_softmax(self, r: Rescue, k: int, shift: np.ndarray | None = None) -> Any:
        r"""Softmax output k of a row whose logits overflow: :math:`1/\sum_j e^{\Delta_{jk}}`
        (:class:`Rescue`), with nothing that overflows on the way.

        The difference :math:`y` of the two scaled logits is clamped first, to :math:`\pm c` with
        :math:`c = 2^{t-n}` (affine) or :math:`2^t\,T/2` (divided), :math:`2^t \ge 2(700 + \max\beta -
        \min\beta)`: a clamped :math:`y` gives a :math:`\Delta` beyond :math:`\pm700`, which the clamp
        of the exponent saturates anyway, and an unclamped one is scaled back without overflow.
        """
        exp = self.exp
        beta = r.b if shift is None else r.b + shift
        spread = float(beta.max()) - float(beta.min())
        # 2^t must be a double, and on PostgreSQL (which raises on overflow) 2^t + spread too: t <= 1023
        most = 2.0 ** 1023 if self.strict else _MAX_FLOAT
        if not 2.0 * (EXP_LIMIT + spread) <= most:
            raise VeracityError(
                f"this map's class biases (state b_) differ by {_spread_text(spread)}, more than its "
                f"{self.dialect} SQL can compare on rows whose logits overflow (at most "
                f"{most / 2 - EXP_LIMIT:.2g}); export it to ONNX (to_onnx), or re-fit it (a fitted map's "
                "biases are far smaller)")
        t = int(np.ceil(np.log2(2.0 * (EXP_LIMIT + spread))))
        if r.kind == "affine":
            logits = r.scaled()
            c = 2.0 ** (t - r.n)
        else:
            logits = [("mul", z, ("const", 0.5)) for z in r.zs]
            c = float(np.ldexp(r.T * 0.5, t))
        terms: Any = self.num(1.0)
        for j in range(len(logits)):
            if j == k:
                continue
            y = self.clip(exp.Sub(this=self.p(self.render(logits[j])), expression=self.p(self.render(logits[k]))),
                          -c, c)
            if r.kind == "affine":
                y = self._times_pow2(y, r.n)
            else:
                y = exp.Div(this=self.p(y), expression=self.num(r.T * 0.5))
            d = float(beta[j] - beta[k])
            if d != 0.0:
                y = exp.Add(this=y, expression=self.num(d))
            terms = exp.Add(this=terms, expression=self.exp_(y))
        return exp.Div(this=self.num(1.0), expression=exp.Paren(this=terms))

    # -- outputs ------------------------------------------------------------------------
    def isnan(self, col: Any) -> Any:
        """True where ``col`` is NaN, or None where the dialect stores no NaN (SQLite reads it as NULL).

        PostgreSQL and Snowflake hold NaN equal to itself (and above every number), so NaN is found
        by equality there; the others have a function (``ISNAN``, ``IS_NAN``)."""
        exp = self.exp
        if self.dialect == "sqlite":
            return None
        if self.dialect in _NAN_EQUALS_ITSELF:
            nan = exp.Cast(this=exp.Literal.string("NaN"), to=data_type("DOUBLE"))
            return exp.EQ(this=col, expression=nan)
        return exp.IsNan(this=col)

    def not_a_number(self, name: str) -> Any:
        """SQLite: true where the column holds no number -- text or a blob (None elsewhere).

        SQLite keeps text in a TEXT or untyped column (what ``.import`` of a CSV creates) and compares
        it with a number as text, or as greater than every number: ``'0.5' > 1.0`` is false and
        ``MAX('0.5', 2.2e-16)`` is ``'0.5'``, then ``MIN('0.5', 1 − 2⁻⁵²)`` the number, so every text score
        got the probability of 1 − 2⁻⁵². ``transform`` refuses text scores; the SQL gives them NULL. The
        other engines refuse to compare text with a number (an error), or read it as a double."""
        if self.dialect != "sqlite":
            return None
        exp = self.exp
        kind = exp.Anonymous(this="typeof", expressions=[exp.column(name, quoted=True)])
        numbers = [exp.Literal.string("integer"), exp.Literal.string("real")]
        return exp.Not(this=exp.In(this=kind, expressions=numbers))

    def refused(self, p: Plan) -> list[Any]:
        """Conditions true on a row ``transform`` refuses (besides NULL and NaN): a probability outside
        [0, 1] (±inf among them; a ranking score of a beta map too), a logit or ranking score of ±inf
        (beyond ±max-float), a multiclass
        probability row whose sum is more than ``ROW_SUM_ATOL``·K from 1."""
        exp = self.exp
        cols = [self.col(k) for k in range(len(self.names))]
        unit = p.score_type == "probability" or p.unit_scores  # a beta map of ranking scores reads [0, 1] too
        lo, hi = (0.0, 1.0) if unit else (-_MAX_FLOAT, _MAX_FLOAT)
        found: list[Any] = []
        for c in cols:
            found += [exp.LT(this=c, expression=self.num(lo)), exp.GT(this=c.copy(), expression=self.num(hi))]
        if p.rows_sum_to_one:  # summed in numpy's order, so the test falls where transform's does
            total = numpy_sum([c.copy() for c in cols],
                              lambda a, b: exp.Paren(this=exp.Add(this=a, expression=b)))
            off = exp.Abs(this=exp.Sub(this=total, expression=self.num(1.0)))
            found.append(exp.GT(this=off, expression=self.num(ROW_SUM_ATOL * len(cols))))
        return found

    def in_doubles(self, e: Any) -> tuple[Any, bool]:
        """``e`` with no operation on two NUMERICs, and whether its own value is a NUMERIC (a number literal,
        or a CASE, GREATEST, … of them), where every literal is a NUMERIC (:data:`_DECIMAL_LITERALS`).

        PostgreSQL computes ``+ − · /`` of two NUMERICs, EXP and LN of one, in decimal, where ``transform``
        rounds each step to binary64: ``0.3 − 0.1`` is 0.2 there, not 0.19999999999999998, and the sum of a
        one-vs-rest row's step values (CASEs of literals) was exact, rounded once (2 ulps off). Here an
        operation on two literals is done in binary64 (numpy's, transform's operation) and written as its
        result (its shortest literal: the very double); a NUMERIC operand that is no literal (a step table)
        is cast to DOUBLE PRECISION, so the engine computes in doubles, each literal read as its very double.
        An operation on a double and a NUMERIC already runs in doubles.
        """
        exp = self.exp
        kind = type(e).__name__
        if isinstance(e, exp.Literal):
            return e, not e.is_string and any(ch in e.this for ch in ".eE")
        if isinstance(e, (exp.Column, exp.DataType)):
            # a column reference or a cast's type (most of the nodes: every reference of the score is a cast)
            # holds no operation on numbers, and is itself no NUMERIC: the walk below gave it back unchanged
            return e, False
        if kind in _FOLD or isinstance(e, (exp.Exp, exp.Ln)):
            keys = ("this", "expression") if kind in _FOLD else ("this",)
            args = [self.in_doubles(e.args[k]) for k in keys]
            if all(d for _, d in args):
                values = [self._literal(a) for a, _ in args]
                if kind in _FOLD and None not in values:
                    with np.errstate(all="ignore"):
                        v = float(_FOLD[kind](np.float64(values[0]), np.float64(values[1])))
                    if np.isfinite(v):
                        return self.num(v), True
                at = values.index(None) if None in values else 0  # the step table, else the first literal
                args[at] = (exp.Cast(this=args[at][0], to=data_type("DOUBLE")), False)
            for k, (a, _) in zip(keys, args):
                _put(e, k, a)
            return e, False
        if isinstance(e, exp.Case):
            decimal = True
            for branch in e.args.get("ifs") or []:
                _put(branch, "this", self.in_doubles(branch.this)[0])
                value, d = self.in_doubles(branch.args["true"])
                _put(branch, "true", value)
                decimal = decimal and (d or isinstance(value, exp.Null))
            if e.args.get("default") is not None:
                value, d = self.in_doubles(e.args["default"])
                _put(e, "default", value)
                decimal = decimal and (d or isinstance(value, exp.Null))
            return e, decimal
        decimal = kind in _KEEPS_DECIMAL
        for key, arg in list(e.args.items()):
            items = arg if isinstance(arg, list) else [arg]
            done = []
            for item in items:
                if isinstance(item, exp.Expression):
                    item, d = self.in_doubles(item)
                    decimal = decimal and (d or key not in ("this", "expressions"))
                done.append(item)
            if isinstance(arg, list):
                if len(done) != len(arg) or any(a is not b for a, b in zip(done, arg)):
                    e.set(key, done)
            else:
                _put(e, key, done[0])
        return e, decimal

    def _literal(self, e: Any) -> float | None:
        """The number of a literal, signed or parenthesised (None: ``e`` is no literal)."""
        exp = self.exp
        sign = 1.0
        while isinstance(e, (exp.Paren, exp.Neg)):
            sign = -sign if isinstance(e, exp.Neg) else sign
            e = e.this
        return sign * float(e.this) if isinstance(e, exp.Literal) and not e.is_string else None

    def output(self, node: Node, p: Plan | None = None) -> Any:
        """``CASE WHEN <a score is NULL, NaN or refused> THEN NULL ELSE CAST(<map> AS DOUBLE) END``: a
        missing score gives a missing probability, never the one the formula would give NaN (PostgreSQL
        sorts NaN above every number: its clipped logit was the largest, a probability of 1.0); a score
        ``transform`` refuses (:meth:`refused`) gives none either, never the clipped formula's number."""
        exp = self.exp
        if p is not None:
            self.score_type = p.score_type
        rendered = self.render(node)
        if self.dialect in _DECIMAL_LITERALS:
            rendered = self.in_doubles(rendered)[0]
        body = exp.Cast(this=rendered, to=data_type("DOUBLE"))
        missing = [exp.Is(this=exp.column(name, quoted=True), expression=exp.Null()) for name in self.names]
        missing += [t for t in (self.isnan(self.col(k)) for k in range(len(self.names))) if t is not None]
        missing += [t for t in (self.not_a_number(name) for name in self.names) if t is not None]
        if p is not None:
            missing += self.refused(p)
        for x, lo, hi in zero_over_zero(node, []):
            xr = self.render(x)
            if lo is not None and lo == hi:
                missing.append(exp.EQ(this=xr, expression=self.num(lo)))
                continue
            sides = ([exp.GT(this=xr.copy(), expression=self.num(lo))] if lo is not None else []) + (
                [exp.LT(this=xr.copy(), expression=self.num(hi))] if hi is not None else [])
            missing.append(exp.And(this=sides[0], expression=sides[1]) if len(sides) == 2
                           else sides[0] if sides else exp.true())
        cond = missing[0]
        for m in missing[1:]:
            cond = exp.Or(this=cond, expression=m)
        return self.case([(cond, exp.Null())], body)


@functools.lru_cache(maxsize=1 << 12)
def _chain_limits(chain: tuple[tuple[str, float], ...]) -> tuple[float | None, float | None]:
    """``(zero_below, inf_from)`` of ``v·c1·c2/c3 …`` (``chain``: each step's operation and ``|c|``, innermost
    first): below ``zero_below`` the double result is 0, from ``inf_from`` on it is inf (None: never); each a
    bisection over the doubles (:func:`~._ranges.first_double`), once a chain: a multiclass head writes the
    same chain for every class's output (K² guards of K distinct chains)."""
    def value(v: float) -> Any:
        out = np.float64(v)
        for o, c in chain:
            out = out * c if o == "mul" else out / c
        return out

    with np.errstate(all="ignore"):
        return (first_double(lambda v: value(v) != 0.0),
                first_double(lambda v: bool(np.isinf(value(v)))))


def _put(e: Any, key: str, value: Any) -> None:
    """``e.set(key, value)`` where that changes ``e``: :meth:`_Builder.in_doubles` hands most nodes back as
    they were, and setting one again only set its parent pointers again (the text is the same). A None is
    set as before (sqlglot drops the key)."""
    if value is None or e.args.get(key) is not value:
        e.set(key, value)


def _entries(node: Any) -> int:
    """Step-table entries the SQL of ``node`` writes out (a head writes its items again per output)."""
    if not isinstance(node, tuple) or not node:
        return 0
    if node[0] == "piecewise":
        return 2 * len(node[2]) + len(node[4]) + _entries(node[1])
    if node[0] == "head":
        return 2 * sum(_entries(it) for it in node[2])
    if node[0] == "level":  # one test and one value a level
        return sum(2 + _entries(b) for b in node[2])
    return sum(_entries(a) for a in node[1:] if isinstance(a, tuple))


def _steps(node: Any) -> int:
    """Edges of the step tables in ``node``."""
    if not isinstance(node, tuple) or not node:
        return 0
    if node[0] == "piecewise":
        return len(node[2]) + _steps(node[1])
    if node[0] == "head":
        return sum(_steps(it) for it in node[2])
    if node[0] == "level":
        return sum(_steps(b) for b in node[2])
    return sum(_steps(a) for a in node[1:] if isinstance(a, tuple))


def _compact(node: Any) -> Any:
    """``node`` with every Venn–ABERS quotient written as its one step table (:func:`merged_venn_abers`)."""
    if not isinstance(node, tuple) or not node or not isinstance(node[0], str):
        return node
    if node[0] == "div":
        merged = merged_venn_abers(node)
        if merged is not None:
            return merged
    if node[0] == "piecewise":  # its pieces are not nodes
        return node
    if node[0] == "level":
        branches = tuple(_compact(b) for b in node[2])
        return node if all(a is b for a, b in zip(branches, node[2])) else (node[0], node[1], branches)
    if node[0] == "head":
        items = [_compact(it) for it in node[2]]
        same = all(a is b for a, b in zip(items, node[2]))
        return node if same else node[:2] + (items,) + node[3:]
    args = [_compact(a) for a in node[1:]]
    # unchanged: the very node (a quotient's numerator is its denominator's own p1 object)
    return node if all(a is b for a, b in zip(args, node[1:])) else (node[0], *args)


def feature_columns(p: Plan, features: Any, dialect: str | None = None) -> dict[str, str]:
    """The column of each feature the plan reads (:attr:`Plan.features`): ``features`` maps a name to its
    column (a name not given reads the column of its own name). Refused in one line: a mapping for a map that
    reads no feature, a name the map does not read, a column name empty or with control characters, and two
    features whose columns are one column in ``dialect`` (:func:`identifier_key`)."""
    if features is None:
        features = {}
    if not isinstance(features, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in features.items()):
        raise VeracityError(f"features must map each feature name to its column name, e.g. "
                            f"{{'region': 'region_col'}}, got {features!r}")
    if features and not p.features:
        raise VeracityError(f"features= names the feature columns of a 'segment' calibrator; this {p.kind} "
                            "calibrator reads only its score column: drop features=")
    unknown = [k for k in features if k not in p.features]
    if unknown:
        raise VeracityError(f"features= names {unknown[0]!r}, which this calibrator does not read; its "
                            f"features: {', '.join(map(repr, p.features))}")
    cols = {name: features.get(name, name) for name in p.features}
    for name, col in cols.items():
        if not col or any(not ch.isprintable() for ch in col):
            raise VeracityError(f"the column of feature {name!r}, {col!r}, is empty or holds control "
                                "characters; pass the column's plain name")
    if dialect is not None:
        first: dict[str, tuple[str, str]] = {}
        for name, col in cols.items():
            other = first.setdefault(identifier_key(col, dialect), (name, col))
            if other[1] != col:
                raise VeracityError(
                    f"features {other[0]!r} and {name!r} read columns {other[1]!r} and {col!r}, which are "
                    f"one column in {dialect}, {_one_column_why(dialect)}; map them to distinct columns "
                    "with features={name: column}")
    return cols


def to_sql(p: Plan, column: Any = "score", *, dialect: str = "duckdb", alias: str = "probability",
           features: Any = None) -> str:
    """The SQL text of a plan: one expression (binary), or K aliased expressions (multiclass); ``features``:
    the column of each feature a segment calibrator's map reads (:func:`feature_columns`)."""
    import sqlglot

    d = check_dialect(dialect)
    names = check_columns(column, p.n_inputs, d)
    cols = feature_columns(p, features, d)
    p = replace(p, outputs=[_compact(node) for node in p.outputs])
    entries = sum(_entries(node) for node in p.outputs)
    if entries > MAX_TABLE_ENTRIES:
        venn = p.kind == "venn-abers" and len(p.outputs) == 1
        # a binary map is never told about classes it does not have
        why = ("multiclass outputs repeat every class's map" if len(p.outputs) > 1 else
               "Venn-ABERS steps wherever its bounds change between distinct fit scores: "
               f"{_steps(p.outputs[0]):,} steps here" if venn else "one entry per step")
        fewer = ("fit it on rounded scores (fewer distinct scores, fewer steps)" if venn
                 else "fit a map with fewer steps")
        raise VeracityError(
            f"the SQL of this {p.kind} calibrator would write out {entries:,} step-table entries (at most "
            f"{MAX_TABLE_ENTRIES:,}; {why}); export it to ONNX instead (to_onnx), or {fewer}")
    exprs = [_Builder(d, names, features=cols).output(node, p) for node in p.outputs]
    # only a hoisting dialect writes subqueries (:meth:`_Builder._array`): the others skip this walk
    subqueries = sum(len(list(e.find_all(sqlglot.exp.Subquery))) for e in exprs) if d in _HOIST else 0
    if subqueries > _MAX_HOISTED * len(exprs):
        exprs = [_Builder(d, names, hoist=False, features=cols).output(node, p) for node in p.outputs]
    # the trees are built for this one text: written without the defensive copy of the whole tree, by the
    # generator of :func:`dialect_generator` (the text ``e.sql(dialect=d, …)`` writes; BigQuery's skips its
    # rewrite of the casts' types, which none of the map's types needs: :func:`_plain_types`)
    generator = dialect_generator(d, plain=d == "bigquery" and not _plain_types(exprs))
    raise_ = sqlglot.ErrorLevel.RAISE
    write = lambda e: generator(unsupported_level=raise_).generate(e, copy=False)  # noqa: E731
    comment = f"/* {provenance(p)} */\n"
    if len(exprs) == 1 and not p.multiclass:
        return comment + write(exprs[0])
    if not isinstance(alias, str) or not alias or any(not ch.isprintable() for ch in alias):
        raise VeracityError(f"alias must be a plain output-column prefix, got {alias!r}")
    if len({identifier_key(f"{alias}_{k}", d) for k in range(len(exprs))}) < len(exprs):
        raise VeracityError(  # PostgreSQL: "a…a_0" and "a…a_1" cut to one name (or "a…a_10" to "a…a_1")
            f"alias {alias!r} makes two of the output names {alias}_0 … {alias}_{len(exprs) - 1} one name in "
            f"{d}, {_one_column_why(d)}; pass a shorter alias")
    aliased = [sqlglot.exp.alias_(e, f"{alias}_{k}", quoted=True, copy=False) for k, e in enumerate(exprs)]
    return comment + ",\n".join(write(e) for e in aliased)
