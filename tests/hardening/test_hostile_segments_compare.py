"""Frame forms of vc.segments / vc.compare_models / vc.murphy_diagram: silent wrong answers and raw
tracebacks found by feeding one dataset to every backend and hostile inputs (each case failed before).

* a Dask frame's missing string/boolean feature values (pandas' ``NA``) became a level ``"<NA>"`` of no
  rows, and the missing rows fell out of every segment;
* a datetime feature with a missing value (NaT) in an in-memory frame was binned as nanosecond numbers
  (``"7.889e+17"``), while the array form kept its dates as levels; the array form labelled dates as
  bare nanosecond integers (``"1704067200000000000"``) where a lazy frame says ``2024-01-01 00:00:00``;
* a duration (timedelta) feature: a DuckDB relation raised ``TypeError: unhashable type``;
* ``vc.compare_models`` on two or three rows raised ``ZeroDivisionError`` (a Poisson resample that drew
  no row); with one row of a class DeLong's variance is undefined but the AUC p-value read 0.0;
* ``vc.compare_models(..., by=keys)`` with NaN keys (array form) dropped those rows: each NaN its own
  empty slice, where every frame form makes one slice of the missing keys.
"""

import datetime

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(11)
N = 900
P = RNG.uniform(0.02, 0.98, N)
Q = np.clip(P + RNG.normal(0, 0.1, N), 0.001, 0.999)
Y = (RNG.uniform(size=N) < P).astype(int)
REGION = RNG.choice(["EU", "US", "APAC"], N)


def _rows(res):
    return sorted((r.segment, r.n, r.conf, r.rate) for r in res.rows)


def _same_rows(got, want):
    assert [r[:2] for r in got] == [r[:2] for r in want]
    np.testing.assert_allclose([r[2:] for r in got], [r[2:] for r in want], rtol=0, atol=1e-12)


def test_dask_missing_string_feature_is_the_missing_level():
    dd = pytest.importorskip("dask.dataframe")
    region = REGION.astype(object)
    region[::5] = None
    want = vc.segments(P, Y, features={"region": region}, min_count=20)
    df = pd.DataFrame({"p": P, "y": Y, "region": pd.array(region, dtype="string")})
    got = vc.segments(dd.from_pandas(df, npartitions=3), score="p", label="y", features=["region"], min_count=20)
    assert "region=missing" in [r.segment for r in got.rows]
    assert sum(r.n for r in got.rows) == N  # no row lost
    _same_rows(_rows(got), _rows(want))
    assert got.mce == pytest.approx(want.mce, abs=1e-12)


def test_datetime_feature_with_nat_stays_levels_in_a_frame():
    days = (np.datetime64("1995-01-01") + (np.arange(N) % 5).astype("timedelta64[D]")).astype("datetime64[ns]")
    days[::11] = np.datetime64("NaT")
    want = vc.segments(P, Y, features={"day": days}, min_count=20)
    got = vc.segments(pd.DataFrame({"p": P, "y": Y, "day": days}), score="p", label="y", features=["day"],
                      min_count=20)
    assert got.levels["day"] == want.levels["day"]
    _same_rows(_rows(got), _rows(want))


def test_datetime_levels_read_as_dates_on_every_form():
    days = (np.datetime64("2024-01-01") + (np.arange(N) % 4).astype("timedelta64[D]")).astype("datetime64[ns]")
    res = vc.segments(P, Y, features={"day": days}, min_count=20)
    assert res.levels["day"] == [str(datetime.datetime(2024, 1, 1 + k)) for k in range(4)]
    pl = pytest.importorskip("polars")
    lazy = vc.segments(pl.DataFrame({"p": P, "y": Y, "day": days}).lazy(), score="p", label="y",
                       features=["day"], min_count=20)
    assert lazy.levels == res.levels
    _same_rows(_rows(lazy), _rows(res))


def test_duration_feature_is_one_line_error_everywhere():
    dur = (np.arange(N) % 6).astype("timedelta64[s]").astype("timedelta64[ns]")
    df = pd.DataFrame({"p": P, "y": Y, "dur": dur})
    frames = [df]
    duckdb = pytest.importorskip("duckdb")
    frames.append(duckdb.from_df(df))
    with pytest.raises(vc.VeracityError, match="feature 'dur' holds durations"):
        vc.segments(P, Y, features={"dur": dur})
    for frame in frames:
        with pytest.raises(vc.VeracityError, match="feature 'dur' holds durations"):
            vc.segments(frame, score="p", label="y", features=["dur"])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_compare_models_on_a_few_rows_is_no_traceback(n):
    p, q, y = np.array([0.2, 0.7, 0.4, 0.5])[:n], np.array([0.3, 0.6, 0.1, 0.9])[:n], np.array([0, 1, 1, 0])[:n]
    res = vc.compare_models({"a": p, "b": q}, y, random_state=0)
    brier = next(r for r in res.rows if r.metric == "brier")
    assert brier.diff == pytest.approx(np.mean((q - y) ** 2) - np.mean((p - y) ** 2), abs=1e-12)


def test_auc_p_value_is_nan_when_delong_has_no_variance():
    # one negative: DeLong's variance (n0 - 1 in the denominator) is undefined, so is the test
    res = vc.compare_models({"a": [0.2, 0.7, 0.4], "b": [0.3, 0.6, 0.1]}, [0, 1, 1], n_resamples=0)
    auc = next(r for r in res.rows if r.metric == "auc")
    assert auc.diff == pytest.approx(-0.5)
    assert np.isnan(auc.se) and np.isnan(auc.p_value)
    m = vc.murphy_diagram({"a": [0.2], "b": [0.3]}, [1], theta=[0.25, 0.5])  # one row: no variance either
    assert np.isnan(m.differences[0].p_value).all()


def test_compare_by_with_nan_keys_matches_the_frame_form():
    age = (RNG.integers(18, 80, N) // 20).astype(float)
    age[::7] = np.nan
    want = vc.compare_models(pd.DataFrame({"p": P, "q": Q, "y": Y, "age": age}), scores=["p", "q"], label="y",
                             by="age", random_state=0, n_resamples=20)
    got = vc.compare_models({"p": P, "q": Q}, Y, by=age, random_state=0, n_resamples=20)
    assert {k: g.n for k, g in got.groups.items()} == {k: g.n for k, g in want.groups.items()}
    assert got.groups["(missing)"].n == int(np.isnan(age).sum())
    assert not any("0 rows" in note for note in got.notes)
    for key, g in want.groups.items():
        for a, b in zip(got.groups[key].rows, g.rows):
            assert a.diff == pytest.approx(b.diff, abs=1e-12)


def test_cli_compare_by_keeps_missing_keys_as_one_slice(tmp_path, capsys):
    """`veracity compare --by` with empty keys: a slice '(missing)', as vc.compare_models makes on the
    frame (the command refused the column in one line)."""
    import json

    from veracity.cli import main

    rng = np.random.default_rng(21)
    n = 600
    y = (rng.random(n) < 0.4).astype(int)
    df = pd.DataFrame({"p": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1), "q": rng.random(n), "y": y,
                       "age": np.where(rng.random(n) < 0.1, None, rng.choice(["young", "old"], n))})
    path = tmp_path / "cmp.csv"
    df.to_csv(path, index=False)
    assert main(["compare", str(path), "--score", "p", "--against", "q", "--label", "y", "--by", "age",
                 "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = vc.compare_models(pd.read_csv(path), scores=["p", "q"], label="y", by="age")
    assert list(doc["groups"]) == list(want.groups) == ["old", "young", "(missing)"]
    none = doc["groups"]["(missing)"]["comparison"]
    assert [r["metric"] for r in none] == [r.metric for r in want.groups["(missing)"].rows]
    assert [r["diff"] for r in none] == pytest.approx([r.diff for r in want.groups["(missing)"].rows], rel=1e-12)
