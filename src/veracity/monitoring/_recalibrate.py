"""Recalibrate from a store: fit on one mature labelled window, judge on the next.

Split discipline (seed 003): the window the calibrator is fit on is never the
window it is evaluated on. By default the fit window is the last period but one
that has at least ``min_count`` labelled rows and the evaluation window is the
period after it; ``fit=`` names the fit period instead (it too needs ``min_count`` labelled rows:
lower ``min_count`` to fit on fewer). The result carries the
calibrator (save it with ``.calibrator.save(path)``) and the before/after ledger
(:func:`veracity.compare`) on the evaluation window. An evaluation window with fewer than 2
labelled rows gives no verdict (the ledger reads "n/a (too few rows)") and the result's ``note``
says so and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._display import Display
from ..core._sql_names import quote_identifier
from ..core._validation import VeracityError
from ._time import parse_duration, parse_instant, parse_window


@dataclass(frozen=True, eq=False, repr=False)
class Recalibration(Display):
    """A calibrator fit on ``fit_period`` and its ledger on ``eval_period``."""

    method: str
    fit_period: str
    eval_period: str
    n_fit: int
    n_eval: int
    calibrator: Any
    ledger: Any
    #: one line when the evaluation window cannot judge the calibrator (fewer than 2 labelled rows)
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "fit_period": self.fit_period, "eval_period": self.eval_period,
                "n_fit": self.n_fit, "n_eval": self.n_eval, "calibrator": self.calibrator.to_dict(),
                "ledger": self.ledger.to_dict(), "note": self.note}

    def __str__(self) -> str:
        rows = lambda k: f"{k} labelled row{'' if k == 1 else 's'}"  # noqa: E731
        return (f"{self.method} fit on {self.fit_period} ({rows(self.n_fit)}), judged on "
                f"{self.eval_period} ({rows(self.n_eval)}; never used for fitting)\n{self.ledger}"
                + (f"\nnote: {self.note}" if self.note else ""))


def _bounds(start: str, as_of_us: int, window_us: int | None) -> tuple[int, int]:
    """A period's rows as epoch microseconds ``(lo, hi)``: a calendar period holds [lo, hi) from its
    start; a rolling window (start, start + w] — as the status groups them (``period_sql``), so a row
    on a boundary is fitted in the window whose status row counted it. The window's start is
    recomputed from ``as_of`` (the status prints it to the second)."""
    start_us = int(np.datetime64(start, "us").astype(np.int64))
    if window_us is None:
        return start_us, -1
    k = int(round((as_of_us - start_us) / window_us)) - 1  # the window's index back from as_of
    lo = as_of_us - (k + 1) * window_us
    return lo, lo + window_us


def _rows(store: Any, con: Any, start: str, end: str, as_of_us: int, horizon_us: int | None,
          by: str | None, slice_value: str | None, model: str | None,
          window_us: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    mature = "TRUE" if horizon_us is None else f"epoch_us(p.ts) + {horizon_us} <= {as_of_us}"
    lo, hi = _bounds(start, as_of_us, window_us)
    if window_us is None:
        where = ["p.ts >= CAST(? AS TIMESTAMP)", "p.ts < CAST(? AS TIMESTAMP)"]
        params: list[Any] = [start, end]
    else:
        where = [f"epoch_us(p.ts) > {lo}", f"epoch_us(p.ts) <= {hi}"]
        params = []
    where += [f"p.ts <= make_timestamp({as_of_us})", mature]
    if model is not None:
        where.append("p.model = ?")
        params.append(model)
    if by is not None and slice_value is not None:
        # as the status names them: a prediction logged without the slice is in '(missing)'
        where.append(f"coalesce(p.{quote_identifier('s_' + by)}, '(missing)') = ?")
        params.append(slice_value)
    got = con.execute(
        f"SELECT p.score, o.label FROM predictions p JOIN outcomes o ON o.id = p.id AND "
        f"o.observed <= make_timestamp({as_of_us}) WHERE {' AND '.join(where)}", params).fetchnumpy()
    return np.asarray(got["score"], dtype=np.float64), np.asarray(got["label"], dtype=np.float64)


def _key_name(key: Any) -> str:
    """The name the store gives a slice key (:func:`._slice_names.slice_texts`): ``9`` for ``9.0``, a zoned
    time's UTC instant (``2026-01-01 09:00:00+00:00`` for 10:00 in Paris), ``0.1`` for a float32 0.1, NaN
    ``(missing)`` — not ``str(key)``, which named ``9.0`` and ``...10:00:00+01:00``, slices the store never
    holds."""
    import pyarrow as pa

    from ._slice_names import MISSING, slice_texts

    try:
        name = slice_texts(pa.array([key]), "slice", "slice=").to_pylist()[0]
    except (pa.ArrowException, OverflowError, VeracityError):  # no one Arrow value: its text, as before
        return str(key)
    return MISSING if name is None else str(name)  # NaN: the rows logged without a value


def labelled_rows(store: Any, *, as_of: Any = None, horizon: str | float | None = None,
                  model: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(scores, labels) of every labelled (and, with a horizon, mature) row as of ``as_of``."""
    t_as_of = parse_instant(as_of)
    as_of_us = int(t_as_of.astype("datetime64[us]").astype(np.int64))
    horizon_us = None if horizon is None else int(round(parse_duration(horizon) * 1e6))
    con = store.connect(read_only=True)
    try:
        return _rows(store, con, "0001-01-01", "9999-12-31", as_of_us, horizon_us, None, None, model)
    finally:
        con.close()


def recalibrate_store(store: Any, *, method: str = "platt", freq: str | None = "W", window: str | None = None,
                      as_of: Any = None, horizon: str | float | None = None, fit: str | None = None,
                      by: str | None = None, slice: str | None = None, min_count: int = 100, bins: int = 15,
                      model: str | None = None, max_periods: int = 1000) -> Recalibration:
    """Fit ``method`` on a mature labelled window of the store; ledger on the next window."""
    from ..calibrators import METHODS, compare

    if method not in METHODS or method in ("vector", "matrix"):
        names = ", ".join(m for m in sorted(METHODS) if m not in ("vector", "matrix"))
        raise VeracityError(f"method must be one of {names}; got {method!r}")
    if (by is None) != (slice is None):
        raise VeracityError("by and slice go together: recalibrate one slice (by='segment', slice='a')")
    if slice is not None and not isinstance(slice, str):  # a key (9.0, True, a zoned time): its stored name
        slice = _key_name(slice)
    status = store.status(freq=freq, window=window, as_of=as_of, horizon=horizon, by=by, min_count=min_count,
                          bins=bins, model=model, max_periods=max_periods)
    want = slice if by is not None else "(all)"
    if by is not None:
        known = sorted({r.slice for r in status.rows} - {"(all)"})
        if want not in known and status.pooled:  # pooled into '(other)' (the status's 20 largest slices
            # keep their names): every value named, so that the slice asked for is found
            status = store.status(freq=freq, window=window, as_of=as_of, horizon=horizon, by=by,
                                  min_count=min_count, bins=bins, model=model, max_periods=max_periods,
                                  max_slices=len(known) + int(status.pooled))
            known = sorted({r.slice for r in status.rows} - {"(all)"})
        if want == "(other)" and want in known:
            raise VeracityError(f"slice '(other)' pools the {status.pooled} {by!r} values with the fewest rows; "
                                "recalibrate one of them by its name")
        if want not in known:
            shown = ", ".join(repr(k) for k in known[:10]) + (" ..." if len(known) > 10 else "")
            raise VeracityError(f"slice {want!r} of {by!r} has no predictions (its values: {shown or 'none'}); "
                                "pass one of those")
    periods = [r for r in status.rows if r.slice == want]
    if fit is None:
        ready = [i for i, r in enumerate(periods) if r.labelled >= min_count]
        pairs = [i for i in ready if i + 1 < len(periods) and periods[i + 1].labelled > 0]
        if not pairs:
            raise VeracityError(
                f"no mature window with >= {min_count} labelled rows followed by a window with labels; "
                "wait for more outcomes, pass a coarser --freq, or lower --min-count")
        i = pairs[-1]
    else:
        period_names = [r.period for r in periods]
        if fit not in period_names:
            raise VeracityError(f"fit period {fit!r} not found; periods: {', '.join(period_names[:8])}"
                                + (" ..." if len(period_names) > 8 else ""))
        i = period_names.index(fit)
        if periods[i].labelled < min_count:  # as the default choice: an insufficient window fits nothing
            raise VeracityError(
                f"fit period {fit!r} has {periods[i].labelled} labelled rows, fewer than min_count "
                f"({min_count}): too few to fit a calibrator on; wait for more outcomes, pass a coarser "
                "freq, or lower min_count (--min-count) to fit on it anyway")
        if i + 1 >= len(periods) or periods[i + 1].labelled == 0:
            raise VeracityError(f"the period after {fit!r} has no labelled rows to judge the calibrator on; "
                                "pick an earlier fit period")
    fit_row, eval_row = periods[i], periods[i + 1]
    t_as_of = parse_instant(as_of)
    as_of_us = int(t_as_of.astype("datetime64[us]").astype(np.int64))
    horizon_us = None if horizon is None else int(round(parse_duration(horizon) * 1e6))
    window_us = None if window is None else int(round(parse_window(window) * 1e6))
    con = store.connect(read_only=True)
    try:
        p_fit, y_fit = _rows(store, con, fit_row.start, fit_row.end, as_of_us, horizon_us, by, slice, model,
                             window_us)
        p_ev, y_ev = _rows(store, con, eval_row.start, eval_row.end, as_of_us, horizon_us, by, slice, model,
                           window_us)
    finally:
        con.close()
    cal = METHODS[method](score_type="probability")
    cal.fit(p_fit, y_fit, metadata={"fit_window": f"{fit_row.start}..{fit_row.end}",
                                    "cohort": None if by is None else f"{by}={slice}",
                                    "source_file": str(store.path)})
    ledger = compare(p_ev, y_ev, cal, bins=bins)
    note = None
    if p_ev.size < 2:  # the ledger has no interval and no verdict (n/a (too few rows)): say so, and what to do
        rows = f"{p_ev.size} labelled row{'' if p_ev.size == 1 else 's'}"
        note = (f"the evaluation window {eval_row.period} has {rows}, too few to judge the calibrator (no change "
                "has an interval); wait for more outcomes there, pass a coarser freq, or pass fit= an earlier period")
    return Recalibration(method, fit_row.period, eval_row.period, int(p_fit.size), int(p_ev.size), cal, ledger,
                         note)
