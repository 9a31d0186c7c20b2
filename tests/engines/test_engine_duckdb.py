"""DuckDB engine: the same AuditResult as the in-memory audit, out of core."""

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import veracity as vc
from veracity.engines import audit_duckdb

# the deprecated alias is what these tests pin (it calls vc.audit and warns)
pytestmark = pytest.mark.filterwarnings("ignore:vc.audit_d:DeprecationWarning")

duckdb = pytest.importorskip("duckdb")


def _frame(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(0, 2.5, n), 1)  # rounding makes many ties
    s[:5] = [1e4, -1e4, 700.0, -700.0, 0.0]  # huge logits
    y = (rng.random(n) < 1 / (1 + np.exp(-np.clip(s, -50, 50) / 1.5))).astype(np.int64)
    w = rng.uniform(0.2, 3.0, n)
    g = rng.choice(["a", "b", "c'quote"], n)
    p = 1 / (1 + np.exp(-np.clip(s, -700, 700)))
    return {"s": s, "p": p, "y": y, "w": w, "g": g}


def _assert_same(a, b):
    for key, value in b.metrics.items():
        if value is None:
            assert a.metrics[key] is None
        else:
            assert a.metrics[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    np.testing.assert_array_equal(a.table.stats.count, b.table.stats.count)
    assert [r.index for r in a.table.rows] == [r.index for r in b.table.rows]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_same_as_in_memory_probability_weighted_grouped(tmp_path, fmt):
    f = _frame()
    path = tmp_path / f"d.{fmt}"
    (pq.write_table if fmt == "parquet" else pacsv.write_csv)(pa.table(f), path)
    for weight in (None, "w"):
        a = audit_duckdb(path, score="p", label="y", weight=weight, by="g", bins=12)
        b = vc.audit(f["p"], f["y"], bins=12, sample_weight=f[weight] if weight else None,
                     by={"g": f["g"]})
        _assert_same(a, b)
        assert set(a.groups) == set(b.groups)
        for key in b.groups:
            _assert_same(a.groups[key], b.groups[key])


def test_same_as_in_memory_logits_with_huge_values(tmp_path):
    f = _frame(seed=1)
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table(f), path)
    a = audit_duckdb(path, score="s", label="y", score_type="logit", threshold=0.3)
    b = vc.audit(f["s"], f["y"], score_type="logit", threshold=0.3)
    _assert_same(a, b)
    assert np.isfinite(a.nll)


def test_exact_auc_unweighted_equals_mann_whitney(tmp_path):
    f = _frame(seed=2)
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table(f), path)
    a = audit_duckdb(path, score="s", label="y", score_type="logit")
    assert a.auc == vc.auc(f["s"], f["y"], score_type="logit")  # bit-identical


def test_glob_of_files_equals_concatenation(tmp_path):
    parts = [_frame(1000, seed) for seed in range(3)]
    for i, part in enumerate(parts):
        pq.write_table(pa.table(part), tmp_path / f"part-{i}.parquet")
    whole = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    a = audit_duckdb(str(tmp_path / "part-*.parquet"), score="p", label="y")
    _assert_same(a, vc.audit(whole["p"], whole["y"]))


def test_out_of_core_under_a_small_memory_limit(tmp_path):
    rng = np.random.default_rng(5)
    n = 2_000_000  # grouping 2e6 distinct scores needs well over 64 MB: DuckDB must spill
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int8)
    path = tmp_path / "big.parquet"
    pq.write_table(pa.table({"p": p, "y": y}), path)
    con = duckdb.connect(config={"memory_limit": "64MB", "temp_directory": str(tmp_path / "spill"),
                                 "threads": 2, "preserve_insertion_order": False})
    a = audit_duckdb(path, score="p", label="y", connection=con)
    _assert_same(a, vc.audit(p, y))


@pytest.mark.parametrize(
    "rows, kwargs, match",
    [
        ("p,y\n0.1,0\n0.9,1\n", {"label": "label"}, r"column 'label' not found .*available columns: p, y"),
        ("p,y\n0.1,0\nnan,1\n", {}, r"column 'p' \(scores\) has 1 missing/NaN"),
        ("p,y\n0.1,0\n1.5,1\n", {}, r"probabilities in \[0, 1\].*score_type='logit'"),
        ("p,y\n0.1,0\n0.5,2\n", {}, r"column 'y' \(labels\) must be binary 0/1 \(or bool\); 1 of 2"),
        ("p,y\n", {}, r"no rows"),
        ("p,y\n0.1,0\n0.9,1\n", {"bins": 0}, r"bins must be a positive integer"),
        ("p,y\n0.1,0\n0.9,1\n", {"score_type": "odds"}, r"score_type must be"),
    ],
)
def test_bad_input(tmp_path, rows, kwargs, match):
    path = tmp_path / "d.csv"
    path.write_text(rows)
    with pytest.raises(vc.VeracityError, match=match):
        audit_duckdb(path, **{"score": "p", "label": "y", **kwargs})


def test_missing_file():
    with pytest.raises(vc.VeracityError, match="file not found"):
        audit_duckdb("/no/such/file.parquet")


def test_cli_engine_duckdb_matches_memory(capsys):
    import json

    from veracity.cli import main

    assert main(["audit", "--engine", "duckdb", "--by", "segment", "--json", "-"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(["audit", "--by", "segment", "--json", "-"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["engine"] == "duckdb"
    for key, value in b["metrics"].items():
        assert a["metrics"][key] == pytest.approx(value, rel=1e-12)
    assert set(a["groups"]) == set(b["groups"])


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--honest"], r"core audit only; drop --honest"),
        (["--score", "a,b"], r"one --score column"),
        (["--label", "nope"], r"column 'nope' not found"),
    ],
)
def test_cli_engine_duckdb_bad_input(capsys, argv, match):
    import re

    from veracity.cli import main

    assert main(["audit", "--engine", "duckdb", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(match, err), err
