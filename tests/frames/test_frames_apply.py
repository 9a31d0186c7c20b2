"""`veracity apply` streams Parquet batch by batch; `veracity fit --engine` fits where the data lives.

The oracle of a streamed apply is the in-memory ``transform`` of the whole column
(row for row, bit for bit: the map is elementwise); of an engine fit, the memory
engine's artifact.
"""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pandas as pd
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import veracity as vc
from veracity.cli import main
from veracity.frames import _apply

from .conftest import dataset

CALIBRATORS = {
    "temperature": lambda: vc.TemperatureScaling(),
    "platt": lambda: vc.PlattScaling(),
    "isotonic": lambda: vc.IsotonicCalibration(interpolation="linear"),
    "histogram": lambda: vc.HistogramBinning(bins=8, strategy="quantile"),
}


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("kind", list(CALIBRATORS))
def test_streamed_apply_equals_in_memory_transform(kind, tmp_path, capsys):
    df = dataset()
    df.to_parquet(tmp_path / "s.parquet", index=False)
    cal = CALIBRATORS[kind]().fit(df["p"].to_numpy(), df["y"].to_numpy(), metadata={"score_column": "p"})
    cal.save(tmp_path / "cal.json")
    code, out, err = _cli(capsys, "apply", str(tmp_path / "cal.json"), str(tmp_path / "s.parquet"),
                          "-o", str(tmp_path / "out.parquet"), "--batch-rows", "700")
    assert code == 0, err
    assert out == ""  # the result is a file; the note goes to stderr
    assert "applied" in err and "3000 rows" in err
    got = pq.read_table(tmp_path / "out.parquet").to_pandas()
    assert list(got.columns) == [*df.columns, "calibrated"]
    pd.testing.assert_frame_equal(got[df.columns], df)
    np.testing.assert_array_equal(got["calibrated"].to_numpy(), cal.transform(df["p"].to_numpy()))


def test_glob_input_csv_output_and_multiclass(tmp_path, capsys):
    rng = np.random.default_rng(4)
    n = 2400
    z = rng.normal(0, 2, (n, 3))
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = rng.integers(0, 3, n)
    df = pd.DataFrame({"id": np.arange(n), "c0": P[:, 0], "c1": P[:, 1], "c2": P[:, 2], "y": y})
    for i in range(3):
        df.iloc[i * 800:(i + 1) * 800].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    cal = vc.TemperatureScaling().fit(P, y)
    cal.save(tmp_path / "cal.json")
    code, _, err = _cli(capsys, "apply", str(tmp_path / "cal.json"), str(tmp_path / "part-*.parquet"),
                        "--score", "c0,c1,c2", "--out", str(tmp_path / "out.csv"), "--batch-rows", "300",
                        "--column", "q")
    assert code == 0, err
    got = pacsv.read_csv(tmp_path / "out.csv").to_pandas()
    assert list(got.columns) == [*df.columns, "q_0", "q_1", "q_2"]
    np.testing.assert_array_equal(got["id"].to_numpy(), np.arange(n))  # file order, then row order
    want = cal.transform(P)
    for k in range(3):  # CSV text holds the shortest repr that round-trips
        np.testing.assert_array_equal(got[f"q_{k}"].to_numpy(), want[:, k])


def test_streamed_apply_memory_is_bounded_by_the_batch(tmp_path, monkeypatch):
    n, batch = 400_000, 5_000
    rng = np.random.default_rng(0)
    p = rng.random(n)
    pq.write_table(pd.DataFrame({"p": p, "x": rng.random(n)}).pipe(
        lambda d: __import__("pyarrow").Table.from_pandas(d, preserve_index=False)),
        tmp_path / "big.parquet", row_group_size=batch)
    cal = vc.PlattScaling().fit(p[:5000], (rng.random(5000) < p[:5000]).astype(int))
    seen = []
    real = cal.transform

    def transform(s):
        seen.append(len(s))
        return real(s)

    monkeypatch.setattr(cal, "transform", transform)
    tracemalloc.start()
    done = _apply.apply_stream(cal, tmp_path / "big.parquet", tmp_path / "out.parquet", score="p", batch_rows=batch)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert (done.rows, done.batches) == (n, n // batch)
    assert max(seen) == batch and sum(seen) == n  # the calibrator never saw more than one batch
    # numpy never held more than a few batches' columns (one whole column is 3.2 MB)
    assert peak < 20 * batch * 8, peak
    out = pq.read_table(tmp_path / "out.parquet")
    np.testing.assert_array_equal(out["calibrated"].to_numpy(), real(p))


def test_apply_errors_are_one_line_with_exit_2(tmp_path, capsys):
    df = dataset(1000)
    cal = vc.PlattScaling().fit(df["p"].to_numpy(), df["y"].to_numpy(), metadata={"score_column": "p"})
    cal.save(tmp_path / "cal.json")
    bad = df.assign(p=np.where(np.arange(1000) == 742, np.nan, df["p"]))
    bad.to_parquet(tmp_path / "nan.parquet", index=False)
    df.assign(p=df["p"] * 3).to_parquet(tmp_path / "range.parquet", index=False)
    df.to_parquet(tmp_path / "ok.parquet", index=False)
    cases = {
        # the lazy contract's words (one wording on every route), the batch's rows and the file's row
        "nan.parquet": r"column 'p' \(scores\) has 1 missing/NaN and 0 infinite values of rows 601\.\.900, "
                       r"first at data row 743;",
        "range.parquet": r"rows 1\.\.300: .*probabilities",
    }
    for name, pattern in cases.items():
        code, out, err = _cli(capsys, "apply", str(tmp_path / "cal.json"), str(tmp_path / name),
                              "-o", str(tmp_path / "o.parquet"), "--batch-rows", "300")
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("veracity apply: input error: ")
        assert __import__("re").search(pattern, err), err
    for extra, pattern in [(["--score", "nope"], "column 'nope' not found"),
                           (["--column", "y"], "column 'y' already exists"),
                           (["--batch-rows", "0"], "--batch-rows must be a positive integer")]:
        code, _, err = _cli(capsys, "apply", str(tmp_path / "cal.json"), str(tmp_path / "ok.parquet"),
                            "-o", str(tmp_path / "o.parquet"), *extra)
        assert code == 2 and pattern in err and err.count("\n") == 1, err
    assert not (tmp_path / "o.parquet").exists()  # nothing half-written


# ---------------------------------------------------------------------------------------
# veracity fit --engine
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine, method", [("duckdb", m) for m in ("temperature", "platt", "isotonic", "histogram")]
                         + [("dask", "temperature"), ("dask", "isotonic")])
def test_fit_engine_equals_memory(method, engine, tmp_path, capsys):
    df = dataset()
    df["role"] = np.where(np.arange(len(df)) % 4 == 0, "test", "calib")
    df.to_parquet(tmp_path / "s.parquet", index=False)
    common = ["fit", str(tmp_path / "s.parquet"), "--score", "p", "--label", "y", "--weight", "w",
              "--method", method, "--role-col", "role", "--json", "-"]
    code, out, err = _cli(capsys, *common, "--engine", "memory", "--out", str(tmp_path / "m.json"))
    assert code == 0, err
    want = json.loads(out)
    code, out, err = _cli(capsys, *common, "--engine", engine, "--out", str(tmp_path / "e.json"))
    assert code == 0, err
    got = json.loads(out)
    assert "engine)" in err
    assert got["metadata"]["n_rows"] == want["metadata"]["n_rows"] == 2250
    assert got["metadata"]["role"] == "calib"
    for key, value in want["state"].items():
        if key in ("n_iter_", "trace_"):
            continue
        np.testing.assert_allclose(np.asarray(got["state"][key], float), np.asarray(value, float),
                                   rtol=1e-9, atol=1e-12, err_msg=key)


def test_fit_engine_auto_on_a_glob_and_errors(tmp_path, capsys):
    df = dataset()
    for i in range(3):
        df.iloc[i::3].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    glob = str(tmp_path / "part-*.parquet")
    code, out, err = _cli(capsys, "fit", glob, "--score", "p", "--label", "y", "--method", "temperature",
                          "--out", str(tmp_path / "t.json"))
    assert code == 0, err
    assert "lazily with DuckDB" in err
    tau = vc.load(tmp_path / "t.json").temperature_
    assert tau == pytest.approx(vc.TemperatureScaling().fit(df["p"], df["y"]).temperature_, rel=1e-9)
    for extra, pattern in [
        (["--method", "beta", "--engine", "duckdb"], "BetaCalibration fits on rows in memory; "
                                                     "on a lazy duckdb frame use --method temperature, platt"),
        # a lazy fit takes --pos-label (session 39), one the labels do not hold is refused
        (["--method", "platt", "--engine", "duckdb", "--pos-label", "7"], "--pos-label 7 is not among the values"),
        (["--method", "platt", "--role-col", "segment", "--fit-role", "west"], "no rows with role 'west'"),
        (["--method", "platt", "--role-col", "segment", "--fit-role", "west", "--engine", "memory"],
         "no rows with role 'west'"),
    ]:
        code, out, err = _cli(capsys, "fit", glob, "--score", "p", "--label", "y", *extra,
                              "--out", str(tmp_path / "x.json"))
        assert code == 2 and out == "", err
        lines = [line for line in err.splitlines() if not line.startswith("note: ")]  # auto's engine note
        assert len(lines) == 1 and lines[0].startswith("veracity fit: input error: ") and pattern in err, err
    assert "use --engine memory" in _cli(capsys, "fit", glob, "--score", "p", "--label", "y", "--method", "beta",
                                         "--engine", "duckdb", "--out", str(tmp_path / "x.json"))[2]
