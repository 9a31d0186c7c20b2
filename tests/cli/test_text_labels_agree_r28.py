"""A label column of text reads the same on every route of the command line (round 28).

Before: without ``--pos-label`` a column of 'yes'/'no' labels was "labels are not 0/1 numbers (values 'no',
'yes'); pass --pos-label naming the positive class, e.g. --pos-label yes" in memory (no column named) and
"column 'y' (labels) must hold 0/1 numbers or booleans, got String; pass --pos-label naming the positive
class, or map the two classes to 0 and 1 first" on DuckDB and Dask (no value shown, no example); with a
missing label among the text, memory refused the missing label and DuckDB/Dask the text. And the missing
labels' line named no count of rows, where the scores' line says "of N rows".
Expected words are built here from the files' own rows.
"""

from pathlib import Path

import pytest

ENGINES = ["memory", "duckdb", "dask"]

pytestmark = pytest.mark.usefixtures("engine_installed")  # tests/cli/conftest.py

#: (command as its error names it, its arguments after the file)
COMMANDS = [
    ("audit", ["audit"], []),
    ("fit", ["fit"], ["--method", "platt"]),
    ("monitor", ["monitor", "scan"], ["--time", "t", "--freq", "D"]),
]

#: the monitor's advice where a missing label may be one that has not arrived yet
PENDING = ("; or keep the rows whose label has not arrived as pending: pass --mature column (True where the "
           "label is final) or --as-of with --horizon")


def _file(tmp_path: Path, labels: list[str], write_csv) -> str:
    """A CSV of scores ``p``, labels ``y`` (an empty text: missing), times ``t`` and a second model's
    scores ``q``, one row per label."""
    rows = [(f"{0.15 + 0.1 * i:.2f}", y, f"2024-01-{i + 1:02d}", f"{0.9 - 0.1 * i:.2f}")
            for i, y in enumerate(labels)]
    return write_csv(tmp_path / "f.csv", "p,y,t,q", rows)


def _text_line(command: str, labels: list[str]) -> str:
    """The refusal of a label column of text: its sorted distinct values (the first five) and the fix."""
    values = sorted(set(labels))
    shown = ", ".join(repr(v) for v in values[:5])
    head = f"veracity {command}: input error: column 'y' (labels) must hold 0/1 numbers or booleans, got text"
    if len(values) == 2:
        return (f"{head} (values {shown}); pass --pos-label naming the positive class, e.g. "
                f"--pos-label {values[-1]}")
    return (f"{head} ({len(values)} values such as {shown}); binary labels need two values and --pos-label "
            "naming the positive one")


def _missing_line(command: str, labels: list[str]) -> str:
    """The refusal of the missing labels, of the rows read, naming the first one's data row."""
    gone = [i for i, v in enumerate(labels) if v == ""]
    n = len(gone)
    count, rows = ("1 missing value", "that row") if n == 1 else (f"{n} missing values", "those rows")
    return (f"veracity {command}: input error: column 'y' (labels) has {count} (None/NaN) of {len(labels)} "
            f"rows, first at data row {gone[0] + 1}; drop or fill {rows} first")


def _last_line(result) -> str:
    return result.err.rstrip("\n").splitlines()[-1]


def _out(tmp_path: Path, name: str) -> list[str]:
    return ["--out", str(tmp_path / "o.json")] if name == "fit" else []


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, command, more", COMMANDS, ids=[c[0] for c in COMMANDS])
@pytest.mark.parametrize("labels", [["yes", "no", "no", "yes", "no"], ["b", "a", "c", "a", "b"]],
                         ids=["two", "three"])
def test_text_labels_are_one_line_on_every_engine(cli, refused, tmp_path, write_csv, engine, name, command,
                                                  more, labels) -> None:
    r = cli([*command, _file(tmp_path, labels, write_csv), "--score", "p", "--label", "y", "--engine", engine,
             *more, *_out(tmp_path, name)])
    refused(r)
    assert _last_line(r) == _text_line(name, labels)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, command, more", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_missing_label_among_text_is_refused_first_on_every_engine(cli, refused, tmp_path, write_csv,
                                                                     engine, name, command, more) -> None:
    """Missing labels come first, as with --pos-label (which refuses them too): one fix at a time."""
    labels = ["yes", "no", "", "yes", "no"]
    r = cli([*command, _file(tmp_path, labels, write_csv), "--score", "p", "--label", "y", "--engine", engine,
             *more, *_out(tmp_path, name)])
    refused(r)
    assert _last_line(r) == _missing_line(name, labels) + (PENDING if name == "monitor" else "")


@pytest.mark.parametrize("command, more", [
    ("threshold", []), ("report", ["--out", "r.html"]), ("conformal", []), ("compare", ["--against", "q"]),
])
@pytest.mark.parametrize("missing", [False, True], ids=["text", "text-and-missing"])
def test_commands_read_in_memory_say_it_alike(cli, refused, tmp_path, write_csv, command, more,
                                              missing) -> None:
    labels = ["yes", "no", "" if missing else "no", "yes", "no"]
    extra = [str(tmp_path / m) if m.endswith(".html") else m for m in more]
    r = cli([command, _file(tmp_path, labels, write_csv), "--score", "p", "--label", "y", *extra])
    refused(r)
    assert _last_line(r) == (_missing_line if missing else _text_line)(command, labels)


@pytest.mark.parametrize("missing", [False, True], ids=["text", "text-and-missing"])
def test_segments_says_it_alike(cli, refused, tmp_path, write_csv, missing) -> None:
    labels = ["yes", "no", "" if missing else "no", "yes", "no", "yes"]
    path = _file(tmp_path, labels, write_csv)
    r = cli(["segments", path, "--score", "p", "--label", "y", "--features", "q"])
    refused(r)
    assert _last_line(r) == (_missing_line if missing else _text_line)("segments", labels)


def test_a_calibrator_without_a_positive_class_names_the_column(cli, refused, tmp_path, write_csv) -> None:
    """``compare --calibrator`` reads the calibrator's positive class after the rows: one fit without one
    still names the label column (before: the array form's "labels are not 0/1 numbers")."""
    fit = write_csv(tmp_path / "fit.csv", "p,y", [(f"{0.1 + 0.1 * i:.1f}", i % 2) for i in range(8)])
    cal = str(tmp_path / "cal.json")
    assert cli(["fit", fit, "--score", "p", "--label", "y", "--method", "platt", "--out", cal]).code == 0
    labels = ["yes", "no", "no", "yes", "no"]
    path = _file(tmp_path, labels, write_csv)
    r = cli(["compare", "--calibrator", cal, path, "--score", "p", "--label", "y"])
    refused(r)
    assert _last_line(r) == _text_line("compare", labels)


def test_a_calibrator_fit_with_a_positive_class_reads_text_labels(cli, tmp_path, write_csv) -> None:
    """...and one fit with ``--pos-label yes`` reads them with it, as before."""
    rows = [(f"{0.1 + 0.1 * i:.1f}", ("no", "yes")[i % 2]) for i in range(8)]
    fit = write_csv(tmp_path / "fit.csv", "p,y", rows)
    cal = str(tmp_path / "cal.json")
    assert cli(["fit", fit, "--score", "p", "--label", "y", "--pos-label", "yes", "--method", "platt",
                "--out", cal]).code == 0
    r = cli(["compare", "--calibrator", cal, _file(tmp_path, ["yes", "no", "no", "yes", "no"], write_csv),
             "--score", "p", "--label", "y"])
    assert r.code == 0, r.err
