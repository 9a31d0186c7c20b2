"""Shared by the command-line tests that run one case per engine (memory, DuckDB, Dask)."""

from pathlib import Path

import pytest


@pytest.fixture
def engine_installed(request) -> None:
    """Skip a case whose ``engine`` parameter names an engine this environment lacks: DuckDB for every
    case (the monitoring store and the lazy routes' row lookups read through it), Dask for ``dask``.
    Used as ``pytestmark = pytest.mark.usefixtures("engine_installed")``."""
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    if "engine" not in params:
        return
    pytest.importorskip("duckdb")
    if params["engine"] == "dask":
        pytest.importorskip("dask.dataframe")


def _write_csv(path: Path, header: str, rows: list[tuple]) -> str:
    path.write_text(header + "\n" + "".join(",".join(str(v) for v in row) + "\n" for row in rows))
    return str(path)


@pytest.fixture
def write_csv():
    """``write_csv(path, "ts,p,y", [(…), …])`` → the path as text: a CSV of the header and the rows."""
    return _write_csv


@pytest.fixture
def platt_artifact(tmp_path, cli) -> Path:
    """A PlattScaling artifact fitted by ``veracity fit`` on 30 rows (the path of its JSON)."""
    fit = tmp_path / "fit.csv"
    fit.write_text("score,label\n" + "".join(f"{0.1 + 0.02 * i:.2f},{i % 2}\n" for i in range(30)))
    path = tmp_path / "cal.json"
    assert cli(["fit", fit, "--method", "platt", "--out", path, "-q"]).code == 0
    return path
