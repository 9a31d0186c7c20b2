"""Split conformal: q̂ definition, sets, the coverage guarantee and its Beta law (seed 003)."""

import json

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity import VeracityError
from veracity.decisions import conformal_quantile, min_calibration_size


def _calibrated(rng, n, k=3, conc=0.7, prior=None, bias=None):
    """Dirichlet class probabilities Q, labels drawn from Q, and model probabilities P.

    Without ``bias`` the model is calibrated (P = Q); with it P = softmax(log Q + bias).
    """
    Q = rng.dirichlet(np.full(k, conc), n)
    if prior is not None:
        Q = Q * np.asarray(prior)
        Q /= Q.sum(axis=1, keepdims=True)
    u = rng.random(n)
    y = np.minimum((np.cumsum(Q, axis=1) < u[:, None]).sum(axis=1), k - 1)
    if bias is None:
        return Q, y
    z = np.log(np.clip(Q, 1e-300, None)) + np.asarray(bias)
    P = np.exp(z - z.max(axis=1, keepdims=True))
    return P / P.sum(axis=1, keepdims=True), y


# -- definitions ----------------------------------------------------------------------
def test_qhat_is_the_ceil_n_plus_1_quantile():
    rng = np.random.default_rng(0)
    for n, alpha in [(9, 0.1), (10, 0.1), (100, 0.1), (1000, 0.05), (57, 0.2)]:
        s = rng.random(n)
        k = int(np.ceil((n + 1) * (1 - alpha) - 1e-9))
        assert conformal_quantile(s, alpha) == np.sort(s)[k - 1]
    # seed 003 rule on 1..100: k = ceil(101 * 0.9) = 91
    assert conformal_quantile(np.arange(1, 101), 0.1) == 91


def test_lac_sets_are_classes_with_score_at_most_qhat():
    rng = np.random.default_rng(1)
    P, y = _calibrated(rng, 500)
    cp = vc.ConformalClassifier(alpha=0.2).fit(P, y)
    scores = 1 - P[np.arange(500), y]
    assert cp.qhat_ == conformal_quantile(scores, 0.2)
    Pt, _ = _calibrated(rng, 200)
    np.testing.assert_array_equal(cp.predict_sets(Pt), (1 - Pt) <= cp.qhat_)
    # on the calib rows themselves at least ceil((n+1)(1-alpha)) are covered
    assert cp.predict_sets(P)[np.arange(500), y].sum() >= np.ceil(501 * 0.8)


def test_aps_score_is_mass_ranked_at_or_above_true_class():
    P = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]] * 4)
    y = np.array([1, 2, 0] * 4)
    cp = vc.ConformalClassifier(alpha=0.25, score="aps").fit(P, y)
    # true-class scores: row0 y=1 -> .5+.3 = .8; row1 y=2 -> .6+.3 = .9; row2 y=0 -> .6 + .2 (stable tie order) = .8
    np.testing.assert_allclose(cp.calib_scores_[:3], [0.8, 0.9, 0.8])
    sets = cp.predict_sets([[0.7, 0.2, 0.1]])  # cumulative .7, .9, 1.0 vs qhat
    assert cp.qhat_ == pytest.approx(0.9)
    assert sets.tolist() == [[True, True, False]]


def test_binary_scores_become_two_columns():
    rng = np.random.default_rng(2)
    p = rng.random(400)
    y = (rng.random(400) < p).astype(int)
    a = vc.ConformalClassifier(alpha=0.1).fit(p, y)
    b = vc.ConformalClassifier(alpha=0.1).fit(np.column_stack([1 - p, p]), y)
    assert a.qhat_ == b.qhat_
    np.testing.assert_array_equal(a.predict_sets(p[:50]), b.predict_sets(np.column_stack([1 - p, p])[:50]))


def test_coverage_report_fields_and_json():
    rng = np.random.default_rng(3)
    P, y = _calibrated(rng, 3000)
    cp = vc.ConformalClassifier(alpha=0.1).fit(P[:1500], y[:1500])
    rep = cp.coverage(P[1500:], y[1500:])
    sets = cp.predict_sets(P[1500:])
    assert rep.marginal == sets[np.arange(1500), y[1500:]].mean()
    assert rep.mean_set_size == sets.sum(1).mean()
    assert rep.empty_rate == (sets.sum(1) == 0).mean()
    assert rep.size_counts.sum() == 1500
    for c in range(3):
        assert rep.per_class[c] == pytest.approx(sets[y[1500:] == c, c].mean())
    doc = json.loads(json.dumps(rep.to_dict()))
    assert doc["target"] == pytest.approx(0.9) and len(doc["per_class"]) == 3
    assert "marginal coverage" in str(rep) and "mean set size" in str(rep)


def test_coverage_law_seed_003():
    # seed 003: with 1,000 calib points at alpha = 0.1 coverage is mostly 0.88–0.92
    law = vc.conformal_coverage_law(1000, 0.1)
    assert (law.a, law.b) == (901, 100)  # Beta(n + 1 - l, l), l = floor(1001 * 0.1) = 100
    lo, hi = law.interval(0.9)
    assert 0.88 < lo < hi < 0.92
    assert law.mean == pytest.approx(901 / 1001)


# -- the guarantee, by simulation (seeded) ----------------------------------------------
def test_marginal_coverage_guarantee_and_beta_spread():
    # Angelopoulos & Bates §3.2: given the calib set, coverage ~ Beta(k, n + 1 - k); measured on a
    # finite test set of m rows the variance adds E[c(1 - c)]/m.
    rng = np.random.default_rng(10)
    n, m, alpha, R = 1000, 4000, 0.1, 300
    cov = np.empty(R)
    for r in range(R):
        P, y = _calibrated(rng, n + m)
        cp = vc.ConformalClassifier(alpha=alpha).fit(P[:n], y[:n])
        cov[r] = cp.coverage(P[n:], y[n:]).marginal
    law = vc.conformal_coverage_law(n, alpha)
    var = law.sd**2 + (law.mean * (1 - law.mean) - law.sd**2) / m
    se = np.sqrt(var / R)
    assert cov.mean() >= 1 - alpha - 3 * se
    assert abs(cov.mean() - law.mean) < 4 * se
    assert cov.std(ddof=1) == pytest.approx(np.sqrt(var), rel=0.2)
    assert np.mean((cov >= 0.88) & (cov <= 0.92)) > 0.85  # seed 003: "mostly 0.88 to 0.92"


@pytest.mark.filterwarnings("ignore:.*empty prediction sets:UserWarning")  # deterministic APS (issue 22)
@pytest.mark.parametrize("score, randomized", [("aps", False), ("aps", True), ("lac", False)])
def test_coverage_guarantee_holds_for_each_score(score, randomized):
    rng = np.random.default_rng(11)
    n, m, alpha, R = 200, 2000, 0.2, 150
    cov = np.empty(R)
    for r in range(R):
        P, y = _calibrated(rng, n + m, k=4)
        cp = vc.ConformalClassifier(alpha=alpha, score=score, randomized=randomized, random_state=r).fit(P[:n], y[:n])
        cov[r] = cp.coverage(P[n:], y[n:]).marginal
    law = vc.conformal_coverage_law(n, alpha)
    se = np.sqrt((law.sd**2 + 0.16 / m) / R)
    assert cov.mean() >= 1 - alpha - 3 * se


def test_mondrian_coverage_holds_per_class_where_marginal_fails():
    rng = np.random.default_rng(12)
    n, m, alpha, R = 3000, 6000, 0.1, 80
    prior, bias = [0.6, 0.3, 0.1], [0.8, 0.0, -1.5]  # the model under-rates class 2
    marg = np.empty((R, 3))
    mond = np.empty((R, 3))
    for r in range(R):
        P, y = _calibrated(rng, n + m, prior=prior, bias=bias)
        marg[r] = vc.ConformalClassifier(alpha=alpha).fit(P[:n], y[:n]).coverage(P[n:], y[n:]).per_class
        mond[r] = vc.ConformalClassifier(alpha=alpha, mondrian=True).fit(P[:n], y[:n]).coverage(P[n:], y[n:]).per_class
    # the marginal guarantee says nothing per class: class 2 is under-covered
    assert marg.mean(axis=0)[2] < 1 - alpha - 0.05
    # Mondrian: every class reaches 1 - alpha on average (within 3 standard errors)
    se = mond.std(axis=0, ddof=1) / np.sqrt(R)
    assert (mond.mean(axis=0) >= 1 - alpha - 3 * se).all()


def test_mondrian_qhat_per_class_definition():
    rng = np.random.default_rng(13)
    P, y = _calibrated(rng, 900)
    cp = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P, y)
    for c in range(3):
        assert cp.class_qhat_[c] == conformal_quantile(1 - P[y == c, c], 0.1)
    assert cp.qhat_ == conformal_quantile(1 - P[np.arange(900), y], 0.1)


# -- bad input ------------------------------------------------------------------------
P_OK = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]] * 10)
Y_OK = np.array([0, 1, 2] * 10)
BAD = [
    (lambda: vc.ConformalClassifier(alpha=0).fit(P_OK, Y_OK), r"alpha must be in \(0, 1\)"),
    (lambda: vc.ConformalClassifier(alpha=1.2).fit(P_OK, Y_OK), r"alpha must be in \(0, 1\)"),
    (lambda: vc.ConformalClassifier(alpha="x").fit(P_OK, Y_OK), "alpha must be a number"),
    (lambda: vc.ConformalClassifier(alpha=0.1, score="foo").fit(P_OK, Y_OK), "score must be 'lac' or 'aps'"),
    (lambda: vc.ConformalClassifier(alpha=0.1, randomized=True).fit(P_OK, Y_OK), "score='aps' only"),
    (lambda: vc.ConformalClassifier(alpha=0.1).fit(P_OK * 1.1, Y_OK), "rows must sum to 1"),
    (lambda: vc.ConformalClassifier(alpha=0.1).fit(P_OK[:8], Y_OK[:8]), r"need at least 9.*got n = 8"),
    (lambda: vc.ConformalClassifier(alpha=0.01).fit(P_OK, Y_OK), r"need at least 99"),
    (lambda: vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P_OK[:21], Y_OK[:21]), "class 0 has 7 calib rows"),
    (lambda: vc.ConformalClassifier(alpha=0.1).predict_sets(P_OK), "not fitted"),
    (lambda: vc.ConformalClassifier(alpha=0.1).fit(P_OK, Y_OK).predict_sets(P_OK[:, :2] / P_OK[:, :2].sum(1, keepdims=True)),
     "2 class columns but the classifier was fit on 3"),
    (lambda: vc.ConformalClassifier(alpha=0.1).fit(P_OK, Y_OK + 1), r"labels must lie in 0..2"),
    (lambda: vc.conformal_coverage_law(5, 0.1), "at least 9"),
]


@pytest.mark.parametrize("call, message", BAD)
def test_conformal_bad_input(call, message):
    with pytest.raises(VeracityError, match=message):
        call()


def test_min_calibration_size():
    assert min_calibration_size(0.1) == 9
    assert min_calibration_size(0.05) == 19
    # the definition: smallest n with ceil((n + 1)(1 - alpha)) <= n
    for alpha in (0.3, 0.1, 0.07, 0.02):
        n = min_calibration_size(alpha)
        assert np.ceil((n + 1) * (1 - alpha) - 1e-9) <= n
        assert np.ceil(n * (1 - alpha) - 1e-9) > n - 1


def test_beta_law_matches_exact_order_statistic_distribution():
    # coverage = F(q̂) with q̂ the k-th order statistic of n uniforms: Beta(k, n + 1 - k) exactly
    rng = np.random.default_rng(14)
    n, alpha, R = 50, 0.1, 4000
    u = np.sort(rng.random((R, n)), axis=1)
    k = int(np.ceil((n + 1) * (1 - alpha)))
    law = vc.conformal_coverage_law(n, alpha)
    assert stats.kstest(u[:, k - 1], law.cdf).pvalue > 0.001


@pytest.mark.filterwarnings("ignore:.*empty prediction sets:UserWarning")  # deterministic APS (issue 22)
def test_sets_shrink_as_alpha_grows_and_cover_calib_rate():
    # q̂ is non-increasing in alpha, so the LAC/APS sets are nested
    rng = np.random.default_rng(15)
    P, y = _calibrated(rng, 1200, k=5)
    for score in ("lac", "aps"):
        prev = None
        for alpha in (0.02, 0.05, 0.1, 0.2, 0.4):
            sets = vc.ConformalClassifier(alpha=alpha, score=score).fit(P[:600], y[:600]).predict_sets(P[600:])
            if prev is not None:
                assert not (sets & ~prev).any()
            prev = sets


# -- sample_weight (issue 21) ---------------------------------------------------------------
def _weighted_qhat_by_definition(s, w, alpha):
    """Reference: ascending scores; the first whose cumulative weight reaches (1-α)(W + Σw²/Σw) (round 30:
    the test row at the size-biased mean weight; it was W/n, the mean weight)."""
    keep = w > 0
    s, w = s[keep], w[keep]
    total = w.sum()
    need = (1 - alpha) * (total + (w * w).sum() / total)
    cum = 0.0
    for i in np.argsort(s, kind="stable"):
        cum += w[i]
        if cum >= need - 1e-9 * total:
            return s[i]
    raise AssertionError("no quantile")


def test_weighted_qhat_follows_its_definition_and_equal_weights_change_nothing():
    rng = np.random.default_rng(5)
    P, y = _calibrated(rng, 400)
    w = rng.uniform(0.1, 4.0, 400)
    cp = vc.ConformalClassifier(alpha=0.1).fit(P, y, sample_weight=w)
    assert cp.qhat_ == _weighted_qhat_by_definition(1.0 - P[np.arange(400), y], w, 0.1)
    plain = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P, y)
    equal = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P, y, sample_weight=np.full(400, 3.0))
    np.testing.assert_array_equal(plain.class_qhat_, equal.class_qhat_)
    assert plain.coverage(P, y).to_dict() == equal.coverage(P, y, sample_weight=np.full(400, 0.5)).to_dict()


@pytest.mark.filterwarnings("ignore:.*empty prediction sets:UserWarning")  # deterministic APS (issue 22)
def test_zero_weight_rows_are_dropped_rows_in_fit_and_coverage():
    rng = np.random.default_rng(6)
    P, y = _calibrated(rng, 300)
    w = rng.uniform(0.5, 2.0, 300)
    w[::5] = 0.0
    keep = w > 0
    a = vc.ConformalClassifier(alpha=0.2, score="aps").fit(P, y, sample_weight=w)
    b = vc.ConformalClassifier(alpha=0.2, score="aps").fit(P[keep], y[keep], sample_weight=w[keep])
    assert a.qhat_ == b.qhat_ and a.n_calib_ == b.n_calib_ == int(keep.sum())
    assert a.coverage(P, y, sample_weight=w).to_dict() == a.coverage(P[keep], y[keep], sample_weight=w[keep]).to_dict()


def test_weighted_coverage_is_the_weighted_share_of_covered_rows():
    rng = np.random.default_rng(7)
    P, y = _calibrated(rng, 500)
    w = rng.uniform(0.1, 3.0, 500)
    cp = vc.ConformalClassifier(alpha=0.1).fit(P[:250], y[:250])
    rep = cp.coverage(P[250:], y[250:], sample_weight=w[250:])
    sets = cp.predict_sets(P[250:])
    hit = sets[np.arange(250), y[250:]]
    assert rep.marginal == pytest.approx((w[250:] * hit).sum() / w[250:].sum(), rel=1e-12)
    assert rep.mean_set_size == pytest.approx((w[250:] * sets.sum(axis=1)).sum() / w[250:].sum(), rel=1e-12)


def test_weighted_coverage_guarantee_in_simulation():
    """Seeded simulation: weights independent of the data, the weighted rule keeps the mean
    weighted test coverage at >= 1 - alpha (within Monte-Carlo error)."""
    rng = np.random.default_rng(8)
    alpha, n, reps = 0.1, 200, 150
    cover = np.empty(reps)
    for r in range(reps):
        P, y = _calibrated(rng, 2 * n)
        w = rng.uniform(0.2, 5.0, 2 * n)
        cp = vc.ConformalClassifier(alpha=alpha).fit(P[:n], y[:n], sample_weight=w[:n])
        cover[r] = cp.coverage(P[n:], y[n:], sample_weight=w[n:]).marginal
    assert cover.mean() >= 1 - alpha - 3 * cover.std(ddof=1) / np.sqrt(reps)


def test_options_are_keyword_only_and_positional_still_works_with_a_warning():
    from veracity.core import _compat

    _compat._WARNED.discard(("ConformalClassifier.__init__", "positional"))
    with pytest.warns(DeprecationWarning, match=r"pass alpha=, score= by keyword"):
        old = vc.ConformalClassifier(0.2, "aps")
    assert (old.alpha, old.score) == (0.2, "aps")
    with pytest.raises(TypeError):
        vc.ConformalClassifier(0.2, "aps", False, True)


def test_cli_sample_weight(tmp_path, capsys):
    from veracity.cli import main

    rng = np.random.default_rng(9)
    P, y = _calibrated(rng, 200)
    w = rng.uniform(0.5, 2.0, 200)
    path = tmp_path / "c.csv"
    path.write_text("p0,p1,p2,y,w\n" + "".join(f"{a},{b},{c},{t},{u}\n" for (a, b, c), t, u in zip(P, y, w)))
    assert main(["conformal", str(path), "--score", "p0,p1,p2", "--label", "y", "--sample-weight", "w",
                 "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = vc.ConformalClassifier(alpha=0.1).fit(P, y, sample_weight=w)
    assert doc["conformal"]["qhat"] == pytest.approx(want.qhat_, rel=1e-12)


def test_a_ranking_score_is_refused_not_read_as_a_probability():
    # score_type="score" was read as a probability (and out-of-[0, 1] scores blamed as "not logits")
    rng = np.random.default_rng(0)
    s = rng.uniform(size=200)
    y = (rng.uniform(size=200) < s).astype(int)
    with pytest.raises(vc.VeracityError, match="conformal classifier reads the scores as probabilities"):
        vc.ConformalClassifier(score_type="score").fit(s, y)
