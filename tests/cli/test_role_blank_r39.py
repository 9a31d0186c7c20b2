"""A blank role cell is a row with no role, on every engine and in every command taking ``--role-col``
(session 39).

``veracity fit roles.csv --role-col role`` with one row's role ``'  '`` (text in a CSV; an empty string in
a Parquet file) read it as a role of its own and fit silently on the other calib rows, while Python's
``fit(frame, role=...)`` refuses "role has 1 missing value (None/NaN or empty text) ...". The command line
now refuses it in one line (exit 2) naming the column, the count (blank and missing roles together) and
the first one's data row: fit on memory, DuckDB, Dask and Spark; threshold, conformal, report and compare
(which read the rows in memory). Each test fails before (the commands ran) and passes now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("engine_installed")  # tests/cli/conftest.py

_N = 60


def _rows(blank: dict[int, str | None]) -> list[tuple[float, int, str | None]]:
    """``_N`` rows (score, label, role), alternately calib and test; ``blank``: data row (from 1) -> role."""
    rng = np.random.default_rng(7)
    p = rng.uniform(0.05, 0.95, _N)
    y = (rng.uniform(size=_N) < p).astype(int)
    roles: list[str | None] = ["calib" if i % 2 else "test" for i in range(_N)]
    for row, role in blank.items():
        roles[row - 1] = role
    return list(zip(p.tolist(), y.tolist(), roles))


def _csv(tmp_path: Path, blank: dict[int, str | None], name: str = "roles.csv") -> Path:
    path = tmp_path / name
    lines = (f"{p!r},{y},{'' if r is None else r}\n" for p, y, r in _rows(blank))
    path.write_text("p,y,role\n" + "".join(lines))
    return path


def _parquet(tmp_path: Path, blank: dict[int, str | None]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    p, y, r = zip(*_rows(blank))
    path = tmp_path / "roles.parquet"
    pq.write_table(pa.table({"p": list(p), "y": list(y), "role": pa.array(list(r), pa.string())}), path)
    return path


def _said(k: int, row: int | None) -> str:
    where = "" if row is None else f", first at data row {row}"
    count = "1 missing value" if k == 1 else f"{k} missing values"
    return (rf"input error: column 'role' \(roles\) has {count} \(None/NaN or empty text\) of {_N} "
            rf"rows{where}: a row with no role is in no split; drop or fill th")


def _fit(cli: Any, tmp_path: Path, path: Path, engine: str) -> Any:
    return cli(["fit", path, "--score", "p", "--label", "y", "--method", "platt", "--role-col", "role",
                "--engine", engine, "--out", tmp_path / "cal.json"])


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
@pytest.mark.parametrize("blank", ["  ", "\t"])
def test_fit_refuses_a_blank_role_in_a_csv(cli, refused, tmp_path, engine, blank) -> None:
    refused(_fit(cli, tmp_path, _csv(tmp_path, {5: blank}), engine), _said(1, 5))
    assert not (tmp_path / "cal.json").exists()


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_fit_refuses_an_empty_role_in_a_parquet_file_counted_with_the_missing_ones(cli, refused, tmp_path,
                                                                                   engine) -> None:
    """Parquet keeps an empty string as text (a CSV's empty cell is missing): both are rows with no role."""
    refused(_fit(cli, tmp_path, _parquet(tmp_path, {4: "", 9: None, 12: " "}), engine), _said(3, 4))


def test_fit_on_spark_refuses_a_blank_role(cli, refused, tmp_path, spark) -> None:
    """Spark (the engines group; the ``spark`` fixture: the suite's tuned session, which the CLI joins,
    skipped without pyspark or Java): the same line."""
    refused(_fit(cli, tmp_path, _csv(tmp_path, {5: "  "}), "spark"), _said(1, 5))


def test_every_command_taking_role_col_refuses_a_blank_role(cli, refused, tmp_path) -> None:
    clean = _csv(tmp_path, {}, "clean.csv")
    cal = tmp_path / "cal.json"
    assert _fit(cli, tmp_path, clean, "memory").code == 0
    path = _csv(tmp_path, {8: " ", 20: None})
    common = ["--score", "p", "--label", "y", "--role-col", "role"]
    for argv in (["threshold", path, *common, "--target-recall", "0.8"],
                 ["conformal", path, *common],
                 ["report", path, *common, "--out", tmp_path / "r.html", "--no-bootstrap"],
                 ["compare", path, *common, "--calibrator", cal]):
        refused(cli(argv), _said(2, 8))
    # without --role-col, the file's 'role' column is each row's split too
    refused(cli(["threshold", path, "--score", "p", "--label", "y", "--target-recall", "0.8"]), _said(2, 8))


def test_roles_with_spaces_around_a_name_are_not_blank(cli, tmp_path) -> None:
    """Guard (passes before and now): only a role of blank text is a missing one."""
    path = _csv(tmp_path, {6: "calib "})  # a calib row (even data rows are calib)
    r = _fit(cli, tmp_path, path, "memory")
    assert r.code == 0, r.err
    assert json.loads((tmp_path / "cal.json").read_text())["metadata"]["n_rows"] == _N // 2 - 1
