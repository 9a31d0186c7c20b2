"""Helpers shared by the notebook read-through tests: execute a stored notebook, read a cell's result."""

from __future__ import annotations

from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[2] / "docs" / "notebooks"


def executed(name: str, tmp: Path) -> tuple[list, list]:
    """(code cells, markdown sources) of ``docs/notebooks/NAME.ipynb`` executed by nbclient in ``tmp``
    (the callers skip, with the reason, where nbformat, nbclient or ipykernel is missing)."""
    import nbclient
    import nbformat

    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp)}}).execute()
    return ([c for c in nb.cells if c.cell_type == "code"],
            [c.source for c in nb.cells if c.cell_type == "markdown"])


def result_data(cell) -> dict:
    """The mime bundle of a code cell's last result."""
    return [o for o in cell.outputs if o.output_type == "execute_result"][-1]["data"]
