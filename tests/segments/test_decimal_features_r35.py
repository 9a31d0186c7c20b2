"""A DECIMAL feature (a Parquet or DuckDB ``DECIMAL(12, 3)`` price, pyarrow ``decimal128``, a pandas column of
``Decimal`` objects) was read as text levels (r35): a price of ~4,000 values became one segment ``other``
(every level below min_count), ``bins=`` was noted as changing nothing and ``veracity segments --bins`` was
refused as if the column were not numeric. It is now numbers, on every route: the nearest doubles (scale 0:
exact integers), the segments of the same values as a float64 (int64) column."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest

import veracity as vc

pa = pytest.importorskip("pyarrow")


def _data(n: int = 4000, seed: int = 35):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < p).astype(int)
    price = rng.integers(0, 1_000_000, n) / 1000  # three decimals
    ids = 2**60 + rng.integers(0, 40, n)
    table = pa.table({"p": p, "y": y,
                      "price": pa.array([Decimal(f"{v:.3f}") for v in price], pa.decimal128(12, 3)),
                      "id": pa.array([Decimal(int(v)) for v in ids], pa.decimal128(38, 0))})
    return p, y, price, ids.astype(np.int64), table


def _shape(res):
    return res.levels, sorted((r.segment, r.n, round(r.gap, 12)) for r in res.rows)


def test_decimal_features_are_numbers_on_every_route(tmp_path):
    p, y, price, ids, table = _data()
    want = _shape(vc.segments(p, y, features={"price": price, "id": ids}, depth=1, min_count=10))
    assert len(want[0]["price"]) == 5 and len(want[0]["id"]) == 5
    import pyarrow.parquet as pq

    path = tmp_path / "rows.parquet"
    pq.write_table(table, path)
    routes = {"pyarrow": table, "pandas objects": table.to_pandas(), "parquet": str(path)}
    pl = pytest.importorskip("polars")
    routes["polars"] = pl.from_arrow(table)
    duckdb = pytest.importorskip("duckdb")
    routes["duckdb"] = duckdb.connect().from_arrow(table)
    for name, data in routes.items():
        got = vc.segments(data, score="p", label="y", features=["price", "id"], depth=1, min_count=10)
        assert _shape(got) == want, name
        assert not got.notes, (name, got.notes)
    # the array form: Decimal objects are numbers as well
    objects = np.array([Decimal(f"{v:.3f}") for v in price], dtype=object)
    assert _shape(vc.segments(p, y, features={"price": objects, "id": ids}, depth=1, min_count=10)) == want


def test_bins_cut_a_decimal_feature():
    _, _, _, _, table = _data()
    res = vc.segments(table, score="p", label="y", features=["price"], bins=3, min_count=10)
    assert len(res.levels["price"]) == 3 and not [n for n in res.notes if "bins=" in n]
    seg = vc.SegmentCalibration(features=["price"], bins=3, depth=1).fit(table.to_pandas(), score="p", label="y")
    assert seg.specs_[0].labels == tuple(res.levels["price"])


def test_cli_bins_with_a_decimal_feature_is_used(tmp_path, cli):
    import pyarrow.parquet as pq

    pytest.importorskip("duckdb")
    _, _, _, _, table = _data()
    path = tmp_path / "rows.parquet"
    pq.write_table(table, path)
    got = cli(["segments", path, "--score", "p", "--label", "y", "--features", "price", "--bins", "3",
               "--min-count", "10", "--json", "-"])
    assert got.code == 0, got.err
    assert len(json.loads(got.out)["levels"]["price"]) == 3


def test_a_decimal_nan_is_a_missing_value():
    # a Decimal NaN (a NUMERIC column read from a database) raised decimal.InvalidOperation from a sort
    p, y, price, _, _ = _data(n=1200)
    objects = np.array([Decimal(f"{v:.3f}") for v in price], dtype=object)
    objects[:60] = Decimal("NaN")
    floats = price.copy()
    floats[:60] = np.nan
    got = vc.segments(p, y, features={"price": objects}, depth=1)
    want = vc.segments(p, y, features={"price": floats}, depth=1)
    assert _shape(got) == _shape(want) and got.levels["price"][-1] == "missing"
