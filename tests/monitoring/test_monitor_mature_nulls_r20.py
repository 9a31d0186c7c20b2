"""Session 20: a missing ``mature`` flag reads the same on every engine.

A lazy frame or DuckDB reads a null in the ``mature`` column as "not final" (the row is pending), while an
in-memory polars frame, pandas' nullable ``boolean`` and ``veracity monitor scan --engine memory`` refused the
same column ("must be a boolean array with one flag per row"), although the docs say every engine gives
the same numbers. The expected table is the definition: a row counts as labelled only where its flag is
True; the others are pending.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.cli import main

pl = pytest.importorskip("polars")

K = ["a"] * 3 + ["b"] * 3
P = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
Y = [0, 1, None, 1, 0, None]
M = [True, True, None, True, True, False]


def _expected():
    final = np.array([m is True for m in M])
    y = np.array([np.nan if v is None else v for v in Y], dtype=float)
    return vc.monitor(np.array(P), y, np.array(K), mature=final, min_count=1)


def _rows(result):
    return [(r.period, r.n, r.pending) for r in result.rows]


def _numbers(result):
    return [x for r in result.rows for x in (r.base_rate, r.conf, r.ece, r.brier, r.psi)]


@pytest.mark.parametrize("make", [
    lambda: pl.DataFrame({"k": K, "p": P, "y": Y, "m": M}),
    lambda: pl.DataFrame({"k": K, "p": P, "y": Y, "m": M}).lazy(),
    lambda: pd.DataFrame({"k": K, "p": P, "y": pd.array(Y, dtype="Float64"), "m": pd.array(M, dtype="boolean")}),
], ids=["polars", "polars-lazy", "pandas-nullable"])
def test_a_missing_mature_flag_is_pending_on_every_frame(make):
    got = vc.monitor(make(), score="p", label="y", periods="k", mature="m", min_count=1)
    assert _rows(got) == _rows(_expected())
    assert _numbers(got) == pytest.approx(_numbers(_expected()), rel=1e-12, nan_ok=True)


def test_scan_gives_the_same_table_on_every_engine(tmp_path, capsys):
    pytest.importorskip("duckdb")
    path = tmp_path / "m.csv"
    path.write_text("k,p,y,m\na,0.1,0,true\na,0.2,1,true\na,0.3,,\nb,0.4,1,true\nb,0.5,0,true\nb,0.6,,false\n")
    tables = []
    for engine in ("memory", "duckdb"):
        assert main(["monitor", "scan", str(path), "--score", "p", "--label", "y", "--period", "k", "--mature", "m",
                     "--min-count", "1", "--engine", engine, "--json"]) == 0
        tables.append([(r["period"], r["n"], r["pending"]) for r in json.loads(capsys.readouterr().out)["periods"]])
    want = [(r.period, r.n, r.pending) for r in _expected().rows]
    assert tables[0] == tables[1] == want
