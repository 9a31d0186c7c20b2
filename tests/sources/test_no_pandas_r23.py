"""The command line never imports pandas on the memory engine's common paths (pandas is half a second of
every run and nothing there needs it).

Each command runs in a fresh interpreter (``veracity.cli.main(argv)``), on the bundled demo CSV and on a
Parquet copy of it, and says afterwards whether ``pandas`` is in ``sys.modules``: structural, never
timed. pyarrow imports pandas inside ``to_numpy``, ``pa.array`` and ``pyarrow.dataset``; the columns
are read from Arrow's buffers instead (:mod:`veracity.sources._arrow_numpy`). The paths that still
import it through modules owned elsewhere are strict xfails naming the line.
"""

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from veracity.datasets import demo_path

#: run one command in a fresh interpreter; the last stderr line says its exit code and whether pandas came in
PROGRAM = (
    "import sys\n"
    "from veracity.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "sys.stderr.write(f\"\\nrc={rc} pandas={'pandas' in sys.modules}\\n\")\n"
)


class PandasImported(AssertionError):
    """The command ran, and pandas was imported on the way."""


def run(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM, *argv], capture_output=True, text=True, timeout=300)
    last = done.stderr.rstrip().splitlines()[-1] if done.stderr.strip() else ""
    assert done.returncode == 0 and last.startswith("rc=0 "), (argv, done.returncode, done.stderr[-2000:])
    if last != "rc=0 pandas=False":
        raise PandasImported(f"{argv[0]} imported pandas")


def xfail(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(raises=PandasImported, strict=True, reason=reason)


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


# pandas imported in modules owned elsewhere (the line that imports it first)
APPLY_STREAM = xfail("streamed Parquet input: frames/_apply.py:151 pa.array(c) imports pandas")
DEMO = xfail("datasets.py:32 (load_demo): table.column(name).to_numpy() imports pandas")
TEXT_TIMES = xfail("monitoring/_monitor.py:332 (_object_times) imports pandas.api.types for text times")
STORE_IN = xfail("monitoring/_store.py:1036 (_score_column), :1060 (_label_column): to_numpy imports pandas")

#: (name, argv with {data} for the input file, marks on CSV, marks on Parquet)
COMMANDS = [
    ("audit", "audit {data} --score score --label label", (), ()),
    ("audit-by", "audit {data} --score score --label label --by segment", (), ()),
    ("fit", "fit {data} --method isotonic --score score --role-col role --fit-role calib --out {root}/f.json",
     (), ()),
    ("apply", "apply {cal} {data} -o {root}/applied.csv", (), (APPLY_STREAM,)),
    ("compare-calibrator", "compare {data} --score score --calibrator {cal}", (), ()),
    ("compare-models", "compare {data} --score score --against p2 --by segment", (), ()),
    ("threshold", "threshold {data} --score score --target-recall 0.9", (), ()),
    ("conformal", "conformal {data} --score score --alpha 0.1", (), ()),
    ("segments", "segments {data} --score score --label label --features segment,month", (), ()),
    ("report", "report {data} --score score --label label --by segment --no-bootstrap --out {root}/r.html",
     (), ()),
    ("monitor-scan", "monitor scan {data} --score score --label label --time ts", (), ()),
    ("monitor-scan-text", "monitor scan {data} --score score --label label --time month", (TEXT_TIMES,),
     (TEXT_TIMES,)),
    ("monitor-log", "monitor log {store} {data} --id id --time ts --score score", (STORE_IN,), (STORE_IN,)),
]


@pytest.mark.parametrize("kind, argv", [
    pytest.param(kind, argv, id=f"{name}-{kind}", marks=list(marks))
    for name, argv, csv_marks, parquet_marks in COMMANDS
    for kind, marks in (("csv", csv_marks), ("parquet", parquet_marks))
])
def test_file_commands(files: dict[str, Path], kind: str, argv: str) -> None:
    run(argv.format(data=files[kind], root=files["root"], cal=files["cal"], store=files["store"]).split())


@pytest.mark.parametrize("argv", [
    "monitor status {store} --freq M",
    "monitor recalibrate {store} --method platt --freq M --out {root}/rc.json",
    "export {cal} --sql duckdb",
    pytest.param("demo audit", marks=DEMO),
])
def test_other_commands(files: dict[str, Path], argv: str) -> None:
    run(argv.format(root=files["root"], cal=files["cal"], store=files["store"]).split())
