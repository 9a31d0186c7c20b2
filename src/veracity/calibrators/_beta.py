r"""Beta calibration (Kull, Silva Filho & Flach, AISTATS 2017).

.. math:: p' = \sigma\big(a \ln p - b \ln(1 - p) + c\big),\qquad a, b \ge 0

a logistic regression on the two features :math:`\ln p` and :math:`-\ln(1-p)`
(the "abm" family; it contains the identity a = b = 1, c = 0, and sigmoid-shaped
as well as inverse-sigmoid-shaped maps). As in the reference ``betacal``
package, a negative coefficient is set to 0 and the model refit on the other
feature, which keeps the map non-decreasing. From logits the features are
exact: :math:`\ln p = -\mathrm{softplus}(-s)`, :math:`-\ln(1-p) = \mathrm{softplus}(s)`;
probabilities are clipped to :math:`[\epsilon, 1-\epsilon]` first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ..core._special import expit

from ..core._validation import PROB_EPS, VeracityError
from ._base import Calibrator, warn, warn_certain_contradicted
from ._platt import (FAR_ROWS_ADVICE, NO_SIGNAL_ADVICE, association, fit_logistic_fast, separated_message,
                     separation)


def probability_features(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Beta calibration's features of probabilities, :math:`\ln q` and :math:`-\ln(1-q)` (``log(q)``,
    ``-log1p(-q)``) of :math:`q = \mathrm{clip}(p, \epsilon, 1 - \epsilon)`. Their sum is the logit
    ``log q − log1p(−q)`` that Platt and temperature scaling read
    (:func:`~veracity.calibrators._base.probability_to_logit`); the ledger's rounding rule bounds that
    logit's error through these two parts (:func:`veracity.calibrators._ledger._feature_error`)."""
    q = np.clip(p, PROB_EPS, 1.0 - PROB_EPS)
    return np.log(q), -np.log1p(-q)


class BetaCalibration(Calibrator):
    r"""Beta calibration :math:`\sigma(a\ln p - b\ln(1-p) + c)` with a, b >= 0.

    Parameters: ``score_type`` (``"probability"`` default). Fitted: ``a_``, ``b_``, ``c_``.
    When the unconstrained fit has a < 0 and b < 0 the score runs the wrong way; the
    constrained map is then the constant base rate, and a warning says so.
    """

    kind = "beta"
    multiclass = "binary"
    _params = ("score_type",)
    _state = ("a_", "b_", "c_")
    preserves_order = False

    def __init__(self, *, score_type: str = "probability"):
        self.score_type = score_type

    def _features(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.score_type == "logit":
            return -np.logaddexp(0.0, -s), np.logaddexp(0.0, s)
        if self.score_type == "score" and (s.min() < 0.0 or s.max() > 1.0):
            raise VeracityError(
                f"BetaCalibration reads a ranking score through ln s and ln(1 - s), so it needs scores in "
                f"[0, 1] (a vote share, an uncalibrated predict_proba); these span [{s.min():.3g}, "
                f"{s.max():.3g}]: use PlattScaling or IsotonicCalibration for this score", param="score_type")
        return probability_features(s)

    @property
    def preserves_order_(self) -> bool:
        # strictly increasing when a > 0 or b > 0 (both are >= 0 by construction)
        return bool(self.a_ > 0 or self.b_ > 0)

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        f1, f2 = self._features(s)
        theta, n_iter, ok = fit_logistic_fast([f1, f2], y, w)
        a0, b0 = float(theta[0]), float(theta[1])
        a, b, c = a0, b0, float(theta[2])
        if a < 0 or b < 0:
            # the constrained MLE: drop the negative coefficient (betacal's rule) ...
            keep_b = a < 0
            theta, n_iter, ok = fit_logistic_fast([f2 if keep_b else f1], y, w)
            coef, c = float(theta[0]), float(theta[1])
            a, b = (0.0, coef) if keep_b else (coef, 0.0)
            if coef < 0:
                # ... and when the other one is negative too, the score is reversed:
                # with a, b >= 0 the best map is the constant base rate.
                wt = np.ones_like(y) if w is None else w
                rate = float(np.dot(wt, y) / wt.sum())
                a, b, c = 0.0, 0.0, float(np.log(rate) - np.log1p(-rate))
                ok = True
                # "reversed" only where the ranks say so beyond noise (Platt's rule: the AUC's DeLong interval)
                assoc = association(s, y, w)
                fitted = f"the unconstrained fit has a = {a0:.3g}, b = {b0:.3g}"
                constant = f"with a, b >= 0 the map is the constant base rate {rate:.4g}"
                if assoc.verdict == "reversed":
                    msg = (f"BetaCalibration: the score is reversed (higher scores go with FEWER positives: "
                           f"{fitted}; {assoc.describe()}); {constant}. Check the score's sign convention "
                           "(pass 1 - p) before calibrating")
                elif assoc.verdict == "noise":
                    msg = (f"BetaCalibration: {fitted}, but {assoc.no_signal()}; {constant}. {NO_SIGNAL_ADVICE}")
                else:
                    msg = (f"BetaCalibration: {fitted}, yet the scores rank the labels the right way "
                           f"({assoc.describe()}): a few scores far from the rest pull the fit backwards; "
                           f"{constant}. {FAR_ROWS_ADVICE}")
                warn(msg)
        if (a > 0 or b > 0) and separation(f1, y) == "up":
            # positives all above the negatives: the likelihood rises without bound as a, b grow, and
            # Newton stopped where p - t rounds to 0 (it called that converged)
            warn(separated_message("BetaCalibration", "up", f"a = {a:.3g}, b = {b:.3g}",
                                   "Use more calibration rows, or PlattScaling(smoothing=True)"))
        elif not ok:
            warn(
                f"BetaCalibration did not converge after {n_iter} Newton steps; the "
                "calibration rows may be perfectly separable. Use more calibration rows"
            )
        self.a_, self.b_, self.c_ = a, b, c
        warn_certain_contradicted(self, s, y, w)

    def transform_logit(self, scores: Any) -> np.ndarray:
        """Calibrated logits ``a ln p − b ln(1−p) + c``."""
        self._require_fitted()
        f1, f2 = self._features(self._scores(scores, fitting=False))
        with np.errstate(over="ignore"):  # a logit beyond the float range is +-inf (expit reads it as 1 / 0)
            return self.a_ * f1 + self.b_ * f2 + self.c_

    def _transform(self, s: np.ndarray) -> np.ndarray:
        f1, f2 = self._features(s)
        with np.errstate(over="ignore"):
            return expit(self.a_ * f1 + self.b_ * f2 + self.c_)

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        sign = "-" if self.c_ < 0 else "+"
        return (f"beta calibration: p' = sigmoid({self.a_:.4f} ln p - {self.b_:.4f} ln(1-p) "
                f"{sign} {abs(self.c_):.4f})")
