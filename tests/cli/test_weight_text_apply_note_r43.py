"""Three command-line texts (session 43).

A weight column holding text named the column's FIRST value as the culprit, a number: "weight column w must
hold numbers, found object values such as '1'; convert it to numbers" where a later row held ``heavy``
(``--engine duckdb`` and every frame named 'heavy'). It now names the first value that is not a number, and
the fix its text shows, as the other routes do.

``veracity apply`` on one row said "applied PlattScaling to 1 rows".

Ctrl-C printed a traceback.
"""

from __future__ import annotations

import pytest


def test_weight_text_names_the_value_that_is_not_a_number(tmp_path, cli, refused):
    f = tmp_path / "w.csv"
    f.write_text("score,label,w\n0.3,1,1\n0.6,0,2\n0.2,0,heavy\n0.4,1,3\n")
    for command in (["audit"], ["threshold"], ["fit", "--method", "platt", "--out", tmp_path / "c.json"]):
        got = cli([*command, f, "--sample-weight", "w"])
        refused(got, r"weight column w must hold numbers, found text; values such as 'heavy' are not numbers")
        assert "'1'" not in got.err and "object" not in got.err
    t = tmp_path / "t.csv"  # conformal's --test-weight named the first value too
    t.write_text("score,label,w,tw\n" + "".join(f"{0.05 + 0.009 * i:.3f},{i % 2},1,{'x' if i == 60 else 1}\n"
                                                 for i in range(100)))
    got = cli(["conformal", t, "--sample-weight", "w", "--test-weight", "tw"])
    refused(got, r"--test-weight column 'tw' must hold numbers, found text; values such as 'x' are not numbers")
    f.write_text("score,label,w\n0.3,1,1\n0.6,0,2\n0.2,0,\"2,5\"\n")
    refused(cli(["audit", f, "--sample-weight", "w"]),
            r"weight column w must hold numbers, found text; values such as '2,5' look like numbers written "
            r"with a decimal comma")


def test_apply_counts_one_row(tmp_path, cli):
    fit = tmp_path / "fit.csv"
    fit.write_text("score,label\n" + "".join(f"{0.1 + 0.02 * i:.2f},{i % 2}\n" for i in range(30)))
    cal = tmp_path / "cal.json"
    assert cli(["fit", fit, "--method", "platt", "--out", cal, "-q"]).code == 0
    one = tmp_path / "one.csv"
    one.write_text("score\n0.4\n")
    got = cli(["apply", cal, one, "-o", tmp_path / "out.csv"])
    assert got.code == 0, got.err
    assert "applied PlattScaling to 1 row ->" in got.err, got.err


def test_ctrl_c_is_one_line_and_exit_130(cli, monkeypatch):
    """Ctrl-C during a long run (a large file, --honest's resamples) printed Python's KeyboardInterrupt
    traceback; now one line and the shell's code for SIGINT (128 + 2)."""
    from veracity.cli import _audit

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(_audit, "run", interrupted)
    try:
        got = cli(["audit"])
    except KeyboardInterrupt:  # (before: the traceback; caught here so that the test session goes on)
        pytest.fail("KeyboardInterrupt escaped veracity.cli.main: a traceback on the terminal")
    assert got.code == 130 and got.err == "veracity audit: interrupted\n", got
