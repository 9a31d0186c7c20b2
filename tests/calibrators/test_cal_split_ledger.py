"""Split discipline, cross-fitting and the before/after ledger."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

import veracity as vc


# -- split ------------------------------------------------------------------------------------
def test_seed_000_halves_keep_one_to_six():
    # seed 000: 18 true triples + 6 corruptions each = 126 rows -> 63/63 halves, 9 positives each
    y = np.array([1] * 18 + [0] * 108)
    roles = vc.split(y, roles={"calib": 0.5, "test": 0.5}, random_state=0)
    for r in ("calib", "test"):
        assert (roles == r).sum() == 63 and y[roles == r].sum() == 9
    assert np.array_equal(roles, vc.split(y, roles={"calib": 0.5, "test": 0.5}, random_state=0))
    assert not np.array_equal(roles, vc.split(y, roles={"calib": 0.5, "test": 0.5}, random_state=1))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=300), st.integers(0, 2**31))
def test_split_is_stratified_within_one_row_per_class(labels, seed):
    y = np.array(labels)
    frac = {"train": 0.5, "val": 0.1, "calib": 0.2, "test": 0.2}
    roles = vc.split(y, roles=frac, random_state=seed)
    assert roles.shape == y.shape and set(roles) <= set(frac)
    for c in np.unique(y):
        n_c = (y == c).sum()
        for r, f in frac.items():
            assert abs(((roles == r) & (y == c)).sum() - n_c * f) < 1 + 1e-9


@pytest.mark.parametrize("roles, match", [
    ({"calib": 0.5, "test": 0.4}, "must sum to 1"),
    ({"calib": 1.2, "test": -0.2}, "must be positive"),
    ({}, "non-empty dict"),
    ({"calib": "half", "test": 0.5}, "must be numbers"),
])
def test_split_bad_roles(roles, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.split([0, 1, 0, 1], roles=roles)


# -- the acceptance experiment: fit on calib, measure on a disjoint split -------------------------
def _overconfident(n=6000, seed=0):
    rng = np.random.default_rng(seed)
    u = rng.normal(0, 1.2, n)
    y = (rng.random(n) < expit(u)).astype(float)
    s = 2.6 * u + rng.normal(0, 0.3, n)  # ranks well, logit ~2.6x too large
    return s, y


@pytest.mark.parametrize("make", [
    lambda: vc.TemperatureScaling(score_type="logit"),
    lambda: vc.PlattScaling(score_type="logit"),
    lambda: vc.IsotonicCalibration(score_type="logit"),
    lambda: vc.BetaCalibration(score_type="logit"),
])
def test_calibrators_strictly_lower_ece_and_nll_on_held_out_rows(make):
    s, y = _overconfident()
    roles = vc.split(y, roles={"calib": 0.5, "test": 0.5}, random_state=3)
    cal, ev = roles == "calib", roles == "test"
    c = make().fit(s[cal], y[cal], role="calib")
    ledger = vc.compare(s[ev], y[ev], c)
    assert ledger.row("ECE").after < ledger.row("ECE").before
    assert ledger.row("NLL").after < ledger.row("NLL").before
    # the ledger's BEFORE numbers are the audit core's numbers
    assert ledger.row("ECE").before == pytest.approx(vc.ece(s[ev], y[ev], score_type="logit"))
    assert ledger.row("AUC").before == vc.auc(s[ev], y[ev], score_type="logit")


def test_temperature_certificates_and_printed_ledger():
    s, y = _overconfident(3000, seed=1)
    roles = vc.split(y, random_state=0)
    c = vc.TemperatureScaling(score_type="logit").fit(s[roles == "calib"], y[roles == "calib"], role="calib")
    led = vc.compare(s[roles == "test"], y[roles == "test"], c)
    cert = led.certificates
    assert cert["argsort_identical"] and cert["auc_identical"] and cert["decisions_identical"]
    assert cert["ties_created"] == 0 and cert["order"] == "held"
    assert led.row("AUC").change == 0.0 and led.row("accuracy@0.5").change == 0.0
    assert not led.row("AUC").can_move and not led.row("accuracy@0.5").can_move
    assert led.row("ECE").can_move
    text = str(led)
    assert "stable argsort identical: held" in text and "can move?" in text
    doc = led.to_dict()
    assert doc["certificates"]["auc_identical"] is True
    assert {r["metric"] for r in doc["rows"]} == {"ECE", "NLL", "Brier", "accuracy@0.5", "AUC"}


def test_isotonic_ledger_reports_ties_and_regressions_are_printed():
    s, y = _overconfident(400, seed=2)
    roles = vc.split(y, random_state=0)
    c = vc.IsotonicCalibration(score_type="logit").fit(s[roles == "calib"], y[roles == "calib"])
    led = vc.compare(s[roles == "test"], y[roles == "test"], c)
    assert led.certificates["ties_created"] > 0
    assert led.certificates["order"].startswith("broken")
    assert led.row("AUC").can_move
    # a deliberately bad calibrator (fit on shuffled labels) regresses, and it is printed
    bad = vc.PlattScaling(score_type="logit", on_reversed="allow").fit(s[:200], np.random.default_rng(0).permutation(y[:200]))
    led = vc.compare(s[200:], y[200:], bad)
    assert led.regressions and "regressions (reported, not hidden)" in str(led)
    assert "REGRESSION" in str(led)


def test_multiclass_temperature_ledger_keeps_argmax():
    rng = np.random.default_rng(4)
    U = rng.normal(size=(2000, 5))
    y = (U + rng.gumbel(size=U.shape)).argmax(1)
    Z = 3 * U
    c = vc.TemperatureScaling(score_type="logit").fit(Z[:1000], y[:1000])
    led = vc.compare(Z[1000:], y[1000:], c)
    assert led.certificates["argmax_identical"] and led.row("accuracy@0.5").change == 0.0
    assert led.row("NLL").after < led.row("NLL").before


def test_compare_rejects_a_mismatched_score_type_and_non_calibrators():
    s, y = _overconfident(200)
    c = vc.TemperatureScaling(score_type="logit").fit(s, y)
    with pytest.raises(vc.VeracityError, match="fit on logit scores"):
        vc.compare(expit(s), y, c, score_type="probability")
    with pytest.raises(vc.VeracityError, match="must be a fitted veracity calibrator"):
        vc.compare(s, y, "temperature")


# -- cross-fit ---------------------------------------------------------------------------------
def test_cross_fit_out_of_fold_rows_never_seen():
    s, y = _overconfident(1000, seed=5)
    cf = vc.cross_fit(s, y, vc.TemperatureScaling(score_type="logit"), folds=5, random_state=0)
    assert cf.oof.shape == (1000,) and len(cf.calibrators) == 5
    for k, c in enumerate(cf.calibrators):
        held = cf.fold == k
        assert c.metadata["n_rows"] == (~held).sum()
        assert np.array_equal(cf.oof[held], c.transform(s[held]))
    assert cf.final.metadata["n_rows"] == 1000
    assert vc.ece(cf.oof, y) < vc.ece(s, y, score_type="logit")
    assert "5 folds" in str(cf)
    with pytest.raises(vc.VeracityError, match="folds must be an integer >= 2"):
        vc.cross_fit(s, y, vc.TemperatureScaling(score_type="logit"), folds=1)


def test_split_with_scores_and_labels_says_it_takes_the_labels_alone_in_one_line():
    """vc.split(scores, labels) — the metrics' order — sent 400 labels to roles= and printed the
    whole array's repr over many lines; now one line saying what split takes."""
    rng = np.random.default_rng(0)
    scores, labels = rng.uniform(size=400), rng.integers(0, 2, 400)
    with pytest.warns(DeprecationWarning), pytest.raises(vc.VeracityError) as info:
        vc.split(scores, labels)
    text = str(info.value)
    assert "\n" not in text and len(text) < 200
    assert "ndarray of 400 values" in text and "vc.split(labels, roles=" in text
    assert info.value.param == "roles"
