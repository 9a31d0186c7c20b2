"""Inputs, forms and results of the comparison functions: ties, weights, pos_label, identical
models, refusals in one line, frames beside arrays, and every result's display."""

import json

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import veracity as vc


def _two(seed=0, n=400):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    a = np.round(1 / (1 + np.exp(-(0.7 * z + rng.normal(size=n)))), 2)  # ties
    b = 1 / (1 + np.exp(-(1.3 * z + 0.5 * rng.normal(size=n))))
    return a, b, y


def _numbers(result):
    return [(r.metric, r.value_a, r.value_b, r.diff, r.ci_low, r.ci_high, r.p_value) for r in result.rows]


# -- identical models, refusals ---------------------------------------------------------------------
@pytest.mark.parametrize("n_resamples", [0, 30])
def test_identical_score_columns_give_exact_zeros_and_a_note(n_resamples):
    a, _, y = _two()
    r = vc.compare_models({"a": a, "b": a.copy()}, y, n_resamples=n_resamples, random_state=1)
    for row in r.rows:
        assert (row.diff, row.ci_low, row.ci_high, row.p_value) == (0.0, 0.0, 0.0, 1.0), row
        assert row.value_a == row.value_b
    d = r.corp_differences[0]
    assert (d.mcb, d.dsc, d.score) == (0.0, 0.0, 0.0)
    assert any("identical scores" in note for note in r.notes)
    assert "identical scores" in str(r) and "no difference" in r.verdict


@pytest.mark.parametrize("call, match", [
    (lambda a, b, y: vc.compare_models({"a": a, "b": b[:-1]}, y), r"model 'b' has 399 rows but model 'a' has 400"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": b}, y[:-1]), r"labels have 399"),
    (lambda a, b, y: vc.compare_models({"a": a}, y), r"two or more models"),
    (lambda a, b, y: vc.compare_models(a, y), r"dict of named score arrays"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": b}), r"needs the labels"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": np.c_[b, 1 - b]}, y), r"one binary score per row"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": np.where(b > .9, np.nan, b)}, y), r"^model 'b': scores contain"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": b * 2}, y), r"^model 'b': scores must be probabilities"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": b}, np.zeros_like(y)), r"AUC needs both classes"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": b}, y, level=1.5), r"level"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": b}, y, n_resamples=-1), r"n_resamples"),
    (lambda a, b, y: vc.compare_models({"a": a, "b": b}, y, score_type="probabilities"), r"score_type"),
    (lambda a, b, y: vc.decision_curve({"a": a}, y, thresholds=[0.5, 1.0]), r"\[0, 1\)"),
    (lambda a, b, y: vc.murphy_diagram({"a": a}, y, theta=[-0.1]), r"theta must be probabilities"),
    (lambda a, b, y: vc.murphy_diagram({"a": a}, y, score_type="score"), r"calibrate first"),
    (lambda a, b, y: vc.realised_cost(a, y, threshold=1.5), r"threshold"),
    (lambda a, b, y: vc.realised_cost(a, y, threshold=0.5, cost_fn=-1), r"cost_fn"),
])
def test_bad_input_is_refused_in_one_line(call, match):
    a, b, y = _two()
    with pytest.raises(vc.VeracityError, match=match) as info:
        call(a, b, y)
    assert "\n" not in str(info.value)


def test_pandas_inputs_with_different_indexes_are_refused():
    a, b, y = _two()
    sa, sb = pd.Series(a), pd.Series(b, index=np.arange(400)[::-1])
    with pytest.raises(vc.VeracityError, match="different indexes"):
        vc.compare_models({"a": sa, "b": sb}, pd.Series(y))


# -- ties, weights, pos_label, score types --------------------------------------------------------------
def test_pos_label_reads_text_labels_like_their_0_1_coding():
    a, b, y = _two(1)
    text = np.where(y == 1, "churn", "stay")
    r1 = vc.compare_models({"a": a, "b": b}, y, random_state=3, n_resamples=40)
    r2 = vc.compare_models({"a": a, "b": b}, text, pos_label="churn", random_state=3, n_resamples=40)
    assert _numbers(r1) == _numbers(r2)
    flipped = vc.compare_models({"a": 1 - a, "b": 1 - b}, text, pos_label="stay", n_resamples=0)
    assert flipped.row("brier").diff == pytest.approx(r1.row("brier").diff, abs=1e-15)
    assert flipped.row("auc").diff == pytest.approx(r1.row("auc").diff, abs=1e-12)


def test_rows_of_weight_zero_are_dropped_rows_and_integer_weights_are_repeated_rows():
    a, b, y = _two(2, 300)
    w = np.random.default_rng(0).integers(0, 3, 300).astype(float)
    keep = w > 0
    got = vc.compare_models({"a": a, "b": b}, y, sample_weight=np.where(keep, 1.0, 0.0), random_state=5,
                            n_resamples=40)
    ref = vc.compare_models({"a": a[keep], "b": b[keep]}, y[keep], random_state=5, n_resamples=40)
    assert got.n == ref.n == keep.sum()
    for g, r in zip(_numbers(got), _numbers(ref)):
        assert g[0] == r[0] and g[1:] == pytest.approx(r[1:], rel=1e-12, abs=1e-15)
    rep = np.repeat(np.arange(300), w.astype(int))
    weighted = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=0)
    repeated = vc.compare_models({"a": a[rep], "b": b[rep]}, y[rep], n_resamples=0)
    for metric in ("brier", "log_loss", "auc"):
        assert weighted.row(metric).diff == pytest.approx(repeated.row(metric).diff, abs=1e-12)
    assert weighted.corp_differences[0].dsc == pytest.approx(repeated.corp_differences[0].dsc, abs=1e-12)


def test_ties_and_constant_scores():
    a, b, y = _two(3)
    const = np.full_like(a, 0.4)
    r = vc.compare_models({"const": const, "b": b}, y, n_resamples=0)
    assert r.row("auc").value_a == 0.5
    assert r.corp["const"].blocks == 1
    assert r.corp["const"].brier.dsc == pytest.approx(0.0, abs=1e-15)
    # DSC is called resolution since session 22 ("ranks better" is the AUC row's word). Without resamples no
    # CORP part has an interval (session 27): the verdict reads the Brier interval and says what the AUC says
    assert r.verdict.startswith("b has the lower Brier score (Brier -"), r.verdict
    assert "point estimates" in r.verdict and "the AUC differs: b ranks better (AUC +" in r.verdict, r.verdict


def test_logits_and_rankings():
    a, b, y = _two(4)
    la, lb = np.log(np.clip(a, 1e-3, 1 - 1e-3) / (1 - np.clip(a, 1e-3, 1 - 1e-3))), np.log(b / (1 - b))
    r = vc.compare_models({"a": la, "b": lb}, y, score_type="logit", n_resamples=0)
    assert r.row("log_loss").value_b == pytest.approx(vc.nll(lb, y, score_type="logit"), abs=1e-13)
    ranks = vc.compare_models({"a": la * 10, "b": lb + 7}, y, score_type="score")
    assert [row.metric for row in ranks.rows] == ["auc"] and ranks.corp == {}
    assert ranks.row("auc").diff == pytest.approx(r.row("auc").diff, abs=1e-12)
    assert "ranks better" in ranks.verdict or "no clear difference" in ranks.verdict


def test_three_models_give_every_pair_in_order():
    a, b, y = _two(5)
    r = vc.compare_models({"a": a, "b": b, "c": (a + b) / 2}, y, n_resamples=10, random_state=0)
    assert [(row.model_a, row.model_b) for row in r.rows[::4]] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(r.verdicts) == 3 and len(r.corp_differences) == 3
    assert "c vs b:" in str(r)


def test_bootstrap_is_seeded_and_intervals_are_sane():
    a, b, y = _two(6)
    r1 = vc.compare_models({"a": a, "b": b}, y, random_state=11, n_resamples=60)
    r2 = vc.compare_models({"a": a, "b": b}, y, random_state=11, n_resamples=60)
    assert _numbers(r1) == _numbers(r2)
    for row in r1.rows:
        assert row.ci_low <= row.diff <= row.ci_high and 0.0 <= row.p_value <= 1.0
    d = r1.corp_differences[0]
    assert d.dsc_low <= d.dsc <= d.dsc_high and d.mcb_low <= d.mcb_high


def test_poisson_counts_have_the_poisson_law():
    from veracity.comparison._resample import poisson_counts

    c = poisson_counts(np.random.default_rng(0), 2_000_000).astype(float)
    assert abs(c.mean() - 1.0) < 0.003 and abs(c.var() - 1.0) < 0.005
    from math import exp, factorial

    for k in range(5):
        assert abs(np.mean(c == k) - exp(-1) / factorial(k)) < 0.0015


# -- frames -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_frame_form_equals_the_array_form(kind):
    a, b, y = _two(7)
    w = np.random.default_rng(1).random(400) + 0.5
    seg = np.where(np.arange(400) % 3 == 0, "x", "y")
    data = {"old": a, "new": b, "label": y.astype(int), "w": w, "seg": seg}
    frame = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "pyarrow": pa.table}[kind](data)
    got = vc.compare_models(frame, scores=["old", "new"], label="label", sample_weight="w", by="seg",
                            random_state=2, n_resamples=40)
    ref = vc.compare_models({"old": a, "new": b}, y, sample_weight=w, by=seg, random_state=2, n_resamples=40)
    assert got.to_dict() == ref.to_dict() | {"group_column": "seg"}
    assert set(got.groups) == {"x", "y"}
    m = vc.murphy_diagram(frame, scores=["old", "new"], label="label", theta=[0.3, 0.6])
    np.testing.assert_array_equal(m.elementary["new"], vc.murphy_diagram({"old": a, "new": b}, y,
                                                                          theta=[0.3, 0.6]).elementary["new"])
    dc = vc.decision_curve(frame, scores="new", label="label", thresholds=[0.2])
    assert dc.net_benefit["new"][0] == vc.decision_curve(b, y, thresholds=[0.2]).net_benefit["model"][0]
    cost = vc.realised_cost(frame, scores=["old"], label="label", threshold=0.5)
    assert cost.rows[0].realised == vc.realised_cost(a, y, threshold=0.5).rows[0].realised


def test_frame_form_refusals():
    a, b, y = _two(8)
    df = pd.DataFrame({"old": a, "new": b, "y": y})
    with pytest.raises(vc.VeracityError, match="column 'nope' not found"):
        vc.compare_models(df, scores=["old", "nope"], label="y")
    with pytest.raises(vc.VeracityError, match="as a list"):
        vc.compare_models(df, scores="old", label="y")
    with pytest.raises(vc.VeracityError, match="column 'nope' not found"):  # lazy: computed, not refused
        vc.compare_models(pl.DataFrame(df).lazy(), scores=["old", "nope"], label="y")
    with pytest.raises(vc.VeracityError, match="no positional labels"):
        vc.compare_models(df, y, scores=["old", "new"], label="y")


# -- results ---------------------------------------------------------------------------------------------
def test_every_result_prints_renders_and_serialises(tmp_path):
    a, b, y = _two(9)
    results = [
        vc.compare_models({"lr": a, "gb": b}, y, n_resamples=20, random_state=0),
        vc.murphy_diagram({"lr": a, "gb": b}, y),
        vc.decision_curve({"lr": a, "gb": b}, y),
        vc.realised_cost({"lr": a, "gb": b}, y, threshold=0.4, cost_fn=3),
    ]
    for r in results:
        text = str(r)
        assert text and repr(r) == text
        html = r._repr_html_()
        assert html.startswith('<div class="vc-result">')
        json.dumps(r.to_dict(), allow_nan=True)
        frame = r.to_frame()
        assert len(frame) > 0
        fig = r.plot()
        assert fig.axes
        fig.savefig(tmp_path / f"{type(r).__name__}.png", dpi=40)
    cmp, murphy, dc, cost = results
    assert list(cmp.to_frame().columns[:10]) == ["model_a", "model_b", "metric", "value_a", "value_b", "diff",
                                                  "ci_low", "ci_high", "p_value", "se"]
    assert {r["metric"] for r in cmp.to_dict()["comparison"]} == {"brier", "log_loss", "ece", "auc"}
    assert set(cmp.corp) == {"lr", "gb"} and isinstance(cmp.corp["lr"], vc.CORPResult)
    assert murphy.theta.size == 199 and set(murphy.elementary) == {"lr", "gb"}
    assert {"threshold", "model", "net_benefit", "ci_low", "ci_high"} <= set(dc.to_frame().columns)
    assert set(dc.to_frame().model) == {"lr", "gb", "all", "none"}
    assert "Verdict" in str(cmp) and cmp.verdict in str(cmp)


def test_murphy_text_claims_brier_over_2_only_on_a_fine_uniform_grid_and_says_no_threshold_plainly():
    """theta=[0, 1] printed "mean over the theta grid (about Brier / 2): a 0.0000 (Brier/2 0.0871)";
    a model better nowhere read "is better ... at theta in no threshold"."""
    rng = np.random.default_rng(5)
    s = rng.uniform(size=500)
    y = (rng.random(500) < s).astype(int)
    s2 = np.clip(s + rng.normal(0, 0.1, 500), 0, 1)
    fine = str(vc.murphy_diagram({"a": s, "b": s2}, y))
    assert "about Brier / 2" in fine
    coarse = str(vc.murphy_diagram({"a": s, "b": s2}, y, theta=[0.0, 1.0]))
    assert "Brier" not in coarse and "theta in no threshold" not in coarse
    assert "better at no threshold" in coarse
