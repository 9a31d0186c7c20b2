"""One feature column, every input kind: the same levels, names and codes (session 21).

``vc.segments`` and ``vc.SegmentCalibration`` take a feature as an array (``features={"x": column}``:
a pandas Series, a polars Series, a pyarrow array, a numpy array) or as a frame's column (pandas,
polars, pyarrow). A pandas time with a zone was read as ``Timestamp`` objects in the array form and
as UTC ``datetime64`` in the frame forms (and a polars / pyarrow one as UTC ``datetime64`` in the
array form, named without the ``+00:00`` the frame form writes): a calibrator fitted on a frame and
applied to ``features={"tz": df["tz"]}`` matched no level and gave the base calibrator's
probabilities, up to 0.2 apart from the frame's; fitted on the Series and applied to a frame, numpy
warned. The definition checked here: whichever form holds the column, ``vc.segments`` gives the same
segments (names, rows, gaps) and every fit/transform pair gives bit-identical probabilities.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

N = 900
_RNG = np.random.default_rng(21)
K = _RNG.integers(0, 3, N)
MISS = _RNG.uniform(size=N) < 0.1
P = _RNG.uniform(0.05, 0.95, N)
Y = (_RNG.uniform(size=N) < np.clip(P + 0.2 * (K == 1), 0, 1)).astype(np.int64)  # level 1 is off by 0.2
_T = pd.Series(pd.Timestamp("2026-01-01 10:00") + pd.to_timedelta(K, unit="D"))
_TEXT = np.array(["a", "b", "c"])[K]


def _pandas_columns():
    return {
        "tz_ns": _T.dt.tz_localize("Europe/Paris"),
        "tz_us": _T.dt.tz_localize("Europe/Paris").astype("datetime64[us, Europe/Paris]"),
        "tz_ms_missing": _T.where(~MISS).dt.tz_localize("America/New_York")
        .astype("datetime64[ms, America/New_York]"),
        "tz_utc": _T.dt.tz_localize("UTC"),
        "naive_ns": _T,
        "naive_us_missing": _T.where(~MISS).astype("datetime64[us]"),
        "naive_ms": _T.astype("datetime64[ms]"),
        "date": pd.Series([d.date() for d in _T], dtype=object),
        "categorical_missing": pd.Series(pd.Categorical(np.where(MISS, None, _TEXT))),
        "string_missing": pd.Series(np.where(MISS, None, _TEXT), dtype="string"),
        "object_none": pd.Series(np.where(MISS, None, _TEXT), dtype=object),
        "Int64_missing": pd.Series(np.where(MISS, None, K), dtype="Int64"),
        "boolean_missing": pd.Series(np.where(MISS, None, K == 1), dtype="boolean"),
        "float_nan": pd.Series(np.where(MISS, np.nan, K * 1.5)),
        "float_many_nan": pd.Series(np.where(MISS, np.nan, np.random.default_rng(3).normal(size=N))),
    }


def _forms(col):
    """Every way a user holds the column: ``(kind, object)`` by name."""
    pdf = pd.DataFrame({"p": P, "y": Y, "x": col})
    plf = pl.from_pandas(pdf)
    tab = pa.Table.from_pandas(pdf, preserve_index=False)
    return {"pandas frame": ("frame", pdf), "pandas Series": ("array", col),
            "numpy": ("array", col.to_numpy()),
            "polars frame": ("frame", plf), "polars Series": ("array", plf["x"]),
            "pyarrow table": ("frame", tab), "pyarrow chunked": ("array", tab["x"]),
            "pyarrow array": ("array", tab["x"].combine_chunks())}


def _segments(kind, obj):
    if kind == "array":
        res = vc.segments(P, Y, features={"x": obj}, depth=1)
    else:
        res = vc.segments(obj, score="p", label="y", features=["x"], depth=1)
    return sorted((r.segment, r.n, r.gap) for r in res.rows)


def _fit(kind, obj):
    cal = vc.SegmentCalibration(features=["x"], depth=1)
    return cal.fit(P, Y, features={"x": obj}) if kind == "array" else cal.fit(obj, score="p", label="y")


def _transform(cal, kind, obj):
    return cal.transform(P, features={"x": obj}) if kind == "array" else cal.transform(obj, score="p")


COLUMNS = _pandas_columns()


@pytest.mark.parametrize("dtype", list(COLUMNS))
def test_segments_same_on_every_form(dtype):
    forms = _forms(COLUMNS[dtype])
    ref = _segments(*forms["pandas frame"])
    assert len(ref) >= 3
    for name, (kind, obj) in forms.items():
        assert _segments(kind, obj) == ref, name


@pytest.mark.parametrize("dtype", list(COLUMNS))
def test_fit_on_one_form_transform_on_another_is_bit_identical(dtype):
    forms = _forms(COLUMNS[dtype])
    ref = _transform(_fit(*forms["pandas frame"]), *forms["pandas frame"])
    # the correction is real: level 1 moves by several points, so a missed level cannot pass unseen
    if dtype != "float_many_nan":  # the others split by K
        assert np.abs(ref - vc.PlattScaling().fit(P, Y).transform(P)).max() > 0.05
    for fit_name, (fkind, fobj) in forms.items():
        cal = _fit(fkind, fobj)
        for cal_ in (cal, vc.load(cal.to_dict())):  # and the saved artifact
            for name, (kind, obj) in forms.items():
                got = _transform(cal_, kind, obj)
                np.testing.assert_array_equal(got, ref, err_msg=f"{fit_name} -> {name}")


def test_zoned_time_named_by_its_utc_instant_on_every_form():
    """The docs' naming: a time with a zone is its UTC instant with the offset written."""
    forms = _forms(COLUMNS["tz_ns"])
    for name, (kind, obj) in forms.items():
        assert [s for s, _, _ in _segments(kind, obj)] == [
            "x=2026-01-01 09:00:00+00:00", "x=2026-01-02 09:00:00+00:00", "x=2026-01-03 09:00:00+00:00"], name


def _polars_columns():
    t = pl.Series([pd.Timestamp("2026-03-27 00:30:01.000000123") + pd.Timedelta(days=int(i)) for i in K])
    t = t.cast(pl.Datetime("ns"))
    return {"enum": pl.Series(_TEXT, dtype=pl.Enum(["c", "b", "a"])),
            "categorical": pl.Series(_TEXT, dtype=pl.Categorical),
            "tz_ns_below_a_microsecond": t.dt.replace_time_zone("UTC").dt.convert_time_zone("Europe/Paris"),
            "tz_us_null": t.cast(pl.Datetime("us")).dt.replace_time_zone("Asia/Kolkata")
            .scatter([0, 5], None),
            "date": t.dt.date()}


@pytest.mark.parametrize("dtype", list(_polars_columns()))
def test_polars_native_dtypes_same_on_every_form(dtype):
    plf = pl.DataFrame({"p": P, "y": Y, "x": _polars_columns()[dtype]})
    forms = {"polars frame": ("frame", plf), "polars Series": ("array", plf["x"]),
             "polars lazy": ("frame", plf.lazy()),
             "pyarrow table": ("frame", plf.to_arrow()), "pyarrow": ("array", plf.to_arrow()["x"])}
    ref = _segments(*forms["polars frame"])
    for name, (kind, obj) in forms.items():
        got = _segments(kind, obj)
        assert [s[:2] for s in got] == [s[:2] for s in ref], name
        np.testing.assert_allclose([s[2] for s in got], [s[2] for s in ref], rtol=0, atol=1e-12, err_msg=name)
    eager = {k: v for k, v in forms.items() if k != "polars lazy"}
    want = _transform(_fit(*forms["polars frame"]), *forms["polars frame"])
    for fit_name, (fkind, fobj) in eager.items():
        cal = _fit(fkind, fobj)
        for name, (kind, obj) in eager.items():
            np.testing.assert_array_equal(_transform(cal, kind, obj), want, err_msg=f"{fit_name} -> {name}")


def test_durations_refused_on_every_form():
    plf = pl.DataFrame({"p": P, "y": Y, "x": pl.Series(K * 1000, dtype=pl.Int64).cast(pl.Duration("ms"))})
    for kind, obj in (("frame", plf), ("array", plf["x"]), ("frame", plf.to_pandas()),
                      ("array", plf.to_pandas()["x"]),
                      ("array", plf.to_pandas()["x"].to_numpy()), ("array", plf.to_arrow()["x"])):
        with pytest.raises(vc.VeracityError, match="holds durations"):
            _segments(kind, obj)
        with pytest.raises(vc.VeracityError, match="holds durations"):
            _fit(kind, obj)


def test_artifact_with_nanosecond_integer_levels_still_matches_zoned_times():
    """An artifact fitted on a frame before this fix holds a zoned time's levels as integer UTC
    nanoseconds: it still matches the same instants, read now as times in their zone."""
    forms = _forms(COLUMNS["tz_ns"])
    cal = _fit(*forms["pandas frame"])
    ref = _transform(cal, *forms["pandas frame"])
    state = cal.to_dict()
    spec = state["state"]["specs_"][0] if "state" in state else state["specs_"][0]
    spec["values"] = [int(np.datetime64(v, "ns").astype(np.int64)) for v in spec["values"]]
    old = vc.load(state)
    for name, (kind, obj) in forms.items():
        np.testing.assert_array_equal(_transform(old, kind, obj), ref, err_msg=name)


def test_naive_utc_instants_against_a_zoned_fit_match_without_a_warning():
    """numpy ``datetime64`` holding the UTC instants (``.dt.tz_convert(None)``) beside a fit on the zoned
    column: matched as instants; numpy's warning on a zoned value (an error in this suite) is not raised."""
    forms = _forms(COLUMNS["tz_ns"])
    cal = _fit(*forms["pandas Series"])
    ref = _transform(cal, *forms["pandas frame"])
    utc = COLUMNS["tz_ns"].dt.tz_convert(None).to_numpy()
    np.testing.assert_array_equal(cal.transform(P, features={"x": utc}), ref)
