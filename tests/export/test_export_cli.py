"""``veracity export``, hostile column names and metadata, and one-line refusals (issue 27)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError
from veracity.export import DIALECTS, to_sql

HOSTILE = ['a"b', "x`y", "semi;colon; DROP TABLE t; --", "ünï©ødé 名前 ✓", "it's", "back\\slash", "/* c */"]


@pytest.fixture(scope="module")
def platt():
    rng = np.random.default_rng(0)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    return vc.PlattScaling().fit(p, y), p


@pytest.fixture(scope="module")
def isotonic():
    rng = np.random.default_rng(1)
    p = np.round(rng.random(3000), 3)
    y = (rng.random(3000) < p).astype(int)
    return vc.IsotonicCalibration().fit(p, y), p


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_column_names_cannot_inject(name, platt, isotonic):
    import sqlglot
    from sqlglot import exp

    duckdb = pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    for cal, p in (platt, isotonic):
        for dialect in DIALECTS:
            text = cal.to_sql(name, dialect=dialect)
            statements = sqlglot.parse(f"SELECT {text} FROM t", read=dialect)
            assert len(statements) == 1  # one statement: nothing after a ';'
            assert {c.name for c in statements[0].find_all(exp.Column)} == {name}
        # executed: the column is read, the table survives
        con = duckdb.connect()
        frame = pd.DataFrame({name: p})
        con.register("src", frame)
        con.execute("CREATE TABLE t AS SELECT * FROM src")
        got = np.array([r[0] for r in con.execute(f"SELECT {cal.to_sql(name)} FROM t").fetchall()])
        assert np.abs(got - cal.transform(p)).max() <= 1e-12
        assert con.execute("SELECT count(*) FROM t").fetchone() == (p.size,)
        lite = sqlite3.connect(":memory:")
        quoted = '"' + name.replace('"', '""') + '"'
        lite.execute(f"CREATE TABLE t ({quoted} REAL)")
        lite.executemany("INSERT INTO t VALUES (?)", [(float(v),) for v in p])
        got = np.array([r[0] for r in lite.execute(f"SELECT {cal.to_sql(name, dialect='sqlite')} FROM t")])
        assert np.abs(got - cal.transform(p)).max() <= 1e-12
        assert lite.execute("SELECT count(*) FROM t").fetchone() == (p.size,)


@pytest.mark.parametrize("bad", ["", "a\nb", "nul\x00", "tab\there", 3, None])
def test_unusable_column_names_are_refused(bad, platt):
    with pytest.raises(VeracityError, match="column"):
        platt[0].to_sql(bad)


def test_metadata_cannot_end_the_comment(platt):
    import sqlglot

    labels = (np.random.default_rng(1).random(platt[1].size) < platt[1]).astype(int)  # not separated
    cal = vc.PlattScaling().fit(platt[1], labels,
                                metadata={"fit_window": "*/ DROP TABLE t; /* -- x\nDROP TABLE t",
                                          "cohort": "--"})
    for dialect in DIALECTS:
        text = cal.to_sql("p", dialect=dialect)
        comment, _, body = text.partition("\n")
        assert comment.startswith("/*") and comment.endswith("*/") and comment.count("*/") == 1
        assert "\n" not in body and "DROP" not in body
        assert len(sqlglot.parse(f"SELECT {text} FROM t", read=dialect)) == 1


def test_refusals_name_what_is_supported(platt):
    with pytest.raises(VeracityError, match="unsupported SQL dialect 'oracle'; supported: bigquery, duckdb, "
                                            "postgres, snowflake, spark, sqlite, trino"):
        platt[0].to_sql(dialect="oracle")
    with pytest.raises(VeracityError, match="call fit"):
        vc.IsotonicCalibration().to_sql()
    with pytest.raises(VeracityError, match="reads one score column"):
        platt[0].to_sql(["a", "b"])
    with pytest.raises(VeracityError, match="nothing to export"):
        to_sql(None)


def test_cli_sql_and_onnx(tmp_path, cli, platt):
    ort = pytest.importorskip("onnxruntime")
    cal, p = platt
    path = tmp_path / "cal.json"
    cal.save(path)
    res = cli(["export", path, "--sql", "sqlite", "--column", "p"])
    assert res.code == 0, res.err
    assert res.out == cal.to_sql("p", dialect="sqlite") + "\n"
    con = sqlite3.connect(":memory:")
    got = np.array([r[0] for r in con.execute(f"SELECT {res.out} FROM (SELECT ? AS p)", (float(p[0]),))])
    assert abs(got[0] - cal.transform(p[:1])[0]) <= 1e-12
    res = cli(["export", path, "--sql", "duckdb", "--prior-shift", "0.2", "0.05"])
    assert res.code == 0 and res.out.strip() == cal.to_sql("score", prior_shift=(0.2, 0.05))
    out = tmp_path / "cal.onnx"
    res = cli(["export", path, "--onnx", out])
    assert res.code == 0 and "wrote PlattScaling as ONNX" in res.err and res.out == ""
    sess = ort.InferenceSession(out.read_bytes(), providers=["CPUExecutionProvider"])
    assert np.abs(sess.run(None, {"score": p})[0] - cal.transform(p)).max() <= 1e-12


def test_cli_multiclass_columns(tmp_path, cli):
    rng = np.random.default_rng(2)
    P = rng.dirichlet(np.ones(3), 400)
    cal = vc.VectorScaling().fit(P, rng.integers(0, 3, 400))
    path = tmp_path / "vec.json"
    cal.save(path)
    res = cli(["export", path, "--sql", "postgres", "--column", "a,b,c"])
    assert res.code == 0 and res.out.strip() == cal.to_sql(["a", "b", "c"], dialect="postgres")
    res = cli(["export", path, "--sql", "postgres", "--column", "p"])
    assert res.code == 0 and '"p_2"' in res.out


@pytest.mark.parametrize("argv, match", [
    (["--sql", "oracle"], "input error: unsupported SQL dialect 'oracle'; supported: bigquery"),
    ([], "usage error: one of the arguments --sql --onnx is required"),
    (["--sql", "duckdb", "--onnx", "x.onnx"], "usage error: argument --onnx: not allowed with argument --sql"),
    (["--sql", "duckdb", "--column", "a,b"], "input error: this calibrator reads one score column"),
])
def test_cli_refusals(tmp_path, cli, refused, platt, argv, match):
    path = tmp_path / "cal.json"
    platt[0].save(path)
    refused(cli(["export", path, *argv]), match)


def test_cli_missing_file(cli, refused, tmp_path):
    refused(cli(["export", tmp_path / "nope.json", "--sql", "duckdb"]), "calibrator file not found")
