"""Bad input to vc.segments gets one line saying what was wrong and how to fix it (issue 24)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

RNG = np.random.default_rng(0)
N = 3_000
P = RNG.uniform(0.05, 0.95, N)
Y = (RNG.uniform(size=N) < P).astype(int)
DF = pd.DataFrame({"p": P, "y": Y, "region": RNG.choice(["EU", "US"], N), "age": RNG.integers(18, 80, N),
                   "flat": np.full(N, 3.0), "id": np.arange(N).astype(str),
                   "one": np.full(N, "EU")})


def _one_line(exc):
    text = str(exc.value)
    assert "\n" not in text and text
    return text


def _duck():
    import duckdb

    con = duckdb.connect()
    con.register("t", DF)
    return con.sql("SELECT * FROM t")


@pytest.mark.parametrize("frame", [lambda: DF, _duck], ids=["pandas", "duckdb"])
@pytest.mark.parametrize("features, options, match", [
    (["region", "nope"], {}, r"column 'nope' not found; available columns: p, y, region"),
    (["flat"], {}, r"numeric feature 'flat' has one value \(3\) in every row; it splits nothing, drop it"),
    (["one"], {}, r"feature 'one' has one value \('EU'\) in every row; it splits nothing, drop it"),
    (["region", "age"], {"depth": 3}, r"depth=3 needs at least 3 features but features= names 2; use depth=2"),
    (["region"], {"depth": 0}, r"depth must be a positive integer"),
    (["region", "age"], {"bins": 200, "max_segments": 100},
     r"segment family is too large: up to .* segments .* narrow it: fewer features, depth=1, fewer bins"),
    ([], {}, r"features= must name at least one column"),
    (["region", "region"], {}, r"names 'region' twice"),
    (["region"], {"fdr": 0.0}, r"fdr must be in \(0, 1\)"),
    (["region"], {"min_count": 0}, r"min_count must be an integer >= 1"),
])
def test_one_line_errors(frame, features, options, match):
    with pytest.raises(vc.VeracityError, match=match) as exc:
        vc.segments(frame(), score="p", label="y", features=features, **options)
    _one_line(exc)


@pytest.mark.parametrize("frame", [lambda: DF, _duck], ids=["pandas", "duckdb"])
def test_a_feature_with_100000_levels_is_pooled_not_exploded(frame):
    n = 100_000
    rng = np.random.default_rng(1)
    p = rng.uniform(0.1, 0.9, n)
    df = pd.DataFrame({"p": p, "y": (rng.uniform(size=n) < p).astype(int), "user": np.arange(n).astype(str),
                       "region": rng.choice(["EU", "US"], n)})
    if frame is _duck:
        import duckdb

        con = duckdb.connect()
        con.register("t", df)
        data = con.sql("SELECT * FROM t")
    else:
        data = df
    res = vc.segments(data, score="p", label="y", features=["user", "region"])
    assert res.levels["user"] == ["other"]  # every id has one row: all pooled into one level
    assert res.n_segments <= 1 + 2 + 2
    assert any("100,000 of 100,000 levels pooled into 'other'" in note for note in res.notes)


def test_array_form_errors():
    with pytest.raises(vc.VeracityError, match=r"features= maps names to arrays"):
        vc.segments(P, Y, features=["region"])
    with pytest.raises(vc.VeracityError, match=r"feature 'g' has shape \(10,\) but there are 3000 scores"):
        vc.segments(P, Y, features={"g": np.zeros(10)})
    with pytest.raises(vc.VeracityError, match=r"needs labels"):
        vc.segments(P, features={"g": DF["region"]})
    with pytest.raises(vc.VeracityError, match=r"scores must be probabilities in \[0, 1\]"):
        vc.segments(P * 2, Y, features={"g": DF["region"].to_numpy()})


def test_lazy_bad_scores_name_the_column():
    df = DF.assign(p=DF["p"] * 2)
    import duckdb

    con = duckdb.connect()
    con.register("t", df)
    with pytest.raises(vc.VeracityError, match=r"column 'p' \(scores\) must be probabilities"):
        vc.segments(con.sql("SELECT * FROM t"), score="p", label="y", features=["region"])


def test_cli_errors(cli, refused, tmp_path):
    path = tmp_path / "scores.csv"
    DF.to_csv(path, index=False)
    refused(cli(["segments", path, "--score", "p", "--label", "y", "--features", "region,nope"]),
            r"input error: column 'nope' not found")
    refused(cli(["segments", path, "--score", "p", "--label", "y", "--features", "region", "--depth", "2"]),
            r"(depth=2|--depth 2) needs at least 2 features")  # the CLI may spell the option as its flag


def test_an_unreadable_file_is_one_line(cli, refused, tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1garbage")
    refused(cli(["segments", bad, "--features", "region"]), r"input error: could not read .*bad\.parquet")
    with pytest.raises(vc.VeracityError, match=r"could not read"):
        vc.segments(str(bad), score="score", label="label", features=["region"])


@pytest.mark.parametrize("frame", ["pandas", "duckdb"])
def test_one_value_and_missing_rows_split_present_from_missing(frame):
    """A numeric feature of one value with missing rows splits them (it was refused as "one
    value in every row"): the same segments as the text feature of that value and None."""
    rng = np.random.default_rng(4)
    present = rng.uniform(size=N) < 0.6
    df = pd.DataFrame({"p": P, "y": Y, "flag": np.where(present, 1.0, np.nan),
                       "text": np.where(present, "1", None)})
    if frame == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.register("t", df)
        df = con.sql("SELECT * FROM t")
    numeric = vc.segments(df, score="p", label="y", features=["flag"], min_count=1)
    text = vc.segments(df, score="p", label="y", features=["text"], min_count=1)
    got = {r.features["flag"]: (r.n, r.gap, r.p_value) for r in numeric.rows}
    assert got == {r.features["text"]: (r.n, r.gap, r.p_value) for r in text.rows}
    assert got["1"][0] == int(present.sum()) and got["missing"][0] == int((~present).sum())
    gap = Y[present].mean() - P[present].mean()
    assert got["1"][1] == pytest.approx(gap, rel=1e-12)
