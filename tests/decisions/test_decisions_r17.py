"""Round 17: the decisions' words and a hostile user's inputs.

* ``veracity conformal`` named ConformalClassifier's Python parameter ``probs`` where the user gave
  ``--score`` columns ("probs must be probabilities in [0, 1] (min=0, max=2)"), without a count;
* an error of the coverage of one measured role counted that role's rows ("all 100 lie in [0, 1]" of a
  200-row column) without saying which rows;
* ``--budget 0.05`` with ``--sample-weight`` (meant: 5 %) flagged nothing behind a warning, which called
  one heavy row "7.4 weight tie at the top score";
* a cost of -0 gave t* = -0.0 and printed "cost = -0·FP";
* ``precision_threshold`` with every positive of weight 0 said "the best is 0 at threshold ...";
* Mondrian said "class 1 has 0 calib rows" of a class whose rows all had weight 0.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._validation import VeracityError


def _frame(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-2 * x))
    return pd.DataFrame({"p": p, "z": 2 * x, "y": (rng.random(n) < p).astype(int), "w": np.exp(x),
                         "role": ["calib", "test"] * (n // 2)})


# -- 1. the conformal range error in the command line's words ------------------------------------
def test_conformal_cli_names_the_score_column_not_probs(cli, tmp_path):
    frame = _frame()
    frame["s"] = (frame.p > 0.5).astype(int)  # an integer column: read as it is, one value of 2
    frame.loc[7, "s"] = 2
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli(["conformal", path, "--score", "s", "--label", "y"])
    assert r.code == 2, r.err
    assert "probs" not in r.err  # before: "probs must be probabilities in [0, 1] (min=0, max=2)"
    assert "the scores in the --score column 's' must be probabilities in [0, 1]; 1 of 200 are not" in r.err
    assert "first at data row 8" in r.err and "--score-type logit" in r.err and "divide them by 100" in r.err


def test_python_api_keeps_its_parameter_name_and_counts():
    with pytest.raises(VeracityError, match=r"^probs must be probabilities in \[0, 1\]; 10 of 30 are not "
                                            r"\(min=0\.2, max=1\.5\)\. If these are logits, pass score_type='logit'"):
        vc.ConformalClassifier(alpha=0.1).fit([0.2, 1.5, 0.3] * 10, [0, 1, 0] * 10)


def test_conformal_cli_names_the_measured_rows_of_a_coverage_error(cli, tmp_path):
    """Calib rows hold logits, test rows probabilities, the column declared logits: the coverage on the
    test rows refuses them, and says it is about those 100 rows, by the column's name."""
    frame = _frame()
    frame["mixed"] = np.where(frame.role == "calib", frame.z, frame.p)
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli(["conformal", path, "--score", "mixed", "--label", "y", "--score-type", "logit"])
    assert r.code == 2, r.err
    assert "probs" not in r.err
    assert "the scores in the --score column 'mixed' were declared --score-type logit but all 100" in r.err
    assert "(measured on the 100 rows with role == 'test')" in r.err


# -- 2. a weighted budget below any one row's weight -------------------------------------------------
def test_weighted_budget_below_every_rows_weight_is_refused_with_the_share_hint(cli, tmp_path):
    frame = _frame()
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    lightest = frame.loc[frame.role == "calib", "w"].min()
    assert lightest > 0.05
    r = cli(["threshold", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--budget", "0.05"])
    assert r.code == 2, r.err  # before: exit 0, a threshold that flagged nothing, and a warning
    assert "--budget 0.05 is less than the weight of any one row" in r.err
    assert f"(the lightest weighs {lightest:g})" in r.err and "--budget 5%" in r.err
    heavy = frame.assign(w=frame.w + 1)  # every weight above 1: a budget of 1 cannot flag a row either
    heavy.to_csv(path, index=False)
    r = cli(["threshold", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--budget", "1"])
    assert r.code == 2 and "pass at least" in r.err, r.err
    r = cli(["threshold", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--budget", "5%"])
    assert r.code == 0, r.err


def test_budget_warning_calls_one_heavy_row_one_row_and_a_tie_a_tie():
    with pytest.warns(UserWarning, match=r"^the one row at the top score 0\.9 weighs 3, more than the budget 1; "
                                         r"the threshold flags nothing"):
        t = vc.budget_threshold([.9, .8, .7], top_k=1, sample_weight=[3, 1, 1])
    assert t > 0.9 and vc.threshold_table([.9, .8, .7], [1, 0, 0], [t]).alerts[0] == 0
    with pytest.warns(UserWarning, match=r"^2 rows of total weight 6 tie at the top score 0\.9, more than "):
        vc.budget_threshold([.9, .9, .5], top_k=1, sample_weight=[3, 3, 1])
    with pytest.warns(UserWarning, match=r"^2 rows tie at the top score 0\.9, more than the budget 1;"):
        vc.budget_threshold([.9, .9, .5], top_k=1)


def test_budget_fraction_as_text_says_how_to_write_it():
    with pytest.raises(VeracityError, match=r"fraction must be a number in \(0, 1\], e\.g\. 0\.05 for 5%; got '5%'"):
        vc.budget_threshold([.2, .8], fraction="5%")


# -- 3. a cost of -0 --------------------------------------------------------------------------------
def test_a_cost_of_minus_zero_is_zero():
    t = vc.cost_threshold(-0.0, 1)
    assert t == 0 and math.copysign(1.0, t) == 1.0  # before: -0.0
    table = vc.threshold_table([.2, .8], [0, 1], [0.5], cost_fp=-0.0, cost_fn=1)
    assert "cost = 0·FP + 1·FN" in str(table) and math.copysign(1.0, table.cost_fp) == 1.0


# -- 4. positives that all weigh 0 -------------------------------------------------------------------
def test_precision_threshold_with_weightless_positives_says_so():
    with pytest.raises(VeracityError, match=r"the positive rows all have weight 0"):
        vc.precision_threshold([.9, .8, .7], [1, 0, 1], target=0.5, sample_weight=[0, 1, 0])
    # one positive of positive weight: a threshold, as before (precision 1 at 0.9, 1/2 at 0.8)
    assert vc.precision_threshold([.9, .8, .7], [1, 0, 1], target=0.6, sample_weight=[1, 1, 0]) == 0.9


def test_mondrian_counts_the_rows_of_positive_weight():
    rng = np.random.default_rng(3)
    p = rng.random(100)
    y = (rng.random(100) < p).astype(int)
    w = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(VeracityError, match=r"class 1 has 0 calib rows of positive weight, each class needs at "
                                            r"least 9"):
        vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(p, y, sample_weight=w)
    with pytest.raises(VeracityError, match=r"class 1 has 0 calib rows, each class"):  # unweighted: unchanged
        vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(p, np.zeros(100, dtype=int))


def test_hostile_rates_stay_refused(cli, tmp_path):
    """Targets 0 / 1 / > 1, alpha 0 / 1 and both costs 0 stay one-line refusals (no silent answer)."""
    path = tmp_path / "d.csv"
    _frame().to_csv(path, index=False)
    base = [path, "--score", "p", "--label", "y"]
    for argv, words in [(["threshold", *base, "--target-recall", "1"], "--target-recall must be in (0, 1)"),
                        (["threshold", *base, "--target-recall", "0"], "--target-recall must be in (0, 1)"),
                        (["threshold", *base, "--target-precision", "1.5"], "--target-precision must be in (0, 1)"),
                        (["conformal", *base, "--alpha", "0"], "--alpha must be in (0, 1)"),
                        (["conformal", *base, "--alpha", "1"], "--alpha must be in (0, 1)"),
                        (["threshold", *base, "--cost-fp", "0", "--cost-fn", "0"], "both 0"),
                        (["threshold", *base, "--budget", "0.05"], "write it with %")]:
        r = cli(argv)
        assert r.code == 2 and words in r.err and len(r.err.strip().splitlines()) == 1, (argv, r.err)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert vc.cost_threshold(0, 1) == 0.0 and vc.cost_threshold(1, 0) == 1.0


# -- 5. redraws without test rows ------------------------------------------------------------------
def test_redraws_without_test_rows_print_n_a_not_nan_percent():
    rng = np.random.default_rng(0)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    r = vc.simulate_redraws(s, y, n_calib=100, n_test=0, target=0.9, n_resamples=10, random_state=0)
    text = str(r)
    assert "nan" not in text  # before: "test-reported  nan%  nan%  nan%  nan%"
    row = next(line for line in text.splitlines() if line.startswith("test-reported"))
    assert row.split()[1:] == ["n/a"] * 4
    assert math.isnan(r.test_mean)  # the number itself stays undefined
