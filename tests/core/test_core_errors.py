"""Bad input: one clear VeracityError (a ValueError) in Python, exit 2 on the CLI."""

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main

P = [0.1, 0.4, 0.8, 0.9]
Y = [0, 1, 1, 0]


@pytest.mark.parametrize(
    "scores, labels, kwargs, match",
    [
        ([0.1, np.nan, 0.3], [0, 1, 0], {}, r"scores contains 1 NaN"),
        ([0.1, np.inf, 0.3], [0, 1, 0], {}, r"infinite"),
        ([0.1, 1.2, -0.3], [0, 1, 0], {}, r"probabilities in \[0, 1\]; 2 of 3 .*score_type='logit'"),
        (P, [0, 1, 2, 0], {}, r"labels must be binary 0/1.*values such as 2"),
        (P, [0, 1, np.nan, 0], {}, r"labels contains 1 NaN"),
        (P, [-1, 1, 1, -1], {}, r"Map -1 to 0"),
        (P, [0, 1, 1], {}, r"scores have 4 rows but labels have 3"),
        ([], [], {}, r"scores is empty"),
        (P, [0.2, 0.7, 0.9, 0.1], {}, r"look like scores: scores come first"),
        ([0, 1, 1, 0], [0.2, 0.7, 0.9, 0.1], {}, r"did you swap them"),
        (P, Y, {"score_type": "prob"}, r"score_type must be 'probability' or 'logit'"),
        (P, Y, {"sample_weight": [1, 1, 1]}, r"sample_weight has 3 rows but scores have 4"),
        (P, Y, {"sample_weight": [1, -1, 1, 1]}, r"non-negative"),
        (P, Y, {"sample_weight": [0, 0, 0, 0]}, r"sums to 0"),
        (P, Y, {"sample_weight": [1, np.nan, 1, 1]}, r"sample_weight contains 1 NaN"),
        (np.zeros((4, 2, 2)), Y, {}, r"1-D \(binary\) or 2-D"),
        (["a", "b", "c", "d"], Y, {}, r"must be numeric"),
    ],
)
def test_bad_input_raises_clear_error(scores, labels, kwargs, match):
    for fn in (vc.ece, vc.brier, vc.nll, vc.reliability, vc.audit):
        with pytest.raises(vc.VeracityError, match=match):
            fn(scores, labels, **kwargs)


def test_error_type_is_value_error():
    assert issubclass(vc.VeracityError, ValueError)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bins": 0}, r"bins must be a positive integer"),
        ({"bins": 2.5}, r"bins must be a positive integer"),
        ({"strategy": "equal"}, r"strategy must be 'uniform', 'quantile'"),
        ({"interval": "exact"}, r"interval must be 'wilson' or 'clopper-pearson'"),
        ({"level": 95}, r"level must be in \(0, 1\)"),
        ({"sided": "left"}, r"sided must be"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.reliability(P, Y, **kwargs)


def test_single_class_auc_error_but_audit_reports_none():
    with pytest.raises(vc.VeracityError, match=r"AUC needs both classes; all 4 labels are 1"):
        vc.auc(P, [1, 1, 1, 1])
    result = vc.audit(P, [1, 1, 1, 1])
    assert result.auc is None and result.to_dict()["metrics"]["auc"] is None
    assert "AUC n/a" in str(result)


def test_multiclass_rows_must_sum_to_one():
    P3 = np.array([[0.2, 0.3, 0.4], [0.1, 0.1, 0.8]])
    with pytest.raises(vc.VeracityError, match=r"rows must sum to 1; 1 of 2 .*row 0 sums to 0.9"):
        vc.ece(P3, [0, 2])
    with pytest.raises(vc.VeracityError, match=r"labels must lie in 0..2"):
        vc.ece(np.full((2, 3), 1 / 3), [0, 3])
    with pytest.raises(vc.VeracityError, match=r"integer class indices"):
        vc.ece(np.full((2, 3), 1 / 3), [0.5, 1])


def test_huge_logits_are_exact_and_finite():
    s = np.array([1e4, -1e4, 1e4, -1e4])
    y = np.array([1, 0, 0, 1])
    # two right with margin 1e4 (loss ~0) and two wrong (loss 1e4 each)
    assert vc.nll(s, y, score_type="logit") == pytest.approx(5000.0, rel=1e-15)
    assert vc.auc(s, y, score_type="logit") == 0.5


def test_constant_scores_are_documented_not_errors():
    result = vc.audit([0.3] * 50, [0] * 35 + [1] * 15)
    assert result.auc == 0.5  # all pairs tied
    assert len(result.table.rows) == 1


# ---------------------------------------------------------------------------- CLI
def _csv(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "content, extra, match",
    [
        ("score,label\n0.1,0\n0.9,1\n", ["--label", "y"], r"column 'y' not found.*available columns: score, label"),
        ("score,label\n0.1,0\nnan,1\n", [],
         r"column 'score' \(scores\) has 1 missing/NaN and 0 infinite values of 2 rows, first at data row 2"),
        ("score,label\n0.1,0\n,1\n", [], r"column 'score' \(scores\) has 1 missing"),
        ("score,label\n0.1,0\ninf,1\n", [],
         r"column 'score' \(scores\) has 0 missing/NaN and 1 infinite values of 2 rows, first at data row 2"),
        ("score,label\n0.1,0\n0.9,2\n", [], r"labels must be binary"),
        ("score,label\n0.1,0\n1.9,1\n", [], r"pass --score-type logit"),
        ("score,label\n", [], r"header but no rows"),
        ("", [], r"is empty"),
        ("score,label\n0.1,0\n0.9,1\n", ["--by", "segment"], r"column 'segment' not found"),
        ("score,label\n0.1,0\n0.9,1\n", ["--bins", "0"], r"bins must be a positive integer"),
        ("score,label\nhigh,0\nlow,1\n", [], r"column 'score' \(scores\) must be numeric.*such as 'high'"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, content, extra, match):
    path = _csv(tmp_path, content)
    assert main(["audit", path, *extra]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    import re

    assert re.search(match, err), err


def test_cli_missing_file(capsys):
    assert main(["audit", "/nonexistent/file.csv"]) == 2
    assert "file not found" in capsys.readouterr().err


def test_cli_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--strategy", "nope"])
    assert exc.value.code == 2


@pytest.mark.parametrize(
    ("successes", "trials", "match"),
    [
        (8, 7, "got 8 successes in 7 trials"),  # gave [0.738, 1] for a proportion above 1
        (-1, 7, "between 0 and trials"),
        (np.nan, 7, "between 0 and trials"),
        ([1, 2], [3, 1], "got 2 successes in 1 trials"),
        (3, -2, "trials must be finite counts >= 0"),
        (3, np.inf, "trials must be finite counts >= 0"),
        ("a", 3, "must be numbers"),
    ],
)
def test_binomial_interval_refuses_impossible_counts(successes, trials, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.binomial_interval(successes, trials)


def test_binomial_interval_keeps_empty_bins_and_weighted_rounding():
    low, high = vc.binomial_interval([0.0, np.nan, 3.0 + 1e-13, 2.5], [0.0, 0.0, 3.0, 7.0])
    assert np.isnan(low[:2]).all() and np.isnan(high[:2]).all()  # n = 0: NaN, whatever k
    assert high[2] == 1.0 and 0.0 < low[3] < 2.5 / 7 < high[3] < 1.0


@pytest.mark.parametrize(
    "call",
    [
        lambda P, y: vc.ece(P, y, pos_label=1),
        lambda P, y: vc.audit(P, y, pos_label=1),
        lambda P, y: vc.reliability(P, y, pos_label=1),
        lambda P, y: vc.TemperatureScaling().fit(P, y, pos_label=1),
        lambda P, y: vc.IsotonicCalibration().fit(P, y, pos_label=1),  # its one-vs-rest form
    ],
)
def test_pos_label_with_multiclass_scores_is_refused_not_ignored(call):
    # the array form read (N, K) scores top-label and dropped pos_label: numbers for a question not asked
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=60)
    y = rng.integers(0, 3, 60)
    with pytest.raises(vc.VeracityError, match=r"pos_label=1 names the positive class of binary labels.*3 columns"):
        call(P, y)


def test_a_slice_of_underflowing_weights_gets_the_widest_interval_not_an_error():
    # sum w^2 underflowed to 0 in slice 'b': its effective size was NaN (then a confusing error)
    r = vc.audit(np.zeros(3), np.zeros(3, int), sample_weight=[0, 1, 2.2250738585072014e-308],
                 by=np.array(["a", "a", "b"]), bins=4, min_count=1)
    row = r.groups["b"].table.rows[0]
    low, high = vc.binomial_interval(0, 1)
    assert (row.ci_low, row.ci_high) == (float(low), float(high))


@pytest.mark.parametrize("labels", [np.array(["bird", "cat", "dog", "cat"]), ["bird", "cat", "dog", "cat"]])
def test_multiclass_text_labels_say_how_to_map_them(labels):
    """Text labels with (N, K) scores said "labels must be numeric, got dtype <U4; convert the
    column to numbers" — which number is the point: the class's column in the scores."""
    P = np.array([[.7, .2, .1], [.1, .8, .1], [.2, .2, .6], [.5, .3, .2]])
    with pytest.raises(vc.VeracityError, match=r"column index 0\.\.2 .* 'bird'.*classes_") as err:
        vc.audit(P, labels)
    assert err.value.param == "labels"


@pytest.mark.parametrize("values, hint", [
    (["0,75", "0,25"], "decimal comma"),
    (["75%", "25 %"], "percentages"),
    (["0.5", "high"], None),
])
def test_non_numeric_score_column_names_a_bad_value_and_the_fix(values, hint):
    from veracity.core._validation import check_numeric_column

    with pytest.raises(vc.VeracityError) as err:
        check_numeric_column(np.array(values, dtype=object), "p")
    text = str(err.value)
    assert "column 'p' must be numeric scores" in text
    if hint is None:
        assert "'high'" in text and "decimal" not in text and "percent" not in text  # the value that is not a number
    else:
        assert hint in text and repr(values[0]) in text


def test_report_against_column_with_decimal_commas(tmp_path, capsys):
    path = tmp_path / "eu.csv"
    path.write_text('score,label,b\n0.75,1,"0,7"\n0.25,0,"0,2"\n0.5,1,"0,4"\n')
    code = main(["report", str(path), "--score", "score", "--label", "label", "--against", "b",
                 "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "decimal comma" in err


def test_audit_names_the_first_value_that_is_not_a_number(tmp_path, capsys):
    """The message showed the column's first value ('0.75', a number) rather than the bad one."""
    path = tmp_path / "x.csv"
    path.write_text("score,label\n0.75,1\n0.25,0\nx,1\n")
    code = main(["audit", str(path), "--score", "score", "--label", "label", "--engine", "memory"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "such as 'x'" in err and len(err.splitlines()) == 1
