"""Review follow-ups of model comparison and the text tables (round 15).

1. Brier / log-loss differences: Student's t on n - 1 degrees of freedom (Kish's effective size - 1
   weighted), not the normal quantile (p < 0.0001 on 2 rows; 8-9 % false positives at 5 % on 10 rows).
2. A constant model's DSC is exactly 0 (it printed "-0.0000"); MCB and DSC are never below 0.
3. A debiased-ECE difference with p = 1 is by definition (the bias-aware interval keeps the bias range
   at every level): conservative under H0, powerful under H1, and the table says why.
4. The missing-key slice of ``by=`` is found without a Python list over the rows.
5. ``n_resamples`` is capped at 100,000 (a million took minutes, silently).
6. Text tables escape direction-changing and invisible characters, with the one escape function.
"""

import math

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.core._special import ndtr
from veracity.core._validation import Binary
from veracity.comparison import _compare
from veracity.comparison._paired import paired_losses


# -- 1. small-sample intervals of the paired Brier and log-loss differences ----------------------------
def test_two_rows_are_not_significant_and_match_the_paired_t_test():
    pa, pb, y = np.array([0.3, 0.6]), np.array([0.4, 0.5]), np.array([1.0, 0.0])
    r = vc.compare_models({"A": pa, "B": pb}, y, n_resamples=0)
    brier = r.row("brier")
    assert brier.p_value > 0.05  # the normal quantile said < 0.0001
    assert brier.p_value == pytest.approx(stats.ttest_rel((pb - y) ** 2, (pa - y) ** 2).pvalue, rel=1e-9)
    assert brier.ci_low < 0.0 < brier.ci_high
    ll = r.row("log_loss")
    nll = lambda p: -(y * np.log(p) + (1 - y) * np.log(1 - p))  # noqa: E731
    assert ll.p_value == pytest.approx(stats.ttest_rel(nll(pb), nll(pa)).pvalue, rel=1e-9)
    assert "paired t" in str(r) and "<0.0001" not in str(r).splitlines()[2]


def test_false_positive_rate_under_h0_on_ten_rows_is_at_most_alpha():
    """Two exchangeable models (equal expected Brier score and log loss), 10 rows, 4,000 draws: the t
    test rejects at most 5 % + 3 MC standard errors; the normal quantile on the same statistics rejects
    about 8 % (shown for contrast)."""
    rng = np.random.default_rng(20261204)
    draws, n, alpha = 4000, 10, 0.05
    hits = np.zeros(2)
    normal_hits = np.zeros(2)
    for _ in range(draws):
        y = (rng.random(n) < 0.5).astype(np.float64)
        pa, pb = rng.uniform(0.1, 0.9, n), rng.uniform(0.1, 0.9, n)
        data = [Binary(p=pa, y=y, w=None, logit=None), Binary(p=pb, y=y, w=None, logit=None)]
        _, paired = paired_losses(data, [(0, 1)], None, 0.95)
        for t, e in enumerate(paired[(0, 1)]):
            hits[t] += e.p_value < alpha
            normal_hits[t] += 2.0 * ndtr(-abs(e.value) / e.se) < alpha
    rate, normal_rate = hits / draws, normal_hits / draws
    mc = 3.0 * math.sqrt(alpha * (1 - alpha) / draws)
    assert np.all(rate <= alpha + mc), rate
    assert np.all(normal_rate > alpha + mc), normal_rate  # the old rule: well above the level


def test_large_samples_converge_to_the_normal_interval():
    rng = np.random.default_rng(3)
    n = 200_000
    y = (rng.random(n) < 0.4).astype(float)
    pa, pb = rng.uniform(0.05, 0.95, n), rng.uniform(0.05, 0.95, n)
    row = vc.compare_models({"a": pa, "b": pb}, y, n_resamples=0).row("brier")
    z = stats.norm.ppf(0.975)
    assert (row.ci_high - row.ci_low) / (2 * z * row.se) == pytest.approx(1.0, abs=1e-4)


# -- 2. no negative zero (or rounding below 0) in the CORP decomposition ------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_constant_model_has_dsc_exactly_zero_and_no_negative_zero_is_printed(seed):
    rng = np.random.default_rng(seed + 1)
    n = 300
    y = rng.integers(0, 2, n)
    pa, pb = rng.uniform(0, 1, n), np.full(n, 0.5)
    r = vc.compare_models({"A": pa, "B": pb}, y, n_resamples=50, random_state=0)
    for c in r.corp.values():
        for part in (c.brier, c.log_loss):
            assert part.mcb >= 0.0 and part.dsc >= 0.0
            assert math.copysign(1.0, part.mcb) == 1.0 and math.copysign(1.0, part.dsc) == 1.0
    b = r.corp["B"].brier
    assert b.dsc == 0.0 and r.corp["B"].log_loss.dsc == 0.0
    corp_b = next(line for line in str(r).splitlines() if line.startswith("B "))
    assert "-0.0000" not in corp_b, corp_b


def test_identical_constant_models_print_no_negative_zero_in_the_difference():
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 1])
    r = vc.compare_models({"A": np.full(10, 0.3), "B": np.full(10, 0.7)}, y, n_resamples=0)
    d = r.corp_differences[0]
    assert math.copysign(1.0, d.dsc) == 1.0 and d.dsc == 0.0
    assert "-0.0000" not in str(r).split("CORP decomposition")[1]


# -- 3. the debiased-ECE difference's p = 1 -------------------------------------------------------------
def _ece_pair(seed, shift, n=600):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    pa = np.clip(p + rng.normal(0, 0.02, n), 0.01, 0.99)  # calibrated, not identical to p
    pb = np.clip(p + shift, 0.01, 0.99)
    return vc.compare_models({"A": pa, "B": pb}, y, n_resamples=200, random_state=seed)


def test_ece_difference_p_value_is_conservative_under_h0_and_has_power_under_h1():
    """p = 1 is by definition: at alpha = 1 the bias-aware interval still spans the bias range of the
    two debiased ECEs (probability 1 - BIAS_SHARE), so a difference within it is no evidence. Under H0
    (both calibrated) no draw rejects at 5 % (p mostly 1); under H1 (B off by 0.2) every draw does."""
    h0 = np.array([_ece_pair(s, 0.0).row("ece").p_value for s in range(20)])
    h1 = np.array([_ece_pair(100 + s, 0.2).row("ece").p_value for s in range(10)])
    assert np.mean(h0 < 0.05) <= 0.05 and np.mean(h0 == 1.0) >= 0.5
    assert np.mean(h1 < 0.05) >= 0.9


def test_table_says_why_an_ece_difference_has_p_one():
    r = next(r for r in (_ece_pair(s, 0.0) for s in range(10))
             if r.row("ece").p_value == 1.0 and r.row("ece").diff != 0.0)
    text = str(r)
    assert _compare.ECE_P_ONE in text and text.count("ece_debiased p = 1") == 1
    away = _ece_pair(100, 0.2)
    assert away.row("ece").p_value < 1.0 and "ece_debiased p = 1" not in str(away)


# -- 4. the missing-key slice without a Python list over the rows --------------------------------------
def test_missing_key_slice_is_vectorised_and_right(monkeypatch):
    rng = np.random.default_rng(4)
    n = 600
    y = rng.integers(0, 2, n)
    pa, pb = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    keys = np.array(["a", None, float("nan"), "b", 1, None] * (n // 6), dtype=object)
    lists = []

    class Numpy:  # numpy as _compare sees it, noting any array built from a per-row Python list
        def __getattr__(self, name):
            attr = getattr(np, name)
            if name in ("array", "asarray", "fromiter"):
                def wrapped(obj, *args, **kwargs):
                    if isinstance(obj, (list, tuple)) and len(obj) >= n // 2:
                        lists.append(len(obj))
                    return attr(obj, *args, **kwargs)
                return wrapped
            return attr

    monkeypatch.setattr(_compare, "np", Numpy())
    r = vc.compare_models({"A": pa, "B": pb}, y, by=keys, n_resamples=0)
    assert lists == []  # the old code built one bool per row in a Python list for the None slice
    monkeypatch.undo()
    missing = np.array([k is None or k != k for k in keys])  # NaN and None: one slice of missing keys
    assert r.groups["(missing)"].n == missing.sum() == n // 2
    assert r.groups["a"].n == r.groups["b"].n == r.groups["1"].n == n // 6
    want = vc.compare_models({"A": pa[missing], "B": pb[missing]}, y[missing], n_resamples=0)
    assert r.groups["(missing)"].row("brier").diff == pytest.approx(want.row("brier").diff, abs=1e-15)


# -- 5. the resample cap -----------------------------------------------------------------------------
def test_resamples_above_the_cap_are_refused_with_the_cap_named():
    assert _compare.MAX_RESAMPLES == 100_000
    with pytest.raises(vc.VeracityError, match=r"^n_resamples=100,001 is too many: at most 100,000"):
        # bins=0 is refused after n_resamples: the old cap (a million) let this through to the bins check
        vc.compare_models({"A": [0.2, 0.7], "B": [0.3, 0.6]}, [0, 1], n_resamples=100_001, bins=0)


def test_cli_refuses_resamples_above_the_cap(tmp_path, capsys):
    from veracity.cli import main

    path = tmp_path / "s.csv"
    path.write_text("y,a,b\n" + "".join(f"{i % 2},{0.2 + 0.06 * (i % 10)},{0.3 + 0.05 * (i % 9)}\n"
                                        for i in range(40)))
    code = main(["compare", str(path), "--label", "y", "--score", "a", "--against", "b",
                 "--n-resamples", "100001", "--bins", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "100,000" in err and "--n-resamples" in err, err


# -- 6. text tables escape direction-changing and invisible characters --------------------------------------
def test_render_table_escapes_bidi_and_invisible_characters():
    from veracity.core._text import render_table, visible
    from veracity.plotting import _style

    assert _style.visible is visible  # one escape function, shared by figures, the report and the tables
    text = render_table(["slice", "n"], [["a\u202eb", "1"], ["c\u200bd", "2"], ["e\u2067f", "3"]])
    assert not any(c in text for c in "\u202e\u200b\u2067")
    assert "a\\u202eb" in text and "c\\u200bd" in text
    widths = {len(line) for line in text.splitlines()}
    assert len(widths) == 1  # aligned on the escaped text


def test_audit_slices_with_a_right_to_left_override_print_escaped():
    rng = np.random.default_rng(0)
    n = 400
    p = rng.uniform(0, 1, n)
    y = (rng.random(n) < p).astype(int)
    s = np.array(["a\u202eb", "c\u200bd"] * (n // 2), dtype=object)
    text = str(vc.audit(p, y, by={"s": s}))
    assert "\u202e" not in text and "\u200b" not in text
    assert "a\\u202eb" in text and "c\\u200bd" in text


def test_comparison_prose_escapes_model_names_as_the_tables_do():
    rng = np.random.default_rng(5)
    n = 300
    y = rng.integers(0, 2, n)
    name = "good\u202edab"
    scores = {"a": rng.uniform(0, 1, n), name: np.clip(y * 0.6 + rng.uniform(0, 0.4, n), 0, 1)}
    text = str(vc.compare_models(scores, y, n_resamples=0))
    assert "\u202e" not in text and "good\\u202edab has the lower Brier score" in text
    murphy = str(vc.murphy_diagram(scores, y))
    assert "\u202e" not in murphy and "good\\u202edab" in murphy
