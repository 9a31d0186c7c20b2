r"""The segment family: the levels of each feature, and their intersections up to a depth.

A **feature** becomes a short list of levels (:mod:`._levels`: categorical levels, pooled
into ``"other"`` beyond ``max_levels``; numeric values or equal-mass bins; ``"missing"``),
and every row a level code (:mod:`._spec`).

A **segment** is one level of each of up to ``depth`` features (depth 1: the
levels; depth 2: every pair of features, every pair of their levels; …). The
family is every such combination that holds at least one row; its size is checked
against ``max_segments`` before any aggregate runs.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..core._text import count_noun
from ..core._validation import VeracityError
from ._spec import FeatureSpec
from ._values import missing_mask

#: ``missing_mask`` is read from here by veracity.comparison
__all__ = ["MAX_DISTINCT", "MAX_SEGMENTS", "check_depth", "check_family_size", "check_features", "decode",
           "feature_sets", "missing_mask", "strides"]

#: most segments in one family (each costs one row per score cell in the aggregate)
MAX_SEGMENTS = 50_000
#: most distinct values of one feature whose counts are brought back from a lazy frame
MAX_DISTINCT = 1_000_000


def check_features(features: Any) -> list[str]:
    if isinstance(features, str):
        return [features]
    if not isinstance(features, (list, tuple)) or not features:
        raise VeracityError(
            f"features= must name at least one column, in a list, e.g. features=['region', 'age']; got "
            f"{_short(features)}")
    # plain text: a numpy string (a name taken from an array) printed as np.str_('c') in a lazy frame's notes
    names = [f if type(f) is str else str(f) for f in features]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise VeracityError(f"features= names {dup[0]!r} twice; name each feature once")
    return names


def refuse_label_feature(names: list[str], label: Any) -> None:
    """A frame's label column named among the features: its segments hold one class each (``y=1``: rate 1
    against a mean score below it), miscalibrated by construction, so every one of them was a "discovery"
    (and ``SegmentCalibration`` would correct by the outcome it is to predict)."""
    if isinstance(label, str) and label in names:
        raise VeracityError(f"features= names the label column {label!r}: its segments hold one class each "
                            "and "
                            f"are miscalibrated by construction; drop {label!r} from features={names!r}",
                            param="features")


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, dict) else f"a dict of {len(value)} columns"
    return text if len(text) <= 80 else text[:77] + "..."


def check_depth(depth: Any, n_features: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise VeracityError(f"depth must be a positive integer (1: single features, 2: pairs), got {depth!r}")
    if depth > n_features:
        raise VeracityError(
            f"depth={int(depth)} needs at least {int(depth)} features but features= names {n_features}; "
            f"use depth={n_features} or name more features")
    return int(depth)


def feature_sets(n_features: int, depth: int) -> list[tuple[int, ...]]:
    """The grouping sets: ``()`` (every row), then each combination of 1 … depth features."""
    out: list[tuple[int, ...]] = [()]
    for d in range(1, depth + 1):
        out.extend(itertools.combinations(range(n_features), d))
    return out


def check_family_size(specs: list[FeatureSpec], depth: int, max_segments: int) -> int:
    """The largest possible number of segments (every row, and every combination of up to ``depth``
    features' levels); a one-line error beyond ``max_segments``. Counted without listing the grouping
    sets (sums of products of level counts, one feature at a time), so 40 features at depth 20 are
    refused at once, not after listing 10^11 combinations."""
    by_size = [1] + [0] * depth  # by_size[d]: segments of the combinations of d features so far
    for sp in specs:
        for d in range(depth, 0, -1):
            by_size[d] += by_size[d - 1] * sp.n_levels
    total = sum(by_size)
    if total > max_segments:
        worst = max(specs, key=lambda sp: sp.n_levels)
        raise VeracityError(
            f"the segment family is too large: up to {total:,} segments from "
            f"{count_noun(len(specs), 'feature')} at depth {depth} (over max_segments={max_segments:,}); "
            "narrow it: fewer features, depth=1, fewer bins or max_levels (feature "
            f"{worst.name!r} has {worst.n_levels} levels)")
    return total


def strides(specs: list[FeatureSpec], s: tuple[int, ...]) -> list[int]:
    """Mixed-radix strides: the key of a segment of set ``s`` is Σ code_f · stride_f."""
    out, k = [], 1
    for i in reversed(s):
        out.append(k)
        k *= specs[i].n_levels
    return list(reversed(out))


def decode(specs: list[FeatureSpec], s: tuple[int, ...], keys: np.ndarray) -> np.ndarray:
    """(n, len(s)) level codes of combined keys."""
    out = np.empty((keys.size, len(s)), dtype=np.int64)
    rest = keys.astype(np.int64).copy()
    for j, i in reversed(list(enumerate(s))):
        L = specs[i].n_levels
        out[:, j] = rest % L
        rest //= L
    return out
