r"""Embedded engine: a full audit of files larger than memory with DuckDB.

DuckDB (optional extra ``veracity[duckdb]``) scans CSV or Parquet files — globs
included — out of core and in parallel. Three queries produce everything an
in-memory audit produces:

1. a validation pass (NULL/NaN/inf scores, probabilities outside [0, 1], labels
   other than 0/1) that raises the same one-line errors as the array path;
2. the per-bin sufficient statistics (``GROUP BY bin``), turned into the same
   :class:`~veracity.BinStats`, so table, ECE, Brier and its decomposition and NLL
   are computed by the same code;
3. the exact AUC from order statistics: scores are grouped by distinct value,
   and for each value v with positive weight :math:`w_+(v)` and negative weight
   :math:`w_-(v)`,

   .. math:: \mathrm{AUC} = \frac{\sum_v w_+(v)\,\big(W_-(<v) + \tfrac12 w_-(v)\big)}{W_+ W_-}

   with :math:`W_-(<v)` a running sum — integer arithmetic (HUGEINT) when
   unweighted, so the result is exact for any number of rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core._audit import AuditResult, audit_from_stats
from ..core._binning import check_bins
from ..core._stats import BinStats
from ..core._validation import PROB_EPS, VeracityError, check_score_type


def _connect(connection: Any = None) -> Any:
    if connection is not None:
        return connection
    try:
        import duckdb
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise VeracityError(
            "the DuckDB engine needs the optional dependency: pip install 'veracity[duckdb]'"
        ) from None
    return duckdb.connect()


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def source_sql(source: str | Path) -> str:
    """A FROM-clause for a CSV/Parquet path or glob (``*.parquet``, ``logs/*.csv``)."""
    text = str(source)
    if not any(ch in text for ch in "*?[") and not Path(text).exists():
        raise VeracityError(f"file not found: {text}; check the path")
    reader = "read_parquet" if text.lower().endswith((".parquet", ".pq")) else "read_csv_auto"
    return f"{reader}({_literal(text)})"


def _columns(con: Any, from_sql: str, needed: list[str], source: Any) -> None:
    try:
        available = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {from_sql}").fetchall()]
    except Exception as exc:
        raise VeracityError(f"could not read {source}: {str(exc).splitlines()[0]}") from None
    for name in needed:
        if name not in available:
            raise VeracityError(
                f"column {name!r} not found in {source}; available columns: {', '.join(available[:20])}"
            )


def _base_view(score: str, label: str, weight: str | None, group: str | None, score_type: str) -> str:
    s = f"CAST({_quote(score)} AS DOUBLE)"
    w = f"CAST({_quote(weight)} AS DOUBLE)" if weight else "1.0"
    g = f"CAST({_quote(group)} AS VARCHAR)" if group else "'(all)'"
    if score_type == "logit":
        # the logistic function without overflow on either side
        p = "(CASE WHEN s >= 0 THEN 1.0 / (1.0 + exp(-s)) ELSE exp(s) / (1.0 + exp(s)) END)"
        # softplus(x) = max(x, 0) + ln(1 + exp(-|x|)) with x = -(2y-1)·s : exact, no overflow
        x = "(-(2.0 * y - 1.0) * s)"
        nll = f"(greatest({x}, 0.0) + ln(1.0 + exp(-abs({x}))))"
    else:
        p = "s"
        nll = f"(-ln(greatest(CASE WHEN y = 1 THEN p ELSE 1.0 - p END, {PROB_EPS!r})))"
    return (
        f"SELECT {s} AS s, CAST({_quote(label)} AS DOUBLE) AS y, {w} AS w, {g} AS g FROM {{src}}",
        p,
        nll,
    )


def _validate(con: Any, view: str, score: str, label: str, weight: str | None, score_type: str, source: Any) -> None:
    row = con.execute(
        f"""
        SELECT count(*),
               count(*) FILTER (WHERE s IS NULL OR isnan(s) OR isinf(s)),
               min(s) FILTER (WHERE NOT (s IS NULL OR isnan(s) OR isinf(s))),
               max(s) FILTER (WHERE NOT (s IS NULL OR isnan(s) OR isinf(s))),
               count(*) FILTER (WHERE y IS NULL OR y NOT IN (0, 1)),
               min(y), max(y),
               count(*) FILTER (WHERE w IS NULL OR isnan(w) OR w < 0),
               sum(w)
        FROM ({view})
        """
    ).fetchone()
    n, bad_s, lo, hi, bad_y, ylo, yhi, bad_w, wsum = row
    if n == 0:
        raise VeracityError(f"{source} has no rows; nothing to audit")
    if bad_s:
        raise VeracityError(
            f"column {score!r} has {bad_s} missing/NaN/infinite values of {n}; drop or fill those rows first"
        )
    if score_type == "probability" and (lo < 0 or hi > 1):
        raise VeracityError(
            f"scores must be probabilities in [0, 1]; column {score!r} has min={lo:.3g}, max={hi:.3g}. "
            "If these are logits, pass score_type='logit'"
        )
    if bad_y:
        raise VeracityError(
            f"labels must be binary 0/1; column {label!r} has {bad_y} of {n} other or missing values "
            f"(min={ylo}, max={yhi})"
        )
    if weight and bad_w:
        raise VeracityError(f"column {weight!r} has {bad_w} missing or negative weights; fix them first")
    if weight and not wsum > 0:
        raise VeracityError(f"column {weight!r} sums to 0; at least one row needs a positive weight")


def _stats_by_group(
    con: Any, view: str, p: str, nll: str, bins: int, decide: str
) -> tuple[dict[str, BinStats], dict[str, float]]:
    edges = np.arange(bins + 1) / bins
    rows = con.execute(
        f"""
        WITH t AS (SELECT g, s, y, w, {p} AS p FROM ({view})),
             u AS (SELECT g, s, y, w, p, {nll} AS l,
                          least(CAST(floor(p * {bins}) AS BIGINT), {bins - 1}) AS b FROM t)
        SELECT g, b, count(*), sum(w), sum(w * w), sum(w * p), sum(w * y), sum(w * p * p),
               sum(w * p * y), sum(w * l), sum(w * CAST(({decide}) = (y = 1) AS DOUBLE))
        FROM u GROUP BY g, b ORDER BY g, b
        """
    ).fetchall()
    groups: dict[str, dict[str, np.ndarray]] = {}
    correct: dict[str, float] = {}
    for g, b, *sums in rows:
        acc = groups.setdefault(str(g), {k: np.zeros(bins) for k in
                                         ("count", "weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll")})
        for key, value in zip(acc, sums[:8]):
            acc[key][int(b)] = float(value)
        correct[str(g)] = correct.get(str(g), 0.0) + float(sums[8])
    out = {
        g: BinStats(edges, "uniform", count=a["count"].astype(np.int64),
                    **{k: v for k, v in a.items() if k != "count"})
        for g, a in groups.items()
    }
    return out, correct


def _auc_by_group(con: Any, view: str, weighted: bool) -> dict[str, float | None]:
    if weighted:
        num, pos, neg = "sum(wp * (coalesce(below, 0) + wn / 2.0))", "sum(wp)", "sum(wn)"
        agg = "sum(w * y) AS wp, sum(w * (1 - y)) AS wn"
    else:  # integers throughout: twice the Mann–Whitney U is exact in HUGEINT
        num = "sum(CAST(wp AS HUGEINT) * (2 * CAST(coalesce(below, 0) AS HUGEINT) + wn))"
        pos, neg = "sum(wp)", "sum(wn)"
        agg = "CAST(sum(y) AS BIGINT) AS wp, CAST(sum(1 - y) AS BIGINT) AS wn"
    rows = con.execute(
        f"""
        WITH v AS (SELECT g, s, {agg} FROM ({view}) GROUP BY g, s),
             c AS (SELECT g, wp, wn, sum(wn) OVER (PARTITION BY g ORDER BY s
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS below FROM v)
        SELECT g, {num}, {pos}, {neg} FROM c GROUP BY g
        """
    ).fetchall()
    out: dict[str, float | None] = {}
    for g, numerator, n_pos, n_neg in rows:
        if not n_pos or not n_neg:
            out[str(g)] = None
        elif weighted:
            out[str(g)] = float(numerator) / (float(n_pos) * float(n_neg))
        else:
            out[str(g)] = int(numerator) / (2.0 * int(n_pos) * int(n_neg))
    return out


def audit_duckdb(
    source: str | Path,
    *,
    score: str = "score",
    label: str = "label",
    weight: str | None = None,
    by: str | None = None,
    bins: int = 15,
    score_type: str = "probability",
    interval: str = "wilson",
    level: float = 0.95,
    min_count: int = 20,
    threshold: float = 0.5,
    connection: Any = None,
) -> AuditResult:
    """``vc.audit`` of a CSV/Parquet file (or glob) computed inside DuckDB, out of core.

    Equal-width bins only. The result is the same :class:`~veracity.AuditResult`
    (same statistics object, same formulas) as the in-memory audit of the rows.
    """
    check_score_type(score_type)
    bins = check_bins(bins)
    con = _connect(connection)
    from_sql = source_sql(source)
    _columns(con, from_sql, [c for c in (score, label, weight, by) if c], source)
    base, p, nll = _base_view(score, label, weight, by, score_type)
    view = base.format(src=from_sql)
    _validate(con, view, score, label, weight, score_type, source)
    if not 0.0 <= threshold <= 1.0:
        raise VeracityError(f"threshold must be a probability in [0, 1], got {threshold!r}")
    if score_type == "logit" and 0.0 < threshold < 1.0:  # decide on the logit scale, like vc.accuracy
        decide = f"s >= {float(np.log(threshold / (1.0 - threshold)))!r}"
    else:
        decide = f"p >= {float(threshold)!r}"
    stats, correct = _stats_by_group(con, view, p, nll, int(bins), decide)
    aucs = _auc_by_group(con, view, weighted=weight is not None)
    def result(s: BinStats, auc_value: float | None, n_correct: float) -> AuditResult:
        return audit_from_stats(
            s, auc=auc_value, accuracy=n_correct / s.total_weight, score_type=score_type,
            threshold=threshold, ci=interval, level=level, min_count=min_count,
        )

    if by is None:
        key = "(all)"
        return result(stats[key], aucs[key], correct[key])
    # the whole: merge the groups' statistics; AUC of the whole needs its own order pass
    whole_stats = None
    for s in stats.values():
        whole_stats = s if whole_stats is None else whole_stats + s
    base_all, _, _ = _base_view(score, label, weight, None, score_type)
    whole_auc = _auc_by_group(con, base_all.format(src=from_sql), weighted=weight is not None)["(all)"]
    whole = result(whole_stats, whole_auc, sum(correct.values()))
    groups = {g: result(s, aucs[g], correct[g]) for g, s in stats.items()}
    from dataclasses import replace

    return replace(whole, groups=groups, group_column=by)
