"""Round 15: hostile and correctness review of the decision tools and the delayed-label (PPI) features."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.decisions import min_positives, recall_rank
from veracity.delayed import PpiSums, ppi_records


def _calib(seed: int = 0, n: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    return s, (rng.random(n) < s).astype(int)


# -- selective_threshold: equal weights of any size are no weights ------------------------------------
@pytest.mark.parametrize("weight", [2.0, 1e300, 1e-300])
def test_selective_threshold_equal_weights_of_any_size_count_rows_as_documented(weight):
    # equal weights "give the unweighted result bit for bit"; with 1e300 each the answered count was
    # printed as "1.339e+303 of 1000" (the row count times check_weights' power-of-two unit)
    s, y = _calib()
    plain = vc.selective_threshold(s, y, target_risk=0.3)
    eq = vc.selective_threshold(s, y, target_risk=0.3, sample_weight=np.full(s.size, weight))
    assert eq.to_dict() == plain.to_dict()
    assert str(eq) == str(plain)


# -- threshold_table: the cheapest row with extreme costs ---------------------------------------------
@pytest.mark.parametrize("scale", [1e306, 1e-320, 5e-324])
def test_threshold_table_best_ranks_extreme_costs_by_their_ratio(scale):
    # costs of 1e306 made every total inf and best() returned the first row; subnormal costs lost
    # their digits and tied rows that differ. Only the ratio of the costs decides the cheapest row.
    s, y = _calib(1)
    grid = np.linspace(0.05, 0.95, 19)
    ref = vc.threshold_table(s, y, grid, cost_fp=3, cost_fn=1).best().threshold
    t = vc.threshold_table(s, y, grid, cost_fp=3 * scale, cost_fn=scale)
    assert t.best().threshold == ref
    assert ref != grid[0]  # the first row is not the answer by accident


def test_threshold_table_overflowing_costs_are_inf_without_a_runtime_warning():
    s, y = _calib(2)
    t = vc.threshold_table(s, y, [0.2, 0.5], cost_fp=1e306, cost_fn=1e306)  # filterwarnings=error
    assert np.isinf(t.cost).all() and "inf" in str(t)


# -- PPI: labels all one class are no evidence of miscalibration --------------------------------------
def _one_class_windows(seed: int, windows: int, n: int, m: int, a: float, b: float):
    rng = np.random.default_rng(seed)
    f = rng.beta(a, b, (windows, n))
    g = rng.beta(a, b, (windows, m))
    y = (rng.random(f.shape) < f).astype(float)  # calibrated: P(y = 1 | f) = f
    sums = PpiSums.from_counts(n=np.full(windows, float(n)), sum_y=y.sum(1), sum_f=f.sum(1),
                               sum_ff=(f * f).sum(1), sum_yf=(y * f).sum(1), m=np.full(windows, float(m)),
                               sum_fu=g.sum(1), sum_ffu=(g * g).sum(1))
    return y, f, g, sums


def test_calibrated_rare_event_scores_are_not_judged_miscalibrated_when_the_labels_are_all_zero():
    # 2,000 calibrated windows, 50 random labels, scores ~ Beta(1, 49) (rate 2 %): a third of the
    # windows have every label 0 (probability about 0.36). Their rectifier y - f = -f has the scores'
    # spread only, so its normal interval excluded 0 and 33 % of calibrated windows were judged "not
    # calibrated" at level 0.95. The exact test (1 - fbar)^n measures 0.2 % of windows here.
    y, f, g, sums = _one_class_windows(11, 2000, 50, 2000, 1.0, 49.0)
    recs = ppi_records(sums, level=0.95)
    judged_bad = np.array([r["calibrated"] is False for r in recs])
    all_zero = y.sum(1) == 0
    assert 0.25 < all_zero.mean() < 0.45
    assert judged_bad.mean() <= 0.05, judged_bad.mean()
    # the array entry points agree with the records, window by window
    for i in np.flatnonzero(all_zero)[:20]:
        r = vc.ppi_mean(y[i], f[i], g[i], sample_check="off")
        assert r.calibrated is recs[i]["calibrated"] is True
        assert vc.ppi_audit(y[i], f[i], g[i], sample_check="off").calibrated is True


def test_labels_all_zero_from_clearly_high_scores_are_still_judged_miscalibrated():
    # the exact test keeps its power: 50 labels all 0 from scores near 0.3 have probability < 0.7^50
    rng = np.random.default_rng(12)
    f, g = rng.uniform(0.25, 0.35, 50), rng.uniform(0.25, 0.35, 1000)
    r = vc.ppi_mean(np.zeros(50), f, g, sample_check="off")
    assert r.calibrated is False and "not calibrated" in (r.note or "")
    assert vc.ppi_audit(np.zeros(50), f, g, sample_check="off").calibrated is False
    # and all ones from scores near 0.7 likewise
    r1 = vc.ppi_mean(np.ones(50), 1 - f, 1 - g, sample_check="off")
    assert r1.calibrated is False


# -- ppi_audit: the cost row in extreme cost units ----------------------------------------------------
@pytest.mark.parametrize("scale", [1e306, 1e-310])
def test_ppi_audit_cost_row_scales_with_the_costs(scale):
    # the cost per row is linear in the costs: costs of 1e306 gave NaN estimate and interval (squares
    # overflowed, with RuntimeWarnings), 1e-310 an estimate of 0 in [0, 0] (squares underflowed)
    s, y = _calib(3, 1000)
    ref = vc.ppi_audit(y[:200], s[:200], s[200:], cost_fp=1, cost_fn=2, bins=2).row("cost")
    got = vc.ppi_audit(y[:200], s[:200], s[200:], cost_fp=scale, cost_fn=2 * scale, bins=2).row("cost")
    for key in ("estimate", "ci_low", "ci_high", "cbpe", "cbpe_low", "cbpe_high", "classical"):
        assert got[key] == pytest.approx(ref[key] * scale, rel=1e-9), key
    assert ref["ci_low"] < ref["estimate"] < ref["ci_high"]


def test_ppi_audit_refuses_a_power_tuning_that_is_not_a_boolean():
    # "no" read as True (power tuning on); vc.ppi_mean refuses it
    s, y = _calib(4, 500)
    with pytest.raises(vc.VeracityError, match="power_tuning must be True or False"):
        vc.ppi_audit(y[:100], s[:100], s[100:], power_tuning="no")


# -- a designed sample (propensity=) whose randomly drawn labels are all 0 ----------------------------
def _designed_window(rng, n_rows: int, a: float, b: float, share: float):
    f = rng.beta(a, b, n_rows)
    y = (rng.random(n_rows) < f).astype(float)  # calibrated
    pi = np.where(f >= 0.05, 1.0, share)  # every flagged row, a random share of the others
    lab = rng.random(n_rows) < pi
    return y, f, pi, lab


def test_designed_sample_with_all_zero_random_labels_is_not_judged_miscalibrated():
    # 300 calibrated windows of 5,000 rows (rate 1.6 %), every row scored >= 0.05 labelled and 2 % of the
    # others: in a quarter of the windows the ~95 randomly drawn labels are all 0, and each of those was
    # judged "not calibrated" (the rectifier's design variance has no Bernoulli part then): 24 % of
    # calibrated windows. The exact test on the drawn labels measures 0 % here.
    rng = np.random.default_rng(3)
    judged_bad, all_zero = [], []
    for _ in range(300):
        y, f, pi, lab = _designed_window(rng, 5000, 1.0, 60.0, 0.02)
        r = vc.ppi_mean(y[lab], f[lab], f[~lab], propensity=pi[lab])
        judged_bad.append(not r.calibrated)
        all_zero.append(y[lab & (pi < 1)].sum() == 0)
    assert 0.15 < np.mean(all_zero) < 0.35
    assert np.mean(judged_bad) <= 0.05, np.mean(judged_bad)


def test_designed_sample_with_all_zero_random_labels_from_high_scores_is_judged_miscalibrated():
    # the drawn rows score about 0.3 and all 40 are 0 (probability below 0.7^40 = 6e-7 if calibrated)
    rng = np.random.default_rng(5)
    f_drawn, f_certain = rng.uniform(0.25, 0.35, 40), rng.uniform(0.6, 0.9, 30)
    y = np.r_[np.zeros(40), (rng.random(30) < f_certain).astype(float)]
    f = np.r_[f_drawn, f_certain]
    pi = np.r_[np.full(40, 0.02), np.ones(30)]
    r = vc.ppi_mean(y, f, rng.uniform(0.25, 0.35, 2000), propensity=pi)
    assert r.calibrated is False


def test_budget_below_one_row_does_not_claim_a_tie():
    # one row at the top and a budget of 0.5 rows: the warning said "1 rows tie at the top score"
    with pytest.warns(UserWarning, match=r"less than one row.*flags nothing") as rec:
        t = vc.budget_threshold([0.9, 0.8, 0.1], top_k=0.5)
    assert "tie" not in str(rec[0].message)
    assert t > 0.9


def test_threshold_table_cost_per_1000_is_finite_where_the_cost_is():
    # costs of 1e305: totals near 1e308 are finite, but 1000·cost overflowed to inf before the division
    # by N, so cost/1000 printed inf where cost / N · 1000 is an ordinary number
    s, y = _calib(6, 2000)
    ref = vc.threshold_table(s, y, [0.25, 0.5], cost_fp=1, cost_fn=3)
    t = vc.threshold_table(s, y, [0.25, 0.5], cost_fp=1e305, cost_fn=3e305)
    assert np.isfinite(t.cost).all()
    np.testing.assert_allclose(t.cost_per_1000, ref.cost_per_1000 * 1e305, rtol=1e-12)


# -- CLI: the printed threshold is the one to deploy --------------------------------------------------
def test_cli_threshold_headline_is_the_exact_threshold(tmp_path, cli):
    # scores with many digits: the headline rounded the k-th highest calib positive to 6 digits, above
    # its own score, so deploying the printed number dropped that row (and its ties) from the alerts
    import json
    import re

    rng = np.random.default_rng(7)
    s = rng.random(400)
    y = (rng.random(400) < s).astype(int)
    path = tmp_path / "d.csv"
    path.write_text("p,y\n" + "".join(f"{float(a)!r},{b}\n" for a, b in zip(s, y)))
    for rule in (["--target-recall", "0.9"], ["--target-precision", "0.7"], ["--budget", "40"]):
        res = cli(["threshold", path, "--score", "p", "--label", "y", *rule])
        assert res.code == 0, res.err
        printed = float(re.search(r"^threshold (\S+) \(flag", res.out, re.M).group(1))
        js = json.loads(cli(["threshold", path, "--score", "p", "--label", "y", *rule, "--json"]).out)
        assert printed == js["threshold"], (rule, printed, js["threshold"])
        assert js["threshold"] in s  # an observed score: the side of the tie matters


@pytest.mark.parametrize("call, name", [
    (lambda s, y: vc.recall_threshold(s, y, target=0.9, correction="no"), "correction"),
    (lambda s, y: min_positives(0.95, correction="False"), "correction"),
    (lambda s, y: recall_rank(100, 0.95, correction="False"), "correction"),
    (lambda s, y: vc.simulate_redraws(s, y, n_calib=400, correction="no", n_resamples=5), "correction"),
    (lambda s, y: vc.simulate_redraws(s, y, n_calib=400, stratify="no", n_resamples=5), "stratify"),
])
def test_true_false_options_refuse_strings(call, name):
    # correction="no" read as True: the +1 correction a user had just turned off (a silently other rule)
    s, y = _calib(8)
    with pytest.raises(vc.VeracityError, match=f"{name} must be True or False"):
        call(s, y)


# -- coverage simulations for intervals without one ---------------------------------------------------
def test_ppi_audit_label_free_intervals_cover_the_realised_per_row_quantities_of_a_calibrated_window():
    # CBPE's interval of each audit row (the cost's spread c(a)^2 f(1-f) per row, the counts' f(1-f))
    # holds the window's realised value when the scores are calibrated: measured 0.946-0.953 over
    # 1,000 windows of 1,200 rows at 95 % (c_FN = 5: a Bernoulli spread for the cost would give ~0.6)
    rng = np.random.default_rng(41)
    names = ("cost", "tp", "rate", "fn")
    hits = dict.fromkeys(names, 0)
    for _ in range(1000):
        f = rng.beta(2, 5, 1200)
        y = (rng.random(1200) < f).astype(float)
        a = f >= 0.3
        real = {"cost": ((1 - y) * a + 5 * y * ~a).mean(), "tp": (y * a).mean(), "rate": y.mean(),
                "fn": (y * ~a).mean()}
        r = vc.ppi_audit(y[:150], f[:150], f[150:], threshold=0.3, cost_fn=5, bins=2, sample_check="off")
        for q in names:
            row = r.row(q)
            hits[q] += row["cbpe_low"] <= real[q] <= row["cbpe_high"]
    cover = {q: h / 1000 for q, h in hits.items()}
    assert min(cover.values()) >= 0.93 and max(cover.values()) <= 0.97, cover


def test_weighted_selective_threshold_keeps_its_risk_guarantee_in_simulation():
    # importance weights 1 + 20 (1 - conf) (11x apart) over the calib rows; the target population is the
    # weighted one, whose selective risk at t is E[w err; conf >= t] / E[w; conf >= t]. With probability
    # >= 1 - delta the returned threshold's true weighted risk is <= target (Kish effective size in the
    # Clopper-Pearson bound, Bonferroni over 25 candidates): measured 1 % of 400 draws above target.
    rng = np.random.default_rng(21)
    grid = np.linspace(0.5, 1.0, 200_001)
    weight = lambda c: 1.0 + 20.0 * (1.0 - c)  # noqa: E731
    p_err = lambda c: np.clip(1.2 * (1.0 - c), 0.0, 1.0)  # noqa: E731
    num = np.cumsum((weight(grid) * p_err(grid))[::-1])[::-1]
    den = np.cumsum(weight(grid)[::-1])[::-1]
    cands = np.linspace(0.5, 0.98, 25)
    above, feasible = 0, 0
    for _ in range(400):
        c = rng.uniform(0.5, 1.0, 600)
        err = rng.random(600) < p_err(c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # an infeasible draw abstains on everything, warning
            res = vc.selective_threshold(c, (~err).astype(int), target_risk=0.10, delta=0.2,
                                         reading="confidence", sample_weight=weight(c), candidates=cands)
        if res.feasible:
            feasible += 1
            i = np.searchsorted(grid, res.threshold)
            above += num[i] / den[i] > 0.10
    assert feasible >= 100
    assert above / 400 <= 0.2


def test_budget_fraction_true_is_refused_not_read_as_every_row():
    with pytest.raises(vc.VeracityError, match="fraction must be a share"):
        vc.budget_threshold([0.9, 0.5, 0.1], fraction=True)


def test_weighted_all_zero_labels_use_the_weighted_exact_test():
    # 49 labels scored 0.01 (weight 1) and one scored 0.5 (weight 100), all 0: probability
    # 0.99^49 * 0.5 = 0.31 if calibrated, no evidence. The weighted rectifier is -0.34; read with n = 50
    # ((1 - 0.34)^50 ~ 1e-9), or by its normal interval, the scores were judged not calibrated. The
    # weighted AM-GM bound (1 - |c|)^(W / max w) = 0.54 does not reject.
    f = np.r_[np.full(49, 0.01), 0.5]
    w = np.r_[np.ones(49), 100.0]
    g = np.random.default_rng(0).uniform(0.0, 0.05, 1000)
    assert vc.ppi_mean(np.zeros(50), f, g, sample_weight=w, sample_check="off").calibrated is True
    assert vc.ppi_audit(np.zeros(50), f, g, sample_weight=w, sample_check="off").calibrated is True
    # labels all 0 from scores near 0.3 under mildly unequal weights are still evidence ((0.7)^25.5)
    w2 = np.r_[np.ones(49), 2.0]
    assert vc.ppi_mean(np.zeros(50), f + 0.3, g + 0.3, sample_weight=w2, sample_check="off").calibrated is False
    assert vc.ppi_audit(np.zeros(50), f + 0.3, g + 0.3, sample_weight=w2, sample_check="off").calibrated is False


@pytest.mark.parametrize("delta", [1e-17, 1e-300])
def test_selective_threshold_refuses_a_delta_too_small_in_its_own_words(delta):
    # the per-candidate level 1 - delta/J rounded to 1.0 and the error named "level", which the caller never
    # passed ("level must be in (0, 1), e.g. 0.95; got 1.0")
    s, y = _calib(9, 500)
    with pytest.raises(vc.VeracityError, match=r"delta=.* is too small") as exc:
        vc.selective_threshold(s, y, target_risk=0.3, delta=delta)
    assert exc.value.param == "delta"
