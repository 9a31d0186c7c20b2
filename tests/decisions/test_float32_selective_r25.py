"""Round 25: abstention and redraws compare float32 scores as numpy compares them.

``selective_threshold`` and ``risk_coverage`` compared float32 confidences, upcast to float64, with the
candidates in float64: a confidence float32(0.7) = 0.699999988 was not answered at the printed 0.7 while
numpy's own ``conf32 >= 0.7`` (NEP 50: a Python float is compared in the array's float32) answers it, and
``max(p, 1 - p)`` of float32 probabilities was kept in float64 (``np.maximum(p32, 1 - p32)`` is float32).
Round 24 fixed the same in ``threshold_table``. The oracle everywhere is numpy's float32 comparison of the
user's array against the returned threshold (rows, errors, weight), or the definition (Clopper–Pearson
by scipy, the distinct float32 values of the candidates); never the code under test.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import special, stats

import veracity as vc
from veracity.decisions._selective import DEFAULT_CANDIDATES

F32_07 = float(np.float32(0.7))  # 0.699999988…: below the float64 0.7


def _answered(conf32: np.ndarray, wrong: np.ndarray, t: float,
              w: np.ndarray | None = None) -> tuple[float, float]:
    """numpy's own answer: rows (weight) with ``conf32 >= t`` for the Python float t, and the errors."""
    hit = conf32 >= float(t)  # NEP 50: compared in float32
    ww = np.ones(conf32.shape[0]) if w is None else w
    return float(ww[hit].sum()), float(ww[hit & wrong].sum())


def _planted(values: list[float], counts: list[int], right: list[bool], seed: int = 0
             ) -> tuple[np.ndarray, np.ndarray]:
    """float32 confidences exactly at ``float32(values[i])`` (counts[i] rows, all right or all wrong)."""
    conf = np.repeat(np.array(values, dtype=np.float32), counts)
    ok = np.repeat(np.array(right, dtype=int), counts)
    order = np.random.default_rng(seed).permutation(conf.shape[0])
    return conf[order], ok[order]


# -- selective_threshold: the returned threshold answers what numpy answers -------------------------
def test_confidence_at_float32_of_threshold_is_answered():
    conf, ok = _planted([0.6, 0.7, 0.9], [150, 300, 300], [False, True, True])
    assert F32_07 < 0.7 and int((conf >= 0.7).sum()) == 600  # the user's reading
    sel = vc.selective_threshold(conf, ok, target_risk=0.1, candidates=[0.6, 0.7, 0.8], reading="confidence")
    assert sel.threshold == 0.7
    assert (sel.accepted, sel.errors) == _answered(conf, ok == 0, sel.threshold) == (600.0, 0.0)
    assert sel.coverage == 600 / 750
    assert sel.score_dtype == "float32" and json.loads(json.dumps(sel.to_dict()))["score_dtype"] == "float32"
    assert "compared in float32" in str(sel)


def _top_label_binary() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    grid = DEFAULT_CANDIDATES[DEFAULT_CANDIDATES >= 0.5]
    c = rng.choice(grid, 2000).astype(np.float32)  # confidences at float32 of grid values
    p_grid = np.where(rng.random(2000) < 0.5, c, np.float32(1) - c)
    p_any = rng.random(2000).astype(np.float32)  # 1 - p rounds in float32 for many p < 0.5
    p = np.concatenate([p_grid, p_any]).astype(np.float32)
    y = (rng.random(4000) < p).astype(int)
    conf32 = np.maximum(p, 1 - p)  # float32 arithmetic: the user's confidence
    wrong = (p >= 0.5) != (y == 1)
    return p, y, conf32, wrong


def _top_label_multiclass() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    grid = DEFAULT_CANDIDATES[DEFAULT_CANDIDATES >= 0.5]
    c = rng.choice(grid, 3000)
    k = rng.integers(0, 3, 3000)
    P = np.repeat(((1 - c) / 2)[:, None], 3, axis=1)
    P[np.arange(3000), k] = c
    P32 = P.astype(np.float32)
    y = np.where(rng.random(3000) < c, k, (k + 1) % 3)
    return P32, y, P32.max(axis=1), P32.argmax(axis=1) != y


def _top_label_logits() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    grid = DEFAULT_CANDIDATES[(DEFAULT_CANDIDATES >= 0.5) & (DEFAULT_CANDIDATES < 1)]
    c = rng.choice(grid, 4000)
    z = (np.where(rng.random(4000) < 0.5, 1, -1) * special.logit(c)).astype(np.float32)
    y = (rng.random(4000) < special.expit(z.astype(np.float64))).astype(int)
    conf32 = special.expit(np.abs(z.astype(np.float64))).astype(np.float32)  # expit(|z|), correctly rounded
    return z, y, conf32, (z >= 0) != (y == 1)


@pytest.mark.parametrize("make, score_type", [(_top_label_binary, "probability"),
                                              (_top_label_multiclass, "probability"),
                                              (_top_label_logits, "logit")],
                         ids=["binary", "multiclass", "binary-logits"])
@pytest.mark.parametrize("target", [0.05, 0.1, 0.2])
def test_top_label_threshold_answers_what_numpy_answers(make, score_type, target):
    scores, y, conf32, wrong = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a target nothing certifies: inf, answered by nothing
        sel = vc.selective_threshold(scores, y, target_risk=target, score_type=score_type)
    assert (sel.accepted, sel.errors) == _answered(conf32, wrong, sel.threshold)
    assert sel.score_dtype == "float32"


def test_some_planted_confidence_lies_at_a_rounded_down_threshold():
    # the parametrized cases above test something: rows sit exactly at float32(t) < t for grid values
    _, _, conf32, _ = _top_label_binary()
    at = [t for t in DEFAULT_CANDIDATES if float(np.float32(t)) < t and (conf32 == np.float32(t)).any()]
    assert len(at) > 20


def test_threshold_just_below_one_compares_in_float32():
    # 1 - 1e-6 rounds down in float32 (0.99999899); the rows there are answered at the printed 0.999999,
    # rows at the next float32 below it are not
    below = float(np.nextafter(np.float32(1 - 1e-6), np.float32(0)))
    assert below > float(np.float32(1 - 10 ** -5.9))  # between two grid values
    conf, ok = _planted([1 - 1e-6, below], [2000, 2000], [True, False])
    sel = vc.selective_threshold(conf, ok, target_risk=0.01, reading="confidence")
    assert sel.threshold == 1 - 1e-6
    assert (sel.accepted, sel.errors) == _answered(conf, ok == 0, sel.threshold) == (2000.0, 0.0)
    text = str(sel).split(">= ")[1].split(",")[0]
    assert _answered(conf, ok == 0, float(text)) == (2000.0, 0.0)  # the printed threshold, copied back


def test_logit_confidences_with_candidates_not_representable():
    # reading="confidence" on float32 logits: 1.3 rounds down in float32, 0.1 up
    assert float(np.float32(1.3)) < 1.3 < float(np.float32(0.1)) + 1.3
    conf, ok = _planted([0.5, 1.3, 2.0], [300, 300, 300], [False, True, True])
    sel = vc.selective_threshold(conf, ok, target_risk=0.1, candidates=[0.1, 0.5, 1.3, 2.0],
                                 reading="confidence", score_type="logit")
    assert sel.threshold == 1.3
    assert (sel.accepted, sel.errors) == _answered(conf, ok == 0, 1.3) == (600.0, 0.0)


def test_weighted_counts_are_numpys_weight_sums():
    conf, ok = _planted([0.6, 0.7, 0.9], [150, 300, 300], [False, True, True])
    w = np.random.default_rng(4).integers(1, 4, conf.shape[0]).astype(float)  # sums exact in float64
    sel = vc.selective_threshold(conf, ok, target_risk=0.1, candidates=[0.6, 0.7, 0.8], reading="confidence",
                                 sample_weight=w)
    assert sel.threshold == 0.7
    assert (sel.accepted, sel.errors) == _answered(conf, ok == 0, sel.threshold, w)
    assert sel.weight == w.sum()


@pytest.mark.parametrize("frame", ["pandas", "polars"])
def test_frame_with_float32_column(frame):
    mod = pytest.importorskip(frame)
    conf, ok = _planted([0.6, 0.7, 0.9], [150, 300, 300], [False, True, True])
    df = mod.DataFrame({"c": conf, "ok": ok})
    sel = vc.selective_threshold(df, score="c", label="ok", target_risk=0.1, candidates=[0.6, 0.7, 0.8],
                                 reading="confidence")
    assert (sel.accepted, sel.errors) == _answered(conf, ok == 0, sel.threshold)
    assert sel.score_dtype == "float32"


# -- candidates that are one float32 value are one test ---------------------------------------------
def test_candidates_equal_in_float32_are_tested_once():
    conf, ok = _planted([0.6, 0.7, 0.9], [150, 300, 300], [False, True, True])
    cands = [0.6, 0.7, 0.70000001, 0.8]
    distinct = np.unique(np.array(cands).astype(np.float32)).size  # the definition: 3 float32 values
    assert distinct == 3
    d = 0.1
    sel = vc.selective_threshold(conf, ok, target_risk=0.1, delta=d, candidates=cands, reading="confidence")
    assert sel.candidates == distinct and sel.threshold == 0.7  # the lowest of the two equal ones
    e, n = sel.errors, sel.accepted
    # one-sided Clopper–Pearson at 1 - delta/J with J the distinct tests (upper end: Beta(e + 1, n - e))
    assert sel.risk_upper_bound == pytest.approx(stats.beta.ppf(1 - d / distinct, e + 1, n - e), rel=1e-9)
    sel64 = vc.selective_threshold(conf.astype(np.float64), ok, target_risk=0.1, delta=d, candidates=cands,
                                   reading="confidence")
    assert sel64.candidates == 4 and sel64.score_dtype == "float64"  # float64: four distinct tests, as before


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_default_grid_counts_its_distinct_values_in_the_scores_precision(dtype):
    conf, ok = _planted([0.6, 0.75, 0.9], [150, 300, 300], [False, True, True])
    sel = vc.selective_threshold(conf.astype(dtype), ok, target_risk=0.1, reading="confidence")
    # 141 distinct values in float32, fewer in float16
    assert sel.candidates == np.unique(DEFAULT_CANDIDATES.astype(dtype)).size
    assert (sel.accepted, sel.errors) == _answered(conf.astype(dtype), ok == 0, sel.threshold)
    assert sel.score_dtype == np.dtype(dtype).name


def test_float64_scores_keep_float64_and_say_nothing():
    conf, ok = _planted([0.6, 0.7, 0.9], [150, 300, 300], [False, True, True])
    c64 = conf.astype(np.float64)  # float32(0.7) as float64: below 0.7, not answered there
    sel = vc.selective_threshold(c64, ok, target_risk=0.1, candidates=[0.6, 0.7, 0.8], reading="confidence")
    assert (sel.accepted, sel.errors) == _answered(c64, ok == 0, sel.threshold) == (300.0, 0.0)
    assert sel.score_dtype == "float64" and "compared in" not in str(sel)
    rc = vc.risk_coverage(c64, ok, reading="confidence")
    assert rc.score_dtype == "float64" and "compared in" not in str(rc)


# -- risk_coverage: every curve point is numpy's float32 count ---------------------------------------
@pytest.mark.parametrize("make, score_type", [(_top_label_binary, "probability"),
                                              (_top_label_multiclass, "probability"),
                                              (_top_label_logits, "logit")],
                         ids=["binary", "multiclass", "binary-logits"])
def test_risk_coverage_points_are_numpys_counts(make, score_type):
    scores, y, conf32, wrong = make()
    rc = vc.risk_coverage(scores, y, score_type=score_type)
    counts = np.array([_answered(conf32, wrong, t) for t in rc.thresholds])
    assert counts[:, 0].tolist() == rc.accepted.tolist() and counts[:, 1].tolist() == rc.errors.tolist()
    assert sorted(rc.thresholds.tolist()) == np.unique(conf32).astype(np.float64).tolist()  # one per value
    assert rc.score_dtype == "float32" and rc.to_dict()["score_dtype"] == "float32"


def test_risk_coverage_printed_cells_read_back_in_float32():
    scores, y, conf32, wrong = _top_label_binary()
    rc = vc.risk_coverage(scores, y)
    text = str(rc)
    assert "compared in float32" in text.splitlines()[-1]
    for line in text.splitlines()[1:-1]:
        cell, _, _, answered, errors = line.split()
        assert _answered(conf32, wrong, float(cell)) == (float(answered), float(errors))


# -- simulate_redraws -----------------------------------------------------------------------------------
def _pool32() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    s = np.round(rng.random(6000), 3).astype(np.float32)  # many ties at float32 values such as 0.7
    return s, (rng.random(6000) < s).astype(int)


def test_redraws_report_the_float32_comparison():
    s, y = _pool32()
    r = vc.simulate_redraws(s, y, n_calib=600, n_resamples=100, random_state=0)
    assert r.score_dtype == "float32" and r.to_dict()["score_dtype"] == "float32"
    assert "compared in float32" in str(r)
    w = np.random.default_rng(6).integers(1, 4, s.shape[0]).astype(float)
    rw = vc.simulate_redraws(s, y, n_calib=600, n_resamples=100, random_state=0, sample_weight=w)
    assert rw.weighted and rw.score_dtype == "float32"
    r64 = vc.simulate_redraws(s.astype(np.float64), y, n_calib=600, n_resamples=100, random_state=0)
    assert r64.score_dtype == "float64" and "compared in" not in str(r64)
    assert r64.deployed_recall.tolist() == r.deployed_recall.tolist()  # the same float32 values, same counts


def test_redraws_recalls_are_numpys_float32_counts():
    # guard (also held before round 25): every threshold is a pool score, and calib hits plus the hits
    # outside calib are the pool's positives with pos32 >= t, numpy's float32 comparison
    s, y = _pool32()
    r = vc.simulate_redraws(s, y, n_calib=600, n_resamples=100, random_state=0)
    pos32 = s[y == 1]
    assert set(r.thresholds.tolist()) <= set(pos32.astype(np.float64).tolist())
    m = r.calib_positives
    hits = np.rint(r.calib_recall * m + r.deployed_recall * (pos32.size - m))
    assert hits.tolist() == [float((pos32 >= float(t)).sum()) for t in r.thresholds]
