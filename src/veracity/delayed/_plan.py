r"""How many randomly chosen rows to label per window for a PPI interval of a given width.

With :math:`n` labelled rows out of a window whose :math:`N` scores are all known, PPI
(:math:`\lambda = 1`) estimates the rate with variance

.. math:: \frac{\sigma^2_{y-f}}{n} + \frac{\sigma^2_f}{N}, \qquad
          \sigma^2_{y-f} = \mathrm{E}[f(1-f)] \text{ if the scores are calibrated},

so an interval of full width :math:`w` at level :math:`1-\alpha` (half-width :math:`h = w/2`,
:math:`z = \Phi^{-1}(1-\alpha/2)`) needs

.. math:: n_{\text{PPI}} = \left\lceil \frac{\overline{f(1-f)}}{(h/z)^2 - \widehat{\mathrm{Var}}(f)/N}
          \right\rceil,
          \qquad
          n_{\text{classical}} = \left\lceil \frac{z^2\,\bar f(1-\bar f)}{h^2} \right\rceil

labels, the second for the labels alone (:math:`\bar f(1-\bar f) = \overline{f(1-f)} +
\widehat{\mathrm{Var}}(f)`: PPI saves the part of the outcome's variance the scores explain).
Both are read from the window's scores alone. If the scores are miscalibrated the
rectifier's variance :math:`\mathrm{E}[(y - f)^2]` is larger than :math:`\overline{f(1-f)}` and
the interval comes out wider than planned — PPI stays valid, only less precise; the
power-tuned :math:`\lambda` of :func:`~veracity.ppi_mean` can only narrow it. The width is the
expected one: about half the windows come out a little wider, half a little narrower.

A rare outcome — fewer than 10 labels of one class expected, :math:`n \min(\bar f, 1 - \bar f) < 10` —
gets the modified Wilson interval from :func:`~veracity.ppi_mean`, which is wider than the normal one;
there the count is raised to the smallest whose modified Wilson interval at :math:`\hat p = \bar f` with
PPI's effective labels :math:`n^* = \bar f(1 - \bar f) / (\overline{f(1-f)}/n + \mathrm{Var}(f)/N)` is
at most :math:`w` (:func:`_rare_plan`; the labels alone: :math:`n^* = n`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._display import Display
from ..core._text import fmt, render_table
from ..core._keys import MISSING_NAME, array_keys, is_missing, refuse_shared_names
from ..core._validation import VeracityError, check_same_index
from ._ppi import check_level, probabilities_1d, z_of


#: the label counts of :func:`plan_from_sums` are capped here (more than any window holds)
MORE_THAN_ANY = 2**62


def _check_width(width: Any) -> float:
    if isinstance(width, bool) or not isinstance(width, (int, float, np.floating)) or not 0.0 < width < 1.0:
        raise VeracityError(f"width must be the interval's full width, a number in (0, 1) such as 0.02; "
                            f"got {width!r}")
    return float(width)


def plan_from_sums(*, rows: Any, sum_f: Any, sum_ff: Any, width: float, level: float = 0.95
                   ) -> tuple[np.ndarray, np.ndarray]:
    r"""``(n_ppi, n_classical)`` per window from its rows, :math:`\sum f` and :math:`\sum f^2`
    (vectorised; -1 where no number of labels reaches the width, NaN-free)."""
    width = _check_width(width)
    z = z_of(check_level(level))
    N = np.asarray(rows, dtype=np.float64)
    hz = width / 2.0 / z
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        mean = np.asarray(sum_f, dtype=np.float64) / N
        second = np.asarray(sum_ff, dtype=np.float64) / N
        var = np.maximum(second - mean * mean, 0.0)
        bern = np.maximum(mean - second, 0.0)  # mean of f(1 - f)
        # some number of labels reaches the width unless Var(f)/N >= (h/z)^2 — compared as standard
        # deviations, since (h/z)^2 underflows to 0 for widths below about 1e-154; a variance within
        # the one-pass formula's rounding error (N eps E[f^2]) is constant scores, not spread
        reachable = (np.sqrt(var / N) < hz) | (var <= N * np.finfo(np.float64).eps * second)
        room = np.maximum(hz * hz - var / N, 0.0)  # 0 only by underflow where reachable: infinitely many
        n_ppi = np.where(reachable, np.where(bern > 0, np.ceil(bern / room - 1e-9), 2.0), -1.0)
        spread = mean * (1.0 - mean)
        n_cls = np.where(spread > 0, np.ceil(z * z * spread / (width / 2.0) ** 2 - 1e-9), 2.0)
        n_ppi = np.where(N > 0, np.maximum(n_ppi, np.where(reachable, 2.0, -1.0)), -1.0)
        n_cls = np.where(N > 0, np.maximum(n_cls, 2.0), -1.0)
    # counts beyond any window (even infinite, for a width so small it underflows) are capped, not
    # wrapped round to negative numbers by the cast
    n_ppi, n_cls = np.minimum(n_ppi, float(MORE_THAN_ANY)), np.minimum(n_cls, float(MORE_THAN_ANY))
    # a rare outcome gets the modified Wilson interval, wider than the normal one: plan for that width
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        n_ppi = _rare_plan(n_ppi, mean, bern, var / N, width, level, ppi=True)
        n_cls = _rare_plan(n_cls, mean, bern, var / N, width, level, ppi=False)
    return n_ppi.astype(np.int64), n_cls.astype(np.int64)


def _rare_width(n: np.ndarray, mean: np.ndarray, bern: np.ndarray, var_n: np.ndarray, level: float,
                ppi: bool) -> np.ndarray:
    r"""Width of the modified Wilson interval :func:`~veracity.core._intervals.modified_wilson` that
    :func:`~veracity.ppi_mean` reports for a rare outcome from ``n`` labels, at :math:`\hat p = \bar f` with
    PPI's effective labels :math:`n^* = \bar f(1 - \bar f) / (\overline{f(1-f)}/n + \mathrm{Var}(f)/N)`
    (``ppi``; :math:`n^* = n` for the labels alone, or where that has no spread)."""
    from ..core._intervals import modified_wilson

    spread = mean * (1.0 - mean)
    se2 = bern / n + var_n
    n_star = np.where(ppi & (spread > 0) & (se2 > 0), spread / se2, n)
    n_star = np.where(np.isfinite(n_star) & (n_star > 0), n_star, n)
    low, high = modified_wilson(mean, n_star, level)
    return high - low


def _rare_plan(n0: np.ndarray, mean: np.ndarray, bern: np.ndarray, var_n: np.ndarray, width: float,
               level: float, *, ppi: bool) -> np.ndarray:
    r"""The counts ``n0`` of the normal interval, raised where the labels would hold fewer than
    :data:`~veracity.delayed._ppi_sums.EXACT_BELOW` expected rows of the rarer class, :math:`n_0
    \min(\bar f, 1 - \bar f) < 10`: :func:`~veracity.ppi_mean` then reports the modified Wilson interval
    (:func:`~veracity.delayed._ppi_sums.rare_outcome_interval`), which is wider, so the count is the smallest
    :math:`n \ge n_0` whose modified Wilson interval at :math:`\bar f` (:func:`_rare_width`) is at most
    ``width`` — or the :math:`n` at which 10 rows of the rarer class are expected, where the normal interval
    (at most ``width`` from :math:`n_0` on) takes over. Planned from the normal width alone, calibrated
    scores at a rate of 0.002-0.01 with 2-4 expected labelled events gave intervals 1.12-1.18 times the
    asked width in the median window (about 30 % of windows within it); scores all 0 asked for 2 labels,
    whose interval (modified Wilson for 0 of 2) is 0.88 wide (tests/delayed/test_labels_needed_rare_r27.py).
    Vectorised: a bisection over the integers, 63 steps at most."""
    from ._ppi_sums import EXACT_BELOW

    n0 = np.asarray(n0, dtype=np.float64)
    rarer = np.minimum(mean, 1.0 - mean)
    switch = np.where(rarer > 0, np.ceil(EXACT_BELOW / rarer - 1e-9), float(MORE_THAN_ANY))
    switch = np.minimum(switch, float(MORE_THAN_ANY))
    need = (n0 > 0) & (n0 < switch) & np.isfinite(rarer)
    if not need.any():
        return n0
    lo = np.where(need, n0 - 1.0, 0.0)  # not enough (or not asked): the answer is in (lo, hi]
    hi = np.where(need, switch, 1.0)  # enough: the normal interval from here on
    for _ in range(64):
        active = hi - lo > 1.0
        if not active.any():
            break
        mid = np.floor((lo + hi) / 2.0)
        ok = _rare_width(np.where(active, mid, 1.0), mean, bern, var_n, level, ppi) <= width * (1 + 1e-12)
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid, lo)
    # beyond 2^53 labels the width is rounding noise (1 - low rounds to 0 at p = 1): no count reaches it
    return np.where(need, np.where(hi > 2.0**53, float(MORE_THAN_ANY), hi), n0)


def labels_needed(scores: Any, *, width: float, level: float = 0.95, score_type: str = "probability") -> int:
    r"""Randomly chosen rows to label in a window for a PPI interval of full ``width``.

    ``scores`` — the window's scores (all its rows; logits with ``score_type="logit"``, read as
    expit(s)). The formula is in
    :mod:`veracity.delayed._plan`: :math:`\lceil \overline{f(1-f)} / ((w/2z)^2 -
    \mathrm{Var}(f)/N) \rceil`, at least 2 — raised, for a rare outcome (fewer than 10 expected labels of one
    class), to the count whose modified Wilson interval, the one :func:`~veracity.ppi_mean` then reports, has
    the width.

    >>> labels_needed([0.1] * 5000 + [0.5] * 5000, width=0.04)
    1698
    """
    f = probabilities_1d(scores, score_type=score_type, what="vc.labels_needed")
    n_ppi, _n_cls = plan_from_sums(rows=f.size, sum_f=f.sum(), sum_ff=f @ f, width=width, level=level)
    n = int(n_ppi)
    if n < 0:
        raise VeracityError(f"no number of labels gives an interval of width {width:g} at level {level:g}: the "
                            f"{f.size} scores alone vary too much (sd {f.std():.3g}); ask for a wider interval or "
                            "pool more rows per window")
    if n > f.size:
        needs = f"{n:,}" if n < MORE_THAN_ANY else f"more than {MORE_THAN_ANY:.1e}"
        rows = f"{f.size:,} row{'' if f.size == 1 else 's'}"
        raise VeracityError(f"an interval of width {width:g} needs {needs} labels but the window has only {rows}; "
                            "ask for a wider interval or pool more rows per window")
    return n


@dataclass(frozen=True, repr=False)
class LabelPlan(Display):
    """Labels to draw at random per group (window, cohort) for a PPI interval of ``width``."""

    rows: tuple[dict[str, Any], ...]
    width: float
    level: float

    def to_dict(self) -> dict[str, Any]:
        from ._sequence import json_key

        return {"width": self.width, "level": self.level,
                "plan": [{**r, "group": json_key(r["group"])} for r in self.rows]}

    #: the printout's last line: what the plan assumes, and what n/a means
    CAVEAT = ("(assumes calibrated scores; miscalibration widens the interval, never biases it; n/a: more "
              "labels than rows, or no number of labels is enough)")

    def _repr_html_(self) -> str:
        """The notebook view: the printout's headers, the saving in %, and its caveat (the generic view
        printed raw keys, ``saving 0.4444`` and dropped the caveat)."""
        from ..core._display import html_kv, html_note, html_page, html_table

        records = [{"group": str(r["group"]), "rows": r["rows"], "mean score": r["mean_score"],
                    "sd": r["sd_score"],
                    "labels (PPI)": r["labels_ppi"], "labels (labels only)": r["labels_classical"],
                    "saving": "n/a" if r["saving"] is None else f"{r['saving']:.0%}"} for r in self.rows]
        parts = [html_kv({"level": f"{self.level * 100:g}%", "width": f"{self.width:g}"}),
                 html_table(records, wide=True), html_note(self.CAVEAT)]
        return html_page(self._title(), parts, str(self))

    def __str__(self) -> str:
        from ._sequence import shown_keys

        missing = [r["group"] == MISSING_NAME for r in self.rows]  # dates stay dates beside the missing group
        shown = iter(shown_keys([r["group"] for r, m in zip(self.rows, missing) if not m]))
        groups = [MISSING_NAME if m else next(shown) for m in missing]
        body = [[g, f"{r['rows']:,}", fmt(r["mean_score"]), fmt(r["sd_score"]),
                 "n/a" if r["labels_ppi"] is None else f"{r['labels_ppi']:,}",
                 "n/a" if r["labels_classical"] is None else f"{r['labels_classical']:,}",
                 "n/a" if r["saving"] is None else f"{r['saving']:.0%}"] for g, r in zip(groups, self.rows)]
        lines = [f"labels to draw at random for a {self.level * 100:g}% PPI interval of width {self.width:g}",
                 render_table(["group", "rows", "mean score", "sd", "labels (PPI)", "labels (labels only)",
                               "saving"], body),
                 self.CAVEAT]
        return "\n".join(lines)


def label_plan(scores: Any, *, width: float, level: float = 0.95, by: Any = None,
               score_type: str = "probability") -> LabelPlan:
    """A :class:`LabelPlan`: :func:`labels_needed` for each group of ``by`` (e.g. window keys), or all rows
    (``score_type="logit"``: logits, read as expit(s))."""
    check_same_index(scores=scores, by=by)  # pandas keys on another index would be paired by position
    f = probabilities_1d(scores, score_type=score_type, what="vc.label_plan")
    from ._sequence import _plain  # dates as dates: datetime64[ns].item() is a bare integer

    if by is None:
        keys: list[Any] = ["(all)"]
        inv = np.zeros(f.size, dtype=np.intp)
    else:
        raw = array_keys(by, "by")  # keys as vc.audit reads them: nullable integers stay integers, nulls kept
        if raw.ndim != 1 or raw.shape[0] != f.shape[0]:
            raise VeracityError(f"by must give one group key per score ({f.shape[0]}), got shape {raw.shape}")
        missing = np.isnan(raw) if raw.dtype.kind in "fc" else np.isnat(raw) if raw.dtype.kind in "mM" else \
            np.frompyfunc(is_missing, 1, 1)(raw).astype(bool) if raw.dtype == object else \
            np.zeros(f.size, dtype=bool)
        try:
            distinct, inv = np.unique(raw[~missing], return_inverse=True)
        except TypeError:
            raise VeracityError("by must be group keys of one type (window names, dates, numbers)",
                                param="by") from None
        # -0.0 is the group 0.0 and a float32 0.1 is 0.1 (not 0.10000000149011612), as vc.audit names them
        keys = [float(str(k_)) + 0.0 if raw.dtype.kind == "f" else _plain(k_) for k_ in distinct]
        if missing.any():  # the missing keys' group, last, named as vc.audit names its slice (was refused)
            refuse_shared_names([*keys, None])  # a key '(missing)' beside missing keys: two groups, one name
            full = np.full(f.size, len(keys), dtype=np.intp)
            full[~missing] = inv.reshape(-1)
            inv, keys = full, [*keys, MISSING_NAME]
    k = len(keys)
    rows = np.bincount(inv, minlength=k).astype(np.float64)
    sf = np.bincount(inv, weights=f, minlength=k)
    sff = np.bincount(inv, weights=f * f, minlength=k)
    return plan_from_group_sums(keys, rows=rows,
                                sum_f=sf, sum_ff=sff, width=width, level=level)


def plan_from_group_sums(keys: list[Any], *, rows: Any, sum_f: Any, sum_ff: Any, width: float,
                         level: float = 0.95) -> LabelPlan:
    r"""A :class:`LabelPlan` from per-group rows, :math:`\sum f` and :math:`\sum f^2` (e.g. a store's windows)."""
    rows = np.asarray(rows, dtype=np.float64)
    sf = np.asarray(sum_f, dtype=np.float64)
    sff = np.asarray(sum_ff, dtype=np.float64)
    n_ppi, n_cls = plan_from_sums(rows=rows, sum_f=sf, sum_ff=sff, width=width, level=level)
    out = []
    for i in range(len(keys)):
        empty = not rows[i] > 0  # a group without rows (a window with no scores): no mean, no spread, no plan
        mean = sf[i] / rows[i] if not empty else float("nan")
        ppi = int(n_ppi[i]) if 0 < n_ppi[i] <= rows[i] else None
        cls = int(n_cls[i]) if 0 < n_cls[i] <= rows[i] else None
        out.append({"group": keys[i],
                    "rows": int(rows[i]), "mean_score": float(mean),
                    "sd_score": float("nan") if empty else
                    float(math.sqrt(max(sff[i] / rows[i] - mean * mean, 0.0))),
                    "labels_ppi": ppi, "labels_classical": cls,
                    "saving": None if ppi is None or cls is None else 1.0 - ppi / cls})
    return LabelPlan(rows=tuple(out), width=float(width), level=float(level))
