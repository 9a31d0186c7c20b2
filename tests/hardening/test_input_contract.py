"""One input contract (issue 13): labels exactly 0/1; weights finite, non-negative, with a
positive total, and only their ratios matter — every result is invariant to multiplying all
weights by any positive constant, from 1e-300 to 1e300."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc

RNG = np.random.default_rng(7)
N = 400
P = RNG.uniform(0.01, 0.99, N)
Y = (RNG.uniform(size=N) < P).astype(float)
W = RNG.uniform(0.05, 3.0, N)

ALMOST_ONE = 0.9999999999999999  # == 1 - 2**-53: sums with 1.0 round to an integer


# -- labels ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [vc.ece, vc.brier, vc.auc, vc.reliability, vc.audit,
                                lambda p, y: vc.threshold_table(p, y, [0.5]),
                                vc.bootstrap_intervals, vc.PlattScaling().fit])
def test_label_just_below_one_is_refused(fn):
    y = Y.copy()
    y[3] = ALMOST_ONE
    with pytest.raises(vc.VeracityError, match="labels must be binary 0/1"):
        fn(P, y)


def test_old_fast_path_was_fooled():
    y = np.array([ALMOST_ONE, 1.0, 0.0])
    assert y.sum() == np.count_nonzero(y)  # the defect: a sum rounds to the nonzero count
    with pytest.raises(vc.VeracityError, match=r"labels must be binary 0/1 \(or bool\); 1 of 3 are not \(values such as 0.9999999999999999\)"):
        vc.ece([0.2, 0.5, 0.9], y)


def test_cli_label_just_below_one(tmp_path, cli, refused):
    f = tmp_path / "x.csv"
    f.write_text("score,label\n0.2,0\n0.7,1\n0.9,0.9999999999999999\n0.4,0\n")
    for cmd in (["audit"], ["threshold", "--cost-fp", "1", "--cost-fn", "9"]):
        # the value as it is, never rounded to a 1 that would look like a valid label
        refused(cli([cmd[0], f, *cmd[1:]]), r"labels\)? must be binary 0/1.*0\.9999999999999999")


# -- weights -----------------------------------------------------------------------------------
@pytest.mark.parametrize("w, match", [
    ([1.0, np.nan, 1.0], "NaN"),
    ([1.0, np.inf, 1.0], "infinite"),
    ([1.0, -1.0, 1.0], "non-negative"),
    ([0.0, 0.0, 0.0], "sums to 0"),
    (["1", "x", "2"], "must be numeric"),
])
def test_weight_contract(w, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.ece([0.2, 0.5, 0.9], [0, 1, 1], sample_weight=np.asarray(w, dtype=object))


def _summary(w):
    """Scale-free outputs of the main functions for weights ``w``."""
    a = vc.audit(P, Y, sample_weight=w, bins=10)
    rel = vc.reliability(P, Y, sample_weight=w, bins=10, min_count=20)
    t = vc.threshold_table(P, Y, sample_weight=w, thresholds=[0.3, 0.5, 0.7])
    b = vc.bootstrap_intervals(P, Y, sample_weight=w, n_resamples=50, random_state=1)
    out = {
        "auc": vc.auc(P, Y, sample_weight=w),
        "ece": vc.ece(P, Y, sample_weight=w),
        "brier": vc.brier(P, Y, sample_weight=w),
        "nll": vc.nll(P, Y, sample_weight=w),
        "accuracy": vc.accuracy(P, Y, sample_weight=w),
        "audit": [a.to_dict()["metrics"][k] for k in ("ece", "brier", "nll", "auc", "accuracy")],
        "acc": [r.acc for r in rel.rows], "conf": [r.conf for r in rel.rows],
        "ci": [(r.ci_low, r.ci_high) for r in rel.rows],
        "sufficient": [r.sufficient for r in rel.rows],
        "recall": [r.recall for r in t.rows], "precision": [r.precision for r in t.rows],
        "boot": b.to_dict(),
    }
    return out


def _flat(x):
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in _flat(x[k])]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flat(item)]
    return [x]


BASE = _summary(W)


@settings(max_examples=12, deadline=None)
@given(st.floats(-300, 300))
def test_results_invariant_to_weight_scale(log10_c):
    c = 10.0 ** log10_c
    got = _summary(W * c)
    for a, b in zip(_flat(BASE), _flat(got), strict=True):
        if isinstance(a, float):
            assert math.isfinite(b) == math.isfinite(a)
            if math.isfinite(a):
                assert b == pytest.approx(a, rel=1e-9, abs=1e-12), log10_c
        else:
            assert a == b, log10_c


@pytest.mark.parametrize("c", [1e-300, 1e-200, 1e200, 1e300])
def test_extreme_weight_scales_named_in_the_issue(c):
    # issue 13: 1e200 -> AUC NaN and every bin "insufficient"; 1e-200 -> ZeroDivisionError
    rel = vc.reliability(P, Y, sample_weight=W * c, bins=10)
    assert [r.sufficient for r in rel.rows] == [r.sufficient for r in vc.reliability(P, Y, sample_weight=W, bins=10).rows]
    assert vc.auc(P, Y, sample_weight=W * c) == pytest.approx(vc.auc(P, Y, sample_weight=W), rel=1e-12)
    vc.bootstrap_intervals(P, Y, sample_weight=W * c, n_resamples=20)


def test_calibrator_fit_invariant_to_weight_scale():
    base = vc.PlattScaling(score_type="probability").fit(P, Y, sample_weight=W)
    for c in (1e-300, 1e300):
        other = vc.PlattScaling(score_type="probability").fit(P, Y, sample_weight=W * c)
        assert other.a_ == pytest.approx(base.a_, rel=1e-8)
        assert other.b_ == pytest.approx(base.b_, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("scale", ["1e-300", "1e-200", "1e200", "1e300"])
def test_cli_results_invariant_to_weight_scale(tmp_path, cli, scale):
    # issue 13 on the CLI: weights 1e200 gave AUC NaN and every bin "insufficient"
    import json

    def run(factor):
        f = tmp_path / f"w{factor}.csv"
        f.write_text("score,label,w\n" + "".join(f"{float(p)!r},{int(y)},{float(w) * float(factor)!r}\n"
                                                 for p, y, w in zip(P, Y, W)))
        r = cli(["audit", f, "--weight", "w", "--bins", "10", "--json", "-"])
        assert r.code == 0, r.err
        return json.loads(r.out)

    base, got = run("1"), run(scale)
    for k in ("ece", "brier", "nll", "auc", "accuracy"):
        assert got["metrics"][k] == pytest.approx(base["metrics"][k], rel=1e-9), k
    assert [r["sufficient"] for r in got["table"]] == [r["sufficient"] for r in base["table"]]
