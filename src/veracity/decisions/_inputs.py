"""Input checks shared by the decision tools (thresholds, tables, redraws)."""

from __future__ import annotations

import math
import os
import sys
from types import FrameType
from typing import Any

import numpy as np

from ..core._validation import (
    VeracityError,
    plain,
    as_float_array,
    check_binary_labels,
    LOGIT_CHECK_MIN_ROWS,
    check_logit_scale,
    check_probabilities,
    check_same_index,
    check_score_type,
    check_weights,
)

#: Slack when taking ceilings of products such as (n + 1) * 0.95 that are
#: mathematically integers but land a hair above one in floating point.
CEIL_EPS = 1e-9


def ceil_rank(x: float) -> int:
    """``ceil(x)`` that treats values within 1e-9 above an integer as that integer."""
    return int(math.ceil(x - CEIL_EPS))


def scores_1d(scores: Any, *, score_type: str = "probability", name: str = "scores",
              allow_score: bool = False) -> np.ndarray:
    """1-D float scores; probabilities are checked to lie in [0, 1] (``allow_score``: a
    ranking score, ``score_type="score"``, is taken as it is)."""
    check_score_type(score_type, allow_score=allow_score)
    s = as_float_array(scores, name)
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    if s.ndim != 1:
        raise VeracityError(
            f"{name} must be 1-D (one score per row), got shape {s.shape}; for (N, K) "
            "multiclass scores pass the column of the class to flag, or use ConformalClassifier"
        )
    if score_type == "probability":
        check_probabilities(s, name)
    elif score_type == "logit":
        check_logit_scale(s, name, min_rows=LOGIT_CHECK_MIN_ROWS)  # probabilities declared as logits
    return s


def narrow_float(raw: np.ndarray) -> np.dtype | None:
    """The floating dtype of scores narrower than float64 (float32, float16), else None.

    numpy compares ``scores >= t`` for a Python float ``t`` in the scores' own dtype (NEP 50; numpy 1's
    value-based casting did the same): a float32 score that prints as 0.7 is ``float32(0.7)``, and
    ``scores >= 0.7`` flags it although its float64 value, 0.69999998807907, lies below 0.7."""
    dtype = np.asarray(raw).dtype
    return dtype if dtype.kind == "f" and dtype.itemsize < 8 else None


def in_precision(x: np.ndarray, dtype: np.dtype | None) -> np.ndarray:
    r"""Values as ``dtype`` (:func:`narrow_float`) holds them: each rounded to its nearest ``dtype`` value,
    :math:`\mathrm{fl}(x)`, written back in float64 (exactly); beyond the dtype's range ±inf. ``dtype``
    None (float64 scores): ``x`` unchanged, the same array. A value already in ``dtype`` (a float32 score
    read as float64) is unchanged; one computed from such values in float64 becomes the correctly
    rounded result of that computation in ``dtype`` (``max(p, 1 - p)`` of a float32 ``p`` is then
    numpy's ``np.maximum(p32, 1 - p32)`` bit for bit: both round the exact value once)."""
    if dtype is None:
        return x
    with np.errstate(over="ignore"):  # 1e39 is inf in float32, as it is there
        return np.asarray(x, dtype=np.float64).astype(dtype).astype(np.float64)


def compared_thresholds(t: np.ndarray, dtype: np.dtype | None) -> np.ndarray:
    r"""Thresholds as the scores' precision compares them: each rounded to the nearest value of
    ``dtype`` (:func:`narrow_float`), written back in float64 (exactly), so that for float64 ``s``
    holding ``dtype`` values :math:`s \ge \mathrm{round}(t)` is the comparison numpy makes in ``dtype``.
    Beyond the dtype's range a threshold is ±inf (it flags nothing, or every row), as the comparison in
    ``dtype`` has it. ``dtype`` None (float64 scores): ``t`` unchanged."""
    return in_precision(t, dtype)


def next_above(top: float, dtype: np.dtype | None) -> float:
    """The least value above ``top`` in the scores' precision (float64 without ``dtype``): a threshold
    there flags nothing at ``top``, also when compared in ``dtype`` (float64's next value rounds back
    to a float32 ``top``)."""
    kind = np.float64 if dtype is None else dtype.type
    return float(np.nextafter(kind(top), kind(np.inf)))


def weight_shift(sample_weight: Any, w: np.ndarray | None) -> int:
    r"""The exponent *k* of the power of two by which :func:`check_weights` scaled extreme weights
    (0 if it did not): the caller's weight sums are the checked ones times :math:`2^k`, read off the
    largest weight, :math:`k = e(\max w_\text{caller}) - e(\max w_\text{checked})` with *e* the
    binary exponent (``math.frexp``; the scaling is exact). An exponent, not the factor itself:
    :math:`2^k` exceeds the largest double for weights near 1.8e308 (k = 1024)."""
    if w is None:
        return 0
    raw = float(np.max(as_float_array(sample_weight, "sample_weight")))
    return math.frexp(raw)[1] - math.frexp(float(np.max(w)))[1]


def in_caller_units(x: Any, shift: int) -> Any:
    r"""Weight sums of checked weights in the caller's units, :math:`x \cdot 2^{k}` (``shift`` *k*
    from :func:`weight_shift`; a negative *k* takes caller units to checked ones), exact; a sum
    beyond the largest double is ``inf`` (it has no float64 value), never a warning nor ``0 · inf``."""
    if shift == 0:
        return x
    with np.errstate(over="ignore", under="ignore"):
        out = np.ldexp(x, shift)
    return float(out) if np.ndim(out) == 0 else out


def binary_inputs(
    scores: Any, labels: Any, *, sample_weight: Any = None, score_type: str = "probability",
    pos_label: Any = None, allow_score: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Checked ``(scores, labels as 0/1 floats, weights or None)``; ``pos_label`` names the
    positive class of two-valued labels (strings, booleans, numbers). Pandas scores, labels and
    weights must share one index (never matched by position)."""
    check_same_index(scores=scores, labels=labels, sample_weight=sample_weight)
    s = scores_1d(scores, score_type=score_type, allow_score=allow_score)
    y = check_binary_labels(labels, s.shape[0], pos_label)
    w = check_weights(sample_weight, s.shape[0])
    return s, y, w


#: why a target recall of 1 is refused (:func:`check_target`'s ``one``): the recall rule's guarantee
RECALL_ONE = ("a target recall of 1 has no finite-sample guarantee (the +1 rule's rank ceil((n + 1) * 1) "
              "is past the n positives, whatever n); ask for a target below 1, e.g. 0.99")


def check_target(target: Any, name: str = "target", example: float = 0.95, *,
                 one: bool | str = False) -> float:
    """A rate strictly inside (0, 1); ``example`` is the typical value the error message suggests.

    ``one=True`` takes 1 too, the interval (0, 1] (a target precision of 1: no false alarm on these data);
    ``one`` a text: 1 is refused, the text saying why (:data:`RECALL_ONE`)."""
    span = "(0, 1) or be 1 (no false alarm)" if one is True else "(0, 1)"
    try:
        if isinstance(target, (bool, np.bool_)):  # True would read as the target 1
            raise TypeError
        t = float(target)
    except (TypeError, ValueError):
        raise VeracityError(f"{name} must be a number in {span}, e.g. {example:g}; got {plain(target)!r}",
                            param=name) from None
    if one is True and t == 1.0:
        return t
    if not 0.0 < t < 1.0:
        why = f": {one}" if isinstance(one, str) and t == 1.0 else ""
        raise VeracityError(f"{name} must be in {span}, e.g. {example:g}; got {plain(target)!r}{why}",
                            param=name)
    return t


def check_alpha(alpha: Any) -> float:
    """Miscoverage level α strictly inside (0, 1)."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise VeracityError(f"alpha must be a number in (0, 1), e.g. 0.1; got {plain(alpha)!r}",
                            param="alpha") from None
    if not 0.0 < a < 1.0:
        raise VeracityError(
            f"alpha must be in (0, 1), e.g. 0.1 for 90% coverage; got {plain(alpha)!r}", param="alpha"
        )
    return a


def check_cost(value: Any, name: str) -> float:
    """A finite non-negative cost; a boolean (True would read as a cost of 1) is refused."""
    if isinstance(value, (bool, np.bool_)):
        raise VeracityError(f"{name} must be a non-negative number (a cost per error), not {value!r}",
                            param=name)
    try:
        c = float(value)
    except (TypeError, ValueError):
        raise VeracityError(f"{name} must be a non-negative number; got {value!r}", param=name) from None
    if not math.isfinite(c) or c < 0:
        raise VeracityError(f"{name} must be a finite non-negative cost; got {value!r}", param=name)
    return c + 0.0  # -0.0 is a cost of 0: t* = -0.0 and "cost = -0·FP" were printed


def check_flag(value: Any, name: str) -> bool:
    """A True/False option; anything else is refused (``"no"`` or ``"False"`` would read as True)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise VeracityError(f"{name} must be True or False, got {value!r}", param=name)


def caller_level() -> int:
    """The ``stacklevel`` of the first frame outside veracity, for a warning given by its caller: the
    user's line, however many of veracity's wrappers (frame form, positional options) lie between."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame: FrameType | None = sys._getframe(1)  # the frame that calls warnings.warn: level 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level
