"""(N, 2) scores — ``predict_proba``'s two columns — are read top-label like any (N, K) input
(DESIGN §3), and every output says so: the audit printed "base rate" beside the top-label
accuracy, ``accuracy(threshold=0.7)`` thresholded the top-label confidence (0.664 instead of
the argmax accuracy 0.764), ``multiclass="classwise"`` was ignored, and the report offered a
threshold explorer over confidences that are never below 0.5. Session 34: a threshold other than
0.5 then changed no number (the argmax accuracy whatever it was), silently: refused now."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def two_columns():
    rng = np.random.default_rng(0)
    s = rng.uniform(size=500)
    y = (rng.uniform(size=500) < s).astype(int)
    return s, np.c_[1 - s, s], y


def test_accuracy_of_two_columns_is_the_argmax_accuracy_and_refuses_another_threshold(two_columns):
    """Session 34: a threshold other than 0.5 changed no number (the argmax accuracy, 0.764 at any t),
    silently; refused now, naming the column that a threshold cuts."""
    s, P, y = two_columns
    argmax = float(np.mean(P.argmax(axis=1) == y))
    assert vc.accuracy(P, y) == pytest.approx(argmax, abs=1e-15)
    assert vc.accuracy(P, y, threshold=0.5) == pytest.approx(argmax, abs=1e-15)
    assert vc.audit(P, y, threshold=0.5).accuracy == pytest.approx(argmax, abs=1e-15)
    for t in (0.3, 0.7, 0.0, 1.0):
        for call in (vc.accuracy, vc.audit):
            with pytest.raises(vc.VeracityError, match=rf"^threshold={t!r} has no effect on \(N, K\) "
                               r"scores read top-label .* pass the positive class's column P\[:, 1\] to "
                               r"threshold it"):
                call(P, y, threshold=t)
    # the 1-D reading still thresholds the positive class's probability
    assert vc.accuracy(s, y, threshold=0.7) == pytest.approx(float(np.mean((s >= 0.7) == (y == 1))))


def test_audit_of_two_columns_says_top_label_and_never_calls_the_accuracy_a_base_rate(two_columns):
    s, P, y = two_columns
    top = vc.audit(P, y)
    text = str(top)
    assert "top-label reading of 2 classes" in text and "base rate" not in text
    assert "top-label accuracy" in top.summary_line()
    assert top.top_label and top.to_dict()["reading"] == "top-label"
    binary = vc.audit(s, y)
    assert not binary.top_label and binary.to_dict()["reading"] == "binary"
    assert f"base rate {np.mean(y):.4f}" in str(binary)


def test_classwise_audit_of_two_columns_reads_each_column_against_the_rest(two_columns):
    s, P, y = two_columns
    per_class = vc.audit(P, y, multiclass="classwise")
    assert list(per_class.groups) == ["class 0", "class 1"]
    assert per_class.groups["class 1"].ece == pytest.approx(vc.ece(s, y), abs=1e-12)
    assert per_class.groups["class 0"].ece == pytest.approx(vc.ece(1 - s, 1 - y), abs=1e-12)


def test_bootstrap_accuracy_of_two_columns_is_the_argmax_and_refuses_another_threshold(two_columns):
    _, P, y = two_columns
    argmax = float(np.mean(P.argmax(axis=1) == y))
    audited = vc.audit(P, y, bootstrap="percentile", n_resamples=50, random_state=0)
    row = audited.extras["intervals"]["accuracy"]
    assert row.estimate == pytest.approx(argmax)
    assert row.low <= argmax <= row.high
    assert row.se > 0.005  # resampled argmax accuracies (thresholded confidences were a different number)
    for call in (lambda: vc.audit(P, y, bootstrap="percentile", n_resamples=50, threshold=0.7),
                 lambda: vc.bootstrap_intervals(P, y, metrics="accuracy", n_resamples=50, threshold=0.7)):
        with pytest.raises(vc.VeracityError, match=r"^threshold=0.7 has no effect on \(N, K\) scores"):
            call()


def test_report_of_two_columns_has_no_threshold_explorer_and_says_how_to_get_one(two_columns):
    _, P, y = two_columns
    html = vc.report(P, y, bootstrap=False).html
    assert "threshold explorer omitted" in html and "column alone for the binary reading" in html
    # the top-label reading is named in the summary (session 25: its second card is the mean top-label
    # confidence; a "top-label accuracy" card repeated the accuracy card beside it)
    assert "mean of the top-label confidence" in html and "share of correct top labels" in html


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_frame_form_of_two_columns_reads_top_label_like_the_arrays(two_columns, backend):
    s, P, y = two_columns
    frame = pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "y": y})
    if backend == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        frame = con.from_df(frame)
    got = vc.audit(frame, score=["p0", "p1"], label="y")
    want = vc.audit(P, y)
    assert got.top_label and got.to_dict()["reading"] == "top-label"
    assert got.accuracy == pytest.approx(want.accuracy, abs=1e-12)
    assert got.ece == pytest.approx(want.ece, abs=1e-12)
    # a threshold the top-label accuracy never reads is refused on the lazy engine too (audit_from_stats)
    with pytest.raises(vc.VeracityError, match=r"^threshold=0.7 has no effect on \(N, K\) scores read "):
        vc.audit(frame, score=["p0", "p1"], label="y", threshold=0.7)


def test_calibration_slope_of_class_columns_names_the_top_label_model(two_columns):
    s, P, y = two_columns
    assert "logit P(correct) = a + b * logit(confidence)" in str(vc.calibration_slope(P, y))
    assert vc.calibration_slope(P, y).to_dict()["top_label"] is True
    assert "logit P(y=1) = a + b * logit(score)" in str(vc.calibration_slope(s, y))


def test_before_after_ledger_of_two_columns_says_it_reads_the_top_label(two_columns):
    s, P, y = two_columns
    ts = vc.TemperatureScaling().fit(P[:250], y[:250])
    text = str(vc.compare(P[250:], y[250:], ts))
    assert "(multiclass: ECE, Brier and AUC read the top-label confidence" in text
    assert "top-label accuracy" in text and "accuracy@0.5" not in text


def test_segments_of_two_columns_asks_for_the_positive_class_column(two_columns):
    """vc.segments read (N, 2) scores' top-label confidence (conf 0.75 for a rate near 0.5) as if it
    were the positive class's probability."""
    _, P, y = two_columns
    with pytest.raises(vc.VeracityError, match="audits binary scores .* pass the positive class's column"):
        vc.segments(P, y, features={"f": np.arange(P.shape[0]) % 3})


@pytest.mark.parametrize("backend", ["arrays", "pandas", "duckdb"])
def test_percentages_get_the_same_hint_on_every_route(backend):
    import duckdb

    p, y = [20.0, 80.0, 55.0], [0, 1, 1]
    frame = pd.DataFrame({"p": p, "y": y})
    call = {"arrays": lambda: vc.ece(p, y), "pandas": lambda: vc.ece(frame, score="p", label="y"),
            "duckdb": lambda: vc.ece(duckdb.connect().from_df(frame), score="p", label="y")}[backend]
    with pytest.raises(vc.VeracityError, match=r"If these are logits, pass score_type='logit'; if they are "
                                               r"percentages, divide them by 100$"):
        call()
