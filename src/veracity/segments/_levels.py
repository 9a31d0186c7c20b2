r"""The levels of one feature, found from per-value counts (one small aggregate per feature), so
they are the same on every backend:

* a categorical feature (strings, booleans, categories) keeps its levels with at
  least ``min_count`` rows, at most ``max_levels`` of them (the largest); every
  other level is pooled into one level ``"other"`` — so a column of 100,000 ids
  gives at most ``max_levels + 1`` segments, never 100,000;
* a numeric feature with at most ``bins`` distinct values keeps each value as a
  level; otherwise it is cut into ``bins`` **equal-mass** bins: with the N
  non-missing values sorted, the cut points are the values at positions
  :math:`\lfloor jN/B \rfloor`, :math:`j = 1 … B-1` — weighted, the values whose
  cumulative-weight interval covers :math:`jW/B` (W the total weight), the rule of
  every equal-mass binning in veracity (:func:`~veracity.core._binning.quantile_picks`;
  integer weights cut as the rows repeated) — (duplicate cuts dropped, so
  equal values are never split and heavy ties give fewer bins); a value equal to a
  cut goes to the bin above it. Bins print as ``[lo, hi)`` (the last ``[lo, max]``), ends
  that select the rows the bin counts (:func:`_edge_texts`);
* ``min_count`` and ``max_levels`` count rows, weighted or not (as the test's
  ``min_count`` does, beside its effective size): a row of weight 10 is one
  observation, not ten;
* missing values are a level of their own (``"missing"``).
"""

from __future__ import annotations

import bisect
import decimal

import numpy as np

from ..core._binning import cumulative_slack, quantile_picks
from ..core._validation import VeracityError
from ._spec import FeatureSpec
from ._values import FLOAT_EXACT, MISSING, OTHER, _fmt, _fmt_distinct, _plain, _shown, quoted


def feature_spec(name: str, values: np.ndarray, counts: np.ndarray, n_missing: int, *, numeric: bool,
                 bins: int | list[float], min_count: int, max_levels: int,
                 named: bool = False, masses: np.ndarray | None = None, rows: str = "every row") -> FeatureSpec:
    """The levels of one feature from its distinct (non-missing) ``values`` and their row ``counts``
    (``masses``: their total weights, which place a numeric feature's equal-mass cuts; None unweighted);
    ``named``: ``bins`` was given for this feature by name (``bins={"age": 4}``), which a feature whose
    values are not numbers cannot honour (it is refused, not ignored).

    The same function serves arrays and lazy frames, so both find the same levels.
    """
    values = np.asarray(values)
    counts = np.asarray(counts, dtype=np.int64)
    if numeric and values.dtype.kind in "iu" and not isinstance(bins, (list, tuple, np.ndarray)) and values.size \
            and max(-int(values.min()), int(values.max())) > FLOAT_EXACT:
        return _exact_spec(name, values, counts, n_missing, bins=int(bins), masses=masses, rows=rows)
    if numeric:
        by_value = np.argsort(values.astype(np.float64), kind="stable")
        v = values.astype(np.float64)[by_value]
        c = counts[by_value]
        m = None if masses is None else np.asarray(masses, dtype=np.float64)[by_value]
        if isinstance(bins, (list, tuple, np.ndarray)):
            try:
                cuts = np.unique(np.asarray(bins, dtype=np.float64))
            except (TypeError, ValueError):  # text, None, nested lists
                cuts = np.array([np.nan])
            if cuts.ndim != 1 or not np.isfinite(cuts).all() or cuts.size == 0:
                raise VeracityError(f"bins for feature {name!r} must be finite cut points, got {list(bins)!r}")
            return _binned(name, cuts, v, n_missing)
        if v.size == 0:
            raise VeracityError(f"feature {name!r} has no values (every row is missing); drop it from features=")
        if v.size == 1 and not n_missing:
            raise VeracityError(
                f"numeric feature {name!r} has one value ({_fmt(v[0])}) in {rows}; it splits nothing, "
                "drop it from features=")
        if v.size <= bins:
            shown = _fmt_distinct(v)
            value_labels = tuple(shown[float(x)] for x in v)
            spec_missing = len(value_labels) if n_missing else None
            return FeatureSpec(name, "values", values=tuple(float(x) for x in v),
                               labels=value_labels + ((MISSING,) if n_missing else ()), missing=spec_missing)
        # the values at the j/bins row positions (weighted: at j/bins of the weight)
        cuts = _separate_atoms(quantile_picks(v, bins, counts=c, weights=m), v, c if m is None else m, bins)
        cuts = cuts[cuts > v[0]]
        return _binned(name, cuts, v, n_missing)
    # categorical
    if isinstance(bins, (list, tuple, np.ndarray)):  # cut points would be ignored: say so
        raise VeracityError(f"{{param}} gives cut points for feature {name!r}, whose values are not numbers; its "
                            f"levels are its values: drop {name!r} from {{param}}", param="bins")
    if named:  # bins={"day": 3} for dates or text: a count it cannot honour was ignored, silently
        raise VeracityError(f"{{param}} asks for {bins} bins of feature {name!r}, whose values are not numbers; "
                            f"its levels are its values (dates too): drop {name!r} from {{param}}, or pass it as "
                            "numbers",
                            param="bins")
    keys = [_plain(x) for x in values]
    if not keys:  # as a numeric feature: missing everywhere splits nothing
        raise VeracityError(f"feature {name!r} has no values (every row is missing); drop it from features=")
    text = {k: _shown(x) for k, x in zip(keys, values)}
    if len(keys) == 1 and not n_missing:  # as a numeric feature of one value: no segment but the whole
        raise VeracityError(
            f"feature {name!r} has one value ({text[keys[0]]!r}) in {rows}; it splits nothing, "
            "drop it from features=")
    order = sorted(range(len(keys)), key=lambda i: (-int(counts[i]), text[keys[i]]))
    kept = [i for i in order if counts[i] >= min_count][:max_levels]
    pooled = len(keys) - len(kept)
    if n_missing and n_missing < min_count:
        pooled += 1  # the few missing rows join "other"
    try:
        kept_values = sorted((keys[i] for i in kept))
    except TypeError:
        kept_values = sorted((keys[i] for i in kept), key=str)
    labels = [quoted(text[k]) for k in kept_values]
    other = None
    if pooled:
        other = len(labels)
        labels.append(OTHER)
    missing = None
    if n_missing:
        if n_missing >= min_count:
            missing = len(labels)
            labels.append(MISSING)
        else:
            missing = other
    return FeatureSpec(name, "category", values=tuple(kept_values), labels=tuple(labels), other=other,
                       missing=missing, pooled=pooled if other is not None else 0)


def _separate_atoms(cuts: np.ndarray, v: np.ndarray, c: np.ndarray, bins: int) -> np.ndarray:
    """Equal-mass cut points with every value that holds a whole bin's rows (count ≥ N/bins; weighted,
    ``c`` its weight: weight ≥ W/bins, up to the sums' rounding) in a bin of its own: a cut at the next
    distinct value above it is added.

    A zero-inflated feature (90 % of rows at 0: purchases, days since the last visit) otherwise
    had every pick at 0 and one segment of all the rows; now 0 is a segment ``[0, next)`` beside
    the equal-mass bins of the rest. ``v``: the sorted distinct values, ``c``: their row counts."""
    total = float(c.sum())
    slack = 0.0 if c.dtype.kind in "iu" else bins * cumulative_slack(v.size, total)  # row counts are exact
    heavy = np.flatnonzero(c * bins >= total - slack)
    following = heavy + 1
    following = following[following < v.size]
    return np.unique(np.concatenate([cuts, v[following]]))


_DIGITS = (4, 6, 8, 10, 12, 14, 17)


def _edge_texts(bounds: list[float], v: np.ndarray) -> list[str]:
    r"""The printed ends of the bins ``[lo, c_1)``, …, ``[c_k, hi]`` (``bounds``: lo, the cuts, hi; ``v``:
    the feature's sorted distinct values), each read as a number selecting the rows its bin holds: a cut's text
    :math:`t` has the same values below it as the cut (no value in :math:`[t, c)` or :math:`[c, t)`), ``lo``'s
    none below it and ``hi``'s none above it — so ``x=[-0.2615, 0.254)`` counts exactly the rows with
    :math:`-0.2615 \le x < 0.254`. Each takes the fewest of 4, 6, … 17 significant digits that do it (and
    that keep different bounds apart; the exact shortest text where none does), rounded to nearest where
    that reads right, else cuts and ``lo`` down and ``hi`` up. Rounded to nearest at 4 digits alone, a cut
    at 0.25403 printed ``0.254`` while a value 0.25401 sat below it, and the largest value 3.7234 printed
    ``3.723``: the text and the counted rows differed by a row or two at every cut of a continuous
    feature."""
    numbers = [float(b) for b in bounds]
    values = v.tolist()  # bisected per bound: a list, not a numpy call per text tried
    for base in _DIGITS:
        texts = [_edge_text(b, values, "hi" if i == len(bounds) - 1 else "lo" if i == 0 else "cut", base)
                 for i, b in enumerate(bounds)]
        # distinct bounds keep distinct texts (equal bounds, as [79, 79] of a cut at the largest value, one):
        # bound -> text is one-to-one, counted in sets (a table of every pair of 50,000 bins' bounds: 5 GB)
        if len(set(zip(numbers, texts))) == len(set(numbers)) == len(set(texts)):
            return texts
    return [repr(float(b)) if not float(b).is_integer() else _fmt(b) for b in bounds]


def _edge_text(x: float, v: list[float], role: str, base: int) -> str:
    """One bin end's text (:func:`_edge_texts`): ``role`` ``"lo"``, ``"cut"`` or ``"hi"``, at ``base`` or more
    significant digits, rounded to nearest where that reads right (-0.8 stays ``-0.8``, not ``-0.8001``),
    else down (``lo``, a cut) or up (``hi``). ``v``: the sorted distinct values, as a list."""
    toward = decimal.ROUND_CEILING if role == "hi" else decimal.ROUND_FLOOR
    below = bisect.bisect_left(v, x)  # the values below a cut (np.searchsorted(v, x, side="left"))
    for digits in (d for d in _DIGITS if d >= base):
        for rounding in (decimal.ROUND_HALF_EVEN, toward):
            text = _fmt_toward(x, digits, rounding)
            y = float(text)
            if role == "lo" and y <= x or role == "hi" and y >= x or \
                    role == "cut" and bisect.bisect_left(v, y) == below:
                return text
    return _fmt(x) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def _fmt_toward(x: float, digits: int, rounding: str) -> str:
    """``x`` at ``digits`` significant digits, rounded with ``rounding`` (a :mod:`decimal` mode), written as
    :func:`~._values._fmt` writes numbers (integers below 10**15 whole, others as ``g`` gives them)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return _fmt(x)
    if digits <= 15:
        # the same text without decimal: ``g`` rounds the exact binary value to nearest, ties to even, as
        # _fmt_decimal's quantize does, and a text of at most 15 significant digits reads back as itself;
        # rounded down (up), it is that text where it reads back strictly below (above) x: the text is then
        # below (above) x too (reading is monotone and x is a double), and the nearest text on that side
        nearest = f"{float(x):.{digits}g}"
        if rounding == decimal.ROUND_HALF_EVEN or rounding == decimal.ROUND_FLOOR and float(nearest) < x \
                or rounding == decimal.ROUND_CEILING and float(nearest) > x:
            return nearest
    return _fmt_decimal(x, digits, rounding)


def _fmt_decimal(x: float, digits: int, rounding: str) -> str:
    """:func:`_fmt_toward` through :mod:`decimal`: ``x``'s exact value quantized at ``digits`` significant
    digits with ``rounding``, written with ``g``."""
    d = decimal.Decimal(float(x))
    q = d.quantize(decimal.Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=rounding)
    return f"{float(q):.{digits}g}"


def _exact_spec(name: str, values: np.ndarray, counts: np.ndarray, n_missing: int, *, bins: int,
                masses: np.ndarray | None = None, rows: str = "every row") -> FeatureSpec:
    """A numeric feature of integers beyond 2**53: levels and cut points kept as exact integers."""
    order = np.argsort(values, kind="stable")
    v = values.astype(np.int64)[order]
    c = counts[order]
    m = None if masses is None else np.asarray(masses, dtype=np.float64)[order]
    if v.size == 1 and not n_missing:
        raise VeracityError(f"numeric feature {name!r} has one value ({int(v[0])}) in {rows}; it splits "
                            "nothing, drop it from features=")
    if v.size <= bins:
        return FeatureSpec(name, "values", values=tuple(int(x) for x in v),
                           labels=tuple(str(int(x)) for x in v) + ((MISSING,) if n_missing else ()),
                           missing=v.size if n_missing else None)
    # a value holding a whole bin's rows (weight) in a bin of its own, as below 2**53: a zero-inflated id
    # column (0 where there is none) had every pick at 0 and one segment of every row
    picks = quantile_picks(v, bins, counts=c, weights=m)
    cuts = np.asarray(_separate_atoms(picks, v, c if m is None else m, bins))
    bounds = [int(v[0]), *(int(x) for x in cuts[cuts > v[0]]), int(v[-1])]
    labels = [f"[{bounds[i]}, {bounds[i + 1]})" for i in range(len(bounds) - 2)]
    labels.append(f"[{bounds[-2]}, {bounds[-1]}]")
    missing = None
    if n_missing:
        missing = len(labels)
        labels.append(MISSING)
    return FeatureSpec(name, "bins", cuts=tuple(bounds[1:-1]), labels=tuple(labels), missing=missing,
                       low=bounds[0], high=bounds[-1])


def _binned(name: str, cuts: np.ndarray, v: np.ndarray, n_missing: int) -> FeatureSpec:
    lo, hi = float(v[0]), float(v[-1])
    bounds = [lo, *cuts.tolist(), hi]
    t = _edge_texts(bounds, v)
    labels = [f"[{t[i]}, {t[i + 1]})" for i in range(len(bounds) - 2)]
    labels.append(f"[{t[-2]}, {t[-1]}]")
    if cuts.size and cuts[0] <= lo:  # explicit cuts below every value: the first bin is empty
        labels[0] = f"< {t[1]}"
    missing = None
    if n_missing:
        missing = len(labels)
        labels.append(MISSING)
    return FeatureSpec(name, "bins", cuts=tuple(float(c) for c in cuts), labels=tuple(labels),
                       missing=missing, low=lo, high=hi)
