"""``veracity monitor scan FILE --time ts`` on times with several UTC offsets never imports pandas (round 25).

pandas is no runtime dependency of veracity (pyproject.toml). A CSV whose time column mixes times with
and without a UTC offset stays text in Arrow's reader; the in-memory monitor refused it through the lazy
forms' checks, whose narwhals literals on an Arrow table build ``pa.array`` (which imports pandas), and
then said the column "is String ... cast it first". It is now read as the array form reads text times
(``monitoring._time.parse_time_strings`` on the column's own Arrow strings): refused in one line that
names the column and the two rows, without pandas. Times that all carry an offset (``+01:00``, ``Z``,
``-05:00``) are parsed by the reader and scanned, without pandas too.

As in tests/sources/test_no_pandas_globs_r24.py the steps run in ONE fresh interpreter and record after
each whether ``pandas`` is in ``sys.modules`` (once imported, every later flag reads True).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: each step a CLI argv (or ["frame", path]: vc.monitor on the Arrow table of the CSV); one JSON line
#: of (exit code, pandas loaded by then); stderr carries the refusals
PROGRAM = r"""
import json, sys
from veracity.cli import main
out = []
for step in json.loads(sys.argv[1]):
    if step[0] == "frame":
        import pyarrow.csv
        import veracity as vc
        try:
            vc.monitor(pyarrow.csv.read_csv(step[1]), score="p", label="y", periods="ts", freq="M")
            rc = 0
        except vc.VeracityError as exc:
            print(f"frame: {exc}", file=sys.stderr)
            rc = 2
    else:
        rc = main(step)
    out.append([rc, "pandas" in sys.modules])
print("\n" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("offsets")
    rows = "".join(f"{t},{p},{y}\n" for t, p, y in [
        ("2026-01-05T10:00:00+01:00", 0.2, 0), ("2026-01-06T10:00:00+02:00", 0.7, 1),
        ("2026-02-06T10:00:00Z", 0.4, 1), ("2026-02-07T10:00:00-05:00", 0.1, 0)])
    (root / "offsets.csv").write_text("ts,p,y\n" + rows)
    # row 0 without an offset, row 1 with one: no one reading of the column
    (root / "mixed.csv").write_text("ts,p,y\n2026-01-05T10:00:00,0.2,0\n" + rows)
    return {"offsets": str(root / "offsets.csv"), "mixed": str(root / "mixed.csv")}


def test_scan_of_mixed_utc_offsets_never_imports_pandas(files: dict[str, str]) -> None:
    scan = ["monitor", "scan", "{}", "--time", "ts", "--score", "p", "--label", "y"]
    late = ["--as-of", "2026-03-01", "--horizon", "30d"]
    steps = [[a.format(files["offsets"]) for a in scan], [a.format(files["offsets"]) for a in scan] + late,
             [a.format(files["mixed"]) for a in scan], [a.format(files["mixed"]) for a in scan] + late,
             ["frame", files["mixed"]]]
    names = ["offsets", "offsets, as-of/horizon", "mixed", "mixed, as-of/horizon", "vc.monitor on the table"]
    done = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(steps)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = [(rc, flag) for rc, flag in json.loads(done.stdout.strip().splitlines()[-1])]
    assert [rc for rc, _ in got] == [0, 0, 2, 2, 2], list(zip(names, got))
    first = next((name for name, (_, flag) in zip(names, got) if flag), None)
    assert first is None, f"pandas was imported by: {first}"
    # each refusal names the column and the two forms' first rows (0 without an offset, 1 with one; the
    # command line names them as data rows 1 and 2, round 27)
    refusals = [line for line in done.stderr.splitlines() if "mixes times with a UTC offset" in line]
    assert len(refusals) == 3, done.stderr[-3000:]
    for line in refusals:
        row = "data row " if line.startswith("veracity") else "row "
        first = 1 if row == "data row " else 0
        assert "column 'ts' (periods)" in line and f"({row}{first + 1}: '2026-01-05T10:00:00+01:00')" in line
        assert f"({row}{first}: '2026-01-05T10:00:00')" in line and "is String" not in line


def test_the_refusal_is_one_line_naming_the_column(files: dict[str, str], cli, refused) -> None:
    """In the array form's words (before: "column 'ts' (periods) is String; ... cast it first")."""
    for late in ([], ["--as-of", "2026-03-01", "--horizon", "30d"]):
        result = cli(["monitor", "scan", files["mixed"], "--time", "ts", "--score", "p", "--label", "y",
                      *late])
        refused(result, r"column 'ts' \(periods\) must be dates or datetimes in one ISO 8601 form, but "
                        r"it mixes times with a UTC offset")
