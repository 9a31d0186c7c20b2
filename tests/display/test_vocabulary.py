"""One vocabulary (issue 14): interval= / bootstrap= / random_state= / multiclass=; old names warn once."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.core import _compat

rng = np.random.default_rng(3)
P = rng.uniform(size=300)
Y = (rng.uniform(size=300) < P).astype(int)


@pytest.fixture(autouse=True)
def _fresh():
    _compat._WARNED.clear()
    yield
    _compat._WARNED.clear()


@pytest.mark.parametrize(
    "call_old, call_new",
    [
        (lambda: vc.reliability(P, Y, ci="clopper-pearson"), lambda: vc.reliability(P, Y, interval="clopper-pearson")),
        (lambda: vc.audit(P, Y, ci="percentile", n_resamples=20, seed=4),
         lambda: vc.audit(P, Y, bootstrap="percentile", n_resamples=20, random_state=4)),
        (lambda: vc.ece_noise_floor(P, Y, n_redraws=20, seed=2), lambda: vc.ece_noise_floor(P, Y, n_resamples=20, random_state=2)),
        (lambda: vc.bootstrap_intervals(P, Y, n_resamples=20, seed=2),
         lambda: vc.bootstrap_intervals(P, Y, n_resamples=20, random_state=2)),
        (lambda: vc.split(Y, seed=5), lambda: vc.split(Y, random_state=5)),
        (lambda: vc.simulate_redraws(P, Y, n_calib=100, redraws=5, seed=1),
         lambda: vc.simulate_redraws(P, Y, n_calib=100, n_resamples=5, random_state=1)),
    ],
)
def test_old_names_warn_once_and_give_the_same_result(call_old, call_new):
    with pytest.warns(FutureWarning, match="is renamed"):
        old = call_old()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = call_old()  # once per process: no second warning
    new = call_new()
    a, b = (old.to_dict(), new.to_dict()) if hasattr(new, "to_dict") else (old, new)
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert str(old) == str(new) == str(again)


def test_both_names_refused():
    with pytest.raises(vc.VeracityError, match="both ci= and interval="):
        vc.reliability(P, Y, ci="wilson", interval="wilson")


def test_report_bootstrap_alias():
    with pytest.warns(FutureWarning, match=r"ci= is renamed bootstrap="):
        old = vc.report(P, Y, ci=False)
    assert old.html == vc.report(P, Y, bootstrap=False).html


def test_audit_multiclass_like_the_metrics():
    k = 3
    Pm = rng.dirichlet(np.ones(k), size=600)
    ym = np.array([rng.choice(k, p=row) for row in Pm])
    top = vc.audit(Pm, ym)
    assert top.ece == pytest.approx(vc.ece(Pm, ym, multiclass="top-label"))
    cw = vc.audit(Pm, ym, multiclass="classwise")
    assert list(cw.groups) == [f"class {c}" for c in range(k)]
    per_class = [vc.ece(Pm[:, c], (ym == c).astype(int)) for c in range(k)]
    assert [g.ece for g in cw.groups.values()] == pytest.approx(per_class)
    assert np.mean(per_class) == pytest.approx(vc.ece(Pm, ym, multiclass="classwise"))
    with pytest.raises(vc.VeracityError, match="multiclass must be"):
        vc.audit(Pm, ym, multiclass="ovr")


def test_multiclass_text_says_top_label_accuracy_and_no_base_rate():
    Pm = rng.dirichlet(np.ones(3), size=300)
    ym = np.array([rng.choice(3, p=row) for row in Pm])
    text = str(vc.audit(Pm, ym))
    assert "top-label accuracy" in text and "base rate" not in text and "acc(0.5)" not in text
    binary = str(vc.audit(P, Y))
    assert "base rate" in binary
    cal = vc.TemperatureScaling(score_type="logit").fit(np.log(Pm), ym)
    ledger = vc.compare(np.log(Pm), ym, cal)
    assert "top-label accuracy" in str(ledger) and "accuracy@0.5" not in str(ledger)


def test_json_names_the_per_bin_interval_interval():
    """The JSON key mirrors the Python name interval= (the old key "ci" stays for older readers)."""
    table = vc.reliability(P, Y, interval="clopper-pearson").to_dict()
    audit = vc.audit(P, Y, interval="clopper-pearson").to_dict()
    assert table["interval"] == audit["interval"] == "clopper-pearson"
    assert table["ci"] == audit["ci"] == "clopper-pearson"
