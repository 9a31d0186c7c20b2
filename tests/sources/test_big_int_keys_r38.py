"""Whole numbers past int64 in a CSV, and DuckDB's widest integers, read exactly on every route (round 38).

pyarrow reads a CSV column holding an integer beyond int64 (uint64 hash ids such as ``9223372036854775808``)
as doubles, where 2**63 and 2**63 + 1 are one value: the memory engine (``veracity audit --engine memory``,
the default for one small file) pooled three ids into one slice named ``9.223372036854776e+18`` where the
DuckDB engine, which reads the column as HUGEINT, shows three; and ``veracity apply`` wrote every such id
back as ``9.223372036854776e+18``. DuckDB itself handed a UHUGEINT of 2**127 or more to Arrow as a negative
number (slices named ``-456`` for ``2**128 - 456``), and a CSV's integers past 2**127 (BIGNUM) as an Arrow
type nothing reads (a raw ``ArrowNotImplementedError``). The oracle is the ids as written, counted.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import veracity as vc
from veracity.sources import _api as source

#: three ids per case, each on 20 of 60 rows
CASES = {"uint64": 2**63, "past uint64": 2**64, "hugeint": 10**37, "past hugeint": 10**39,
         "negative": -(2**63) - 3}


def _csv(path: Path, first: int, n: int = 60) -> Path:
    with open(path, "w") as fh:
        fh.write("p,y,g\n")
        for i in range(n):
            fh.write(f"{0.2 + 0.5 * (i % 2)},{int(i % 3 == 0)},{first + i % 3}\n")
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_memory_and_duckdb_keep_big_ids_apart(case, tmp_path):
    first = CASES[case]
    path = _csv(tmp_path / "ids.csv", first)
    want = {str(first + k): 20 for k in range(3)}
    memory = vc.audit(source.read_path(str(path)), score="p", label="y", by="g")
    lazy = vc.audit(str(path), score="p", label="y", by="g")  # DuckDB
    assert {k: g.n for k, g in memory.groups.items()} == want
    assert {k: g.n for k, g in lazy.groups.items()} == want
    assert memory.groups[str(first)].metrics["brier"] == lazy.groups[str(first)].metrics["brier"]


def test_glob_of_small_and_big_ids(tmp_path):
    _csv(tmp_path / "a.csv", 1)
    _csv(tmp_path / "b.csv", 2**63)
    got = vc.audit(source.read_path(str(tmp_path / "*.csv")), score="p", label="y", by="g")
    assert {k: g.n for k, g in got.groups.items()} == {
        "1": 20, "2": 20, "3": 20, str(2**63): 20, str(2**63 + 1): 20, str(2**63 + 2): 20}
    # exponents and whole numbers below 2**63 are read as before (a double, an int64)
    path = tmp_path / "f.csv"
    path.write_text("p,y,g,h\n" + "".join(f"0.5,{i % 2},1e19,{2**62 + i}\n" for i in range(4)))
    table = source.read_table(path)
    assert str(table.schema.field("g").type) == "double" and str(table.schema.field("h").type) == "int64"




def test_apply_writes_the_ids_as_written(tmp_path, cli):
    path = tmp_path / "in.csv"
    path.write_text("id,p,y\n" + "".join(f"{2**63 + i},{(i % 10) / 10 + 0.05},{int(i % 3 == 0)}\n"
                                         for i in range(60)))
    cal, out = tmp_path / "cal.json", tmp_path / "out.csv"
    fit = ["fit", str(path), "--score", "p", "--label", "y", "--method", "platt", "--out", str(cal), "-q"]
    for argv in (fit, ["apply", str(cal), str(path), "-o", str(out), "-q"]):
        r = cli(argv)  # in-process (two interpreters started were ~1.5 s of CPU)
        assert r.code == 0, r.err
    ids = [line.split(",")[0] for line in out.read_text().splitlines()[1:]]
    assert ids == [str(2**63 + i) for i in range(60)]


def test_duckdb_uhugeint_past_2_127_refused_not_negative():
    con = duckdb.connect()
    rel = con.sql("SELECT (i % 2) * 0.5 + 0.2 AS p, (i % 3 = 0)::INT AS y, CAST(i % 3 AS UHUGEINT) "
                  "+ 340282366920938463463374607431768211000 AS g FROM range(60) t(i)")
    wide = r"column 'g' holds 3402823669209384634633746074317682110\d+, beyond the 2\*\*127"
    with pytest.raises(vc.VeracityError, match=wide):
        vc.audit(rel, score="p", label="y", by="g")
    small = con.sql("SELECT (i % 2) * 0.5 + 0.2 AS p, (i % 3 = 0)::INT AS y, "
                    "CAST(i % 3 AS UHUGEINT) + 18446744073709551616 AS g FROM range(60) t(i)")
    got = vc.audit(small, score="p", label="y", by="g")
    assert sorted(got.groups) == [str(2**64 + k) for k in range(3)]
    assert vc.audit(rel, score="p", label="y").n == 60  # an unused wide column is never read


def test_parquet_glob_of_big_ints_and_doubles_refused_on_both_routes(tmp_path):
    """int64 ids beyond 2**53 in one file, doubles in another: read together as doubles, 2**53 and 2**53 + 1
    were one slice on the DuckDB route (silently) while the memory route stopped with pyarrow's words."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"p": [0.2, 0.4, 0.6, 0.8], "y": [0, 1, 0, 1],
                             "g": pa.array([2**53, 2**53, 2**53 + 1, 2**53 + 1])}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"p": [0.3, 0.7], "y": [0, 1], "g": [1.5, 2.5]}), tmp_path / "b.parquet")
    glob = str(tmp_path / "*.parquet")
    for frame in (glob, None):
        with pytest.raises(vc.VeracityError, match=r"column 'g' holds integers in .*a\.parquet \(such as "
                                                   r"9007199254740993, beyond 2\*\*53\) and doubles"):
            vc.audit(source.read_path(glob) if frame is None else frame, score="p", label="y", by="g")
    # within 2**53 every integer is a double: read as before
    pq.write_table(pa.table({"p": [0.2, 0.4], "y": [0, 1], "g": pa.array([2**52, 3])}),
                   tmp_path / "a.parquet")
    got = vc.audit(glob, score="p", label="y", by="g")
    assert sorted(got.groups) == ["1.5", "2.5", "3.0", "4503599627370496.0"]
