"""Round 30: the weighted "+1" rules count the new row at the size-biased mean weight sum w^2 / sum w = W/m
(m = (sum w)^2 / sum w^2, Kish's effective number): they stop at target * (W + sum w^2 / sum w) =
target * W * (1 + 1/m), the k/(n+1) correction in effective units. Counting it at the plain mean weight W/n
(the old rule) left recall_threshold and the conformal q-hat short of their target under uneven weights
independent of the scores (lognormal, sd 1.5 of the log, 100 positives, target 0.9: 0.884; sd 2, 300
positives: 0.874; conformal LAC, sd 2, 1,000 calib rows: 0.887). Equal weights give the unweighted answer
bit for bit; uneven weights whose effective number is below the +1 minimum are refused in one line."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity import VeracityError
from veracity.decisions import conformal_quantile

from .conftest import role_rows_csv


def _se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / np.sqrt(x.size))


def _recalls(sd: float, n: int, target: float, draws: int, seed: int) -> tuple[np.ndarray, int]:
    """Recall on new data of recall_threshold's weighted +1 rule over seeded calib draws: ``n`` uniform
    positive scores (a threshold t catches 1 - t of new positives, whatever their weights: the weights are
    independent of the scores), lognormal weights; and how many draws were refused (effective number
    below the minimum)."""
    rng = np.random.default_rng(seed)
    out, refused = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the old rule's warning: let its shortfall show
        for _ in range(draws):
            s, w = rng.random(n), rng.lognormal(0.0, sd, n)
            try:
                out.append(1.0 - vc.recall_threshold(s, np.ones(n), target=target, sample_weight=w))
            except VeracityError:
                refused += 1
    return np.array(out), refused


@pytest.mark.parametrize("sd, n, seed", [(1.5, 100, 301), (2.0, 300, 302)])
def test_weighted_recall_threshold_reaches_its_target_under_lognormal_weights(sd, n, seed):
    """Measured (1,500 draws): sd 1.5, 100 positives: 0.925 (old rule 0.884), 7.5 % refused; sd 2, 300
    positives: 0.925 (old 0.874), 12 % refused; se 0.0013 (old 0.0017) each."""
    recall, refused = _recalls(sd, n, 0.9, 1500, seed)
    assert refused < 0.2 * 1500, refused  # the rule answers on most draws
    assert recall.mean() >= 0.9 - 3 * _se(recall), (recall.mean(), _se(recall))
    assert recall.mean() < 0.95, recall.mean()  # conservative, not every positive flagged


def _lac_coverage(sd: float, n: int, draws: int, seed: int, alpha: float = 0.1) -> tuple[np.ndarray, int]:
    """Coverage on new rows of the LAC sets of ConformalClassifier fit with lognormal weights independent
    of everything: p ~ U(0, 1), y ~ Bernoulli(p), so the LAC score 1 - p_y has density 2(1 - s) and a
    q-hat covers F(q) = 2q - q^2 of new rows (exactly, no test draw needed)."""
    rng = np.random.default_rng(seed)
    out, refused = [], 0
    for _ in range(draws):
        p = rng.random(n)
        y = (rng.random(n) < p).astype(int)
        cp = vc.ConformalClassifier(alpha=alpha).fit(p, y, sample_weight=rng.lognormal(0.0, sd, n))
        if cp.qhat_ == np.inf:  # effective number below 9: its sets refuse (test_weight= aside)
            refused += 1
            continue
        q = cp.qhat_
        out.append(2 * q - q * q)
    return np.array(out), refused


@pytest.mark.parametrize("sd, n, draws, seed", [(1.5, 100, 1500, 303), (2.0, 1000, 1000, 304)])
def test_weighted_conformal_lac_covers_under_lognormal_weights(sd, n, draws, seed):
    """Measured: sd 1.5, 100 calib rows: 0.926 (old rule 0.883), 8 % refused; sd 2, 1,000 rows: 0.911
    (old 0.887), 3 % refused; se 0.0012 (old 0.0017, 0.0014)."""
    cover, refused = _lac_coverage(sd, n, draws, seed)
    assert refused < 0.2 * draws, refused
    assert cover.mean() >= 0.9 - 3 * _se(cover), (cover.mean(), _se(cover))


def test_conformal_quantile_covers_and_refuses_like_recall_threshold():
    """conformal_quantile's weighted rule on uniform scores (coverage of q-hat is q-hat) is recall_threshold's
    rule mirrored: the same draws refused, coverage >= 1 - alpha where it answers."""
    rng = np.random.default_rng(305)
    cover, refused = [], 0
    for _ in range(1500):
        s, w = rng.random(100), rng.lognormal(0.0, 1.5, 100)
        try:
            cover.append(min(conformal_quantile(s, 0.1, w), 1.0))
        except VeracityError as exc:
            assert "effective number" in str(exc)
            refused += 1
    cover_a = np.array(cover)
    assert refused < 300 and cover_a.mean() >= 0.9 - 3 * _se(cover_a), (refused, cover_a.mean())


def _reference_rule(s: np.ndarray, w: np.ndarray, target: float) -> tuple[float, float]:
    """The rule written out: descending scores, the first whose cumulative weight reaches target * (W + t),
    t = sum w^2 / sum w (Kish), or (session 38) W / m where the sandwich size m of the weighted share caught
    at Kish's threshold, F(1-F) W^2 / sum w^2 (h - F)^2 with h = score >= threshold, is the smaller size;
    returns (threshold, t)."""
    order = np.argsort(-s, kind="stable")
    cum, total = np.cumsum(w[order]), w.sum()

    def at(t: float) -> float:
        return float(s[order][np.argmax(cum >= target * (total + t) - 1e-9 * total)])

    kish_t = (w * w).sum() / total
    h = s >= at(kish_t)
    f = w[h].sum() / total
    t = max(kish_t, (w * w * (h - f) ** 2).sum() / (total * f * (1 - f)) if 0 < f < 1 else 0.0)
    return at(t), t


def test_the_rule_is_the_size_biased_mean_weight_written_out():
    rng = np.random.default_rng(306)
    moved = 0
    for _ in range(50):
        n = int(rng.integers(40, 300))
        s, w = np.round(rng.random(n), 2), rng.uniform(0.2, 3.0, n)  # ties; Kish well above 19
        for target in (0.8, 0.9, 0.95):
            rank, t = _reference_rule(s, w, target)
            moved += t > (w * w).sum() / w.sum()
            assert vc.recall_threshold(s, np.ones(n), target=target, sample_weight=w) == rank
            # split conformal: the same rule on the ascending scores (h = score <= q-hat)
            q = conformal_quantile(s, 1 - target, w)
            q_ref, t_q = _reference_rule(-s, w, target)
            assert q == -q_ref
            # the exact covariate-shift rule with the test row at that weight gives the same q-hat
            assert float(conformal_quantile(s, 1 - target, w, test_weight=t_q)) == q
    assert moved > 0  # the spread's size decided some cases (weights unrelated to the scores: by chance)


@pytest.mark.parametrize("c", [0.1, 1 / 3, 7.0, 2.0 ** -600, 1e300])
def test_equal_weights_give_the_unweighted_answer_exactly(c):
    rng = np.random.default_rng(307)
    for n in (9, 19, 20, 57, 100, 101, 250):
        s = np.round(rng.random(n), 3)  # ties too
        w = np.full(n, c)
        for target in (0.9, 0.95, 0.8, 0.99):
            try:
                plain = vc.recall_threshold(s, np.ones(n), target=target)
            except VeracityError:
                with pytest.raises(VeracityError, match="too few positives"):
                    vc.recall_threshold(s, np.ones(n), target=target, sample_weight=w)
                continue
            assert vc.recall_threshold(s, np.ones(n), target=target, sample_weight=w) == plain
        # zero rows beside equal ones: the weighted code path, the unweighted answer on the kept rows
        wz = np.r_[w, np.zeros(5)]
        sz = np.r_[s, rng.random(5)]
        for alpha in (0.1, 0.05, 0.2):
            try:
                plain = conformal_quantile(s, alpha)
            except VeracityError:
                continue
            assert conformal_quantile(s, alpha, w) == plain
            assert conformal_quantile(sz, alpha, wz) == plain
        for target in (0.9, 0.8):
            if n >= 19:
                assert vc.recall_threshold(sz, np.ones(n + 5), target=target, sample_weight=wz) == \
                    vc.recall_threshold(s, np.ones(n), target=target)


def test_equal_weights_redraws_and_classifier_are_unchanged():
    rng = np.random.default_rng(308)
    s = rng.random(3000)
    y = (rng.random(3000) < s).astype(int)
    a = vc.simulate_redraws(s, y, n_calib=300, n_resamples=100, target=0.9, random_state=3)
    b = vc.simulate_redraws(s, y, n_calib=300, n_resamples=100, target=0.9, random_state=3,
                            sample_weight=np.full(3000, 1 / 3))
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    plain = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(s, y)
    equal = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(s, y, sample_weight=np.full(3000, 0.1))
    np.testing.assert_array_equal(plain.class_qhat_, equal.class_qhat_)
    assert plain.qhat_ == equal.qhat_


def test_weighted_redraws_use_the_same_rule_and_reach_the_target():
    """simulate_redraws' weighted path: each redraw's threshold is recall_threshold's on its calib positives
    (checked on the kept redraws' thresholds: every one is a pool score, and the deployed recall reaches the
    target on average): 0.926 with 77 of 1,000 redraws skipped; the old rule's deployed mean was 0.879."""
    rng = np.random.default_rng(309)
    s = rng.random(20000)
    y = (rng.random(20000) < 0.5).astype(int)
    w = rng.lognormal(0.0, 1.5, 20000)
    with pytest.warns(UserWarning, match="effective number of them below 9"):
        res = vc.simulate_redraws(s, y, n_calib=200, target=0.9, n_resamples=1000, random_state=2,
                                  sample_weight=w)
    assert 0 < res.skipped < 200, res.skipped  # about 100 positives: a few draws below the minimum
    deployed = res.deployed_recall
    assert deployed.mean() >= 0.9 - 3 * _se(deployed), (deployed.mean(), _se(deployed))
    assert "target·(W + Σw²/Σw)" in str(res)


def test_uneven_weights_below_the_minimum_are_refused_in_one_line(error_line):
    s = np.linspace(0.05, 0.95, 30)
    lopsided = np.r_[1000.0, np.ones(29)]  # Kish's effective number about 1.06 of 30
    text = error_line(lambda: vc.recall_threshold(s, np.ones(30), target=0.9, sample_weight=lopsided))
    assert "too few effective positives for target recall 0.9: their weights are uneven" in text
    assert "effective number (Kish, (sum w)^2 / sum w^2) of at least 9 positives, got 1.06 of n = 30" in text
    frame = pd.DataFrame({"p": s, "y": 1, "w": lopsided})
    assert error_line(lambda: vc.recall_threshold(frame, score="p", label="y", target=0.9,
                                                  sample_weight="w")) == text
    text = error_line(lambda: conformal_quantile(s, 0.1, lopsided))
    assert "at least 9 calib rows, got 1.06 of n = 30" in text
    # the classifier keeps the exact rule usable: its sets at q-hat refuse, each row's own q-hat does not
    P = np.c_[1 - s, s]
    y = np.r_[np.ones(15), np.zeros(15)].astype(int)
    cp = vc.ConformalClassifier(alpha=0.1).fit(P, y, sample_weight=lopsided)
    assert cp.qhat_ == np.inf
    text = error_line(lambda: cp.predict_sets(P))
    assert "got 1.06 of n = 30" in text and "test_weight=" in text
    error_line(lambda: cp.coverage(P, y))
    assert cp.predict_sets(P, test_weight=lopsided).shape == (30, 2)
    # fewer rows than the minimum: the refusal of the row count, as before
    assert "whatever their weights" in error_line(
        lambda: vc.recall_threshold(s[:8], np.ones(8), target=0.9, sample_weight=lopsided[:8]))


def test_mondrian_refuses_by_the_class_that_is_uneven(error_line):
    rng = np.random.default_rng(310)
    n = 200
    P = rng.dirichlet(np.ones(2), n)
    y = np.r_[np.zeros(100), np.ones(100)].astype(int)
    w = np.ones(n)
    w[100] = 1e4  # class 1: effective number about 1
    cp = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P, y, sample_weight=w)
    assert np.isfinite(cp.class_qhat_[0]) and cp.class_qhat_[1] == np.inf
    assert "the class 1 calib rows' weights are uneven" in error_line(lambda: cp.predict_sets(P))


def _csv(tmp_path, weights: np.ndarray) -> str:
    return role_rows_csv(tmp_path, weights, seed=311)


def test_cli_refuses_uneven_calib_weights_in_one_line_and_test_weight_still_works(tmp_path, cli, refused):
    path = _csv(tmp_path, np.r_[1000.0, np.ones(29), np.ones(30)])
    base = [path, "--score", "p", "--label", "y", "--sample-weight", "w", "-q"]
    refused(cli(["threshold", *base, "--target-recall", "0.9"]),
            r"effective number \(Kish, \(sum w\)\^2 / sum w\^2\) of at least 9 positives, "
            r"got 1\.06 of n = 30")
    refused(cli(["conformal", *base]), r"calib rows' weights are uneven.* got 1\.06 of n = 30")
    exact = cli(["conformal", *base, "--test-weight", "w"])
    assert exact.code == 0, exact.err
    assert "q̂ = inf (refused: the calib weights' Kish effective number is below" in exact.out, exact.out
    even = cli(["threshold", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--target-recall",
                "0.8", "-q", "--fit-role", "test", "--eval-role", "calib"])  # test rows: all weight 1
    assert even.code == 0, even.err
    shown = cli(["threshold", _csv(tmp_path, np.r_[np.linspace(1, 2, 30), np.ones(30)]), "--score", "p",
                 "--label", "y", "--sample-weight", "w", "--target-recall", "0.8", "-q"])
    assert shown.code == 0 and "R·(W + Σw²/Σw)" in shown.out, (shown.out, shown.err)
