"""What ``--help`` tells a new user (round 30): exit codes, defaults, units and ranges, the same flag
described alike across commands, and help that agrees with what the command does (checked by running
it on the bundled demo data)."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from veracity.cli import build_parser


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """(name, parser) of ``veracity``, every command and every monitor action."""
    out = [("veracity", build_parser())]
    todo = list(out)
    while todo:
        prefix, parser = todo.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    full = name if prefix == "veracity" else f"{prefix} {name}"
                    out.append((full, child))
                    todo.append((full, child))
    return out


def _option(parser: argparse.ArgumentParser, flag: str) -> argparse.Action | None:
    return next((a for a in parser._actions if flag in a.option_strings), None)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _help_of(command: str) -> str:
    return _flat(dict(_parsers())[command].format_help())


def test_every_command_and_action_is_walked():
    names = {name for name, _ in _parsers()}
    assert {"audit", "fit", "apply", "compare", "threshold", "conformal", "report", "segments", "demo",
            "export", "monitor status", "monitor scan", "monitor recalibrate"} <= names


def test_top_level_help_states_the_exit_codes_and_a_first_command(cli):
    r = cli(["--help"])
    assert r.code == 0
    text = _flat(r.out)
    assert "Exit codes: 0 success; 2 bad input" in text
    assert "1 a calibration alert, only with monitor status --fail-on-alert" in text
    assert re.search(r"\b75 store busy\b", text) and "--timeout" in text
    assert "veracity audit # audit the demo data" in text


def test_monitor_help_states_its_exit_codes():
    text = _help_of("monitor")
    assert "Exit codes: 0 success; 1 an alert, only with status --fail-on-alert; 2 bad input; 75 store busy" \
        in text
    status = dict(_parsers())["monitor status"]
    assert "bad input still exits 2, a busy store 75" in _flat(_option(status, "--fail-on-alert").help)
    for name, parser in _parsers():
        timeout = _option(parser, "--timeout")
        if timeout is not None:
            assert "exits 75" in timeout.help, name


def test_every_option_with_a_default_shows_it():
    """An option that has a value when not given says so in its help (before: ``monitor recalibrate
    --method`` hid its default ``platt``, ``report --title`` its ``Calibration report``)."""
    missing = []
    for name, parser in _parsers():
        for a in parser._actions:
            if a.help is argparse.SUPPRESS or isinstance(a, (argparse._HelpAction, argparse._VersionAction,
                                                             argparse._StoreTrueAction,
                                                             argparse._SubParsersAction)):
                continue
            if a.default not in (None, [], argparse.SUPPRESS) and "default" not in (a.help or ""):
                missing.append((name, a.option_strings or a.dest))
    assert not missing
    recal = dict(_parsers())["monitor recalibrate"]
    method = _option(recal, "--method")
    assert "(default: platt)" in _flat(method.help) and method.default == "platt"


def test_score_type_help_names_each_of_its_choices_everywhere():
    seen = 0
    for name, parser in _parsers():
        action = _option(parser, "--score-type")
        if action is None:
            continue
        seen += 1
        for choice in action.choices:
            assert re.search(rf"\b{choice}\b", action.help), (name, choice, action.help)
        if action.default is not None:
            assert f"(default: {action.default})" in action.help, name
    assert seen >= 8


def test_compare_says_its_defaults_by_mode(cli, refused):
    """compare's --score and --score-type have no fixed default (before, the help said score and
    probability): with --against model A must be named; with --calibrator they are the calibrator's."""
    compare = dict(_parsers())["compare"]
    assert "model A with --against (required there)" in _flat(_option(compare, "--score").help)
    assert "with --calibrator, the score type it was fit on" in _flat(_option(compare, "--score-type").help)
    refused(cli(["compare", "--against", "score"]), r"name model A's score column with --score")


@pytest.mark.parametrize("argv", [["audit"], ["report", "--no-bootstrap", "--out", "{tmp}/r.html"],
                                  ["conformal"], ["monitor", "scan", "--period", "month"]],
                         ids=lambda a: " ".join(a[:2]))
def test_score_type_score_refused_where_help_says_so(argv, cli, refused, tmp_path):
    """Where --score-type score is among the choices but the command cannot use it, its help says so,
    and the command does refuse it (exit 2, one line)."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    parser = dict(_parsers())[" ".join(argv[:2]) if argv[0] == "monitor" else argv[0]]
    assert "is not taken here" in _flat(_option(parser, "--score-type").help)
    refused(cli([*argv, "--score", "logit", "--score-type", "score", "--quiet"]))


def test_threshold_score_type_help_matches_which_rules_take_a_ranking_score(cli, refused):
    help_text = _flat(_option(dict(_parsers())["threshold"], "--score-type").help)
    assert "only the rank rules --target-recall, --target-precision and --budget take it" in help_text
    refused(cli(["threshold", "--score", "logit", "--score-type", "score", "--cost-fn", "9"]))
    assert cli(["threshold", "--score", "logit", "--score-type", "score", "--target-recall", "0.9",
                "--quiet"]).code == 0


def test_threshold_with_no_rule_is_the_1_to_1_cost_rule_as_its_help_says(cli):
    assert "With no rule given, the cost rule at 1:1 is used (t* = 0.5)" in _help_of("threshold")
    doc = json.loads(cli(["threshold", "--json", "--quiet"]).out)
    assert doc["threshold"] == 0.5 and doc["rule"]["kind"] == "cost"
    # with a rank rule, the costs only price the table: the rule stays the rank rule
    cost_fp = _option(dict(_parsers())["threshold"], "--cost-fp")
    assert "with one, it only prices the table" in _flat(cost_fp.help)
    ranked = json.loads(cli(["threshold", "--budget", "5%", "--cost-fp", "2", "--json", "--quiet"]).out)
    assert ranked["rule"]["kind"] != "cost"


def test_audit_threshold_is_on_the_probability_scale_as_its_help_says(cli):
    """``audit --threshold`` reads the probability even with --score-type logit (threshold 0 flags every
    row: the accuracy is the base rate), unlike ``threshold --also``, which reads the scores' scale."""
    assert "on the probability scale even with --score-type logit" in \
        _flat(_option(dict(_parsers())["audit"], "--threshold").help)
    doc = json.loads(cli(["audit", "--score", "logit", "--score-type", "logit", "--threshold", "0", "--json",
                          "--quiet"]).out)
    base_rate = json.loads(cli(["audit", "--json", "--quiet"]).out)["base_rate"]
    assert doc["metrics"]["accuracy"] == pytest.approx(base_rate)


@pytest.mark.parametrize("command", ["audit", "report"])
def test_strategy_help_explains_each_choice(command, cli):
    text = _flat(_option(dict(_parsers())[command], "--strategy").help)
    for part in ("uniform: equal-width", "quantile: equal-mass", "equal-count: equal row counts"):
        assert part in text, text
    # quantile and equal-count are different rules: the help must not call them one thing
    if command == "audit":
        q = json.loads(cli(["audit", "--strategy", "quantile", "--json", "--quiet"]).out)["table"]
        e = json.loads(cli(["audit", "--strategy", "equal-count", "--json", "--quiet"]).out)["table"]
        assert [row["hi"] for row in q] != [row["hi"] for row in e]


def test_shared_flags_are_described_alike():
    """--sample-weight, --level and --label say the same facts on every command that has them."""
    for name, parser in _parsers():
        weight = _option(parser, "--sample-weight")
        if weight is not None:
            assert "non-negative row weights (default: none, every row weighs 1)" in _flat(weight.help), name
        level = _option(parser, "--level")
        if level is not None:
            assert "in (0, 1)" in _flat(level.help), name
        label = _option(parser, "--label")
        if label is not None and name != "monitor outcomes":
            assert "0/1 or true/false" in _flat(label.help), name
    for name in ("audit", "report", "compare"):
        assert _option(dict(_parsers())[name], "--by").metavar == "COLUMN", name


@pytest.mark.parametrize("flag,value,words", [("--level", "95", "in (0, 1)"),
                                              ("--bins", "0", ">= 1")])
def test_ranges_in_the_help_are_the_ones_enforced(flag, value, words, cli, refused):
    assert words in _flat(_option(dict(_parsers())["audit"], flag).help)
    refused(cli(["audit", flag, value]))


def test_report_json_help_says_the_page_is_still_written(cli, tmp_path):
    """report --json replaces the line naming the page on stdout, not the page (before: "instead of the
    table", which report never prints)."""
    text = _flat(_option(dict(_parsers())["report"], "--json").help)
    assert "the HTML file is written either way" in text and "instead of the table" not in text
    page = tmp_path / "r.html"
    r = cli(["report", "--no-bootstrap", "--out", page, "--json", "--quiet"])
    assert r.code == 0 and page.stat().st_size > 0 and json.loads(r.out)["out"] == str(page)
