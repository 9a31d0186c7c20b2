"""threshold_table against scikit-learn's confusion_matrix and precision_recall_curve."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix, precision_recall_curve

import veracity as vc
from veracity import VeracityError


def _data(seed=0, n=2000, decimals=3):
    rng = np.random.default_rng(seed)
    s = np.round(rng.beta(2, 3, n), decimals)  # rounding creates ties
    y = (rng.random(n) < s).astype(int)
    return s, y


def test_agrees_with_sklearn_confusion_matrix_at_every_threshold():
    # oracle: sklearn.metrics.confusion_matrix(y, s >= t) -> [[tn, fp], [fn, tp]]
    s, y = _data()
    w = np.random.default_rng(9).uniform(0.2, 3.0, s.size)
    thresholds = np.r_[-0.1, 0.0, np.unique(s), np.linspace(0, 1, 37), 1.0, 1.5]
    for weights in (None, w):
        table = vc.threshold_table(s, y, thresholds, sample_weight=weights)
        for i, t in enumerate(thresholds):
            cm = confusion_matrix(y, (s >= t).astype(int), labels=[0, 1], sample_weight=weights)
            tn, fp, fn, tp = cm.ravel()
            got = (table.tn[i], table.fp[i], table.fn[i], table.tp[i])
            np.testing.assert_allclose(got, (tn, fp, fn, tp), rtol=1e-9, atol=1e-9)


def test_agrees_with_sklearn_precision_recall_curve_points():
    # oracle: sklearn.metrics.precision_recall_curve evaluates precision/recall at each
    # distinct score used as a ">= threshold" cut.
    s, y = _data(seed=1)
    w = np.random.default_rng(3).uniform(0.5, 2.0, s.size)
    for weights in (None, w):
        precision, recall, thr = precision_recall_curve(y, s, sample_weight=weights)
        table = vc.threshold_table(s, y, thr, sample_weight=weights)
        np.testing.assert_allclose(table.precision, precision[:-1], rtol=1e-12)
        np.testing.assert_allclose(table.recall, recall[:-1], rtol=1e-12)


def test_rates_and_costs_follow_their_definitions():
    s, y = _data(seed=2)
    t = vc.threshold_table(s, y, [0.1, 0.3, 0.5], cost_fp=1, cost_fn=9)
    for r in t.rows:
        flagged = s >= r.threshold
        assert r.alerts == flagged.sum()
        assert r.recall == pytest.approx(flagged[y == 1].mean())
        assert r.false_alarm_rate == pytest.approx(flagged[y == 0].mean())
        assert r.precision == pytest.approx(y[flagged].mean())
        assert r.cost == 1 * r.fp + 9 * r.fn
        assert r.cost_per_1000 == pytest.approx(1000 * r.cost / s.size)
    assert t.best().threshold == 0.1  # cheapest at cost ratio 9 among these three
    # the column arrays and the rows are the same numbers
    np.testing.assert_array_equal(t.recall, [r.recall for r in t.rows])
    np.testing.assert_array_equal(t.thresholds, [0.1, 0.3, 0.5])


def test_edge_cases_nan_rates_and_threshold_order_kept():
    t = vc.threshold_table([0.2, 0.4], [1, 1], [0.9, 0.1, 0.3])
    np.testing.assert_array_equal(t.tp, [0, 2, 1])  # rows in the order given
    assert np.isnan(t.false_alarm_rate).all()  # no negatives
    assert np.isnan(t.precision[0])  # nothing flagged
    assert "n/a" in str(t)


@settings(max_examples=30, deadline=None)
@given(
    s=st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]), min_size=1, max_size=40),
    data=st.data(),
)
def test_integer_weights_equal_repeated_rows(s, data):
    n = len(s)
    y = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    w = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    if sum(w) == 0:
        w[0] = 1
    thr = [0.0, 0.1, 0.3, 0.5, 0.9, 1.0, 1.1]
    a = vc.threshold_table(s, y, thr, sample_weight=w, cost_fn=5)
    b = vc.threshold_table(np.repeat(s, w), np.repeat(y, w), thr, cost_fn=5)
    for col in ("tp", "fp", "fn", "tn", "alerts", "cost", "cost_per_1000"):
        np.testing.assert_allclose(getattr(a, col), getattr(b, col), atol=1e-9)


def test_to_dict_is_json_and_str_renders():
    s, y = _data(seed=4, n=300)
    t = vc.threshold_table(s, y, [0.2, 0.5])
    doc = json.loads(json.dumps(t.to_dict()))
    assert doc["n"] == 300 and len(doc["table"]) == 2
    assert set(doc["table"][0]) == {"threshold", "tp", "fp", "fn", "tn", "recall", "false_alarm_rate",
                                    "precision", "alerts", "cost", "cost_per_1000"}
    text = str(t)
    assert "threshold" in text and "cost/1000" in text and "300 rows" in text


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(cost_fp=-1), "cost_fp must be a finite non-negative"),
        (dict(cost_fn=-2), "cost_fn must be a finite non-negative"),
        (dict(sample_weight=[1, -1, 1]), "non-negative"),
    ],
)
def test_table_bad_input(kwargs, message):
    with pytest.raises(VeracityError, match=message):
        vc.threshold_table([0.1, 0.5, 0.9], [0, 1, 1], [0.5], **kwargs)


def test_table_bad_thresholds_and_labels():
    with pytest.raises(VeracityError, match="thresholds contains 1 NaN"):
        vc.threshold_table([0.1, 0.5], [0, 1], [0.5, np.nan])
    with pytest.raises(VeracityError, match="thresholds is empty"):
        vc.threshold_table([0.1, 0.5], [0, 1], [])
    # infinite thresholds are allowed: -inf flags everything, inf nothing
    t = vc.threshold_table([0.1, 0.5], [0, 1], [-np.inf, np.inf])
    np.testing.assert_array_equal(t.alerts, [2, 0])
    with pytest.raises(VeracityError, match="labels must be binary"):
        vc.threshold_table([0.1, 0.5], [0, 2], [0.5])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 200))
def test_row_order_does_not_matter_and_counts_are_monotone(seed, n):
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), 2)
    y = rng.integers(0, 2, n)
    thr = np.sort(rng.random(25))
    a = vc.threshold_table(s, y, thr)
    perm = rng.permutation(n)
    b = vc.threshold_table(s[perm], y[perm], thr)
    for col in ("tp", "fp", "fn", "tn"):
        np.testing.assert_array_equal(getattr(a, col), getattr(b, col))
    assert (np.diff(a.alerts) <= 0).all() and (np.diff(a.fn) >= 0).all()
    np.testing.assert_array_equal(a.tp + a.fp + a.fn + a.tn, np.full(25, n))
