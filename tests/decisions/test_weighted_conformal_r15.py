"""Weighted split conformal under covariate shift, exactly (Tibshirani, Barber, Candès & Ramdas 2019,
Cor. 1): each test row at x carries its own likelihood ratio w(x) (``test_weight=``), and its threshold
is the (1 - alpha) quantile of  sum_i w_i/(W + w(x)) delta_{s_i} + w(x)/(W + w(x)) delta_{+inf}.
Without ``test_weight`` the test row is counted at one weight for all rows (round 30: the size-biased mean
calib weight sum w^2 / sum w; it was the mean weight)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity import VeracityError
from veracity.decisions import conformal_quantile


def _cor1_threshold(s: np.ndarray, w: np.ndarray, t: float, alpha: float) -> float:
    """Reference, literally Cor. 1: the smallest value v of {s_i} ∪ {+inf} whose mass at or below v,
    under p_i = w_i / (W + t) on s_i and p_inf = t / (W + t) on +inf, reaches 1 - alpha."""
    keep = w > 0
    s, w = s[keep], w[keep]
    denom = w.sum() + t
    for v in np.unique(s):  # ascending distinct values (ties: the whole group's mass)
        if w[s <= v].sum() / denom >= (1 - alpha) - 1e-9 * w.sum() / denom:
            return float(v)
    return np.inf


def _mean_weight_threshold(s: np.ndarray, w: np.ndarray, alpha: float) -> float:
    """Reference of the default rule: the test row counted at the size-biased mean calib weight
    sum w^2 / sum w (round 30; it was the mean weight, which undercovers under uneven weights)."""
    keep = w > 0
    return _cor1_threshold(s, w, float((w[keep] ** 2).sum() / w[keep].sum()), alpha)


def _calibrated(rng, n, k=3):
    Q = rng.dirichlet(np.full(k, 0.7), n)
    y = np.minimum((np.cumsum(Q, axis=1) < rng.random(n)[:, None]).sum(axis=1), k - 1)
    return Q, y


# -- the rule, row by row ----------------------------------------------------------------------------------
def test_conformal_quantile_with_test_weights_is_cor1_row_by_row():
    rng = np.random.default_rng(0)
    for n, alpha in [(40, 0.1), (200, 0.05), (15, 0.2)]:
        s = np.round(rng.random(n), 2)  # ties
        w = rng.uniform(0.1, 4.0, n)
        w[::7] = 0.0  # dropped rows
        t = np.r_[0.0, rng.uniform(0.0, 6.0, 60), 1e3]
        got = conformal_quantile(s, alpha, w, test_weight=t)
        want = np.array([_cor1_threshold(s, w, ti, alpha) for ti in t])
        np.testing.assert_array_equal(got, want)
        assert np.isinf(got[-1]) and np.isfinite(got[0])  # a huge own weight: every class in the set
        assert np.all(np.diff(got[np.argsort(t)]) >= 0)  # a larger own weight never lowers the threshold
        one = conformal_quantile(s, alpha, w, test_weight=2.5)  # one number: a 0-d array
        assert np.ndim(one) == 0 and float(one) == _cor1_threshold(s, w, 2.5, alpha)


@pytest.mark.parametrize("mondrian", [False, True])
def test_classifier_sets_use_each_rows_own_threshold(mondrian):
    rng = np.random.default_rng(1)
    P, y = _calibrated(rng, 600)
    w = rng.uniform(0.2, 3.0, 600)
    cp = vc.ConformalClassifier(alpha=0.1, mondrian=mondrian).fit(P[:400], y[:400], sample_weight=w[:400])
    t = rng.uniform(0.0, 8.0, 200)
    s_cal = 1.0 - P[np.arange(400), y[:400]]
    Q = np.empty((200, 3))
    for c in range(3):
        rows = (y[:400] == c) if mondrian else np.ones(400, bool)
        Q[:, c] = [_cor1_threshold(s_cal[rows], w[:400][rows], ti, 0.1) for ti in t]
    np.testing.assert_array_equal(cp.row_qhat(test_weight=t), Q)
    sets = cp.predict_sets(P[400:], test_weight=t)
    np.testing.assert_array_equal(sets, (1.0 - P[400:]) <= Q)
    rep = cp.coverage(P[400:], y[400:], test_weight=t)
    hit = sets[np.arange(200), y[400:]]
    assert rep.marginal == pytest.approx(hit.mean(), rel=1e-12)
    assert rep.mean_set_size == pytest.approx(sets.sum(axis=1).mean(), rel=1e-12)
    np.testing.assert_array_equal(rep.qhat, np.median(Q, axis=0))


def test_default_without_test_weights_is_the_size_biased_mean_weight_rule():
    """q̂ counts the test row at the size-biased mean weight sum w^2 / sum w (round 30; it was w̄, which
    gives the same q̂ on these mildly uneven weights)."""
    rng = np.random.default_rng(2)
    P, y = _calibrated(rng, 500)
    w = rng.uniform(0.1, 5.0, 500)
    cp = vc.ConformalClassifier(alpha=0.1).fit(P[:300], y[:300], sample_weight=w[:300])
    q = _mean_weight_threshold(1.0 - P[np.arange(300), y[:300]], w[:300], 0.1)
    assert cp.qhat_ == q
    np.testing.assert_array_equal(cp.predict_sets(P[300:]), (1.0 - P[300:]) <= q)
    assert cp.coverage(P[300:], y[300:]).marginal == pytest.approx(
        ((1.0 - P[np.arange(300, 500), y[300:]]) <= q).mean(), rel=1e-12)


@pytest.mark.parametrize("mondrian", [False, True])
def test_test_weights_at_the_mean_calib_weight_give_the_default_sets(mondrian):
    rng = np.random.default_rng(3)
    P, y = _calibrated(rng, 700)
    w = rng.uniform(0.1, 5.0, 700)
    cp = vc.ConformalClassifier(alpha=0.1, mondrian=mondrian, score="aps", randomized=True,
                                random_state=4).fit(P[:500], y[:500], sample_weight=w[:500])
    state = cp._rng.bit_generator.state
    default = cp.predict_sets(P[500:])
    cp._rng.bit_generator.state = state  # the same uniform draws for the randomised APS scores
    exact = cp.predict_sets(P[500:], test_weight=np.full(200, w[:500].mean()))
    np.testing.assert_array_equal(default, exact)


def test_equal_weights_everywhere_give_the_unweighted_rule():
    rng = np.random.default_rng(4)
    P, y = _calibrated(rng, 300)
    plain = vc.ConformalClassifier(alpha=0.1).fit(P[:200], y[:200])
    weighted = vc.ConformalClassifier(alpha=0.1).fit(P[:200], y[:200], sample_weight=np.full(200, 3.0))
    np.testing.assert_array_equal(plain.predict_sets(P[200:]),
                                  weighted.predict_sets(P[200:], test_weight=np.full(100, 3.0)))


def test_only_the_ratios_of_the_weights_matter_at_extreme_scales():
    rng = np.random.default_rng(5)
    s, w, t = rng.random(300), rng.uniform(0.2, 3.0, 300), rng.uniform(0.0, 100.0, 50)
    base = conformal_quantile(s, 0.1, w, test_weight=t)
    assert np.isinf(base).any() and np.isfinite(base).any()
    for c in (1e-300, 1e300):
        np.testing.assert_array_equal(conformal_quantile(s, 0.1, w * c, test_weight=t * c), base)
    P, y = _calibrated(rng, 300)
    a = vc.ConformalClassifier(alpha=0.1).fit(P[:200], y[:200], sample_weight=w[:200])
    b = vc.ConformalClassifier(alpha=0.1).fit(P[:200], y[:200], sample_weight=w[:200] * 1e300)
    np.testing.assert_array_equal(a.predict_sets(P[200:], test_weight=t[:1].repeat(100)),
                                  b.predict_sets(P[200:], test_weight=t[:1].repeat(100) * 1e300))


def test_rows_of_zero_sample_weight_drop_their_test_weight_too():
    rng = np.random.default_rng(6)
    P, y = _calibrated(rng, 400)
    w, t = rng.uniform(0.5, 2.0, 400), rng.uniform(0.0, 4.0, 200)
    cp = vc.ConformalClassifier(alpha=0.1).fit(P[:200], y[:200], sample_weight=w[:200])
    v = rng.uniform(0.5, 2.0, 200)
    v[::3] = 0.0
    keep = v > 0
    full = cp.coverage(P[200:], y[200:], sample_weight=v, test_weight=t)
    kept = cp.coverage(P[200:][keep], y[200:][keep], sample_weight=v[keep], test_weight=t[keep])
    assert full.to_dict() == kept.to_dict()


# -- the statistical claim -----------------------------------------------------------------------------------
def _draw(rng, n, mu):
    """x ~ N(mu, 1); the model says p = sigmoid(3x) (class 1), the truth grows noisier with x > 0:
    P(y=1 | x) = 1/2 + (p - 1/2) exp(-max(x, 0)^2 / 2), so the LAC score 1 - p_y depends on x."""
    x = rng.normal(mu, 1.0, n)
    p = 1.0 / (1.0 + np.exp(-3.0 * x))
    q = 0.5 + (p - 0.5) * np.exp(-np.maximum(x, 0.0) ** 2 / 2)
    return x, p, (rng.random(n) < q).astype(int)


def test_exact_weighted_sets_cover_under_covariate_shift_and_unweighted_ones_do_not():
    """calib x ~ N(0, 1), test x ~ N(1, 1): w(x) = exp(x - 1/2), 50 calib rows. Over many seeded draws the
    exact rule's mean test coverage is >= 1 - alpha within Monte-Carlo error (also Mondrian, and per class);
    the unweighted rule's is far below, and the default weighted rule's (one weight for every test row)
    below the exact one's too (measured: exact 0.945, Mondrian 0.945, unweighted 0.776, each ± 0.003; the
    default 0.881 with the test row at the mean calib weight, 0.894 at the size-biased mean weight since
    round 30, which refuses the 9 of 600 calib sets whose Kish effective number is below 9)."""
    alpha, n, m, reps = 0.1, 50, 200, 600
    rng = np.random.default_rng(15)
    plain, mean_w, exact, mondrian = (np.empty(reps) for _ in range(4))
    class_cover = np.full((reps, 2), np.nan)
    for r in range(reps):
        xc, pc, yc = _draw(rng, n, 0.0)
        xt, pt, yt = _draw(rng, m, 1.0)
        wc, wt = np.exp(xc - 0.5), np.exp(xt - 0.5)
        plain[r] = vc.ConformalClassifier(alpha=alpha).fit(pc, yc).coverage(pt, yt).marginal
        cp = vc.ConformalClassifier(alpha=alpha).fit(pc, yc, sample_weight=wc)
        mean_w[r] = cp.coverage(pt, yt).marginal if np.isfinite(cp.qhat_) else np.nan  # refused: too uneven
        exact[r] = cp.coverage(pt, yt, test_weight=wt).marginal
        cm = vc.ConformalClassifier(alpha=alpha, mondrian=True).fit(pc, yc, sample_weight=wc)
        rep = cm.coverage(pt, yt, test_weight=wt)
        mondrian[r] = rep.marginal
        class_cover[r] = rep.per_class

    def se(c):
        return c.std(ddof=1) / np.sqrt(c.size)  # 0.001-0.003

    assert exact.mean() >= 1 - alpha - 3 * se(exact), (exact.mean(), se(exact))
    assert mondrian.mean() >= 1 - alpha - 3 * se(mondrian), mondrian.mean()
    for c in range(2):  # Mondrian: coverage within each class (the draws where the class occurs)
        cov = class_cover[:, c][~np.isnan(class_cover[:, c])]
        assert cov.mean() >= 1 - alpha - 3 * se(cov), (c, cov.mean())
    assert plain.mean() < 1 - alpha - 0.08, plain.mean()  # about 0.78: undercovers
    assert plain.mean() < exact.mean() - 20 * se(exact)
    refused = np.isnan(mean_w)
    mean_w = mean_w[~refused]
    assert refused.sum() < 30, refused.sum()
    assert mean_w.mean() < exact.mean() - 10 * se(exact), mean_w.mean()  # the approximation falls short


# -- bad input: one line each ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(7)
    P, y = _calibrated(rng, 300)
    w = rng.uniform(0.5, 2.0, 300)
    return P, y, vc.ConformalClassifier(alpha=0.1).fit(P[:200], y[:200], sample_weight=w[:200])


@pytest.mark.parametrize("bad, match", [
    (-np.ones(100), "test_weight must be non-negative; 100 of 100 are negative"),
    (np.r_[np.nan, np.ones(99)], "test_weight contains 1 NaN"),
    (np.r_[np.ones(99), np.inf], "test_weight contains 0 NaN and 1 infinite"),
    (np.ones(99), "test_weight has 99 rows but probs have 100"),
    (np.ones((100, 1)), "test_weight must be 1-D"),
    (2.0, "test_weight must be 1-D"),
    (["a"] * 100, "test_weight must be numeric"),
])
def test_bad_test_weights_are_refused_in_one_line(fitted, bad, match):
    P, y, cp = fitted
    for call in (lambda: cp.predict_sets(P[200:], test_weight=bad),
                 lambda: cp.coverage(P[200:], y[200:], test_weight=bad)):
        with pytest.raises(VeracityError, match=match) as err:
            call()
        assert "\n" not in str(err.value) and err.value.param == "test_weight"


def test_test_weights_without_calibration_weights_are_refused(fitted):
    P, y, _ = fitted
    cp = vc.ConformalClassifier(alpha=0.1).fit(P[:200], y[:200])
    for call in (lambda: cp.predict_sets(P[200:], test_weight=np.ones(100)),
                 lambda: cp.coverage(P[200:], y[200:], test_weight=np.ones(100)),
                 lambda: cp.row_qhat(test_weight=np.ones(100)),
                 lambda: conformal_quantile(np.random.default_rng(0).random(50), 0.1, test_weight=1.0)):
        with pytest.raises(VeracityError, match="needs the calib rows' weights") as err:
            call()
        assert "\n" not in str(err.value)
    with pytest.raises(VeracityError, match="test_weight must be non-negative"):
        conformal_quantile(np.arange(20.0), 0.1, np.ones(20), test_weight=[1.0, -2.0])
    with pytest.raises(VeracityError, match="test_weight contains 1 NaN"):
        conformal_quantile(np.arange(20.0), 0.1, np.ones(20), test_weight=[np.nan])


def test_test_weights_on_another_pandas_index_are_refused(fitted):
    P, y, cp = fitted
    probs = pd.DataFrame(P[200:])
    t = pd.Series(np.ones(100), index=np.arange(100)[::-1])
    with pytest.raises(VeracityError, match="different indexes"):
        cp.predict_sets(probs, test_weight=t)
    np.testing.assert_array_equal(cp.predict_sets(probs, test_weight=t.sort_index()),
                                  cp.predict_sets(P[200:], test_weight=np.ones(100)))


# -- the command line ------------------------------------------------------------------------------------
@pytest.fixture()
def shift_file(tmp_path):
    rng = np.random.default_rng(8)
    xc, pc, yc = _draw(rng, 300, 0.0)
    xt, pt, yt = _draw(rng, 300, 1.0)
    frame = pd.DataFrame({"p": np.r_[pc, pt], "y": np.r_[yc, yt], "w": np.exp(np.r_[xc, xt] - 0.5),
                          "role": ["calib"] * 300 + ["test"] * 300})
    path = tmp_path / "shift.csv"
    frame.to_csv(path, index=False)
    return path, pd.read_csv(path, float_precision="round_trip")  # the numbers the CLI reads


def test_cli_test_weight_gives_each_row_its_own_threshold(shift_file, capsys):
    from veracity.cli import main

    path, frame = shift_file
    args = ["conformal", str(path), "--score", "p", "--label", "y", "--sample-weight", "w"]
    assert main(args + ["--test-weight", "w", "--json", "-", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    calib, test = frame[frame.role == "calib"], frame[frame.role == "test"]
    # the LAC score 1 - P[y] of the columns [1 - p, p] a binary score is read as
    s_cal = 1 - np.where(calib.y == 1, calib.p, 1 - calib.p).astype(float)
    q = np.array([_cor1_threshold(s_cal, calib.w.to_numpy(), ti, 0.1) for ti in test.w])
    s_test = 1 - np.where(test.y == 1, test.p, 1 - test.p)
    # each test row counted once (the rows are draws of the shifted distribution), its own threshold
    assert doc["roles"]["test"]["marginal"] == pytest.approx((s_test <= q).mean(), rel=1e-12)
    assert doc["test_weight"] == "w"
    assert main(args + ["--json", "-", "-q"]) == 0  # without it: the size-biased mean-weight q̂
    before = json.loads(capsys.readouterr().out)
    q_bar = _mean_weight_threshold(s_cal, calib.w.to_numpy(), 0.1)
    assert before["conformal"]["qhat"] == q_bar and "test_weight" not in before
    assert main(args + ["--test-weight", "w", "-q"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "its own q̂" in head and "--test-weight 'w'" in head
    assert main(args + ["-q"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "counted at the size-biased mean calib weight sum w^2 / sum w" in head


def test_cli_test_weight_errors_exit_2_with_one_line(shift_file, tmp_path, capsys):
    from veracity.cli import main

    path, frame = shift_file
    base = ["conformal", str(path), "--score", "p", "--label", "y"]
    cases = [
        (["--test-weight", "w"], "--test-weight (each row's likelihood ratio w(x)) needs --sample-weight"),
        (["--sample-weight", "w", "--test-weight", "nope"], "column 'nope' not found"),
        (["--sample-weight", "w", "--test-weight", "y"], "--test-weight names the --label column"),
        (["--sample-weight", "w", "--test-weight", ""], "--test-weight needs a column name"),
    ]
    bad = frame.copy()
    bad.loc[5, "v"] = np.nan
    bad.loc[bad.v.isna() & (bad.index != 5), "v"] = 1.0
    bad.loc[7, "neg"] = -1.0
    bad["neg"] = bad["neg"].fillna(1.0)
    bad_path = tmp_path / "bad.csv"
    bad.to_csv(bad_path, index=False)
    for extra, match in cases:
        assert main(base + extra) == 2
        err = capsys.readouterr().err.strip()
        assert match in err and "\n" not in err, err
    for col, match in (("v", "column 'v' (--test-weight) has 1 missing"),
                       ("neg", "--test-weight must be non-negative")):
        assert main(["conformal", str(bad_path), "--score", "p", "--label", "y", "--sample-weight", "w",
                     "--test-weight", col]) == 2
        err = capsys.readouterr().err.strip()
        assert match in err and "\n" not in err, err
