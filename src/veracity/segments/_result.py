"""The result of :func:`veracity.segments`: one row per segment, the discoveries, the MCE."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..core._digits import clear_of_zero_decimals, decimals, level_text
from ..core._display import Display, fmt_weight
from ..core._text import fmt, fmt_count, fmt_p, render_table

_ROW_KEYS = ("segment", "features", "depth", "n", "weight", "conf", "rate", "gap", "ci_low", "ci_high",
             "z", "p_value", "q_value", "sufficient", "discovery", "test", "ece", "ece_floor",
             "min_detectable_gap", "ecce", "ecce_sigma", "importance")


#: the text table's columns, in its order (the notebook's table shows these first)
_TEXT_KEYS = ("segment", "n", "conf", "rate", "gap", "ci_low", "ci_high", "p_value", "q_value")


def _num(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


@dataclass(frozen=True, repr=False)
class SegmentRow(Display):
    """One segment: its size, mean score (``conf``), observed rate, ``gap = rate - conf`` with its
    interval, the calibration test (``p_value``, ``q_value``, ``discovery``), the segment's own ECE
    beside its noise floor, the smallest gap its size can detect, and MCGrad's ECCE.

    ``importance`` (the order of the discoveries) is evidence × size: ``-log10(p_value)`` times
    the segment's share of the total weight; ``weight`` is Σw (= n unweighted)."""

    segment: str
    features: dict[str, str]
    depth: int
    n: int
    weight: float
    conf: float
    rate: float
    gap: float
    ci_low: float
    ci_high: float
    z: float | None
    p_value: float | None
    q_value: float | None
    sufficient: bool
    discovery: bool
    test: str | None
    ece: float
    ece_floor: float
    min_detectable_gap: float
    ecce: float
    ecce_sigma: float
    importance: float
    level: float = 0.95  # of the interval (ci_low, ci_high)

    def to_dict(self) -> dict[str, Any]:
        return {k: (dict(self.features) if k == "features" else _num(getattr(self, k))) for k in _ROW_KEYS}

    def __str__(self) -> str:
        return _table([self], self.level)


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


#: the footnotes of a discovery whose interval of the gap includes 0, by the mark on its interval
#: (:func:`interval_mark`): the test weighs the gap against calibration's spread, the interval does not
SPREAD_NOTE = ("(* a discovery whose interval includes 0: the test weighs the gap against the spread calibration "
               "would give these scores, sum w^2 p(1 - p); the interval, Wilson on the observed rate, allows for any "
               "true probabilities, so it is wider)")
CERTAIN_NOTE = ("(** a discovery whose interval includes 0: a score of exactly 0 or 1 that its label contradicts "
                "cannot happen under calibration, so p = 0 whatever the gap)")


def selection_note(level: float, fdr: float) -> str:
    """The footnote under every printed table of segments: its intervals hold for each segment on its own,
    not for the segment picked because its p is small (simulated in
    tests/segments/test_interval_selection_r44.py: the 95 % interval of the smallest p among 10 calibrated
    segments covered the true gap 66-68 % of the time, each segment's 95 %); the FDR control of the
    discoveries is what allows for the picking."""
    lv = f"{level * 100:g}%"
    return (f"(each {lv} interval is its own segment's, not adjusted for picking that segment: the worst "
            f"segment's, or a discovery's, can cover its true gap far less often than {lv}; the part that "
            f"allows for the picking is the FDR control: on average at most {fdr:g} of the discoveries are "
            "false)")


def interval_mark(row: SegmentRow) -> str:
    """``"*"`` on a discovery whose interval of the gap includes 0 (its test compares the gap with the
    spread calibration gives these scores, narrower than the interval's, which allows for any true
    probabilities);
    ``"**"`` where the discovery is a certain one (a contradicted score of 0 or 1: p = 0 whatever the
    gap); ``""`` otherwise. A reader otherwise takes such a row for a contradiction."""
    if not (row.discovery and row.ci_low <= 0.0 <= row.ci_high):
        return ""
    return "**" if row.test == "certain" else "*"


def _p_cell(row: SegmentRow, value: float | None) -> str:
    """A p- or q-value's cell: ``0`` for a certain segment's exact zero (a contradicted score of 0 or 1: no
    underflow, so not ``<1e-300``, which reads as a tail too small to print), else :func:`fmt_p`."""
    return "0" if row.test == "certain" and value == 0.0 else fmt_p(value)


#: what the MCE's sigma is, said beside it wherever it is printed (the report's MCE card says so too): the
#: largest of many segments' deviations, whose p-value is the MCE's, corrected for the maximum
SIGMA_WORDS = "the largest segment's alone, not corrected for the maximum"

#: the decimals of a segment's interval at common rates (its gap, score and rate print at 4)
CI_DECIMALS = 3


def row_digits(row: SegmentRow) -> tuple[int, int]:
    r"""(decimals of the row's score, rate and gap; decimals of its interval's ends), by the digits rule of
    :mod:`veracity.core._digits`: the score, the rate and the group (gap, ci_low, ci_high) each show their
    largest magnitude :math:`m` to two significant digits, :math:`d(m) = 1 - \lfloor \log_{10} m \rfloor`,
    and share the most decimals any of them needs, at least 4; the interval keeps its 3 decimals while its
    group needs no more (every magnitude of 0.01 or more), else takes the row's. So a segment at a common
    rate prints as it always did ("+0.0312  [+0.018, +0.045]") and one at a 0.5 % base rate shows its
    digits ("+0.0028  [+0.0019, +0.0037]", not "[+0.002, +0.004]"; "-0.00003  [-0.00091, +0.00085]", not
    "-0.0000  [-0.001, +0.001]").

    An interval clear of 0 whose end nearest 0 would print as 0 at those decimals gets the decimals that
    show that end to two significant digits (:func:`~veracity.core._digits.decimals` of the end alone, at
    most :data:`~veracity.core._digits.MOST`): the demo's ``segment=mobile``, an interval of
    [-0.05358, -0.00013] that is no discovery (q = 0.07), printed "[-0.054, -0.000]", which reads as one
    that touches 0; it prints "[-0.05358, -0.00013]". A gap that its 3-decimal ends would print outside its
    interval (the gap of a rate of 0 is the interval's low end: "-0.2772 [-0.277, -0.268]") gives the ends
    the gap's decimals."""
    group = (row.gap, row.ci_low, row.ci_high)
    d = decimals(row.conf, row.rate, group)
    c = CI_DECIMALS if decimals(group, fewest=CI_DECIMALS) == CI_DECIMALS else d
    if c < d and not round(row.ci_low, c) <= round(row.gap, d) <= round(row.ci_high, c):
        # the gap on an end of its interval (a rate of 0: the interval's low end is -conf) printed outside
        # it, "-0.2772 [-0.277, -0.268]": the ends get the gap's decimals
        c = d
    return d, clear_of_zero_decimals(row.ci_low, row.ci_high, c)


def row_texts(row: SegmentRow) -> dict[str, str]:
    """The row's score, rate, gap and interval ends as the text table prints them (:func:`row_digits`): an
    end clear of 0 never prints as 0 (it takes the digits that show it), and an end of an interval that
    holds 0 keeps its sign."""
    d, c = row_digits(row)
    return {"conf": fmt(row.conf, d), "rate": fmt(row.rate, d), "gap": fmt(row.gap, d, sign=True),
            "ci_low": fmt(row.ci_low, c, sign=True), "ci_high": fmt(row.ci_high, c, sign=True)}


def level_texts(*values: float) -> list[str]:
    """Levels (an MCE, a minimum detectable gap) at :func:`~veracity.core._digits.level_text`'s decimals (two
    significant digits, at least 4), sharing the most any of them needs; a huge or non-finite one as
    :func:`_fixed` prints it."""
    d = decimals(*[v for v in values if math.isfinite(v) and abs(v) < 1e6])
    return [_fixed(v, d) for v in values]


def _table(rows: list[SegmentRow], level: float | None = None) -> str:
    """The rows' table, and under it the footnote of each mark its intervals carry (:func:`interval_mark`)."""
    if level is None:  # the rows' own level (a row's own printout passes only rows)
        level = rows[0].level if rows else 0.95
    marks = [interval_mark(r) for r in rows]
    pad = max(map(len, marks), default=0)
    body = []
    for r, mark in zip(rows, marks):
        flag = "discovery" if r.discovery else ("" if r.sufficient else "insufficient")
        t = row_texts(r)
        body.append([r.segment, f"{r.n:,}", t["conf"], t["rate"], t["gap"],
                     f"[{t['ci_low']}, {t['ci_high']}]{mark:<{pad}}", _p_cell(r, r.p_value),
                     _p_cell(r, r.q_value), flag])
    table = render_table(["segment", "n", "conf", "rate", "gap", f"{level * 100:g}% CI of gap" + " " * pad, "p", "q",
                          ""], body, align="lrrrrrrrl")
    notes = [note for mark, note in (("*", SPREAD_NOTE), ("**", CERTAIN_NOTE)) if mark in marks]
    return "\n".join([table, *notes])


@dataclass(frozen=True, repr=False)
class SegmentsResult(Display):
    r"""Every segment of the family (``rows``: discoveries first, most important first, then the
    others by p-value), the discoveries, and the multicalibration error (``mce``, ``mce_sigma``,
    ``mce_pvalue``, ``mde``) as MCGrad defines it over the same family.

    ``str()`` marks a discovery whose interval of the gap includes 0 and says why under the table
    (:func:`interval_mark`): the test weighs the gap against the spread calibration gives these scores,
    the interval (Wilson on the observed rate) allows for any true probabilities and is wider.

    ``mce_family_pvalue`` is the p-value of the MCE itself, valid at any event rate: the statistic
    ``mce_sigma`` (the maximum over ``mce_segments`` (K) segments) drawn ``n_resamples`` (R) times under
    calibration, :math:`p = (1 + \#\{T^* \ge T\}) / (R + 1)` (module ``_mce_null``; at least
    1/(R + 1), seeded by ``random_state``); ``str()`` and the report print it.

    ``mce_pvalue`` (also ``mce_pvalue_mcgrad``) is MCGrad's number, kept for parity: the chance that
    *one* calibrated segment reaches ``mce_sigma`` under the law of the range of a Brownian motion
    (summed as the law's tail series: MCGrad's ``1 - F`` cancels to 0 from about 8 sigma). It is no
    family p-value (57-64 % false alarms at 5 % with K = 34, simulated in the suite), and its law is a
    large-segment one: where a segment expects few of its rarer label its path is a handful of jumps and
    the law far too thin. ``mce_family_pvalue_mcgrad`` = min(1, K · ``mce_pvalue``) is its Bonferroni
    bound over the family, valid only where every segment expects many of both labels (on click-rate
    segments expecting ~1 click it fell below 0.05 in 15-27 % of calibrated data sets)."""

    rows: tuple[SegmentRow, ...]
    n: int
    weight: float
    conf: float
    rate: float
    features: tuple[str, ...]
    depth: int
    fdr: float
    min_count: int
    level: float
    mce: float
    mce_sigma: float
    mce_pvalue: float
    mde: float
    global_ecce: float
    n_segments: int
    n_tested: int
    cells: str
    levels: dict[str, list[str]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    mce_family_pvalue: float = math.nan
    mce_segments: int = 0
    mce_family_pvalue_mcgrad: float = math.nan
    n_resamples: int = 0
    random_state: int | None = None  # the seed of the draws (None: the default seed 0, or a Generator)

    @property
    def mce_pvalue_mcgrad(self) -> float:
        """``mce_pvalue`` under a name that says whose it is (MCGrad's per-segment Brownian reading)."""
        return self.mce_pvalue

    @property
    def discoveries(self) -> tuple[SegmentRow, ...]:
        return tuple(r for r in self.rows if r.discovery)

    def segment(self, text: str) -> SegmentRow:
        """The row of one segment by its text, e.g. ``result.segment("region=EU")``."""
        for r in self.rows:
            if r.segment == text:
                return r
        from ..core._validation import VeracityError

        # the same conditions in another order ("device=ios & region=EU"): "no segment" read as if that
        # segment had not been searched; its text names the features in the order of features=
        parts = sorted(text.split(" & ")) if isinstance(text, str) else None
        same = next((r.segment for r in self.rows if sorted(r.segment.split(" & ")) == parts), None)
        if same is not None:
            raise VeracityError(f"no segment {text!r} in this result, but {same!r} is the same segment: a "
                                "segment's text names its features in the order of features=")
        raise VeracityError(f"no segment {text!r} in this result; see [r.segment for r in result.rows]")

    def mce_p_text(self) -> str:
        """``p = 0.012`` for the MCE's family p-value (simulated under calibration); ``p <= 0.005`` when no
        draw of ``n_resamples`` = 199 reached the MCE (1/(R + 1), the smallest such a p-value can be: a
        bound, not a value); ``p = 0`` at an infinite sigma (impossible under calibration)."""
        p = self.mce_family_pvalue
        if p != p:
            return "p = n/a"
        if math.isinf(self.mce_sigma) or p == 0.0:
            return "p = 0"
        if self.n_resamples and p <= 1.0 / (self.n_resamples + 1.0) * (1.0 + 1e-12):
            return f"p <= {fmt_p(p)}"
        return f"p = {fmt_p(p)}"

    def mce_p_html(self) -> str:
        """:meth:`mce_p_text` as a page prints it: a bound reads ``p ≤ 0.005`` (the terminal text keeps
        ASCII ``p <= 0.005``)."""
        return self.mce_p_text().replace("p <= ", "p ≤ ", 1)

    def interval_note(self) -> str:
        """What the intervals of the gap are, under any printed table (:func:`selection_note`): each
        segment's own at ``level``, not adjusted for picking the worst segment or the discoveries."""
        return selection_note(self.level, self.fdr)

    def mce_family_text(self) -> str:
        """``28 segments: all rows and the 27 with n >= 50``: what the MCE's maximum runs over (MCGrad's
        family: every row, and each segment of at least ``min_count`` rows)."""
        others = self.mce_segments - 1
        within = f"all rows and the {others:,} with n >= {self.min_count:,}" if others > 0 else "all rows"
        return f"{_count(self.mce_segments, 'segment')}: {within}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n, "weight": _num(self.weight), "conf": self.conf, "rate": self.rate,
            "features": list(self.features), "depth": self.depth, "fdr": self.fdr, "min_count": self.min_count,
            "level": self.level, "mce": _num(self.mce), "mce_sigma": _num(self.mce_sigma),
            "mce_pvalue": self.mce_pvalue, "mce_family_pvalue": self.mce_family_pvalue,
            "mce_segments": self.mce_segments, "mce_family_pvalue_mcgrad": self.mce_family_pvalue_mcgrad,
            "n_resamples": self.n_resamples, "random_state": self.random_state,
            "mde": self.mde, "global_ecce": self.global_ecce,
            "n_segments": self.n_segments, "n_tested": self.n_tested,
            "n_discoveries": len(self.discoveries), "cells": self.cells,
            "levels": {k: list(v) for k, v in self.levels.items()}, "notes": list(self.notes),
            "interval_note": _unwrap(self.interval_note()),
            "segments": [r.to_dict() for r in self.rows],
        }

    def _summary_items(self) -> dict[str, Any]:
        """The notebook's key numbers under the names the text gives them (not ``mce_sigma``,
        ``global_ecce``, ``cells grid``); ``to_dict()`` keeps the field names. The MCE's p-value, corrected
        for the maximum, comes before its sigma, which is named for what it is (:data:`SIGMA_WORDS`): "0.0185
        (2.52 sigma)" read as significant beside a p-value of 0.505. MCGrad's per-segment Brownian reading
        (``mce_pvalue``: 0.047 there) is no test of the whole family and is shown only in the notebook's
        detailed view (:meth:`_repr_html_`). A bound on the p-value reads ``≤ 0.005`` here (HTML), and the
        tested segments ``(n ≥ 50)``; the text keeps ASCII ``p <= 0.005`` and ``(n >= 50)``
        (:meth:`mce_p_text`)."""
        p = self.mce_p_html()
        items: dict[str, Any] = {
            "rows": f"{self.n:,}", "mean score": level_text(self.conf), "observed rate": level_text(self.rate),
            "segments": f"{self.n_segments:,}, {self.n_tested:,} tested (n ≥ {self.min_count:,})",
            "discoveries": f"{len(self.discoveries):,} at FDR {self.fdr:g}",
            "MCE (MCGrad's definition)": level_texts(self.mce)[0],
            f"MCE p-value, corrected for the maximum ({_count(self.n_resamples, 'draw')} under calibration, "
            f"{_count(self.mce_segments, 'segment')})":
                p.removeprefix("p = ").removeprefix("p "),
            f"MCE sigma ({SIGMA_WORDS})": _fixed(self.mce_sigma, 2),
            "minimum detectable MCE": level_texts(self.mde)[0],
            "ECCE of all rows": level_texts(self.global_ecce)[0],
            "ECCE path": "each distinct score" if self.cells == "distinct" else "equal-width score cells",
        }
        if self.weight != self.n:
            items["rows"] = f"{self.n:,} (weight {fmt_weight(self.weight)})"
        return items

    def _title(self) -> str:
        """The notebook's title: the text's header, its ``(n >= 50)`` as a page prints it, ``(n ≥ 50)`` (the
        terminal text keeps ASCII, as :meth:`mce_p_html` does for the MCE's p-value bound)."""
        return super()._title().replace(" (n >= ", " (n ≥ ", 1)

    def _frame_records(self) -> list[dict[str, Any]]:
        out = []
        for r in self.rows:
            d = r.to_dict()
            d.pop("features")
            out.append(d)
        return out

    def _html_records(self) -> list[dict[str, Any]]:
        """The notebook's rows with the text table's columns first (segment, n, conf, rate, gap, interval,
        p, q), then the others."""
        return [{**{k: d[k] for k in _TEXT_KEYS}, **d} for d in self._frame_records()]

    def _repr_html_(self) -> str:
        """The notebook's view: key numbers, every segment's row with the text table's columns (the shared
        table showed its first eight: depth, n, weight … and no p or q), gaps and intervals signed as the
        text prints them, every column under "all N columns", the footnotes of the text's marked intervals,
        the text's line for no discovery and its notes (they were only in the collapsed text: a row of 129
        rows flagged insufficient under "tested (n ≥ 50)" with no reason shown), and the text itself."""
        from ..core._digits import Cell
        from ..core._display import html_details, html_kv, html_note, html_page, html_table

        # the score, rate, gap, interval, p and q as the text prints them (:func:`row_texts`, :func:`_p_cell`:
        # 0.009 and 0.071, not 0.0089 and 0.0715 beside the text's); to_frame() keeps floats
        records = [{**d, **{k: Cell(v) for k, v in row_texts(r).items()},
                    "p_value": Cell(_p_cell(r, r.p_value)), "q_value": Cell(_p_cell(r, r.q_value))}
                   for d, r in zip(self._html_records(), self.rows)]
        shown = [{k: r[k] for k in (*_TEXT_KEYS, "sufficient", "discovery")} for r in records]
        notes = [note for mark, note in (("*", SPREAD_NOTE), ("**", CERTAIN_NOTE))
                 if any(interval_mark(r) == mark for r in self.rows)]
        marked = [r.segment for r in self.rows if interval_mark(r)]
        where = f"{', '.join(marked[:3])}{' …' if len(marked) > 3 else ''}: " if marked else ""
        signed = ("gap", "ci_low")
        # what the text says beside its table, shown on the page too (not only in the collapsed text): why
        # nothing was found, and the notes (rows shown but not tested for uneven weights, contradicted
        # scores of 0 or 1 behind p = 0, an infinite MCE, pooled levels)
        said = [] if self.discoveries else [self._nothing_found()]
        said += [f"note: {_unwrap(t)}" for t in self.notes]
        parts = [html_kv(self._summary_items()), html_table(shown, wide=True, signed=signed),
                 *(html_note(where + note.strip("()").lstrip("* ")) for note in notes),
                 *(html_note(t) for t in said),
                 html_details(f"all {len(records[0]) if records else 0} columns",
                              html_table(records, wide=True, signed=signed)) if records else "",
                 html_details("MCGrad's per-segment reading (not the test of the whole family)",
                              self._mcgrad_html())]
        return html_page(self._title(), parts, str(self))

    def _mcgrad_html(self) -> str:
        """The detailed view's MCGrad numbers, kept for parity: the per-segment Brownian p-value of the MCE's
        sigma (``mce_pvalue``) and its Bonferroni bound (``mce_family_pvalue_mcgrad``), each named for what it
        is — a reading of one segment, not the test of the whole family (the MCE p-value above, drawn under
        calibration, is that)."""
        from ..core._display import html_kv

        return html_kv({
            "per-segment p-value of the sigma (MCGrad's Brownian reading; not the test of the whole family)":
                fmt_p(self.mce_pvalue),
            f"its Bonferroni bound over {_count(self.mce_segments, 'segment')} (valid only where every "
            "segment expects many of both labels)": fmt_p(self.mce_family_pvalue_mcgrad)})

    def __str__(self) -> str:
        return self._text()

    def _nothing_found(self) -> str:
        """The line that stands for the discoveries' table when there is none: nothing was tested, or nothing
        is distinguishable at this FDR (with the gaps the tested sizes could see: "no difference" may be "not
        enough data")."""
        if self.n_tested == 0:  # "none distinguishable" would read as a clean bill: nothing was tested
            return (f"no segment was tested: none holds min_count = {self.min_count:,} rows (effective rows, "
                    "when weighted); lower min_count to test them")
        gaps = [r.min_detectable_gap for r in self.rows if r.p_value is not None]
        mdg = level_texts(min(gaps), max(gaps))
        return ("no segment is distinguishable from calibrated at this FDR — not proof of calibration: "
                f"the tested segments' minimum detectable gaps run from {mdg[0]} to {mdg[-1]} "
                "(found 80 % of the time at 5 %, before the FDR correction)")

    def procedure(self) -> str:
        """The FDR procedures, in words: Benjamini-Hochberg (BH) over single features, Benjamini-Yekutieli
        (BY) over intersections (their tests are dependent), as the printout's header and the plot's title
        name them."""
        if self.depth > 1 and self.n_tested and not any(r.depth > 1 and r.p_value is not None for r in self.rows):
            return "BH; no intersection holds enough rows to be tested"  # the singles keep the whole budget
        return "BH" if self.depth == 1 else "BH for single features, BY for intersections"

    def _text(self, every: bool = False) -> str:
        """The printout: the header, the discoveries' table (``every=True``: every segment's, as the command
        line's ``--all`` prints it, discoveries first, then the others by p-value), its footnotes, the MCE
        and the notes."""
        fam = self.procedure()
        head = (f"Segments of {_names(self.features)} (depth {self.depth}): {_count(self.n_segments, 'segment')}, "
                f"{self.n_tested:,} tested (n >= {self.min_count:,}), FDR {self.fdr:g} ({fam}); "
                f"{self.n:,} rows")
        disc = list(self.discoveries)
        lines = [head]
        if every:
            lines.append(_table(list(self.rows), self.level))
        if disc:
            if not every:
                lines.append(_table(disc[:20], self.level))
            more = f"; {len(disc) - 20} more in .discoveries" if len(disc) > 20 and not every else ""
            rest = "; then the others by p-value" if every and len(disc) < len(self.rows) else ""
            lines.append(f"({len(disc)} miscalibrated segment{'s' if len(disc) != 1 else ''}, most important "
                         f"first{more}{rest})")
        else:
            lines.append(self._nothing_found())
        if disc or (every and self.rows):  # a table of intervals was printed
            lines.append(self.interval_note())
        # the p-value corrected for the maximum first; the sigma with the words that say it is not:
        # "MCE 0.0185 (2.52 sigma, p = 0.505 ...)" read as significant beside a p-value calling the MCE noise
        lines.append(f"multicalibration error (MCGrad's definition): MCE {level_texts(self.mce)[0]} "
                     f"({self.mce_p_text()} in {_count(self.n_resamples, 'draw')} under calibration, over "
                     f"{self.mce_family_text()}); {_fixed(self.mce_sigma, 2)} sigma: {SIGMA_WORDS}; "
                     f"minimum detectable {level_texts(self.mde)[0]}")
        lines.extend(self.notes)
        return "\n".join(lines)


def _unwrap(note: str) -> str:
    """A note without the parentheses the text prints it in (the page sets it apart as a note)."""
    return note[1:-1] if note.startswith("(") and note.endswith(")") else note


def _names(features: tuple[str, ...]) -> str:
    """The features as the header lists them: each as a segment's text names it (:func:`._values.quoted`),
    and in double quotes where it holds a comma, so that ``"region, x", age`` reads as two features."""
    import json

    from ._values import quoted

    shown = [quoted(f, level=False) for f in features]
    return ", ".join(json.dumps(f, ensure_ascii=False) if "," in q and not q.startswith('"') else q
                     for f, q in zip(features, shown))


def _fixed(x: float, digits: int) -> str:
    """Fixed decimals, or 4 significant digits from 1e6 on: huge logits give an MCE of 1e150 sigmas,
    whose 150 digits say nothing more (``2.484e+150``)."""
    return f"{x:.4g}" if math.isfinite(x) and abs(x) >= 1e6 else f"{x:.{digits}f}"
