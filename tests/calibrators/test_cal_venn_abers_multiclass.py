"""Multiclass Venn–ABERS: pairwise (one-vs-one) predictors coupled into class probabilities.

Oracle: the ``venn-abers`` package (Manokhin), ``VennAbersCalibrator().predict_proba(p_cal=,
y_cal=, p_test=)`` with its default ``va_type='one_vs_one'`` — the multiclass form of
Manokhin (2017), "Multi-class probabilistic classification using inductive and cross
Venn-Abers predictors" — on its own kind of test case: a scikit-learn classifier's
``predict_proba`` on held-out calibration rows of ``make_classification``.
"""

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc
from veracity.cli import main

venn_abers = pytest.importorskip("venn_abers")


def _problem(k, model="nb", seed=0, n=1500):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB

    X, y = make_classification(n, n_features=10, n_informative=6, n_classes=k, n_clusters_per_class=1,
                               random_state=seed)
    base = (GaussianNB() if model == "nb" else RandomForestClassifier(50, max_depth=5, random_state=seed))
    base.fit(X[:700], y[:700])
    P = base.predict_proba(X[700:])
    return P[:500], y[700:1200], P[500:], y[1200:]


def _reference(Pc, yc, Pt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package's own numpy warnings
        return venn_abers.VennAbersCalibrator().predict_proba(p_cal=Pc, y_cal=yc, p_test=Pt, p0_p1_output=True)


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("model", ["nb", "forest"])   # the forest's probabilities tie a lot
def test_matches_the_venn_abers_package(k, model):
    Pc, yc, Pt, _ = _problem(k, model)
    ref, ref_p0p1 = _reference(Pc, yc, Pt)
    va = vc.VennAbers().fit(Pc, yc)
    np.testing.assert_allclose(va.transform(Pt), ref, rtol=0, atol=1e-9)
    p0, p1 = va.predict_interval(Pt)
    assert va.pairs_ == [(i, j) for i in range(k) for j in range(i + 1, k)]
    assert p0.shape == p1.shape == (Pt.shape[0], k * (k - 1) // 2)
    for m, pair in enumerate(ref_p0p1):
        np.testing.assert_allclose(p0[:, m], pair[:, 0], rtol=0, atol=1e-9)
        np.testing.assert_allclose(p1[:, m], pair[:, 1], rtol=0, atol=1e-9)


def test_logits_give_the_same_probabilities():
    Pc, yc, Pt, _ = _problem(3)
    a = vc.VennAbers().fit(Pc, yc).transform(Pt)
    floor = 1e-300   # log of exact zeros
    b = vc.VennAbers(score_type="logit").fit(np.log(Pc + floor), yc).transform(np.log(Pt + floor))
    np.testing.assert_allclose(a, b, atol=1e-9)


def test_rows_are_probabilities_and_improve_nll():
    Pc, yc, Pt, yt = _problem(4)
    Q = vc.VennAbers().fit(Pc, yc).transform(Pt)
    assert np.all((Q > 0) & (Q < 1)) and np.allclose(Q.sum(1), 1.0)
    assert vc.nll(Q, yt) < vc.nll(np.clip(Pt, 1e-15, 1), yt)   # naive Bayes is over-confident


def test_artifact_round_trip_bit_for_bit_and_schema(tmp_path):
    Pc, yc, Pt, _ = _problem(3)
    va = vc.VennAbers().fit(Pc, yc, metadata={"model_revision": "nb-1"})
    doc = json.loads(json.dumps(va.to_dict()))
    assert doc["kind"] == "venn-abers-ovo" and len(doc["state"]["maps_"]) == 3
    back = vc.load(va.save(tmp_path / "va.json"))
    np.testing.assert_array_equal(back.transform(Pt), va.transform(Pt))
    assert back.metadata["model_revision"] == "nb-1"
    doc["state"]["maps_"] = doc["state"]["maps_"][:2]
    with pytest.raises(vc.VeracityError, match=r"maps_ has 2 items but must have 3"):
        vc.load(doc)
    doc = va.to_dict()
    doc["state"]["maps_"][1]["p1_"] = doc["state"]["maps_"][1]["p1_"][::-1]
    with pytest.raises(vc.VeracityError, match=r"p1_ must be non-decreasing"):
        vc.load(json.loads(json.dumps(doc)))


def test_one_vs_rest_form_keeps_its_names():
    Pc, yc, Pt, _ = _problem(3)
    old = vc.OneVsRest(method="venn-abers").fit(Pc, yc)
    new = vc.VennAbers(multiclass="ovr").fit(Pc, yc)
    np.testing.assert_array_equal(new.transform(Pt), old.transform(Pt))
    assert new.to_dict()["kind"] == "one-vs-rest"
    with pytest.raises(vc.VeracityError, match="multiclass must be 'ovo'"):
        vc.VennAbers(multiclass="pairs").fit(Pc, yc)
    with pytest.raises(vc.VeracityError, match="one-vs-rest form is per class map"):
        new.predict_interval(Pt)


def test_binary_venn_abers_is_unchanged_by_the_option():
    Pc, yc, Pt, _ = _problem(2)
    a = vc.VennAbers().fit(Pc[:, 1], yc)
    b = vc.VennAbers(multiclass="ovr").fit(Pc[:, 1], yc)
    np.testing.assert_array_equal(a.transform(Pt[:, 1]), b.transform(Pt[:, 1]))
    assert a.to_dict()["kind"] == "venn-abers"


def test_a_missing_class_is_refused():
    Pc, yc, _, _ = _problem(3)
    keep = yc != 2
    with pytest.raises(vc.VeracityError, match="class 2 has none"):
        vc.VennAbers().fit(Pc[keep], yc[keep])


def test_calibrated_classifier_uses_the_pairwise_form():
    from sklearn.datasets import make_classification
    from sklearn.naive_bayes import GaussianNB

    X, y = make_classification(1200, n_features=8, n_informative=5, n_classes=3, random_state=1)
    base = GaussianNB().fit(X[:600], y[:600])
    m = vc.CalibratedClassifier(base, calibrator="venn-abers", cv="prefit").fit(X[600:900], y[600:900])
    ref, _ = _reference(base.predict_proba(X[600:900]), y[600:900], base.predict_proba(X[900:]))
    np.testing.assert_allclose(m.predict_proba(X[900:]), ref, atol=1e-9)


def test_cli_fit_venn_abers_on_multiclass_uses_the_pairwise_form(tmp_path, capsys):
    Pc, yc, Pt, _ = _problem(3)
    f = tmp_path / "m.csv"
    f.write_text("p0,p1,p2,label\n" + "\n".join(",".join(repr(float(v)) for v in r) + f",{c}"
                                                for r, c in zip(Pc, yc)) + "\n")
    out = tmp_path / "va.json"
    assert main(["fit", str(f), "--score", "p0,p1,p2", "--method", "venn-abers", "--out", str(out)]) == 0
    assert "multiclass Venn-ABERS over 3 classes" in capsys.readouterr().out
    cal = vc.load(out)
    assert cal.kind == "venn-abers-ovo"
    ref, _ = _reference(Pc, yc, Pt)
    np.testing.assert_allclose(cal.transform(Pt), ref, atol=1e-9)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(3, 5))
def test_zero_weight_rows_never_change_the_fit(seed, k):
    """Property: a row of weight 0 is a dropped row."""
    rng = np.random.default_rng(seed)
    n = 60
    P = rng.dirichlet(np.ones(k), n)
    y = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    w = rng.uniform(0.2, 3.0, n)
    w[k::3] = 0.0
    a = vc.VennAbers().fit(P, y, sample_weight=w).transform(P)
    keep = w > 0
    b = vc.VennAbers().fit(P[keep], y[keep], sample_weight=w[keep]).transform(P)
    np.testing.assert_array_equal(a, b)
    assert np.allclose(a.sum(1), 1.0)


def test_frame_form_fits_the_pairwise_form():
    pd = pytest.importorskip("pandas")
    Pc, yc, Pt, _ = _problem(3)
    df = pd.DataFrame(Pc, columns=["a", "b", "c"]).assign(y=yc)
    va = vc.VennAbers().fit(df, score=["a", "b", "c"], label="y")
    assert va.to_dict()["kind"] == "venn-abers-ovo"
    np.testing.assert_array_equal(va.transform(Pt), vc.VennAbers().fit(Pc, yc).transform(Pt))
