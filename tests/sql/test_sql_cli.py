"""``veracity audit --sql-url URL --table T`` prints the same audit as the file; ``--mlflow`` logs it
(issue 27)."""

from __future__ import annotations

import json
import sqlite3
import warnings

import pandas as pd
import pytest

from veracity.datasets import demo_path


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("db") / "demo.db"
    conn = sqlite3.connect(path)
    pd.read_csv(demo_path()).to_sql("scores", conn, index=False)
    conn.close()
    return path


def test_the_table_prints_the_same_audit_as_the_file(cli, demo_db):
    options = ["--score", "score", "--label", "label", "--by", "segment", "--bins", "10"]
    from_file = cli(["audit", str(demo_path()), *options])
    from_db = cli(["audit", "--sql-url", f"sqlite:///{demo_db}", "--table", "scores", *options])
    assert from_file.code == 0 and from_db.code == 0, from_db.err
    assert from_db.out == from_file.out
    assert "(computed in the database)" in from_db.err


def test_json_names_the_database_and_table(cli, demo_db):
    res = cli(["audit", "--sql-url", f"sqlite:///{demo_db}", "--table", "scores", "--score", "logit",
               "--score-type", "logit", "--label", "label", "--strategy", "quantile", "--json"])
    assert res.code == 0, res.err
    doc = json.loads(res.out)
    want = json.loads(cli(["audit", str(demo_path()), "--score", "logit", "--score-type", "logit", "--label",
                           "label", "--strategy", "quantile", "--json"]).out)
    assert doc["database"] == f"sqlite:///{demo_db}" and doc["sql_table"] == "scores"
    assert doc["metrics"] == pytest.approx(want["metrics"], abs=1e-12)
    assert len(doc["table"]) == len(want["table"])
    for a, b in zip(doc["table"], want["table"]):
        assert a == pytest.approx(b, abs=1e-12)


def test_a_password_in_the_url_is_never_printed(cli, pg_uri, pg_conn):
    pd_frame = pd.read_csv(demo_path()).head(500)
    with pg_conn.cursor() as cur:
        cur.execute('DROP TABLE IF EXISTS "cli_scores"')
        cur.execute('CREATE TABLE "cli_scores" (score DOUBLE PRECISION, label BIGINT)')
        cur.executemany('INSERT INTO "cli_scores" VALUES (%s, %s)',
                        list(zip(pd_frame["score"].tolist(), pd_frame["label"].tolist())))
    secret = "pw-Zx81!q"
    url = pg_uri.replace("postgres:@", f"postgres:{secret}@")
    ok = cli(["audit", "--sql-url", url, "--table", "cli_scores", "--json"])
    assert ok.code == 0, ok.err
    assert secret not in ok.out + ok.err and "postgres:***@" in json.loads(ok.out)["database"]
    bad = cli(["audit", "--sql-url", url, "--table", "no_such_table"])
    assert bad.code == 2 and secret not in bad.out + bad.err and "***" in bad.err


@pytest.mark.parametrize("argv, match", [
    (["--sql-url", "sqlite:///x.db"], r"--sql-url needs --table"),
    (["--table", "t"], r"--table names a table of --sql-url"),
    (["FILE", "--sql-url", "sqlite:///x.db", "--table", "t"], r"either FILE or --sql-url"),
    (["--sql-url", "sqlite:///x.db", "--table", "t", "--noise-floor"], r"drop --noise-floor"),
    (["--sql-url", "sqlite:///nowhere/x.db", "--table", "t"], r"cannot connect to sqlite:///nowhere/x.db"),
])
def test_refusals_are_one_line(cli, refused, argv, match, demo_db):
    argv = [str(demo_path()) if a == "FILE" else a for a in argv]
    refused(cli(["audit", *argv]), match)


def test_mlflow_flag_logs_the_audit(cli, demo_db, tmp_path, monkeypatch):
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "file:" + str(tmp_path / "mlruns"))
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    res = cli(["audit", "--sql-url", f"sqlite:///{demo_db}", "--table", "scores", "--by", "segment", "--mlflow",
               "--json"])
    assert res.code == 0, res.err
    doc = json.loads(res.out)
    run_id = res.err.split("logged to MLflow run ")[1].split(":")[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mlflow.set_tracking_uri("file:" + str(tmp_path / "mlruns"))
        try:
            stored = mlflow.tracking.MlflowClient().get_run(run_id)
        finally:
            mlflow.set_tracking_uri(None)
    assert stored.info.status == "FINISHED"  # the run the command started is ended
    assert stored.data.metrics["ece"] == doc["metrics"]["ece"]
    assert stored.data.metrics["segment/web/auc"] == doc["groups"]["web"]["metrics"]["auc"]
