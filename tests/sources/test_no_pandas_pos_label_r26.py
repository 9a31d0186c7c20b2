"""``--pos-label`` on the memory route never imports pandas, and reads the labels as before (round 26).

pandas is no runtime dependency of veracity (pyproject.toml). A file read with ``--engine memory`` is an
Arrow table; ``pos_label=`` read its label values (missing ones, distinct ones, the first few sorted) with
narwhals aggregates and mapped the labels with ``nw.when(col == nw.lit(value))``: on an Arrow table both
build a ``pa.array``/``pa.scalar``, which imports pandas (about half a second of every such command).
They are now read with ``pyarrow.compute`` and numpy (``sources._labels``). As in
tests/sources/test_no_pandas_refusals_r25.py the steps run in ONE fresh interpreter, which records after
each whether ``pandas`` is in ``sys.modules``.

The oracles for the new reading: the same labels written as 0/1 (the definition of ``pos_label``), and the
narwhals expressions themselves on a polars frame of the same columns (another implementation).
"""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import veracity as vc

#: each step a CLI argv, or ["frame", path]: vc.audit(pyarrow.csv.read_csv(path), pos_label="yes").
#: One JSON line of (exit code, pandas loaded by then)
PROGRAM = r"""
import contextlib, io, json, sys
from veracity.cli import main
out = []
for step in json.loads(sys.argv[1]):
    if step[0] == "frame":
        import pyarrow.csv
        import veracity as vc
        vc.audit(pyarrow.csv.read_csv(step[1]), score="p", label="y", pos_label="yes")
        rc = 0
    else:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            rc = main(step)
    out.append([rc, "pandas" in sys.modules])
print("\n" + json.dumps(out))
"""


def _rows(n: int = 120) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(26)
    p = np.round(rng.uniform(0.01, 0.99, n), 3)
    return p, (rng.uniform(size=n) < p).astype(int)


def _write(path, labels) -> str:
    p, _ = _rows()
    days = [f"2026-{1 + i % 3:02d}-{1 + i % 28:02d}T10:00:00Z" for i in range(p.size)]
    path.write_text("ts,p,y\n" + "".join(f"{t},{s},{y}\n" for t, s, y in zip(days, p, labels)))
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("pos_label")
    _, y = _rows()
    return {"text": _write(root / "text.csv", np.where(y == 1, "yes", "no")),
            "binary": _write(root / "binary.csv", y)}


def test_pos_label_never_imports_pandas(files: dict[str, str], tmp_path) -> None:
    """Before: each of these imported pandas (the first flag read True)."""
    common = ["--score", "p", "--label", "y", "--pos-label", "yes", "--engine", "memory"]
    steps = [["audit", files["text"], *common],
             ["fit", files["text"], "--method", "platt", "--out", str(tmp_path / "m.json"), *common],
             ["monitor", "scan", files["text"], "--time", "ts", *common],
             ["frame", files["text"]]]
    names = ["audit", "fit", "monitor scan", "frame: vc.audit(arrow table)"]
    done = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(steps)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert [rc for rc, _ in got] == [0, 0, 0, 0], list(zip(names, got))
    first = next((name for name, (_, flag) in zip(names, got) if flag), None)
    assert first is None, f"pandas was imported by: {first}"


@pytest.mark.parametrize("command", [["audit"], ["monitor", "scan"]])
def test_pos_label_reads_the_labels_as_zero_one(files: dict[str, str], cli, command: list[str]) -> None:
    """``--pos-label yes`` on yes/no labels is the same file with 1/0 labels (the definition)."""
    extra = ["--time", "ts"] if command[0] == "monitor" else []
    common = ["--score", "p", "--label", "y", *extra, "--engine", "memory", "--json"]
    text = cli([*command, files["text"], *common, "--pos-label", "yes"])
    binary = cli([*command, files["binary"], *common])
    assert text.code == binary.code == 0, (text.err, binary.err)
    got, want = json.loads(text.out), json.loads(binary.out)
    for payload in (got, want):
        payload.pop("file", None)
    if command[0] == "audit":
        assert got.pop("pos_label") == "yes"  # the audit names the class it read as positive (round 42)
    assert got == want


def _labels() -> dict[str, tuple[list, list]]:
    """label column -> (values, the pos_label settings read on it)."""
    n = 30
    yes_no = ["yes", "no", "no"] * (n // 3)
    return {
        "text": (yes_no, ["yes", "no", "maybe", 1]),
        "ints": ([3, 7, 7] * (n // 3), [7, "7", 3.0, "3", 5, "x"]),
        "bools": ([True, False, False] * (n // 3), [True, "true", "0", "FALSE", "yes"]),
        "floats": ([0.0, 2.5, 2.5] * (n // 3), [2.5, "2.5", 0, "1"]),
        "text with null": ([*yes_no[:-1], None], ["yes"]),
        "floats with NaN": ([0.0, 2.5, 2.5] * (n // 3 - 1) + [0.0, 2.5, math.nan], [2.5]),
        "three values": (["a", "b", "c"] * (n // 3), ["a"]),
    }


def _audit(frame, label: str, pos_label) -> str:
    """The audit as JSON (NaN equal to NaN), or the refusal's text."""
    try:
        return json.dumps(vc.audit(frame, score="p", label=label, pos_label=pos_label, bins=5).to_dict(),
                          sort_keys=True)
    except vc.VeracityError as exc:
        return str(exc)


@pytest.mark.parametrize("rows", [30, 0], ids=["rows", "empty"])
def test_an_arrow_table_reads_pos_label_as_the_narwhals_expressions_do(rows: int) -> None:
    """The Arrow table's reading (pyarrow.compute, numpy) equals the narwhals expressions' on a polars
    frame of the same columns: the audit, or the refusal word for word."""
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    p, _ = _rows(30)
    cases = _labels()
    columns = {name: pa.array(values[:rows]) for name, (values, _) in cases.items()}
    table = pa.table({"p": p[:rows], **columns})
    frame = pl.from_arrow(table)
    assert frame["floats with NaN"].is_nan().sum() == (1 if rows else 0)  # NaN kept apart from null
    for name, (_, settings) in cases.items():
        for pos_label in settings:
            got, want = _audit(table, name, pos_label), _audit(frame, name, pos_label)
            assert got == want, (name, pos_label)
            if rows and name == "text" and pos_label == "yes":
                assert json.loads(got)["n"] == rows
