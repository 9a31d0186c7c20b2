"""``veracity report --by g`` keeps ids past int64 apart as ``veracity audit --by g`` does (session 38): a CSV
column of whole numbers past int64 is read as decimal128 (exact), and the report's --by read it through the
score columns' reader, which makes a DECIMAL floats: ids 2**63 and 2**63 + 1 were one slice
"9.223372036854776e+18". A Parquet DECIMAL(5, 2) key is named as audit names it ("1.50", not "1.5")."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import numpy as np
import pytest

rng = np.random.default_rng(3839)
N = 300
P = rng.uniform(0.05, 0.95, N)
Y = (rng.uniform(size=N) < P).astype(int)


def _slices(page: str) -> dict[str, int]:
    """slice name -> rows, from the report's slices table."""
    found = re.findall(r'<span class="key">([^<]*)</span></td><td class="num">([\d,]+)<', page)
    return {name: int(n.replace(",", "")) for name, n in found}


def _audit(cli, path) -> dict[str, int]:
    got = cli(["audit", path, "--by", "g", "--json"])
    assert got.code == 0, got.err
    return {name: group["n"] for name, group in json.loads(got.out)["groups"].items()}


def test_report_keeps_ids_past_int64_apart(tmp_path, cli, write_csv):
    ids = [2**63 + i % 3 if i % 5 else "" for i in range(N)]  # three ids past int64, and gaps
    path = write_csv(tmp_path / "ids.csv", "g,score,label", list(zip(ids, P.round(6), Y)))
    out = tmp_path / "r.html"
    got = cli(["report", path, "--by", "g", "--no-bootstrap", "--out", out])
    assert got.code == 0, got.err
    slices = _slices(out.read_text())
    want = {str(2**63 + k): sum(1 for i in range(N) if i % 5 and i % 3 == k) for k in range(3)}
    assert {k: slices[k] for k in want} == want, slices
    assert slices["(missing)"] == N // 5
    assert not any("e+18" in k for k in slices), slices
    assert slices == _audit(cli, path)


def test_report_names_decimal_keys_as_audit_does(tmp_path, cli):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    keys = [[Decimal("1.50"), Decimal("2.25"), Decimal("-0.10")][i % 3] for i in range(N)]  # no gap
    path = tmp_path / "dec.parquet"
    pq.write_table(pa.table({"g": pa.array(keys, pa.decimal128(5, 2)), "score": P, "label": Y}), path)
    out = tmp_path / "r.html"
    got = cli(["report", path, "--by", "g", "--no-bootstrap", "--out", out])
    assert got.code == 0, got.err
    slices = _slices(out.read_text())
    assert slices == {"1.50": 100, "2.25": 100, "-0.10": 100} == _audit(cli, path), slices
