"""Time for monitoring: timestamps to UTC once, durations, periods.

Every timestamp entering the store is converted once to a timezone-naive UTC
``timestamp[us]``:

* timezone-aware timestamps -> their UTC instant;
* naive timestamps and dates -> read as UTC;
* integers and floats -> **seconds** since 1970-01-01 UTC (epoch seconds, not
  nanoseconds);
* strings -> ISO 8601, with or without an offset (``2026-03-02``,
  ``2026-03-02T10:00:00+02:00``, ``...Z``).

Periods: ``D`` (days), ``W`` (ISO weeks, Monday to Sunday, named ``2026-W10``),
``M`` (months), ``Q`` (quarters), or rolling windows of a fixed length
(``7d``, ``12h``) that end at the as-of time.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np

from ..core._text import count_noun
from ..core._validation import VeracityError

FREQ_NAMES = {"D": "day", "W": "week", "M": "month", "Q": "quarter"}
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
MAX_DAYS = 36600.0  # a hundred years: anything longer is a typo


def parse_duration(text: Any, what: str = "--horizon") -> float:
    """Seconds in a duration such as ``30d``, ``12h``, ``2w``, a plain number of days, a
    ``numpy.timedelta64`` or a ``datetime.timedelta``.

    Refuses NaN, infinity, negative and absurd (over 100 years) values.

    >>> parse_duration("30d"), parse_duration("12h"), parse_duration(7)
    (2592000.0, 43200.0, 604800.0)
    """
    if isinstance(text, np.timedelta64):  # checked as every other duration: NaT, negative, absurd
        seconds = math.nan if np.isnat(text) else float(text / np.timedelta64(1, "s"))
    elif isinstance(text, timedelta):  # also pandas.Timedelta
        seconds = text.total_seconds()
    else:
        raw = str(text).strip().lower()
        m = re.fullmatch(r"([0-9.eE+\-]+|nan|inf|infinity)\s*([smhdw]?)", raw)
        if m is None:
            raise VeracityError(f"{what} must be a duration like 30d, 12h or 2w (or a number of days); got {text!r}")
        try:
            value = float(m.group(1))
        except ValueError:
            raise VeracityError(f"{what} must be a duration like 30d, 12h or 2w; got {text!r}") from None
        seconds = value * _UNITS[m.group(2) or "d"]
    if not math.isfinite(seconds) or seconds < 0 or seconds > MAX_DAYS * 86400:
        raise VeracityError(
            f"{what} must be a finite duration between 0 and 100 years (e.g. 30d); got {text!r}"
        )
    return seconds


def parse_window(text: Any, what: str = "--window") -> float:
    """Seconds in a rolling window (:func:`parse_duration`), refusing windows under one second: a zero
    window divides by zero, and a window of microseconds makes millions of periods.

    >>> parse_window("7d")
    604800.0
    """
    seconds = parse_duration(text, what)
    if seconds < 1.0:
        raise VeracityError(f"{what} must be at least one second long, e.g. 7d or 12h; got {text!r}")
    return seconds


def parse_instant(text: Any, what: str = "--as-of") -> np.datetime64:
    """A UTC ``datetime64[us]`` from a date/time string (offsets converted), a datetime or ``now``."""
    if text is None or (isinstance(text, str) and text.strip().lower() == "now"):
        return np.datetime64(datetime.now(timezone.utc).replace(tzinfo=None), "us")
    if isinstance(text, datetime):
        if text.tzinfo is not None:
            text = text.astimezone(timezone.utc).replace(tzinfo=None)
        return np.datetime64(text, "us")
    if isinstance(text, np.datetime64):
        return text.astype("datetime64[us]")
    s = str(text).strip()
    try:
        d = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise VeracityError(f"{what} must be a date or time like 2026-06-30 or 2026-06-30T12:00Z; got {text!r}") \
            from None
    if d.tzinfo is not None:
        d = d.astimezone(timezone.utc).replace(tzinfo=None)
    return np.datetime64(d, "us")


_PERIOD_KEYS = (
    (re.compile(r"(\d{4})-W(\d{2})"), "W"),  # 2026-W10: the ISO week's Monday
    (re.compile(r"(\d{4})-(\d{2})"), "M"),  # 2026-03: the month's first day
    (re.compile(r"(\d{4})-?Q(\d)"), "Q"),  # 2026Q1 (as printed) or 2026-Q1: the quarter's first day
)


def parse_since(text: Any, what: str = "since") -> np.datetime64:
    """The UTC instant (``datetime64[us]``) that ``since`` names: the start of a period key as a status
    prints it — ``2026-W10`` (the ISO week's Monday), ``2026-03`` (the month's first day), ``2026Q1`` or
    ``2026-Q1`` (the quarter's first day); a day's key ``2026-03-02`` is a date — or any date/time
    :func:`parse_instant` reads (offsets converted to UTC).

    >>> str(parse_since("2026-W10")), str(parse_since("2026Q2")), str(parse_since("2026-03-02T10:00+01:00"))
    ('2026-03-02T00:00:00.000000', '2026-04-01T00:00:00.000000', '2026-03-02T09:00:00.000000')
    """
    if isinstance(text, str):
        key = text.strip()
        for pattern, freq in _PERIOD_KEYS:
            m = pattern.fullmatch(key)
            if m is None:
                continue
            year, n = int(m.group(1)), int(m.group(2))
            try:
                if freq == "W":
                    return np.datetime64(datetime.fromisocalendar(year, n, 1), "us")
                if freq == "M":
                    return np.datetime64(datetime(year, n, 1), "us")
                if 1 <= n <= 4:
                    return np.datetime64(datetime(year, 3 * n - 2, 1), "us")
            except ValueError:
                pass
            raise VeracityError(f"{what}={text!r} names no {FREQ_NAMES[freq]}; use e.g. 2026-W10 (ISO week "
                                "1..52 or 53), 2026-03 (month 1..12), 2026Q1 (quarter 1..4), or a date like "
                                "2026-03-02", param=what)
    try:
        return parse_instant(text, what)
    except VeracityError:
        raise VeracityError(f"{what} must be a date or time like 2026-03-02 or 2026-03-02T12:00Z, or a period "
                            f"key as the status prints it (2026-W10, 2026-03, 2026Q1); got {text!r}",
                            param=what) from None


def to_utc_timestamps(array: Any, column: str) -> Any:
    """A pyarrow ``timestamp[us]`` array (naive, UTC) from a column of times; see the module doc.

    Numbers are read from and written to Arrow's buffers (:mod:`veracity.sources._arrow_numpy`):
    pyarrow's ``to_numpy`` and ``pa.array`` import pandas."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..sources._arrow_numpy import from_numpy, is_missing, to_numpy

    arr = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    if arr.null_count:  # the first named by its position in ``array`` (the CLI: its data row in FILE)
        count, first = count_noun(arr.null_count, "missing value"), int(np.argmax(is_missing(arr)))
        raise VeracityError(f"time column {column!r} has {count} (first at row {first}); every prediction "
                            "needs a time")
    t = arr.type
    try:
        if pa.types.is_timestamp(t):
            # tz-aware -> the UTC instant; nanosecond times (pandas writes them) are cut to the
            # microsecond: a period boundary never depends on the last three digits
            out = _floor_us(arr) if t.unit == "ns" else arr.cast(pa.timestamp("us"))
        elif pa.types.is_date(t):
            out = arr.cast(pa.timestamp("us"))
        elif pa.types.is_integer(t) or pa.types.is_floating(t):
            seconds = np.asarray(to_numpy(arr), dtype=np.float64)
            if not np.all(np.isfinite(seconds)) or np.abs(seconds).max() > 1e11:
                raise VeracityError(
                    f"time column {column!r} holds numbers that are not epoch seconds "
                    f"(max |value| {np.abs(seconds).max():.3g}); numbers are read as seconds since "
                    "1970-01-01 UTC: convert milli/nanoseconds to seconds or pass ISO dates"
                )
            out = from_numpy(np.round(seconds * 1e6).astype(np.int64)).view(pa.timestamp("us"))
        elif pa.types.is_string(t) or pa.types.is_large_string(t):
            out = parse_time_strings(arr, f"time column {column!r}")
        else:
            raise VeracityError(f"time column {column!r} has type {t}; pass timestamps, dates, ISO strings "
                                "or epoch seconds")
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise VeracityError(f"time column {column!r} could not be read as times: "
                            f"{str(exc).splitlines()[0]}") from None
    return pc.cast(out, pa.timestamp("us"))


_STRING_TARGETS = ("us", "UTC"), ("us", None), ("ns", "UTC"), ("ns", None)


def mixed_zones_problem(values: Any) -> str | None:
    """Why an object column of datetimes has no one reading, or None: the first datetime with a time zone
    and the first without (their rows and values), the end of a sentence whose subject the caller names.
    A naive datetime is read as UTC and an aware one as its instant, so a column mixing them (two sources
    concatenated, one of them in local time) would put the naive ones hours off without a word; the
    strings of such a column are refused alike (:func:`parse_time_strings`)."""
    first: dict[bool, int] = {}
    rows = values.tolist() if isinstance(values, np.ndarray) else list(values)
    for i, v in enumerate(rows):
        if isinstance(v, datetime) and v == v:  # pandas.Timestamp too; NaT (a datetime to Python) has no zone
            first.setdefault(v.tzinfo is not None and v.utcoffset() is not None, i)
            if len(first) == 2:
                a, n = first[True], first[False]
                return (f"mixes datetimes with a time zone (row {a}: {str(rows[a])[:40]!r}) and "
                        f"without (row {n}: {str(rows[n])[:40]!r}); times without a zone are read as UTC, "
                        "so the column has no one reading: localise those (e.g. "
                        "pandas.to_datetime(..., utc=True) if they are UTC) or convert the others")
    return None


def _floor_us(arr: Any) -> Any:
    """Nanosecond timestamps cut to the microsecond *down* (floor, as numpy's ``astype``): a plain cast
    truncates toward 1970, which put ``1969-12-31T23:59:59.9999995`` on 1970-01-01."""
    import pyarrow as pa
    import pyarrow.compute as pc

    # the UTC instant first (naive): floored in a zone's local time, a DST fall-back hour is ambiguous
    return pc.floor_temporal(arr.cast(pa.timestamp("ns")), unit="microsecond").cast(pa.timestamp("us"))


def parse_time_strings(arr: Any, subject: str) -> Any:
    """A pyarrow array of ISO 8601 strings as naive UTC ``timestamp[us]``: every string with a UTC offset
    (converted to its instant) or every one without (read as UTC) — a mix is refused in one line that
    begins with ``subject``, as is a string that is no time. The one reading of time strings: the
    store's columns and :func:`veracity.period_keys` both parse here."""
    import pyarrow as pa

    # nanosecond strings (pandas writes them) parse as ns and are cut to the microsecond
    for unit, tz in _STRING_TARGETS:
        try:
            parsed = arr.cast(pa.timestamp(unit, tz=tz))
        except pa.ArrowInvalid:
            continue
        return _floor_us(parsed) if unit == "ns" else parsed.cast(pa.timestamp("us"))
    raise VeracityError(f"{subject} {_strings_problem(arr)}")


def _strings_problem(arr: Any) -> str:
    """Why a column of strings is not one form of ISO 8601 time: the first string that is none (its row
    and text), or the first strings with and without a UTC offset when each parses alone (the end of a
    sentence whose subject the caller names)."""
    import pyarrow as pa

    def form(row: int) -> str | None:
        # "aware" (with a UTC offset), "naive", or None: no ISO time; the row as a one-string slice of the
        # column (pa.array([value]) imports pandas)
        for unit, tz in _STRING_TARGETS:
            try:
                arr.slice(row, 1).cast(pa.timestamp(unit, tz=tz))
                return "naive" if tz is None else "aware"
            except pa.ArrowInvalid:
                continue
        return None

    first: dict[str, int] = {}
    values = arr.slice(0, 100_000).to_pylist()
    for i, value in enumerate(values):
        if value is None:  # a missing time is of no form (the caller refuses it in its own words)
            continue
        kind = form(i)
        if kind is None:
            return (f"has strings that are not ISO 8601 times (row {i}: {str(value)[:40]!r}); use e.g. "
                    "2026-03-02 or 2026-03-02T10:00:00+02:00, one form per column")
        first.setdefault(kind, i)
    if len(first) == 2:
        a, n = first["aware"], first["naive"]
        return (f"mixes times with a UTC offset (row {a}: {str(values[a])[:40]!r}) and without (row {n}: "
                f"{str(values[n])[:40]!r}); write one form per column (times without an offset are read as UTC: "
                "add +00:00 to those, or convert the others)")
    return (f"has strings that are not one form of ISO 8601 time (first: {str(arr[0])[:40]!r}); use e.g. "
            "2026-03-02 or 2026-03-02T10:00:00+02:00, one form per column")


def period_sql(freq: str | None, window_s: float | None, as_of_us: int, column: str = "ts") -> tuple[str, str]:
    """SQL for a row's period start (TIMESTAMP) and its label, for a calendar ``freq`` or a window."""
    if window_s is not None:
        w = int(round(window_s * 1e6))
        start = (f"make_timestamp({as_of_us} - ({w}::BIGINT * (floor(({as_of_us} - epoch_us({column})) / {w}) + 1))"
                 f"::BIGINT)")
        return start, start
    unit = FREQ_NAMES[freq]  # type: ignore[index]
    return f"date_trunc('{unit}', {column})", f"date_trunc('{unit}', {column})"


def period_label(start: np.datetime64, freq: str | None, window_s: float | None) -> str:
    """Human name of a period: ``2026-03-02`` (day), ``2026-W10``, ``2026-03``, ``2026Q1``, or a window's start."""
    d = start.astype("datetime64[us]").item()
    if window_s is not None:
        return d.strftime("%Y-%m-%d") if (window_s % 86400 == 0 and d.hour == d.minute == 0) \
            else d.strftime("%Y-%m-%dT%H:%M" if window_s >= 60 else "%Y-%m-%dT%H:%M:%S")  # distinct names
    if freq == "D":
        return d.strftime("%Y-%m-%d")
    if freq == "W":
        year, week, _ = d.isocalendar()
        return f"{year}-W{week:02d}"
    if freq == "M":
        return d.strftime("%Y-%m")
    return f"{d.year}Q{(d.month - 1) // 3 + 1}"


def period_starts(first: np.datetime64, last: np.datetime64, freq: str | None, window_s: float | None,
                  as_of: np.datetime64) -> np.ndarray:
    """Every period start from the one holding ``first`` to the one holding ``last`` (empty ones too)."""
    first = first.astype("datetime64[us]")
    last = last.astype("datetime64[us]")
    if window_s is not None:
        w = np.timedelta64(int(round(window_s * 1e6)), "us")
        k_first = (as_of - first) // w
        k_last = (as_of - last) // w
        ks = np.arange(int(k_first), int(k_last) - 1, -1)
        return as_of - (ks + 1) * w
    if freq == "D":
        return np.arange(first.astype("datetime64[D]"), last.astype("datetime64[D]") + 1).astype("datetime64[us]")
    if freq == "W":
        # numpy weeks start on Thursday (1970-01-01); shift by 3 days to get Mondays
        monday = np.datetime64("1969-12-29", "D")
        a = (first.astype("datetime64[D]") - monday) // np.timedelta64(7, "D")
        b = (last.astype("datetime64[D]") - monday) // np.timedelta64(7, "D")
        return (monday + np.arange(int(a), int(b) + 1) * np.timedelta64(7, "D")).astype("datetime64[us]")
    months = np.arange(first.astype("datetime64[M]"), last.astype("datetime64[M]") + 1)
    if freq == "Q":
        m = months.astype(np.int64)
        months = np.unique((m - m % 3)).astype("datetime64[M]")
    return months.astype("datetime64[us]")


def period_count(first: np.datetime64, last: np.datetime64, freq: str | None, window_s: float | None,
                 as_of: np.datetime64) -> int:
    """How many periods :func:`period_starts` would list (arithmetic only: nothing is built), so that a
    mistyped time (a year 2206 among 2026 rows) is caught before it makes a million empty periods.

    >>> period_count(np.datetime64("2026-03-02"), np.datetime64("2026-03-29"), "W", None, np.datetime64("2026-04-01"))
    4
    """
    first = first.astype("datetime64[us]")
    last = last.astype("datetime64[us]")
    if window_s is not None:
        w = np.timedelta64(int(round(window_s * 1e6)), "us")
        return int((as_of - first) // w) - int((as_of - last) // w) + 1
    if freq == "D":
        return int((last.astype("datetime64[D]") - first.astype("datetime64[D]")).astype(np.int64)) + 1
    if freq == "W":
        monday = np.datetime64("1969-12-29", "D")
        a = (first.astype("datetime64[D]") - monday) // np.timedelta64(7, "D")
        b = (last.astype("datetime64[D]") - monday) // np.timedelta64(7, "D")
        return int(b) - int(a) + 1
    m0 = int(first.astype("datetime64[M]").astype(np.int64))
    m1 = int(last.astype("datetime64[M]").astype(np.int64))
    if freq == "Q":
        return (m1 - m1 % 3) // 3 - (m0 - m0 % 3) // 3 + 1
    return m1 - m0 + 1
