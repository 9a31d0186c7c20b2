"""Multiclass SQL over K column names the engine reads as one column (session 31).

The K names were checked to be distinct as Python strings only. An engine reads two different names as
one column where it ignores case (DuckDB and SQLite: ASCII letters; Spark, Trino, BigQuery: every letter)
or cuts names (PostgreSQL keeps the first 63 bytes, with a NOTICE): ``to_sql(["z", "Z", "w"])`` ran on
DuckDB and read ``z`` as the first two classes' scores, a softmax of equal logits (0.097, 0.097, 0.805
where transform() gives 0.082, 0.237, 0.681), and three names of 64 bytes sharing their first 63 gave
(1/3, 1/3, 1/3) on PostgreSQL. Such names are refused now in one line that says why; the rule
(:func:`veracity.export._sql.identifier_key`) is checked against the engines themselves.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError

LONG = "x" * 63  # PostgreSQL's longest name (NAMEDATALEN - 1 bytes)


@pytest.fixture(scope="module")
def temperature():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(500, 3))
    y = (z + rng.gumbel(size=(500, 3))).argmax(axis=1)
    return vc.TemperatureScaling(score_type="logit").fit(z, y)


@pytest.mark.parametrize(("dialect", "names"), [
    ("duckdb", ["z", "Z", "w"]), ("sqlite", ["score_a", "SCORE_A", "b"]), ("spark", ["Énergie", "énergie", "b"]),
    ("trino", ["a", "b", "B"]), ("bigquery", ["Ab", "aB", "c"]),
    ("postgres", [LONG + "0", LONG + "1", LONG + "2"]), ("postgres", ["é" * 31 + "a", "é" * 31 + "ab", "c"])])
def test_names_the_engine_reads_as_one_column_are_refused(temperature, error_line, dialect, names):
    text = error_line(lambda: temperature.to_sql(names, dialect=dialect))
    assert "one column in " + dialect in text and "rename the columns" in text, text


@pytest.mark.parametrize(("dialect", "names"), [
    ("snowflake", ["z", "Z", "w"]),  # a quoted name is exact there
    ("postgres", ["z", "Z", "w"]),
    ("postgres", [LONG[:62] + "0", LONG[:62] + "1", LONG[:62] + "2"]),  # 63 bytes: kept whole
    ("duckdb", ["É", "é", "w"]), ("sqlite", ["É", "é", "w"])])  # their case rule is ASCII only
def test_names_the_engine_tells_apart_are_kept(temperature, dialect, names):
    text = temperature.to_sql(names, dialect=dialect)
    assert all(f'"{n}"' in text for n in names)


def test_duckdb_and_sqlite_read_names_as_the_rule_says(temperature):
    from veracity.export._sql import identifier_key

    duckdb = pytest.importorskip("duckdb")
    z = np.array([[1.0, 2.0, 3.0]])
    want = temperature.transform(z)[0]
    for dialect, con in (("duckdb", duckdb.connect()), ("sqlite", sqlite3.connect(":memory:"))):
        con.execute('CREATE TABLE t ("z" DOUBLE, "É" DOUBLE, "é" DOUBLE)')  # É and é are two columns
        con.execute("INSERT INTO t VALUES (1.0, 2.0, 3.0)")
        got = con.execute(f"SELECT {temperature.to_sql(['z', 'É', 'é'], dialect=dialect)} FROM t").fetchall()
        np.testing.assert_allclose(got[0], want, rtol=0, atol=1e-12)
        assert con.execute('SELECT "Z" FROM t').fetchall() == [(1.0,)]  # "Z" is the column z
        assert identifier_key("Z", dialect) == identifier_key("z", dialect) == "z"
        assert identifier_key("É", dialect) != identifier_key("é", dialect)


@pytest.fixture(scope="module")
def pg(postgres):
    import psycopg

    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        yield con


def test_postgres_reads_the_first_63_bytes_of_a_name(pg, temperature):
    from veracity.export._sql import identifier_key

    pg.execute("DROP TABLE IF EXISTS t_r31_long")
    pg.execute(f'CREATE TABLE t_r31_long ("{LONG}" DOUBLE PRECISION, "Z" DOUBLE PRECISION, "z" DOUBLE PRECISION)')
    pg.execute("INSERT INTO t_r31_long VALUES (1.0, 2.0, 3.0)")
    # a name past 63 bytes reads the column named by its first 63: the rule refuses K such names
    assert pg.execute(f'SELECT "{LONG}0", "{LONG}1" FROM t_r31_long').fetchall() == [(1.0, 1.0)]
    assert identifier_key(LONG + "0", "postgres") == identifier_key(LONG + "1", "postgres") == LONG
    # PostgreSQL tells "Z" from "z": kept, and computed as transform() computes it
    got = pg.execute(f"SELECT {temperature.to_sql([LONG, 'Z', 'z'], dialect='postgres')} FROM t_r31_long").fetchall()
    np.testing.assert_allclose(got[0], temperature.transform(np.array([[1.0, 2.0, 3.0]]))[0], rtol=0, atol=1e-12)


@pytest.mark.parametrize("alias", ["p" * 62, "p" * 61])  # "p…p_0".."p…p_2" cut to one name; "p…p_10" to "p…p_1"
def test_postgres_output_names_cut_to_one_are_refused(error_line, alias):
    rng = np.random.default_rng(1)
    z = rng.normal(size=(600, 11))
    y = (z + rng.gumbel(size=(600, 11))).argmax(axis=1)
    cal = vc.TemperatureScaling(score_type="logit").fit(z, y)
    text = error_line(lambda: cal.to_sql("z", dialect="postgres", alias=alias))
    assert "shorter alias" in text and "first 63 bytes" in text, text
    assert cal.to_sql("z", dialect="duckdb", alias=alias).count(f'"{alias}_') == 11  # DuckDB keeps long names


def test_cli_refuses_names_read_as_one_column(tmp_path, cli, refused, temperature):
    path = tmp_path / "cal.json"
    temperature.save(path)
    refused(cli(["export", path, "--sql", "duckdb", "--column", "z,Z,w"]), "one column in duckdb")
    assert cli(["export", path, "--sql", "snowflake", "--column", "z,Z,w"]).code == 0


def test_a_repeated_name_keeps_its_message(temperature):
    with pytest.raises(VeracityError, match="'a' is named more than once"):
        temperature.to_sql(["a", "a", "b"], dialect="duckdb")


def test_cli_onnx_refuses_a_column_it_would_drop(tmp_path, cli, refused, temperature):
    """``--onnx PATH --column q`` wrote a model whose input is ``score`` and said nothing of ``q``."""
    path = tmp_path / "cal.json"
    temperature.save(path)
    refused(cli(["export", path, "--onnx", tmp_path / "m.onnx", "--column", "q"]), "always named 'score'")
    assert not (tmp_path / "m.onnx").exists()
    assert cli(["export", path, "--onnx", tmp_path / "m.onnx"]).code == 0


# -- a secret named by its key -------------------------------------------------------------------------------
# Passwords were hidden only where the text shows them (a URL's, ``password=x``): a metadata entry whose key
# names the secret, ``metadata={"db_password": "..."}`` (or nested, ``{"conn": {"password": ...}}``), went in
# clear into the ONNX model's ``metadata_props``, the MLflow run parameters and the logged ``calibrator.json``.
SECRET = "Hunter2Secret"
KEYED = {"db_password": SECRET, "api_key": SECRET + "K", "conn": {"host": "db.example", "password": SECRET},
         "pin_token": 424242, "token_count": 7, "note": ["password=" + SECRET], "fit_window": "2026-01"}


@pytest.fixture(scope="module")
def keyed():
    rng = np.random.default_rng(31)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=400) < s).astype(int)
    return vc.PlattScaling().fit(s, y, metadata=KEYED)


def test_onnx_hides_a_secret_named_by_its_key(keyed):
    onnx = pytest.importorskip("onnx")
    props = {p.key: p.value for p in onnx.load_from_string(keyed.to_onnx()).metadata_props}
    assert SECRET not in repr(props) and "424242" not in repr(props), props
    assert props["db_password"] == props["api_key"] == props["pin_token"] == "***"
    assert props["conn"] == "{'host': 'db.example', 'password': '***'}"
    assert props["note"] == "['password=***']"  # hidden once: the list's closing "']" kept
    assert props["token_count"] == "7" and props["fit_window"] == "2026-01"  # names that are not secrets
    assert keyed.metadata["db_password"] == SECRET  # the calibrator itself is left as it was


def test_mlflow_hides_a_secret_named_by_its_key(tmp_path, monkeypatch):
    import json
    import warnings
    from pathlib import Path

    mlflow = pytest.importorskip("mlflow")
    from veracity.tracking import log_mlflow

    monkeypatch.setenv("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    rng = np.random.default_rng(31)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=400) < s).astype(int)
    cal = vc.PlattScaling().fit(s, y, metadata=KEYED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mlflow.set_tracking_uri("file:" + str(tmp_path / "mlruns"))
        try:
            with mlflow.start_run() as run:
                logged = log_mlflow(cal)
            client = mlflow.tracking.MlflowClient()
            params = client.get_run(run.info.run_id).data.params
            doc = Path(client.download_artifacts(run.info.run_id, "calibrator.json", str(tmp_path)))
        finally:
            mlflow.set_tracking_uri(None)
    shown = json.dumps(params) + json.dumps(logged.params) + doc.read_text(encoding="utf-8")
    assert SECRET not in shown and "424242" not in shown
    assert params["calibrator.db_password"] == params["calibrator.api_key"] == "***"
    assert params["calibrator.token_count"] == "7" and params["calibrator.fit_window"] == "2026-01"
    back = vc.load(str(doc))  # still the calibrator
    grid = np.linspace(0, 1, 101)
    assert np.array_equal(back.transform(grid), cal.transform(grid))
    assert json.loads(doc.read_text(encoding="utf-8"))["metadata"]["conn"] == {"host": "db.example",
                                                                               "password": "***"}
