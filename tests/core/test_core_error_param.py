"""VeracityError carries the parameter it is about (issue 21): the CLI names the flag from
``param`` through one table, never by editing the message text."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import veracity as vc
from veracity.cli import FLAGS, cli_message, main
from veracity.core._validation import VeracityError


def _error(call) -> VeracityError:
    with pytest.raises(VeracityError) as info:
        call()
    return info.value


@pytest.mark.parametrize(
    "call, param, python_text, cli_text",
    [
        (lambda: vc.ece([0.1, 1.2, -0.3], [0, 1, 0]), "score_type",
         "If these are logits, pass score_type='logit'", "If these are logits, pass --score-type logit"),
        (lambda: vc.ece([0.1, 0.8], [0, 1], score_type="odds"), "score_type",
         "score_type must be 'probability' or 'logit'", "score_type must be 'probability' or 'logit'"),
        (lambda: vc.ece([0.1, 0.8], [0, 1], sample_weight=[1.0, -1.0]), "sample_weight",
         "sample_weight must be non-negative", "sample_weight must be non-negative"),
        (lambda: vc.ece([0.1, 0.8], ["no", "yes"]), "pos_label",
         "pass pos_label= naming the positive class, e.g. pos_label='yes'",
         "pass --pos-label naming the positive class, e.g. --pos-label yes"),
        (lambda: vc.ece([0.1, 0.8], ["no", "yes"], pos_label="Yes"), "pos_label",
         "pos_label='Yes' is not among the label values ('no', 'yes')",
         "--pos-label Yes is not among the label values ('no', 'yes')"),
        (lambda: vc.ece([0.1, 0.8, 0.3], [0, 2, 2]), "pos_label",
         "Map 0 to 0 and 2 to 1, or pass pos_label=2.", "Map 0 to 0 and 2 to 1, or pass --pos-label 2."),
        (lambda: vc.PlattScaling(score_type="logit").fit([0.1, 0.2, 0.9], [0, 1, 1]), "score_type",
         "declared score_type='logit' but all 3 lie in [0, 1]", "declared --score-type logit but all 3 lie in [0, 1]"),
        (lambda: vc.PlattScaling().fit([0.2, 0.8], [0, 1], role="test"), "allow_role",
         "or pass allow_role='test' to override", "or pass --allow-role test to override"),
        (lambda: vc.ece(np.array([[0.5, 0.6], [0.2, 0.8]]), [0, 1]), "score_type",
         "Normalise the rows, or pass score_type='logit' for raw logits",
         "Normalise the rows, or pass --score-type logit for raw logits"),
        (lambda: vc.recall_threshold(np.linspace(0.1, 0.9, 10), np.ones(10), target=0.95), "correction",
         "lower the target, or pass correction=False", "lower the target, or pass --no-correction"),
        (lambda: vc.ece([0.1, 0.8], [0, 1, 1]), "labels",
         "scores have 2 rows but labels have 3", "scores have 2 rows but labels have 3"),
        (lambda: vc.ece([20.0, 80.0, 55.0], [0, 1, 1]), "score_type",
         "If these are logits, pass score_type='logit'; if they are percentages, divide them by 100",
         "If these are logits, pass --score-type logit; if they are percentages, divide them by 100"),
        (lambda: vc.ece([0.1, 0.8], [0, 1], bins=0), "bins",
         "bins must be a positive integer or 'auto', got 0", "bins must be a positive integer or 'auto', got 0"),
        (lambda: vc.ece([0.1, 0.8], [0, 1], bins=10**6), "bins",
         "bins must be at most 10,000", "bins must be at most 10,000"),
        (lambda: vc.ece([0.1, 0.8], [0, 1], strategy="even"), "strategy",
         "strategy must be 'uniform', 'quantile' or 'equal-count'",
         "strategy must be 'uniform', 'quantile' or 'equal-count'"),
        (lambda: vc.reliability([0.1, 0.8], [0, 1], interval="jeffreys"), "interval",
         "interval must be 'wilson' or 'clopper-pearson'", "interval must be 'wilson' or 'clopper-pearson'"),
        (lambda: vc.binomial_interval(1, 2, sided="left"), "sided",
         "sided must be 'two-sided', 'lower' or 'upper'", "sided must be 'two-sided', 'lower' or 'upper'"),
        (lambda: vc.auc(np.array([[0.2, 0.8], [0.6, 0.4]]), [1, 0], multiclass="ovx"), "multiclass",
         "multiclass must be one of", "multiclass must be one of"),
        (lambda: vc.audit([0.1, 0.8], [0, 1], bootstrap="yes"), "bootstrap",
         "bootstrap must be False, True, 'percentile' or 'bca'", "bootstrap must be False, True"),
    ],
)
def test_errors_name_their_parameter_and_the_cli_spells_its_flag(call, param, python_text, cli_text):
    exc = _error(call)
    assert exc.param == param
    assert python_text in str(exc)
    assert cli_text in cli_message(exc)
    assert "{param}" not in str(exc) and "{setting}" not in str(exc)


def test_message_and_hint_are_separate_and_str_joins_them():
    exc = _error(lambda: vc.ece([0.1, 1.2], [0, 1]))
    assert exc.message == "scores must be probabilities in [0, 1]; 1 of 2 are not (min=0.1, max=1.2)"
    assert exc.hint == "If these are logits, pass {setting}"
    assert str(exc) == exc.message + ". If these are logits, pass score_type='logit'"
    plain = VeracityError("something is wrong; fix it")
    assert str(plain) == "something is wrong; fix it" and plain.param is None and plain.hint is None
    assert cli_message(plain) == str(plain)


def test_still_a_value_error_and_survives_pickling():
    exc = VeracityError("x {setting}", param="pos_label", hint="pass {param}", value="yes")
    assert isinstance(exc, ValueError)
    back = pickle.loads(pickle.dumps(exc))
    assert (type(back), str(back), back.param, back.hint, back.value) == (
        VeracityError, str(exc), "pos_label", "pass {param}", "yes")
    bare = pickle.loads(pickle.dumps(VeracityError("y {setting}", param="bins")))
    assert str(bare) == "y {setting}"  # no value: the placeholder is never filled with a stray object


def test_a_parameter_without_a_flag_keeps_its_python_spelling():
    exc = VeracityError("bad {setting}", param="no_such_option", value=3)
    assert cli_message(exc) == "bad no_such_option=3"


def test_flag_table_names_real_flags():
    parser_text = "\n".join(
        __import__("veracity.cli", fromlist=["build_parser"]).build_parser()
        ._subparsers._group_actions[0].choices[c].format_help() for c in ("audit", "fit", "threshold", "conformal"))
    for param in ("score_type", "sample_weight", "pos_label", "bins", "random_state"):
        assert FLAGS[param] in parser_text, param


def test_cli_prints_the_flag(tmp_path, capsys):
    path = tmp_path / "s.csv"
    path.write_text("score,label\n0.1,no\n0.8,yes\n0.7,yes\n")
    assert main(["audit", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "e.g. --pos-label yes" in err and "pos_label=" not in err
