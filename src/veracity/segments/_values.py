r"""A feature column's values: which are missing, integers beyond float64, and the text of a level.

* missing values are None, NaN, NaT and pandas' NA / NaT (:func:`missing_mask`); they become a
  level of their own (``"missing"``);
* integers beyond 2**53 are kept as int64, where float64 would merge neighbours
  (:func:`exact_ints`); beyond 2**63 - 1 they are refused in one line;
* a level prints as ``vc.audit(..., by=)`` names the slice of the same value
  (:func:`~veracity.core._keys.key_name`, through :func:`_shown`: a time with a zone as its UTC
  instant with ``+00:00``, ``-0.0`` as ``0.0``, bytes as ``b'..'``), quoted when it could be misread
  (:func:`quoted`); a numeric feature's levels and bins
  print numbers with 4 significant digits, more where two would read alike (:func:`_fmt_distinct`), and a
  bin's ends more where needed to select the rows it counts (:func:`~._levels._edge_texts`).
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import unicodedata
from typing import Any

import numpy as np

from ..core._keys import key_name, key_names
from ..core._validation import VeracityError

OTHER = "other"
MISSING = "missing"
#: integers up to this magnitude are exact in float64; beyond it neighbours merge (2**53 + 1 -> 2**53)
FLOAT_EXACT = 2**53
_INT64_MAX = 2**63 - 1


def exact_ints(values: np.ndarray, name: str, *, always: bool = False,
               hint: str | None = None) -> np.ndarray | None:
    """A numeric column's integers as int64 when float64 would merge some (any beyond 2**53; with
    ``always``, whenever they are integers); None when they are not integers, or float64 holds them.
    Integers beyond int64 (unsigned ids) are refused in one line: read them as text (``hint``: how, where
    the column is not in memory)."""
    if values.dtype.kind in "iu":
        arr = values
    elif values.dtype == object and values.size and not always and _below_2_53(values):
        return None  # the common case, without a Python loop over the rows
    elif values.dtype == object and values.size and all(
            (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)))
            or (isinstance(v, decimal.Decimal) and v.is_finite() and v == v.to_integral_value()) for v in values):
        try:
            arr = np.asarray([int(v) for v in values], dtype=np.int64)
        except OverflowError:
            raise _beyond_int64(name, hint) from None
    else:
        return None
    if arr.size == 0:
        return None
    lo, hi = int(arr.min()), int(arr.max())
    if hi > _INT64_MAX:
        raise _beyond_int64(name, hint)
    if not always and max(-lo, hi) <= FLOAT_EXACT:
        return None
    return arr.astype(np.int64, copy=False)


def _below_2_53(values: np.ndarray) -> bool:
    """True when every value of an object column is a number below 2**53 in magnitude (float64 holds
    such integers exactly; an integer of 2**53 + 1 or more reads as at least 2**53)."""
    try:
        with np.errstate(invalid="ignore", over="ignore"):
            x = values.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        return False
    return bool(np.all(np.abs(x) < FLOAT_EXACT))


def _beyond_int64(name: str, hint: str | None = None) -> VeracityError:
    return VeracityError(
        f"feature {name!r} holds integers beyond 2**63 - 1, which no level can hold exactly; they read as "
        f"identifiers: {hint or f'pass the column as text, e.g. {name}.astype(str)'}")


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _text(v: Any) -> str:
    """A level's key as text, the same whichever route handed the value back (it matches values to
    levels across routes, and a saved artifact holds a time as it): a numpy datetime/timedelta as the
    ``datetime`` / ``timedelta`` a lazy frame brings back (``2024-01-01 00:00:00``; nanoseconds'
    ``.item()`` would be a bare integer), a time with a zone as its UTC time without the offset,
    anything else as :func:`~veracity.core._keys.key_name` names it (``-0.0`` is ``0.0``, bytes
    ``b'..'``)."""
    if isinstance(v, (np.datetime64, np.timedelta64)):
        us = v.astype(f"{v.dtype.kind}8[us]")
        item = us.item()
        if us == v and not isinstance(item, int):
            return str(item)
        return str(v)
    if isinstance(v, datetime.datetime) and v.utcoffset() is not None:
        # an instant with a time zone, as an engine brings it back (in its session's zone): named by
        # its UTC time, as the in-memory frames' datetime64 values are, so every backend agrees
        return str(v.astimezone(datetime.timezone.utc).replace(tzinfo=None))
    return key_name(_plain(v))


def _shown(v: Any) -> str:
    """A level's printed label, as ``vc.audit(..., by=)`` names the same value's slice
    (:func:`~veracity.core._keys.key_name`): a time with a zone as its UTC instant, with the offset
    written (10:00 in Paris is ``2026-01-01 09:00:00+00:00``, whichever zone a route hands it back
    in); ``datetime64`` as the ``date``/``datetime`` a frame hands back (``2026-01-01``,
    ``2026-01-01 10:00:00``, nine decimals below a microsecond); ``-0.0`` as ``0.0``; bytes as
    ``b'..'``. :func:`_text` (UTC, no offset) stays the key that matches values across routes; this
    is the text a person reads."""
    if isinstance(v, np.datetime64):
        unit = np.datetime_data(v.dtype)[0]
        if unit in ("Y", "M", "W", "D"):
            return str(v.astype("datetime64[D]").item())
        micro = v.astype("datetime64[us]")
        t = micro.item()
        if not isinstance(t, datetime.datetime):  # beyond datetime's years 1..9999: numpy's own text
            return str(v)
        if unit in ("ns", "ps", "fs", "as"):
            below = int((v - micro.astype(v.dtype)).astype(np.int64)) // {"ns": 1, "ps": 10**3, "fs": 10**6,
                                                                          "as": 10**9}[unit]
            if below:  # nine decimals, as a pandas Timestamp prints a time finer than a microsecond
                return f"{t:%Y-%m-%d %H:%M:%S}.{t.microsecond * 1000 + below:09d}"
        return str(t)
    if isinstance(v, datetime.datetime) and v.utcoffset() is not None:
        return key_name(v)
    return _text(v)


def _stored(v: Any) -> Any:
    """A level's value as JSON holds it: dates and times as their text (which :func:`_instant_codes`
    reads back), text, numbers and booleans as the plain Python value, anything else (bytes, a Python
    duration, ...) as its name, :func:`_text`, by which a level is found again (``save`` raised json's
    TypeError on bytes levels)."""
    if isinstance(v, (np.datetime64, datetime.date)):  # a datetime is a date too
        return _text(v)
    plain = _plain(v)
    return plain if isinstance(plain, (str, int, float, bool)) else _text(plain)


def missing_mask(raw: np.ndarray) -> np.ndarray:
    """True where a value is missing (None, NaN, NaT; a ``Decimal`` NaN too, as
    :func:`~veracity.core._keys.is_missing` reads it: it was a level that no sort could order)."""
    if raw.dtype.kind == "f":
        return np.isnan(raw)
    if raw.dtype.kind in "mM":
        return np.isnat(raw)
    if raw.dtype == object:
        if not any(_may_be_missing(t) for t in set(map(type, raw))):  # text, ints, dates: none missing
            return np.zeros(raw.shape[0], dtype=bool)
        # np.float32/np.float16 NaNs are no Python floats: test every numpy floating value as well
        return np.fromiter((v is None or (isinstance(v, (float, np.floating)) and math.isnan(v))
                            or (isinstance(v, decimal.Decimal) and v.is_nan())
                            or type(v).__name__ in ("NAType", "NaTType")
                            for v in raw), dtype=bool, count=raw.size)
    return np.zeros(raw.shape[0], dtype=bool)


def _may_be_missing(kind: type) -> bool:
    """True for a type some of whose values :func:`missing_mask` reads as missing (None, floats, Decimals,
    pandas' NA and NaT): a column of none of them (strings, integers, dates) skips the per-value test."""
    return kind is type(None) or issubclass(kind, (float, np.floating, decimal.Decimal)) or \
        kind.__name__ in ("NAType", "NaTType")


def is_numeric_array(raw: np.ndarray) -> bool:
    return raw.dtype.kind in "iuf"


def _fmt(x: float, digits: int = 4) -> str:
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.{digits}g}"


def _fmt_distinct(xs: Any) -> dict[float, str]:
    """The text of each distinct number of ``xs``: 4 significant digits, more where two different
    numbers would otherwise read alike (0.10001 and 0.10002 are not both ``0.1``)."""
    u = sorted({float(x) for x in xs})
    for digits in (4, 6, 8, 10, 12, 14, 17):  # 17: every double reads back as itself
        out = {x: _fmt(x, digits) for x in u}
        if len(set(out.values())) == len(u):
            break
    return out


def quoted(text: str, *, level: bool = True) -> str:
    """A level (or, ``level=False``, a feature name) as a segment's text shows it: as it is, or in
    double quotes with JSON's escapes when it could be misread — empty, spaces at an end, a
    control character, ``=``, ``&`` or ``"`` in it (``region=EU & age=[30, 45)`` must parse one
    way), or a level spelled ``other`` / ``missing``, the names of the pooled and missing levels."""
    nfc = unicodedata.normalize("NFC", text) == text
    if (text and text == text.strip() and text.isprintable() and not any(c in text for c in '=&"')
            and not (level and text in (OTHER, MISSING)) and nfc):
        return text
    # JSON's escapes, and \uXXXX for what a terminal would not show as itself: an invisible or
    # direction-changing character (U+200B, U+202E reverses the rest of the line), and the combining
    # marks of text that is not in composed (NFC) form ("e" + U+0301 would print as "é", as "é" does)
    return "".join(c if c.isprintable() and (nfc or not unicodedata.combining(c)) else json.dumps(c)[1:-1]
                   for c in json.dumps(text, ensure_ascii=False))


def duration_error(name: str) -> VeracityError:
    return VeracityError(
        f"feature {name!r} holds durations (timedelta); convert it to a number first, e.g. its total "
        "seconds, and it is cut into equal-mass bins like any numeric feature")


def distinct_counts(raw: np.ndarray, name: str = "", weights: np.ndarray | None = None,
                    ) -> tuple[np.ndarray, np.ndarray, int, bool, np.ndarray | None]:
    """``(values, counts, n_missing, numeric, masses)`` of an in-memory column (``name``: for messages);
    ``masses``: the total of ``weights`` (one per row of ``raw``) on each value of a numeric column (its
    weighted equal-mass cuts read them), ``None`` unweighted or for levels (text, dates), which are their
    values whatever the weights."""
    raw = np.asarray(raw)
    what = f"feature {name!r}" if name else "a feature"
    if raw.ndim != 1:
        raise VeracityError(f"{what} must be one column (1-D), got shape {raw.shape}")
    if raw.dtype.kind == "m":
        raise duration_error(name)
    missing = missing_mask(raw)
    present = raw[~missing] if missing.any() else raw
    w = None if weights is None else (np.asarray(weights, dtype=np.float64)[~missing] if missing.any()
                                      else np.asarray(weights, dtype=np.float64))
    numeric = is_numeric_array(raw) or (raw.dtype == object and present.size > 0 and all(
        isinstance(v, (int, float, np.integer, np.floating, decimal.Decimal)) and not isinstance(v, bool)
        for v in present[:1000]))
    ints = exact_ints(present, name or "feature") if numeric else None
    if ints is not None:  # integers beyond 2**53: float64 would merge neighbours into one level
        return _counted(ints, w, int(missing.sum()), True)
    if numeric and present.dtype == object:  # the first values were numbers: are they all?
        try:
            present = present.astype(np.float64)
        except (TypeError, ValueError):  # numbers mixed with text: levels by their text
            numeric = False
    if numeric:
        present = present.astype(np.float64)
        if not np.isfinite(present).all():
            raise VeracityError(f"numeric {what} holds infinite values; replace them or drop those rows")
        return _counted(present, w, int(missing.sum()), True)
    if present.dtype == object:
        if _bools_among_others(present):  # True == 1 to np.unique: levels by their names, as vc.audit's by=
            return _counted(key_names(present), None, int(missing.sum()), False)
        try:
            return _counted(present, None, int(missing.sum()), False)
        except TypeError:  # mixed types: levels by the names of their slices (-0.0 as 0.0, bytes b'..')
            return _counted(key_names(present), None, int(missing.sum()), False)
    return _counted(present, None, int(missing.sum()), False)


def _bools_among_others(values: np.ndarray) -> bool:
    """True where an object column holds booleans beside other values (numbers: ``[True, 1, 0, False]``).
    ``np.unique`` (and a dict) hold ``True == 1`` and ``False == 0``, so such a column had two levels whose
    rows the level codes, which tell ``1`` from ``True`` by name, could not find again: ``vc.segments``
    failed with numpy's "'list' argument must have no negative elements" and ``SegmentCalibration`` fitted
    no correction, where ``vc.audit(..., by=)`` names four slices (``True``, ``1``, ``0``, ``False``)."""
    is_bool = np.fromiter((isinstance(v, (bool, np.bool_)) for v in values), dtype=bool, count=values.size)
    return bool(is_bool.any() and not is_bool.all())


def _counted(present: np.ndarray, w: np.ndarray | None, n_missing: int, numeric: bool,
             ) -> tuple[np.ndarray, np.ndarray, int, bool, np.ndarray | None]:
    if w is None:
        values, counts = np.unique(present, return_counts=True)
        return values, counts, n_missing, numeric, None
    values, inverse, counts = np.unique(present, return_inverse=True, return_counts=True)
    masses = np.bincount(np.asarray(inverse).ravel(), weights=w, minlength=values.size)
    return values, counts, n_missing, numeric, masses
