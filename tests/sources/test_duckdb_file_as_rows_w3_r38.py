"""A DuckDB database file (a monitoring store) passed where a file of scored rows goes is named as one
(round 38, w3): ``veracity audit monitor.duckdb`` (and fit, apply, the Python frame form, each engine) said
"could not read monitor.duckdb as CSV or Parquet: CSV parse error: Empty CSV file or block: cannot infer
number of columns" (memory) or "monitor.duckdb is not UTF-8 text (byte 0x.. on line 1)" (DuckDB).
"""

from __future__ import annotations

import pytest

import veracity as vc
from veracity import VeracityError

from ..conftest import assert_refused, run_cli

WORDS = r"m\.duckdb is a DuckDB database \(a monitoring store\?\), not a CSV or Parquet file of scored rows"


@pytest.fixture
def store(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "m.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create table predictions (id varchar, score double)")
    con.execute("insert into predictions values ('a', 0.2), ('b', 0.7)")
    con.close()
    return path


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_audit_and_fit_name_the_database(store, engine):
    assert_refused(run_cli(["audit", store, "--engine", engine]), WORDS)
    assert_refused(run_cli(["fit", store, "--method", "platt", "--out", store.parent / "c.json",
                            "--engine", engine]), WORDS)


def test_apply_names_the_database(store, tmp_path):
    rows = tmp_path / "s.csv"
    rows.write_text("score,label\n0.1,0\n0.3,0\n0.6,1\n0.8,1\n0.4,1\n0.7,0\n")
    assert run_cli(["fit", rows, "--method", "platt", "--out", tmp_path / "c.json"]).code == 0
    assert_refused(run_cli(["apply", tmp_path / "c.json", store, "-o", tmp_path / "out.csv"]), WORDS)


def test_the_frame_form_and_a_glob_name_it(store, tmp_path):
    with pytest.raises(VeracityError, match=WORDS):
        vc.audit(str(store), score="score", label="label")
    (tmp_path / "s.csv").write_text("score,label\n0.1,0\n0.8,1\n")
    with pytest.raises(VeracityError, match=WORDS):
        vc.audit(str(tmp_path / "*"), score="score", label="label")


def test_text_with_duck_at_byte_8_is_still_csv(tmp_path):
    rows = tmp_path / "rows.csv"
    rows.write_text("score,xyDUCK\n0.1,0\n0.8,1\n0.3,0\n0.6,1\n")
    assert run_cli(["audit", rows, "--label", "xyDUCK"]).code == 0
