r"""The audit's SQL, generated through sqlglot for the connection's dialect.

Only aggregates leave the database:

* :func:`sums_sql` — per (slice, bin): the count and the weighted sums of
  :class:`~veracity.BinStats` (Σw, Σw², Σwp, Σwy, Σwp², Σwpy, Σw·ℓ) plus Σw·[correct],
  beside the input contract's counts (missing/NaN/infinite scores, probabilities
  outside [0, 1], labels other than 0/1, bad weights). Rows that break the contract
  are binned under ``-1`` with neutral values, so one pass gives both and no engine
  stops on a NaN;
* :func:`auc_sql` — the exact Mann–Whitney AUC per slice: the positive and negative
  weights per distinct score, then a running sum of the negative weight in score order
  gives :math:`2U = \sum_v w_+(v)\,(2W_-(<v) + w_-(v))` (ties count ½) — one row per
  slice comes back;
* :func:`positions_sql` — the scores at given sorted positions (equal-mass edges).

The user's names (table, columns) and values (``pos_label``, slice keys) enter the
tree only as sqlglot identifier and literal nodes: sqlglot quotes and escapes them for
the dialect, so no name or value can end a string or a statement. Fixed parts are
templates of internal names (``_s``, ``_y`` …) and numbers formatted by :func:`_num`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._validation import PROB_EPS, VeracityError

#: largest finite double: beyond it a value is infinite (written as a cast, exact in every dialect)
_MAX = "CAST('1.7976931348623157e308' AS DOUBLE)"
#: |x| above which exp(-|x|) is 0 in double precision's sums (PostgreSQL refuses exp's underflow)
_EXP_CAP = 700


def _sqlglot() -> Any:
    try:
        import sqlglot
    except ImportError:  # pragma: no cover - sqlglot is a dependency of this feature
        raise VeracityError("auditing inside a database needs sqlglot: pip install sqlglot") from None
    return sqlglot


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


def literal(value: Any) -> Any:
    """A literal node for a label value or slice key (strings escaped by sqlglot)."""
    from sqlglot import exp

    if value is None:
        return exp.null()
    if isinstance(value, (bool, np.bool_)):
        return exp.Boolean(this=bool(value))
    if isinstance(value, (int, np.integer)):
        return exp.Literal.number(int(value))
    if isinstance(value, (float, np.floating)):
        return exp.Literal.number(_num(float(value)))
    if isinstance(value, str):
        if "\x00" in value:
            raise VeracityError(f"the value {value!r} contains a NUL character; no database accepts it")
        return exp.Literal.string(value)
    import decimal

    if isinstance(value, decimal.Decimal) and value.is_finite():
        return exp.Literal.number(str(value))
    raise VeracityError(
        f"a value of type {type(value).__name__} ({value!r}) cannot be written into the query; "
        "use a column of numbers, text or booleans"
    )


def _num(x: float | int) -> str:
    """A number as SQL text (shortest round-trip digits); refuses NaN and infinity."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return str(int(x))
    x = float(x)
    if not math.isfinite(x):
        raise VeracityError(f"cannot write the number {x!r} into SQL")
    return repr(x)


def _dbl(x: float) -> str:
    """A double-precision constant, parsed by the database from its shortest round-trip text."""
    return f"CAST('{_num(x)}' AS DOUBLE)"


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


def base_select(c: Columns, dialect: str) -> Any:
    """``SELECT _s, _y, _w[, _g][, text flags] FROM table``: the only node holding user names."""
    from sqlglot import exp

    double = exp.DataType.build("double")
    s = exp.column(ident(c.score, "score"))
    y = exp.column(ident(c.label, "label"))
    if c.label_kind == "pos":
        y_expr = exp.case().when(y.is_(exp.null()), exp.null()).when(
            exp.EQ(this=y.copy(), expression=literal(c.pos_value)), exp.Literal.number("1.0")
        ).else_(exp.Literal.number("0.0"))
    elif c.label_kind == "bool":
        y_expr = exp.case().when(y.copy(), exp.Literal.number("1.0")).when(
            exp.Not(this=y.copy()), exp.Literal.number("0.0"))
    else:
        y_expr = exp.Cast(this=y, to=double.copy())
    cols = [exp.alias_(exp.Cast(this=s, to=double.copy()), "_s"), exp.alias_(y_expr, "_y")]
    if c.weight is not None:
        w = exp.Cast(this=exp.column(ident(c.weight, "sample_weight")), to=double.copy())
        if c.weight_scale != 1.0:
            w = exp.Mul(this=w, expression=exp.Literal.number(_num(c.weight_scale)))
        cols.append(exp.alias_(w, "_w"))
    else:
        cols.append(exp.alias_(exp.Literal.number("1.0"), "_w"))
    if c.by is not None:
        cols.append(exp.alias_(exp.column(ident(c.by, "by")), "_g"))
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


def render(template: str, base: Any, dialect: str, **nodes: Any) -> str:
    """The template (DuckDB syntax, internal names only) with ``_base`` defined as ``base``,
    placeholders ``:name`` replaced by nodes, generated for ``dialect``."""
    sqlglot = _sqlglot()
    from sqlglot import exp
    from sqlglot.dialects.dialect import Dialect

    tree = sqlglot.parse_one(template, read="duckdb")
    for cte in tree.find_all(exp.CTE):
        if cte.alias == "_base":
            cte.set("this", base)
            break
    if nodes:
        tree = exp.replace_placeholders(tree, **nodes)
    # the internal sort keys are never NULL: state the target's own NULL order, so nothing is translated
    nulls_small = Dialect.get_or_raise(dialect).NULL_ORDERING == "nulls_are_small"
    for ordered in tree.find_all(exp.Ordered):
        ordered.set("nulls_first", nulls_small if not ordered.args.get("desc") else not nulls_small)
    return tree.sql(dialect=dialect, unsupported_level=sqlglot.ErrorLevel.RAISE)


# -- the per-bin sums and the contract ------------------------------------------------------------
#: the sums of :class:`BinStats` (and Σw·correct), in the order the query returns them
SUMS = ("count", "weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll", "correct")
#: the contract's aggregates, named as :mod:`veracity.frames._aggregates` names them
CONTRACT = ("_c_n", "_c_s_miss", "_c_s_inf", "_c_s_min", "_c_s_max", "_c_p_bad", "_c_y_bad", "_c_y_min",
            "_c_y_max", "_c_y_sum", "_c_w_bad", "_c_w_neg", "_c_w_min", "_c_w_max", "_c_w_sum", "_c_w_sq",
            "_c_t_score", "_c_t_label", "_c_t_weight")


def _probability(v: str, score_type: str) -> str:
    if score_type == "probability":
        return v
    hi = f"CASE WHEN {v} > {_EXP_CAP} THEN {_EXP_CAP} ELSE {v} END"
    lo = f"CASE WHEN {v} < -{_EXP_CAP} THEN -{_EXP_CAP} ELSE {v} END"
    return f"CASE WHEN {v} >= 0 THEN 1.0 / (1.0 + EXP(-({hi}))) ELSE EXP({lo}) / (1.0 + EXP({lo})) END"


def _bin(p: str, bins: int, edges: np.ndarray | None, strategy: str) -> str:
    """The bin index rule of :func:`veracity.core._binning.bin_index`, in SQL."""
    if edges is None or strategy == "uniform":
        m = int(bins)
        return f"CASE WHEN {p} * {m} >= {m - 1} THEN {m - 1} ELSE CAST(FLOOR({p} * {m}) AS BIGINT) END"
    cuts = [float(c) for c in edges[1:-1]]
    if not cuts:
        return "0"
    op = ">=" if strategy == "quantile" else ">"  # searchsorted side='right' / side='left'
    return " + ".join(f"CASE WHEN {p} {op} {_dbl(c)} THEN 1 ELSE 0 END" for c in cuts)


def _nll(score_type: str) -> str:
    if score_type == "logit":  # softplus(x), x = -(2y-1)s: max(x, 0) + log(1 + exp(-|x|))
        x = "(CASE WHEN _t = 1.0 THEN -_v ELSE _v END)"
        ax = f"(CASE WHEN ABS({x}) > {_EXP_CAP} THEN {_EXP_CAP} ELSE ABS({x}) END)"
        return f"(CASE WHEN {x} > 0 THEN {x} ELSE 0.0 END) + LN(1.0 + EXP(-{ax}))"
    q = "(CASE WHEN _t = 1.0 THEN _p ELSE 1.0 - _p END)"
    return f"-LN(CASE WHEN {q} < {_dbl(PROB_EPS)} THEN {_dbl(PROB_EPS)} ELSE {q} END)"


def _decision(score_type: str, threshold: float) -> str:
    if score_type == "logit" and 0.0 < threshold < 1.0:  # on the logit scale, as vc.accuracy decides
        return f"_v >= {_dbl(math.log(threshold / (1.0 - threshold)))}"
    return f"_p >= {_dbl(threshold)}"


def sums_sql(c: Columns, dialect: str, *, score_type: str, threshold: float, bins: int,
             edges: np.ndarray | None = None, strategy: str = "uniform", grouped: bool = False) -> str:
    """Per (slice, bin): count, the weighted sums and the contract's aggregates (see the module doc)."""
    weighted = c.weight is not None
    g = "_g, " if grouped else ""
    nan_s, nan_y, nan_w = _isnan("_s", dialect), _isnan("_y", dialect), _isnan("_w", dialect)
    w_check = (f", CASE WHEN _w IS NULL OR {nan_w} OR _w > {_MAX} OR _w < -{_MAX} THEN 1 "
               "WHEN _w < 0 THEN 2 ELSE 0 END AS _wc" if weighted else ", 0 AS _wc")
    in_range = " AND _s >= 0 AND _s <= 1" if score_type == "probability" else ""
    p_bad = ("CASE WHEN _sc = 0 AND (_s < 0 OR _s > 1) THEN 1 ELSE 0 END" if score_type == "probability"
             else "0")
    sqlite = dialect == "sqlite"
    text = {name: (f"SUM({flag})" if sqlite and flag else "0") for name, flag in
            (("score", "_ts"), ("label", "_ty" if c.label_kind == "numeric" else None),
             ("weight", "_tw" if weighted else None))}
    return render(f"""
WITH _base AS (SELECT 1),
_chk AS (
  SELECT *,
    CASE WHEN _s IS NULL OR {nan_s} THEN 1 WHEN _s > {_MAX} OR _s < -{_MAX} THEN 2 ELSE 0 END AS _sc,
    CASE WHEN _y = 0.0 OR _y = 1.0 THEN 0 WHEN _y IS NULL OR {nan_y} THEN 1 ELSE 2 END AS _yc
    {w_check}
  FROM _base),
_ok AS (
  SELECT *, CASE WHEN _sc = 0 AND _yc = 0 AND _wc = 0{in_range} THEN 1 ELSE 0 END AS _ok FROM _chk),
_val AS (
  SELECT *,
    CASE WHEN _ok = 1 THEN _s ELSE 0.0 END AS _v,
    CASE WHEN _ok = 1 THEN _y ELSE 0.0 END AS _t,
    CASE WHEN _ok = 1 THEN _w ELSE 0.0 END AS _u,
    CASE WHEN _sc = 0 THEN _s END AS _sf,
    CASE WHEN _yc = 2 THEN _y END AS _yf,
    CASE WHEN _wc <> 1 THEN _w END AS _wf,
    {p_bad} AS _pb
  FROM _ok),
_prob AS (SELECT *, {_probability("_v", score_type)} AS _p FROM _val),
_row AS (
  SELECT *,
    CASE WHEN _ok = 1 THEN {_bin("_p", bins, edges, strategy)} ELSE -1 END AS _b,
    {_nll(score_type)} AS _l,
    CASE WHEN {_decision(score_type, threshold)} THEN _t ELSE 1.0 - _t END AS _c
  FROM _prob)
SELECT {g}_b,
  COUNT(*) AS "count", SUM(_u) AS weight, SUM(_u * _u) AS weight_sq, SUM(_u * _p) AS sum_p,
  SUM(_u * _t) AS sum_y, SUM(_u * _p * _p) AS sum_p2, SUM(_u * _p * _t) AS sum_py, SUM(_u * _l) AS sum_nll,
  SUM(_u * _c) AS correct,
  COUNT(*) AS _c_n, SUM(CASE WHEN _sc = 1 THEN 1 ELSE 0 END) AS _c_s_miss,
  SUM(CASE WHEN _sc = 2 THEN 1 ELSE 0 END) AS _c_s_inf, MIN(_sf) AS _c_s_min, MAX(_sf) AS _c_s_max,
  SUM(_pb) AS _c_p_bad, SUM(CASE WHEN _yc <> 0 THEN 1 ELSE 0 END) AS _c_y_bad, MIN(_yf) AS _c_y_min,
  MAX(_yf) AS _c_y_max, SUM(CASE WHEN _yc = 0 THEN _y ELSE 0.0 END) AS _c_y_sum,
  SUM(CASE WHEN _wc = 1 THEN 1 ELSE 0 END) AS _c_w_bad, SUM(CASE WHEN _wc = 2 THEN 1 ELSE 0 END) AS _c_w_neg,
  MIN(_wf) AS _c_w_min, MAX(_wf) AS _c_w_max, SUM(_wf) AS _c_w_sum, SUM(_wf * _wf) AS _c_w_sq,
  {text["score"]} AS _c_t_score, {text["label"]} AS _c_t_label, {text["weight"]} AS _c_t_weight
FROM _row
GROUP BY {g}_b
""", base_select(c, dialect), dialect)


# -- the exact AUC ----------------------------------------------------------------------------------
def auc_sql(c: Columns, dialect: str, *, grouped: bool, pool: tuple[list[Any], bool] | None = None) -> str:
    """``[_g,] _num, _pos, _neg`` per slice: 2U and the class weights (see the module doc).

    Integers when unweighted (exact for any N). ``pool`` = (kept keys, whether the NULL key
    is kept): only the rows of the other keys — the pooled slice of a capped ``by=``.
    """
    from sqlglot import exp

    weighted = c.weight is not None
    pos, neg = ("_w * _y", "_w * (1.0 - _y)") if weighted else (
        "CASE WHEN _y = 1.0 THEN 1 ELSE 0 END", "CASE WHEN _y = 1.0 THEN 0 ELSE 1 END")
    g = "_g, " if grouped else ""
    part = "PARTITION BY _g " if grouped else ""
    where = ""
    nodes: dict[str, Any] = {}
    if pool is not None:
        kept, null_kept = pool
        values = [k for k in kept if k is not None]
        if values:
            inside = exp.column("_g").isin(*(literal(k) for k in values))
            nodes["kept"] = inside
            where = ("WHERE _g IS NOT NULL AND NOT (:kept)" if null_kept else "WHERE _g IS NULL OR NOT (:kept)")
        else:
            where = "WHERE _g IS NOT NULL" if null_kept else ""
    group = "GROUP BY _g" if grouped else ""
    return render(f"""
WITH _base AS (SELECT 1),
_one AS (SELECT {g}_s, {pos} AS _pos, {neg} AS _neg FROM _base {where}),
_val AS (SELECT {g}_s, SUM(_pos) AS _pos, SUM(_neg) AS _neg FROM _one GROUP BY {g}_s),
_run AS (
  SELECT {g}_pos, _neg,
    SUM(_neg) OVER ({part}ORDER BY _s ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - _neg AS _below
  FROM _val)
SELECT {g}SUM(_pos * (2 * _below + _neg)) AS _num, SUM(_pos) AS _pos, SUM(_neg) AS _neg
FROM _run {group}
""", base_select(c, dialect), dialect, **nodes)


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


def weighted_cuts_sql(c: Columns, dialect: str, *, score_type: str, bins: int) -> str:
    """One row: min and max probability, then for j = 1…M−1 the first probability whose cumulative
    weight (in score order) exceeds j·W/M — :func:`veracity.core._binning.quantile_edges`'s rule."""
    picks = ", ".join(f"MIN(CASE WHEN _cum > ({j} * _tot) / {bins} THEN _p END) AS _q{j}" for j in range(1, bins))
    return render(f"""
WITH _base AS (SELECT 1),
_prob AS (SELECT {_probability("_s", score_type)} AS _p, _w FROM _base),
_o AS (SELECT _p, SUM(_w) OVER (ORDER BY _p ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _cum FROM _prob),
_t AS (SELECT MAX(_cum) AS _tot FROM _o)
SELECT MIN(_p) AS _lo, MAX(_p) AS _hi{", " + picks if picks else ""} FROM _o CROSS JOIN _t
""", base_select(c, dialect), dialect)


# -- reading the table -----------------------------------------------------------------------------
def columns_sql(table: Any, dialect: str) -> str:
    """``SELECT * FROM table`` returning no rows (its description names the columns)."""
    from sqlglot import exp

    sqlglot = _sqlglot()
    tree = exp.select("*").from_(table_node(table)).where(exp.false())
    return tree.sql(dialect=dialect, unsupported_level=sqlglot.ErrorLevel.RAISE)


def probe_sql(table: Any, names: list[str], dialect: str) -> str:
    """One row: a non-missing value of each column (its Python type tells how to read it)."""
    from sqlglot import exp

    sqlglot = _sqlglot()
    picks = []
    for i, name in enumerate(names):
        col = exp.column(ident(name, "column"))
        sub = exp.select(col).from_(table_node(table)).where(col.copy().is_(exp.null()).not_()).limit(1)
        picks.append(exp.alias_(exp.Subquery(this=sub), f"_v{i}"))
    return exp.select(*picks).sql(dialect=dialect, unsupported_level=sqlglot.ErrorLevel.RAISE)


def label_values_sql(table: Any, label: str, dialect: str, limit: int) -> tuple[str, str]:
    """``(missing, distinct)`` counts, and the first ``limit`` distinct values in order."""
    from sqlglot import exp

    sqlglot = _sqlglot()
    col = exp.column(ident(label, "label"))
    counts = exp.select(
        exp.alias_(exp.Sub(this=exp.Count(this=exp.Star()), expression=exp.Count(this=col.copy())), "_missing"),
        exp.alias_(exp.Count(this=exp.Distinct(expressions=[col.copy()])), "_distinct"),
    ).from_(table_node(table))
    values = (exp.select(col.copy()).distinct().from_(table_node(table))
              .where(col.copy().is_(exp.null()).not_()).order_by(col.copy()).limit(limit))
    level = sqlglot.ErrorLevel.RAISE
    return counts.sql(dialect=dialect, unsupported_level=level), values.sql(dialect=dialect, unsupported_level=level)
