"""A demanding user's hunt through the calibrators (session 42).

* Temperature scaling promises that s/tau keeps every sign (the ledger prints "0.5 decisions identical:
  held"), but ``transform`` rounded a probability within a few ulps of 1/2 onto exactly 0.5:
  p = 0.49999999999999994 (a negative decision at p >= 0.5) came back 0.5 (a positive one) at tau = 1.56,
  while the ledger, which reads the calibrated logits, said nothing changed; 0.5000000000000001 also came
  back 0.5, a tie that ``CalibratedClassifier.predict`` (an argmax) reads as the other class.
* Probabilities of exactly 0 or 1 that their labels contradict (trees, k-NN: 11 of 2,000 rows) were fit
  silently by temperature, Platt and beta calibration through the clip at 2.2e-16 (logit +-36.04): no map
  gives such a row a finite loss, so the clip set the map (tau 6.28 here, 3.98 at scikit-learn's 1e-12,
  1.25 without those rows; p = 0.1, whose rate is 0.14, read 0.41). Now warned where the map fit without
  them moves the other rows' probabilities by 0.02 or more on average, with the maps that read them
  (isotonic, histogram, Platt on the probability as a ranking score).
* IsotonicCalibration cached its lookup by the identity of ``knots_x_`` alone: ``knots_y_`` edited after a
  transform (clipped away from 0 and 1) kept the old outputs while ``to_dict`` saved the new ones.
* ``print(PlattScaling)`` of a fit on separated rows (no maximum-likelihood map; Newton stopped at a = 2083)
  read as a converged map; it now says NOT converged, as the temperature printout says where tau stopped.
* ``veracity apply`` of a map fit with ``--pos-label no`` wrote the probability of 'no' as "column
  calibrated" and said nothing of which label it is; its line and its JSON now name it.
* A binary calibrator refit on (N, K) scores kept its binary fit's attributes (PlattScaling's ``a_``,
  ``preserves_order_``) beside the new one-vs-rest maps.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityWarning

NEAR_HALF = np.array([0.4999999999999999, 0.49999999999999994, 0.5, 0.5000000000000001, 0.5000000000000002])


def _demo_temperature() -> vc.TemperatureScaling:
    d = vc.load_demo()
    cal = d["role"] == "calib"
    return vc.TemperatureScaling().fit(d["score"][cal], d["label"][cal])


def test_temperature_keeps_the_side_of_one_half_to_the_last_bit():
    ts = _demo_temperature()
    assert ts.temperature_ > 1.5  # a contraction towards 1/2: the rounding this pins
    p = ts.transform(NEAR_HALF)
    np.testing.assert_array_equal(p < 0.5, NEAR_HALF < 0.5)
    np.testing.assert_array_equal(p > 0.5, NEAR_HALF > 0.5)
    assert p[2] == 0.5
    # within one ulp of sigma(logit(p)/tau)
    assert np.all(np.abs(p - 0.5) <= 2.3e-16)


def test_temperature_decisions_match_the_ledger_certificate():
    ts = _demo_temperature()
    rng = np.random.default_rng(0)
    s = np.r_[np.repeat(NEAR_HALF, 20), rng.uniform(size=200)]
    y = np.r_[np.zeros(100), (rng.uniform(size=200) < 0.5)].astype(float)
    ledger = vc.compare(s, y, ts)
    assert "0.5 decisions identical: held" in str(ledger)
    np.testing.assert_array_equal(ts.transform(s) >= 0.5, s >= 0.5)


def test_temperature_tiny_logits_keep_their_sign():
    rng = np.random.default_rng(1)
    z = rng.normal(size=400) * 4.0
    y = (rng.uniform(size=400) < 1.0 / (1.0 + np.exp(-z / 4.0))).astype(float)  # overconfident: tau ~ 4
    ts = vc.TemperatureScaling(score_type="logit").fit(z, y)
    assert ts.temperature_ > 2.0  # 5e-324 / tau underflows to 0
    tiny = np.array([-5e-324, -1e-17, -0.0, 0.0, 1e-17, 5e-324])
    p = ts.transform(tiny)
    np.testing.assert_array_equal(np.sign(p - 0.5), np.sign(tiny))


# -- probabilities of exactly 0 or 1 that their labels contradict -------------------------------------------
def _tree_like(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A tree's or k-NN's probabilities: every tenth in [0, 1], the true rate 0.05 + 0.9 p, so about 5 % of the
    rows at exactly 0 or 1 carry the other label."""
    rng = np.random.default_rng(seed)
    p = rng.choice(np.linspace(0.0, 1.0, 11), n)
    y = (rng.uniform(size=n) < 0.05 + 0.9 * p).astype(float)
    return p, y


@pytest.mark.parametrize("make", [vc.TemperatureScaling, vc.PlattScaling, vc.BetaCalibration])
def test_exact_zero_and_one_contradicted_are_warned(make):
    p, y = _tree_like()
    bad = int(np.sum(((p == 0.0) & (y == 1.0)) | ((p == 1.0) & (y == 0.0))))
    assert bad == 11
    with pytest.warns(VeracityWarning, match=rf"{bad} of 2,000 fit rows have a probability of exactly 0 or 1 "
                                                r"that their label contradicts.*sets their pull, not the data; "
                                                r"the map fit without them gives the other rows probabilities "
                                                r"0\.1[02]\d apart on average \(up to 0\.2\d\d\).*"
                                                r"IsotonicCalibration or HistogramBinning, or PlattScaling "
                                                r"with score_type='score'"):
        cal = make().fit(p, y)
    # what the warning is about: p = 0.1 (rate 0.14) read near 0.41-0.44 by every logit-scale map
    assert cal.transform(np.array([0.1]))[0] > 0.4


def test_the_clip_sets_the_temperature_and_only_contradicted_rows_are_warned():
    # the oracle of the warning's claim: the same rows clipped at scikit-learn's 1e-12 fit another tau
    p, y = _tree_like()
    with pytest.warns(VeracityWarning, match="exactly 0 or 1"):
        here = vc.TemperatureScaling().fit(p, y).temperature_
    there = vc.TemperatureScaling().fit(np.clip(p, 1e-12, 1.0 - 1e-12), y).temperature_
    keep = (p > 0.0) & (p < 1.0)
    without = vc.TemperatureScaling().fit(p[keep], y[keep]).temperature_
    assert here == pytest.approx(6.28, abs=0.01) and there == pytest.approx(3.98, abs=0.01)
    assert without == pytest.approx(1.25, abs=0.01)
    # certain rows that agree with their labels, one contradicted row among 3,000 scores rounded to 0.01 (it
    # moves the other rows' probabilities by 0.007 on average), and the maps that read 0 and 1 as they are:
    # no warning
    rng = np.random.default_rng(9)
    z = np.round(rng.normal(0.0, 1.8, 3000), 1)
    rounded = np.round(1.0 / (1.0 + np.exp(-z)), 2)
    labels = (rng.random(3000) < 1.0 / (1.0 + np.exp(-z / 1.4))).astype(float)
    assert np.sum((rounded == 1.0) & (labels == 0.0)) + np.sum((rounded == 0.0) & (labels == 1.0)) == 1
    agree = np.where(p == 0.0, 0.0, np.where(p == 1.0, 1.0, y))
    with warnings.catch_warnings():
        warnings.simplefilter("error", VeracityWarning)
        vc.TemperatureScaling().fit(p, agree)
        vc.TemperatureScaling().fit(rounded, labels)
        vc.PlattScaling().fit(rounded, labels)
        vc.IsotonicCalibration().fit(p, y)
        vc.HistogramBinning().fit(p, y)
        vc.PlattScaling(score_type="score").fit(p, y)
        vc.TemperatureScaling(score_type="logit").fit(np.r_[-3.0, 0.0, 1.0, 2.0], [0, 1, 0, 1])


def test_exact_zero_and_one_warning_on_the_command_line(tmp_path):
    import subprocess
    import sys

    p, y = _tree_like()
    path = tmp_path / "tree.csv"
    path.write_text("score,label\n" + "".join(f"{float(a)!r},{int(b)}\n" for a, b in zip(p, y)))
    out = subprocess.run([sys.executable, "-m", "veracity", "fit", str(path), "--method", "temperature",
                          "--out", str(tmp_path / "c.json"), "-q"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "11 of 2,000 fit rows have a probability of exactly 0 or 1" in out.stderr
    assert "--score-type score" in out.stderr and "score_type=" not in out.stderr


# -- isotonic's cached lookup and a refit on (N, K) scores ---------------------------------------------------
def test_isotonic_reads_knots_edited_after_a_transform():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(float)
    q = np.array([0.0, 0.5, 1.0])
    for options in ({}, {"interpolation": "linear"}, {"ties": "strict"}):
        iso = vc.IsotonicCalibration(**options).fit(p, y)
        iso.transform(q)
        iso.knots_y_ = np.clip(iso.knots_y_, 0.01, 0.99)  # a new array
        np.testing.assert_array_equal(iso.transform(q), vc.load(iso.to_dict()).transform(q))
        assert iso.transform(q)[0] >= 0.01 and iso.transform(q)[-1] <= 0.99
        iso.knots_y_[iso.knots_y_ > 0.95] = 0.95         # the same array, edited in place
        np.testing.assert_array_equal(iso.transform(q), vc.load(iso.to_dict()).transform(q))
        assert iso.transform(q)[-1] <= 0.95


def test_a_refit_on_class_columns_leaves_no_binary_fit_behind():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, 300)
    y = (rng.uniform(size=300) < p).astype(float)
    z = rng.normal(size=(300, 3)) * 2
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    k = np.array([rng.choice(3, p=r) for r in P])
    for make in (vc.PlattScaling, vc.BetaCalibration, vc.IsotonicCalibration, vc.HistogramBinning):
        fresh, refit = make().fit(P, k), make().fit(p, y).fit(P, k)
        assert set(vars(refit)) == set(vars(fresh)), make.__name__
    with pytest.raises(AttributeError):
        vc.PlattScaling().fit(p, y).fit(P, k).a_


def test_platt_printout_says_a_separated_fit_did_not_converge():
    rng = np.random.default_rng(1)
    s = np.r_[rng.uniform(0.05, 0.5, 50), rng.uniform(0.5, 0.95, 50)]
    y = np.r_[np.zeros(50), np.ones(50)]
    with pytest.warns(VeracityWarning, match="separates the calibration labels"):
        cal = vc.PlattScaling().fit(s, y)
    assert cal.converged_ is False
    for shown in (str(cal), str(vc.load(cal.to_dict()))):
        assert shown.startswith("Platt scaling: p = sigmoid(2082.6163 * x + 14.6747)  (NOT converged after ")
        assert "no maximum-likelihood map" in shown
    assert "NOT converged" not in str(vc.PlattScaling(smoothing=True).fit(s, y))


def test_apply_names_the_label_whose_probability_it_writes(tmp_path):
    import json
    import subprocess
    import sys

    rng = np.random.default_rng(3)
    p = rng.uniform(0.01, 0.99, 300)
    lab = np.where(rng.uniform(size=300) < p, "yes", "no")
    path = tmp_path / "d.csv"
    path.write_text("p,lab\n" + "".join(f"{float(a)!r},{b}\n" for a, b in zip(p, lab)))
    run = [sys.executable, "-m", "veracity"]
    fit = subprocess.run(run + ["fit", str(path), "--method", "platt", "--score", "p", "--label", "lab",
                                "--pos-label", "no", "--on-reversed", "allow", "--out", str(tmp_path / "c.json"),
                                "-q"], capture_output=True, text=True)
    assert fit.returncode == 0, fit.stderr
    out = subprocess.run(run + ["apply", str(tmp_path / "c.json"), str(path), "-o", str(tmp_path / "o.csv")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "(column calibrated: the probability of label 'no')" in out.stderr
    js = subprocess.run(run + ["apply", str(tmp_path / "c.json"), str(path), "-o", str(tmp_path / "o.csv"),
                               "--json", "-"], capture_output=True, text=True)
    assert json.loads(js.stdout)["pos_label"] == "no"
