"""score_type="score": a ranking score with no probability reading (issue 22).

Calibrators take it as their feature as it is (Platt / temperature on the raw value,
isotonic / histogram on its order); AUC and the threshold table read its order; every
reading as a probability refuses it in one line. Fits survive scores of magnitude 1e5
and 1e-5: the optimiser standardises, the map stays exact on the original scale.
Oracles: an unregularised logistic fit written here (scipy's BFGS on standardised
features, polished by Newton), scikit-learn's IsotonicRegression and roc_auc_score.
"""

import json
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score

import veracity as vc
from veracity.core._validation import VeracityError

REFUSAL = "calibrate first, or declare it a probability"


def _problem(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n) * 2.0
    y = (rng.random(n) < expit(z)).astype(float)
    return z, y


def _reference_logistic(cols, y):
    """Unregularised logistic regression on standardised columns (BFGS, then Newton), mapped back."""
    X = np.column_stack(cols)
    m, s = X.mean(0), X.std(0)
    U = np.column_stack([(X - m) / s, np.ones(len(y))])

    def f(t):
        z = U @ t
        return np.sum(np.logaddexp(0, z) - y * z), U.T @ (expit(z) - y)

    t = minimize(f, np.zeros(U.shape[1]), jac=True, method="BFGS").x
    for _ in range(20):
        p = expit(U @ t)
        t = t - np.linalg.solve(U.T @ (U * (p * (1 - p))[:, None]), U.T @ (p - y))
    coef = t[:-1] / s
    return coef, t[-1] - coef @ m


# -- calibrators take the score as it is ----------------------------------------------------
@pytest.mark.parametrize("scale, shift", [(1.0, 0.0), (1e5, 0.0), (1e-5, 0.0), (1.0, 1e5), (1e-3, 1e5),
                                          (1e-9, 1e-5), (1e11, 0.0)])
def test_platt_on_a_raw_score_is_the_logistic_fit_at_any_magnitude(scale, shift):
    z, y = _problem()
    x = shift + scale * z
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "did not converge"
        cal = vc.PlattScaling(score_type="score").fit(x, y)
    (a,), b = _reference_logistic([x], y)
    np.testing.assert_allclose(cal.transform(x), expit(a * x + b), atol=1e-10)
    # the map is the original scale's a·x + b: the fitted parameters are mapped back exactly
    np.testing.assert_allclose(cal.a_, a, rtol=1e-7)
    assert cal.converged_ and vc.auc(cal.transform(x), y) == pytest.approx(roc_auc_score(y, x), abs=1e-12)


@pytest.mark.parametrize("scale", [1.0, 1e5, 1e-5, 1e11])
def test_temperature_on_a_raw_score_scales_with_it(scale):
    z, y = _problem()
    ref = vc.TemperatureScaling(score_type="score").fit(z, y)
    cal = vc.TemperatureScaling(score_type="score").fit(scale * z, y)
    assert cal.temperature_ == pytest.approx(scale * ref.temperature_, rel=1e-9)
    assert cal.nll_before_ == pytest.approx(vc.nll(scale * z, y, score_type="logit"), rel=1e-9)
    assert cal.nll_after_ == pytest.approx(ref.nll_after_, rel=1e-9)
    np.testing.assert_allclose(cal.transform(scale * z), ref.transform(z), atol=1e-12)


@pytest.mark.parametrize("scale, shift", [(1.0, 0.0), (1e5, 0.0), (1e-5, 0.0), (1.0, 1e5)])
def test_isotonic_and_histogram_read_only_the_order(scale, shift):
    z, y = _problem()
    x = shift + scale * z
    iso = vc.IsotonicCalibration(score_type="score", interpolation="linear").fit(x, y)
    ref = IsotonicRegression(out_of_bounds="clip").fit(x, y)
    np.testing.assert_allclose(iso.transform(x), ref.predict(x), atol=1e-12)
    base = vc.HistogramBinning(score_type="score", strategy="quantile").fit(z, y)
    hist = vc.HistogramBinning(score_type="score", strategy="quantile").fit(x, y)
    np.testing.assert_array_equal(hist.values_, base.values_)  # the same bins: only the order counts
    np.testing.assert_array_equal(hist.transform(x), base.transform(z))


def test_beta_on_a_score_in_the_unit_interval_and_at_1e_minus_5():
    z, y = _problem()
    v = expit(z)  # a vote-share-like score in [0, 1]
    for x in (v, 1e-5 * v):
        cal = vc.BetaCalibration(score_type="score").fit(x, y)
        q = np.clip(x, np.finfo(float).eps, 1 - np.finfo(float).eps)
        (a, b), c = _reference_logistic([np.log(q), -np.log1p(-q)], y)
        assert a >= 0 and b >= 0
        np.testing.assert_allclose(cal.transform(x), expit(a * np.log(q) - b * np.log1p(-q) + c), atol=1e-9)
        np.testing.assert_array_equal(cal.transform(x), vc.BetaCalibration().fit(x, y).transform(x))


def test_logit_fits_survive_extreme_magnitudes_too():
    z, y = _problem()
    for x in (1e5 * z, 1e-5 * z, 1e5 + z):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            p = vc.PlattScaling(score_type="logit").fit(x, y).transform(x)
        (a,), b = _reference_logistic([x], y)
        np.testing.assert_allclose(p, expit(a * x + b), atol=1e-10)
    b5 = vc.BetaCalibration(score_type="logit").fit(1e5 * z, y)
    (a, b), c = _reference_logistic([-np.logaddexp(0, -1e5 * z), np.logaddexp(0, 1e5 * z)], y)
    np.testing.assert_allclose([b5.a_, b5.b_], [a, b], rtol=1e-6)


def test_one_vs_rest_takes_each_class_column_as_it_is():
    rng = np.random.default_rng(1)
    S = rng.normal(size=(600, 3)) * 1e5
    y = S.argmax(1)
    flip = rng.random(600) < 0.3
    y[flip] = rng.integers(0, 3, flip.sum())
    P = vc.PlattScaling(score_type="score").fit(S, y).transform(S)
    cols = []
    for k in range(3):
        (a,), b = _reference_logistic([S[:, k]], (y == k).astype(float))
        cols.append(expit(a * S[:, k] + b))
    Q = np.column_stack(cols)
    np.testing.assert_allclose(P, Q / Q.sum(1, keepdims=True), atol=1e-9)


# -- refusals -----------------------------------------------------------------------------
def test_probability_readings_refuse_a_score_in_one_line():
    s, y = np.linspace(0.05, 0.95, 40), np.tile([0.0, 1.0], 20)
    for fn in (vc.ece, vc.mce, vc.brier, vc.nll, vc.reliability, vc.audit, vc.brier_decomposition, vc.accuracy):
        with pytest.raises(VeracityError) as info:
            fn(s, y, score_type="score")
        text = str(info.value)
        assert "\n" not in text and text.endswith(REFUSAL) and fn.__name__ in text
        assert info.value.param == "score_type"


def test_ranking_readings_accept_a_score():
    z, y = _problem()
    x = 1e5 + 7 * z  # no probability reading at all
    assert vc.auc(x, y, score_type="score") == pytest.approx(roc_auc_score(y, x), abs=1e-15)
    table = vc.threshold_table(x, y, [1e5, 1e5 + 7], score_type="score")
    assert [r.tp for r in table.rows] == [float(((x >= t) & (y == 1)).sum()) for t in (1e5, 1e5 + 7)]
    with pytest.raises(VeracityError, match="score_type must be 'probability' or 'logit' \\(or 'score'"):
        vc.PlattScaling(score_type="rank").fit(x, y)


def test_calibrators_refuse_where_a_score_has_no_meaning():
    z, y = _problem()
    with pytest.raises(VeracityError, match="needs scores in \\[0, 1\\].*PlattScaling or IsotonicCalibration"):
        vc.BetaCalibration(score_type="score").fit(z, y)
    with pytest.raises(VeracityError, match=r"on its order.*pass HistogramBinning\(strategy='quantile'\)") as info:
        vc.HistogramBinning(score_type="score").fit(z, y)
    assert "\n" not in str(info.value)


def test_the_cli_takes_score_type_score(tmp_path, capsys):
    from veracity.cli import main

    z, y = _problem(200)
    x = 5 * z + 3
    path = tmp_path / "s.csv"
    path.write_text("score,label\n" + "\n".join(f"{float(a)!r},{int(b)}" for a, b in zip(x, y)) + "\n")
    with pytest.raises(SystemExit) as stop:  # argparse's usage error: the choice is not offered
        main(["audit", str(path), "--score-type", "score"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'score'" in err and "calibrate it first" in err
    assert main(["fit", str(path), "--method", "platt", "--score-type", "score", "--out", str(tmp_path / "c.json")]) == 0
    doc = json.loads((tmp_path / "c.json").read_text())
    assert doc["params"]["score_type"] == "score" and doc["metadata"]["score_type"] == "score"
    np.testing.assert_array_equal(vc.load(tmp_path / "c.json").transform(x),
                                  vc.PlattScaling(score_type="score").fit(x, y).transform(x))


# -- artifacts ------------------------------------------------------------------------------
@pytest.mark.parametrize("make, shift", [
    (lambda: vc.PlattScaling(score_type="score", smoothing=True), 1e5),
    (lambda: vc.TemperatureScaling(score_type="score"), 0.0),  # s / tau needs a score that crosses 0
    (lambda: vc.IsotonicCalibration(score_type="score", interpolation="linear"), 1e5),
    (lambda: vc.HistogramBinning(score_type="score", strategy="quantile", bins=7), 1e5),
])
def test_artifacts_round_trip_the_score_type(make, shift):
    z, y = _problem()
    x = shift + 3 * z
    cal = make().fit(x, y)
    doc = json.loads(json.dumps(cal.to_dict(), allow_nan=False))
    back = vc.load(doc)
    assert back.score_type == "score" and doc["metadata"]["score_type"] == "score"
    np.testing.assert_array_equal(back.transform(x), cal.transform(x))
    assert back.to_dict() == doc


def test_frames_fit_a_score_in_memory_and_refuse_it_lazily():
    pd = pytest.importorskip("pandas")
    duckdb = pytest.importorskip("duckdb")
    z, y = _problem(400)
    frame = pd.DataFrame({"s": 1e5 + 3 * z, "y": y.astype(int)})
    cal = vc.PlattScaling(score_type="score").fit(frame, score="s", label="y")
    np.testing.assert_array_equal(cal.transform(frame["s"].to_numpy()),
                                  vc.PlattScaling(score_type="score").fit(1e5 + 3 * z, y).transform(1e5 + 3 * z))
    relation = duckdb.sql("SELECT * FROM frame")
    with pytest.raises(VeracityError, match="fits a ranking score on rows in memory") as info:
        vc.PlattScaling(score_type="score").fit(relation, score="s", label="y")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("backend", ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "dask"])
def test_frame_forms_rank_a_score_and_refuse_its_probability_readings(backend):
    """vc.auc and vc.threshold_table read a ranking score from every frame, as the array form does
    (the frame forms once refused it); the probability readings refuse it naming the function."""
    pd = pytest.importorskip("pandas")
    z, y = _problem(600)
    x = np.round(1e5 + 7 * z, 1)  # ties too
    w = np.random.default_rng(4).random(x.size)
    df = pd.DataFrame({"s": x, "y": y.astype(int), "w": w})
    frame = _frame(backend, df)
    for weight in (None, "w"):
        sw = None if weight is None else w
        assert vc.auc(frame, score="s", label="y", sample_weight=weight, score_type="score") == pytest.approx(
            roc_auc_score(y, x, sample_weight=sw), rel=1e-12)
        got = vc.threshold_table(frame, [1e5 - 3, 1e5, 1e5 + 7.1], score="s", label="y", sample_weight=weight,
                                 score_type="score")
        for row in got.rows:
            flagged = x >= row.threshold
            ones = np.ones_like(x) if sw is None else sw
            assert row.tp == pytest.approx(ones[flagged & (y == 1)].sum(), rel=1e-12)
            assert row.fp == pytest.approx(ones[flagged & (y == 0)].sum(), rel=1e-12)
    for fn in (vc.ece, vc.brier, vc.nll, vc.monitor):
        with pytest.raises(VeracityError) as info:
            fn(frame, score="s", label="y", score_type="score", **({"periods": "y"} if fn is vc.monitor else {}))
        text = str(info.value)
        assert "\n" not in text and text.startswith(f"vc.{fn.__name__} reads the scores") and text.endswith(REFUSAL)


def _frame(backend, df):
    if backend == "pandas":
        return df
    if backend.startswith("polars"):
        pl = pytest.importorskip("polars")
        return pl.from_pandas(df).lazy() if backend == "polars-lazy" else pl.from_pandas(df)
    if backend == "pyarrow":
        import pyarrow as pa

        return pa.Table.from_pandas(df)
    if backend == "duckdb":
        return pytest.importorskip("duckdb").from_df(df)
    return pytest.importorskip("dask.dataframe").from_pandas(df, npartitions=3)


def test_threshold_rules_by_rank_take_a_score_and_the_cost_rule_refuses_it(tmp_path, capsys):
    """Recall, precision and budget thresholds are order statistics: on a ranking score they are the
    score at the rank the same rule picks on any increasing map of it to probabilities; the
    cost-optimal c_FP/(c_FP + c_FN) needs probabilities, and the CLI refuses it in one line (it
    once flagged every row of a score near 20 at t* = 0.2)."""
    from veracity.cli import main

    z, y = _problem(400, seed=3)
    x = 20.0 + 5.0 * z
    p = expit(z)  # an increasing map of x into (0, 1)
    back = {float(a): float(b) for a, b in zip(p, x)}
    w = np.random.default_rng(5).random(x.size)
    for sw in (None, w):
        assert vc.recall_threshold(x, y, target=0.9, sample_weight=sw, score_type="score") == \
            back[vc.recall_threshold(p, y, target=0.9, sample_weight=sw)]
        assert vc.precision_threshold(x, y, target=0.8, sample_weight=sw, score_type="score") == \
            back[vc.precision_threshold(p, y, target=0.8, sample_weight=sw)]
        assert vc.budget_threshold(x, fraction=0.1, sample_weight=sw, score_type="score") == \
            back[vc.budget_threshold(p, fraction=0.1, sample_weight=sw)]
    path = tmp_path / "raw.csv"
    path.write_text("score,label\n" + "\n".join(f"{float(a)!r},{int(b)}" for a, b in zip(x, y)) + "\n")
    assert main(["threshold", str(path), "--score-type", "score", "--cost-fn", "4"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "reads calibrated probabilities" in err and "--target-recall" in err
    assert main(["threshold", str(path), "--score-type", "score", "--target-recall", "0.9", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["threshold"] == vc.recall_threshold(x, y, target=0.9, score_type="score")


def test_temperature_on_a_one_signed_score_warns_that_it_cannot_cross_one_half():
    """sigma(s / tau) keeps the sign of s: vote counts 0..6 can only give p >= 0.5, whatever tau
    (the fit gave 0.5 to rows with no votes, whose rate is 0) — said, not silent."""
    rng = np.random.default_rng(3)
    votes = rng.integers(0, 7, 2000)
    y = (rng.random(2000) < votes / 6).astype(int)
    with pytest.warns(UserWarning, match=r"all 2000 scores lie in \[0, 6\], so every output is >= 0.5"):
        cal = vc.TemperatureScaling(score_type="score").fit(votes, y)
    assert cal.transform(np.array([0.0]))[0] == 0.5
    with pytest.warns(UserWarning, match=r"every output is <= 0.5"):
        vc.TemperatureScaling(score_type="score").fit(-votes - 1.0, 1 - y)
    z, yz = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a score that crosses 0, and logits of one sign, stay quiet
        vc.TemperatureScaling(score_type="score").fit(z, yz)
        vc.TemperatureScaling(score_type="logit").fit(np.abs(z) + 0.1, yz)
