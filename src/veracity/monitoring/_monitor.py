r"""Calibration over time: one row per period, read from per-period statistics.

For each period the monitor reports the labelled rows, the rows still waiting
for a final label (*pending* — seed 004: a label that is not yet final must not
be counted as a negative), the observed rate with a Wilson interval, the mean
confidence, calibration-in-the-large (rate − confidence), ECE, Brier and NLL.

A period is flagged

* ``insufficient`` when it has fewer than ``min_count`` labelled rows (seed 004:
  such bins "do not trigger threshold changes"),
* ``alert`` when its mean confidence lies outside the interval of its observed
  rate — the model's average promise no longer matches what happens,
* ``ok`` otherwise.

Each flag is a per-period test at ``level``; with many periods some false alerts
are expected (about 1 − level of the periods when nothing changed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._intervals import binomial_interval, check_interval_args
from .._metrics import brier_from_stats, ece_from_stats, nll_from_stats
from .._stats import BinStats, grouped_stats, subset
from .._text import fmt, fmt_count, render_table
from .._validation import VeracityError, prepare_binary, to_numpy

FREQS = {"D": "datetime64[D]", "W": "datetime64[W]", "M": "datetime64[M]", "Q": "quarter", "Y": "datetime64[Y]"}


@dataclass(frozen=True)
class MonitorRow:
    period: str
    n: float
    pending: int
    base_rate: float
    conf: float
    gap: float
    ci_low: float
    ci_high: float
    ece: float
    brier: float
    nll: float
    status: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True, eq=False)
class MonitorResult:
    """Per-period calibration; ``stats`` keeps each period's mergeable statistics."""

    rows: tuple[MonitorRow, ...]
    stats: dict[str, BinStats] = field(default_factory=dict)
    level: float = 0.95
    min_count: int = 100

    @property
    def alerts(self) -> list[str]:
        return [r.period for r in self.rows if r.status == "alert"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "min_count": self.min_count,
            "alerts": self.alerts,
            "periods": [r.to_dict() for r in self.rows],
            "stats": {k: s.to_dict() for k, s in self.stats.items()},
        }

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}%"
        body = [
            [
                r.period,
                fmt_count(r.n),
                str(r.pending),
                fmt(r.conf),
                fmt(r.base_rate),
                fmt(r.gap, sign=True),
                f"[{fmt(r.ci_low, 3)}, {fmt(r.ci_high, 3)}]",
                fmt(r.ece),
                fmt(r.brier),
                fmt(r.nll),
                r.status,
            ]
            for r in self.rows
        ]
        headers = ["period", "labelled", "pending", "conf", "rate", "gap", f"{pct} CI of rate",
                   "ECE", "Brier", "NLL", "status"]
        table = render_table(headers, body, align="lrrrrrlrrrl")
        notes = [
            f"(gap = observed rate - mean confidence; alert = mean confidence outside the {pct} "
            f"interval of the rate; insufficient = fewer than {self.min_count} labelled rows)"
        ]
        if any(r.pending for r in self.rows):
            notes.append("(pending rows have no final label yet and are not counted as negatives)")
        alerts = self.alerts
        notes.append(f"alerts: {', '.join(alerts)}" if alerts else "alerts: none")
        return table + "\n" + "\n".join(notes)


def summarize_periods(
    stats: dict[str, BinStats],
    *,
    pending: dict[str, int] | None = None,
    level: float = 0.95,
    min_count: int = 100,
) -> MonitorResult:
    """Monitor rows from per-period statistics (from memory, a file scan, or a history)."""
    check_interval_args("wilson", level, "two-sided")
    pending = pending or {}
    rows = []
    for period, s in stats.items():
        total = s.total_weight
        if total <= 0:
            continue
        rate = float(s.sum_y.sum() / total)
        conf = float(s.sum_p.sum() / total)
        n_eff = total**2 / float(s.weight_sq.sum())
        low, high = binomial_interval(rate * n_eff, n_eff, method="wilson", level=level)
        low, high = float(low), float(high)
        if n_eff < min_count:
            status = "insufficient"
        elif conf < low or conf > high:
            status = "alert"
        else:
            status = "ok"
        rows.append(
            MonitorRow(
                period=period,
                n=total,
                pending=int(pending.get(period, 0)),
                base_rate=rate,
                conf=conf,
                gap=rate - conf,
                ci_low=low,
                ci_high=high,
                ece=ece_from_stats(s),
                brier=brier_from_stats(s),
                nll=nll_from_stats(s),
                status=status,
            )
        )
    for period, count in pending.items():  # periods with nothing labelled yet
        if period not in stats and period != "(all)":
            nan = float("nan")
            rows.append(MonitorRow(period, 0.0, int(count), nan, nan, nan, nan, nan, nan, nan, nan, "pending"))
    rows.sort(key=lambda r: r.period)
    return MonitorResult(rows=tuple(rows), stats=dict(stats), level=float(level), min_count=int(min_count))


def period_keys(times: Any, freq: str = "M") -> np.ndarray:
    """String period keys for datetimes: ``freq`` in D, W, M, Q, Y (e.g. '2026-03', '2026Q1').

    >>> period_keys(np.array(["2026-01-15", "2026-02-01"], dtype="datetime64[D]")).tolist()
    ['2026-01', '2026-02']
    """
    if freq not in FREQS:
        raise VeracityError(f"freq must be one of {', '.join(FREQS)}; got {freq!r}")
    raw = to_numpy(times, "times")
    try:
        t = raw.astype("datetime64[ns]") if raw.dtype.kind != "M" else raw
    except (TypeError, ValueError) as exc:
        raise VeracityError(
            f"times must be dates or datetimes (e.g. '2026-03-01'); could not parse them: {exc}"
        ) from None
    if np.isnat(t).any():
        raise VeracityError(f"times has {int(np.isnat(t).sum())} missing values; drop or fill them")
    if freq == "Q":
        months = t.astype("datetime64[M]").astype(np.int64)
        years = 1970 + months // 12
        quarters = months % 12 // 3 + 1
        return np.char.add(np.char.add(years.astype(str), "Q"), quarters.astype(str))
    return t.astype(FREQS[freq]).astype(str)


def label_maturity(prediction_time: Any, as_of: Any, horizon: Any) -> np.ndarray:
    """True where a label is final: ``prediction_time + horizon <= as_of``.

    ``horizon`` is a ``numpy.timedelta64`` or a number of days.

    >>> label_maturity(np.array(["2026-01-01", "2026-03-01"], dtype="datetime64[D]"),
    ...                np.datetime64("2026-03-15"), 30).tolist()
    [True, False]
    """
    t = to_numpy(prediction_time, "prediction_time").astype("datetime64[s]")
    h = horizon if isinstance(horizon, np.timedelta64) else np.timedelta64(int(horizon), "D")
    return (t + h) <= np.datetime64(as_of, "s")


def monitor(
    scores: Any,
    labels: Any,
    periods: Any,
    *,
    freq: str | None = None,
    mature: Any = None,
    bins: int = 10,
    score_type: str = "probability",
    sample_weight: Any = None,
    level: float = 0.95,
    min_count: int = 100,
) -> MonitorResult:
    """Calibration per period (in memory). ``periods`` are keys, or datetimes with ``freq``.

    ``mature`` (boolean, one per row) marks rows whose label is final; the others
    are counted as pending and left out of every metric.
    """
    keys = to_numpy(periods, "periods")
    if freq is not None:
        keys = period_keys(keys, freq)
    keys = np.asarray(keys).astype(str)
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type)
    if keys.shape != (data.n,):
        raise VeracityError(f"periods must hold one key per row: got {keys.size} for {data.n} rows")
    edges = np.arange(int(bins) + 1) / int(bins)
    pending: dict[str, int] = {}
    if mature is not None:
        m = to_numpy(mature, "mature")
        if m.dtype != bool or m.shape != (data.n,):
            raise VeracityError("mature must be a boolean array with one flag per row")
        waiting, counts = np.unique(keys[~m], return_counts=True)
        pending = {str(k): int(c) for k, c in zip(waiting, counts)}
    else:
        m = np.ones(data.n, dtype=bool)
    stats: dict[str, BinStats] = {}
    if m.any():
        stats = grouped_stats(subset(data, np.flatnonzero(m)), keys[m], edges)
    return summarize_periods(dict(sorted(stats.items())), pending=pending, level=level, min_count=min_count)
