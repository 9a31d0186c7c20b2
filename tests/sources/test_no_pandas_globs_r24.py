"""Globs, directories and monitoring times are read without importing pandas (round 24).

``import pyarrow.dataset`` imports pandas itself: its module builds ``Expression._scalar(...)`` at import,
and ``pa.scalar`` looks for pandas objects. Reading several files therefore goes through pyarrow's Parquet
and CSV readers (:func:`veracity.sources._scan.read_batches`), and the monitor's epoch seconds and its
refusal of mixed text times through Arrow's buffers (``pa.array`` imports pandas too).

The command lines run in ONE fresh interpreter, one after another, and record after each whether
``pandas`` is in ``sys.modules``: once a step imported it every later step reads True, so a run where
every flag is False shows that no step imported it (each interpreter costs about a second on two cores).
The readers are checked against ``pyarrow.dataset`` itself, the reader they replace: the same tables
(types, values, chunks, metadata) and the same record batches (the scan's sums are bit-identical).
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from veracity.datasets import demo_path

#: run each step (a CLI argv, or ["scan_file", path, group]) in turn; print one JSON line of
#: (exit code, pandas loaded by then)
PROGRAM = r"""
import json, sys
import numpy as np
from veracity.cli import main
import veracity as vc
out = []
for step in json.loads(sys.argv[1]):
    if step[0] == "scan_file":
        edges = np.linspace(0, 1, 11)
        result = vc.scan_file(step[1], score="score", label="label", edges=edges, group=step[2])
        rc = 0 if result.rows_read else 1
    else:
        rc = main(step)
    out.append([rc, "pandas" in sys.modules])
print("\n" + json.dumps(out))
"""


def run_steps(steps: list[list[str]]) -> list[tuple[int, bool]]:
    """``(exit code, pandas imported by then)`` after each step, all in one fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(steps)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return [(rc, flag) for rc, flag in json.loads(done.stdout.strip().splitlines()[-1])]


def demo() -> pa.Table:
    table = pacsv.read_csv(demo_path())
    return table.select(["id", "score", "label", "segment", "month"])


def write_parquet_tree(root: Path, table: pa.Table, paths: list[str]) -> None:
    """``table`` split over ``paths`` below ``root`` (in order, nearly equal parts)."""
    bounds = np.linspace(0, table.num_rows, len(paths) + 1).astype(int)
    for path, a, b in zip(paths, bounds[:-1], bounds[1:]):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table.slice(a, b - a), root / path)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The demo data as a glob of CSVs, a glob of Parquets (labels int64 in one, double in another: the
    unified schema), a directory of Parquets, a hive-partitioned directory; epoch-second and mixed text
    times for the monitoring store."""
    root = tmp_path_factory.mktemp("globs")
    table = demo()
    half = table.num_rows // 2
    (root / "c").mkdir()
    pacsv.write_csv(table.slice(0, half), root / "c" / "a.csv")
    pacsv.write_csv(table.slice(half), root / "c" / "b.csv")
    (root / "p").mkdir()
    pq.write_table(table.slice(0, half), root / "p" / "a.parquet")
    rest = table.slice(half)
    doubles = rest.set_column(2, "label", rest.column("label").cast(pa.float64()))
    pq.write_table(doubles, root / "p" / "b.parquet")
    write_parquet_tree(root / "d", table, ["x/1.parquet", "2.parquet", "y/z/3.parquet"])
    write_parquet_tree(root / "h", table, ["year=2025/part-0.parquet", "year=2026/part-0.parquet"])
    n = table.num_rows
    epoch = 1767571200 + 86400 * 10 * (np.arange(n) % 9)  # 2026-01-05 onwards, every ten days
    pacsv.write_csv(table.append_column("ts", pa.array(epoch)), root / "epoch.csv")
    with open(root / "mixed.csv", "w") as fh:  # times with and without a UTC offset: refused
        fh.write("id,score,ts\n" + "".join(f"m{i},0.5,2026-02-0{1 + i}T10:00:00{'+02:00' if i else ''}\n"
                                           for i in range(4)))
    return {"csv": str(root / "c" / "*.csv"), "parquet": str(root / "p" / "*.parquet"),
            "dir": str(root / "d"), "hive": str(root / "h"), "epoch": str(root / "epoch.csv"),
            "mixed": str(root / "mixed.csv"), "store": str(root / "m.duckdb"), "root": str(root)}


#: (what, argv with {names} from ``files``, expected exit code)
STEPS = [
    ("glob of CSVs (read into memory by threshold)", "threshold {csv} --score score --label label "
                                                      "--target-recall 0.9", 0),
    ("glob of Parquets, int64 and double labels",
     "audit {parquet} --score score --label label --engine memory", 0),
    ("directory of Parquets", "conformal {dir} --score score --alpha 0.1", 0),
    ("hive-partitioned directory",
     "audit {hive} --score score --label label --by segment --engine memory", 0),
    ("store: init", "monitor init {store}", 0),
    ("store: log epoch-second times", "monitor log {store} {epoch} --id id --time ts --score score -q", 0),
    ("store: log mixed text times (refused)",
     "monitor log {store} {mixed} --id id --time ts --score score -q", 2),
    ("store: status", "monitor status {store} --freq M", 0),
    ("monitor scan of epoch-second times", "monitor scan {epoch} --score score --label label --time ts", 0),
]


def test_globs_directories_and_times_never_import_pandas(files: dict[str, str]) -> None:
    steps = [argv.format(**files).split() for _, argv, _ in STEPS]
    steps += [["scan_file", files["dir"], "segment"], ["scan_file", files["epoch"], "month"]]
    names = [what for what, _, _ in STEPS] + ["scan_file of a directory", "scan_file of a CSV"]
    want = [rc for _, _, rc in STEPS] + [0, 0]
    got = run_steps(steps)
    assert [rc for rc, _ in got] == want, list(zip(names, got))
    first = next((name for name, (_, flag) in zip(names, got) if flag), None)
    assert first is None, f"pandas was imported by: {first}"


# -- the readers equal pyarrow.dataset, the reader they replace ----------------------------------------
def dataset_table(files: list[str], kind: str, columns: list[str] | None, schema: pa.Schema | None,
                  delimiter: str) -> pa.Table:
    """The old reading of a glob: ``pyarrow.dataset`` over the expanded files (as round 23 read them)."""
    import pyarrow.dataset as ds

    fmt = kind if kind == "parquet" else ds.CsvFileFormat(
        parse_options=pacsv.ParseOptions(delimiter=delimiter),
        convert_options=pacsv.ConvertOptions(strings_can_be_null=True))
    dataset = ds.dataset(files, format=fmt, schema=schema)
    wanted = columns if columns and all(c in dataset.schema.names for c in columns) else None
    return dataset.to_table(columns=wanted)


def same(a: pa.Table, b: pa.Table) -> None:
    assert a.schema.equals(b.schema, check_metadata=True), (a.schema, b.schema)
    assert a.equals(b)
    def chunks(t: pa.Table) -> list[list[int]]:
        return [[len(c) for c in col.chunks] for col in t.columns]

    assert chunks(a) == chunks(b)


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Globs whose files differ: types to unify, a missing column, text and numbers, row groups, CSV
    blocks over pyarrow.dataset's 131,072-row batches, a semicolon-delimited pair with empty cells."""
    root = tmp_path_factory.mktemp("shapes")
    rng = np.random.default_rng(24)
    n = 200_000
    big = pa.table({"p": rng.random(n).round(3), "y": rng.integers(0, 2, n)})

    def put(name: str, *tables: pa.Table, **kw: int) -> None:
        (root / name).mkdir()
        for i, t in enumerate(tables):
            pq.write_table(t, root / name / f"{i}.parquet", **kw)

    put("rowgroups", big, big.slice(0, 999), row_group_size=60_000)
    put("promote", pa.table({"p": [0.5, 0.2], "y": [1, 0]}), pa.table({"p": [1, 0], "y": [1.0, 0.0]}))
    put("flags", pa.table({"p": [0.5, 0.2], "y": [True, False]}), pa.table({"p": [0.1, 0.3], "y": [1, 0]}))
    put("missing", pa.table({"p": [0.5, 0.2], "y": [1, 0]}), pa.table({"p": [0.1], "y": [1], "w": [2.0]}))
    put("text", pa.table({"p": ["0.5", "0.2"], "y": [1, 0]}), pa.table({"p": [0.1, 0.3], "y": [1, 0]}))
    (root / "csv").mkdir()
    pacsv.write_csv(big, root / "csv" / "a.csv")
    pacsv.write_csv(big.slice(0, 10), root / "csv" / "b.csv")
    (root / "semi").mkdir()
    (root / "semi" / "a.csv").write_text("p;y;g\n0.1;1;u\n0.2;0;\n")
    (root / "semi" / "b.csv").write_text("p;y;g\n0.5;1;x\n;0;\n")
    return root


@pytest.mark.parametrize("name", ["rowgroups", "promote", "flags", "missing", "text", "csv", "semi"])
@pytest.mark.parametrize("columns", [None, ["p", "y"], ["p", "w"]])
def test_read_files_equals_pyarrow_dataset(shapes: Path, name: str, columns: list[str] | None) -> None:
    from veracity._files import expand
    from veracity.sources._api import _booleans_as_int64, read_files

    pattern = str(shapes / name / "*")
    files, kind = expand(pattern)
    schema = None
    if kind == "parquet":
        try:
            schema = pa.unify_schemas(_booleans_as_int64([pq.read_schema(f) for f in files]),
                                      promote_options="permissive")
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            schema = None
    delimiter = ";" if name == "semi" else ","
    same(read_files(pattern, columns), dataset_table(files, kind, columns, schema, delimiter))


def test_directory_files_and_batches_are_pyarrow_datasets(tmp_path: Path) -> None:
    """A directory lists the files pyarrow.dataset lists (names under ``.``/``_`` skipped at any depth,
    sorted by path text) and yields its record batches (row groups cut at ``batch_rows``)."""
    import pyarrow.dataset as ds

    from veracity.sources._scan import dataset_files, read_batches

    rng = np.random.default_rng(7)
    for i, name in enumerate(["z.parquet", "b/1.parquet", "a/2.parquet", "a/_x/3.parquet", ".h/4.parquet",
                              "a/c/5.parquet", "_6.parquet", ".7.parquet", "B/8.parquet", "a10.parquet",
                              "a-1.parquet"]):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        rows = 3000 + i
        pq.write_table(pa.table({"p": rng.random(rows), "y": rng.integers(0, 2, rows)}), tmp_path / name,
                       row_group_size=1100)
    dataset = ds.dataset(str(tmp_path), format="parquet")
    files = dataset_files(tmp_path)
    assert files == dataset.files
    for rows in (500, 1 << 20):
        ours = list(read_batches(files, "parquet", dataset.schema, ["y", "p"], batch_rows=rows))
        theirs = list(dataset.to_batches(columns=["y", "p"], batch_size=rows))
        assert [b.num_rows for b in ours] == [b.num_rows for b in theirs]
        assert all(a.equals(b) for a, b in zip(ours, theirs))


def test_csv_batches_are_pyarrow_datasets(shapes: Path) -> None:
    """A CSV file's batches are the dataset's: its blocks, cut at ``batch_rows``."""
    import pyarrow.dataset as ds

    from veracity.sources._scan import csv_schema, read_batches

    path = str(shapes / "csv" / "a.csv")
    for rows in (7000, 1 << 20):
        ours = list(read_batches([path], "csv", csv_schema(path), ["p", "y"], batch_rows=rows))
        theirs = list(ds.dataset(path, format="csv").to_batches(columns=["p", "y"], batch_size=rows))
        assert [b.num_rows for b in ours] == [b.num_rows for b in theirs]
        assert all(a.equals(b) for a, b in zip(ours, theirs))


def test_an_empty_csv_in_a_glob_is_named(tmp_path: Path) -> None:
    """Before: pyarrow.dataset's words, cut at 200 characters ("... Is this a 'csv' file?: Could not open CSV
    input source '.../a.csv': Invalid: CSV par")."""
    from veracity.core._validation import VeracityError
    from veracity.sources._api import read_files

    (tmp_path / "a.csv").write_text("p,y\n0.5,1\n")
    (tmp_path / "b.csv").write_text("")
    with pytest.raises(VeracityError) as info:
        read_files(str(tmp_path / "*.csv"))
    assert str(info.value) == (f"could not read {tmp_path / '*.csv'} as CSV: {tmp_path / 'b.csv'} is empty; "
                               "it has no header and no rows")
