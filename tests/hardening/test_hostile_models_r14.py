"""Round 14: hostile inputs and silent wrong answers in calibrators, decisions, segments and comparison."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError


# -- TemperatureScaling on scores that say nothing about tau ------------------------------------------
@pytest.mark.parametrize("method", ["newton", "golden"])
def test_temperature_refuses_all_half_probabilities(method: str) -> None:
    # every p = 0.5 (logit 0): s/tau = 0 for every tau, the NLL is flat. Before: tau = 1e-10 with a
    # warning that the score "separates the labels perfectly" (it separates nothing), and then
    # transform([0.4, 0.6]) = [0, 1]; golden gave tau = 20 silently.
    y = np.r_[np.zeros(30), np.ones(10)]
    with pytest.raises(VeracityError, match="every calibration score is 0 on the logit scale"):
        vc.TemperatureScaling(method=method).fit(np.full(40, 0.5), y)
    with pytest.raises(VeracityError, match="every calibration score is 0"):
        vc.TemperatureScaling(score_type="logit", method=method).fit(np.zeros(40), y)


def test_temperature_refuses_uniform_multiclass_rows() -> None:
    P = np.full((30, 3), 1.0 / 3.0)
    y = np.r_[np.zeros(20), np.ones(5), np.full(5, 2)].astype(int)
    with pytest.raises(VeracityError, match="uniform probabilities"):
        vc.TemperatureScaling().fit(P, y)


def test_temperature_refuses_flat_frame_fit() -> None:
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"p": np.full(40, 0.5), "y": np.r_[np.zeros(30), np.ones(10)].astype(int)})
    for frame in (df, df.lazy()):
        with pytest.raises(VeracityError, match="every calibration score is 0"):
            vc.TemperatureScaling().fit(frame, score="p", label="y")


def test_temperature_still_fits_separated_and_partly_zero_scores() -> None:
    # separated rows still reach the lower end with the separation warning; zeros among varying
    # scores are ordinary rows
    s = np.r_[np.zeros(10), -np.ones(10), np.ones(10)]
    y = np.r_[np.zeros(5), np.ones(5), np.zeros(10), np.ones(10)]
    with pytest.warns(UserWarning, match="separates"):
        ts = vc.TemperatureScaling(score_type="logit").fit(s, y)
    assert ts.temperature_ == pytest.approx(1e-10)
    rng = np.random.default_rng(0)
    z = rng.normal(size=400)
    z[:50] = 0.0
    yy = (rng.uniform(size=400) < 1 / (1 + np.exp(-z / 2))).astype(int)
    ts = vc.TemperatureScaling(score_type="logit").fit(z, yy)
    assert 1.0 < ts.temperature_ < 5.0


# -- adjust_prior / estimate_prior on rows that are not probability vectors --------------------------
def test_adjust_prior_refuses_rows_not_summing_to_one() -> None:
    # before: a row of zeros gave NaN silently, and [0.2, 0.2, 0.2] was silently renormalised
    bad = np.array([[0.0, 0.0, 0.0], [0.2, 0.2, 0.2]])
    with pytest.raises(VeracityError, match="rows must sum to 1"):
        vc.adjust_prior(bad, [0.3, 0.3, 0.4], [0.2, 0.4, 0.4])
    with pytest.raises(VeracityError, match="rows must sum to 1"):
        vc.estimate_prior(bad, [0.3, 0.3, 0.4])
    # probability rows still work: p_k * new_k / old_k, renormalised (hand-computed)
    out = vc.adjust_prior(np.array([[0.5, 0.5]]), [0.5, 0.5], [0.2, 0.8])
    np.testing.assert_allclose(out, [[0.2, 0.8]])


# -- SegmentCalibration: text "nan" in a numeric feature is a missing value ----------------------------
def test_segment_calibration_text_nan_is_missing_not_top_bin() -> None:
    # before: "nan" read as the float NaN, sorted above every cut, and got the top bin's correction
    # (0.4477 here) while the float NaN got none (0.3191)
    rng = np.random.default_rng(0)
    n = 6000
    p = rng.uniform(0.05, 0.95, n)
    x = rng.normal(size=n)
    y = (rng.uniform(size=n) < np.clip(p + 0.15 * (x > 0.9), 0, 1)).astype(int)
    sc = vc.SegmentCalibration(depth=1, features=["x"]).fit(p, y, features={"x": x})
    pt = np.full(4, 0.3)
    as_numbers = sc.transform(pt, features={"x": np.array([np.nan, 2.0, -2.0, 0.0])})
    as_text = sc.transform(pt, features={"x": np.array(["nan", "2.0", "-2", "0"])})
    as_objects = sc.transform(pt, features={"x": np.array([np.float32("nan"), 2.0, -2.0, 0.0], dtype=object)})
    np.testing.assert_array_equal(as_text, as_numbers)
    np.testing.assert_array_equal(as_objects, as_numbers)
    assert as_numbers[0] != as_numbers[1]  # the top bin is corrected; a missing value is not


# -- tampered artifacts that the schema let through ---------------------------------------------------
def _histogram_doc() -> dict:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=500)
    y = (rng.uniform(size=500) < p).astype(int)
    return vc.HistogramBinning(bins=4).fit(p, y).to_dict()


def test_histogram_artifact_with_edited_uniform_edges_is_refused() -> None:
    # before: 'uniform' bins are floor(p * M) whatever edges_ say, so edges [0, .9, .95, .99, 1]
    # were ignored silently: transform(0.5) read bin 2 (0.6277) where the edges say bin 0
    doc = _histogram_doc()
    doc["state"]["edges_"] = [0.0, 0.9, 0.95, 0.99, 1.0]
    with pytest.raises(VeracityError, match="equal-width bins"):
        vc.load(doc)
    ok = _histogram_doc()
    assert vc.load(ok).transform([0.5]).tolist() == [ok["state"]["values_"][2]]  # floor(0.5 * 4) = 2


def test_histogram_artifact_of_a_ranking_score_needs_quantile_bins() -> None:
    # before: a score-scale artifact switched to strategy='uniform' indexed the bins with floor(s * M):
    # negative scores wrapped around to the last bins silently, others raised a raw IndexError
    rng = np.random.default_rng(0)
    s = rng.normal(size=500) * 3
    y = (rng.uniform(size=500) < 1 / (1 + np.exp(-s))).astype(int)
    doc = vc.HistogramBinning(score_type="score", strategy="quantile", bins=4).fit(s, y).to_dict()
    doc["params"]["strategy"] = "uniform"
    with pytest.raises(VeracityError, match="strategy='quantile'"):
        vc.load(doc)


def test_venn_abers_artifact_with_p0_above_p1_is_refused() -> None:
    # before: p0_ = 1 everywhere loaded and every output was p1 / (1 - 1 + p1) = 1
    rng = np.random.default_rng(0)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(int)
    doc = vc.VennAbers().fit(p, y).to_dict()
    assert all(a <= b for a, b in zip(doc["state"]["p0_"], doc["state"]["p1_"]))  # the invariant holds
    doc["state"]["p0_"] = [1.0] * len(doc["state"]["p0_"])
    with pytest.raises(VeracityError, match="p0_ must not exceed"):
        vc.load(doc)


# -- pandas inputs with different indexes are never paired by position -------------------------------
def _misaligned() -> tuple:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 400
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    return pd, p, y, pd.Series(p), pd.Series(y)[::-1], pd.Series(np.ones(n))[::-1]


@pytest.mark.parametrize("call", [
    lambda s, l, w: vc.recall_threshold(s, l),
    lambda s, l, w: vc.precision_threshold(s, l, target=0.6),
    lambda s, l, w: vc.threshold_table(s, l, [0.5]),
    lambda s, l, w: vc.ConformalClassifier().fit(s, l),
    lambda s, l, w: vc.risk_coverage(s, l),
    lambda s, l, w: vc.selective_threshold(s, l, target_risk=0.3),
    lambda s, l, w: vc.simulate_redraws(s, l, n_calib=200, n_resamples=5, random_state=0),
    lambda s, l, w: vc.cross_fit(s, l, vc.PlattScaling(), random_state=0),
], ids=["recall", "precision", "table", "conformal", "risk_coverage", "selective", "redraws", "cross_fit"])
def test_decisions_refuse_labels_on_another_index(call) -> None:
    # before: every one of these read the reversed labels by position and answered silently
    # (cross_fit's final Platt slope 0.0019 instead of 1.068)
    _, p, y, s, l, w = _misaligned()
    with pytest.raises(VeracityError, match="different indexes"):
        call(s, l, w)


def test_decisions_refuse_weights_on_another_index() -> None:
    pd, p, y, s, _, w = _misaligned()
    aligned = pd.Series(y)
    with pytest.raises(VeracityError, match="different indexes"):
        vc.budget_threshold(s, top_k=5, sample_weight=w)
    with pytest.raises(VeracityError, match="different indexes"):
        vc.recall_threshold(s, aligned, sample_weight=w)
    with pytest.raises(VeracityError, match="different indexes"):
        vc.decisions.conformal_quantile(s, 0.1, sample_weight=w)
    with pytest.raises(VeracityError, match="different indexes"):
        vc.estimate_prior(s, 0.5, sample_weight=w)
    fitted = vc.ConformalClassifier().fit(p, y)
    with pytest.raises(VeracityError, match="different indexes"):
        fitted.coverage(s, pd.Series(y)[::-1])
    # the same index, or plain arrays, are read as before
    assert vc.recall_threshold(s, aligned) == vc.recall_threshold(p, y)
    assert vc.cross_fit(s, aligned, vc.PlattScaling(), random_state=0).final.a_ == pytest.approx(
        vc.PlattScaling().fit(p, y).a_)


def test_temperature_without_signal_is_not_called_reversed() -> None:
    # scores of +-0.01 with half positives on each side: no signal either way (f'(0) is 0 up to
    # rounding). Before: "the scores are reversed (higher scores go with FEWER positives)"
    s = np.r_[np.full(30, -0.01), np.full(10, 0.01)]
    y = np.r_[np.zeros(15), np.ones(15), np.zeros(5), np.ones(5)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ts = vc.TemperatureScaling(score_type="logit").fit(s, y)
    text = " ".join(str(w.message) for w in caught)
    assert "no signal" in text and "reversed" not in text
    np.testing.assert_allclose(ts.transform(np.array([-0.01, 0.01])), 0.5, atol=1e-9)  # the base rate
    # truly reversed scores are still called reversed
    reversed_labels = np.r_[np.zeros(15), np.ones(5), np.ones(15), np.zeros(5)]
    with pytest.warns(UserWarning, match="reversed"):
        vc.TemperatureScaling(score_type="logit").fit(np.r_[np.full(20, 1.0), np.full(20, -1.0)],
                                                      reversed_labels)


# -- compare_models: no significance read off an interval that too few resamples cannot place ----------
def test_compare_models_verdict_with_too_few_resamples_reads_point_estimates() -> None:
    # before: with n_resamples=1 the "95%" DSC interval is a 0% interval (the ends are the one
    # resample), yet the verdict called "a ranks better (DSC +0.0120 [+0.0067, +0.0165])"
    rng = np.random.default_rng(0)
    n = 1000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    q = np.clip(p + rng.normal(scale=0.1, size=n), 0, 1)
    for b in (1, 39):  # (B + 1) * 0.05 / 2 <= 1: the interval ends are the extreme resamples
        r = vc.compare_models({"a": p, "b": q}, y, n_resamples=b, random_state=0)
        assert "point estimates; too few resamples" in r.verdict
        assert not re.search(r"(?:DSC|MCB) [+-]\d\.\d{4} \[", r.verdict)  # no interval offered as the evidence
        assert any("too few" in note for note in r.notes)
    r = vc.compare_models({"a": p, "b": q}, y, n_resamples=40, random_state=0)
    # session 25: the verdict reads every difference as b - a, the table's orientation
    assert "point estimates" not in r.verdict and "DSC -0.0120 [" in r.verdict


# -- ConformalClassifier on one binary probability per row: binary label messages -------------------
@pytest.mark.parametrize("labels, message", [
    (np.array(["no", "yes"] * 50), "pos_label='yes'"),
    (np.array([1, 2] * 50), "pass pos_label=2"),
])
def test_conformal_binary_probabilities_with_non01_labels_name_pos_label(labels, message) -> None:
    # before: "multiclass labels must be the class's column index 0..1 in the scores" for 1-D
    # binary probabilities, which have no class columns to speak of
    p = np.linspace(0.01, 0.99, 100)
    with pytest.raises(VeracityError, match=message):
        vc.ConformalClassifier().fit(p, labels)
    cp = vc.ConformalClassifier().fit(p, (labels == labels[1]).astype(bool))  # booleans read as 0/1
    assert cp.qhat_ == vc.ConformalClassifier().fit(p, (labels == labels[1]).astype(int)).qhat_


# -- vc.segments: a numpy float NaN in an object column is a missing value --------------------------
def test_segments_object_column_with_float32_nan_is_missing() -> None:
    # before: "numeric feature 'x' holds infinite values" (np.float32('nan') is no Python float, so it
    # was not read as missing, then failed the finiteness check)
    rng = np.random.default_rng(0)
    n = 2000
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    x = rng.normal(size=n)
    boxed = x.astype(object)
    boxed[:100] = np.float32("nan")
    plain = x.copy()
    plain[:100] = np.nan
    got = {r.segment: (r.n, r.p_value) for r in vc.segments(p, y, features={"x": boxed}).rows}
    want = {r.segment: (r.n, r.p_value) for r in vc.segments(p, y, features={"x": plain}).rows}
    assert got == want and got["x=missing"][0] == 100
