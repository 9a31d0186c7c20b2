"""The in-memory monitor's refusals of bad rows never import pandas, and say what DuckDB says (round 25).

pandas is no runtime dependency of veracity (pyproject.toml). ``veracity monitor scan FILE --time ts``
on the memory route reads the CSV into an Arrow table; when the array code refuses the rows (a label 2,
a missing final label), the frame form names the column with the lazy forms' contract counts. Those were
narwhals expressions on the Arrow table, whose literals and aggregates build ``pa.array`` (which imports
pandas); the ``--mature`` flags were read through ``fill_null`` (a literal too). They are now counted in
numpy (``sources._aggregates.contract_arrays``, the numpy pass Dask's partitions already made) in the
same words: the oracle is ``--engine duckdb`` on the same file, whose counts DuckDB makes.

As in tests/sources/test_no_pandas_offsets_r25.py the steps run in ONE fresh interpreter and record after
each whether ``pandas`` is in ``sys.modules`` (once imported, every later flag reads True).
"""

import json
import subprocess
import sys

import numpy as np
import pytest

#: each step a CLI argv, or ["frame", path, {options}]: vc.monitor on the Arrow table of the CSV. One JSON
#: line of (exit code, pandas loaded by then, the refusal's text or "")
PROGRAM = r"""
import contextlib, io, json, sys
from veracity.cli import main
out = []
for step in json.loads(sys.argv[1]):
    err = io.StringIO()
    if step[0] == "frame":
        import pyarrow.csv
        import veracity as vc
        try:
            vc.monitor(pyarrow.csv.read_csv(step[1]), score="p", label="y", periods="ts", freq="M", **step[2])
            rc = 0
        except vc.VeracityError as exc:
            err.write(str(exc))
            rc = 2
    else:
        with contextlib.redirect_stderr(err):
            rc = main(step)
    out.append([rc, "pandas" in sys.modules, err.getvalue().strip()])
print("\n" + json.dumps(out))
"""

ROWS = [("2026-01-05T10:00:00Z", "0.2", "0", "true"), ("2026-01-06T10:00:00Z", "0.7", "1", "true"),
        ("2026-02-06T10:00:00Z", "0.4", "1", ""), ("2026-02-07T10:00:00Z", "0.1", "0", "false")]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("refusals")
    tables = {
        "good": ROWS,
        "label2": [*ROWS, ("2026-02-08T10:00:00Z", "0.5", "2", "true")],
        "no_label": [*ROWS, ("2026-02-08T10:00:00Z", "0.5", "", "true")],
        "score15": [*ROWS, ("2026-02-08T10:00:00Z", "1.5", "0", "true")],
    }
    for name, rows in tables.items():
        (root / f"{name}.csv").write_text("ts,p,y,m\n" + "".join(",".join(r) + "\n" for r in rows))
    return {name: str(root / f"{name}.csv") for name in tables}


def run_steps(steps: list[list]) -> list[tuple[int, bool, str]]:
    done = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(steps)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return [tuple(step) for step in json.loads(done.stdout.strip().splitlines()[-1])]


def scan(path: str, *extra: str, engine: str = "memory") -> list[str]:
    return ["monitor", "scan", path, "--time", "ts", "--score", "p", "--label", "y", "--engine", engine,
            *extra]


LATE = ("--as-of", "2026-03-01", "--horizon", "1d")


def test_refusals_and_mature_flags_never_import_pandas(files: dict[str, str]) -> None:
    """Before: the label refusals and ``--mature`` imported pandas (the first flag read True)."""
    steps = [scan(files["good"]), scan(files["good"], "--mature", "m"), scan(files["label2"]),
             scan(files["label2"], *LATE), scan(files["no_label"], *LATE),
             ["frame", files["label2"], {}], ["frame", files["score15"], {}],
             ["frame", files["no_label"], {"as_of": "2026-03-01", "horizon": "1d"}],
             ["frame", files["score15"], {"mature": "m"}]]
    names = ["scan", "scan --mature", "label 2", "label 2, as-of", "missing label, as-of", "frame: label 2",
             "frame: p 1.5", "frame: missing label, as_of", "frame: p 1.5, mature"]
    got = run_steps(steps)
    assert [rc for rc, _, _ in got] == [0, 0, 2, 2, 2, 2, 2, 2, 2], list(zip(names, got))
    first = next((name for name, (_, flag, _) in zip(names, got) if flag), None)
    assert first is None, f"pandas was imported by: {first}"
    refusals = [text for _, _, text in got[2:]]
    assert all(text.count("\n") == 0 and "column 'y' (labels)" in text for text in refusals[:4]), refusals
    assert "column 'p' (scores) must be probabilities in [0, 1]" in refusals[4], refusals[4]


@pytest.mark.parametrize("name, extra", [("label2", ()), ("label2", LATE), ("no_label", LATE)])
def test_the_memory_refusal_is_duckdbs(files: dict[str, str], cli, name: str, extra: tuple[str, ...]) -> None:
    """The numpy counts give DuckDB's line (its own aggregates: another implementation of the contract)."""
    memory, duckdb = (cli(scan(files[name], *extra, engine=e)) for e in ("memory", "duckdb"))
    assert memory.code == duckdb.code == 2, (memory.err, duckdb.err)
    # since session 26 the memory route names the first final row with --as-of too: the same line
    assert memory.err == duckdb.err


def test_contract_arrays_is_contract_counts() -> None:
    """The numpy counts equal the narwhals aggregate's, field by field (polars computes the latter), on
    rows with every kind of break: NaN, ±inf, out-of-range scores, labels 2 and -1, NaN and negative
    weights."""
    nw = pytest.importorskip("narwhals")
    pl = pytest.importorskip("polars")
    from veracity.sources._aggregates import contract_arrays, contract_counts

    rng = np.random.default_rng(25)
    n = 400
    s = rng.uniform(-0.2, 1.2, n)
    s[rng.choice(n, 9, replace=False)] = np.nan
    s[rng.choice(n, 3, replace=False)] = np.inf
    y = rng.integers(-1, 3, n).astype(np.float64)
    y[rng.choice(n, 7, replace=False)] = np.nan
    w = rng.exponential(size=n) - 0.1
    w[rng.choice(n, 4, replace=False)] = np.nan
    for rows in (slice(None), slice(0, 0), np.isfinite(s) & ((y == 0) | (y == 1))):
        frame = nw.from_native(pl.DataFrame({"_s": s[rows], "_y": y[rows], "_w": w[rows]},
                                            nan_to_null=False))
        for weighted in (True, False):
            want = contract_counts(frame, score_type="probability", weighted=weighted)
            got = contract_arrays(s[rows], y[rows], w[rows] if weighted else None)
            assert got.keys() == want.keys()
            for key in want:
                if key == "y_sum" and np.isnan(y[rows]).any():
                    continue  # over NaN labels: NaN in polars, the finite ones in numpy (read by no check)
                assert (got[key] is None) == (want[key] is None), (key, got[key], want[key])
                if want[key] is not None:
                    assert got[key] == pytest.approx(want[key], rel=1e-12), (key, got[key], want[key])


def test_a_text_score_column_never_imports_pandas(tmp_path) -> None:
    """Before (round 26): ``_refuse_empty_column`` counted the column with ``nw.len()`` on the Arrow
    table and ``_not_numbers`` parsed it with ``pandas.to_numeric``; now its length and null count, and a
    ``pyarrow.compute`` match."""
    path = tmp_path / "text.csv"
    body = "".join(f"{t},{p},{y}\n" for t, p, y, _ in ROWS)
    path.write_text("ts,p,y\n" + body + "2026-02-08T10:00:00Z,abc,0\n")
    (rc, flag, text), = run_steps([scan(str(path))])
    assert rc == 2 and "column 'p' (scores) must be numeric" in text
    assert not flag
