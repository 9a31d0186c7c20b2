"""`veracity fit`'s warnings give advice the command line can follow (round 28).

Before, the calibrators' warnings reached stderr in Python's words: "(on_reversed='allow' silences this)"
for Platt on reversed scores, "Use smoothing=True (Platt's targets)" for separated labels, "or
PlattScaling(smoothing=True)" from Beta and temperature scaling, "IsotonicCalibration(ties='strict')" --
and the command line had no flag for on_reversed or smoothing at all. A warning now carries its parameter
(:class:`VeracityWarning`, as :class:`VeracityError` does) and the CLI spells it as its flag, or says the
rest of its advice where the command has none; ``fit`` gained --on-reversed, --smoothing and --strategy.
"""

from __future__ import annotations

import argparse
import re
import warnings

import numpy as np
import pytest

import veracity as vc


def _reversed(tmp_path, write_csv) -> str:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 400)
    y = (rng.uniform(size=p.size) < 1 - p).astype(int)  # higher scores, fewer positives
    return write_csv(tmp_path / "rev.csv", "p,y", [(f"{a:.4f}", b) for a, b in zip(p, y)])


def _separated(tmp_path, write_csv) -> str:
    p = np.linspace(0.1, 0.9, 40)
    return write_csv(tmp_path / "sep.csv", "p,y", [(f"{a:.4f}", int(a > 0.5)) for a in p])


def _fit_options() -> set[str]:
    from veracity.cli import build_parser
    from veracity.cli import _command_parser

    fit = _command_parser(build_parser(only="fit"), "fit")
    return {o for a in fit._actions for o in a.option_strings}


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("veracity fit: warning: ")]


def _only_command_line_words(lines: list[str]) -> None:
    """No Python keyword (``name=``), no calibrator constructor, and every flag named is one of fit's."""
    options = _fit_options()
    for line in lines:
        assert not re.findall(r"[A-Za-z_]\w*=(?!=)", line), line
        assert not re.search(r"(Scaling|Calibration|Binning)\(", line), line
        assert set(re.findall(r"--[a-z][a-z-]*", line)) <= options, line


def test_platt_on_reversed_scores_names_the_flag_that_silences_it(tmp_path, write_csv, cli):
    path = _reversed(tmp_path, write_csv)
    base = ["fit", path, "--score", "p", "--label", "y", "--method", "platt", "--out", tmp_path / "c.json"]
    r = cli(base)
    assert r.code == 0, r.err
    said = _warnings(r.err)
    assert len(said) == 1 and "negative slope" in said[0], r.err
    assert "(--on-reversed allow silences this)" in said[0], said
    _only_command_line_words(said)
    # ... and the flag does what the advice says
    quiet = cli(base + ["--on-reversed", "allow"])
    assert quiet.code == 0 and not _warnings(quiet.err), quiet.err
    assert vc.load(tmp_path / "c.json").on_reversed == "allow"


def test_platt_on_reversed_error_is_refused_in_flag_words(tmp_path, write_csv, cli, refused):
    path = _reversed(tmp_path, write_csv)
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "platt", "--on-reversed", "error",
             "--out", tmp_path / "c.json"])
    refused(r, r"negative slope.*, or pass --on-reversed allow$")
    assert "on_reversed" not in r.err


@pytest.mark.parametrize("method, advice", [
    ("platt", "Use --smoothing (Platt's targets) or more calibration rows"),
    ("beta", "or --method platt --smoothing"),
    ("temperature", "or --method platt --smoothing"),
])
def test_separated_labels_advise_the_smoothing_flag(tmp_path, write_csv, cli, method, advice):
    path = _separated(tmp_path, write_csv)
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", method, "--out", tmp_path / "c.json"])
    assert r.code == 0, r.err
    said = [line for line in _warnings(r.err) if "separates the calibration labels" in line]
    assert len(said) == 1 and advice in said[0], r.err
    _only_command_line_words(said)


def test_the_smoothing_flag_gives_a_finite_platt_fit(tmp_path, write_csv, cli):
    path = _separated(tmp_path, write_csv)
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "platt", "--smoothing",
             "--out", tmp_path / "c.json"])
    assert r.code == 0 and not _warnings(r.err), r.err
    cal = vc.load(tmp_path / "c.json")
    assert cal.smoothing is True and cal.converged_
    y = (np.linspace(0.1, 0.9, 40) > 0.5).astype(float)
    n_pos, n_neg = y.sum(), y.size - y.sum()
    # Platt's targets (N+ + 1)/(N+ + 2), 1/(N- + 2) bound the fitted probabilities away from 0 and 1
    p = cal.transform(np.array([0.1, 0.9]))
    assert 0.0 < p[0] < 0.5 < p[1] < 1.0
    assert p[1] < (n_pos + 1) / (n_pos + 2) + 0.05 and p[0] > 1 / (n_neg + 2) - 0.05


def test_isotonic_strict_one_block_names_the_ties_flag(tmp_path, write_csv, cli):
    path = _reversed(tmp_path, write_csv)
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "isotonic", "--ties", "strict",
             "--out", tmp_path / "c.json"])
    assert r.code == 0, r.err
    said = _warnings(r.err)
    assert len(said) == 1 and "IsotonicCalibration (--ties strict): the fit is one constant block" in said[0]
    _only_command_line_words(said)


def test_histogram_of_a_ranking_score_fits_and_a_uniform_strategy_names_the_flag(tmp_path, write_csv, cli,
                                                                                  refused):
    path = _reversed(tmp_path, write_csv)
    base = ["fit", path, "--score", "p", "--label", "y", "--method", "histogram", "--score-type", "score",
            "--out", tmp_path / "c.json"]
    r = cli(base)  # before: refused with "pass strategy='quantile'", which no flag could do
    assert r.code == 0, r.err
    assert vc.load(tmp_path / "c.json").strategy == "quantile"
    bad = cli(base + ["--strategy", "uniform"])
    refused(bad, r"pass --strategy quantile$")


@pytest.mark.parametrize("flag", [["--smoothing"], ["--on-reversed", "allow"], ["--strategy", "quantile"]])
def test_a_method_flag_with_another_method_is_refused(tmp_path, write_csv, cli, refused, flag):
    path = _reversed(tmp_path, write_csv)
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "temperature", *flag,
             "--out", tmp_path / "c.json"])
    refused(r, rf"{flag[0]} sets the \w+ calibrator and has no effect on --method temperature")


def test_python_keeps_its_words_and_a_command_without_the_flag_gets_the_fallback():
    from veracity.cli import warning_text

    p = np.linspace(0.05, 0.95, 200)
    y = (np.random.default_rng(1).uniform(size=p.size) < 1 - p).astype(int)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        vc.PlattScaling().fit(p, y)
    [w] = [w for w in seen if "negative slope" in str(w.message)]
    assert issubclass(w.category, UserWarning)
    assert str(w.message).endswith("(on_reversed='allow' silences this)")  # Python's advice, as before
    bare = argparse.ArgumentParser(prog="veracity other")
    bare.add_argument("--score")
    text = warning_text(w.message, bare)  # a command with no --on-reversed: the advice it cannot follow is left out
    assert text.endswith("before deploying") and "on_reversed" not in text and "--on-reversed" not in text


def test_a_ranking_score_on_the_duckdb_engine_names_the_memory_engine(tmp_path, write_csv, cli, refused):
    """The lazy fits read probabilities or logits: the refusal said "collect the calibration rows of the lazy
    duckdb frame", which no flag does, and read "HistogramBinning(--score-type score)"."""
    pytest.importorskip("duckdb")
    path = _reversed(tmp_path, write_csv)
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "histogram", "--score-type", "score",
             "--engine", "duckdb", "--out", tmp_path / "c.json"])
    refused(r, r"HistogramBinning \(--score-type score\) fits a ranking score on rows in memory; "
               r"use --engine memory$")


def test_temperature_on_a_one_signed_ranking_score_advises_methods(tmp_path, write_csv, cli):
    """Before: "TemperatureScaling(score_type='score') maps a score of 0 to p = 0.5 ...; use PlattScaling
    (sigmoid(a * s + b)) or IsotonicCalibration for a ranking score" -- class names and a keyword."""
    rng = np.random.default_rng(2)
    votes = rng.integers(0, 7, 300)
    y = (rng.uniform(size=votes.size) < votes / 7).astype(int)
    path = write_csv(tmp_path / "votes.csv", "v,y", list(zip(votes, y)))
    r = cli(["fit", path, "--score", "v", "--label", "y", "--method", "temperature", "--score-type", "score",
             "--out", tmp_path / "c.json"])
    assert r.code == 0, r.err
    said = [line for line in _warnings(r.err) if "keeps its sign" in line]
    assert len(said) == 1, r.err
    assert said[0].startswith("veracity fit: warning: TemperatureScaling (--score-type score) maps a score of 0")
    assert "use --method platt (sigmoid(a * s + b)) or --method isotonic for a ranking score" in said[0]
    _only_command_line_words(said)


@pytest.mark.parametrize("text, words", [
    ("Fit on them, or use PlattScaling (which then outputs the base rate)",
     "Fit on them, or use --method platt (which then outputs the base rate)"),
    ("use TemperatureScaling, VectorScaling or MatrixScaling for (N, K) scores",
     "use --method temperature, vector or matrix for (N, K) scores"),
    ("PlattScaling fitted a negative slope", "PlattScaling fitted a negative slope"),  # the subject keeps its name
])
def test_calibrators_named_in_advice_read_as_fit_methods(text, words):
    from veracity.cli import _command_parser, build_parser, warning_text

    assert warning_text(text, _command_parser(build_parser(only="fit"), "fit")) == words
