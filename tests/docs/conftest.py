"""Helpers shared by the notebook read-through tests: execute a stored notebook (once per test run), read a
cell's result."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "docs" / "notebooks"


def execute(name: str, tmp: Path):
    """``docs/notebooks/NAME.ipynb`` executed by nbclient in a fresh kernel, its working directory ``tmp``
    (the callers skip, with the reason, where nbformat, nbclient or ipykernel is missing)."""
    import nbclient
    import nbformat

    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    # the kernel inherits one BLAS and one OpenMP thread from tests/conftest.py
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp)}}).execute()
    return nb


def cells_and_prose(nb) -> tuple[list, list]:
    """(code cells, markdown sources) of an executed notebook."""
    return ([c for c in nb.cells if c.cell_type == "code"],
            [c.source for c in nb.cells if c.cell_type == "markdown"])


@pytest.fixture(scope="session")
def notebook(tmp_path_factory):
    """``notebook(name)``: the notebook executed by nbclient once per test run, as :func:`execute` runs it
    (three files read the comparison and monitoring notebooks: each ran them again, ~4 s a run). The
    executed notebook is written to the run's temporary directory and read back afresh for each caller
    (a test cannot change what another reads); under pytest-xdist the workers share it (the first to
    ask executes it, the others wait on a file lock and read it), where ``fcntl`` is there."""
    import nbformat

    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: one execution per worker
        fcntl = None
    base = tmp_path_factory.getbasetemp()
    # the workers' directories (popen-gw0, ...) lie in the run's directory; without xdist the parent is
    # shared by every run, so stay in this run's own
    root = base.parent if fcntl is not None and os.environ.get("PYTEST_XDIST_WORKER") else base

    def run(name: str):
        target = root / f"docs-notebook-{name}.ipynb"
        with open(root / f"docs-notebook-{name}.lock", "w") as lock:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if not target.exists():
                    work = root / f"docs-notebook-{name}"
                    work.mkdir(exist_ok=True)
                    partial = root / f"docs-notebook-{name}.partial"
                    nbformat.write(execute(name, work), partial)
                    partial.replace(target)
            finally:
                if fcntl is not None:
                    fcntl.flock(lock, fcntl.LOCK_UN)
        return nbformat.read(target, as_version=4)

    return run


def result_data(cell) -> dict:
    """The mime bundle of a code cell's last result."""
    return [o for o in cell.outputs if o.output_type == "execute_result"][-1]["data"]
