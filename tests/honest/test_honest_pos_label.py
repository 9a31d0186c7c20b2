"""Labels as users have them on the honest estimators and the array audit (issue 10).

String ('yes'/'no') and boolean labels with ``pos_label=`` give exactly the numbers of
the 0/1 encoding; the other value as ``pos_label`` gives the numbers of ``1 - y``.
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc

rng = np.random.default_rng(7)
N = 400
P = rng.uniform(0.02, 0.98, N)
Y01 = (rng.random(N) < P ** 1.3).astype(int)
W = rng.uniform(0.5, 2.0, N)
YS = np.where(Y01 == 1, "yes", "no")
YB = Y01.astype(bool)


def _same(a, b):
    """Results equal as JSON (floats bit for bit)."""
    da = a.to_dict() if hasattr(a, "to_dict") else a
    db = b.to_dict() if hasattr(b, "to_dict") else b
    assert json.dumps(da, sort_keys=True, default=str) == json.dumps(db, sort_keys=True, default=str)


CALLS = {
    "audit": lambda s, y, **k: vc.audit(s, y, tests=True, estimators=True, corp=True, noise_floor=True,
                                        bootstrap="percentile", n_resamples=30, random_state=0, **k),
    "audit_by": lambda s, y, **k: vc.audit(s, y, by=np.arange(N) % 3, **k),
    "reliability": lambda s, y, **k: vc.reliability(s, y, bins=10, **k),
    "bootstrap_intervals": lambda s, y, **k: vc.bootstrap_intervals(s, y, n_resamples=40, random_state=0, **k),
    "ece_noise_floor": lambda s, y, **k: vc.ece_noise_floor(s, y, n_resamples=40, random_state=0, **k),
    "spiegelhalter": lambda s, y, **k: vc.spiegelhalter(s, y, **k),
    "hosmer_lemeshow": lambda s, y, **k: vc.hosmer_lemeshow(s, y, **k),
    "calibration_slope": lambda s, y, **k: vc.calibration_slope(s, y, **k),
    "calibration_tests": lambda s, y, **k: vc.calibration_tests(s, y, **k),
    "corp": lambda s, y, **k: vc.corp(s, y, **k),
    "ece_estimates": lambda s, y, **k: vc.ece_estimates(s, y, **k),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_string_and_bool_labels_equal_the_0_1_numbers(name):
    f = CALLS[name]
    ref = f(P, Y01)
    _same(f(P, YS, pos_label="yes"), ref)
    _same(f(P, YB, pos_label=True), ref)
    _same(f(P, YB), ref)                                   # booleans need no pos_label
    _same(f(P, np.where(Y01 == 1, 2, 1), pos_label=2), ref)
    _same(f(P, YS, pos_label="no"), f(P, 1 - Y01))         # the other class is the positive one


@pytest.mark.parametrize("name", ["audit", "bootstrap_intervals", "calibration_slope", "corp"])
def test_weighted_string_labels_equal_the_0_1_numbers(name):
    f = CALLS[name]
    _same(f(P, YS, pos_label="yes", sample_weight=W), f(P, Y01, sample_weight=W))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_ambiguous_and_wrong_label_sets_name_the_pos_label(name):
    f = CALLS[name]
    with pytest.raises(vc.VeracityError, match=r"pass pos_label=.*pos_label='yes'"):
        f(P, YS)
    with pytest.raises(vc.VeracityError, match=r"Map 1 to 0 and 2 to 1, or pass pos_label=2"):
        f(P, np.where(Y01 == 1, 2, 1))
    with pytest.raises(vc.VeracityError, match=r"pos_label='Yes' is not among the label values \('no', 'yes'\)"):
        f(P, YS, pos_label="Yes")


def test_logit_scores_with_string_labels():
    s = np.log(P / (1 - P))
    _same(vc.calibration_slope(s, YS, pos_label="yes", score_type="logit"),
          vc.calibration_slope(s, Y01, score_type="logit"))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    names=st.sampled_from([("no", "yes"), ("b", "a"), ("neg", "pos"), ("0", "1"), ("é", "ü")]),
)
def test_pos_label_relabelling_invariance(seed, names):
    """Property: renaming the classes and naming the positive one never changes a number."""
    r = np.random.default_rng(seed)
    n = int(r.integers(30, 120))
    p = r.uniform(0.01, 0.99, n)
    y = (r.random(n) < p).astype(int)
    y[:2] = [0, 1]
    neg, pos = names
    lab = np.where(y == 1, pos, neg).astype(object)
    _same(vc.audit(p, lab, pos_label=pos, tests=True, corp=True), vc.audit(p, y, tests=True, corp=True))
    _same(vc.hosmer_lemeshow(p, lab, pos_label=pos), vc.hosmer_lemeshow(p, y))
