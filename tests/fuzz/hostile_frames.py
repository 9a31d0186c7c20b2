"""Hostile frames for the property-based fuzz of the frame forms and the CLI (issue 23).

One generated *case* is a small table (8–40 rows) plus what it means:

``names``
    the score, label and time column names, drawn from :data:`NAMES` — quotes,
    semicolons, SQL text, unicode, spaces, regex metacharacters (``^s.*$``, ``*``,
    ``p.*``), dots, commas, empty-ish names and case variants of one another;
``extras``
    0–2 unused columns: noise under another hostile name, a case variant of a used
    name (``P`` beside ``p``), an object column mixing ints and text, or an exact
    duplicate of a used name (which every form must refuse);
``score dtype``
    float64, float32, int 0/1, bool, text, categorical, decimal, nullable Float64 (with
    or without a missing value), an object column mixing floats and text, a NaN;
``label coding``
    0/1 int or float, bool, nullable Int64, ``"yes"``/``"no"`` (text or categorical)
    with or without ``pos_label="yes"``, -1/1 with or without ``pos_label=1``, and a
    missing label with and without ``pos_label``;
``time encoding``
    zone-aware in UTC or another zone (Tokyo, New York, Kathmandu, Chatham, St John's),
    naive ns/us, int64 epoch seconds, ISO text, and an object column mixing
    timestamps, text and ints. The instants sit within hours of month boundaries, so
    a wrong zone moves rows between periods.

The *reference* is the numpy array path on the same values: float64 scores (NaN
where a cell is missing or not a number), the labels as a numpy array in their
coding with the same ``pos_label``, and the UTC instants as ``datetime64[ns]``.
"""

from __future__ import annotations

import decimal
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import veracity as vc

#: hostile column names; every one must be matched literally (or refused in one line)
NAMES = [
    "p", "y", "ts", "P", "Y", "score", "label", 'a"b', "a'b", "a;b", 'x"; DROP TABLE t; --', "a b", " p", "p ",
    "\u5206\u6570", "\u00e9t\u00e9", "e\u0301", "\U0001f600", "^s.*$", "*", "p.*", "(p)", "[p]", "p|y", "$1",
    "#1", "?", "%s", "{p}", "\\", "a.b", "t.p", "a,b", "-p", "--score", "select", "NULL", "0", " ", "", "\t",
]
#: the names that broke a backend once (patterns, quotes, spaces DuckDB trimmed), drawn more often
SHARP = ["*", "^s.*$", "p.*", 'x"; DROP TABLE t; --', "p ", " p", "P", "a.b", "\u5206\u6570"]
#: names every backend can hold as they are (the empty-ish ones, renamed by some readers, are not)
LITERAL_SAFE = [n for n in NAMES if n.strip()]

SCORE_DTYPES = ["float64"] * 6 + ["float32", "float32", "int", "bool", "str", "category", "decimal", "nullable",
                "nullable_na", "object_mixed", "nan"]
LABEL_CODINGS = ["int01"] * 5 + ["float01", "bool", "bool", "nullable_int", "yesno_pos", "yesno_pos", "yesno", "category_pos",
                 "pm1_pos", "pm1", "missing", "missing_pos", "missing_text_pos"]
TIME_ENCODINGS = ["utc", "zone", "zone", "naive", "naive_us", "epoch_s", "iso", "mixed"]
ZONES = ["Asia/Tokyo", "America/New_York", "Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns"]
#: dtypes/codings whose columns every frame form must accept (the rest may be refused in one line)
GOOD_SCORES = {"float64", "float32", "int", "nullable"}
GOOD_LABELS = {"int01", "float01", "bool", "nullable_int", "yesno_pos", "pm1_pos", "category_pos"}
GOOD_TIMES = {"utc", "zone", "naive", "naive_us", "epoch_s"}


def fuzz(max_examples: int) -> settings:
    """Derandomised (the same examples every run), no example database, no deadline."""
    return settings(derandomize=True, deadline=None, database=None, max_examples=max_examples,
                    suppress_health_check=list(HealthCheck))


@dataclass
class Case:
    columns: list[tuple[str, Any]]
    score: str
    label: str
    time: str
    pos_label: Any
    score_dtype: str
    label_coding: str
    time_encoding: str
    #: the numpy path's inputs
    p: np.ndarray
    y: np.ndarray
    t: np.ndarray
    #: the used column names that appear twice
    duplicated: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)

    @property
    def good(self) -> bool:
        """Every form must give numbers here (plain types, literal-safe names, no duplicate)."""
        return (self.score_dtype in GOOD_SCORES and self.label_coding in GOOD_LABELS and not self.duplicated
                and all(n in LITERAL_SAFE for n in (self.score, self.label, self.time)))

    def uses_duplicate(self, fn: str) -> bool:
        """A column ``fn`` reads (the time column in vc.monitor only) has a duplicated name."""
        return bool(self.duplicated & {self.score, self.label, *((self.time,) if fn == "monitor" else ())})

    def pandas(self) -> Any:
        import pandas as pd

        frame = pd.concat([pd.Series(v, name=n).reset_index(drop=True) for n, v in self.columns], axis=1)
        frame.columns = [n for n, _ in self.columns]  # concat keeps duplicates; set them as written
        return frame

    def __repr__(self) -> str:
        return (f"Case(score={self.score!r}:{self.score_dtype}, label={self.label!r}:{self.label_coding} "
                f"pos_label={self.pos_label!r}, time={self.time!r}:{self.time_encoding}, "
                f"columns={[n for n, _ in self.columns]!r}, n={self.p.size})")


def _case_variant(name: str) -> str:
    swapped = name.swapcase()
    return swapped if swapped != name else name + "_"


@st.composite
def cases(draw: Any, names: tuple[str, str, str] | None = None, score_dtype: str | None = None,
          label_coding: str | None = None, time_encoding: str | None = None, extra: str | None = None) -> Case:
    """A hostile case; ``names`` (score, label, time), ``score_dtype``, ``label_coding``, ``time_encoding`` and
    ``extra`` (one unused column of that kind: noise, case, mixed, text or duplicate) fix those parts."""
    import pandas as pd

    n = draw(st.integers(8, 40))
    # the values come from a drawn seed (varied data in every example, even the simplest ones);
    # hypothesis draws the structure: names, dtypes, codings, encodings, extra columns
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = rng.integers(0, 1025, n)
    v = k / 1024.0  # exact in float32, float64 and decimal text
    y01 = (rng.random(n) < v).astype(np.int64)
    if draw(st.integers(0, 7)):  # mostly both classes (a single class is drawn now and then)
        y01[0], y01[-1] = 0, 1
    score, label, time = names or draw(st.lists(st.one_of(st.sampled_from(SHARP), st.sampled_from(NAMES)),
                                                min_size=3, max_size=3, unique=True))

    # -- scores ---------------------------------------------------------------------------
    sd = score_dtype or draw(st.sampled_from(SCORE_DTYPES))
    p = v.copy()
    bad = draw(st.integers(0, n - 1))
    if sd == "float64":
        col: Any = v
    elif sd == "float32":
        col = v.astype(np.float32)
    elif sd == "int":
        p = np.round(v)
        col = p.astype(np.int64)
    elif sd == "bool":
        p = (v >= 0.5).astype(float)
        col = v >= 0.5
    elif sd == "str":
        col = np.array([repr(float(x)) for x in v], dtype=object)
    elif sd == "category":
        col = pd.Categorical(v)
    elif sd == "decimal":
        col = np.array([decimal.Decimal(repr(float(x))) for x in v], dtype=object)
    elif sd == "nullable":
        col = pd.array(v, dtype="Float64")
    elif sd == "nullable_na":
        col = pd.array(v, dtype="Float64")
        col[bad] = pd.NA
        p[bad] = np.nan
    elif sd == "object_mixed":
        col = v.astype(object)
        col[bad] = "x"
        p[bad] = np.nan
    else:  # nan
        col = v.copy()
        col[bad] = np.nan
        p[bad] = np.nan
    columns: list[tuple[str, Any]] = [(score, col)]

    # -- labels ---------------------------------------------------------------------------
    lc = label_coding or draw(st.sampled_from(LABEL_CODINGS))
    pos_label: Any = None
    miss = draw(st.integers(0, n - 1))
    text = np.where(y01 == 1, "yes", "no").astype(object)
    if lc == "int01":
        ycol: Any = y01.astype(np.int64)
        y = ycol
    elif lc == "float01":
        ycol = y = y01.astype(float)
    elif lc == "bool":
        ycol = y = y01 == 1
    elif lc == "nullable_int":
        ycol, y = pd.array(y01, dtype="Int64"), y01.astype(float)
    elif lc in ("yesno", "yesno_pos"):
        ycol = y = text
        pos_label = "yes" if lc == "yesno_pos" else None
    elif lc == "category_pos":
        ycol, y, pos_label = pd.Categorical(text), text, "yes"
    elif lc in ("pm1", "pm1_pos"):
        ycol = y = np.where(y01 == 1, 1, -1).astype(np.int64)
        pos_label = 1 if lc == "pm1_pos" else None
    elif lc in ("missing", "missing_pos"):
        ycol = y = y01.astype(float)
        y[miss] = np.nan
        pos_label = 1 if lc == "missing_pos" else None
    else:  # missing_text_pos
        ycol = y = text.copy()
        y[miss] = None
        pos_label = "yes"
    columns.append((label, ycol))

    # -- times: instants within hours of a month boundary, in UTC -----------------------
    te = time_encoding or draw(st.sampled_from(TIME_ENCODINGS))
    month = rng.integers(0, 6, n)
    minutes = rng.integers(-14 * 60, 14 * 60 + 1, n)
    starts = np.array(["2026-01-01", "2026-02-01", "2026-03-01", "2026-04-01", "2026-05-01", "2026-06-01"],
                      dtype="datetime64[s]")
    t = (starts[month] + minutes * np.timedelta64(60, "s")).astype("datetime64[ns]")
    aware = pd.Series(pd.to_datetime(t).tz_localize("UTC"))
    if te == "utc":
        tcol: Any = aware
    elif te == "zone":
        tcol = aware.dt.tz_convert(draw(st.sampled_from(ZONES)))
    elif te == "naive":
        tcol = t
    elif te == "naive_us":
        tcol = t.astype("datetime64[us]")
    elif te == "epoch_s":
        tcol = t.astype("datetime64[s]").astype(np.int64)
    elif te == "iso":
        tcol = np.datetime_as_string(t, unit="s").astype(object)
    else:  # mixed: a timestamp, a text and an int in one object column
        tcol = np.datetime_as_string(t, unit="s").astype(object)
        tcol[0] = pd.Timestamp(t[0])
        tcol[-1] = int(t[-1].astype("datetime64[s]").astype(np.int64))
    columns.append((time, tcol))

    # -- unused columns --------------------------------------------------------------------
    duplicated: set[str] = set()
    for _ in range(1 if extra else draw(st.integers(0, 2))):
        kind = extra or draw(st.sampled_from(["noise", "noise", "case", "case", "mixed", "text", "duplicate"]))
        used = [c for c, _ in columns]
        if kind == "duplicate":
            name = draw(st.sampled_from([score, label, time]))
            duplicated.add(name)
        elif kind == "case":
            name = _case_variant(draw(st.sampled_from([score, label, time])))
        else:
            name = draw(st.sampled_from(NAMES))
        if name in used and kind != "duplicate":
            continue
        if kind == "mixed":
            values: Any = np.array([i if i % 2 else f"v{i}" for i in range(n)], dtype=object)
        elif kind == "text":
            values = np.array([f"t;'\"{i}" for i in range(n)], dtype=object)
        else:
            values = rng.integers(0, 1025, n) / 1024.0
        columns.insert(draw(st.integers(0, len(columns))), (name, values))
    return Case(columns, score, label, time, pos_label, sd, lc, te, p, y, t, frozenset(duplicated))


# -------------------------------------------------------------------------------------------
# the frame forms
# -------------------------------------------------------------------------------------------
FORMS = ["pandas", "polars", "lazy", "arrow", "duckdb", "parquet", "csv"]


_CONNECTION: list[Any] = []


def duckdb_connection() -> Any:
    """One in-memory DuckDB connection (time zone UTC) for every case's relation: a connection costs
    more to open than a small case costs to audit."""
    if not _CONNECTION:
        import duckdb

        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        _CONNECTION.append(con)
    return _CONNECTION[0]


def build(case: Case, form: str, tmp: Any) -> Any:
    """The case as ``form``; None when the library of that form cannot hold it (not veracity's concern)."""
    frame = case.pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if form == "pandas":
                return frame
            if form == "dask":  # (not in FORMS: a second per call; the sharp-names test runs it)
                import dask.dataframe as dd

                return None if frame.columns.duplicated().any() else dd.from_pandas(frame, npartitions=2)
            if form in ("polars", "lazy"):
                import polars as pl

                if frame.columns.duplicated().any():
                    return None  # polars holds no duplicated names
                out = pl.from_pandas(frame)
                return out.lazy() if form == "lazy" else out
            import pyarrow as pa

            # column by column: an Arrow table (and Parquet, and DuckDB) may hold duplicated names
            table = pa.Table.from_arrays(
                [pa.Table.from_pandas(frame.iloc[:, [i]], preserve_index=False).column(0)
                 for i in range(frame.shape[1])], names=[str(c) for c in frame.columns])
            if form == "arrow":
                return table
            if form == "duckdb":
                if case.duplicated:
                    return None  # DuckDB renames a duplicate (p_1) as it makes the relation: veracity sees distinct names
                return duckdb_connection().from_arrow(table)
            if form == "parquet":
                import pyarrow.parquet as pq

                path = tmp / "case.parquet"
                pq.write_table(table, path)
                return str(path)
        except Exception:  # noqa: BLE001 - the test's own construction failed: this form cannot hold the case
            if form != "csv":
                return None
    if form == "csv":
        path = tmp / "case.csv"
        frame.to_csv(path, index=False, float_format="%.17g")  # float32 written as its exact value
        return str(path)
    raise AssertionError(form)


# -------------------------------------------------------------------------------------------
# the functions, array and frame form
# -------------------------------------------------------------------------------------------
THRESHOLDS = [0.25, 0.5, 0.75]


def call(name: str, case: Case, data: Any = None) -> Any:
    """``vc.<name>`` on the numpy arrays (``data=None``) or on ``data`` (a frame form), as a dict/float."""
    opts: dict[str, Any] = {} if case.pos_label is None else {"pos_label": case.pos_label}
    if data is None:
        if name == "audit":
            return vc.audit(case.p, case.y, **opts).to_dict()
        if name == "ece":
            return vc.ece(case.p, case.y, **opts)
        if name == "threshold_table":
            return vc.threshold_table(case.p, case.y, THRESHOLDS, **opts).to_dict()
        return vc.monitor(case.p, case.y, case.t, freq="M", **opts).to_dict()
    cols = {"score": case.score, "label": case.label}
    if name == "audit":
        return vc.audit(data, **cols, **opts).to_dict()
    if name == "ece":
        return vc.ece(data, **cols, **opts)
    if name == "threshold_table":
        return vc.threshold_table(data, thresholds=THRESHOLDS, **cols, **opts).to_dict()
    return vc.monitor(data, **cols, periods=case.time, freq="M", **opts).to_dict()


FUNCTIONS = ["audit", "ece", "threshold_table", "monitor"]


def outcome(fn: Any) -> tuple[str, Any]:
    """``("ok", value)`` or ``("refused", message)``; any other exception propagates."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn()
        except vc.VeracityError as exc:
            return "refused", str(exc)


def same(a: Any, b: Any, path: str = "") -> str | None:
    """Where ``a`` and ``b`` differ (numbers to 1e-9 relative), or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(set(a) ^ set(b))}"
        for key in a:
            where = same(a[key], b[key], f"{path}.{key}")
            if where:
                return where
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items"
        for i, (x, z) in enumerate(zip(a, b)):
            where = same(x, z, f"{path}[{i}]")
            if where:
                return where
        return None
    number = (int, float, np.integer, np.floating)
    if isinstance(a, number) and isinstance(b, number) and not isinstance(a, bool) and not isinstance(b, bool):
        a, b = float(a), float(b)
        if (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            return None
        return f"{path}: {a!r} vs {b!r}"
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def one_line(message: str) -> bool:
    return "\n" not in message and "Traceback" not in message and bool(message.strip())
