"""A ``--pos-label`` that names none of the label column's values gets one line on every command and engine,
naming the column as ``--engine duckdb`` and the Python frame routes name it ("is not among the values of
column 'y' (labels)", :func:`veracity.core._validation.pos_label_not_among`).

Before, the in-memory engine (audit, fit, monitor scan, and threshold, conformal, report, compare, which read
in memory only) said "--pos-label maybe is not among the label values (False, True); ..." — the words of a
bare array, without the column — while ``--engine duckdb`` on the same file said "... is not among the values
of column 'y' (labels) (False, True); ...": the one refusal in two wordings, by engine.
"""

import re

import pytest

pytest.importorskip("duckdb")
pytestmark = pytest.mark.usefixtures("engine_installed")

P = [0.9, 0.8, 0.7, 0.6, 0.3, 0.2]
Q = [0.8, 0.6, 0.75, 0.5, 0.4, 0.1]
Y = [True, False, True, True, False, False]
BOOL_FIX = "pass 'true' or 'false' (any case), or 1 or 0"

#: column kind -> (the column's name, its values as the CSV writes them, the values and fix the line names)
KINDS = {
    "true/false": ("y", [str(y).lower() for y in Y], f"(False, True); {BOOL_FIX}"),
    "number": ("n", [int(y) for y in Y], "(0, 1); pass one of them"),
    "text": ("label text", ["yes" if y else "no" for y in Y], "('no', 'yes'); pass one of them"),
}


def _csv(tmp_path, kind: str) -> str:
    name, values, _ = KINDS[kind]
    path = tmp_path / "d.csv"
    path.write_text(f"m,p,q,{name}\n" + "".join(f"2026-03,{p},{q},{v}\n" for p, q, v in zip(P, Q, values)))
    return str(path)


def _expected(command: str, kind: str, text: str) -> str:
    name, _, fix = KINDS[kind]
    return f"veracity {command}: input error: --pos-label {text} is not among the values of column {name!r} " \
           f"(labels) {fix}"


#: command -> its arguments after FILE (``{out}``: a file under tmp_path), and whether it takes --engine
COMMANDS = {
    "audit": ([], True),
    "monitor scan": (["--period", "m"], True),
    "fit": (["--method", "platt", "--out", "{out}/c.json"], False),
    "threshold": ([], False),
    "conformal": ([], False),
    "report": (["--no-bootstrap", "--out", "{out}/r.html"], False),
    "compare": (["--against", "q"], False),
    "segments": (["--features", "m"], False),
}


def _run(cli, tmp_path, command: str, kind: str, text: str, engine: str | None):
    extra, _ = COMMANDS[command]
    argv = [*command.split(), _csv(tmp_path, kind), "--score", "p", "--label", KINDS[kind][0],
            "--pos-label", text, *[a.format(out=tmp_path) for a in extra]]
    return cli(argv + (["--engine", engine] if engine else []))


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("command", [c for c, (_, engines) in COMMANDS.items() if engines])
@pytest.mark.parametrize("text", ["maybe", "2"])
def test_memory_and_duckdb_engines_print_the_same_line(cli, refused, tmp_path, command, kind, text):
    lines = {}
    for engine in ("memory", "duckdb"):
        result = _run(cli, tmp_path, command, kind, text, engine)
        refused(result)
        lines[engine] = result.err.strip()
    assert lines["memory"] == lines["duckdb"] == _expected(command.split()[0], kind, text)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_names_the_column(cli, refused, tmp_path, command, kind):
    """The commands that read in memory only (threshold, conformal, report, compare, fit's default) and the
    default engine of the others say what ``--engine duckdb`` says."""
    result = _run(cli, tmp_path, command, kind, "maybe", None)
    refused(result)
    assert result.err.strip() == _expected(command.split()[0], kind, "maybe")


@pytest.mark.parametrize("kind", list(KINDS))
def test_compare_against_a_calibrator_names_the_column(cli, refused, tmp_path, kind):
    path = _csv(tmp_path, "number")
    fitted = cli(["fit", path, "--method", "platt", "--score", "p", "--label", "n",
                  "--out", str(tmp_path / "c.json"), "-q"])
    assert fitted.code == 0, fitted.err
    result = cli(["compare", _csv(tmp_path, kind), "--calibrator", str(tmp_path / "c.json"), "--score", "p",
                  "--label", KINDS[kind][0], "--pos-label", "maybe"])
    refused(result)
    assert result.err.strip() == _expected("compare", kind, "maybe")


def test_other_refusals_keep_their_words(cli, refused, tmp_path):
    """Only the refusal of a label that names no value changes: three label values keep the binary advice."""
    path = tmp_path / "three.csv"
    path.write_text("p,y\n" + "".join(f"{p},{v}\n" for p, v in zip(P, ["a", "b", "c", "a", "b", "c"])))
    for command in (["threshold"], ["audit", "--engine", "memory"]):
        result = cli([command[0], str(path), "--score", "p", "--label", "y", "--pos-label", "a", *command[1:]])
        refused(result, re.escape("--pos-label needs a binary label set, but labels take 3 values"))
