"""--score-type score offered only where a ranking score is taken, and the scale of a threshold typed on
logit scores said on both scales (audit's --threshold is a probability, threshold's --also a logit)."""

import argparse
import json
import math

import numpy as np
import pytest

from veracity.cli import build_parser

#: the commands that read probabilities: --score-type score was offered, then refused after reading the rows
READ_PROBABILITIES = [["audit"], ["report", "--no-bootstrap", "--out", "{tmp}/r.html"], ["conformal"],
                      ["monitor", "scan", "--period", "month"]]


def _parsers():
    """(name, parser) of every command and every monitor action."""
    root = build_parser()
    for action in root._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, parser in action.choices.items():
                yield name, parser
                for sub in parser._actions:
                    if isinstance(sub, argparse._SubParsersAction):
                        yield from ((f"{name} {n}", p) for n, p in sub.choices.items())


def _score_type(parser: argparse.ArgumentParser) -> argparse.Action | None:
    return next((a for a in parser._actions if "--score-type" in a.option_strings), None)


@pytest.mark.parametrize("argv", READ_PROBABILITIES, ids=lambda a: " ".join(a[:2]))
def test_commands_that_read_probabilities_do_not_offer_a_ranking_score(argv, cli, refused, tmp_path):
    """Before: 'score' was among the choices and every run refused it as an input error, after reading the
    rows; now argparse's usage error lists the choices there are and says where a ranking score is taken."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    parser = dict(_parsers())[" ".join(argv[:2]) if argv[0] == "monitor" else argv[0]]
    action = _score_type(parser)
    assert list(action.choices) == ["probability", "logit"]
    help_text = " ".join(action.help.split())
    assert "veracity fit --score-type score" in help_text and "veracity compare --against" in help_text
    r = cli([*argv, "--score", "logit", "--score-type", "score", "--quiet"])
    refused(r, r"usage error: argument --score-type: invalid choice: 'score' \(choose from 'probability', "
               r"'logit'\): .* so a ranking score is not taken here; calibrate it")
    assert "veracity threshold --target-recall" in r.err
    # another value not offered: argparse's own words, unchanged
    refused(cli([*argv, "--score-type", "prob", "--quiet"]),
            r"invalid choice: 'prob' \(choose from 'probability', 'logit'\) \(see ")


#: a run that takes --score-type score, for every command that offers it (the bundled demo data)
TAKES_RANKING = {
    "fit": ["fit", "--method", "isotonic", "--score", "logit", "--out", "{tmp}/c.json"],
    "compare": ["compare", "--score", "logit", "--against", "score"],
    "threshold": ["threshold", "--score", "logit", "--target-recall", "0.9"],
}


def test_every_command_offering_a_ranking_score_takes_it(cli, tmp_path):
    """No command offers a choice that every run refuses: each one that lists 'score' runs with it."""
    offering = [name for name, parser in _parsers()
                if (action := _score_type(parser)) is not None and "score" in action.choices]
    assert offering and set(offering) <= set(TAKES_RANKING), offering
    for name in offering:
        argv = [a.replace("{tmp}", str(tmp_path)) for a in TAKES_RANKING[name]]
        r = cli([*argv, "--score-type", "score", "--quiet"])
        assert r.code == 0, (name, r.err)


def test_report_of_a_calibrator_fit_on_ranking_scores_says_how_to_report_it(cli, refused, tmp_path):
    """Before: the ranking scores were refused as probabilities ("If these are logits, pass --score-type
    logit"), naming neither the calibrator nor how to report its probabilities."""
    cal = tmp_path / "c.json"
    assert cli(["fit", "--method", "isotonic", "--score", "logit", "--score-type", "score", "--out", cal,
                "--quiet"]).code == 0
    r = cli(["report", "--score", "logit", "--calibrator", cal, "--out", tmp_path / "r.html",
             "--no-bootstrap"])
    refused(r, rf"--calibrator {cal} was fit on ranking scores \(--score-type score\)")
    assert "veracity apply CAL.json FILE -o calibrated.csv" in r.err and "--score-type logit" not in r.err


def _logits(tmp_path, write_csv):
    """Logits written with two decimals (so rows sit exactly on cuts such as 0.3), and labels."""
    rng = np.random.default_rng(32)
    s = np.round(rng.normal(0.0, 1.5, 400), 2)
    y = (rng.uniform(size=s.size) < 1.0 / (1.0 + np.exp(-s))).astype(int)
    return s, y, write_csv(tmp_path / "logits.csv", "s,y", [(f"{a:.2f}", b) for a, b in zip(s, y)])


def test_audit_threshold_on_logits_is_said_on_both_scales(tmp_path, write_csv, cli):
    """audit --threshold is a probability even with --score-type logit (as vc.audit's threshold=), while
    veracity threshold --also reads logits: "acc(0.3)" alone did not say which. The line under the audit and
    the JSON give the logit cut, and the accuracy is the one made at that cut, not at logit 0.3."""
    s, y, path = _logits(tmp_path, write_csv)
    audit = ["audit", path, "--score", "s", "--label", "y", "--score-type", "logit", "--quiet", "--threshold"]
    base = [*audit, "0.3"]
    doc = json.loads(cli([*base, "--json", "-"]).out)
    cut = math.log(0.3 / 0.7)
    assert doc["threshold"] == 0.3 and doc["threshold_logit"] == pytest.approx(cut, rel=1e-15)
    assert doc["metrics"]["accuracy"] == np.mean((s >= cut) == (y == 1))  # p >= 0.3
    assert doc["metrics"]["accuracy"] != np.mean((s >= 0.3) == (y == 1))  # not logit >= 0.3
    text = cli(base).out
    assert text.rstrip().endswith("(--threshold 0.3 is a probability, with --score-type logit too: a row "
                                  "predicts 1 when p >= 0.3, i.e. logit >= -0.847298; veracity threshold reads "
                                  "thresholds as logits)")
    # the same decision, made by veracity threshold at the logit it prints (the other implementation)
    table = json.loads(cli(["threshold", path, "--score", "s", "--label", "y", "--score-type", "logit",
                            "--also", repr(doc["threshold_logit"]), "--json", "-", "--quiet"]).out)
    row = table["roles"]["all"]["table"][1]
    assert row["threshold"] == doc["threshold_logit"]
    assert (row["tp"] + row["tn"]) / s.size == doc["metrics"]["accuracy"]
    # the ends: every row at 0; at 1 no logit cut (the audit compares probabilities that round to 1)
    assert json.loads(cli([*audit, "0", "--json", "-"]).out)["threshold_logit"] == "-Infinity"
    assert "i.e. every row;" in cli([*audit, "0"]).out
    assert json.loads(cli([*audit, "1", "--json", "-"]).out)["threshold_logit"] is None


def test_audit_of_probabilities_is_unchanged(cli):
    doc = json.loads(cli(["audit", "--threshold", "0.3", "--json", "-", "--quiet"]).out)
    assert doc["threshold"] == 0.3 and "threshold_logit" not in doc
    assert "is a probability" not in cli(["audit", "--threshold", "0.3", "--quiet"]).out


def test_threshold_on_logits_says_its_scale(tmp_path, write_csv, cli):
    """veracity threshold prints logits with --score-type logit; it now says so and gives the probability,
    the scale veracity audit --threshold takes."""
    _, _, path = _logits(tmp_path, write_csv)
    base = ["threshold", path, "--score", "s", "--label", "y", "--score-type", "logit", "--target-recall",
            "0.9", "--quiet"]
    doc = json.loads(cli([*base, "--json", "-"]).out)
    t = doc["threshold"]
    assert doc["threshold_probability"] == pytest.approx(1.0 / (1.0 + math.exp(-t)), rel=1e-12)
    assert f"(thresholds are logits, as --score-type logit declares: {t:g} is p = " in cli(base).out
    plain = json.loads(cli(["threshold", "--target-recall", "0.9", "--json", "-", "--quiet"]).out)
    assert "threshold_probability" not in plain
