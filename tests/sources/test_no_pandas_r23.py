"""The command line never imports pandas on the memory engine's common paths (pandas is half a second of
every run and nothing there needs it).

Each command runs (``veracity.cli.main(argv)``) on the bundled demo CSV in an interpreter where pandas was
never imported, and says afterwards whether ``pandas`` is in ``sys.modules``: structural, never timed. The
commands share one interpreter, each run after the last (:class:`Interpreter`): a command that brought
pandas in (or failed) ends it, and the next command gets a fresh one, so each command's verdict is its own
(one fresh interpreter per command cost about a CPU second each: 21 of them, ~17 s of the suite). A
Parquet copy of the data is run for ``audit``, ``apply`` and ``monitor log`` only: the other file commands
read through audit's reader (apply streams Parquet on its own path, the store reads with its own). pyarrow
imports pandas inside ``to_numpy``, ``pa.array``, ``pa.scalar`` and ``pyarrow.dataset``; the columns are read
from Arrow's buffers instead (:mod:`veracity.sources._arrow_numpy`).
Text times are told apart without pandas when it is not loaded (``_monitor._value_kind``), which gives
pandas' answer on every mix of up to three of twenty kinds of value.
"""

import json
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from veracity.datasets import demo_path

#: the module's tests in one worker under ``make test`` (``-n 2 --dist loadgroup``):
#: the interpreter and files (~2 s of CPU) are made once; spread over both workers, each made it (r43)
pytestmark = pytest.mark.xdist_group(__name__)

#: run commands (one JSON argv a line on stdin) one after another; after each, one line on the stdout the
#: parent reads: its exit code and whether pandas is loaded by then (the commands' own output goes to stderr)
PROGRAM = (
    "import json, os, sys\n"
    "answers = os.fdopen(os.dup(1), 'w')\n"
    "os.dup2(2, 1)\n"
    "from veracity.cli import main\n"
    "for line in sys.stdin:\n"
    "    rc = main(json.loads(line))\n"
    "    sys.stdout.flush()\n"
    "    sys.stderr.flush()\n"
    "    answers.write(json.dumps([rc, 'pandas' in sys.modules]) + '\\n')\n"
    "    answers.flush()\n"
)


class PandasImported(AssertionError):
    """The command ran, and pandas was imported on the way."""


class Interpreter:
    """One interpreter running command after command (:data:`PROGRAM`); started on the first command, and
    again after a command that imported pandas or failed, so that every command starts without pandas."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.proc: subprocess.Popen[str] | None = None
        self.log: Any = None

    def run(self, argv: list[str]) -> None:
        if self.proc is None:
            self.log = tempfile.TemporaryFile("w+", dir=self.root)
            self.proc = subprocess.Popen([sys.executable, "-c", PROGRAM], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.log, text=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        start = self.log.tell()
        timer = threading.Timer(300, self.proc.kill)
        timer.start()
        try:
            self.proc.stdin.write(json.dumps(argv) + "\n")
            self.proc.stdin.flush()
            answer = self.proc.stdout.readline()
        except BrokenPipeError:
            answer = ""
        finally:
            timer.cancel()
        rc, pandas = json.loads(answer) if answer else (None, None)
        if rc != 0 or pandas is not False:
            self.log.seek(start)
            said = self.log.read()
            self.close()
            assert rc == 0, (argv, rc, said[-2000:])
            raise PandasImported(f"{argv[0]} imported pandas")

    def close(self) -> None:
        if self.proc is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            assert self.proc.stdout is not None
            self.proc.stdout.close()
            self.log.close()
            self.proc = None


@pytest.fixture(scope="module")
def interpreter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Interpreter]:
    shell = Interpreter(tmp_path_factory.mktemp("interpreter"))
    yield shell
    shell.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The demo data as CSV and Parquet, with a second score column (``p2``, for compare's two models)
    and a timestamp column (``ts``, for monitor); a saved calibrator; a monitoring store with the rows."""
    from veracity.cli import main

    root = tmp_path_factory.mktemp("nopandas")
    table = pacsv.read_csv(demo_path())
    table = table.append_column("p2", pc.sqrt(table.column("score")))
    table = table.append_column("ts", pc.strptime(pc.binary_join_element_wise(
        table.column("month"), pa.scalar("-15 12:00:00"), ""), format="%Y-%m-%d %H:%M:%S", unit="s"))
    out = {"csv": root / "demo.csv", "parquet": root / "demo.parquet", "cal": root / "cal.json",
           "store": root / "monitor.duckdb", "root": root}
    pacsv.write_csv(table, out["csv"])
    pq.write_table(table, out["parquet"])
    assert main(["fit", str(out["csv"]), "--method", "platt", "--score", "score", "--role-col", "role",
                 "--fit-role", "calib", "--out", str(out["cal"]), "-q"]) == 0
    assert main(["monitor", "init", str(out["store"])]) == 0
    assert main(["monitor", "log", str(out["store"]), str(out["csv"]), "--id", "id", "--time", "ts",
                 "--score", "score", "--by", "segment", "-q"]) == 0
    assert main(["monitor", "outcomes", str(out["store"]), str(out["csv"]), "--id", "id", "--label", "label",
                 "--time", "ts", "-q"]) == 0
    return out


#: (name, argv with {data} for the input file, whether to run it on the Parquet copy as well)
COMMANDS = [
    ("audit", "audit {data} --score score --label label", True),
    ("audit-by", "audit {data} --score score --label label --by segment", False),
    ("fit", "fit {data} --method isotonic --score score --role-col role --fit-role calib --out {root}/f.json",
     False),
    ("apply", "apply {cal} {data} -o {root}/applied.csv", True),
    ("compare-calibrator", "compare {data} --score score --calibrator {cal}", False),
    ("compare-models", "compare {data} --score score --against p2 --by segment", False),
    ("threshold", "threshold {data} --score score --target-recall 0.9", False),
    ("conformal", "conformal {data} --score score --alpha 0.1", False),
    ("segments", "segments {data} --score score --label label --features segment,month", False),
    ("report", "report {data} --score score --label label --by segment --no-bootstrap --out {root}/r.html",
     False),
    ("monitor-scan", "monitor scan {data} --score score --label label --time ts", False),
    ("monitor-scan-text", "monitor scan {data} --score score --label label --time month", False),
    ("monitor-log", "monitor log {store} {data} --id id --time ts --score score", True),
]


@pytest.mark.parametrize("kind, argv", [
    pytest.param(kind, argv, id=f"{name}-{kind}")
    for name, argv, parquet in COMMANDS
    for kind in (("csv", "parquet") if parquet else ("csv",))
])
def test_file_commands(files: dict[str, Path], interpreter: Interpreter, kind: str, argv: str) -> None:
    interpreter.run(argv.format(data=files[kind], root=files["root"], cal=files["cal"],
                                store=files["store"]).split())


@pytest.mark.parametrize("argv", [
    "monitor status {store} --freq M",
    "monitor recalibrate {store} --method platt --freq M --out {root}/rc.json",
    "export {cal} --sql duckdb",
    "demo audit",
])
def test_other_commands(files: dict[str, Path], interpreter: Interpreter, argv: str) -> None:
    interpreter.run(argv.format(root=files["root"], cal=files["cal"], store=files["store"]).split())


def test_text_times_are_told_apart_as_pandas_tells_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_object_times`` without pandas loaded (``sys.modules["pandas"] = None``: its fallback) reads,
    refuses or passes on every mix of up to three of twenty kinds of value as it does with pandas."""
    import datetime as dt
    import itertools
    from decimal import Decimal

    import numpy as np
    import pandas as pd

    from veracity.core._validation import VeracityError
    from veracity.monitoring._monitor import _object_times

    atoms = [pd.Timestamp("2026-01-05"), "2026-02-05", 1767571200, 1.5, float("nan"), None, Decimal("1.5"),
             True, np.bool_(False), dt.datetime(2026, 1, 1), dt.date(2026, 1, 1), np.datetime64("2026-01-01"),
             b"x", np.str_("a"), np.int64(3), np.float32(2.5), np.timedelta64(1, "s"), pd.NaT, np.nan, 1 + 2j]
    cases = [list(c) for k in (1, 2, 3) for c in itertools.combinations(atoms, k)]

    def outcome(values: list[object]) -> tuple[str, str]:
        raw = np.empty(len(values), dtype=object)
        raw[:] = values
        try:
            out = _object_times(raw)
        except VeracityError as exc:
            return "refused", str(exc)
        return str(out.dtype), repr(out.tolist())

    with_pandas = [outcome(c) for c in cases]
    for module in ("pandas", "pandas.api", "pandas.api.types"):  # as if never imported (or not installed)
        monkeypatch.setitem(sys.modules, module, None)
    without = [outcome(c) for c in cases]
    differ = [(c, a, b) for c, a, b in zip(cases, with_pandas, without) if a != b]
    assert not differ, differ[:5]
    assert {a[0] for a in with_pandas} >= {"refused", "float64", "object"}  # every branch is reached


def test_apply_columns_are_the_arrow_arrays_pa_array_makes() -> None:
    """The streamed apply's calibrated columns (1-D float arrays, a multiclass matrix's strided columns)
    as ``from_numpy`` makes them equal ``pa.array``'s, type and values (NaN a value, no nulls)."""
    import numpy as np

    from veracity.sources._arrow_numpy import from_numpy

    rng = np.random.default_rng(0)
    p = rng.random((7, 3))
    p[2, 1] = np.nan
    cols = [p[:, 0], p[:, 1], p[:, 2], p[:, 1].astype(np.float32), rng.random(5), np.empty(0)]
    for c in cols:
        made, expected = from_numpy(np.asarray(c)), pa.array(c)
        assert made.type == expected.type and made.null_count == expected.null_count == 0
        assert made.equals(expected) or np.array_equal(made.to_numpy(), expected.to_numpy(), equal_nan=True)
