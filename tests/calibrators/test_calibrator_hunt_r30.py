"""A demanding user's hunt through the calibrators (session 30).

* Platt's smoothed targets read the weights as row counts (``N+ = Σ w y``), but they were read after the
  weights' exact power-of-two rescaling (``core._weights``): one extra row of weight 1e-150 among weights of
  1 raised every weight by 2^19, the targets to within 1e-6 of 0/1, and switched the smoothing off (slope
  0.97 -> 1.31); constant weights of 1e100 gave another fit than 1e20. The counts are now in the caller's units.
* Weights that are no counts (normalised to sum to 1) pull the smoothed targets to about 0.6/0.4, a map
  within about [0.36, 0.64]: now warned, with the fix.
* Multiclass temperature scaling on reversed scores said "higher scores go with FEWER positives ... pass
  -scores, or 1 - p": (N, K) rows have no positives and 1 - p is no probability row; the usual cause is score
  columns in another order than the labels, which it now names.
* ``str(TemperatureScaling)`` of a fit clamped at the upper end (reversed or signal-free scores) said
  "tau > 1: the raw reading was OVERconfident", and a fit at tau = 1e-10 printed ``tau* = 0.0000``.

Oracles: scikit-learn's LogisticRegression with ``sample_weight`` (Platt, beta) and its sigmoid
calibration's weighted Platt targets (``sklearn.calibration._sigmoid_calibration``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.special import expit

import veracity as vc


def _binary(seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 2, n)
    y = (rng.random(n) < expit(z)).astype(int)
    y[:2] = [0, 1]
    return z, y


def _quiet_fit(make, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make().fit(*args, **kwargs)


# -- Platt's smoothed targets count in the caller's units ----------------------------------------------
@pytest.mark.parametrize("tiny", [1e-150, 1e-300])
def test_a_negligible_row_leaves_smoothed_platt_as_dropping_it(tiny):
    z, y = _binary(0, 30)
    w = np.ones(z.size)
    w[5] = tiny
    dropped = vc.PlattScaling(score_type="logit", smoothing=True).fit(np.delete(z, 5), np.delete(y, 5))
    kept = vc.PlattScaling(score_type="logit", smoothing=True).fit(z, y, sample_weight=w)
    # old: a 1.31 against 0.97 (the counts raised by 2^19 with every weight)
    assert kept.a_ == pytest.approx(dropped.a_, abs=1e-12)
    assert kept.b_ == pytest.approx(dropped.b_, abs=1e-12)


@pytest.mark.parametrize("scale", [1e100, 1e200, 1e300])
def test_huge_constant_weights_are_huge_counts(scale):
    # counts of 1e20 and of 1e100 a row both make the targets 1 and 0 to the last bit: the same fit
    z, y = _binary(1)
    ref = vc.PlattScaling(score_type="logit", smoothing=True).fit(z, y, sample_weight=np.full(z.size, 1e20))
    big = vc.PlattScaling(score_type="logit", smoothing=True).fit(z, y, sample_weight=np.full(z.size, scale))
    assert big.a_ == pytest.approx(ref.a_, rel=1e-12) and big.b_ == pytest.approx(ref.b_, rel=1e-9, abs=1e-12)


def test_one_vs_rest_platt_counts_in_the_callers_units():
    rng = np.random.default_rng(2)
    n = 60
    y = rng.integers(0, 3, n)
    L = rng.normal(0, 1, (n, 3))
    L[np.arange(n), y] += 1.5
    P = np.exp(L) / np.exp(L).sum(axis=1, keepdims=True)
    w = np.ones(n)
    w[0] = 1e-200
    make = lambda: vc.OneVsRest(method="platt", method_params={"smoothing": True})  # noqa: E731
    a = _quiet_fit(make, P, y, sample_weight=w).transform(P)
    b = _quiet_fit(make, P[1:], y[1:]).transform(P)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_weights_normalised_to_one_are_warned_under_smoothing():
    z, y = _binary(3, 1000)
    w = np.random.default_rng(3).uniform(0.5, 1.5, z.size)
    with pytest.warns(UserWarning, match=r"reads the weights as row counts.*scale them to a mean of 1"):
        flat = vc.PlattScaling(score_type="logit", smoothing=True).fit(z, y, sample_weight=w / w.sum())
    lo, hi = flat.transform([-5.0, 5.0])
    assert 0.3 < lo < hi < 0.7  # the pull the warning names
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # mean-1 weights, and integer counts, are no reason to warn
        vc.PlattScaling(score_type="logit", smoothing=True).fit(z, y, sample_weight=w)
        vc.PlattScaling(score_type="logit", smoothing=True).fit(z, y, sample_weight=np.arange(z.size) % 3)


def test_weighted_smoothed_platt_matches_sklearn_sigmoid_calibration():
    # oracle: scikit-learn's sigmoid calibration, whose Platt targets are the weighted class totals
    calibration = pytest.importorskip("sklearn.calibration")
    z, y = _binary(4, 300)
    w = np.random.default_rng(4).uniform(0.2, 3.0, z.size)
    a, b = calibration._sigmoid_calibration(z, y, sample_weight=w)  # p = 1 / (1 + exp(a z + b))
    c = vc.PlattScaling(score_type="logit", smoothing=True).fit(z, y, sample_weight=w)
    assert c.a_ == pytest.approx(-a, abs=1e-4) and c.b_ == pytest.approx(-b, abs=1e-4)


# -- weighted fits against scikit-learn's LogisticRegression ---------------------------------------------
@pytest.mark.parametrize("score_type", ["logit", "score", "probability"])
def test_weighted_platt_matches_weighted_logistic_regression(score_type):
    # oracle: unregularised LogisticRegression(sample_weight=w) on the logit (Platt's feature)
    from sklearn.linear_model import LogisticRegression

    z, y = _binary(5, 500)
    w = np.random.default_rng(5).uniform(0.1, 5.0, z.size)
    ref = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=1000)
    ref.fit(z[:, None], y, sample_weight=w)
    s = expit(z) if score_type == "probability" else z
    c = vc.PlattScaling(score_type=score_type).fit(s, y, sample_weight=w)
    assert c.a_ == pytest.approx(ref.coef_[0, 0], abs=1e-6) and c.b_ == pytest.approx(ref.intercept_[0], abs=1e-6)


def test_weighted_beta_matches_weighted_logistic_regression():
    # oracle: Kull et al. (2017) -- LogisticRegression(sample_weight=w) on (ln p, -ln(1 - p))
    from sklearn.linear_model import LogisticRegression

    z, y = _binary(6, 500)
    p = expit(0.7 * z)
    w = np.random.default_rng(6).uniform(0.1, 5.0, z.size)
    F = np.column_stack([np.log(p), -np.log1p(-p)])
    ref = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(F, y, sample_weight=w)
    c = vc.BetaCalibration().fit(p, y, sample_weight=w)
    assert [c.a_, c.b_, c.c_] == pytest.approx([*ref.coef_[0], ref.intercept_[0]], abs=1e-6)


# -- a row of negligible weight is a dropped row for the smooth (parametric) maps ------------------------
SMOOTH = {
    "temperature": lambda: vc.TemperatureScaling(score_type="logit"),
    "platt": lambda: vc.PlattScaling(score_type="logit", on_reversed="allow"),
    "platt-smoothed": lambda: vc.PlattScaling(score_type="logit", smoothing=True, on_reversed="allow"),
    "beta": lambda: vc.BetaCalibration(score_type="logit"),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(6, 40), which=st.sampled_from(sorted(SMOOTH)),
       tiny=st.sampled_from([1e-150, 1e-250, 5e-324]))
def test_a_row_of_negligible_weight_changes_no_smooth_map(seed, n, which, tiny):
    rng = np.random.default_rng(seed)
    z = np.round(rng.normal(0, 2, n), 1)
    y = (rng.random(n) < expit(z)).astype(int)
    y[:2] = [0, 1]
    w = rng.integers(1, 4, n).astype(float)
    w[-1] = tiny  # the last row: present, but weighing nothing a sum can see
    grid = np.linspace(-6, 6, 25)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = SMOOTH[which]().fit(z, y, sample_weight=w).transform(grid)
        b = SMOOTH[which]().fit(z[:-1], y[:-1], sample_weight=w[:-1]).transform(grid)
    # a separable draw has no maximum-likelihood fit: each fit stops where its optimiser gives up
    assume(not any("separat" in str(c.message) or "converge" in str(c.message) for c in caught))
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)


# -- temperature scaling's words -------------------------------------------------------------------------
def _permuted_columns(seed: int = 0, n: int = 500):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    L = rng.normal(0, 1, (n, 3))
    L[np.arange(n), y] += 2.0
    P = np.exp(L) / np.exp(L).sum(axis=1, keepdims=True)
    return P[:, [1, 2, 0]], y  # a good model, its columns in another order than the labels


def test_multiclass_reversal_names_the_column_order_not_positives():
    P, y = _permuted_columns()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ts = vc.TemperatureScaling().fit(P, y)
    text = " ".join(str(w.message) for w in caught)
    assert ts.clamped_ == "upper" and "reversed" in text
    assert "column k is class k's" in text
    assert "positives" not in text and "1 - p" not in text and "PlattScaling" not in text


def test_binary_reversal_keeps_its_sign_convention_advice():
    s = np.tile([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], 10)  # ten copies: six rows alone are noise-level (r30b)
    with pytest.warns(UserWarning, match=r"FEWER positives.*sign convention"):
        vc.TemperatureScaling(score_type="logit").fit(s, np.tile([1, 1, 0, 1, 0, 0], 10))


def test_str_of_a_clamped_temperature_claims_no_confidence_direction():
    P, y = _permuted_columns()
    ts = _quiet_fit(vc.TemperatureScaling, P, y)
    text = str(ts)
    assert "OVERconfident" not in text and "upper end of its range, not at an optimum" in text
    assert "tau* = 1e+10" in text
    low = _quiet_fit(lambda: vc.TemperatureScaling(score_type="logit"), [-1.0, 1.0], [0, 1])
    assert low.clamped_ == "lower"
    text = str(low)
    assert "tau* = 1e-10" in text and "0.0000 (tau=1)" not in text.splitlines()[0]
    assert "UNDERconfident" not in text and "lower end of its range" in text
    # an optimum keeps its reading
    z, yb = _binary(7, 400)
    assert "OVERconfident" in str(vc.TemperatureScaling(score_type="logit").fit(3.0 * z, yb))


# -- the command line ------------------------------------------------------------------------------------
def _csv(path, **cols):
    import pandas as pd

    pd.DataFrame(cols).to_csv(path, index=False)
    return path


def test_cli_multiclass_reversal_names_the_column_order(tmp_path, cli):
    P, y = _permuted_columns()
    f = _csv(tmp_path / "mc.csv", p0=P[:, 0], p1=P[:, 1], p2=P[:, 2], label=y)
    res = cli(["fit", f, "--score", "p0,p1,p2", "--method", "temperature", "--out", tmp_path / "t.json"])
    assert res.code == 0 and "column k is class k's" in res.err
    assert "1 - p" not in res.err and "--method platt" not in res.err


def test_cli_smoothing_with_normalised_weights_warns(tmp_path, cli):
    z, y = _binary(8, 200)
    f = _csv(tmp_path / "w.csv", score=expit(z), label=y, w=np.full(z.size, 1 / z.size))
    res = cli(["fit", f, "--method", "platt", "--smoothing", "--sample-weight", "w", "--out", tmp_path / "p.json"])
    assert res.code == 0 and "reads the weights as row counts" in res.err


@pytest.mark.parametrize("rows, args, match", [
    ({"score": [0.4], "label": [1]}, ["--method", "platt"], "needs both classes"),
    ({"score": [0.2, 0.4, 0.9], "label": [1, 1, 1]}, ["--method", "isotonic"], "needs both classes"),
    ({"score": [-800.0, 800.0, 3.0], "label": [0, 1, 1]}, ["--method", "beta"], r"--score-type logit"),
    ({"p0": [0.2, 0.5, 0.7, 0.1], "p1": [0.3, 0.2, 0.1, 0.8], "p2": [0.5, 0.3, 0.2, 0.1], "label": [0, 1, 0, 1]},
     ["--score", "p0,p1,p2", "--method", "vector"], "class 2 has none"),
    ({"score": [0.2, 0.4, 0.9], "label": [0, 1, 1], "w": [1.0, -1.0, 1.0]},
     ["--method", "platt", "--sample-weight", "w"], "non-negative"),
])
def test_cli_fit_refuses_hostile_rows_in_one_line(tmp_path, cli, refused, rows, args, match):
    f = _csv(tmp_path / "in.csv", **rows)
    refused(cli(["fit", f, *args, "--out", tmp_path / "c.json"]), match)


@pytest.mark.parametrize("scores, match", [
    ([0.3, float("nan")], "missing/NaN"),
    ([0.3, 1.5], r"probabilities in \[0, 1\]"),
])
def test_cli_apply_refuses_hostile_scores_in_one_line(tmp_path, cli, refused, scores, match):
    z, y = _binary(9, 60)
    fit = _csv(tmp_path / "fit.csv", score=expit(z), label=y)
    assert cli(["fit", fit, "--method", "isotonic", "--out", tmp_path / "c.json"]).code == 0
    new = _csv(tmp_path / "new.csv", score=scores)
    refused(cli(["apply", tmp_path / "c.json", new, "-o", tmp_path / "out.csv"]), match)


def test_cli_apply_names_the_score_column_and_first_bad_row(tmp_path, cli, refused):
    # old: "scores must be probabilities in [0, 1]; 1 of 5 are not (...)": no column, no row, where
    # `veracity fit` on the same file says "column 'p' (scores) ..., first at data row 4"
    z, y = _binary(10, 60)
    fit = _csv(tmp_path / "fit.csv", p=expit(z), label=y)
    assert cli(["fit", fit, "--score", "p", "--method", "platt", "--out", tmp_path / "c.json"]).code == 0
    new = _csv(tmp_path / "new.csv", p=[0.2, 0.3, 0.4, 1.7, 0.5])
    refused(cli(["apply", tmp_path / "c.json", new, "-o", tmp_path / "out.csv"]),
            r"column 'p' \(scores\) must be probabilities in \[0, 1\]; 1 of 5 are not \([^)]*\), first at data row 4;"
            r".*--score-type logit")


def test_cli_apply_multiclass_names_its_columns_and_rows(tmp_path, cli, refused):
    P, y = _permuted_columns(1, 90)
    fit = _csv(tmp_path / "fit.csv", a=P[:, 0], b=P[:, 1], c=P[:, 2], label=y)
    assert cli(["fit", fit, "--score", "a,b,c", "--method", "vector", "--out", tmp_path / "v.json"]).code == 0
    bad = P[:4].copy()
    bad[2, 0] += 0.5  # data row 3 no longer sums to 1
    bad[3, 1] = 1.5   # data row 4 leaves [0, 1]
    new = _csv(tmp_path / "new.csv", a=bad[:, 0], b=bad[:, 1], c=bad[:, 2])
    refused(cli(["apply", tmp_path / "v.json", new, "-o", tmp_path / "out.csv"]),
            r"columns 'a', 'b', 'c' \(scores\) must be probabilities in \[0, 1\].*first at data row 4")
    new = _csv(tmp_path / "sums.csv", a=bad[:3, 0], b=bad[:3, 1], c=bad[:3, 2])
    refused(cli(["apply", tmp_path / "v.json", new, "-o", tmp_path / "out.csv"]),
            r"must sum to 1; 1 of 3 do not \(data row 3 sums to")
