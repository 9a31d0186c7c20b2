"""``SegmentCalibration.to_sql``: the base map, its logit and each segment's shift as one SQL expression,
run on DuckDB, SQLite and PostgreSQL, equal to ``transform()`` to 1e-12 on 10^5 rows (session 40).

The rows hold every level, the pooled "other" level (a rare level and values unseen at fit), NULL features,
NaN in the numeric features, values exactly on every bin's cut point and their neighbouring doubles, a
numeric value unseen at fit, scores at 0, 1, epsilon and ties, and text levels with quotes, a semicolon, a
backslash and unicode; the fit is depth 2 (pairs). BigQuery, Snowflake, Trino and Spark texts are parsed
back with sqlglot.
"""

from __future__ import annotations

import json
import sqlite3
import warnings
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import PROB_EPS, VeracityError
from veracity.export import DIALECTS, to_sql

TOL = 1e-12
N = 100_000
REGIONS = ["EU", "US", "O'Brien; DROP TABLE t; --", '日本 "東京"', "back\\slash */"]


def _fit_rows(n: int = 20_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Scores miscalibrated by region, by age and by region x age; a rare region (pooled into "other"),
    missing regions (a level of their own), NaN ages (the missing bin) and a few-valued numeric feature."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(n), 3)
    region = rng.choice(REGIONS + ["rare"], n, p=[0.3, 0.25, 0.2, 0.14, 0.108, 0.002]).astype(object)
    region[rng.random(n) < 0.02] = None
    age = rng.normal(40.0, 12.0, n)
    age[rng.random(n) < 0.03] = np.nan
    k = rng.integers(0, 3, n).astype(np.float64)
    z = np.log(np.clip(p, 1e-3, 1 - 1e-3) / (1 - np.clip(p, 1e-3, 1 - 1e-3)))
    shift = np.select([region == "EU", region == "US", region == REGIONS[2]], [0.8, -0.6, 0.4], 0.0)
    shift += np.where(np.isnan(age), 1.0, np.where(age > 45, -0.5, 0.3))
    # region x age: every other region up above 40 and down below, the rest the other way round
    r = np.array([REGIONS.index(v) if v in REGIONS else 5 for v in region])
    shift += 2.0 * np.where(r % 2 == 0, 1.0, -1.0) * np.where(age > 40, 1.0, -1.0) + 0.3 * k
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(z + shift)))).astype(np.int64)
    return p, y, {"region": region, "age": age, "k": k}


def _eval_rows(seg: Any, n: int = N, seed: int = 1) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """``(scores, features, age_null)``: ``age_null`` marks the NaN ages written as NULL (the others as
    NaN where the engine stores NaN)."""
    rng = np.random.default_rng(seed)
    age_spec = next(sp for sp in seg.specs_ if sp.name == "age")
    cuts = np.asarray(age_spec.cuts, dtype=np.float64)
    edges = np.concatenate([cuts, np.nextafter(cuts, -np.inf), np.nextafter(cuts, np.inf), [np.inf, -np.inf]])
    p = np.concatenate([[0.0, 1.0, PROB_EPS, 1 - PROB_EPS, 5e-324, 0.5], np.round(rng.random(n // 2), 3),
                        rng.random(n)])[:n]
    rng.shuffle(p)
    region = rng.choice(REGIONS + ["rare", "never seen", ""], n).astype(object)
    region[rng.random(n) < 0.05] = None
    age = rng.normal(40.0, 15.0, n)
    age[:edges.size * 20] = np.repeat(edges, 20)  # every cut, exactly and its neighbours
    age[rng.random(n) < 0.05] = np.nan
    k = rng.choice([0.0, 1.0, 2.0, 3.0, 1.5, -0.0], n)  # 3 and 1.5: unseen at fit
    k[rng.random(n) < 0.03] = np.nan
    perm = rng.permutation(n)
    age = age[perm]
    null = np.isnan(age) & (rng.random(n) < 0.5)
    return p, {"region": region, "age": age, "k": k}, null


@pytest.fixture(scope="module")
def seg() -> Any:
    p, y, feats = _fit_rows()
    cal = vc.SegmentCalibration(base="platt", features=["region", "age", "k"], depth=2, min_count=50)
    return cal.fit(p, y, features=feats, metadata={"fit_window": "2026-01..2026-03"})


@pytest.fixture(scope="module")
def rows(seg) -> dict[str, Any]:
    p, feats, null = _eval_rows(seg)
    return {"p": p, "feats": feats, "null": null, "want": seg.transform(p, features=feats)}


def _check(got: np.ndarray, want: np.ndarray, engine: str) -> None:
    got = np.asarray(got, dtype=np.float64)
    err = np.abs(got - want)
    bad = np.flatnonzero(~(err <= TOL))
    assert bad.size == 0, (f"{engine}: {bad.size} rows differ from transform(); first row {bad[0]}: "
                           f"{got[bad[0]]!r} vs {want[bad[0]]!r}")


def _frame(rows: dict[str, Any]) -> Any:
    import pyarrow as pa

    f = rows["feats"]
    return pa.table({"id": np.arange(N, dtype=np.int64), "p": rows["p"],
                     "region": pa.array(f["region"].tolist(), pa.string()),
                     "age": pa.array(f["age"], pa.float64(), mask=rows["null"]),
                     "k": pa.array(f["k"], pa.float64())})


def _fit_has_what_the_rows_test(seg: Any, rows: dict[str, Any]) -> None:
    """The engines are judged on a fit with corrections on single features and on pairs, a pooled "other"
    level, a missing level, bins, and rows that reach every level of every feature and none (-1)."""
    sets = [tuple(c["set"]) for c in seg.corrections_ if c["keys"]]
    assert any(len(s) == 1 for s in sets) and any(len(s) == 2 for s in sets), sets
    spec = {sp.name: sp for sp in seg.specs_}
    assert spec["region"].other is not None and spec["region"].missing is not None
    assert spec["age"].kind == "bins" and spec["age"].missing is not None and spec["k"].kind == "values"
    for sp in seg.specs_:
        codes = sp.codes(rows["feats"][sp.name])
        assert set(range(sp.n_levels)) <= set(codes.tolist()), sp.name
    assert (spec["k"].codes(rows["feats"]["k"]) == -1).any()  # unseen numbers: no level


def test_duckdb(seg, rows):
    duckdb = pytest.importorskip("duckdb")
    text = seg.to_sql("p", dialect="duckdb")
    _fit_has_what_the_rows_test(seg, rows)
    con = duckdb.connect()
    t = _frame(rows)
    con.register("t_arrow", t)
    con.execute("CREATE TABLE t AS SELECT * FROM t_arrow")
    assert con.execute("SELECT count(*) FROM t WHERE isnan(age)").fetchone()[0] > 0  # NaN and NULL both
    assert con.execute("SELECT count(*) FROM t WHERE age IS NULL").fetchone()[0] > 0
    got = con.execute(f'SELECT {text} AS q FROM t ORDER BY "id"').df()["q"].to_numpy(dtype=np.float64)
    _check(got, rows["want"], "duckdb")


def test_sqlite(seg, rows):
    con = sqlite3.connect(":memory:")
    if con.execute("SELECT sqlite_version()").fetchone()[0] < "3.35":
        pytest.skip("SQLite < 3.35 has no math functions (exp, ln)")
    text = seg.to_sql("p", dialect="sqlite")
    f = rows["feats"]
    con.execute('CREATE TABLE t ("id" INTEGER, "p" REAL, "region" TEXT, "age" REAL, "k" REAL)')
    age = [None if np.isnan(a) else float(a) for a in f["age"]]
    k = [None if np.isnan(v) else float(v) for v in f["k"]]
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                    zip(range(N), rows["p"].tolist(), f["region"].tolist(), age, k))
    got = np.array(con.execute(f'SELECT {text} FROM t ORDER BY "id"').fetchall(), dtype=np.float64)[:, 0]
    _check(got, rows["want"], "sqlite")


def test_postgres(seg, rows, postgres):
    import psycopg

    text = seg.to_sql("p", dialect="postgres")
    f = rows["feats"]
    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS seg_t")
        con.execute('CREATE TABLE seg_t ("id" bigint, "p" double precision, "region" text, '
                    '"age" double precision, "k" double precision)')
        age = [None if n else float(a) for a, n in zip(f["age"], rows["null"])]  # NULL and NaN both
        with con.cursor().copy('COPY seg_t ("id", "p", "region", "age", "k") FROM STDIN') as copy:
            for row in zip(range(N), rows["p"].tolist(), f["region"].tolist(), age, f["k"].tolist()):
                copy.write_row(row)
        got = np.array(con.execute(f'SELECT {text} FROM seg_t ORDER BY "id"').fetchall(),
                       dtype=np.float64)[:, 0]
        con.execute("DROP TABLE seg_t")
    _check(got, rows["want"], "postgres")


def test_other_dialects_parse_back(seg):
    """BigQuery, Snowflake, Trino and Spark SQL: parsed back (no engine here; one test, not one per dialect:
    a test id naming Spark starts its JVM, ~10 s)."""
    import sqlglot

    for dialect in ("bigquery", "snowflake", "trino", "spark"):
        text = seg.to_sql("p", dialect=dialect)
        tree = sqlglot.parse_one(text, read=dialect)
        assert isinstance(tree, sqlglot.exp.Case), dialect
        columns = {c.name for c in tree.find_all(sqlglot.exp.Column)}
        assert columns == {"p", "region", "age", "k"}, (dialect, columns)
        levels = {lit.this for lit in tree.find_all(sqlglot.exp.Literal) if lit.is_string}
        # quotes, a semicolon, a backslash, unicode: each level one literal, whole
        assert {"EU", REGIONS[2], REGIONS[3], REGIONS[4]} <= levels, dialect


def test_feature_columns_mapped_and_the_saved_artifact_exports_the_same(seg, rows, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    loaded = vc.load(seg.save(tmp_path / "seg.json"))
    for d in DIALECTS:
        assert loaded.to_sql("p", dialect=d) == seg.to_sql("p", dialect=d), d
    mapped = {"region": 'reg"ion; --', "age": "Âge"}
    text = seg.to_sql("p", dialect="duckdb", features=mapped)
    assert text == loaded.to_sql("p", dialect="duckdb", features=mapped)
    con = duckdb.connect()
    con.register("t_arrow", _frame(rows).rename_columns(["id", "p", 'reg"ion; --', "Âge", "k"]))
    got = con.execute(f'SELECT {text} AS q FROM t_arrow ORDER BY "id"').df()["q"].to_numpy(dtype=np.float64)
    _check(got, rows["want"], "duckdb (mapped columns)")
    with pytest.raises(VeracityError, match="features= names 'regio', which this calibrator does not read"):
        seg.to_sql("p", features={"regio": "x"})
    with pytest.raises(VeracityError, match="one column in duckdb"):
        seg.to_sql("p", features={"region": "AGE"})
    with pytest.raises(VeracityError, match="reads only its score column: drop features="):
        to_sql(vc.PlattScaling().fit([0.2, 0.8, 0.4, 0.6, 0.3], [0, 1, 1, 0, 0]), "p", features={"a": "b"})


def test_hostile_names_and_levels_cannot_inject():
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(3)
    n = 4000
    name = 'x"; DROP TABLE t; -- */'
    levels = np.array(["'); DROP TABLE t; --", 'a"b', "c`d", "e\\'f", "ünï ✓ 名前"], dtype=object)
    g = levels[rng.integers(0, levels.size, n)]
    g[:20], g[20:30] = "rare", None  # below min_count: both pooled into "other"
    p = rng.random(n)
    y = (rng.random(n) < np.clip(p + np.where(g == levels[0], 0.3, -0.1), 0, 1)).astype(int)
    seg = vc.SegmentCalibration(features=[name]).fit(p, y, features={name: g})
    assert seg.corrections_[0]["keys"] and seg.specs_[0].missing == seg.specs_[0].other is not None
    for d in DIALECTS:
        text = seg.to_sql("p", dialect=d)
        import sqlglot

        tree = sqlglot.parse_one(text, read=d)  # one expression: nothing after it
        assert isinstance(tree, sqlglot.exp.Case), d
        assert {lit.this for lit in tree.find_all(sqlglot.exp.Literal) if lit.is_string} >= set(levels), d
    import pyarrow as pa

    con = duckdb.connect()
    con.register("t_arrow", pa.table({"p": p, name: g.tolist()}))
    con.execute("CREATE TABLE t AS SELECT * FROM t_arrow")
    got = np.array(con.execute(f"SELECT {seg.to_sql('p', dialect='duckdb')} FROM t").fetchall())[:, 0]
    _check(got, seg.transform(p, features={name: g}), "duckdb (hostile)")
    assert con.execute("SELECT count(*) FROM t").fetchone()[0] == n
    shifted = seg.to_sql("p", dialect="duckdb", prior_shift=(0.3, 0.1))  # vc.adjust_prior after the map
    got = np.array(con.execute(f"SELECT {shifted} FROM t").fetchall())[:, 0]
    _check(got, vc.adjust_prior(seg.transform(p, features={name: g}), 0.3, 0.1), "duckdb (prior shift)")
    lite = sqlite3.connect(":memory:")
    lite.execute(f'CREATE TABLE t ("p" REAL, "{name.replace(chr(34), chr(34) * 2)}" TEXT)')
    lite.executemany("INSERT INTO t VALUES (?, ?)", list(zip(p.tolist(), g.tolist())))
    got = np.array(lite.execute(f"SELECT {seg.to_sql('p', dialect='sqlite')} FROM t").fetchall())[:, 0]
    _check(got, seg.transform(p, features={name: g}), "sqlite (hostile)")


def test_booleans_and_integers_beyond_2_53():
    """A boolean feature (TRUE/FALSE) and integer ids beyond 2**53 cut into bins compared exactly (as the
    column's own BIGINTs: float64 would merge neighbours), run on DuckDB and SQLite."""
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(5)
    n = 6000
    flag = rng.random(n) < 0.4
    big = 2**60 + rng.integers(0, 1000, n)
    p = rng.random(n)
    lift = np.where(flag, 0.2, -0.1) + np.where(big > 2**60 + 500, 0.1, -0.1)
    y = rng.random(n) < np.clip(p + lift, 0, 1)
    seg = vc.SegmentCalibration(features=["flag", "big"], depth=2).fit(p, y.astype(int),
                                                                      features={"flag": flag, "big": big})
    spec = {sp.name: sp for sp in seg.specs_}
    assert spec["big"].exact and spec["big"].kind == "bins"
    cut = int(spec["big"].cuts[1])
    big_eval = np.concatenate([[cut - 1, cut, cut + 1], big[3:]])  # on a cut: the bin above; 2**53 apart
    want = seg.transform(p, features={"flag": flag, "big": big_eval})
    import pyarrow as pa

    con = duckdb.connect()
    con.register("t", pa.table({"p": p, "flag": flag, "big": big_eval.astype(np.int64)}))
    text = seg.to_sql("p", dialect="duckdb")
    assert str(cut) in text
    got = np.array(con.execute(f"SELECT {text} FROM t").fetchall())[:, 0]
    _check(got, want, "duckdb (booleans, big integers)")
    lite = sqlite3.connect(":memory:")
    lite.execute('CREATE TABLE t ("p" REAL, "flag" INTEGER, "big" INTEGER)')
    lite.executemany("INSERT INTO t VALUES (?, ?, ?)",
                     list(zip(p.tolist(), flag.tolist(), big_eval.tolist())))
    got = np.array(lite.execute(f"SELECT {seg.to_sql('p', dialect='sqlite')} FROM t").fetchall())[:, 0]
    _check(got, want, "sqlite (booleans, big integers)")


def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text, text
    return text


def test_unsupported_levels_and_onnx_refused_in_one_line(seg, tmp_path):
    import datetime

    rng = np.random.default_rng(2)
    n = 3000
    day = np.array([datetime.date(2026, 1, 1 + i % 3) for i in range(n)], dtype=object)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    dated = vc.SegmentCalibration(features=["day"]).fit(p, y, features={"day": day})
    for cal in (dated, vc.load(dated.save(tmp_path / "dated.json"))):
        with pytest.raises(VeracityError) as exc:
            cal.to_sql("p", dialect="duckdb")
        assert "feature 'day' has levels of date" in _one_line(exc)
        assert "text, integers, floats and booleans" in str(exc.value)
    stamps = np.array(["2026-01-01T00:00", "2026-01-02T00:00", "2026-01-03T00:00"],
                      dtype="datetime64[ns]")[np.arange(n) % 3]
    timed = vc.SegmentCalibration(features=["at"]).fit(p, y, features={"at": stamps})
    with pytest.raises(VeracityError, match="text, integers, floats and booleans") as exc:
        timed.to_sql("p")
    _one_line(exc)
    with pytest.raises(VeracityError, match="no ONNX form: its corrections read the feature columns") as exc:
        seg.to_onnx()
    assert "export it as SQL" in _one_line(exc)


def test_cli(seg, tmp_path, capsys):
    from veracity.cli import main

    path = seg.save(tmp_path / "seg.json")
    assert main(["export", str(path), "--sql", "postgres", "--column", "p", "--feature", "region=reg col",
                 "--feature", "k=kk"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip("\n") == seg.to_sql("p", dialect="postgres", features={"region": "reg col", "k": "kk"})
    assert main(["export", str(path), "--sql", "duckdb", "--column", "p", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["features"] == {"region": "region", "age": "age", "k": "k"} and doc["calibrator"] == "segment"
    for argv, words in (
            (["--sql", "duckdb", "--feature", "regio=x"], "--feature takes NAME=COLUMN"),
            (["--sql", "duckdb", "--feature", "region"], "--feature takes NAME=COLUMN"),
            (["--sql", "duckdb", "--feature", "region=a", "--feature", "region=b"], "twice"),
            (["--onnx", str(tmp_path / "m.onnx")], "no ONNX form"),
            (["--onnx", str(tmp_path / "m.onnx"), "--feature", "region=a"], "drop --feature")):
        assert main(["export", str(path), *argv]) == 2, argv
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (argv, err)
    platt = vc.PlattScaling().fit([0.2, 0.8, 0.4, 0.6, 0.3], [0, 1, 1, 0, 0]).save(tmp_path / "platt.json")
    assert main(["export", str(platt), "--sql", "duckdb", "--feature", "a=b"]) == 2
    assert "drop --feature" in capsys.readouterr().err


def test_segment_without_corrections_is_its_base(tmp_path):
    """A fit whose sets all shrink to nothing writes the base's logit and sigmoid only (no feature column
    read), still equal to transform()."""
    rng = np.random.default_rng(9)
    n = 4000
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    g = rng.choice(["a", "b"], n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seg = vc.SegmentCalibration(features=["g"]).fit(p, y, features={"g": g})
    if any(c["keys"] for c in seg.corrections_):
        pytest.skip("this seed fitted a correction")
    text = seg.to_sql("p", dialect="sqlite")
    assert '"g"' not in text.split("*/", 1)[1]
    con = sqlite3.connect(":memory:")
    con.execute('CREATE TABLE t ("p" REAL)')
    con.executemany("INSERT INTO t VALUES (?)", [(v,) for v in p.tolist()])
    got = np.array(con.execute(f"SELECT {text} FROM t").fetchall())[:, 0]
    _check(got, seg.transform(p, features={"g": g}), "sqlite (no corrections)")


@pytest.mark.parametrize("base,score_type", [("isotonic", "probability"), ("histogram", "probability"),
                                             ("beta", "probability"), ("venn-abers", "probability"),
                                             ("temperature", "logit"), ("isotonic", "logit")])
def test_every_binary_base(base, score_type):
    """The base map's own SQL (its step table, its logit input), then the corrections: DuckDB and SQLite
    equal transform() on scores that include 0, 1 and ties (logits: out to +-800)."""
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(11)
    n = 5000
    g = rng.choice(["a", "b", "c"], n)
    x = np.round(rng.random(n), 2) if score_type == "probability" else np.round(rng.normal(0, 2, n), 1)
    q = x if score_type == "probability" else 1 / (1 + np.exp(-x))
    y = (rng.random(n) < np.clip(q + np.where(g == "a", 0.2, -0.05), 0, 1)).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seg = vc.SegmentCalibration(base=base, features=["g"], score_type=score_type).fit(x, y, features={"g": g})
    assert seg.corrections_[0]["keys"]
    ends = [0.0, 1.0, 0.5] if score_type == "probability" else [-800.0, 800.0, 0.0]
    x_eval = np.concatenate([ends, x[3:]])
    want = seg.transform(x_eval, features={"g": g})
    import pyarrow as pa

    con = duckdb.connect()
    con.register("t", pa.table({"i": np.arange(n), "x": x_eval, "g": g.tolist()}))
    got = np.array(con.execute(f'SELECT {seg.to_sql("x", dialect="duckdb")} FROM t ORDER BY "i"').fetchall())
    _check(got[:, 0], want, f"duckdb ({base}, {score_type})")
    lite = sqlite3.connect(":memory:")
    lite.execute('CREATE TABLE t ("i" INTEGER, "x" REAL, "g" TEXT)')
    lite.executemany("INSERT INTO t VALUES (?, ?, ?)", list(zip(range(n), x_eval.tolist(), g.tolist())))
    got = np.array(lite.execute(f'SELECT {seg.to_sql("x", dialect="sqlite")} FROM t ORDER BY "i"').fetchall())
    _check(got[:, 0], want, f"sqlite ({base}, {score_type})")
