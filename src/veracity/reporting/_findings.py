"""The report's two question sections: "Where it is miscalibrated" and "Which model?".

* :func:`segments_section` calls :func:`veracity.segments` once (issue 24) and shows its
  multicalibration error with its sigma, the discovered segments (segment, n, mean score,
  observed rate, gap with its interval, q-value), how many segments were tested and how
  many were too small, and the gap-per-segment figure (drawn by :mod:`veracity.plotting`'s
  dispatch, :func:`~veracity.plotting._dispatch.draw`).
* :func:`comparison_section` calls :func:`veracity.compare_models` once (issue 25) and
  shows the paired differences (Brier, log loss, ECE, AUC) with intervals and p-values, the
  CORP decomposition and its verdict sentence, and the Murphy diagram and decision curve
  (:func:`veracity.murphy_diagram`, :func:`veracity.decision_curve`, drawn the same way).

Every number on the page is the result object's own, formatted — the comparison's as its text prints
them, at the decimals of :mod:`veracity.comparison._digits` (two significant digits of a rare event's
small difference, not "+0.0000"); every name (feature, level, model) is escaped by :func:`._sections._e`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core._text import fmt_p
from ._sections import _e, _num, _section, _svg, _table

#: discovered segments listed in the table (the rest are counted)
MAX_DISCOVERIES = 25


def _p(value: Any) -> str:
    """A p- or q-value as the text results print it (:func:`~veracity.core._text.fmt_p`), escaped."""
    return _e(fmt_p(None if value is None else float(value)))


def _p_text(value: Any) -> str:
    """"p = 0.012", or "p < 0.0001" for the tiny ones (a p-value of 0 is an underflow, not a certainty)."""
    if value is not None and float(value) < 1e-4:
        return "p &lt; 0.0001"
    return f"p = {_p(value)}"


def _signed(value: Any, digits: int = 4) -> str:
    if value is None:
        return "n/a"
    v = float(value)
    if not np.isfinite(v):
        return "n/a"
    text = f"{v:+.{digits}f}"
    return "+" + text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.0000" from float noise


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


# -- where it is miscalibrated --------------------------------------------------------------------
def segments_section(result: Any, *, plots: bool, reading: str) -> tuple[str, str]:
    """(section HTML, one-line finding) for a :class:`~veracity.SegmentsResult`."""
    from ..segments._result import level_texts, row_digits

    found = list(result.discoveries)
    insufficient = result.n_segments - result.n_tested
    family = ("Benjamini–Hochberg" if result.depth == 1
              else "Benjamini–Hochberg for single features, Benjamini–Yekutieli for intersections")
    feats = ", ".join(f"<code>{_e(f)}</code>" for f in result.features)
    if found:
        worst = max(found, key=lambda r: abs(r.gap))
        worst_gap = _signed(worst.gap, row_digits(worst)[0])
        # the estimate with its count and interval, as the segments table gives them (the one line read alone:
        # the CLI's stdout, the notebook preview, the summary's JSON)
        worst_ci = (f"{result.level * 100:g}% CI [{_ci_end(worst.ci_low, row_digits(worst)[1])}, "
                    f"{_ci_end(worst.ci_high, row_digits(worst)[1])}]")
        finding = (f"{_plural(len(found), 'segment')} miscalibrated at FDR {result.fdr:g} "
                   f"(of {result.n_tested:,} tested); largest gap among them {worst_gap} in "
                   f"{worst.segment} ({worst.n:,} rows, {worst_ci})")
        verdict = (f"<strong>{_plural(len(found), 'segment')}</strong> of the {result.n_tested:,} tested "
                   f"{'is' if len(found) == 1 else 'are'} miscalibrated at a false-discovery rate of "
                   f"{result.fdr:g}; the largest gap among them is <strong>{worst_gap}</strong> in "
                   f'<span class="key">{_e(worst.segment)}</span> '
                   f"({worst.n:,} rows, {_e(worst_ci)}; "
                   f"{'more' if worst.gap > 0 else 'fewer'} positives than the scores say).")
    elif result.n_tested == 0:  # "no segment miscalibrated (0 of 0 tested)" read as a clean bill
        untested = (f"no segment holds min_count = {result.min_count:,} rows (effective rows, when weighted; "
                    f"{_plural(result.n_segments, 'segment')} formed)")
        finding = f"no segment was tested: {untested}, so none could be discovered"
        verdict = (f"<strong>No segment was tested</strong>: {_e(untested)}, so none could be discovered; "
                   "this says nothing about calibration within segments.")
    else:
        finding = (f"no segment miscalibrated at FDR {result.fdr:g} (0 of {result.n_tested:,} tested)")
        verdict = (f"<strong>No segment is distinguishable from calibrated</strong> at a false-discovery rate "
                   f"of {result.fdr:g}: {result.n_tested:,} segment{'s were' if result.n_tested != 1 else ' was'} "
                   "tested and none was discovered. That is not proof of calibration: <em>detectable gap</em> "
                   "is the smallest gap each segment could show at its size.")
    infinite = math.isinf(result.mce_sigma)  # certain scores (0 or 1) that labels contradict: see the notes
    sigma = "∞" if infinite else _num(result.mce_sigma, 2)
    # MCGrad's maximum runs over all rows too: say whether a segment or the whole population sets it
    mce_text, ecce_text, mde_text = (_e(level_texts(v)[0]) if np.isfinite(v) else _num(v)
                                     for v in (result.mce, result.global_ecce, result.mde))
    if np.isfinite(result.mce) and abs(result.mce - result.global_ecce) <= 1e-12 * max(1.0, abs(result.mce)):
        # the advice only when the MCE is beyond noise (its family p-value at most 1 - level): a 1.9 sigma MCE
        # (p = 0.165) of 60 rows read "the miscalibration is global (recalibrate first)"
        if result.mce_family_pvalue <= 1 - result.level:
            where = "set by all rows: the miscalibration is global (recalibrate first)"
        else:
            where = (f"set by all rows, within noise ({_e(result.mce_p_html())}): "
                     "no miscalibration shown to act on")
    else:
        where = f"set by a segment: all rows alone give {ecce_text}"
    cards = (
        '<div class="cards">'
        f'<div class="card" data-metric="mce"><div class="card-label">multicalibration error</div>'
        f'<div class="card-value">{"∞" if math.isinf(result.mce) else mce_text}</div><div class="card-sub">'
        # the p-value corrected for the maximum first; the sigma only with words that say it is not: "2.35 σ
        # (p = 0.725 ...)" read as significant beside a p-value that says the MCE is noise
        f'corrected for the maximum <span data-mce-p>({_e(result.mce_p_html())} in '
        f'{_plural(result.n_resamples, "draw")} under calibration, over '
        f'{_e(result.mce_family_text().replace(" >= ", " ≥ "))})</span>; '
        f'<span data-mce-sigma>{sigma} σ</span> is the largest segment\'s deviation alone, not corrected for '
        'the maximum; minimum detectable '
        f'{mde_text}<br>{where}<br>MCGrad\'s definition, over the same segments</div></div>'
        f'<div class="card" data-metric="n_discoveries"><div class="card-label">discovered</div>'
        f'<div class="card-value">{len(found):,}</div><div class="card-sub">segments at FDR {result.fdr:g}</div></div>'
        f'<div class="card" data-metric="n_tested"><div class="card-label">tested</div>'
        f'<div class="card-value">{result.n_tested:,}</div><div class="card-sub">of '
        f"{_plural(result.n_segments, 'segment')} (n ≥ {result.min_count:,})</div></div>"
        f'<div class="card" data-metric="n_insufficient"><div class="card-label">insufficient</div>'
        f'<div class="card-value">{insufficient:,}</div><div class="card-sub">segments under '
        f"{result.min_count:,} rows: not tested, never a discovery</div></div>"
        "</div>"
    )
    pct = f"{result.level * 100:g}%"
    if found:
        table = _segment_table(found[:MAX_DISCOVERIES], pct)
        if len(found) > MAX_DISCOVERIES:
            more = len(found) - MAX_DISCOVERIES
            table += (f'<p class="note">{_plural(more, "more discovery", "more discoveries")} '
                      f'{"is" if more == 1 else "are"} not listed: '
                      "<code>vc.segments(...).discoveries</code> has them all.</p>")
    else:
        closest = [r for r in result.rows if r.sufficient][:5]
        table = ("<h3>Closest to a discovery (not discoveries)</h3>" + _segment_table(closest, pct)
                 if closest else "")
    fig = ""
    if plots:
        from ..plotting._dispatch import draw

        figure = draw(result)
        if figure.axes:  # the section's cards say the counts and the MCE: a short title that fits beside long labels
            what = ("orange: discoveries" if result.n_tested else
                    f"none tested: each under min_count = {result.min_count:,} rows")
            figure.axes[0].set_title(f"Gap per segment, {pct} interval ({what})", fontsize=10,
                                     loc="left", color="#1f2933")
        fig = (f'<figure class="plot-box wide" style="max-width:860px">'
               f'{_svg(figure, "seg", "gap per segment with its interval")}</figure>')

    notes = [f"Segments of {feats} up to depth {result.depth}: categorical features by level (rare levels "
             "pooled into <em>other</em>), numeric features by equal-mass bins"
             + (", and their intersections. " if result.depth > 1 else ". ") +
             f"gap = observed rate − mean score ({_e(reading)}), with its {pct} interval; q-values by {family}, "
             "discoveries ranked by evidence × size."]
    notes.extend(_e(n) for n in result.notes)
    lead = ("A global ECE can hide a segment that is off by much more. Every segment over the named features "
            "is tested for calibration-in-the-large, with multiplicity control, so a discovery here is not a "
            "fluke of looking at many segments.")
    body = (cards + f'<p class="verdict" data-finding="segments">{verdict}</p>' + table + fig
            + f'<p class="note">{" ".join(notes)}</p>')
    return _section("segments", "Where it is miscalibrated", body, lead), finding


def _segment_table(rows: list[Any], pct: str) -> str:
    """The segments' table with the text table's marks: a discovery whose interval includes 0 marked ``*``
    (``**`` for a contradicted score of 0 or 1), the mark's footnote under the table, and the interval's
    ends printed as the text prints them (:mod:`veracity.segments._result`): the score, rate, gap and interval
    at the row's decimals (:func:`~veracity.segments._result.row_digits`: two significant digits at a rare
    event's scale, the common look elsewhere), the detectable gap at two significant digits, at least 3."""
    from ..core._digits import decimals
    from ..segments._result import CERTAIN_NOTE, SPREAD_NOTE, _p_cell, interval_mark, row_digits

    marks = [interval_mark(r) for r in rows]
    body = []
    for r, mark in zip(rows, marks):
        d, c = row_digits(r)
        body.append([
            f'<span class="key">{_e(r.segment)}</span>', f"{r.n:,}", _num(r.conf, d), _num(r.rate, d),
            f'<span class="{"neg" if r.gap < 0 else "pos"}">{_signed(r.gap, d)}</span>',
            f"[{_ci_end(r.ci_low, c)}, {_ci_end(r.ci_high, c)}]{mark}", _e(_p_cell(r, r.p_value)),
            _e(_p_cell(r, r.q_value)), _num(r.min_detectable_gap, decimals(r.min_detectable_gap, fewest=3)),
        ])
    table = _table(["segment", "n", "mean score", "rate", "gap", f"{pct} CI", "p", "q",
                    '<span title="the smallest gap this segment\'s size can detect">detectable</span>'], body,
                   cls="segments", numeric="lrrrrlrrr")
    # the text table's footnotes, without their parentheses: "* a discovery whose interval includes 0: ..."
    notes = [note for mark, note in (("*", SPREAD_NOTE), ("**", CERTAIN_NOTE)) if mark in marks]
    return table + "".join(f'<p class="note" data-mark="{_e(note.split()[0][1:])}">{_e(note[1:-1])}</p>'
                           for note in notes)


def _ci_end(value: Any, digits: int = 3) -> str:
    """An end of a segment's interval as the text table prints it, at ``digits`` decimals (the row's:
    :func:`~veracity.segments._result.row_digits`, which gives an interval clear of 0 the decimals that show
    its end nearest 0, ``-0.00013``): signed, so an end of an interval holding 0 keeps its sign."""
    v = float(value)
    return f"{v:+.{digits}f}" if np.isfinite(v) else "n/a"


# -- which model ----------------------------------------------------------------------------------
_METRIC_NAMES = {"brier": ("Brier", "lower"), "log_loss": ("log loss", "lower"), "ece": ("ECE (debiased)", "lower"),
                 "auc": ("AUC", "higher")}


def _ece_p_one_text() -> str:
    """The printout's note on a debiased-ECE difference that is not 0 with p = 1
    (:data:`veracity.comparison._compare.ECE_P_ONE`), naming the row as the page's table names it."""
    from ..comparison._compare import ECE_P_ONE

    return "ECE (debiased) p = 1" + ECE_P_ONE.removeprefix("ece_debiased p = 1") + "."


def comparison_section(result: Any, *, murphy: Any = None, curve: Any = None, plots: bool,
                       notes: list[str]) -> tuple[str, str]:
    """(section HTML, one-line finding) for a :class:`~veracity.comparison.ModelComparison` of two models."""
    from ..comparison._compare import _row_texts

    a, b = result.models[0], result.models[1]
    pct = f"{result.level * 100:g}%"
    rows, classes = [], []
    for r in result.rows:
        # each number as the comparison's text prints it, at its row's decimals (comparison._digits: at a
        # 0.5 % base rate a Brier row read "0.0054  0.0054  +0.0000  [+0.0000, +0.0000]  B better"; a
        # difference within noise no finer than its values' 4 significant digits, with a note below the table
        # where it prints as 0: an AUC near-tie at the AUCs' 4 decimals)
        value_a, value_b, diff, low, high = _row_texts(r)
        name, better = _METRIC_NAMES.get(r.metric, (r.metric, ""))
        sig = np.isfinite(r.ci_low) and np.isfinite(r.ci_high) and (r.ci_low > 0 or r.ci_high < 0)
        b_better = (r.diff > 0) == (better == "higher")
        if not (np.isfinite(r.ci_low) and np.isfinite(r.ci_high)):
            word, cls = "no interval", ""
        elif r.diff == 0 and r.ci_low == 0 and r.ci_high == 0:  # e.g. one ranking: the AUCs are one number
            word, cls = "same", ""
        elif r.diff == 0 or not sig:
            word, cls = "within noise", ""
        else:
            word, cls = (f"{b} better", "good") if b_better else (f"{b} worse", "bad")
        ci = (f'<span class="ci">[{low}, {high}]</span>' if np.isfinite(r.ci_low) and np.isfinite(r.ci_high)
              else '<span class="muted">no interval</span>')
        rows.append([f'<strong>{_e(name)}</strong> <span class="muted">({better} is better)</span>',
                     value_a, value_b, f'<span class="{cls}">{diff}</span>', ci,
                     _p(r.p_value), _e(r.method), f'<span class="{cls}">{_e(word)}</span>'])
        classes.append("")
    table = _table(["metric", _e(a), _e(b), f"{_e(b)} − {_e(a)}", f"{pct} paired CI", "p-value", "method",
                    "reading"], rows, cls="comparison", numeric="lrrrlrll", row_classes=classes)
    # a difference within noise printed as 0 at its values' digits though it is not 0 (an AUC near-tie at the
    # AUCs' 4 decimals, a Brier near-tie at the Brier scores' 4 significant digits): its numbers, as the text
    # says them
    table += "".join(f'<p class="note" data-note="{_e(m)}">{_e(t)}</p>' for m, t in result._noise_notes)
    if result._ece_p_one:  # a bare p of 1 beside a difference that is not 0 read as "identical"
        table += f'<p class="note" data-note="ece_p_one">{_e(_ece_p_one_text())}</p>'
    corp = ""
    if result.corp:
        # the levels and differences as the text prints them: a column's levels at its differences' decimals
        crow = [[f'<span class="key">{_e(name)}</span>', *(_e(t) for t in texts), ""]
                for name, texts in result._corp_levels()]
        for d, texts in result._corp_diffs():
            ci = ""
            if np.isfinite(d.mcb_low) and np.isfinite(d.dsc_low):
                ci = f'<span class="ci">MCB {_e(texts[4])}</span> · <span class="ci">DSC {_e(texts[5])}</span>'
            crow.append([f"<strong>{_e(d.model_b)} − {_e(d.model_a)}</strong>", *map(_e, texts[:4]), ci])
        corp = ("<h3>CORP decomposition of the Brier score</h3>"
                + _table(["model", "Brier", "MCB (miscalibration)", "DSC (discrimination)", "UNC", f"{pct} CI"],
                         crow, cls="corp", numeric="lrrrrl")
                + '<p class="note">Brier = MCB − DSC + UNC (Dimitriadis, Gneiting &amp; Jordan 2021): lower MCB '
                "is better calibrated, higher DSC: more resolution (discrimination); UNC depends on the labels "
                "only.</p>"
                # a CORP part within noise printed as 0 at its levels' digits: its numbers, as the text says
                + "".join(f'<p class="note" data-note="corp_{_e(m)}">{_e(t)}</p>'
                          for m, t in result._corp_notes))
    verdict = result.verdict or "no verdict (no probability reading)"
    figs = []
    if plots:
        from ..plotting._dispatch import draw

        if murphy is not None:
            figs.append(_svg(draw(murphy), "murphy", "Murphy diagram: mean elementary score by threshold"))
        if curve is not None:
            figs.append(_svg(draw(curve), "dcurve", "decision curve: net benefit by threshold probability"))
    fig = ""
    if figs:
        fig = '<div class="figure-row">' + "".join(f'<figure class="plot-box">{f}</figure>' for f in figs) + "</div>"
    boot = (f"{_plural(result.n_resamples, 'paired Poisson bootstrap resample')} "
            f"(random_state {_e(result.random_state)})"
            if result.n_resamples else "no bootstrap (ECE and CORP differences have no interval)")
    # weighted: the rows and their Kish effective size, as the text's header says them
    note_items = [f"Both models on the same {_e(result._rows_text())}, so every difference is paired: Brier "
                  f"and log loss by a paired t (Diebold–Mariano) interval, AUC by DeLong's test, ECE by {boot}."]
    note_items.extend(_e(n) for n in result.notes)
    lead = (f"Is <code>{_e(b)}</code> better than <code>{_e(a)}</code>, and is the difference real? Each "
            "difference is B − A with a paired interval and p-value; the CORP decomposition says whether a "
            "model wins on resolution (discrimination) or only on calibration. The Murphy diagram shows "
            "which model is better for which cost ratio; the decision curve shows net benefit against "
            "treating everyone or no one.")
    body = (f'<p class="verdict" data-finding="comparison">{_e(verdict)}</p>' + table + corp + fig
            + f'<p class="note">{" ".join(note_items)}</p>')
    return _section("comparison", "Which model?", body, lead), f"{b} vs {a}: {verdict}"
