"""Hostile input against model comparison, delayed labels and decisions, round 5: each case reproduces
a silent wrong answer or a bad error seen before its fix."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


# -- ppi_audit: rows that are shares of rows (rate, tp, fp, fn, tn, per-bin rates) printed intervals
# -- below 0 (docs/delayed.md showed fp [-0.0026, 0.0096]); the cost reached below 0 too -------------------
def _rare_flags(seed: int = 0):
    rng = np.random.default_rng(seed)
    f = rng.beta(1, 12, 400)
    y = (rng.random(400) < f).astype(int)
    g = rng.beta(1, 12, 20_000)
    return y, f, g


def test_ppi_audit_share_rows_stay_in_unit_interval():
    y, f, g = _rare_flags()
    a = vc.ppi_audit(y, f, g, threshold=0.37, bins=[0, 0.05, 0.4, 1], sample_check="off")
    for r in a.rows:
        if r["quantity"] == "rate - score":
            assert -1.0 <= r["ci_low"] <= r["ci_high"] <= 1.0
        elif r["quantity"] == "cost":
            assert 0.0 <= r["ci_low"] <= r["ci_high"] <= max(a.cost_fp, a.cost_fn)
        else:
            assert 0.0 <= r["ci_low"] <= r["ci_high"] <= 1.0, r
            assert 0.0 <= r["cbpe_low"] <= r["cbpe_high"] <= 1.0, r
    # the one that went below 0 before (fp: 1 labelled false alarm; now the rare-outcome Wilson-type interval)
    assert 0.0 <= a.row("fp")["ci_low"] < a.row("fp")["estimate"] < a.row("fp")["ci_high"] <= 1.0


def test_ppi_audit_rate_row_matches_ppi_mean_interval():
    y, f, g = _rare_flags(1)
    a = vc.ppi_audit(y, f, g, sample_check="off")
    m = vc.ppi_mean(y, f, g, sample_check="off")
    assert a.row("rate")["ci_low"] == pytest.approx(m.ci_low, abs=1e-12)
    assert a.row("rate")["ci_high"] == pytest.approx(m.ci_high, abs=1e-12)


def test_ppi_records_rate_interval_cut_like_ppi_mean():
    from veracity.delayed import PpiSums, ppi_records

    y = np.array([0, 0, 0, 1.0])
    f = np.array([0.01, 0.02, 0.01, 0.05])
    g = np.full(50, 0.02)
    rec = ppi_records(PpiSums.of(y, f, g))[0]
    m = vc.ppi_mean(y, f, g, sample_check="off")
    assert rec["estimate_ppi"]["ci_low"] == pytest.approx(m.ci_low) and rec["estimate_ppi"]["ci_low"] >= 0.0
    assert rec["estimate_ppi"]["ci_high"] <= 1.0


def test_ppi_audit_says_which_rows_have_no_interval():
    # no labelled row is flagged at 0.45 but some unlabelled rows are: tp and fp read 0 [0, 0], a
    # zero-width "interval"; the top bin has 2 labels, both 1, and read 1 [1, 1] — silently
    y, f, g = _rare_flags()
    a = vc.ppi_audit(y, f, g, threshold=0.45, bins=[0, 0.05, 0.4, 1], sample_check="off")
    # tp of labels without the event: never a zero-width [0, 0] (session 16); its interval reaches beyond
    # the share of all rows flagged, the largest tp the scored rows allow (session 23: a rare share's
    # interval reads the group's size from every row, no longer Wilson's 0 of the 400 labels, 0.0095)
    tp = a.row("tp")
    flagged = float(np.mean(np.concatenate([f, g]) >= 0.45))
    assert 0 <= tp["ci_low"] <= tp["estimate"] <= tp["ci_high"] and tp["ci_high"] >= flagged > 0
    assert a.note is not None and "zero width" not in a.note
    assert "rate in [0.4, 1]" in a.note and "fewer than 30 labels" in a.note
    assert "insufficient" in str(a)


# -- bins=10**9 on ppi_audit / binned_sequences allocated the edges (and one bincount slot per bin)
# -- before anything else: the process was killed for memory --------------------------------------------
@pytest.mark.parametrize("fn", ["ppi_audit", "binned_sequences"])
def test_a_huge_bin_count_is_refused_before_allocating(fn):
    y, f, g = _rare_flags()
    call = (lambda b: vc.ppi_audit(y, f, g, bins=b)) if fn == "ppi_audit" else (
        lambda b: vc.binned_sequences(f, y, bins=b))
    with pytest.raises(vc.VeracityError, match=r"bins=.*at most 10,000"):
        call(10**12)


def test_bin_edges_with_nan_name_the_parameter():
    y, f, g = _rare_flags()
    with pytest.raises(vc.VeracityError, match=r"^bins must be .*edges.*got \[0.0, nan, 1.0\]"):
        vc.ppi_audit(y, f, g, bins=[0, float("nan"), 1])


# -- threshold_table with extreme weights: the weight sums were printed in the internally rescaled units
# -- (300 rows of weight 1e300 read "224.0 weight", TP 44.8; of weight 1e-300, "200.9 weight") ---------------
@pytest.mark.parametrize("scale", [1e300, 1e-300, 2.0**300, 3.0])
def test_threshold_table_weight_sums_are_in_the_callers_units(scale):
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.clip(0.5 * rng.random(300) + 0.4 * y, 0, 1)
    plain = vc.threshold_table(s, y, [0.3, 0.5], cost_fn=5)
    t = vc.threshold_table(s, y, [0.3, 0.5], cost_fn=5, sample_weight=np.full(300, scale))
    assert t.n == pytest.approx(300 * scale, rel=1e-12)
    assert t.positives == pytest.approx(plain.positives * scale, rel=1e-12)
    for col in ("tp", "fp", "fn", "tn", "alerts", "cost"):
        assert np.allclose(getattr(t, col), getattr(plain, col) * scale, rtol=1e-12, atol=1e-12 * t.n), col
    for col in ("recall", "false_alarm_rate", "precision", "cost_per_1000"):
        assert np.allclose(getattr(t, col), getattr(plain, col), rtol=1e-12), col


# -- the same rescaling leaked into risk_coverage's answered/errors and budget_threshold's top_k: with 300
# -- rows of weight 1e300, top_k=30 (a weight below one row's) flagged 40 rows (threshold 0.642) -----------
def test_budget_threshold_top_k_is_in_the_callers_weight_units():
    rng = np.random.default_rng(0)
    s = rng.random(300)
    for scale in (1e300, 1e-300, 2.0**400):
        w = np.full(300, scale)
        assert vc.budget_threshold(s, top_k=30 * scale, sample_weight=w) == vc.budget_threshold(s, top_k=30)
        assert vc.budget_threshold(s, fraction=0.1, sample_weight=w) == vc.budget_threshold(s, fraction=0.1)
    with pytest.warns(UserWarning, match="threshold flags nothing"):
        vc.budget_threshold(s, top_k=1e299, sample_weight=np.full(300, 1e300))


def test_risk_coverage_weight_sums_are_in_the_callers_units():
    rng = np.random.default_rng(1)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.clip(0.5 * rng.random(300) + 0.4 * y, 0, 1)
    plain = vc.risk_coverage(s, y)
    for scale in (1e300, 1e-300):
        r = vc.risk_coverage(s, y, sample_weight=np.full(300, scale))
        assert np.allclose(r.accepted, plain.accepted * scale, rtol=1e-12)
        assert np.allclose(r.errors, plain.errors * scale, rtol=1e-12, atol=1e-12 * 300 * scale)
        assert np.allclose(r.risk, plain.risk) and r.aurc == pytest.approx(plain.aurc)


# -- ppi_mean / ppi_audit: the labelled and the unlabelled weights were each rescaled by their own power of
# -- two, so CBPE (the mean score of all rows) and the audit_sample rows moved to the unlabelled side mixed
# -- two units: only a common factor of all weights may be dropped --------------------------------------
@pytest.mark.parametrize("common", [2.0**300, 2.0**-300, 1e270])
def test_ppi_weights_of_both_samples_share_one_unit(common):
    rng = np.random.default_rng(3)
    f = rng.random(200)
    y = (rng.random(200) < f).astype(int)
    g = rng.random(2000)
    w, u = np.full(200, 2.0**30), np.ones(2000)
    mask = np.arange(200) % 4 != 0
    ref = vc.ppi_mean(y, f, g, sample_weight=w, sample_weight_unlabelled=u, audit_sample=mask,
                      sample_check="off")
    got = vc.ppi_mean(y, f, g, sample_weight=w * common, sample_weight_unlabelled=u * common,
                      audit_sample=mask, sample_check="off")
    for k in ("estimate", "ci_low", "ci_high", "cbpe", "cbpe_low", "cbpe_high", "rectifier", "lam"):
        assert getattr(got, k) == pytest.approx(getattr(ref, k), rel=1e-9, abs=1e-12), k
    a_ref = vc.ppi_audit(y, f, g, sample_weight=w, sample_weight_unlabelled=u, sample_check="off")
    a_got = vc.ppi_audit(y, f, g, sample_weight=w * common, sample_weight_unlabelled=u * common,
                         sample_check="off")
    for r0, r1 in zip(a_ref.rows, a_got.rows):
        assert r1["cbpe"] == pytest.approx(r0["cbpe"], rel=1e-9, abs=1e-12), r0["quantity"]
        assert r1["estimate"] == pytest.approx(r0["estimate"], rel=1e-9, abs=1e-12), r0["quantity"]


# -- ConformalClassifier fit on 3 classes, then given 2 class columns: the message blamed the rows'
# -- sums ("rows must sum to 1 ... pass score_type='logit'"), not the missing column -------------------------
@pytest.mark.parametrize("method", ["predict_sets", "coverage"])
def test_conformal_names_a_class_count_mismatch(method):
    rng = np.random.default_rng(0)
    P = rng.dirichlet([1, 1, 1], 300)
    y = (P.cumsum(1) < rng.random((300, 1))).sum(1)
    c = vc.ConformalClassifier(alpha=0.1).fit(P, y)
    bad = P[:20, :2]
    call = (lambda: c.predict_sets(bad)) if method == "predict_sets" else (lambda: c.coverage(bad, y[:20] % 2))
    with pytest.raises(vc.VeracityError, match=r"^probs have 2 class columns but the classifier was fit on 3"):
        call()
    with pytest.raises(vc.VeracityError, match=r"^probs have one binary score per row but .* fit on 3"):
        c.predict_sets(P[:20, 0])


# -- the frame form scored the label column as a model when scores= named it: Brier 0, AUC 1, "y is
# -- better" (a silent comparison against the answers) ------------------------------------------------------
@pytest.mark.parametrize("fn", ["compare_models", "murphy_diagram", "decision_curve", "realised_cost"])
def test_frame_scores_naming_the_label_or_weight_column_are_refused(fn):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.3).astype(int)
    df = pd.DataFrame({"a": rng.random(200), "y": y, "w": rng.random(200) + 0.1})
    extra = {"decision_curve": {"thresholds": [0.2]}, "realised_cost": {"threshold": 0.5}}.get(fn, {})
    with pytest.raises(vc.VeracityError, match=r"^scores= names the label column 'y' as a model"):
        getattr(vc, fn)(df, scores=["a", "y"], label="y", **extra)
    with pytest.raises(vc.VeracityError, match=r"^scores= names the sample_weight column 'w' as a model"):
        getattr(vc, fn)(df, scores=["a", "w"], label="y", sample_weight="w", **extra)


# -- threshold=[0.3, 0.5] (a list where one number belongs) read "got nan"; realised_cost with both costs
# -- 0 printed a table of zeros with p = 1 ---------------------------------------------------------------------
def test_threshold_that_is_no_number_is_shown_as_given():
    y, f, g = _rare_flags()
    with pytest.raises(vc.VeracityError, match=r"threshold must be a probability in \[0, 1\], got \[0.3, 0.5\]"):
        vc.realised_cost(f, y, threshold=[0.3, 0.5])
    with pytest.raises(vc.VeracityError, match=r"threshold must be a probability in \[0, 1\], got \[0.3, 0.5\]"):
        vc.ppi_audit(y, f, g, threshold=[0.3, 0.5])


def test_realised_cost_with_no_cost_is_refused():
    y, f, _ = _rare_flags()
    with pytest.raises(vc.VeracityError, match="cost_fp and cost_fn are both 0"):
        vc.realised_cost(f, y, threshold=0.5, cost_fp=0, cost_fn=0)


# -- the CLI: --against / --score naming the label column compared the answers as a model (exit 0) ------
@pytest.mark.parametrize("argv", [
    ["compare", "{f}", "--score", "a", "--against", "y", "--label", "y"],
    ["compare", "{f}", "--score", "a", "--against", "w", "--label", "y", "--sample-weight", "w"],
    ["threshold", "{f}", "--score", "y", "--label", "y"],
    ["conformal", "{f}", "--score", "y", "--label", "y"],
])
def test_cli_refuses_the_label_column_as_a_score(tmp_path, capsys, argv):
    from veracity.cli import main

    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.3).astype(int)
    f = tmp_path / "d.csv"
    rows = ["a,y,w"] + [f"{p:.4f},{t},{v:.3f}" for p, t, v in zip(rng.random(200), y, rng.random(200) + 0.1)]
    f.write_text("\n".join(rows) + "\n")
    code = main([a.format(f=f) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert ("as a model" in err or "--score names the" in err) and len(err.strip().splitlines()) == 1, err


# -- simulate_redraws(n_resamples=10**12) died of a MemoryError traceback; budget_threshold(top_k=True)
# -- flagged one row ----------------------------------------------------------------------------------------
def test_simulate_redraws_refuses_a_huge_n_resamples_in_one_line():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.clip(0.5 * rng.random(300) + 0.4 * y, 0, 1)
    with pytest.raises(vc.VeracityError, match=r"^n_resamples=1,000,000,000,000 is too many"):
        vc.simulate_redraws(s, y, target=0.9, n_calib=100, n_resamples=10**12, random_state=0)


def test_budget_threshold_refuses_a_boolean_top_k():
    with pytest.raises(vc.VeracityError, match="top_k must be a positive number of rows; got True"):
        vc.budget_threshold([0.1, 0.5, 0.9], top_k=True)


# -- compare_models(bins=10**9) or n_resamples=10**12 died of a MemoryError traceback ------------------------
@pytest.mark.parametrize("option, match", [({"bins": 10**9}, r"^bins must be at most 10,000"),
                                           ({"n_resamples": 10**12}, r"^n_resamples=1,000,000,000,000 is too many")])
def test_compare_models_refuses_sizes_that_cannot_fit_in_one_line(option, match):
    rng = np.random.default_rng(0)
    y = (rng.random(100) < 0.3).astype(int)
    with pytest.raises(vc.VeracityError, match=match):
        vc.compare_models({"a": rng.random(100), "b": rng.random(100)}, y, **option)


# -- realised_cost: a cost per row lies in [0, max(c_FP, c_FN)], yet one miss in 400 rows read a realised
# -- cost interval reaching below 0 (the normal interval of a rare event) -------------------------------------
def test_realised_cost_interval_stays_in_the_costs_range():
    y = np.zeros(400, dtype=int)
    y[7] = 1
    p = np.full(400, 0.01)
    r = vc.realised_cost(p, y, threshold=0.5, cost_fp=1, cost_fn=3).rows[0]
    assert r.realised == pytest.approx(3 / 400)
    # (round 21: the Wilson-based interval of one miss in 400 rows has a lower end above 0, 3 x 0.00044)
    assert 0.0 < r.realised_low < r.realised < r.realised_high <= 3.0
    hi = vc.realised_cost(np.full(400, 0.99), 1 - y, threshold=0.5, cost_fp=2, cost_fn=0.5).rows[0]
    assert 0.0 <= hi.realised_low <= hi.realised_high <= 2.0


# -- veracity conformal --score K0,K1 --label yes_no: "labels must be numeric ... Drop or fill missing rows
# -- first" (nothing was missing); now it says the labels are class indices and how to map them -----------
def test_cli_multiclass_scores_with_text_labels_say_what_labels_must_be(tmp_path, capsys):
    from veracity.cli import main

    f = tmp_path / "d.csv"
    f.write_text("K0,K1,y\n" + "".join(f"{1 - p:.2f},{p:.2f},{'yes' if p > 0.5 else 'no'}\n"
                                       for p in np.linspace(0.05, 0.95, 40)))
    code = main(["conformal", str(f), "--score", "K0,K1", "--label", "y"])
    err = capsys.readouterr().err
    assert code == 2 and "class indices 0..K-1" in err and "'no'" in err and "missing" not in err, err
