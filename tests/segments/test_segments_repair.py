"""vc.SegmentCalibration: segment corrections shrunk by empirical Bayes (issue 24).

The held-out check runs on the bundled demo data (vc.load_demo: calib and test roles) with one
planted miscalibrated segment: the model over-scores mobile users in March and April.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc

FEATURES = ["segment", "month"]


def _demo(shift=4.0):
    d = vc.load_demo()
    s = d["score"]
    logit = np.log(s / (1 - s))
    planted = (d["segment"] == "mobile") & np.isin(d["month"], ["2026-03", "2026-04"])
    score = 1 / (1 + np.exp(-(logit + np.where(planted, shift, 0.0))))
    return d, score, planted


def _feats(d, rows):
    return {f: d[f][rows] for f in FEATURES}


def test_held_out_mce_halved_and_log_loss_within_noise():
    d, score, _ = _demo()
    calib, test = d["role"] == "calib", d["role"] == "test"
    y = d["label"][test]
    platt = vc.PlattScaling().fit(score[calib], d["label"][calib], role="calib")
    seg = vc.SegmentCalibration(base="platt", features=FEATURES).fit(
        score[calib], d["label"][calib], features=_feats(d, calib), role="calib")
    p_global = platt.transform(score[test])
    p_seg = seg.transform(score[test], features=_feats(d, test))
    before = vc.segments(p_global, y, features=_feats(d, test))
    after = vc.segments(p_seg, y, features=_feats(d, test))
    assert before.discoveries and not after.discoveries
    assert after.mce <= 0.5 * before.mce
    # global log loss, Brier and ECE: not worse beyond noise (paired differences per row, 2 standard errors)
    for loss in (lambda p: -(y * np.log(p) + (1 - y) * np.log(1 - p)), lambda p: (p - y) ** 2):
        diff = loss(p_seg) - loss(p_global)
        assert diff.mean() <= 2 * diff.std(ddof=1) / np.sqrt(diff.size)
    assert vc.ece(p_seg, y) <= vc.ece(p_global, y) + 0.01
    # the planted segment moved toward its rate, and the others barely moved
    planted_key = "segment=mobile & month=2026-03"
    assert abs(after.segment(planted_key).gap) < abs(before.segment(planted_key).gap) / 2
    # side by side with MCGrad's own repair (mcgrad.methods.MCGrad fit on the same calib rows, its test-row
    # predictions recorded by scripts/record_mcgrad.py): held-out MCE 0.0306 and 4 discoveries left there
    from pathlib import Path

    import pandas as pd

    mc = pd.read_csv(Path(__file__).parent / "data" / "mcgrad_repair.csv")
    assert (mc["id"].to_numpy() == d["id"][test]).all()
    theirs = vc.segments(mc["mcgrad"].to_numpy(), y, features=_feats(d, test))
    assert after.mce <= theirs.mce
    assert vc.nll(p_seg, y) <= vc.nll(mc["mcgrad"].to_numpy(), y)


def test_partial_pooling_small_segments_move_little():
    # 60 levels whose true logit shifts are spread N(0, 0.15^2), plus one 40-row level shifted by +1:
    # empirical Bayes keeps most of a 20,000-row level's shift and little of the 40-row level's
    rng = np.random.default_rng(0)
    sizes = [20_000] + [1_000] * 59 + [40]
    g = np.repeat([f"L{i:02d}" for i in range(61)], sizes)
    true = np.r_[0.4, rng.normal(0, 0.15, 59), 1.0]
    shift = np.repeat(true, sizes)
    p = rng.uniform(0.1, 0.9, g.size)
    y = (rng.uniform(size=g.size) < 1 / (1 + np.exp(-(np.log(p / (1 - p)) + shift)))).astype(int)
    cal = vc.SegmentCalibration(base="temperature", features=["g"], depth=1, min_count=10, max_levels=70).fit(
        p, y, features={"g": g})
    corr = dict(zip(cal.corrections_[0]["keys"], cal.corrections_[0]["delta"]))
    levels = cal.specs_[0].labels
    big, tiny = corr[levels.index("L00")], corr.get(levels.index("L60"), 0.0)
    t = g == "L60"
    raw_tiny = np.log(y[t].mean() / (1 - y[t].mean())) - np.log(p[t] / (1 - p[t])).mean()
    assert 0.0 < cal.tau2_[0] < 0.1
    assert big == pytest.approx(0.4, abs=0.1)  # the 20,000-row level keeps its shift (relative to the global fit)
    assert abs(tiny) < 0.5 * abs(raw_tiny)  # the 40-row level is pulled most of the way to 0


def test_order_within_a_segment_is_preserved_and_artifact_round_trips(tmp_path):
    d, score, _ = _demo()
    calib = d["role"] == "calib"
    cal = vc.SegmentCalibration(base="isotonic", features=FEATURES).fit(
        score[calib], d["label"][calib], features=_feats(d, calib))
    p = cal.transform(score, features=_feats(d, slice(None)))
    for seg in ("mobile", "web"):
        for month in ("2026-03", "2026-05"):
            m = (d["segment"] == seg) & (d["month"] == month)
            order = np.argsort(score[m], kind="stable")
            assert (np.diff(p[m][order]) >= -1e-15).all()
    path = cal.save(tmp_path / "cal.json")
    again = vc.load(path)
    assert isinstance(again, vc.SegmentCalibration)
    np.testing.assert_array_equal(again.transform(score, features=_feats(d, slice(None))), p)
    doc = json.loads(path.read_text())
    assert doc["kind"] == "segment" and doc["state"]["base_"]["kind"] == "isotonic"


def test_unseen_levels_get_no_correction_and_frame_form():
    import pandas as pd

    d, score, _ = _demo()
    df = pd.DataFrame({"p": score, "y": d["label"], "segment": d["segment"], "month": d["month"]})
    cal = vc.SegmentCalibration(features=FEATURES).fit(df, score="p", label="y")
    plain = cal.base_.transform(score[:5])
    new = {"segment": np.array(["kiosk"] * 5), "month": np.array(["2030-01"] * 5)}
    np.testing.assert_allclose(cal.transform(score[:5], features=new), plain, rtol=1e-12)
    np.testing.assert_array_equal(cal.transform(df, score="p"), cal.transform(score, features={
        "segment": d["segment"], "month": d["month"]}))


def test_errors_and_no_features():
    d, score, _ = _demo()
    with pytest.raises(vc.VeracityError, match=r"base must name a binary calibrator"):
        vc.SegmentCalibration(base="matrix", features=FEATURES).fit(score, d["label"], features=_feats(d, slice(None)))
    with pytest.raises(vc.VeracityError, match=r"features= lacks 'month'"):
        vc.SegmentCalibration(features=FEATURES).fit(score, d["label"], features={"segment": d["segment"]})
    with pytest.raises(vc.VeracityError, match=r"refusing to fit SegmentCalibration on rows whose role is 'test'"):
        vc.SegmentCalibration(features=FEATURES).fit(score, d["label"], features=_feats(d, slice(None)), role="test")
    cal = vc.SegmentCalibration(features=FEATURES).fit(score, d["label"], features=_feats(d, slice(None)))
    with pytest.raises(vc.VeracityError, match=r"pass features="):
        cal.transform(score)
    # without features it is the global calibrator alone
    alone = vc.SegmentCalibration(base="platt").fit(score, d["label"])
    np.testing.assert_allclose(alone.transform(score), vc.PlattScaling().fit(score, d["label"]).transform(score))
