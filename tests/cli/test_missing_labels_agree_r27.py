"""A missing label reads the same on every route of the command line (round 27, after the routes agreed on
a missing text label under ``--pos-label``).

Before: without ``--pos-label`` a missing 0/1 label was "column 'y' has 1 missing/NaN and 0 infinite values
of 3 rows, first at data row 2; drop or fill those rows first" in memory (no role, and infinite values no
label can have) and "column 'y' (labels) must be binary 0/1 (or bool); 1 of 3 are not (missing) ...; map the
two classes to 0 and 1 and drop unlabelled rows" on DuckDB and Dask (a missing label is not a label outside
0/1); ``monitor scan`` said how to keep pending rows on DuckDB and Dask only, and not with ``--pos-label``;
``segments`` named no row of a missing label or score; a column of text labels without ``--pos-label`` was
"..., first at data row 1" on DuckDB and Dask, where memory names no row (every row is text).
Expected words are built here from the files' own rows.
"""

from pathlib import Path

import pytest

ENGINES = ["memory", "duckdb", "dask"]

pytestmark = pytest.mark.usefixtures("engine_installed")  # tests/cli/conftest.py

#: the monitor's advice where a missing label may be one that has not arrived yet
PENDING = ("; or keep the rows whose label has not arrived as pending: pass --mature column (True where the "
           "label is final) or --as-of with --horizon")


def _file(tmp_path: Path, labels: list[str], *, scores: list[str] | None = None,
          mature: list[str] | None = None, times: list[str] | None = None) -> str:
    """A CSV of scores ``p``, labels ``y`` (an empty text: missing), times ``t``, flags ``m`` and a second
    model's scores ``q``, one row per label."""
    n = len(labels)
    p = scores or [f"{0.15 + 0.1 * i:.2f}" for i in range(n)]
    t = times or [f"2024-01-{i + 1:02d}" for i in range(n)]
    m = mature or ["true"] * n
    rows = "".join(f"{p[i]},{labels[i]},{t[i]},{m[i]},{0.9 - 0.1 * i:.2f}\n" for i in range(n))
    path = tmp_path / "f.csv"
    path.write_text("p,y,t,m,q\n" + rows)
    return str(path)


def _labels_line(command: str, labels: list[str], among: list[bool] | None = None) -> str:
    """The refusal of the missing labels (of the rows ``among`` marks: those whose label is final), of the
    rows read (round 28: the count of rows, as the scores' line says it)."""
    gone = [i for i, v in enumerate(labels) if v == "" and (among is None or among[i])]
    n = len(gone)
    read = len(labels) if among is None else sum(among)
    count, rows = ("1 missing value", "that row") if n == 1 else (f"{n} missing values", "those rows")
    return (f"veracity {command}: input error: column 'y' (labels) has {count} (None/NaN) of {read} rows, "
            f"first at data row {gone[0] + 1}; drop or fill {rows} first")


def _last_line(result) -> str:
    return result.err.rstrip("\n").splitlines()[-1]


_TEXT = {"1": "yes", "0": "no", "": ""}

#: (command as its error names it, its arguments after the file)
COMMANDS = [
    ("audit", ["audit"], []),
    ("fit", ["fit"], ["--method", "platt"]),
    ("monitor", ["monitor", "scan"], ["--time", "t", "--freq", "D"]),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, command, more", COMMANDS, ids=[c[0] for c in COMMANDS])
@pytest.mark.parametrize("gone", [[1], [1, 3]], ids=["one", "two"])
def test_a_missing_01_label_is_the_labels_own_line_on_every_engine(cli, refused, tmp_path, engine, name,
                                                                   command, more, gone) -> None:
    labels = ["" if i in gone else str(i % 2) for i in range(5)]
    path = _file(tmp_path, labels)
    out = ["--out", str(tmp_path / "o.json")] if name == "fit" else []
    r = cli([*command, path, "--score", "p", "--label", "y", "--engine", engine, *more, *out])
    refused(r)
    assert _last_line(r) == _labels_line(name, labels) + (PENDING if name == "monitor" else "")


@pytest.mark.parametrize("engine", ENGINES)
def test_without_pos_label_the_line_is_the_one_with_it(cli, tmp_path, engine) -> None:
    """One line for a missing label: 0/1 labels without --pos-label, text labels with it."""
    labels = ["1", "", "0", "1"]
    plain = cli(["audit", _file(tmp_path, labels), "--score", "p", "--label", "y", "--engine", engine])
    text = cli(["audit", _file(tmp_path, [_TEXT[v] for v in labels]), "--score", "p", "--label", "y",
                "--pos-label", "yes", "--engine", engine])
    assert _last_line(plain) == _last_line(text) == _labels_line("audit", labels)


@pytest.mark.parametrize("command, more", [("threshold", []), ("report", ["--out", "r.html"])])
@pytest.mark.parametrize("pos_label", [False, True], ids=["01", "pos-label"])
def test_commands_read_in_memory_say_it_alike(cli, refused, tmp_path, command, more, pos_label) -> None:
    labels = ["1", "0", "", "1", "0"]
    shown = [_TEXT[v] for v in labels] if pos_label else labels
    flags = ["--pos-label", "yes"] if pos_label else []
    extra = [str(tmp_path / m) if m.endswith(".html") else m for m in more]
    r = cli([command, _file(tmp_path, shown), "--score", "p", "--label", "y", *flags, *extra])
    refused(r)
    assert _last_line(r) == _labels_line(command, labels)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pos_label", [False, True], ids=["01", "pos-label"])
def test_monitor_scan_says_how_to_keep_pending_rows_on_every_engine(cli, refused, tmp_path, engine,
                                                                    pos_label) -> None:
    labels = ["1", "0", "", "1"]
    shown = [_TEXT[v] for v in labels] if pos_label else labels
    flags = ["--pos-label", "yes"] if pos_label else []
    r = cli(["monitor", "scan", _file(tmp_path, shown), "--score", "p", "--label", "y", *flags,
             "--engine", engine, "--time", "t", "--freq", "D"])
    refused(r)
    assert _last_line(r) == _labels_line("monitor", labels) + PENDING


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pos_label", [False, True], ids=["01", "pos-label"])
@pytest.mark.parametrize("final", ["mature", "as-of"])
def test_monitor_scan_names_the_first_final_missing_label_without_the_advice(cli, refused, tmp_path, engine,
                                                                             pos_label, final) -> None:
    """Row 2 is pending (its label may be missing), row 3 final: the refusal counts and names row 3, and
    says nothing of pending rows (they are kept already)."""
    labels = ["1", "", "", "0", "1"]
    is_final = [True, False, True, True, True]
    times = [f"2024-{'03' if not f else '01'}-{i + 1:02d}" for i, f in enumerate(is_final)]
    shown = [_TEXT[v] for v in labels] if pos_label else labels
    path = _file(tmp_path, shown, times=times, mature=["true" if f else "false" for f in is_final])
    flags = ["--pos-label", "yes"] if pos_label else []
    how = ["--mature", "m"] if final == "mature" else ["--as-of", "2024-02-01", "--horizon", "1D"]
    r = cli(["monitor", "scan", path, "--score", "p", "--label", "y", *flags, "--engine", engine,
             "--time", "t", "--freq", "D", *how])
    refused(r)
    assert _last_line(r) == _labels_line("monitor", labels, is_final)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, command, more", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_missing_score_is_one_line_on_every_engine(cli, refused, tmp_path, engine, name, command,
                                                     more) -> None:
    scores = ["0.2", "0.4", "", "0.6", ""]
    path = _file(tmp_path, ["1", "0", "1", "0", "1"], scores=scores)
    out = ["--out", str(tmp_path / "o.json")] if name == "fit" else []
    r = cli([*command, path, "--score", "p", "--label", "y", "--engine", engine, *more, *out])
    refused(r)
    assert _last_line(r) == (f"veracity {name}: input error: column 'p' (scores) has 2 missing/NaN and 0 "
                             "infinite values of 5 rows, first at data row 3; drop or fill those rows first")


@pytest.mark.parametrize("pos_label", [False, True], ids=["01", "pos-label"])
def test_segments_names_the_first_missing_label(cli, refused, tmp_path, pos_label) -> None:
    pytest.importorskip("duckdb")
    labels = ["1", "0", "1", "", "0", ""]
    shown = [_TEXT[v] for v in labels] if pos_label else labels
    flags = ["--pos-label", "yes"] if pos_label else []
    r = cli(["segments", _file(tmp_path, shown), "--score", "p", "--label", "y", "--features", "q", *flags])
    refused(r)
    assert _last_line(r) == _labels_line("segments", labels)


def test_segments_names_the_first_missing_score(cli, refused, tmp_path) -> None:
    pytest.importorskip("duckdb")
    path = _file(tmp_path, ["1", "0", "1", "0"], scores=["0.2", "0.3", "", "0.5"])
    r = cli(["segments", path, "--score", "p", "--label", "y", "--features", "q"])
    refused(r)
    assert _last_line(r) == ("veracity segments: input error: column 'p' (scores) has 1 missing/NaN and 0 "
                             "infinite values of 4 rows, first at data row 3; drop or fill those rows first")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, command, more", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_text_labels_without_pos_label_name_no_row_as_memory_names_none(cli, refused, tmp_path, engine, name,
                                                                        command, more) -> None:
    """Every label is text: a row adds nothing (the first was always named)."""
    path = _file(tmp_path, ["yes", "no", "no", "yes"])
    out = ["--out", str(tmp_path / "o.json")] if name == "fit" else []
    r = cli([*command, path, "--score", "p", "--label", "y", "--engine", engine, *more, *out])
    refused(r, "--pos-label")
    assert "data row" not in r.err


@pytest.mark.parametrize("pos_label", [False, True], ids=["01", "pos-label"])
def test_compare_against_says_it_alike(cli, refused, tmp_path, pos_label) -> None:
    """``compare --against`` read the label column before the labels' own check: memory's generic line
    ("column 'y' has 1 missing/NaN and 0 infinite values ...") where every other command names the labels."""
    labels = ["1", "0", "", "1", "0"]
    shown = [_TEXT[v] for v in labels] if pos_label else labels
    flags = ["--pos-label", "yes"] if pos_label else []
    r = cli(["compare", _file(tmp_path, shown), "--score", "p", "--against", "q", "--label", "y", *flags])
    refused(r)
    assert _last_line(r) == _labels_line("compare", labels)
