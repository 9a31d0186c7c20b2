"""``veracity fit --engine duckdb/dask/spark --pos-label X`` fits as ``--engine memory`` does (session 39).

The lazy CLI fit refused ``--pos-label`` ("--engine duckdb reads 0/1 (or true/false) labels; drop
--pos-label"), although the calibrators' fit on a frame takes ``pos_label=``. It now passes the text as
audit, report and segments pass it to a lazy frame, read in the label column's own type; the saved
calibrator (its map and its recorded ``pos_label``) is the memory route's on the same file: text labels
('yes'/'no'), integer labels with ``--pos-label 0``, boolean labels named by ``true``/``false``. Each test
fails before (exit 2) and passes now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import veracity as vc

pytestmark = pytest.mark.usefixtures("engine_installed")  # tests/cli/conftest.py

#: (file kind, the positive label's text in the file, the other label's, --pos-label)
_CASES = [("text", "yes", "no", "yes"), ("int0", "0", "3", "0"), ("bool", "true", "false", "true"),
          ("boolneg", "true", "false", "false")]


def _write(tmp_path: Path, pos: str, neg: str, name: str) -> Path:
    rng = np.random.default_rng(39)
    p = rng.uniform(0.05, 0.95, 120)
    y = rng.uniform(size=p.size) < p
    path = tmp_path / f"{name}.csv"
    path.write_text("p,y\n" + "".join(f"{s!r},{pos if t else neg}\n" for s, t in zip(p.tolist(), y)))
    return path


def _fit(cli: Any, tmp_path: Path, path: Path, engine: str, method: str, pos_label: str) -> Any:
    out = tmp_path / f"{engine}-{method}.json"
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", method, "--engine", engine,
             "--pos-label", pos_label, "--on-reversed" if method == "platt" else "--ties",
             "allow", "--out", out])
    assert r.code == 0, r.err
    return vc.load(out), json.loads(out.read_text())["metadata"]


def _same_fit(cli: Any, tmp_path: Path, engine: str, case: tuple[str, str, str, str], method: str) -> None:
    name, pos, neg, pos_label = case
    path = _write(tmp_path, pos, neg, name)
    mem, mem_meta = _fit(cli, tmp_path, path, "memory", method, pos_label)
    lazy, lazy_meta = _fit(cli, tmp_path, path, engine, method, pos_label)
    assert lazy_meta["pos_label"] == mem_meta["pos_label"] == pos_label
    assert lazy_meta["n_rows"] == mem_meta["n_rows"] == 120
    grid = np.linspace(0.01, 0.99, 99)
    np.testing.assert_allclose(lazy.transform(grid), mem.transform(grid), rtol=1e-9, atol=1e-12)
    # the positive class is the one named: the map rises with the score unless the negative class was named
    rising = float(mem.transform(np.array([0.9]))[0]) > float(mem.transform(np.array([0.1]))[0])
    assert rising == (pos_label == "yes" or pos_label in ("0", "true"))


@pytest.mark.parametrize("case", _CASES, ids=[c[0] for c in _CASES])
@pytest.mark.parametrize("method", ["platt", "isotonic"])
def test_duckdb_fit_with_pos_label_is_the_memory_fit(cli, tmp_path, case, method) -> None:
    _same_fit(cli, tmp_path, "duckdb", case, method)


@pytest.mark.parametrize("engine", ["dask", "spark"])
def test_dask_and_spark_fit_with_pos_label_is_the_memory_fit(cli, tmp_path, engine) -> None:
    """The other lazy engines (the engines group): one method; every kind of label on Dask, on Spark (each
    fit a JVM query, seconds) the integer and the negated boolean ones."""
    if engine == "spark":
        import shutil

        pytest.importorskip("pyspark")
        if shutil.which("java") is None:
            pytest.skip("Spark needs Java 17: run scripts/ensure-java.sh (make test does)")
    for case in _CASES if engine == "dask" else [c for c in _CASES if c[0] in ("int0", "boolneg")]:
        _same_fit(cli, tmp_path, engine, case, "platt")


def test_a_pos_label_naming_no_label_is_refused_as_in_memory(cli, refused, tmp_path) -> None:
    path = _write(tmp_path, "yes", "no", "text")
    for engine in ("memory", "duckdb"):
        refused(cli(["fit", path, "--score", "p", "--label", "y", "--method", "platt", "--engine", engine,
                     "--pos-label", "maybe", "--out", tmp_path / "x.json"]),
                r"--pos-label maybe is not among the values of column 'y' \(labels\) \('no', 'yes'\); "
                r"pass one")
