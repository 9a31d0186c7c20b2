r"""Status of a monitoring store: calibration per period and slice, alerts, diagnosis.

One aggregate groups the stored rows by (period, slice, state, label, reliability
bin, logit cell, above-threshold flag) with count, Σp, Σp², Σ log-loss and Σ logit:
the store's SQL says only which rows and in which state (a DuckDB relation), the
rows seam computes the groups (:func:`veracity.sources._grouped.grouped_sums`, the
score bin from the one bin index). Everything else is numpy on those groups:

* **state** — a prediction is *labelled* when its outcome was observed by the
  as-of time and (with a horizon) ``time + horizon <= as_of``; *pending* while it
  waits (never counted as a negative, seed 004); *overdue* when the horizon has
  passed without an outcome (reported, never a negative).
* **calibration** — per-bin :class:`~veracity.BinStats` of the labelled rows give
  ECE, Brier and NLL by the core formulas; the observed rate gets a Wilson
  interval; calibration-in-the-large and slope come from the logistic fits
  :math:`\mathrm{logit}\,P = \alpha + \eta` and :math:`\mathrm{logit}\,P = a + b\eta`
  (on logit cells 0.02 wide — indistinguishable from the row-level fit).
* **alerts** — three tests per window, each at :math:`(1-\text{alert\_level})/3` so
  that a window of a calibrated, stationary stream alerts with probability at most
  1 − alert_level (Bonferroni; default 0.99: about one false alert per hundred
  windows). The printed intervals are at ``level`` (default 0.95):

  - *calibration*: realised positives :math:`\sum y` outside the scores' promise, the whole-number
    ``core._count_interval.count_interval`` at :math:`1 - (1-\text{alert\_level})/3` from :math:`\sum p`,
    :math:`\sum p(1-p)` and :math:`\sum p(1-p)(1-2p)` of the labelled rows (exact false-alarm rate at most
    the test's level; :math:`\sum p \pm (z\sqrt{\sum p(1-p)} + \tfrac12)` exceeded it at rare events);
  - *slope*: Wald test of :math:`b = 1`, on a window with at least 10 positives and 10 negatives
    (``_status_assemble.SLOPE_EVENTS``; on fewer the test rejects far above its level, so the slope
    is shown without a p-value);
  - *score shift*: a chi-square test of homogeneity between the window's score
    histogram (all rows, pending included) and the reference's, **and** PSI ≥ 0.1
    (a shift must be both real and material); sparse bins are merged first, so that every cell
    expects at least 5 rows (``_shift.chi2_homogeneity``).

  No test runs on fewer than ``min_count`` rows (labelled rows for calibration,
  all rows for the shift): such windows are ``insufficient``, never alerts.
* **diagnosis** of a calibration alert — *prior shift* when the base rate moved
  against the reference, the slope is consistent with 1, the class-conditional
  score histograms are stable and ``adjust_prior(p, old=π_ref, new=π)`` makes the
  realised count agree with the scores; otherwise *likelihood shift* (recalibrate
  or retrain) — or *miscalibration* when the base rate did not move.

Modules: this one (the entry points :func:`store_status` and :func:`store_plan`, the
checks of their arguments); :mod:`._status_rows` (:class:`StatusRow`,
:class:`StoreStatus`, their text); :mod:`._status_query` (the grouped aggregate,
the logistic fits); :mod:`._status_assemble` (rows, alerts, diagnosis);
:mod:`._status_delayed` (PPI and confidence sequences for delayed labels).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core._intervals import check_interval_args
from ..core._metrics import check_threshold
from ..decisions._inputs import check_cost
from ..core._sql_names import quote_identifier
from ..core._validation import VeracityError
from ._alerts import Alert, _alert, _alerts  # noqa: F401  (re-exported: pickles name _status._alert)
from ._status_assemble import _assemble, _next_start
from ._status_delayed import _with_delayed_labels
from ._status_query import _query, _rows, check_model
from ._sequence_alarms import SequenceAlarms
from ._slice_names import slice_order
# StatusRow, OTHER and _ppi_cell are re-exported: imported from here by the package and its tests
from ._status_rows import ALL, MAX_PERIODS, OTHER, StatusRow, StoreStatus, _ppi_cell, _Settings  # noqa: F401
from ._time import (FREQ_NAMES, parse_duration, parse_instant, parse_since, parse_window, period_count,
                    period_label, period_sql, period_starts)


def store_status(
    store: Any,
    *,
    freq: str | None = "W",
    window: str | None = None,
    as_of: Any = None,
    horizon: str | float | None = None,
    by: str | None = None,
    bins: int = 15,
    level: float = 0.95,
    alert_level: float = 0.99,
    min_count: int = 100,
    reference: str | None = None,
    threshold: float = 0.5,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    model: str | None = None,
    max_slices: int = 20,
    alerts: str = "window",
    tolerance: float = 0.0,
    segments: bool = False,
    delayed: bool = True,
    max_periods: int = MAX_PERIODS,
    since: Any = None,
    last: int | None = None,
) -> StoreStatus:
    """Calibration per period (``freq`` D/W/M/Q, or a rolling ``window`` like ``7d``) and slice ``by``.

    Every period from the earliest stored prediction to the latest is listed, empty ones too; more
    than ``max_periods`` of them is refused in one line naming the earliest and latest prediction
    times and the widest gap between them (one mistyped year, 2206 among 2026 rows, once made ten
    thousand empty weeks in silence): fix those times, or pass a larger ``max_periods``. Under it,
    a listing of at least 100 periods of which 90% hold no prediction is warned about. With
    ``as_of=None`` (now), predictions dated more than a day in the future are left out with a warning.
    ``tolerance`` is for ``alerts="sequential"`` only (refused with the window tests, which it
    would not change).

    ``since`` (a date/time, or a period key as the status prints it: ``2026-W10``, ``2026-03``, ``2026Q1``)
    or ``last`` (a count N) cut the listing, so that an alert is counted while its period is listed and
    not forever after: ``since`` lists the periods that end after it (a listed period's own key lists
    it and those after it); ``last=N`` the N periods up to the one holding ``as_of`` (those of them
    after the latest prediction are not listed, as without it). Every number of a listed row is the
    one the full listing shows: the reference (PSI, prior), the confidence sequences and the warnings
    read every period; only ``rows``, and so ``alerts``, are cut. The text and JSON say how many
    periods and alerts were left out.

    ``delayed=False`` leaves out the delayed-label estimates and sequences (the plain status, which
    benchmarks/bench_store_delayed.py times against the full one); with ``alerts="sequential"``, whose
    alerts are those sequences, it is refused in one line."""
    check_interval_args("wilson", level, "two-sided")
    if not 0.5 <= _number(alert_level) < 1.0:
        raise VeracityError(f"alert_level must be in [0.5, 1), e.g. 0.99; got {alert_level!r}")
    if window is not None:
        window_s: float | None = parse_window(window)
        freq = None
    else:
        window_s = None
        if freq not in FREQ_NAMES:
            raise VeracityError(f"freq must be one of {', '.join(FREQ_NAMES)} (ISO weeks start on Monday); "
                                f"got {freq!r}")
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, (int, np.integer)) or not 1 <= bins <= 1000:
        raise VeracityError(f"bins must be an integer in 1..1000, got {bins!r}", param="bins")
    threshold = check_threshold(threshold)
    cost_fp, cost_fn = check_cost(cost_fp, "cost_fp"), check_cost(cost_fn, "cost_fn")
    if not (np.isfinite(_number(min_count)) and _number(min_count) >= 1 and _number(min_count) % 1 == 0):
        raise VeracityError(f"min_count must be a whole number of rows, at least 1, got {min_count!r}",
                            param="min_count")
    if alerts not in ("window", "sequential"):
        raise VeracityError(f"alerts must be 'window' (a test per window) or 'sequential' (anytime-valid "
                            f"confidence sequences), got {alerts!r}", param="alerts")
    if alerts == "sequential" and not delayed:  # the sequences are computed on the delayed-label path only
        raise VeracityError("alerts='sequential' alerts on the confidence sequences, which delayed=False leaves "
                            "out (its rows would carry the window tests' alerts); pass delayed=True (the "
                            "default) with it, or alerts='window'", param="delayed")
    if not 0.0 <= _number(tolerance) < 1.0:
        raise VeracityError(f"tolerance must be in [0, 1), e.g. 0.01, got {tolerance!r}", param="tolerance")
    if float(tolerance) > 0 and alerts != "sequential":
        raise VeracityError(f"tolerance={float(tolerance):g} applies to the sequential alerts only (the window "
                            "tests would ignore it); pass alerts='sequential' with it, or drop it",
                            param="tolerance")
    if isinstance(max_periods, bool) or not isinstance(max_periods, (int, np.integer)) or max_periods < 1:
        raise VeracityError(f"max_periods must be a positive integer, got {max_periods!r}", param="max_periods")
    if (isinstance(max_slices, (bool, np.bool_)) or not isinstance(max_slices, (int, np.integer))
            or max_slices < 1):
        raise VeracityError(f"max_slices must be a positive integer, got {max_slices!r}", param="max_slices")
    bins, max_slices = int(bins), int(max_slices)  # numpy integers as plain ones (the JSON holds them)
    t_as_of = parse_instant(as_of)
    cut = _check_cut(since, last, t_as_of)
    as_of_us = int(t_as_of.astype("datetime64[us]").astype(np.int64))
    horizon_s = None if horizon is None else parse_duration(horizon, "--horizon")
    horizon_us = None if horizon_s is None else int(round(horizon_s * 1e6))
    con = store.connect(read_only=True)
    try:
        return _status_from(store, con, freq=freq, window=window, window_s=window_s, t_as_of=t_as_of,
                            as_of_us=as_of_us, horizon=horizon, horizon_us=horizon_us, by=by, bins=bins,
                            level=level, alert_level=alert_level, min_count=min_count, reference=reference,
                            threshold=threshold, cost_fp=cost_fp, cost_fn=cost_fn, model=model,
                            max_slices=max_slices, alerts=alerts, tolerance=float(tolerance),
                            segments=bool(segments), delayed=delayed, max_periods=int(max_periods),
                            as_of_given=as_of is not None, cut=cut)
    except VeracityError:
        raise
    except Exception as exc:
        import duckdb

        if isinstance(exc, duckdb.Error):  # a block lost after the checks on open
            raise VeracityError(f"{store.path} could not be read as a monitoring store "
                                f"({str(exc).splitlines()[0][:160]}); restore it from a backup") from None
        raise
    finally:
        con.close()


def _status_from(store: Any, con: Any, *, freq: str | None, window: str | None, window_s: float | None,
                 t_as_of: Any, as_of_us: int, horizon: Any, horizon_us: int | None, by: str | None, bins: int,
                 level: float, alert_level: float, min_count: int, reference: str | None, threshold: float,
                 cost_fp: float, cost_fn: float, model: str | None, max_slices: int, alerts: str,
                 tolerance: float, segments: bool = False, delayed: bool = True,
                 max_periods: int = MAX_PERIODS, as_of_given: bool = True,
                 cut: _Cut | None = None) -> StoreStatus:
    if by is not None and by not in store.slices(con=con):
        known = ", ".join(store.slices(con=con)) or "none"
        raise VeracityError(f"slice {by!r} was never logged (logged slices: {known}); "
                            "log predictions with --by COL first")
    if model is not None:
        check_model(con, model)
    lo, hi = con.execute(f"SELECT min(ts), max(ts) FROM predictions WHERE ts <= make_timestamp({as_of_us})"
                         + (" AND model = ?" if model is not None else ""),
                         [model] if model is not None else []).fetchall()[0]
    if not as_of_given:
        _warn_future(con, as_of_us, model)
    count = 0
    if lo is not None:
        count = _check_span(con, np.datetime64(lo, "us"), np.datetime64(hi, "us"), freq, window, window_s, t_as_of,
                            as_of_us, model, max_periods)
    start_sql, _ = period_sql(freq, window_s, as_of_us, "p.ts")
    g, seq, pooled = _query(store, con, period=start_sql, as_of_us=as_of_us, horizon_us=horizon_us,
                            slice_col=by, bins=bins, threshold=float(threshold), model=model,
                            max_slices=max_slices, delayed=delayed)
    settings = _Settings(as_of=str(t_as_of.astype("datetime64[s]")).replace("T", " "), freq=freq,
                         window=window, horizon=_horizon_text(horizon), by=by,
                         level=float(level), alert_level=float(alert_level), min_count=int(min_count),
                         threshold=float(threshold), bins=bins, pooled=pooled, alert_mode=alerts,
                         tolerance=tolerance)
    if lo is None:
        _warn_nothing_before(con, as_of_us, model)
        return _listed(StoreStatus(rows=(), reference=None, **settings), cut, np.array([], "datetime64[us]"),
                       freq, window_s, t_as_of)
    starts = period_starts(np.datetime64(lo, "us"), np.datetime64(hi, "us"), freq, window_s, t_as_of)
    status = _assemble(g, starts, freq, window_s, t_as_of, by, bins, level, int(min_count), reference,
                       float(threshold), float(cost_fp), float(cost_fn), settings)
    _warn_sparse(status, count, lo, hi, freq, window)
    if segments:
        status = _with_segments(store, con, status, starts, start_sql, as_of_us, horizon_us, model,
                                int(min_count), level)
    if delayed:
        status = _with_delayed_labels(status, g, seq, starts, _next_start(starts, freq, window_s), by, level,
                                      alerts, tolerance, min_count, bins, cost_fp=float(cost_fp),
                                      cost_fn=float(cost_fn))
    return _listed(status, cut, starts, freq, window_s, t_as_of, latest=np.datetime64(hi, "us"))


class _Cut(NamedTuple):
    """What ``since=``/``last=`` asked for: ``since`` as given and its instant, or ``last``."""

    since: Any
    t_since: np.datetime64 | None
    last: int | None


def _check_cut(since: Any, last: Any, t_as_of: np.datetime64) -> _Cut | None:
    """``since``/``last`` read and checked (one-line refusals), None when neither is given."""
    if since is None and last is None:
        return None
    if since is not None and last is not None:
        raise VeracityError(f"pass since= or last=, not both (one says where the listing begins); got "
                            f"since={str(since)!r} and last={last!r}", param="since")
    if last is not None:
        if isinstance(last, (bool, np.bool_)) or not isinstance(last, (int, np.integer)) or last < 1:
            raise VeracityError(f"last must be a whole number of periods, at least 1 (e.g. 1: the period "
                                f"holding the as-of time); got {last!r}", param="last")
        return _Cut(None, None, int(last))
    t_since = parse_since(since)
    if t_since > t_as_of:
        raise VeracityError(f"since={str(since)!r} ({_when(t_since)} UTC) is after the as-of time "
                            f"({_when(t_as_of)} UTC): nothing could be listed; pass an earlier since= or a "
                            "later as_of=", param="since")
    return _Cut(since, t_since, None)


def _listed(status: StoreStatus, cut: _Cut | None, starts: np.ndarray, freq: str | None,
            window_s: float | None, t_as_of: np.datetime64,
            latest: np.datetime64 | None = None) -> StoreStatus:
    """``status`` with only the periods ``cut`` keeps (all of them when ``cut`` is None).

    ``latest``: the latest prediction's time at or before the as-of time. When no period is listed although
    the store holds earlier ones, and a whole period without a prediction lies between the latest one's and
    the as-of time's (a daily job whose logging step stopped would read "alerts: none" for good; the period
    holding the as-of time alone may still be waiting for its first batch), a warning and the note under
    the table say so.

    A period ``[start, end)`` (a rolling window: ``(start, end]``) is kept when ``end > since``; a listed
    period's key as ``since`` keeps that period and the later ones (a rolling window's printed start is
    cut to the minute, so the key is matched as printed). ``last=N`` keeps the periods whose start is at
    or after the start of the N-th period counted back from the one holding ``t_as_of``."""
    if cut is None:
        return status
    from dataclasses import replace

    labels = [period_label(s, freq, window_s) for s in starts]
    if cut.last is not None:
        # no more periods back than lie between the first listed and the as-of time (a huge N overflows)
        n = min(cut.last, period_count(starts[0], t_as_of, freq, window_s, t_as_of) + 1) if len(starts) else 1
        first = _first_of_last(n, freq, window_s, t_as_of)
        keep = [bool(s >= first) for s in starts]
        since_text = period_label(first, freq, window_s)
    elif isinstance(cut.since, str) and cut.since.strip() in labels:
        at = labels.index(cut.since.strip())
        keep = [i >= at for i in range(len(starts))]
        since_text = cut.since.strip()
    else:
        ends = np.append(starts[1:], _next_start(starts, freq, window_s)) if len(starts) else starts
        keep = [bool(e > cut.t_since) for e in ends]
        since_text = _when(cut.t_since)
    kept = {label for label, k in zip(labels, keep) if k}
    rows = tuple(r for r in status.rows if r.period in kept)
    dropped = [r for r in status.rows if r.period not in kept]
    first_listed = starts[keep.index(True)] if any(keep) else None  # the first listed period's start
    alarms, alarms_out = _listed_alarms(status.sequence_alarms, rows, first_listed)
    silent = None
    if (not rows and dropped and latest is not None
            and period_count(latest, t_as_of, freq, window_s, t_as_of) >= 3):
        import warnings

        silent = _when(latest)
        noun = FREQ_NAMES[freq] if freq else "window"
        warnings.warn(f"no prediction in the listed {noun}s (from {since_text} up to the as-of time "
                      f"{_when(t_as_of)} UTC): the latest stored is dated {silent} UTC, in {labels[-1]}; "
                      "if the model still scores, the job that logs its predictions has stopped",
                      stacklevel=5)
    return replace(status, rows=rows, since=since_text, last=cut.last, left_out=len(labels) - len(kept),
                   left_out_alerts=sum(len(r.alerts) for r in dropped), sequence_alarms=alarms,
                   left_out_alarms=alarms_out, latest_unlisted=silent)


def _listed_alarms(alarms: Any, rows: tuple[StatusRow, ...], first: Any) -> tuple[Any, int]:
    """The sequence alarms a cut listing keeps (those of the slices a listed row still alerts on), and
    how many it leaves out.

    A slice's alarm is the first day one of its sequences (the overall one, or a score bin's) left the
    calibrated region; a listed row of the slice alerts (``kind == "sequential"``) while that sequence's
    bounds at the row's look still lie outside it. The bounds being a running intersection, an alarm is
    active in every period whose look is on or after its day, so one is left out only when no such period
    is listed (e.g. ``last=1`` on a week without predictions). A kept alarm dated before the first listed
    period's start (its UTC date) is named in ``before_listing``: old news, still active. So the alarms
    the text and JSON name are exactly those of the alerts ``--fail-on-alert`` counts."""
    if not alarms:
        return alarms, 0
    active = {r.slice for r in rows if any(a.kind == "sequential" for a in r.alerts)}
    day0 = None if first is None else str(np.asarray(first).astype("datetime64[D]"))
    kept = {name: alarm for name, alarm in alarms.items() if name in active}
    before = [name for name, alarm in kept.items() if day0 is not None and alarm["day"] < day0]
    return (SequenceAlarms(kept, sequential=getattr(alarms, "sequential", True), before_listing=before),
            len(alarms) - len(kept))


def _first_of_last(n: int, freq: str | None, window_s: float | None, t_as_of: np.datetime64) -> np.datetime64:
    """The start of the ``n``-th period counted back from the one holding ``t_as_of`` (the first)."""
    if window_s is not None:  # the windows (as_of - (k + 1) w, as_of - k w], k = 0, 1, ...
        return t_as_of - n * np.timedelta64(int(round(window_s * 1e6)), "us")
    own = period_starts(t_as_of, t_as_of, freq, None, t_as_of)[0]
    if freq in ("D", "W"):
        return own - (n - 1) * np.timedelta64(1 if freq == "D" else 7, "D").astype("timedelta64[us]")
    step = 3 if freq == "Q" else 1
    return (own.astype("datetime64[M]") - step * (n - 1)).astype("datetime64[us]")


def _what(freq: str | None, window: str | None) -> str:
    return f"{FREQ_NAMES[freq]}s" if freq else f"{window} windows"


def _when(t: Any) -> str:
    return str(np.datetime64(t, "s")).replace("T", " ")


def _check_span(con: Any, lo: np.datetime64, hi: np.datetime64, freq: str | None, window: str | None,
                window_s: float | None, t_as_of: np.datetime64, as_of_us: int, model: str | None,
                max_periods: int) -> int:
    """The number of periods from ``lo`` to ``hi``; more than ``max_periods`` is refused in one line that
    names the earliest and latest prediction and the widest gap between two consecutive ones (where a
    mistyped time sits)."""
    count = period_count(lo, hi, freq, window_s, t_as_of)
    if count <= max_periods:
        return count
    where = f"ts <= make_timestamp({as_of_us})" + (" AND model = ?" if model is not None else "")
    params = [model] if model is not None else []
    gap = con.execute(
        f"SELECT prev, ts FROM (SELECT ts, lag(ts) OVER (ORDER BY ts) AS prev FROM predictions WHERE {where}) "
        "WHERE prev IS NOT NULL ORDER BY epoch_us(ts) - epoch_us(prev) DESC LIMIT 1", params).fetchall()
    coarser = "a longer window=" if window_s is not None else "a coarser freq="
    widest, typo = "", False
    if gap:
        a, b = gap[0]
        gap_us = int((np.datetime64(b, "us") - np.datetime64(a, "us")) // np.timedelta64(1, "us"))
        typo = gap_us > 0.5 * int((hi - lo) // np.timedelta64(1, "us"))  # one gap is most of the span: stray rows
        if typo:
            before, after = con.execute(
                f"SELECT count(*) FILTER (WHERE ts <= ?), count(*) FILTER (WHERE ts >= ?) FROM predictions "
                f"WHERE {where}", [a, b, *params]).fetchall()[0]
            days = gap_us / 86_400e6
            span = f"{days / 365.25:,.0f} years" if days >= 730 else f"{days:,.0f} days"
            widest = (f"; {span} pass between {_when(a)} and {_when(b)} without a prediction ({before:,} "
                      f"predictions before, {after:,} after)")
    fix = ("a mistyped time? Re-log the stray predictions with their right time (replacing them), or pass as_of= "
           f"before them, {coarser}" if typo else f"pass {coarser}")
    raise VeracityError(
        f"status would list {count:,} {_what(freq, window)} (more than max_periods={max_periods}), from "
        f"{_when(lo)} (the earliest prediction) to {_when(hi)} (the latest){widest}: {fix} or "
        f"max_periods={count} to list every period", param="max_periods")


def _warn_sparse(status: StoreStatus, count: int, lo: Any, hi: Any, freq: str | None, window: str | None) -> None:
    """A warning when at least 100 periods are listed and 90% of them hold no prediction."""
    if count < 100:
        return
    empty = sum(1 for r in status.rows if r.slice == ALL and r.rows == 0)
    if empty >= 0.9 * count:
        import warnings

        warnings.warn(f"{empty:,} of the {count:,} {_what(freq, window)} listed hold no prediction (the earliest is "
                      f"{_when(lo)}, the latest {_when(hi)}): a mistyped time? Or use coarser periods",
                      stacklevel=5)


def _warn_nothing_before(con: Any, as_of_us: int, model: str | None) -> None:
    """An empty status of a store that holds predictions, all after the as-of time: say so (an as-of
    mistyped into the past would otherwise read as "alerts: none")."""
    n, first = con.execute("SELECT count(*), min(ts) FROM predictions" + (" WHERE model = ?" if model is not None
                                                                          else ""),
                           [model] if model is not None else []).fetchall()[0]
    if n:
        import warnings

        warnings.warn(f"no prediction is dated at or before the as-of time {_when(np.datetime64(as_of_us, 'us'))} UTC; "
                      f"the {n:,} stored begin at {_when(first)}: nothing to judge (pass a later as_of=)",
                      stacklevel=5)


def _warn_future(con: Any, as_of_us: int, model: str | None) -> None:
    """As of now, predictions dated more than a day ahead are left out: say so (a mistyped year is one)."""
    ahead = as_of_us + 86_400_000_000
    n, latest = con.execute(f"SELECT count(*), max(ts) FROM predictions WHERE ts > make_timestamp({ahead})"
                            + (" AND model = ?" if model is not None else ""),
                            [model] if model is not None else []).fetchall()[0]
    if n:
        import warnings

        warnings.warn(f"{n:,} predictions are dated in the future (after now, {_when(np.datetime64(as_of_us, 'us'))} "
                      f"UTC; the latest at {_when(latest)}) and are left out: a mistyped time? Re-log them with their "
                      "right time, or pass as_of= explicitly", stacklevel=5)


def _number(value: Any) -> float:
    """``value`` as a float, NaN for anything that is not a number (so a range check refuses it in one line)."""
    if isinstance(value, bool):
        return float("nan")
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def store_plan(store: Any, *, width: float, level: float = 0.95, freq: str | None = "W", window: str | None = None,
               as_of: Any = None, horizon: str | float | None = None, by: str | None = None,
               model: str | None = None) -> Any:
    """Labels to draw at random per window (and slice) for a PPI interval of ``width`` on its rate.

    Planned on the window's rows that have no final label yet, from their scores' own mean and
    variance (:func:`veracity.delayed.plan_from_sums`); a :class:`veracity.delayed.LabelPlan`.
    """
    import narwhals as nw

    from ..delayed import plan_from_group_sums
    from ..sources._grouped import grouped_sums

    if window is not None:
        window_s: float | None = parse_window(window)
        freq = None
    else:
        window_s = None
        if freq not in FREQ_NAMES:
            raise VeracityError(f"freq must be one of {', '.join(FREQ_NAMES)}; got {freq!r}", param="freq")
    t_as_of = parse_instant(as_of)
    as_of_us = int(t_as_of.astype("datetime64[us]").astype(np.int64))
    horizon_s = None if horizon is None else parse_duration(horizon, "--horizon")
    horizon_us = None if horizon_s is None else int(round(horizon_s * 1e6))
    con = store.connect(read_only=True)
    try:
        if by is not None and by not in store.slices(con=con):
            raise VeracityError(f"slice {by!r} was never logged; log predictions with --by COL first", param="by")
        if model is not None:
            check_model(con, model)
        start_sql, _ = period_sql(freq, window_s, as_of_us, "p.ts")
        rows = _rows(con, period=start_sql, as_of_us=as_of_us, horizon_us=horizon_us, slice_col=by, model=model)
        score = nw.col("score")  # the rows without a final label (state 0: final)
        got = grouped_sums(rows, {"period": nw.col("period"), "slice": nw.col("slice")},
                           {"sf": score, "sff": score * score}, where=nw.col("state") != 0, exact=1.0)
    finally:
        con.close()
    slices = got["slice"].astype(str)
    rank = {name: i for i, name in enumerate(slice_order(slices.tolist()))}  # the status's order of slices
    order = np.lexsort((np.array([rank[s] for s in slices.tolist()], dtype=np.int64), got["period"]))
    got = {k: v[order] for k, v in got.items()}
    keys = [period_label(np.datetime64(int(t), "us"), freq, window_s) + ("" if by is None else f" [{s}]")
            for t, s in zip(got["period"], got["slice"])]
    return plan_from_group_sums(keys, rows=got["n"], sum_f=got["sf"], sum_ff=got["sff"], width=width, level=level)


def _with_segments(store: Any, con: Any, status: StoreStatus, starts: np.ndarray, period: str,
                   as_of_us: int, horizon_us: int | None, model: str | None, min_count: int,
                   level: float) -> StoreStatus:
    """Per window, the miscalibrated segments over the logged slice columns (:func:`veracity.segments`
    on the window's final labels, read as a DuckDB relation: only the segment table comes back).
    ``period``: the SQL of a row's period start, the status's own, so a window's segments read
    exactly its rows (a rolling window holds (start, start + w], a calendar period [start, next))."""
    from dataclasses import replace

    from ..segments import segments as find_segments

    features = store.slices(con=con)
    if not features:
        raise VeracityError("segments=True needs slice columns: log predictions with by=[...] (--by COL) first",
                            param="segments")
    final = "TRUE" if horizon_us is None else f"epoch_us(p.ts) + {horizon_us} <= {as_of_us}"
    cols = ", ".join(f"p.{quote_identifier(_slice_name(f))} AS {quote_identifier(f)}" for f in features)
    found: dict[str, list[dict[str, Any]]] = {}
    for start, row in zip(starts, [r for r in status.rows if r.slice == ALL]):
        if row.labelled < min_count:
            continue
        params: list[Any] = [int(start.astype("datetime64[us]").astype(np.int64))]
        if model is not None:
            params.append(model)
        rel = con.sql(
            f"SELECT p.score, p.label, {cols} FROM predictions p WHERE epoch_us({period}) = $1 "
            f"AND p.ts <= make_timestamp({as_of_us}) AND p.label IS NOT NULL AND "
            f"p.observed <= make_timestamp({as_of_us}) AND {final}"
            + (" AND p.model = $2" if model is not None else ""),  # model='' too: a name, filtered on
            params=params)
        result = find_segments(rel, score="score", label="label", features=list(features), level=level,
                               min_count=max(50, min_count // 2))
        found[row.period] = [{"segment": d.segment, "n": d.n, "conf": d.conf, "rate": d.rate, "gap": d.gap,
                              "ci_low": d.ci_low, "ci_high": d.ci_high, "q_value": d.q_value}
                             for d in result.discoveries[:5]]
    rows = tuple(replace(r, segments=found.get(r.period, [])) if r.slice == ALL else r for r in status.rows)
    return replace(status, rows=rows)


def _slice_name(feature: str) -> str:
    return "s_" + feature


def _horizon_text(horizon: Any) -> str | None:
    """The horizon as the header and the JSON show it: a bare number is a number of days (``parse_duration``)
    and reads ``14d``, not ``14`` ("labels final after 14" said no unit); any other form as given."""
    if horizon is None:
        return None
    text = str(horizon).strip()
    try:
        float(text)
    except ValueError:
        return text
    return f"{text}d"
