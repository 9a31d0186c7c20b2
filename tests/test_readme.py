"""The README's shell examples run, and print what the README shows."""

import shlex
from pathlib import Path

import pytest

from veracity.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def _examples():
    """(command, the output lines pasted under it) for every `$ veracity ...` block."""
    out, current = [], None
    for line in README.read_text().splitlines():
        if line.startswith("$ veracity "):
            current = (line[2:], [])
            out.append(current)
        elif line.startswith("```") or not line.strip():
            current = None
        elif current is not None:
            current[1].append(line)
    return out


EXAMPLES = _examples()


def test_readme_has_examples():
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize("command, shown", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_readme_example(command, shown, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(command.split("#")[0])[1:]
    if "--calibrator" in argv:  # the compare example uses the file written by the fit example
        assert main(["fit", "--method", "temperature",
                     "--role-col", "role", "--fit-role", "calib", "--out", "cal.json"]) == 0
        capsys.readouterr()
    if "scores.csv" in argv:  # the bad-input example
        Path("scores.csv").write_text("score,label\n0.1,0\n0.9,1\n")
        assert main(argv) == 2
        assert capsys.readouterr().err.strip() == shown[0]
        return
    assert main(argv) == 0
    printed = capsys.readouterr().out
    for line in shown:
        if line.strip() in ("...", "") or line.startswith("saved to"):
            continue
        assert line.rstrip() in printed, line
