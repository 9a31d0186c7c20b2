"""scikit-learn's estimator contract on every calibrator (issue 21): ``get_params(deep=True)``,
``set_params(**params)``, and ``sklearn.base.clone`` gives an unfitted copy that fits to the
same map."""

from __future__ import annotations

import numpy as np
import pytest

sklearn_base = pytest.importorskip("sklearn.base")

import veracity as vc  # noqa: E402
from veracity.calibrators._base import _REGISTRY, Calibrator  # noqa: E402
import veracity.segments  # noqa: E402,F401  (registers the "segment" kind; import veracity loads it on first use)

rng = np.random.default_rng(21)
N, K = 400, 3
LOGIT = rng.normal(0.0, 2.0, N)
Y = (rng.uniform(size=N) < 1.0 / (1.0 + np.exp(-LOGIT / 2.0))).astype(int)
P = 1.0 / (1.0 + np.exp(-LOGIT))
PK = rng.dirichlet(np.ones(K) * 2.0, size=N)
YK = np.array([rng.choice(K, p=row) for row in PK])
REGION = np.where(rng.uniform(size=N) < 0.5, "EU", "US")

#: one instance of every calibrator kind, with non-default options where it has any
EXAMPLES = {
    "temperature": lambda: vc.TemperatureScaling(method="golden", iterations=60),
    "platt": lambda: vc.PlattScaling(smoothing=True),
    "isotonic": lambda: vc.IsotonicCalibration(interpolation="linear"),
    "histogram": lambda: vc.HistogramBinning(bins=7, strategy="quantile"),
    "beta": lambda: vc.BetaCalibration(),
    "vector": lambda: vc.VectorScaling(reg_lambda=1e-2),
    "matrix": lambda: vc.MatrixScaling(reg_mu=1e-2),
    "venn-abers": lambda: vc.VennAbers(),
    "venn-abers-ovo": lambda: _REGISTRY["venn-abers-ovo"](),
    "one-vs-rest": lambda: vc.OneVsRest(method="platt", method_params={"smoothing": True}),
    "segment": lambda: _REGISTRY["segment"](base="platt", features=["region"], depth=1, min_count=20),
}


def _fit(cal: Calibrator) -> np.ndarray:
    if cal.multiclass == "multiclass" or cal.kind == "one-vs-rest":
        return cal.fit(PK, YK).transform(PK)
    if cal.kind == "segment":
        return cal.fit(P, Y, features={"region": REGION}).transform(P, features={"region": REGION})
    return cal.fit(P, Y).transform(P)


def test_every_registered_kind_is_covered():
    assert set(EXAMPLES) == set(_REGISTRY)


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_clone_then_fit_both_gives_the_same_map(kind):
    original = EXAMPLES[kind]()
    copy = sklearn_base.clone(original)
    assert type(copy) is type(original) and copy is not original
    assert copy.get_params() == original.get_params()
    np.testing.assert_array_equal(_fit(original), _fit(copy))
    # a fitted calibrator clones to an unfitted one with the same options
    again = sklearn_base.clone(original)
    assert not again._is_fitted() and again.get_params(deep=True) == original.get_params(deep=False)


def test_set_params_sets_options_and_refuses_unknown_names():
    cal = vc.HistogramBinning()
    assert cal.set_params(bins=4, strategy="quantile") is cal
    assert cal.get_params() == {"score_type": "probability", "bins": 4, "strategy": "quantile"}
    with pytest.raises(vc.VeracityError, match="HistogramBinning has no parameter 'n_bins'") as info:
        cal.set_params(n_bins=4)
    assert info.value.param == "n_bins"


def test_clone_works_inside_a_scikit_learn_estimator():
    """CalibratedClassifier clones its calibrator the scikit-learn way too."""
    from sklearn.linear_model import LogisticRegression

    est = vc.CalibratedClassifier(LogisticRegression(), calibrator=vc.PlattScaling(smoothing=True))
    copy = sklearn_base.clone(est)
    assert copy.calibrator is not est.calibrator
    assert copy.calibrator.get_params() == est.calibrator.get_params()
