"""Labels as users have them, and pandas index safety (issue 10)."""

import json

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

import veracity as vc
from veracity.cli import main

P = np.array([0.1, 0.9, 0.2, 0.7, 0.4, 0.6, 0.35, 0.8])
Y01 = np.array([0, 1, 0, 1, 1, 0, 0, 1])
YS = np.where(Y01 == 1, "yes", "no")


@pytest.mark.parametrize("metric", [vc.ece, vc.mce, vc.brier, vc.nll, vc.auc, vc.accuracy])
def test_string_labels_with_pos_label_equal_the_0_1_reading(metric):
    # 8 rows: MCE over sufficient bins would be NaN (no bin has 20 rows), so read every bin
    kw = {"min_count": 1} if metric is vc.mce else {}
    assert np.isfinite(metric(P, Y01, **kw))
    assert metric(P, YS, pos_label="yes", **kw) == metric(P, Y01, **kw)
    assert metric(P, YS, pos_label="no", **kw) == metric(P, 1 - Y01, **kw)


def test_pos_label_matches_sklearn():
    assert vc.brier(P, YS, pos_label="yes") == pytest.approx(brier_score_loss(YS, P, pos_label="yes"))
    assert vc.nll(P, YS, pos_label="yes") == pytest.approx(log_loss(Y01, P))
    assert vc.auc(P, YS, pos_label="yes") == pytest.approx(roc_auc_score(YS == "yes", P))
    yb = np.where(Y01 == 1, 2, 1)
    assert vc.brier(P, yb, pos_label=2) == pytest.approx(brier_score_loss(yb, P, pos_label=2))


def test_boolean_labels_need_no_pos_label():
    assert vc.brier(P, Y01.astype(bool)) == vc.brier(P, Y01)


@pytest.mark.parametrize("labels, match", [
    (YS, r"labels must be 0/1 numbers or booleans, got text \(values 'no', 'yes'\); pass pos_label=.*pos_label='yes'"),
    (np.where(Y01 == 1, 2, 1), r"Map 1 to 0 and 2 to 1, or pass pos_label=2"),
    (np.where(Y01 == 1, 1, -1), r"Map -1 to 0 and 1 to 1, or pass pos_label=1"),
])
def test_ambiguous_label_sets_say_which_pos_label_they_need(labels, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.ece(P, labels)


def test_bad_pos_label_is_named():
    with pytest.raises(vc.VeracityError, match=r"pos_label='Yes' is not among the label values"):
        vc.brier(P, YS, pos_label="Yes")
    with pytest.raises(vc.VeracityError, match="needs a binary label set"):
        vc.brier(P[:3], ["a", "b", "c"], pos_label="a")


@pytest.mark.parametrize("make", [vc.TemperatureScaling, vc.PlattScaling, vc.IsotonicCalibration,
                                  vc.BetaCalibration, vc.HistogramBinning, vc.VennAbers])
def test_calibrators_take_pos_label(make):
    a = make().fit(P, YS, pos_label="yes")
    b = make().fit(P, Y01)
    np.testing.assert_array_equal(a.transform(P), b.transform(P))
    assert a.metadata["pos_label"] == "yes"
    assert vc.load(json.loads(json.dumps(a.to_dict()))).metadata["pos_label"] == "yes"


def test_compare_takes_pos_label_and_defaults_to_the_calibrators():
    cal = vc.PlattScaling().fit(P, YS, pos_label="yes")
    ref = vc.compare(P, Y01, cal).to_dict()
    assert vc.compare(P, YS, cal).to_dict() == ref                     # the label it was fit with
    assert vc.compare(P, np.where(Y01 == 1, "y", "n"), cal, pos_label="y").to_dict() == ref
    with pytest.raises(vc.VeracityError, match=r"pos_label='Yes' is not among the label values"):
        vc.compare(P, YS, cal, pos_label="Yes")


# folds of 4 rows may be separated by the score: the fit says so (tests/calibrators/test_separated_logistic_r20.py)
@pytest.mark.filterwarnings("ignore:PlattScaling. the score separates the calibration labels:UserWarning")
def test_cross_fit_passes_pos_label_to_every_fold():
    a = vc.cross_fit(P, YS, vc.PlattScaling(), folds=2, random_state=0, pos_label="yes")
    b = vc.cross_fit(P, Y01, vc.PlattScaling(), folds=2, random_state=0)
    np.testing.assert_array_equal(a.oof, b.oof)


# -- pandas index safety -----------------------------------------------------------------
def test_shuffled_series_are_refused_not_matched_by_position():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    p = rng.random(2000)
    y = (rng.random(2000) < p).astype(int)
    s = pd.Series(p)
    lab = pd.Series(y).sample(frac=1.0, random_state=1)    # same rows, another order
    assert vc.ece(s, lab.loc[s.index]) < 0.05
    with pytest.raises(vc.VeracityError, match="different indexes.*labels.loc\\[scores.index\\]"):
        vc.ece(s, lab)
    with pytest.raises(vc.VeracityError, match="different indexes"):
        vc.TemperatureScaling().fit(s, lab)
    w = pd.Series(np.ones(2000), index=np.arange(2000) + 5)
    with pytest.raises(vc.VeracityError, match="scores and sample_weight"):
        vc.brier(s, pd.Series(y), sample_weight=w)
    # the same index, or numpy on one side, is fine
    assert vc.ece(s, pd.Series(y)) == vc.ece(p, y)
    assert vc.ece(s, y) == vc.ece(p, y)


def test_cli_pos_label(tmp_path, capsys):
    f = tmp_path / "s.csv"
    rows = "\n".join(f"{p},{'yes' if y else 'no'}" for p, y in zip(P, Y01))
    f.write_text("score,label\n" + rows + "\n")
    out = tmp_path / "cal.json"
    assert main(["fit", str(f), "--method", "platt", "--pos-label", "yes", "--out", str(out)]) == 0
    cal = vc.load(out)
    ref = vc.PlattScaling().fit(P, Y01)
    np.testing.assert_allclose(cal.transform(P), ref.transform(P), rtol=1e-12)
    assert main(["compare", str(f), "--calibrator", str(out)]) == 0   # pos_label from the artifact
    capsys.readouterr()
    assert main(["fit", str(f), "--method", "platt", "--out", str(out)]) == 2
    assert "pass --pos-label naming the positive class, e.g. --pos-label yes" in capsys.readouterr().err
    assert main(["fit", str(f), "--method", "platt", "--pos-label", "maybe", "--out", str(out)]) == 2
    assert "not among the values of column 'label' (labels) ('no', 'yes')" in capsys.readouterr().err
