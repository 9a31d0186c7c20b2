"""The README's shell examples are real: tests/docs runs each `$ veracity ...` line and compares
what it prints exactly; here, that there are enough of them and that none is skipped."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("_docs_runner", ROOT / "tests" / "docs" / "test_docs_examples.py")
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)


def test_readme_shell_examples_all_run():
    found = runner.blocks(ROOT / "README.md")
    sessions = [b for b in found if runner.kind(b) == "session"]
    commands = [c for b in sessions for c, _ in runner.session(b["text"]) if c.startswith("veracity ")]
    assert len(commands) >= 6, commands
    assert not [b["line"] for b in sessions if b["skip"]]
    assert {"audit", "fit", "compare", "threshold", "monitor"} <= {c.split()[1] for c in commands}


def test_readme_bad_input_example_shows_exit_code_2():
    found = runner.blocks(ROOT / "README.md")
    shown = [out for b in found if runner.kind(b) == "session" for c, out in runner.session(b["text"])
             if "input error" in out]
    assert shown and all(out.endswith("(exit code 2)") and out.count("\n") == 1 for out in shown)
