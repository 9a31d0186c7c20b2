"""CLI conventions (issue 14): stdin, stdout only table/JSON, --json everywhere, usage vs input errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import veracity as vc
from veracity.cli import build_parser, main
from veracity.cli._progress import wanted
from veracity.datasets import demo_path


def _csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p).astype(int)
    path = tmp_path / "scores.csv"
    path.write_text("p,y\n" + "\n".join(f"{a:.6f},{b}" for a, b in zip(p, y)) + "\n")
    return path


def test_audit_reads_stdin(tmp_path, capsys):
    path = _csv(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "veracity.cli", "audit", "-", "--score", "p", "--label", "y"],
                          input=path.read_text(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Calibration audit: 400 rows")  # the table only
    assert proc.stderr.strip() == "<stdin>"  # the note naming the input
    # the same file named on the command line prints the same (in this process: stdin is the subprocess's)
    assert main(["audit", str(path), "--score", "p", "--label", "y"]) == 0
    assert capsys.readouterr().out == proc.stdout


def test_stdin_json_in_process(tmp_path, monkeypatch, capsys):
    data = _csv(tmp_path).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["audit", "-", "--score", "p", "--label", "y", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["n"] == 400


def test_empty_stdin_is_an_input_error(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert main(["audit", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("veracity audit: input error: no data on stdin") and err.count("\n") == 1


JSON_COMMANDS = [
    ["audit"],
    ["audit", "--bootstrap", "percentile", "--resamples", "20"],
    ["threshold", "--cost-fn", "9"],
    ["conformal"],
    ["report", "--out", "{tmp}/r.html", "--no-bootstrap"],
    ["monitor", "scan", "--time", "month"],
]


@pytest.mark.parametrize("argv", JSON_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_json_stdout_is_only_json(argv, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if argv[0] == "monitor":
        argv = argv[:2] + [str(demo_path())] + argv[2:]
    assert main([*argv, "--json"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)  # nothing before or after the document
    assert isinstance(doc, dict)


def test_report_json_has_the_summary(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r.html"), "--no-bootstrap", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["out"].endswith("r.html") and "reliability" in doc["sections"]
    assert 0 <= doc["summary"]["metrics"]["ece"] <= 1


def test_fit_apply_compare_json(tmp_path, capsys):
    cal = tmp_path / "cal.json"
    assert main(["fit", "--method", "platt", "--out", str(cal), "--json"]) == 0
    json.loads(capsys.readouterr().out)
    assert main(["apply", str(cal), str(demo_path()), "--out", str(tmp_path / "o.csv"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["columns"] == ["calibrated"]
    assert main(["compare", "--calibrator", str(cal), "--json"]) == 0
    json.loads(capsys.readouterr().out)


def test_every_command_has_json_quiet_and_plain_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, cmd in sub.choices.items():
        options = {o for a in cmd._actions for o in a.option_strings}
        assert "--quiet" in options, name
        if name != "monitor":  # monitor's actions each have --json
            assert "--json" in options, name
        text = cmd.format_help()
        assert "``" not in text and "::" not in text, name
        assert ":func:" not in text and ":class:" not in text, name


def _all_helps():
    """(name, --help text) of every command and monitor sub-command."""
    import argparse

    parser = build_parser()
    out = [("veracity", parser.format_help())]
    todo = [("", parser)]
    while todo:
        prefix, p = todo.pop()
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, cmd in a.choices.items():
                    out.append((f"{prefix}{name}", cmd.format_help()))
                    todo.append((f"{prefix}{name} ", cmd))
    return out


def test_no_seed_file_names_in_user_facing_help():
    """The seeds' file numbers mean nothing to a user: help says what a thing is (issue 14)."""
    import re

    helps = _all_helps()
    assert len(helps) >= 15  # every command and every monitor action
    for name, text in helps:
        assert not re.search(r"\bseeds? 0\d\d|seed's|the seeds?\b", text, re.I), (name, text)


def test_usage_and_input_errors_both_exit_2_and_say_which(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--bins"])
    assert exc.value.code == 2
    assert "usage error" in capsys.readouterr().err
    assert main(["audit", "--label", "nope"]) == 2
    assert "input error" in capsys.readouterr().err


def test_progress_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    ns = build_parser().parse_args(["audit"])
    assert wanted(ns, Tty())
    assert not wanted(ns, io.StringIO())
    assert not wanted(build_parser().parse_args(["audit", "--quiet"]), Tty())
    assert not wanted(build_parser().parse_args(["audit", "--json"]), Tty())


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _until(condition, timeout=20.0):
    """Poll instead of sleeping a fixed time: robust under load, and still fails if it never happens."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_progress_bar_draws_counts_on_a_terminal():
    from veracity.cli._progress import activity, tick
    from veracity.core._parallel import advance

    err = _Tty()
    ns = build_parser().parse_args(["audit"])
    with activity(ns, "veracity audit", delay=0.0, stream=err):
        assert _until(lambda: "veracity audit" in err.getvalue())  # elapsed-time bar before any count
        tick("step one")
        for _ in range(3):
            advance("bootstrap resamples", 100, 1000)
        assert _until(lambda: "300/1000" in err.getvalue()), err.getvalue()
        advance("noise floor (10 redraws)", 50, 100, "draws")  # a new piece of work starts its own count
        assert _until(lambda: "50/100 draws" in err.getvalue()), err.getvalue()
    out = err.getvalue()
    assert "bootstrap resamples" in out and "step one" in out and "noise floor (10 redraws)" in out


def test_progress_reports_are_ignored_without_a_bar():
    from veracity.cli._progress import activity
    from veracity.core import _parallel

    seen = []
    with _parallel.listen(lambda *a: seen.append(a)):
        vc.ece_noise_floor(np.full(1000, 0.3), np.zeros(1000, int), n_resamples=20)
        vc.bootstrap_intervals(np.full(1000, 0.3), np.r_[np.zeros(700, int), np.ones(300, int)], n_resamples=30)
    floors = [a for a in seen if a[0].startswith("noise floor")]
    boots = [a for a in seen if a[0] == "bootstrap resamples"]
    assert sum(a[1] for a in floors) == floors[0][2] == 1000 * 20  # every draw reported once
    assert sum(a[1] for a in boots) == boots[0][2] == 30            # every resample reported once
    with activity(build_parser().parse_args(["audit"]), "x", stream=io.StringIO()):  # not a terminal
        assert _parallel._listener is None
    _parallel.advance("nobody listens", 1, 2)  # no listener: a no-op


def test_progress_bar_in_a_pty_counts_resamples_and_keeps_stdout_clean(tmp_path):
    """The real command on a pseudo-terminal: the bar on stderr shows resample counts; stdout is the table."""
    import os
    import pty

    pytest.importorskip("tqdm")
    master, slave = pty.openpty()
    env = dict(os.environ, VERACITY_PROGRESS_DELAY="0", COLUMNS="120")
    chunks = []
    with subprocess.Popen([sys.executable, "-m", "veracity.cli", "audit", "--bootstrap", "--resamples", "400"], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                          env=env, cwd=tmp_path) as proc:
        os.close(slave)
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the child closed its end
                break
            if not data:
                break
            chunks.append(data)
        stdout = proc.stdout.read().decode()
        assert proc.wait(timeout=300) == 0
    os.close(master)
    err = b"".join(chunks).decode("utf-8", "replace")
    assert "bootstrap resamples" in err and "/400" in err, err[-2000:]
    assert "400/400" in err, err[-2000:]  # the final count is drawn before the line is cleared
    # (the noise floor's count is checked in-process above: on 6,000 rows it is one chunk, which may
    # finish between two redraws of the bar)
    assert stdout.startswith("Calibration audit") and "\r" not in stdout and "resamples:" not in stdout


def test_a_warning_on_the_command_line_is_one_line(tmp_path):
    """Python's default warning display adds a file:line and a source line; the CLI prints one line."""
    import subprocess
    import sys

    import numpy as np

    rng = np.random.default_rng(0)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < 1 - p).astype(int)  # reversed scores: Platt fits a < 0 and warns
    data = tmp_path / "reversed.csv"
    data.write_text("p,y\n" + "".join(f"{a},{b}\n" for a, b in zip(p, y)))
    run = subprocess.run([sys.executable, "-m", "veracity.cli", "fit", str(data), "--method", "platt",
                          "--score", "p", "--label", "y", "--out", str(tmp_path / "cal.json")],
                         capture_output=True, text=True)
    assert run.returncode == 0
    warned = [line for line in run.stderr.splitlines() if "warning:" in line.lower()]
    assert len(warned) == 1 and warned[0].startswith("veracity fit: warning: PlattScaling fitted a negative")
    assert "warnings.warn" not in run.stderr and ".py:" not in run.stderr


def test_quiet_on_every_monitor_action_either_side():
    parser = build_parser()
    assert parser.parse_args(["monitor", "status", "m.duckdb", "-q"]).quiet is True
    assert parser.parse_args(["monitor", "-q", "status", "m.duckdb"]).quiet is True  # not reset by the action
    assert parser.parse_args(["monitor", "status", "m.duckdb"]).quiet is False
    for name, text in _all_helps():
        if name.startswith("monitor "):
            assert "--quiet" in text, name
