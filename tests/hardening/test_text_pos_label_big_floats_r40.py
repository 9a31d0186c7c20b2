"""A text ``pos_label`` (``--pos-label`` is always text) on floating-point labels of 2**53 or more is refused on
every route (round 40).

A CSV whose labels are the integers 2**53 and 2**53 + 1 written ``9007199254740992.0`` /
``9007199254740993.0`` is read by DuckDB, Dask and Spark as DOUBLE, where the two labels become the one double
2**53: ``veracity audit --engine duckdb|dask|spark --pos-label 9007199254740992`` audited every row as a
positive (base rate 1.0000, silently), where ``--engine memory`` refused it. Now one refusal in one wording on
every engine, command and Python route (arrays, frames, SQL); a label passed as a number in Python is compared
as it is, and text on small float labels names them as before.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError

RNG = np.random.default_rng(40)
N = 200
P = RNG.uniform(0.01, 0.99, N)
POSITIVE = RNG.uniform(size=N) < P
BIG = 2.0 ** 53
#: the labels as the file's text spells them: two integers, one double apart from none
TEXTS = np.where(POSITIVE, "9007199254740993.0", "9007199254740992.0")
REFUSAL = (r"pos.label.9007199254740992: the labels were read as floating point and reach 9007199254740992, "
           r"where doubles no longer tell neighbouring integers apart .* map the labels to 0/1")


@pytest.fixture(scope="module")
def merged_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "merged.csv"
    path.write_text("p,y\n" + "".join(f"{p!r},{t}\n" for p, t in zip(P.tolist(), TEXTS)))
    return path


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask", "spark"])
def test_audit_refuses_on_every_engine(cli, refused, merged_csv, engine):
    if engine == "spark":
        pytest.importorskip("pyspark")
    result = cli(["audit", str(merged_csv), "--score", "p", "--label", "y",
                  "--pos-label", "9007199254740992", "--engine", engine])
    refused(result, REFUSAL)
    assert "base rate" not in result.out


@pytest.mark.parametrize("command", [["fit", "--method", "platt", "--engine", "duckdb"],
                                     ["threshold", "--target-recall", "0.5"]])
def test_other_commands_refuse_in_the_same_words(cli, refused, merged_csv, command, tmp_path):
    extra = ["--out", str(tmp_path / "c.json")] if command[0] == "fit" else []
    result = cli([command[0], str(merged_csv), *command[1:], "--score", "p", "--label", "y",
                  "--pos-label", "9007199254740992", *extra])
    refused(result, REFUSAL)


def test_python_arrays_frames_and_sql_refuse_text_and_take_a_number():
    duckdb = pytest.importorskip("duckdb")
    labels = np.where(POSITIVE, BIG + 2.0, BIG)  # two distinct doubles: a number names one of them exactly
    by_number = vc.audit(P, labels, pos_label=BIG + 2.0)
    assert by_number.base_rate == pytest.approx(POSITIVE.mean(), abs=1e-15)
    with pytest.raises(VeracityError, match="pos_label='9007199254740992': the labels were read as floating"):
        vc.audit(P, labels, pos_label="9007199254740992")
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES " + ", ".join(
        f"({p!r}, {y!r}::DOUBLE)" for p, y in zip(P.tolist(), labels.tolist())) + ") AS v(p, y)")
    with pytest.raises(VeracityError, match="the labels were read as floating point and reach"):
        vc.audit(con.table("t"), score="p", label="y", pos_label="9007199254740992")
    with pytest.raises(VeracityError, match="the labels were read as floating point and reach"):
        vc.audit_sql(con, table="t", score="p", label="y", pos_label="9007199254740992")
    assert vc.audit(con.table("t"), score="p", label="y", pos_label=BIG + 2.0).base_rate == by_number.base_rate


def test_sqlite_real_column_refuses_text():
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p REAL, y REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(P.tolist(), np.where(POSITIVE, -BIG, 1.0).tolist())))
    with pytest.raises(VeracityError, match="reach 9007199254740992"):
        vc.audit_sql(con, table="t", score="p", label="y", pos_label="1")


def test_text_on_small_float_labels_still_names_them(cli, tmp_path):
    path = tmp_path / "small.csv"
    path.write_text("p,y\n" + "".join(f"{p!r},{'3.0' if y else '7.5'}\n" for p, y in zip(P.tolist(), POSITIVE)))
    for engine in ("memory", "duckdb"):
        result = cli(["audit", str(path), "--score", "p", "--label", "y", "--pos-label", "3", "--engine", engine])
        assert result.code == 0, result.err
        assert f"base rate {POSITIVE.mean():.4f}" in result.out
    assert vc.audit(P, np.where(POSITIVE, 3.0, 7.5), pos_label="3").base_rate == POSITIVE.mean()
