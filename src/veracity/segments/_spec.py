"""How one feature's values become integer level codes: :class:`FeatureSpec`, in numpy
(:meth:`FeatureSpec.codes`) and as a narwhals expression computed where the data lives
(:meth:`FeatureSpec.expr`) — the same codes on every backend."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core._keys import key_names
from ..core._validation import VeracityError
from ._values import FLOAT_EXACT, _plain, _stored, _text, exact_ints, missing_mask


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
        if self.kind in ("bins", "values") and raw.dtype.kind not in "iufb":
            # text such as "nan" reads as the number NaN: a missing value, as a float NaN is (else it
            # would sort above every cut into the top bin, or miss every level)
            x = self._numbers(np.where(missing, 0, raw) if missing.any() else raw)
            if x.dtype.kind == "f" and np.isnan(x).any():
                missing = missing | np.isnan(x)
                raw = np.where(missing, 0, x)
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

    def expr(self, col: str, *, ns_backend: str | None = None) -> Any:
        """The level code as a narwhals expression (the same codes, computed where the data lives).

        ``ns_backend``: the backend (``"polars"``, ``"duckdb"``, ``"dask"``) of a nanosecond datetime
        column, whose levels are then compared exactly (:func:`_ns_levels`): a Python ``datetime``
        literal holds microseconds, so levels 1 ns apart would read as one."""
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
        elif ns_backend is not None:
            x, keys = _ns_levels(c, self.values, ns_backend)
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


def epoch_ns(v: Any) -> int:
    """An instant as integer nanoseconds since 1970-01-01 (a time without a zone: its wall time as if
    in UTC; with a zone: its UTC instant), exactly: an integer (already nanoseconds, as a level of a
    ``datetime64[ns]`` column holds it), a ``numpy.datetime64``, a pandas ``Timestamp`` (nanoseconds
    kept), a ``datetime``, or a time's text (a saved artifact)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, _dt.datetime) and v.utcoffset() is not None:
        v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    if type(v).__name__ == "Timestamp" and hasattr(v, "value"):  # pandas: the ns integer itself
        return int(v.value)
    if isinstance(v, _dt.datetime):  # exact integer arithmetic (a float of seconds would round)
        d = v - _dt.datetime(1970, 1, 1)
        return (d.days * 86_400 + d.seconds) * 10**9 + d.microseconds * 1_000
    return int(np.datetime64(v).astype("datetime64[ns]").astype(np.int64))


def _ns_levels(c: Any, values: tuple[Any, ...], backend: str) -> tuple[Any, list[Any]]:
    """A nanosecond datetime column and its levels in a form compared exactly where the data lives
    (a ``datetime`` literal holds microseconds only):

    * polars, Dask: the column cast to Int64 (its integer nanoseconds since 1970, a zoned column's in
      UTC) beside integer literals; not ``dt.timestamp("ns")``, which Dask returns as float64 when the
      column has a null (2**53 and beyond: neighbours 1 ns apart merge);
    * DuckDB (no cast from TIMESTAMP_NS to BIGINT, no ``dt.timestamp`` in narwhals): the column
      beside TIMESTAMP_NS literals cast from their nine-decimal text (a zoned TIMESTAMPTZ_NS column
      is already read as microseconds, :func:`~veracity.sources._source._duckdb_readable`);
    * any other engine: ``dt.timestamp("ns")``, exact where narwhals has it, an error where not."""
    import narwhals as nw

    ns = [epoch_ns(v) for v in values]
    zoned = any(isinstance(v, _dt.datetime) and v.utcoffset() is not None for v in values)
    if backend == "duckdb" and not zoned:
        text = [str(np.datetime64(v, "ns")).replace("T", " ") for v in ns]
        return c, [nw.lit(t, nw.String).cast(nw.Datetime("ns")) for t in text]
    x = c.cast(nw.Int64) if backend in ("polars", "dask") else c.dt.timestamp("ns")
    return x, [nw.lit(v, nw.Int64) for v in ns]


def _instant_codes(vals: np.ndarray, values: tuple[Any, ...], fill: int) -> np.ndarray:
    """Level codes of datetime64 ``vals``: each matched as an instant to a level's value, whatever
    its unit or form — ``datetime``, ``numpy.datetime64``, nanoseconds as an integer, or the text
    a saved artifact holds."""
    try:
        # integers: nanoseconds; an instant with a zone: its UTC nanoseconds (numpy warns on the zone)
        keys = np.array([np.datetime64(epoch_ns(v), "ns") if isinstance(v, (int, np.integer)) or (
            isinstance(v, _dt.datetime) and v.utcoffset() is not None) else v for v in values], dtype="datetime64")
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
        names, first, inv = np.unique(key_names(vals), return_index=True, return_inverse=True)
        text = {_text(k): i for k, i in lookup.items()}
        # a level held as integer nanoseconds (a datetime64[ns] column's level, as an artifact fitted on
        # a frame before zoned times were read as instants in their zone holds it) matches that instant
        instants = {_text(np.datetime64(k, "ns")): i for k, i in lookup.items()
                    if isinstance(k, int) and not isinstance(k, bool)}
        text = {**instants, **text}
        # or by its name: levels of a column of mixed types are the names of their values (a zoned
        # time's is its UTC instant with +00:00, its text that instant without the offset)
        by_name = {str(k): i for k, i in lookup.items() if isinstance(k, str)}
        table = np.array([text.get(_text(vals[i]), by_name.get(name, _by_whole(text, vals[i], fill)))
                          for i, name in zip(first, names)], dtype=np.int64)
        return table[inv.reshape(-1)]
    uniq, inv = np.unique(vals, return_inverse=True)
    # a value that is not itself a level may be one by its text: the integer 7 where the levels were
    # found as the text "7" (a CSV read another way, a saved artifact) -- never silently no level
    text = {_text(k): i for k, i in lookup.items()}
    table = np.array([lookup.get(_plain(u), text.get(_text(u), _by_whole(text, u, fill))) for u in uniq],
                     dtype=np.int64)
    return table[inv.reshape(-1)]


def _by_whole(text: dict[str, int], v: Any, fill: int) -> int:
    """The level of a whole float by its integer's text, ``7.0`` by ``"7"``: the level ``"7"`` (text, as a
    CSV read as text finds it) of the same column read as numbers where a missing value made it float
    (pandas' integer column with a NaN) -- whose ``"7.0"`` found no level, and every row went uncorrected,
    silently. ``fill`` for any other value."""
    v = _plain(v)
    if isinstance(v, float) and v.is_integer() and abs(v) <= FLOAT_EXACT:
        return text.get(str(int(v)), fill)
    return fill
