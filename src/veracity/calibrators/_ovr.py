r"""One-vs-rest multiclass form of every binary calibrator.

For (N, K) scores, class k's map :math:`g_k` is fit as a binary calibrator on
column k against the labels :math:`[y = k]`; the calibrated row is renormalised:

.. math:: q_{ik} = \frac{g_k(s_{ik})}{\sum_j g_j(s_{ij})}

(a row whose maps all give 0 becomes uniform). Rows sum to 1, and when every
:math:`g_k` is increasing and shared ordering holds (all maps equal) the argmax is
kept. For Venn–ABERS this is the one-vs-rest multiclass form (each class's merged
probability :math:`p_1/(1-p_0+p_1)`, renormalised). A binary calibrator given
(N, K) scores fits this form itself; the artifact's kind is ``"one-vs-rest"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._compat import positional_options
from ..core._validation import VeracityError
from ._base import _REGISTRY, Calibrator, from_params, require_every_class

#: binary calibrators that have a one-vs-rest multiclass form
OVR_METHODS = ("platt", "isotonic", "beta", "histogram", "venn-abers")


class OneVsRest(Calibrator):
    r"""One binary calibrator per class on (N, K) scores, rows renormalised to sum to 1.

    Parameters: ``method`` (``"platt"``, ``"isotonic"``, ``"beta"``, ``"histogram"``
    or ``"venn-abers"``), ``score_type``, ``method_params`` (options of the binary
    calibrator, e.g. ``{"bins": 15}``). Fitted: ``maps_`` (one binary calibrator per class).
    """

    kind = "one-vs-rest"
    multiclass = "multiclass"
    _params = ("method", "score_type", "method_params")
    _state = ("maps_",)
    #: the binary calibrator fit on (N, K) scores that this form is (``PlattScaling``), its errors' name
    _built_as: str | None = None

    @positional_options("method")
    def __init__(self, *, method: str = "isotonic", score_type: str = "probability",
                 method_params: dict[str, Any] | None = None):
        self.method = method
        self.score_type = score_type
        self.method_params = method_params

    def _check_params(self) -> None:
        super()._check_params()
        if isinstance(self.method, Calibrator) and self.method.kind in OVR_METHODS:  # as scikit-learn's wrapper
            raise VeracityError(
                f"method names the binary calibrator, got the object {self.method!r}; pass "
                f"method={self.method.kind!r} with method_params={{...}} for its options, "
                "or fit that calibrator on the (N, K) scores directly: it fits one-vs-rest itself")
        if not isinstance(self.method, str) or self.method not in OVR_METHODS:
            raise VeracityError(
                f"method must be one of {', '.join(OVR_METHODS)} for one-vs-rest, got {self.method!r}")

    @property
    def name(self) -> str:
        # the form a binary calibrator fits on (N, K) scores speaks as the class the user built ("this
        # PlattScaling was fit on probabilities", not "this OneVsRest"); one built or loaded as such is itself
        return self._built_as or type(self).__name__

    def _constructor_with(self, setting: str) -> str:
        # OneVsRest(score_type='logit') alone would fit isotonic maps, whatever this one's method
        return f"OneVsRest(method={self.method!r}, {setting})"

    def _binary(self) -> Calibrator:
        c = _REGISTRY[self.method](score_type=self.score_type, **dict(self.method_params or {}))
        c._check_params()
        return c

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        k = s.shape[1]
        require_every_class(y, w, k, f"one-vs-rest {self.method}")
        cols = np.ascontiguousarray(s.T)  # one transposing pass, then every class column is contiguous
        maps = []
        for j in range(k):
            c = self._binary()
            c._weight_unit = self._weight_unit  # the weights' units (Platt's smoothed targets read them)
            c._fit(cols[j], (y == j).astype(np.float64), w)
            c.__dict__.pop("_weight_unit", None)
            c.n_classes_ = 2
            c.metadata = {}
            maps.append(c)
        self.maps_ = maps

    def _transform(self, s: np.ndarray) -> np.ndarray:
        cols = np.ascontiguousarray(s.T)  # one transposing pass, then every class column is contiguous
        n, k = s.shape
        Q = np.empty((n, k))
        for j, c in enumerate(self.maps_):
            Q[:, j] = c._transform(cols[j])
        total = Q.sum(axis=1, keepdims=True)  # summed along rows, as scikit-learn does
        flat = total[:, 0] <= 0.0
        if flat.any():
            Q[flat] = 1.0
            total[flat] = k
        Q /= total
        return Q

    def _state_dict(self) -> dict[str, Any]:
        return {"maps_": [{"kind": c.kind, "params": c.to_dict()["params"],
                           "state": c.to_dict()["state"]} for c in self.maps_]}

    def _load_state(self, state: dict[str, Any]) -> None:
        maps = []
        for m in state["maps_"]:
            c = from_params(m["kind"], m["params"])
            st = dict(m["state"])
            c.n_classes_ = int(st.pop("n_classes_", 2))
            c._load_state(st)
            c.metadata = {}
            maps.append(c)
        self.maps_ = maps

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        return f"one-vs-rest {self.method} over {len(self.maps_)} classes (rows renormalised)"
