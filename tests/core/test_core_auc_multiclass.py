"""vc.auc(..., multiclass="ovr" | "ovo") against scikit-learn's roc_auc_score."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import veracity as vc


def _problem(seed: int, n: int = 400, k: int = 4, decimals: int | None = None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y]
    P = np.exp(logits - logits.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    if decimals is not None:  # coarse probabilities: many ties
        P = np.round(P, decimals)
        P[:, -1] = 1.0 - P[:, :-1].sum(axis=1)
        P = np.clip(P, 0.0, 1.0)
        P /= P.sum(axis=1, keepdims=True)
    return P, y, logits


@pytest.mark.parametrize("multiclass", ["ovr", "ovo"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("decimals", [None, 1])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_multiclass_auc_equals_roc_auc_score(multiclass, average, decimals, seed):
    P, y, _ = _problem(seed, decimals=decimals)
    expected = roc_auc_score(y, P, multi_class=multiclass, average=average)
    assert vc.auc(P, y, multiclass=multiclass, average=average) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_weighted_ovr_equals_roc_auc_score_with_sample_weight(average):
    P, y, _ = _problem(3)
    w = np.random.default_rng(3).uniform(0.1, 3.0, y.size)
    expected = roc_auc_score(y, P, multi_class="ovr", average=average, sample_weight=w)
    got = vc.auc(P, y, multiclass="ovr", average=average, sample_weight=w)
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("multiclass", ["ovr", "ovo"])
def test_integer_weights_equal_repeated_rows(multiclass):
    P, y, _ = _problem(4, n=120)
    w = np.random.default_rng(4).integers(1, 4, y.size)
    repeated = vc.auc(np.repeat(P, w, axis=0), np.repeat(y, w), multiclass=multiclass, average="weighted")
    weighted = vc.auc(P, y, multiclass=multiclass, average="weighted", sample_weight=w)
    assert weighted == pytest.approx(repeated, abs=1e-12)


@pytest.mark.parametrize("multiclass", ["ovr", "ovo"])
def test_logits_rank_like_their_softmax(multiclass):
    P, y, logits = _problem(5)
    from_logits = vc.auc(logits, y, multiclass=multiclass, score_type="logit")
    assert from_logits == pytest.approx(vc.auc(P, y, multiclass=multiclass), abs=1e-12)


def test_saturated_logits_keep_their_order():
    # softmax of these logits rounds to exactly 0/1 for most rows; logits still rank them
    rng = np.random.default_rng(6)
    y = np.repeat([0, 1, 2], 50)
    logits = np.zeros((150, 3))
    logits[np.arange(150), y] = 800.0 + rng.normal(size=150)
    logits[:, 0] += rng.normal(size=150)
    got = vc.auc(logits, y, multiclass="ovr", score_type="logit")
    assert got == pytest.approx(1.0)


@given(st.integers(0, 10_000), st.floats(1e-3, 1e3))
@settings(max_examples=25, deadline=None)
def test_multiclass_auc_is_invariant_to_weight_scale(seed, scale):
    P, y, _ = _problem(seed, n=90, k=3)
    w = np.random.default_rng(seed).uniform(0.5, 2.0, y.size)
    for mode in ("ovr", "ovo"):
        a = vc.auc(P, y, multiclass=mode, average="weighted", sample_weight=w)
        b = vc.auc(P, y, multiclass=mode, average="weighted", sample_weight=w * scale)
        assert a == pytest.approx(b, abs=1e-12)


def test_binary_input_has_one_auc_whatever_the_reading():
    p = np.array([0.1, 0.4, 0.35, 0.8])
    y = np.array([0, 0, 1, 1])
    assert vc.auc(p, y, multiclass="ovr") == vc.auc(p, y) == roc_auc_score(y, p)


def test_a_missing_class_is_named():
    P, y, _ = _problem(7, k=3)
    y[y == 2] = 1
    with pytest.raises(vc.VeracityError, match="class 2"):
        vc.auc(P, y, multiclass="ovr")


@pytest.mark.parametrize("kwargs, message", [
    ({"multiclass": "one-vs-all"}, "multiclass must be one of"),
    ({"multiclass": "ovr", "average": "micro"}, "average must be 'macro' or 'weighted'"),
])
def test_bad_options_are_refused(kwargs, message):
    P, y, _ = _problem(8, k=3)
    with pytest.raises(vc.VeracityError, match=message):
        vc.auc(P, y, **kwargs)


def test_frame_form_passes_the_reading_through():
    P, y, _ = _problem(9, k=3)
    frame = pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": y})
    got = vc.auc(frame, score=["p0", "p1", "p2"], label="y", multiclass="ovo", average="weighted")
    assert got == pytest.approx(roc_auc_score(y, P, multi_class="ovo", average="weighted"), abs=1e-12)
