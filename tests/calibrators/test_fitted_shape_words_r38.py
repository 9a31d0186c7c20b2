"""A map fit on (N, K) scores, given scores of another shape, says so in its class's words (session 38).

A PlattScaling (isotonic, beta, histogram, Venn–ABERS) fit on (N, 2) or (N, K) scores is their one-vs-rest
(or pairwise) form; handed 1-D scores it answered "OneVsRest is a multiclass calibrator but scores are 1-D
(binary); use TemperatureScaling, PlattScaling or another binary calibrator" -- a class the user never built,
and advice to use the very class they had. Vector and matrix scaling said the same of themselves. Every one
now says "this PlattScaling was fit on 2-class (N, K) scores but got 1-D binary scores; pass scores of the
same shape as at fit time", as TemperatureScaling already did.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

rng = np.random.default_rng(383)
P3 = rng.dirichlet([1.0, 1.0, 1.0], 300)
Y3 = (rng.random(300)[:, None] > np.cumsum(P3, axis=1)).sum(axis=1)
P2 = np.column_stack([1.0 - P3[:, 0], P3[:, 0]])
Y2 = (Y3 == 0).astype(int)

FORMS = [vc.PlattScaling, vc.IsotonicCalibration, vc.BetaCalibration, vc.HistogramBinning, vc.VennAbers,
         vc.VectorScaling, vc.MatrixScaling]


def _message(call) -> str:
    with pytest.raises(vc.VeracityError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("cls", FORMS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("k", [2, 3])
def test_one_d_scores_for_an_n_k_fit_name_the_fitted_class_and_shape(cls, k):
    scores, labels = (P2, Y2) if k == 2 else (P3, Y3)
    cal = cls().fit(scores, labels)
    message = _message(lambda: cal.transform(scores[:, 1]))
    assert message.startswith(f"this {cls.__name__} was fit on {k}-class (N, K) scores but got 1-D binary "
                              "scores; pass scores of the same shape as at fit time"), message
    assert "OneVsRest" not in message and "another binary calibrator" not in message, message


@pytest.mark.parametrize("cls", [vc.PlattScaling, vc.VennAbers], ids=lambda c: c.__name__)
def test_another_number_of_columns_names_the_fitted_class(cls):
    cal = cls().fit(P3, Y3)
    message = _message(lambda: cal.transform(P2))
    want = f"this {cls.__name__} was fit on 3-class (N, K) scores but got 2-column scores"
    assert message.startswith(want), message
    # a 1-D fit keeps its own words for (N, K) scores; a two-class temperature reads either shape
    message = _message(lambda: cls().fit(P2[:, 1], Y2).transform(P2))
    assert f"{cls.__name__} " in message and "(N, K) scores but got" not in message, message
    two = vc.TemperatureScaling().fit(P2, Y2)
    assert np.allclose(two.transform(P2[:, 1]), two.transform(P2)[:, 1], rtol=0, atol=1e-15)
