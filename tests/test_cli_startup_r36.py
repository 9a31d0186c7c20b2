"""A command's start-up imports what that command needs: `--version`, `--help` and a bare `veracity`
list every command without importing their modules, and a command other than `monitor` does not import
the monitor (fresh interpreters: what `sys.modules` holds after the run)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

RUN = ("import contextlib, io, sys\n"
       "from veracity.cli import main\n"
       "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
       "    try:\n        main({argv!r})\n    except SystemExit:\n        pass\n"
       "print(sorted(m for m in sys.modules if m.startswith('veracity.')))\n")


def _modules_after(argv: list[str], cwd) -> list[str]:
    out = subprocess.run([sys.executable, "-c", RUN.format(argv=argv)], capture_output=True, text=True,
                         check=True, cwd=cwd)
    return eval(out.stdout.strip().splitlines()[-1])  # a printed list of module names


def test_listing_the_commands_imports_none_of_them(tmp_path):
    for argv in (["--version"], ["--help"], []):
        loaded = _modules_after(argv, tmp_path)
        commands = [m for m in loaded if m.startswith("veracity.cli._") and m not in (
            "veracity.cli._common", "veracity.cli._output")]
        assert "veracity.cli" in loaded and not commands, (argv, commands)


def test_an_audit_does_not_import_the_monitor(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, 200)
    y = (rng.uniform(size=200) < p).astype(int)
    (tmp_path / "d.csv").write_text("p,y\n" + "".join(f"{a},{b}\n" for a, b in zip(p, y)))
    loaded = _modules_after(["audit", "d.csv", "--score", "p", "--label", "y"], tmp_path)
    assert "veracity.cli._audit" in loaded
    assert not [m for m in loaded if m.startswith("veracity.monitoring")], loaded
