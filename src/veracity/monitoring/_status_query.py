"""The store's one grouped aggregate for a status (which rows, in which state) and the
logistic fits of calibration-in-the-large and slope; see :mod:`veracity.monitoring._status`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._special import ndtr
from ..core._sql_names import quote_identifier
from ..core._validation import PROB_EPS, VeracityError
from ._slice_names import slice_order
from ._status_rows import ALL, CELLS, CELL_SPAN, OTHER


# every summed value's magnitude is below this: p, p², p³, r and r² <= 1; |logit| <= ln(1e12) < 28 (clipped
# at 1e-12); the log-loss <= -ln(PROB_EPS) < 37. The sums are then exact integer sums, the same bits
# however DuckDB splits the rows among its threads (grouped_sums' exact=)
SUM_BOUND = 64.0


def _wald_two_sided(z: float) -> float:
    return float(2 * ndtr(-abs(z)))


def _logistic(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float, float, float, float]:
    """(citl, citl_se, slope, slope_se, slope_p) from weighted logit cells."""
    from ..honest._tests import _newton

    ones = np.ones((eta.size, 1))
    (alpha,), cov0 = _newton(ones, eta, y, w)
    beta, cov = _newton(np.column_stack([ones[:, 0], eta]), np.zeros_like(eta), y, w)
    slope_se = float(np.sqrt(cov[1, 1]))
    return float(alpha), float(np.sqrt(cov0[0, 0])), float(beta[1]), slope_se, \
        _wald_two_sided((beta[1] - 1.0) / slope_se)


def check_model(con: Any, model: Any) -> None:
    """A one-line error unless some prediction was logged with ``model`` (the message lists the models)."""
    if not isinstance(model, str):
        raise VeracityError(f"model must be a string naming a logged model, got {model!r}", param="model")
    if con.execute("SELECT count(*) FROM predictions WHERE model = ?", [model]).fetchall()[0][0]:
        return
    names = [m for (m,) in con.execute("SELECT DISTINCT model FROM predictions WHERE model IS NOT NULL "
                                         "ORDER BY model LIMIT 11").fetchall()]
    shown = ", ".join(repr(m) for m in names[:10]) + (" ..." if len(names) > 10 else "") or "none"
    raise VeracityError(f"no prediction was logged with model {model!r} (logged models: {shown}); "
                        "pass one of those, or log predictions with --model", param="model")


def _query(store: Any, con: Any, *, period: str, as_of_us: int, horizon_us: int | None, slice_col: str | None,
           bins: int, threshold: float, model: str | None, max_slices: int = 20, delayed: bool = True
           ) -> tuple[Any, Any, int]:
    """Per (period, slice, state, audited, bin, cell, flag) sums; per (slice, day, bin) sums of the
    matured labels for the confidence sequences; and how many slices were pooled into ``(other)``.

    States: 0 labelled and final, 1 pending, 2 overdue (final but no label), 3 labelled early
    (observed, not final yet: early evidence). ``audited``: the label belongs to the random
    audit sample (prediction-powered estimates). Only the ``max_slices`` slices with the most
    rows keep their name; the rest are summed into one ``(other)`` slice (a slice column with
    20,000 user ids is one aggregate, not 20,000 tables).

    The sums: ``n`` (rows), ``sp`` (Σp), ``sp2`` (Σp²), ``sp3`` (Σp³), ``snll`` (Σ log-loss), ``seta``
    (Σ logit) and, of the final labels, ``sr`` (Σ(p − y)) and ``sr2`` (Σ(p − y)²). A group holds one label ``y``, so its
    residuals share a sign (p ≥ 0 at y = 0, p − 1 ≤ 0 at y = 1, each exact): their plain sums are
    accurate to n·2⁻⁵³ relative, and a bin's Σ(p − y) adds its two labels' sums with one rounding
    (:func:`veracity.monitoring._status_assemble._assemble`), as an in-memory audit's
    (:class:`veracity.core._stats.BinStats`) does. Expanded from the others (Σp² − 2Σpy + Σy) a sharp
    forecast's Brier score cancels to a few percent.

    The store's SQL only says which rows and in which state (:func:`_rows`); the keys and sums are
    the rows seam's (:func:`veracity.sources._grouped.grouped_sums`): the score bin is the one
    bin index, the logit cell and the threshold flag its keys.
    """
    import narwhals as nw

    from ..sources._grouped import at_threshold, grouped_sums, logit_cell, score_bin

    rows = _rows(con, period=period, as_of_us=as_of_us, horizon_us=horizon_us, slice_col=slice_col, model=model)
    pooled, slice_key = 0, nw.col("slice")
    if slice_col is not None:
        per_slice = grouped_sums(rows, {"slice": nw.col("slice")}, {})
        if per_slice["slice"].size > max_slices:
            keep = _largest(per_slice["slice"], per_slice["n"], max_slices)
            pooled = per_slice["slice"].size - max_slices
            slice_key = nw.when(nw.col("slice").is_in(keep)).then(nw.col("slice")).otherwise(nw.lit(OTHER))
    state, score, y = nw.col("state"), nw.col("score"), nw.col("y")
    final = state == 0
    keys = {
        "period": nw.col("period"), "slice": slice_key, "state": state,
        "audited": nw.col("audited") if delayed else nw.lit(0, nw.Int32),  # the plain status: no audit column
        "y": nw.when(state.is_in([0, 3])).then(y).otherwise(nw.lit(-1, nw.Int32)),
        "bin": score_bin(score, bins),
        "cell": nw.when(final).then(logit_cell(nw.col("eta"), CELLS, CELL_SPAN)).otherwise(nw.lit(0, nw.Int64)),
        "flag": at_threshold(score, threshold),
    }
    r = nw.col("r")  # p - y of a final label (else 0): the Brier score's sums, never Σp² - 2Σpy + Σy
    # sp3: Σp³, for the label-free interval's third cumulant Σp(1 - p)(1 - 2p) = Σp - 3Σp² + 2Σp³
    sums = {"sp": score, "sp2": score * score, "sp3": score * score * score, "snll": nw.col("nll"),
            "seta": nw.col("eta"), "sr": r, "sr2": r * r}
    g = grouped_sums(rows, keys, sums, exact=SUM_BOUND)
    if not delayed:  # no sequence sums
        return g, {}, pooled
    # the final labels only, slices pooled as above (20,000 user ids are 21 slices here too, not
    # 20,000 x days x bins groups)
    d = y - score
    final_rows = _rows(con, period=period, as_of_us=as_of_us, horizon_us=horizon_us, slice_col=slice_col,
                       model=model, final_only=True)  # filtered on the table's columns: DuckDB skips the others early
    seq = grouped_sums(final_rows, {"slice": slice_key, "day": nw.col("day"), "bin": score_bin(score, bins)},
                       {"sx": d, "sxx": d * d}, exact=1.0)
    return g, seq, pooled


def _rows(con: Any, *, period: str, as_of_us: int, horizon_us: int | None, slice_col: str | None,
          model: str | None, final_only: bool = False) -> Any:
    """The stored predictions up to the as-of time as a DuckDB relation (nothing is read yet):
    ``period`` (epoch microseconds of its start), ``slice``, ``score``, ``y`` (the label, null
    without one), ``state`` (see :func:`_query`), ``audited`` (0/1), ``day`` (epoch microseconds
    of the day a final label became usable: observed, or made final by the horizon), and for the
    final labels (else 0) the logit ``eta``, the log-loss term ``nll`` and the residual ``r`` = p − y
    (exact: p at y = 0, and p − 1 for p ≥ ½ at y = 1, one rounding below). ``final_only``: only the
    rows with a final label (state 0)."""
    final = "TRUE" if horizon_us is None else f"epoch_us(p.ts) + {horizon_us} <= {as_of_us}"
    sl = "'" + ALL + "'" if slice_col is None else f"coalesce(p.{quote_identifier('s_' + slice_col)}, '(missing)')"
    seen = f"p.label IS NOT NULL AND p.observed <= make_timestamp({as_of_us})"
    matured = ("p.observed" if horizon_us is None
               else f"greatest(p.observed, make_timestamp(epoch_us(p.ts) + {horizon_us}))")
    eta = "(ln(greatest(score, 1e-12)) - ln(greatest(1 - score, 1e-12)))"
    sql = f"""
      SELECT *, CASE WHEN state = 0 THEN {eta} ELSE 0 END AS eta,
             CASE WHEN state <> 0 THEN 0 WHEN y = 1 THEN -ln(greatest(score, {PROB_EPS!r}))
                  ELSE -ln(greatest(1 - score, {PROB_EPS!r})) END AS nll,
             CASE WHEN state = 0 THEN score - y ELSE 0 END AS r
      FROM (
        SELECT epoch_us({period}) AS period, {sl} AS slice, p.score AS score, p.label AS y,
               CASE WHEN {seen} AND {final} THEN 0
                    WHEN {seen} THEN 3
                    WHEN {final} AND {horizon_us is not None} THEN 2 ELSE 1 END AS state,
               ({seen} AND coalesce(p.audit, FALSE))::INTEGER AS audited,
               CASE WHEN {seen} AND {final} THEN epoch_us(date_trunc('day', {matured})) END AS day
        FROM predictions p
        WHERE p.ts <= make_timestamp({as_of_us})""" + (f" AND {seen} AND {final}" if final_only else "") \
        + (" AND p.model = $1" if model is not None else "") + ") r"
    return con.sql(sql, params=[model] if model is not None else None)


def _largest(names: np.ndarray, counts: np.ndarray, k: int) -> list[str]:
    """The ``k`` names with the largest counts (ties: the names in their keys' order, :func:`slice_order`)."""
    names = np.asarray(names).astype(str)
    rank = {name: i for i, name in enumerate(slice_order(names.tolist()))}
    by_name = np.argsort(np.array([rank[n] for n in names.tolist()], dtype=np.int64), kind="stable")
    order = by_name[np.argsort(-np.asarray(counts)[by_name], kind="stable")]
    return names[order[:k]].tolist()
