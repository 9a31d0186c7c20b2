r"""The segment family: levels of each feature, and their intersections up to a depth.

A **feature** becomes a short list of levels, the same on every backend because
the levels are found from per-value counts (one small aggregate per feature):

* a categorical feature (strings, booleans, categories) keeps its levels with at
  least ``min_count`` rows, at most ``max_levels`` of them (the largest); every
  other level is pooled into one level ``"other"`` — so a column of 100,000 ids
  gives at most ``max_levels + 1`` segments, never 100,000;
* a numeric feature with at most ``bins`` distinct values keeps each value as a
  level; otherwise it is cut into ``bins`` **equal-mass** bins: with the N
  non-missing values sorted, the cut points are the values at positions
  :math:`\lfloor jN/B \rfloor`, :math:`j = 1 … B-1` (duplicate cuts dropped, so
  equal values are never split and heavy ties give fewer bins); a value equal to a
  cut goes to the bin above it. Bins print as ``[lo, hi)`` (the last ``[lo, max]``);
* missing values are a level of their own (``"missing"``).

A **segment** is one level of each of up to ``depth`` features (depth 1: the
levels; depth 2: every pair of features, every pair of their levels; …). The
family is every such combination that holds at least one row; its size is checked
against ``max_segments`` before any aggregate runs.
"""

from __future__ import annotations

import datetime
import itertools
import json
import math
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core._binning import quantile_picks
from ..core._validation import VeracityError

#: most segments in one family (each costs one row per score cell in the aggregate)
MAX_SEGMENTS = 50_000
#: most distinct values of one feature whose counts are brought back from a lazy frame
MAX_DISTINCT = 1_000_000
OTHER = "other"
MISSING = "missing"
#: integers up to this magnitude are exact in float64; beyond it neighbours merge (2**53 + 1 -> 2**53)
FLOAT_EXACT = 2**53
_INT64_MAX = 2**63 - 1


def exact_ints(values: np.ndarray, name: str, *, always: bool = False) -> np.ndarray | None:
    """A numeric column's integers as int64 when float64 would merge some (any beyond 2**53; with
    ``always``, whenever they are integers); None when they are not integers, or float64 holds them.
    Integers beyond int64 (unsigned ids) are refused in one line: read them as text."""
    if values.dtype.kind in "iu":
        arr = values
    elif values.dtype == object and values.size and not always and _below_2_53(values):
        return None  # the common case, without a Python loop over the rows
    elif values.dtype == object and values.size and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values):
        try:
            arr = np.asarray([int(v) for v in values], dtype=np.int64)
        except OverflowError:
            raise _beyond_int64(name) from None
    else:
        return None
    if arr.size == 0:
        return None
    lo, hi = int(arr.min()), int(arr.max())
    if hi > _INT64_MAX:
        raise _beyond_int64(name)
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


def _beyond_int64(name: str) -> VeracityError:
    return VeracityError(
        f"feature {name!r} holds integers beyond 2**63 - 1, which no level can hold exactly; they read as "
        f"identifiers: pass the column as text, e.g. {name}.astype(str)")


@dataclass(frozen=True)
class FeatureSpec:
    """How one feature's values become integer level codes ``0 … n_levels - 1``.

    ``kind``: ``"category"`` (``values`` are the kept levels), ``"values"`` (a numeric
    feature with few distinct values, each a level) or ``"bins"`` (``cuts`` between
    equal-mass bins). ``other`` / ``missing``: the code of the pooled level and of
    missing values (``None`` when absent).
    """

    name: str
    kind: str
    values: tuple[Any, ...] = ()
    cuts: tuple[float, ...] = ()
    labels: tuple[str, ...] = ()
    other: int | None = None
    missing: int | None = None
    pooled: int = 0  # levels pooled into "other"
    low: float | None = None
    high: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def n_levels(self) -> int:
        return len(self.labels)

    @property
    def exact(self) -> bool:
        """True for integer levels or cut points beyond 2**53, which float64 cannot tell apart: they are
        compared as int64 (see :func:`exact_ints`)."""
        items = self.values if self.kind == "values" else self.cuts if self.kind == "bins" else ()
        return any(isinstance(v, int) and not isinstance(v, bool) and abs(v) > FLOAT_EXACT for v in items)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "values": [_stored(v) for v in self.values],
                "cuts": list(self.cuts), "labels": list(self.labels), "other": self.other,
                "missing": self.missing, "pooled": self.pooled, "low": self.low, "high": self.high}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FeatureSpec:
        return cls(name=str(d["name"]), kind=str(d["kind"]), values=tuple(d.get("values", ())),
                   cuts=tuple(c if isinstance(c, int) and not isinstance(c, bool) else float(c)
                              for c in d.get("cuts", ())), labels=tuple(d["labels"]),
                   other=d.get("other"), missing=d.get("missing"), pooled=int(d.get("pooled", 0)),
                   low=d.get("low"), high=d.get("high"))

    # -- codes of rows ------------------------------------------------------------------
    def codes(self, column: Any) -> np.ndarray:
        """Level code of every value of an in-memory column (numpy)."""
        raw = np.asarray(column)
        missing = missing_mask(raw)
        out = np.empty(raw.shape[0], dtype=np.int64)
        if self.kind == "bins":
            x = self._numbers(np.where(missing, 0, raw) if missing.any() else raw)
            out[:] = np.searchsorted(self._keys(self.cuts, x), x, side="right")
        else:
            fill = -1 if self.other is None else self.other
            out[:] = fill
            present = ~missing
            vals = raw[present]
            if self.kind == "values":
                vals = self._numbers(vals)
                keys = self._keys(self.values, vals)
                order = np.argsort(keys)
                pos = np.searchsorted(keys[order], vals)
                pos = np.minimum(pos, keys.size - 1)
                hit = keys[order][pos] == vals
                sub = np.where(hit, order[pos], fill)
            elif raw.dtype.kind == "M":
                sub = _instant_codes(vals, self.values, fill)
            else:
                lookup = {v: i for i, v in enumerate(self.values)}
                sub = _codes_by_unique(vals, lookup, fill)
            out[present] = sub
        if missing.any():
            out[missing] = -1 if self.missing is None else self.missing
        return out

    def _numbers(self, raw: np.ndarray) -> np.ndarray:
        """A numeric feature's values as float64 (as int64 when the levels are integers beyond 2**53 and
        so are the values), or one line saying they are not numbers."""
        if self.exact:
            ints = exact_ints(raw, self.name, always=True)
            if ints is not None:
                return ints
        try:
            return raw.astype(np.float64, copy=False)
        except (TypeError, ValueError):
            raise VeracityError(
                f"feature {self.name!r} has numeric levels ({self.labels[0]}, ...) but holds values that are not "
                f"numbers ({raw.dtype}); pass its numbers, as when the levels were found") from None

    @staticmethod
    def _keys(keys: tuple[Any, ...], x: np.ndarray) -> np.ndarray:
        """Levels or cut points in the dtype of the values they are compared with (int64 with int64:
        exact; numpy would compare int64 with uint64 or float64 through float64)."""
        if x.dtype == np.int64:
            return np.asarray(keys, dtype=np.int64)
        return np.asarray(keys, dtype=np.float64)

    def expr(self, col: str) -> Any:
        """The level code as a narwhals expression (the same codes, computed where the data lives)."""
        import narwhals as nw

        c = nw.col(col)
        miss = -1 if self.missing is None else self.missing
        exact = self.exact  # integers beyond 2**53: compared as the column's own integers
        if self.kind == "bins":
            x = c if exact else c.cast(nw.Float64)
            one, zero = nw.lit(1, nw.Int64), nw.lit(0, nw.Int64)
            code = zero
            for cut in self.cuts:
                bound = nw.lit(int(cut), nw.Int64) if exact else float(cut)
                code = code + nw.when(x >= bound).then(one).otherwise(zero)
            is_missing = x.is_null() if exact else x.is_null() | x.is_nan()
            return nw.when(is_missing.fill_null(True)).then(nw.lit(miss, nw.Int64)).otherwise(code)
        other = -1 if self.other is None else self.other
        x = c.cast(nw.Float64) if self.kind == "values" and not exact else c
        if self.kind == "values":
            keys: list[Any] = [nw.lit(int(v), nw.Int64) for v in self.values] if exact else [
                float(v) for v in self.values]
        else:
            keys = list(self.values)
        code = _chain(x, keys, other)
        if self.kind == "values" and exact:
            is_missing = c.is_null()
        elif self.kind == "values":
            is_missing = (x.is_null() | x.is_nan()).fill_null(True)
        else:
            is_missing = c.is_null()
        return nw.when(is_missing).then(nw.lit(miss, nw.Int64)).otherwise(code)


def _chain(x: Any, keys: list[Any], other: int) -> Any:
    """``CASE WHEN x = k0 THEN 0 WHEN x = k1 THEN 1 … ELSE other END`` (a plain chain of equality tests:
    cheaper per row than a lookup map on every engine)."""
    import narwhals as nw

    kept = [(i, k) for i, k in enumerate(keys) if k is not None]
    if not kept:
        return nw.lit(other, nw.Int64)
    i0, k0 = kept[0]
    expr = nw.when(x == k0).then(nw.lit(i0, nw.Int64))
    for i, k in kept[1:]:
        expr = expr.when(x == k).then(nw.lit(i, nw.Int64))
    return expr.otherwise(nw.lit(other, nw.Int64))


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _text(v: Any) -> str:
    """A level's label: its text, a numpy datetime/timedelta as the ``datetime`` / ``timedelta`` a lazy
    frame brings back (``2024-01-01 00:00:00``; nanoseconds' ``.item()`` would be a bare integer)."""
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
    return str(_plain(v))


def _stored(v: Any) -> Any:
    """A level's value as JSON holds it: dates and times as their text (which :func:`_instant_codes`
    reads back), everything else as the plain Python value."""
    if isinstance(v, (np.datetime64, datetime.date)):  # a datetime is a date too
        return _text(v)
    return _plain(v)


def _instant_codes(vals: np.ndarray, values: tuple[Any, ...], fill: int) -> np.ndarray:
    """Level codes of datetime64 ``vals``: each matched as an instant to a level's value, whatever
    its unit or form — ``datetime``, ``numpy.datetime64``, nanoseconds as an integer, or the text
    a saved artifact holds."""
    try:
        keys = np.array([np.datetime64(int(v), "ns") if isinstance(v, (int, np.integer)) else v for v in values],
                        dtype="datetime64")
    except (TypeError, ValueError):  # the levels are not instants: no value matches
        return np.full(vals.shape[0], fill, dtype=np.int64)
    if keys.size == 0:
        return np.full(vals.shape[0], fill, dtype=np.int64)
    unit = np.promote_types(keys.dtype, vals.dtype)  # the finer unit of the two
    keys, x = keys.astype(unit), vals.astype(unit)
    order = np.argsort(keys)
    pos = np.minimum(np.searchsorted(keys[order], x), keys.size - 1)
    return np.where(keys[order][pos] == x, order[pos], fill).astype(np.int64)


def _codes_by_unique(vals: np.ndarray, lookup: dict[Any, int], fill: int) -> np.ndarray:
    if vals.dtype == object:  # map through the text of each level (a saved artifact holds its text)
        _, first, inv = np.unique(vals.astype(str), return_index=True, return_inverse=True)
        text = {_text(k): i for k, i in lookup.items()}
        table = np.array([text.get(_text(vals[i]), fill) for i in first], dtype=np.int64)
        return table[inv.reshape(-1)]
    uniq, inv = np.unique(vals, return_inverse=True)
    # a value that is not itself a level may be one by its text: the integer 7 where the levels were
    # found as the text "7" (a CSV read another way, a saved artifact) -- never silently no level
    text = {_text(k): i for k, i in lookup.items()}
    table = np.array([lookup.get(_plain(u), text.get(_text(u), fill)) for u in uniq], dtype=np.int64)
    return table[inv.reshape(-1)]


def missing_mask(raw: np.ndarray) -> np.ndarray:
    """True where a value is missing (None, NaN, NaT)."""
    if raw.dtype.kind == "f":
        return np.isnan(raw)
    if raw.dtype.kind in "mM":
        return np.isnat(raw)
    if raw.dtype == object:
        return np.fromiter((v is None or (isinstance(v, float) and math.isnan(v)) or type(v).__name__ in ("NAType", "NaTType")
                            for v in raw), dtype=bool, count=raw.size)
    return np.zeros(raw.shape[0], dtype=bool)


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


def feature_spec(name: str, values: np.ndarray, counts: np.ndarray, n_missing: int, *, numeric: bool,
                 bins: int | list[float], min_count: int, max_levels: int) -> FeatureSpec:
    """The levels of one feature from its distinct (non-missing) ``values`` and their row ``counts``.

    The same function serves arrays and lazy frames, so both find the same levels.
    """
    values = np.asarray(values)
    counts = np.asarray(counts, dtype=np.int64)
    if numeric and values.dtype.kind in "iu" and not isinstance(bins, (list, tuple, np.ndarray)) and values.size \
            and max(-int(values.min()), int(values.max())) > FLOAT_EXACT:
        return _exact_spec(name, values, counts, n_missing, bins=int(bins))
    if numeric:
        by_value = np.argsort(values.astype(np.float64), kind="stable")
        v = values.astype(np.float64)[by_value]
        c = counts[by_value]
        if isinstance(bins, (list, tuple, np.ndarray)):
            try:
                cuts = np.unique(np.asarray(bins, dtype=np.float64))
            except (TypeError, ValueError):  # text, None, nested lists
                cuts = np.array([np.nan])
            if cuts.ndim != 1 or not np.isfinite(cuts).all() or cuts.size == 0:
                raise VeracityError(f"bins for feature {name!r} must be finite cut points, got {list(bins)!r}")
            return _binned(name, cuts, v, n_missing)
        if v.size == 0:
            raise VeracityError(f"feature {name!r} has no values (every row is missing); drop it from features=")
        if v.size == 1 and not n_missing:
            raise VeracityError(
                f"numeric feature {name!r} has one value ({_fmt(v[0])}) in every row; it splits nothing, "
                "drop it from features=")
        if v.size <= bins:
            shown = _fmt_distinct(v)
            value_labels = tuple(shown[float(x)] for x in v)
            spec_missing = len(value_labels) if n_missing else None
            return FeatureSpec(name, "values", values=tuple(float(x) for x in v),
                               labels=value_labels + ((MISSING,) if n_missing else ()), missing=spec_missing)
        cuts = quantile_picks(v, bins, counts=c)  # the values at the j/bins row positions
        cuts = cuts[cuts > v[0]]
        return _binned(name, cuts, v, n_missing)
    # categorical
    if isinstance(bins, (list, tuple, np.ndarray)):  # cut points would be ignored: say so
        raise VeracityError(f"{{param}} gives cut points for feature {name!r}, whose values are not numbers; its "
                            f"levels are its values: drop {name!r} from {{param}}", param="bins")
    keys = [_plain(x) for x in values]
    if not keys:  # as a numeric feature: missing everywhere splits nothing
        raise VeracityError(f"feature {name!r} has no values (every row is missing); drop it from features=")
    text = {k: _text(x) for k, x in zip(keys, values)}
    if len(keys) == 1 and not n_missing:  # as a numeric feature of one value: no segment but the whole
        raise VeracityError(
            f"feature {name!r} has one value ({text[keys[0]]!r}) in every row; it splits nothing, "
            "drop it from features=")
    order = sorted(range(len(keys)), key=lambda i: (-int(counts[i]), text[keys[i]]))
    kept = [i for i in order if counts[i] >= min_count][:max_levels]
    pooled = len(keys) - len(kept)
    if n_missing and n_missing < min_count:
        pooled += 1  # the few missing rows join "other"
    try:
        kept_values = sorted((keys[i] for i in kept))
    except TypeError:
        kept_values = sorted((keys[i] for i in kept), key=str)
    labels = [quoted(text[k]) for k in kept_values]
    other = None
    if pooled:
        other = len(labels)
        labels.append(OTHER)
    missing = None
    if n_missing:
        if n_missing >= min_count:
            missing = len(labels)
            labels.append(MISSING)
        else:
            missing = other
    return FeatureSpec(name, "category", values=tuple(kept_values), labels=tuple(labels), other=other,
                       missing=missing, pooled=pooled if other is not None else 0)


def _exact_spec(name: str, values: np.ndarray, counts: np.ndarray, n_missing: int, *, bins: int) -> FeatureSpec:
    """A numeric feature of integers beyond 2**53: levels and cut points kept as exact integers."""
    order = np.argsort(values, kind="stable")
    v = values.astype(np.int64)[order]
    c = counts[order]
    if v.size == 1 and not n_missing:
        raise VeracityError(f"numeric feature {name!r} has one value ({int(v[0])}) in every row; it splits "
                            "nothing, drop it from features=")
    if v.size <= bins:
        return FeatureSpec(name, "values", values=tuple(int(x) for x in v),
                           labels=tuple(str(int(x)) for x in v) + ((MISSING,) if n_missing else ()),
                           missing=v.size if n_missing else None)
    cuts = quantile_picks(v, bins, counts=c)
    bounds = [int(v[0]), *(int(x) for x in cuts[cuts > v[0]]), int(v[-1])]
    labels = [f"[{bounds[i]}, {bounds[i + 1]})" for i in range(len(bounds) - 2)]
    labels.append(f"[{bounds[-2]}, {bounds[-1]}]")
    missing = None
    if n_missing:
        missing = len(labels)
        labels.append(MISSING)
    return FeatureSpec(name, "bins", cuts=tuple(bounds[1:-1]), labels=tuple(labels), missing=missing,
                       low=bounds[0], high=bounds[-1])


def _binned(name: str, cuts: np.ndarray, v: np.ndarray, n_missing: int) -> FeatureSpec:
    lo, hi = float(v[0]), float(v[-1])
    bounds = [lo, *cuts.tolist(), hi]
    t = _fmt_distinct(bounds)
    labels = [f"[{t[bounds[i]]}, {t[bounds[i + 1]]})" for i in range(len(bounds) - 2)]
    labels.append(f"[{t[bounds[-2]]}, {t[bounds[-1]]}]")
    if cuts.size and cuts[0] <= lo:  # explicit cuts below every value: the first bin is empty
        labels[0] = f"< {t[bounds[1]]}"
    missing = None
    if n_missing:
        missing = len(labels)
        labels.append(MISSING)
    return FeatureSpec(name, "bins", cuts=tuple(float(c) for c in cuts), labels=tuple(labels),
                       missing=missing, low=lo, high=hi)


def duration_error(name: str) -> VeracityError:
    return VeracityError(
        f"feature {name!r} holds durations (timedelta); convert it to a number first, e.g. its total "
        "seconds, and it is cut into equal-mass bins like any numeric feature")


def distinct_counts(raw: np.ndarray, name: str = "") -> tuple[np.ndarray, np.ndarray, int, bool]:
    """``(values, counts, n_missing, numeric)`` of an in-memory column (``name``: for messages)."""
    raw = np.asarray(raw)
    what = f"feature {name!r}" if name else "a feature"
    if raw.ndim != 1:
        raise VeracityError(f"{what} must be one column (1-D), got shape {raw.shape}")
    if raw.dtype.kind == "m":
        raise duration_error(name)
    missing = missing_mask(raw)
    present = raw[~missing] if missing.any() else raw
    numeric = is_numeric_array(raw) or (raw.dtype == object and present.size > 0 and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in present[:1000]))
    ints = exact_ints(present, name or "feature") if numeric else None
    if ints is not None:  # integers beyond 2**53: float64 would merge neighbours into one level
        values, counts = np.unique(ints, return_counts=True)
        return values, counts, int(missing.sum()), True
    if numeric and present.dtype == object:  # the first values were numbers: are they all?
        try:
            present = present.astype(np.float64)
        except (TypeError, ValueError):  # numbers mixed with text: levels by their text
            numeric = False
    if numeric:
        present = present.astype(np.float64)
        if not np.isfinite(present).all():
            raise VeracityError(f"numeric {what} holds infinite values; replace them or drop those rows")
        values, counts = np.unique(present, return_counts=True)
    elif present.dtype == object:
        try:
            values, counts = np.unique(present, return_counts=True)
        except TypeError:  # mixed types: levels by their text
            values, counts = np.unique(present.astype(str), return_counts=True)
    else:
        values, counts = np.unique(present, return_counts=True)
    return values, counts, int(missing.sum()), numeric


# ---------------------------------------------------------------------------------------
# the family of segments
# ---------------------------------------------------------------------------------------
def check_features(features: Any) -> list[str]:
    if isinstance(features, str):
        return [features]
    if not isinstance(features, (list, tuple)) or not features:
        raise VeracityError(
            f"features= must name at least one column, in a list, e.g. features=['region', 'age']; got "
            f"{_short(features)}")
    names = [str(f) if not isinstance(f, str) else f for f in features]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise VeracityError(f"features= names {dup[0]!r} twice; name each feature once")
    return names


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, dict) else f"a dict of {len(value)} columns"
    return text if len(text) <= 80 else text[:77] + "..."


def check_depth(depth: Any, n_features: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise VeracityError(f"depth must be a positive integer (1: single features, 2: pairs), got {depth!r}")
    if depth > n_features:
        raise VeracityError(
            f"depth={int(depth)} needs at least {int(depth)} features but features= names {n_features}; "
            f"use depth={n_features} or name more features")
    return int(depth)


def feature_sets(n_features: int, depth: int) -> list[tuple[int, ...]]:
    """The grouping sets: ``()`` (every row), then each combination of 1 … depth features."""
    out: list[tuple[int, ...]] = [()]
    for d in range(1, depth + 1):
        out.extend(itertools.combinations(range(n_features), d))
    return out


def check_family_size(specs: list[FeatureSpec], depth: int, max_segments: int) -> int:
    """The largest possible number of segments (every row, and every combination of up to ``depth``
    features' levels); a one-line error beyond ``max_segments``. Counted without listing the grouping
    sets (sums of products of level counts, one feature at a time), so 40 features at depth 20 are
    refused at once, not after listing 10^11 combinations."""
    by_size = [1] + [0] * depth  # by_size[d]: segments of the combinations of d features so far
    for sp in specs:
        for d in range(depth, 0, -1):
            by_size[d] += by_size[d - 1] * sp.n_levels
    total = sum(by_size)
    if total > max_segments:
        worst = max(specs, key=lambda sp: sp.n_levels)
        raise VeracityError(
            f"the segment family is too large: up to {total:,} segments from {len(specs)} features at depth "
            f"{depth} (over max_segments={max_segments:,}); narrow it: fewer features, "
            f"depth=1, fewer bins or max_levels (feature {worst.name!r} has {worst.n_levels} levels)")
    return total


def strides(specs: list[FeatureSpec], s: tuple[int, ...]) -> list[int]:
    """Mixed-radix strides: the key of a segment of set ``s`` is Σ code_f · stride_f."""
    out, k = [], 1
    for i in reversed(s):
        out.append(k)
        k *= specs[i].n_levels
    return list(reversed(out))


def decode(specs: list[FeatureSpec], s: tuple[int, ...], keys: np.ndarray) -> np.ndarray:
    """(n, len(s)) level codes of combined keys."""
    out = np.empty((keys.size, len(s)), dtype=np.int64)
    rest = keys.astype(np.int64).copy()
    for j, i in reversed(list(enumerate(s))):
        L = specs[i].n_levels
        out[:, j] = rest % L
        rest //= L
    return out
