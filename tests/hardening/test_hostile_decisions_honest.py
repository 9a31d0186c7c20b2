"""Hostile inputs to the decision layer and the honest statistics: every user mistake is one
VeracityError line, never a silent wrong number or a raw numpy/scipy traceback; and simulations
that can actually fail when a rule is off by one."""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import veracity as vc
from veracity import VeracityError
from veracity.cli import main
from veracity.decisions import conformal_coverage_law, conformal_quantile


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _drawn(rng, P):
    """One label per row drawn from the row's class probabilities."""
    u = rng.random(P.shape[0])
    return np.minimum((np.cumsum(P, axis=1) < u[:, None]).sum(axis=1), P.shape[1] - 1)


# -- conformal: logits are read once -------------------------------------------------------------
@pytest.mark.parametrize("n", [12, 60])   # below and above the 20 rows of the "probabilities as logits" check
@pytest.mark.parametrize("k", [1, 3])     # k = 1: a 1-D binary logit
def test_conformal_logit_scores_give_the_probability_forms_coverage(n, k):
    # coverage() read the logits into probabilities, then predict_sets read those probabilities as
    # logits a second time: with 12 rows a silently different coverage (1.0 instead of 0.917), with
    # 60 rows a refusal of valid logits ("they look like predict_proba output")
    rng = np.random.default_rng(n + k)
    if k == 1:
        z = rng.normal(0, 3, n)
        P = 1 / (1 + np.exp(-z))
        y = (rng.random(n) < P).astype(int)
    else:
        z = rng.normal(0, 2, (n, k))
        P = _softmax(z)
        y = _drawn(rng, P)
    a = vc.ConformalClassifier(alpha=0.2).fit(P, y)
    b = vc.ConformalClassifier(alpha=0.2, score_type="logit").fit(z, y)
    assert b.qhat_ == pytest.approx(a.qhat_, abs=1e-12)
    ra, rb = a.coverage(P, y), b.coverage(z, y)
    assert rb.marginal == ra.marginal and rb.mean_set_size == ra.mean_set_size
    np.testing.assert_array_equal(b.predict_sets(z), a.predict_sets(P))


def test_cli_conformal_reads_logit_columns_once(tmp_path, capsys):
    rng = np.random.default_rng(3)
    z = rng.normal(0, 2, (120, 3))
    P = _softmax(z)
    y = _drawn(rng, P)
    f = tmp_path / "m.csv"
    pd.DataFrame({"z0": z[:, 0], "z1": z[:, 1], "z2": z[:, 2], "p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2],
                  "y": y}).to_csv(f, index=False)
    assert main(["conformal", str(f), "--score", "z0,z1,z2", "--label", "y", "--score-type", "logit",
                 "--json", "-"]) == 0
    logit = json.loads(capsys.readouterr().out)
    assert main(["conformal", str(f), "--score", "p0,p1,p2", "--label", "y", "--json", "-"]) == 0
    prob = json.loads(capsys.readouterr().out)
    assert logit["roles"]["all"]["marginal"] == prob["roles"]["all"]["marginal"]
    assert logit["conformal"]["qhat"] == pytest.approx(prob["conformal"]["qhat"], abs=1e-12)


# -- conformal: shapes and numbers that are not what they seem -----------------------------------
def test_conformal_quantile_refuses_a_probability_matrix():
    # an (N, K) matrix was flattened into N·K "scores": a q̂ from the wrong sample, silently
    P = np.random.default_rng(0).dirichlet([1, 1, 1], 50)
    with pytest.raises(VeracityError, match=r"scores must be 1-D .* got shape \(50, 3\)"):
        conformal_quantile(P, 0.1)
    assert conformal_quantile(P[:, :1], 0.1) == conformal_quantile(P[:, 0], 0.1)  # one column is 1-D


@pytest.mark.parametrize("call, message", [
    (lambda: conformal_coverage_law("a", 0.1), "n must be a positive integer"),
    (lambda: conformal_coverage_law(float("nan"), 0.1), "n must be a positive integer"),
    (lambda: conformal_coverage_law(True, 0.5), "n must be a positive integer"),
    (lambda: conformal_coverage_law(100, 0.1).interval(2), r"level must be in \(0, 1\)"),
    (lambda: conformal_coverage_law(100, 0.1).interval(float("nan")), r"level must be in \(0, 1\)"),
])
def test_coverage_law_bad_input_is_one_line(call, message):
    with pytest.raises(VeracityError, match=message):
        call()


# -- thresholds ---------------------------------------------------------------------------------
def test_cost_threshold_only_reads_the_ratio_of_huge_or_tiny_costs():
    # 1e308 + 1e308 overflowed to inf: t* = 0, "flag everything", for equal costs
    assert vc.cost_threshold(1e308, 1e308) == 0.5
    assert vc.cost_threshold(1e308, 0.75e308) == pytest.approx(4 / 7)
    assert vc.cost_threshold(1e-320, 3e-320) == 0.25   # subnormal costs keep their ratio
    assert vc.cost_threshold(1, 9) == 0.1 and vc.cost_threshold(0, 1) == 0.0 and vc.cost_threshold(1, 0) == 1.0
    rng = np.random.default_rng(0)
    for a, b in rng.uniform(0, 100, (200, 2)):   # unchanged bit for bit on ordinary costs
        assert vc.cost_threshold(a, b) == a / (a + b)


def test_cli_threshold_weighted_recall_reports_the_rank_it_used(tmp_path, capsys):
    # the explanation and JSON gave k = ceil((n+1)·R) of all positives, which is not the rank the
    # weighted rule chose
    rng = np.random.default_rng(4)
    n = 400
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    w = rng.uniform(0.1, 5.0, n)
    w[::7] = 0.0
    f = tmp_path / "d.csv"
    pd.DataFrame({"p": p, "y": y, "w": w}).to_csv(f, index=False)
    assert main(["threshold", str(f), "--score", "p", "--label", "y", "--sample-weight", "w",
                 "--target-recall", "0.9", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    live = (y == 1) & (w > 0)
    desc = np.sort(p[live])[::-1]
    rule = doc["rule"]
    assert rule["weighted"] is True and rule["n_positives"] == int(live.sum())
    assert desc[rule["k"] - 1] == doc["threshold"] == vc.recall_threshold(p, y, target=0.9, sample_weight=w)
    # unweighted: the +1 rank as before
    assert main(["threshold", str(f), "--score", "p", "--label", "y", "--target-recall", "0.9", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rule"]["k"] == int(np.ceil((int((y == 1).sum()) + 1) * 0.9)) and doc["rule"]["weighted"] is False


# -- selective prediction -----------------------------------------------------------------------
@pytest.mark.parametrize("coverage", [float("nan"), 1.5, -0.1, "most"])
def test_risk_at_refuses_a_coverage_outside_0_1(coverage):
    # NaN and 1.5 read the full-coverage risk, -0.1 the first point's: silent numbers
    rc = vc.risk_coverage([0.9, 0.8, 0.7, 0.6], [1, 1, 0, 1], reading="confidence")
    with pytest.raises(VeracityError, match=r"coverage must be a share of the rows in \[0, 1\]"):
        rc.risk_at(coverage)
    assert rc.risk_at(1.0) == 0.25 and rc.risk_at(0.0) == 0.0


def test_risk_coverage_zero_weight_rows_are_dropped_rows():
    # a row of weight 0 made a curve point of its own: coverage 0 with "risk 0" (0/0), even for an error
    c = np.array([0.95, 0.9, 0.8, 0.7, 0.6])
    ok = np.array([0, 1, 1, 0, 1])
    w = np.array([0.0, 2.0, 0.0, 1.0, 3.0])
    a = vc.risk_coverage(c, ok, reading="confidence", sample_weight=w)
    b = vc.risk_coverage(c[w > 0], ok[w > 0], reading="confidence", sample_weight=w[w > 0])
    assert a.to_dict() == b.to_dict()
    assert (a.accepted > 0).all()


# -- honest statistics: options that were never checked ----------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    (dict(threshold=float("nan")), r"threshold must be a probability in \[0, 1\]"),   # was accuracy of "all 0"
    (dict(threshold=2.0), r"threshold must be a probability in \[0, 1\]"),
    (dict(threshold="0.5"), r"threshold must be a probability in \[0, 1\]"),          # was a numpy ufunc error
    (dict(min_count="20"), "min_count must be a number of rows >= 0"),                 # was a numpy ufunc error
    (dict(min_count=-1), "min_count must be a number of rows >= 0"),
    (dict(min_count=float("nan")), "min_count must be a number of rows >= 0"),
])
def test_bootstrap_options_are_checked(kwargs, message):
    p = np.linspace(0.05, 0.95, 40)
    y = np.arange(40) % 2
    with pytest.raises(VeracityError, match=message):
        vc.bootstrap_intervals(p, y, n_resamples=20, random_state=0, **kwargs)


def test_bootstrap_takes_one_metric_by_name_and_numpy_levels():
    p = np.linspace(0.05, 0.95, 40)
    y = np.arange(40) % 2
    # metrics="ece" was read as the letters 'e', 'c', 'e'; a float32 level was refused
    one = vc.bootstrap_intervals(p, y, metrics="ece", n_resamples=50, random_state=0, level=np.float32(0.9))
    many = vc.bootstrap_intervals(p, y, metrics=["ece"], n_resamples=50, random_state=0, level=0.9)
    assert [r.metric for r in one.intervals] == ["ece"]
    assert one["ece"].estimate == many["ece"].estimate
    assert one.level == pytest.approx(0.9)


@pytest.mark.parametrize("min_count", ["20", -1, None])
def test_ece_estimates_min_count_is_checked(min_count):
    with pytest.raises(VeracityError, match="min_count must be a number of rows >= 0"):
        vc.ece_estimates([0.2, 0.4, 0.7], [0, 1, 1], min_count=min_count)


@pytest.mark.parametrize("scores", [[np.nan], [1.5], [-0.2]])
def test_corp_recalibrate_refuses_nan_and_non_probabilities(scores):
    # NaN landed on the last step of the curve, 1.5 too: silent recalibrated "probabilities"
    r = vc.corp([0.2, 0.7, 0.9, 0.4], [1, 1, 0, 0])
    with pytest.raises(VeracityError):
        r.recalibrate(scores)
    np.testing.assert_array_equal(r.recalibrate([0.2, 0.9]), r.y[[0, -1]])


def test_corp_of_a_pure_sample_prints_no_negative_zero():
    r = vc.corp([0.3], [1])
    assert r.log_loss.unc == 0.0 and "-0.0000" not in str(r)


# -- redraws ------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    (dict(n_calib=20, n_resamples="many"), "n_resamples must be a positive integer"),   # was int('many')
    (dict(n_calib=float("nan")), "n_calib must be a positive integer"),                 # was int(nan)
    (dict(n_calib=True), "n_calib must be a positive integer"),
    (dict(n_calib=20, n_test=-1), "n_test must be a non-negative integer"),
])
def test_redraw_counts_are_checked(kwargs, message):
    rng = np.random.default_rng(8)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    with pytest.raises(VeracityError, match=message):
        vc.simulate_redraws(s, y, target=0.5, random_state=0, **kwargs)


@pytest.mark.parametrize("weighted", [False, True])
def test_stratified_redraws_never_draw_more_positives_than_the_pool(weighted):
    # 5 + 5 rows of 10 with 3 positives: both stratified shares round up to 2 -> 4 > 3 positives,
    # a raw "Cannot take a larger sample than population"
    s = np.linspace(0, 1, 10)
    y = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 1])
    w = np.arange(1.0, 11.0) if weighted else None
    r = vc.simulate_redraws(s, y, n_calib=5, n_test=5, stratify=True, target=0.5, random_state=0,
                            n_resamples=10, sample_weight=w)
    assert (r.calib_positives + r.test_positives <= 3).all()
    assert (r.calib_positives == 2).all()


# -- simulations that can fail ------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:.*empty prediction sets:UserWarning")
@pytest.mark.parametrize("score", ["lac", "aps"])
def test_small_calib_coverage_is_k_over_n_plus_1_and_the_plain_rank_is_caught(score):
    """With n = 10 calib rows and alpha = 0.2 the +1 rule takes k = ceil(11·0.8) = 9 and delivers
    coverage 9/11 = 0.818 in expectation (continuous scores); the plain k = ceil(10·0.8) = 8 gives
    8/11 = 0.727 and k + 1 gives 10/11. The band below is 4 standard errors wide and excludes both
    neighbours, so this simulation fails on an off-by-one (the seed-003 tests at n = 200 and
    n = 1000 cannot tell 161/201 from 160/201)."""
    rng = np.random.default_rng(41 if score == "lac" else 42)
    n, m, alpha, R, K = 10, 100, 0.2, 1500, 3
    cov = np.empty(R)
    plain = np.empty(R)
    for r in range(R):
        P = rng.dirichlet(np.full(K, 0.8), n + m)
        y = _drawn(rng, P)
        cp = vc.ConformalClassifier(alpha=alpha, score=score).fit(P[:n], y[:n])
        cov[r] = cp.coverage(P[n:], y[n:]).marginal
        # the same draw under the plain rank (no +1): the 8th smallest calib score
        q_plain = np.sort(cp.calib_scores_)[int(np.ceil(n * (1 - alpha) - 1e-9)) - 1]
        plain[r] = np.mean(cp._class_scores(P[n:])[np.arange(m), y[n:]] <= q_plain)
    law = conformal_coverage_law(n, alpha)
    assert (law.a, law.b) == (9, 2)
    se = np.sqrt((law.sd**2 + law.mean * (1 - law.mean) / m) / R)
    assert abs(cov.mean() - 9 / 11) <= 4 * se
    assert abs(plain.mean() - 9 / 11) > 4 * se and abs(plain.mean() - 8 / 11) <= 4 * se   # the band has power
    assert abs(10 / 11 - 9 / 11) > 4 * se


def test_hosmer_lemeshow_slope_and_citl_p_values_are_uniform_under_calibration():
    """External validation of true probabilities: Hosmer–Lemeshow by default (df = G, the
    held-out convention), the calibration-slope and calibration-in-the-large Wald tests.
    A wrong df, SE or statistic shifts these rejection rates by far more than 3 binomial SEs:
    the development-sample df = G - 2 (the default before) rejects about 11 % at 5 %."""
    rng = np.random.default_rng(7)
    k, n = 500, 300
    hl, development, citl, slope = (np.empty(k) for _ in range(4))
    for i in range(k):
        p = rng.beta(2, 3, n)
        y = (rng.random(n) < p).astype(float)
        test = vc.hosmer_lemeshow(p, y)
        hl[i] = test.p_value
        development[i] = vc.hosmer_lemeshow(p, y, df=test.df - 2).p_value
        s = vc.calibration_slope(p, y)
        citl[i], slope[i] = s.citl_p_value, s.slope_p_value
    for name, pv in (("hl", hl), ("citl", citl), ("slope", slope)):
        for a in (0.05, 0.2, 0.5):
            assert abs(np.mean(pv <= a) - a) <= 3 * np.sqrt(a * (1 - a) / k), (name, a)
    assert stats.kstest(hl, "uniform").pvalue > 1e-3
    # the simulation has the power to see the wrong df: G - 2 rejects far more than 5 %
    assert np.mean(development <= 0.05) - 0.05 > 3 * np.sqrt(0.05 * 0.95 / k)


def test_bootstrap_intervals_cover_true_nll_and_accuracy():
    # p ~ U(0, 1), y ~ Bernoulli(p): NLL = E[-p log p - (1-p) log(1-p)] = 1/2 and
    # accuracy at 0.5 = E[max(p, 1 - p)] = 3/4 exactly
    from veracity.core._validation import prepare_binary
    from veracity.honest._bootstrap import bootstrap_of

    rng = np.random.default_rng(9)
    k, n = 200, 200
    truth = {"nll": 0.5, "accuracy": 0.75}
    hits = dict.fromkeys(truth, 0)
    for _ in range(k):
        p = rng.random(n)
        y = (rng.random(n) < p).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = bootstrap_of(prepare_binary(p, y), metrics=tuple(truth), method="bca", n_resamples=300,
                             seed=int(rng.integers(2**31)))
        for name in truth:
            hits[name] += r[name].low <= truth[name] <= r[name].high
    for name, h in hits.items():
        assert abs(h / k - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / k), (name, h / k)


# -- the command line: flags that would silently do nothing --------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["threshold", "--no-correction"], "--no-correction changes the --target-recall rule only"),
    (["threshold", "--budget", "0.05"], r"fewer than one alert .* --budget 5%"),
    (["conformal", "--lam", "0.5"], "--lam sets the RAPS penalty and is ignored by --method lac"),
    (["conformal", "--k-reg", "2", "--method", "aps"], "--k-reg sets the RAPS penalty and is ignored by --method aps"),
])
def test_cli_flags_that_change_nothing_exit_2_with_one_line(tmp_path, capsys, argv, message):
    rng = np.random.default_rng(5)
    P = rng.dirichlet([1, 1, 1], 60)
    f = tmp_path / "d.csv"
    pd.DataFrame({"p": P[:, 0], "p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": _drawn(rng, P),
                  "b": (rng.random(60) < P[:, 0]).astype(int)}).to_csv(f, index=False)
    cols = ["--score", "p", "--label", "b"] if argv[0] == "threshold" else ["--score", "p0,p1,p2", "--label", "y"]
    assert main([argv[0], str(f), *cols, *argv[1:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert re.search(message, err)


@pytest.mark.parametrize("bins", [1, "ten", 2.5])
def test_calibration_tests_refuse_bad_bins_instead_of_skipping_hosmer_lemeshow(bins):
    # the bad option was caught with the data's own problems and listed as "not computed"
    with pytest.raises(VeracityError, match="bins must be an integer >= 2"):
        vc.calibration_tests(np.linspace(0.1, 0.9, 50), np.arange(50) % 2, bins=bins)


@pytest.mark.parametrize("scores", [[0.0, 1.0, 0.0, 1.0, 1.0], [1e-300, 1.0, 0.0, 1.0 - 1e-17, 1.0]])
def test_calibration_slope_of_scores_at_0_and_1_is_refused_not_a_number_of_nothing(scores):
    """Scores of 0 or 1 that the labels contradict: the CITL score equation is flat (its
    curvature ~1e-15), so Newton stopped anywhere: 0.384 with SE 2.7e7 (before)."""
    with pytest.raises(vc.VeracityError, match=r"no curvature") as info:
        vc.calibration_slope(scores, [0, 1, 1, 0, 1])
    assert "\n" not in str(info.value)
    # one score inside (0, 1) makes the fit defined again (and its SE says how weakly)
    fit = vc.calibration_slope([*scores, 0.3, 0.6], [0, 1, 1, 0, 1, 0, 1])
    assert np.isfinite(fit.citl) and np.isfinite(fit.citl_se)
