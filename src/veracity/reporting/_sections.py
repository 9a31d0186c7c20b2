"""HTML fragments of the report: escaping helpers and one renderer per section.

Every value that reaches the page passes through :func:`_e` (HTML-escape) or a
number formatter; nothing user-supplied is ever inserted raw.
"""

from __future__ import annotations

import html
import json
import math
import re
from datetime import datetime, timezone
from importlib import resources
from typing import Any

import numpy as np

from ..core._audit import AuditResult
from ..core._reliability import ReliabilityTable
from ..core._display import added_term, interval_cell
from ..core._text import interval_name
from ..core._validation import VeracityError
from ..honest._bootstrap import WEIGHTED_AUC_NOTE, WEIGHTED_MEANS, WEIGHTED_MEANS_NOTE
from .._version import __version__
from ..plotting._curves import threshold_curve, threshold_grid
from ..plotting._style import visible

# -- small helpers ----------------------------------------------------------------------------
def _e(value: Any) -> str:
    """Escape any value for HTML text or a quoted attribute; a direction-changing or invisible
    character (:data:`~veracity.plotting._style.HIDDEN`) shows as its ``\\uXXXX`` escape: a U+202E in a
    column name reversed the rest of the page's sentence around it."""
    return html.escape(visible(value), quote=True)


def _num(value: Any, digits: int = 4) -> str:
    if value is None:
        return "n/a"
    try:
        x = float(value)
    except (TypeError, ValueError):
        return _e(value)
    if not math.isfinite(x):
        return "n/a"
    if abs(x) >= 1e6:  # a huge finite value (an MCE of 1e15 sigma) in a few digits, not sixteen
        return f"{x:.{digits}g}"
    return f"{x:.{digits}f}"


def _count(x: float) -> str:
    """A count, or a weight sum read at 12 significant digits first (as
    :func:`~veracity.core._display.fmt_weight` reads it): 100 rows weighing 0.1 print weight "10" whatever
    the last bit of their sum, where the page printed "10.0" for 9.999999999999998; a whole count prints
    every digit."""
    x = float(x)
    if math.isfinite(x) and not x.is_integer():
        x = float(f"{x:.12g}")
    return f"{int(x):,}" if x.is_integer() else f"{x:,.1f}"


def _json_script(payload: Any) -> str:
    """JSON safe inside <script>: no '<', '>' or '&' survive literally."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _asset(name: str) -> str:
    return (resources.files("veracity.reporting") / name).read_text(encoding="utf-8")


def _svg(fig: Any, prefix: str, label: str) -> str:
    """A matplotlib Figure as inline SVG: text kept as text, ids made unique per figure."""
    import io

    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": prefix, "svg.fonttype": "none"}):
        # the same page, its artists drawn once instead of twice (a tight bbox, set in a user's
        # matplotlibrc, is measured after savefig's first draw: that draw stays whole)
        once = matplotlib.rcParams["savefig.bbox"] != "tight"
        if once:
            fig.draw = _layout_only_first(fig)
        try:
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        finally:
            if once:
                del fig.draw
    _release(fig)
    return _inline(buf.getvalue(), prefix, label)


_WORD = re.compile(r"\w")


def _inline(text: str, prefix: str, label: str) -> str:
    """matplotlib's SVG file as an element of the page: no XML header or metadata, ids (and the
    references to them) prefixed by ``prefix``, no fixed size, labelled ``label`` for screen readers."""
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    # ``\bid="`` as a literal search (a pattern starting with ``\b`` was tried at every character of
    # the file: a fifth of the time of a 4 MB figure) and the word boundary checked on each hit
    src = text
    text = re.sub(r'id="([^"]+)"', lambda m: (m.group(0) if m.start() and _WORD.match(src, m.start() - 1)
                                               else f'id="{prefix}-{m.group(1)}"'), src)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", text)
    text = re.sub(r'xlink:href="#([^"]+)"', lambda m: f'xlink:href="#{prefix}-{m.group(1)}"', text)
    text = re.sub(r'\s(width|height)="[0-9.]+pt"', "", text, count=2)
    text = text.replace("<svg ", f'<svg role="img" aria-label="{_e(label)}" class="plot" ', 1)
    return text.strip()


def _release(fig: Any) -> None:
    """Drop what a drawn figure holds (its artists and their data) without ``fig.clear()``, which
    rebuilt every Axes' ticks and spines only to throw them away (a tenth of a report's figure time)."""
    for ax in fig.axes:
        for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.texts, *ax.images, *ax.tables]:
            artist.remove()
        if ax.legend_ is not None:
            ax.legend_.remove()
    for legend in list(fig.legends):
        legend.remove()


def _layout_only_first(fig: Any) -> Any:
    """``fig.draw`` for one ``savefig``: a figure with a layout engine is drawn twice, first with
    the renderer's output disabled only to run the layout, then for real with the layout engine off.
    Here the first pass does nothing and the second runs the layout (what ``Figure.draw`` does before
    drawing its artists) with the renderer that then draws: walking every artist with output disabled
    took a third of a report's figure time, and a layout measured with a renderer of its own measured
    every text twice (matplotlib caches text extents per renderer); neither changes a byte of the SVG.
    Any other draw is ``Figure.draw`` itself."""
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    deferred: list[Any] = []

    def draw(renderer: Any) -> None:
        engine = fig.get_layout_engine()
        if isinstance(engine, ConstrainedLayoutEngine) and fig.axes and fig.get_visible():
            deferred.append(engine)
            fig.stale = False
            return
        if deferred:
            fig._get_renderer = lambda: renderer
            try:
                deferred.pop().execute(fig)
            except ValueError:  # as Figure.draw
                pass
            finally:
                del fig._get_renderer
        Figure.draw(fig, renderer)

    return draw


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        return False
    return True


def _table(headers: list[str], rows: list[list[str]], *, cls: str = "", numeric: str | None = None,
           row_classes: list[str] | None = None) -> str:
    """An HTML table; cells are already-escaped HTML. ``numeric``: 'l'/'r' per column."""
    align = numeric or ("l" + "r" * (len(headers) - 1))
    head = "".join(
        f'<th class="{"num" if a == "r" else ""}">{h}</th>' for h, a in zip(headers, align)
    )
    body = []
    for i, row in enumerate(rows):
        rc = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        cells = "".join(
            f'<td class="{"num" if a == "r" else ""}">{c}</td>' for c, a in zip(row, align)
        )
        body.append(f"<tr{rc}>{cells}</tr>")
    return (f'<div class="table-wrap"><table class="{cls}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def _card(label: str, value: str, sub: str = "", *, key: str = "") -> str:
    data = f' data-metric="{_e(key)}"' if key else ""
    sub_html = f'<div class="card-sub">{sub}</div>' if sub else ""
    return (f'<div class="card"{data}><div class="card-label">{label}</div>'
            f'<div class="card-value">{value}</div>{sub_html}</div>')


def _section(sid: str, title: str, body: str, lead: str = "") -> str:
    lead_html = f'<p class="lead">{lead}</p>' if lead else ""
    return f'<section id="{sid}"><h2>{_e(title)}</h2>{lead_html}{body}</section>'


# -- sections ---------------------------------------------------------------------------------
def _verdict(table: ReliabilityTable) -> str:
    ok = [r for r in table.rows if r.sufficient]
    over = sum(1 for r in ok if r.ci_high < r.conf)
    under = sum(1 for r in ok if r.ci_low > r.conf)
    thin = len(table.rows) - len(ok)
    pct = f"{table.level * 100:g}%"
    seen = "effective observations" if table.weighted else "observations"
    # the interval is the observed frequency's (binomial), so the sentence says so: it read "the observed
    # frequency lies below / above the interval around the mean confidence", an interval not computed
    # a one-sided interval tests one direction only: an upper bound [0, hi] never lies above the mean
    # confidence, so "0 under-confident" was said of bins whose observed rate was 6 times their confidence
    side = table.sided if table.sided in ("upper", "lower") else ""
    bound = f"{side} bound" if side else "interval"
    if ok:
        judged = f"Of {len(ok)} bin{'s' if len(ok) != 1 else ''} with at least {table.min_count} {seen}, "
        if side == "upper":
            judged += (f"<strong>{over}</strong> {'is' if over == 1 else 'are'} over-confident beyond their "
                       f"{pct} upper bound (the {pct} upper bound of the observed frequency lies below the "
                       "mean confidence); a one-sided upper bound does not test under-confidence.")
        elif side == "lower":
            judged += (f"<strong>{under}</strong> {'is' if under == 1 else 'are'} under-confident beyond "
                       f"their {pct} lower bound (the {pct} lower bound of the observed frequency lies above "
                       "the mean confidence); a one-sided lower bound does not test over-confidence.")
        else:
            judged += (f"<strong>{over}</strong> {'is' if over == 1 else 'are'} over-confident and "
                       f"<strong>{under}</strong> under-confident beyond their {pct} interval (the {pct} "
                       "interval of the observed frequency lies wholly below / above the mean confidence).")
        parts = [judged]
        # per-bin intervals carry no multiplicity control: on a calibrated model each one misses about
        # (1 - level) of the time, so about (1 - level) * (number of bins judged) bins are flagged by chance
        # alone (one flagged bin of 11 read as a finding on perfectly calibrated data); a one-sided bound
        # misses on its one side about (1 - level) of the time too
        chance = (1 - table.level) * len(ok)
        if over + under:
            parts.append(f"A calibrated model would have about {chance:.1f} such bins "
                         f"by chance alone (each {pct} {bound} misses about {(1 - table.level) * 100:g}% of "
                         "the time): judge the whole by the ECE's noise floor, not by a few bins.")
    else:  # "Of 0 bins …, 0 are over-confident and 0 under-confident" read as a clean bill
        parts = [f"No bin has at least {table.min_count} {seen}, so none is judged over- or under-confident."]
    if thin:
        parts.append(f"{thin} bin{'s' if thin != 1 else ''} with fewer {seen} "
                     f"{'are' if thin != 1 else 'is'} marked <em>insufficient</em>: do not act on them.")
    return " ".join(parts)


def _intervals_dict(result: AuditResult) -> dict[str, Any] | None:
    """The audit's bootstrap section as a dict, when it computed one."""
    section = result.extras.get("intervals")
    if section is None:
        return None
    d = section.to_dict() if hasattr(section, "to_dict") else section
    return d if isinstance(d, dict) else None


def _interval_row(result: AuditResult, metric: str) -> dict[str, Any] | None:
    """One metric's row of the bootstrap section (estimate, low, high, method, note), when there is one."""
    d = _intervals_dict(result)
    if d is None:
        return None
    rows = d.get("intervals", d)
    row = next((v for k, v in rows.items() if str(k).lower() == metric), None) if isinstance(rows, dict) else None
    return row if isinstance(row, dict) else None


#: the advice of a target-recall threshold that cannot be fit, in vc.report's words (the command line's own:
#: ``cli/_report._cli_words``)
LOWER_TARGET_RECALL = "lower target_recall, or pass recall_threshold= (a threshold chosen on calib rows)"


#: how the bootstrap's notes about some metrics' intervals alone begin, and those metrics: the weighted AUC's,
#: and the weighted Brier score's, log loss's and accuracy's (each shown beside those metrics only)
_ONLY_FOR = {WEIGHTED_AUC_NOTE.split("{", 1)[0]: {"auc"},
             WEIGHTED_MEANS_NOTE.split("{", 1)[0]: set(WEIGHTED_MEANS)}


def _note_concerns(note: str, metric: str) -> bool:
    """Whether a bootstrap note belongs beside ``metric``'s interval: a note about some metrics only
    (:data:`_ONLY_FOR`) beside those, any other note beside every interval."""
    return all(metric in metrics for head, metrics in _ONLY_FOR.items() if note.startswith(head))


def _interval_of(result: AuditResult, metric: str = "ece") -> tuple[float, float, str, str] | None:
    """(low, high, label, detail) of a metric's bootstrap interval when the audit computed one."""
    d = _intervals_dict(result)
    row = _interval_row(result, metric)
    if d is None or row is None:
        return None
    try:
        low, high = float(row["low"]), float(row["high"])
    except (KeyError, TypeError, ValueError):
        return None
    level = d.get("level", result.table.level)
    method = row.get("method") or d.get("method")  # the row's own (the ECE's is "bias-aware"), else the section's
    label = f"{float(level) * 100:g}% CI"
    detail = "bootstrap" + (f" ({method})" if method else "")
    if d.get("n_resamples"):
        detail += f", {d['n_resamples']} resamples"
    if row.get("note"):  # the ECE's "plug-in bias up to 0.0556 allowed for"
        detail += f"; {row['note']}"
    # why an interval is n/a (too few rows of a class); the weighted AUC's coverage note beside the AUC only
    notes = [str(t) for t in d.get("notes") or () if _note_concerns(str(t), metric)]
    if notes:
        detail += "; " + "; ".join(notes)
    return low, high, label, detail


def _noise_floor_of(result: AuditResult) -> dict[str, Any] | None:
    section = result.extras.get("noise_floor")
    if section is None:
        return None
    d = section.to_dict() if hasattr(section, "to_dict") else section
    return d if isinstance(d, dict) else None


def _summary(result: AuditResult, reading: str) -> str:
    d = result.decomposition
    ece_sub = _e(result.table.mce_text())  # as every printout shows it: the thin bins' maximum apart
    interval = _interval_of(result)
    if interval is not None:
        ece_sub = (f'<span data-ece-interval title="{_e(interval[3])}">{_e(interval[2])} '
                   f"{interval_cell(_num(interval[0]), _num(interval[1]))}</span><br>" + ece_sub)
    floor = _noise_floor_of(result)
    if floor is not None and floor.get("expected") is not None:
        ece_sub += f"<br>noise floor {_num(floor.get('expected'))}"
        if floor.get("p_value") is not None:
            # as the slices table prints it: at 1/(R + 1), the smallest R redraws can give, "p ≤ 0.001"
            # (a bound: no redraw reached the ECE), not "p = 0.001"
            from ..core._text import fmt_p

            redraws = floor.get("n_resamples")
            p_value = float(floor["p_value"])
            p_text = _p_bound(p_value, int(redraws)) if redraws else _e(fmt_p(p_value))
            ece_sub += f" (p {p_text})" if p_text.startswith(("≤", "&lt;")) else f" (p = {p_text})"
        if floor.get("p_value") is not None:
            alpha = 1.0 - result.table.level  # the level of the interval beside it
            above = float(floor["p_value"]) <= alpha
            redraws = floor.get("n_resamples")
            if not above and redraws and 1.0 / (int(redraws) + 1.0) > alpha:  # no p-value could reach alpha
                ece_sub += (f' <span class="badge warn" title="{int(redraws):,} redraws cannot give a p-value '
                            f'at or below {alpha:g}">undecided (too few redraws)</span>')
            else:
                ece_sub += (' <span class="badge ' + ("warn" if above else "ok") + '">'
                            + ("above noise" if above else "within noise") + "</span>")
                ece_sub += _which_decides(result, interval, above, float(floor["p_value"]), alpha)

    def ci(metric: str) -> str:
        iv = _interval_of(result, metric)
        return "" if iv is None else (f'<span title="{_e(iv[3])}">{_e(iv[2])} '
                                      f"{interval_cell(_num(iv[0]), _num(iv[1]))}</span><br>")

    weighted = not math.isclose(result.total_weight, result.n)
    share = "weighted share" if result.table.weighted else "share"
    # the within-bin term makes the terms add up to the Brier shown (exact for any data)
    within = d.within_variance - 2.0 * d.within_covariance
    cards = [
        _card("rows", f"{result.n:,}", f"total weight {_count(result.total_weight)}" if weighted
              else f"score type: {_e(result.score_type)}", key="n"),
        _card("base rate", _num(result.base_rate), f"{share} of positives", key="base_rate")
        if not result.top_label else _mean_confidence_card(result, share),
        _card("ECE", _num(result.ece), ece_sub, key="ece"),
        # (N, K) scores: the Brier is the top label's, (confidence − correct)², not the K-class sum
        # Σ_k (p_k − 1[y = k])² that scikit-learn's multiclass Brier reads (the NLL beside it is −log p_y)
        _card("Brier" if not result.top_label else "Brier (top label)", _num(result.brier),
              ci("brier") + ("" if not result.top_label else "(confidence − correct)², not the sum over "
                             "classes<br>")
              + f"reliability {_num(d.reliability)} − resolution {_num(d.resolution)} "
              f"+ uncertainty {_num(d.uncertainty)} {_within_term(within)}",
              key="brier"),
        _card("NLL", _num(result.nll), ci("nll") + "mean log-loss (nats)", key="nll"),
        _card("AUC", _num(result.auc), ci("auc") + ("ranking; unchanged by monotone calibration"
                                                     if not result.top_label else
                                                     "top-label confidence: right answers ranked above wrong "
                                                     "ones (a calibrator can change it)"), key="auc"),
        _card(f"accuracy @ {result.threshold:g}" if not result.top_label else "accuracy (argmax)",
              _num(result.accuracy), f"{share} of rows with (p ≥ {result.threshold:g}) = label"
              if not result.top_label else f"{share} of rows whose top class is the label", key="accuracy"),
    ]
    return (f'<div class="cards">{"".join(cards)}</div>'
            f'<p class="verdict">{_verdict(result.table)}</p>')


def _which_decides(result: AuditResult, interval: tuple[float, float, str, str] | None, above: bool, p: float,
                   alpha: float) -> str:
    r"""The sentence under an ECE card whose interval and noise-floor verdict seem to disagree: an interval
    that includes 0 beside "above noise" (or, rarer, one that excludes 0 beside "within noise").

    They answer two questions. The noise floor is the test of calibration: the plug-in ECE against its
    exact distribution when the labels are Bernoulli(score) (:mod:`veracity.honest._noise_floor`), so it
    decides whether the ECE is distinguishable from noise. The interval is of the error's size: bias-aware
    (:func:`veracity.honest._bootstrap._bias_aware`), its low end is
    :math:`\max(0, \widehat{\mathrm{ECE}} - \beta - q)` with :math:`\beta` the plug-in bias it allows for at
    any true error, so on a few rows (:math:`\beta` near the ECE itself) it reaches 0 where the test, which
    knows the bias under calibration exactly, rejects: 17 of 90 seeded data sets of 60-150 rows with a gap
    of 0.12 showed a 95 % interval from 0 beside p <= 0.05 (one is in tests/report/test_noise_r31.py)."""
    if interval is None or not (math.isfinite(interval[0]) and math.isfinite(interval[1])):
        return ""
    if (round(interval[0], 4) <= 0.0) != above:  # the low end as printed: they agree, nothing to say
        return ""
    if above:
        row = _interval_row(result, "ece")
        note = str(row.get("note", "")) if row else ""
        bias = (f"up to {_e(note.split('bias up to ', 1)[1].split(' ', 1)[0])} of "
                if "bias up to " in note else "")
        text = (f"The noise-floor test decides. The interval allows for {bias}plug-in bias, so its low end 0 "
                "does not mean calibrated.")
    else:
        text = (f"The noise-floor test decides (p = {_num(p, 3)} &gt; {alpha:g}). The interval's low end "
                "above 0 is not a test of calibration.")
    return f'<br><span class="note" data-ece-reconcile>{text}</span>'


def _within_term(within: float) -> str:
    """The within-bin term as the text's Brier line adds it (:func:`~veracity.core._display.added_term`),
    with the page's minus sign: a term that rounds to 0.0000 takes the formula's "+", never the sign of its
    rounding noise (±1e-18 printed "− within-bin 0.0000" on one route, "+ within-bin 0.0000" on another)."""
    sign = "−" if added_term("within-bin", within).startswith("-") else "+"
    return f"{sign} within-bin {_num(abs(within))}"


def _mean_confidence(result: AuditResult) -> float:
    r"""The (weighted) mean top-label confidence :math:`\sum_b \mathrm{sum\_p}_b / \sum_b w_b` of an audit's
    table (NaN without weight)."""
    stats = result.table.stats
    total = float(stats.weight.sum())
    return float(stats.sum_p.sum()) / total if total > 0 else float("nan")


def _mean_confidence_card(result: AuditResult, share: str) -> str:
    r"""Top-label scores' second card: the mean confidence :math:`\sum_b w_b \mathrm{conf}_b / \sum_b w_b`
    against the accuracy (the mean of correct), the calibration-in-the-large of the top label. (Its
    ``base_rate`` is the top-label accuracy: a card of it repeated the accuracy card beside it.)

    The gap is called over- or under-confident only beyond noise: its interval is
    :math:`\mathrm{gap} \pm z\,\sqrt{\sum_b W2_b\,\bar c_b(1-\bar c_b)} / W` (``W2_b`` the bin's sum of
    squared weights, its row count unweighted; ``\bar c_b`` its mean confidence: the variance of
    correct − confidence under calibration, with each row's ``c(1 - c)`` bounded by its bin's, so a little
    wide);
    "gap +0.0106, under-confident on average" was printed for a calibrated model's ±0.025 of noise."""
    from statistics import NormalDist

    stats = result.table.stats
    total = float(stats.weight.sum())
    conf = _mean_confidence(result)
    gap = result.base_rate - conf  # the table's acc - conf over all its rows
    level = result.table.level
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_c = np.where(stats.weight > 0, stats.sum_p / np.where(stats.weight > 0, stats.weight, 1.0), 0.0)
    spread = math.sqrt(float(np.sum(stats.weight_sq * mean_c * (1 - mean_c))))
    half = NormalDist().inv_cdf(0.5 + level / 2) * spread / total if total > 0 else math.nan
    sig = math.isfinite(gap) and math.isfinite(half) and abs(gap) > half
    side = ("over-confident" if gap < 0 else "under-confident") + " on average" if sig else "within noise"
    sub = (f"{'weighted ' if share.startswith('weighted') else ''}mean of the top-label confidence, against "
           f"the share of correct top labels {_num(result.base_rate)}: gap {gap:+.4f}, {side} "
           f"({level * 100:g}% interval [{gap - half:+.4f}, {gap + half:+.4f}])")
    return _card("mean confidence", _num(conf), sub, key="mean_confidence")


def _reliability_table(table: ReliabilityTable) -> str:
    weighted = not np.array_equal(table.stats.weight, table.stats.count)
    last = table.bins - 1
    pct = f"{table.level * 100:g}%"
    # a one-sided interval's column named as the text table names it ("95% upper CI"): "95% CI" over
    # [0.000, 0.335] read as a two-sided interval of a rate observed at 0.30
    side = f" {table.sided}" if table.sided in ("upper", "lower") else ""
    headers = ["bin", "weight" if weighted else "count", "conf", "acc", "gap", f"{pct}{side} CI", ""]
    rows, classes = [], []
    for r in table.rows:
        rows.append([
            _e(r.label(r.index == last)),
            _count(r.n),
            _num(r.conf),
            _num(r.acc),
            f'<span class="{"neg" if r.gap < 0 else "pos"}">{r.gap:+.4f}</span>',
            f"[{_num(r.ci_low, 3)}, {_num(r.ci_high, 3)}]",
            "" if r.sufficient else '<span class="badge warn">insufficient</span>',
        ])
        classes.append("" if r.sufficient else "thin")
    out = _table(headers, rows, cls="reliability", numeric="lrrrrll", row_classes=classes)
    notes = [f"{table.n:,} points, {table.bins} {_e(table.strategy)} bin{'s' if table.bins != 1 else ''}; "
             f"ECE {_num(table.ece)}, {_e(table.mce_text())}."]
    if table.empty_bins:
        notes.append(f"{_e(table.empty_bin_text()).capitalize()}.")
    sided = "" if table.sided == "two-sided" else f" ({_e(table.sided)}, one-sided)"
    notes.append(f"CI: {_e(interval_name(table.ci))} binomial interval of acc{sided}. gap = acc − conf: negative means "
                 "over-confident.")
    if any(not r.sufficient for r in table.rows):
        seen = "effective observations (Kish)" if table.weighted else "observations"
        notes.append(f"Insufficient: fewer than {table.min_count} {seen}; do not act on these bins.")
    return out + f'<p class="note">{" ".join(notes)}</p>'


#: At most this many slices are listed (the largest); the rest are counted in a note.
MAX_SLICES = 100


def _slices(result: AuditResult, svg: str, floors: Any = None) -> str:
    """The slices table. With ``floors`` (:class:`~veracity.reporting._slice_noise.SliceFloors`) each slice's
    ECE stands beside its own noise floor, p-value and BH q-value over the slices, and only a slice above
    noise (q at most alpha) gets a bar: its ECE above the floor, relative to the largest such. A small
    slice's plug-in ECE is large by noise alone; a bar of the ECE relative to the largest drew it as the
    worst slice."""
    from ..core._text import fmt_p

    col = result.group_column or "group"
    groups = list(result.groups.items())
    hidden = 0
    if len(groups) > MAX_SLICES:
        keep = {k for k, _ in sorted(groups, key=lambda kv: -kv[1].n)[:MAX_SLICES]}
        hidden = len(groups) - MAX_SLICES
        groups = [(k, g) for k, g in groups if k in keep]
    got = {} if floors is None else floors.floors
    if floors is None:
        worst = max((g.ece for _, g in groups if g.table.rows), default=0.0) or 1.0
    else:
        worst = max((f.excess for f in got.values() if f.above), default=0.0) or 1.0
    noise = (['<span title="noise floor: the ECE a calibrated model shows on the slice\'s rows">floor</span>',
              "p", "q"] if floors is not None else [])
    # (N, K) scores: an audit's base_rate is the top-label accuracy (the "acc" column again), so the column
    # holds the mean top-label confidence instead, as the summary's card does; their Brier is the top label's
    top = result.top_label

    def first(a: AuditResult) -> str:
        return _num(_mean_confidence(a) if top else a.base_rate)

    headers = [_e(col), "rows", "mean conf" if top else "base rate", "ECE", *noise, "", "MCE",
               "Brier (top label)" if top else "Brier", "NLL", "AUC", "acc", "thin bins"]
    rows = []
    for key, g in groups:
        thin = sum(1 for r in g.table.rows if not r.sufficient)
        f = got.get(key)
        if floors is None:
            bar = _bar(g.ece / worst)
            cells = []
        elif f is None:
            bar, cells = '<span class="muted">no floor</span>', ["n/a"] * 3
        else:
            bar = (_bar(f.excess / worst) if f.above else '<span class="muted">within noise</span>')
            cells = [_num(f.expected), _p_bound(f.p_value, floors.n_resamples), _e(fmt_p(f.q_value))]
        rows.append([
            f'<span class="key">{_e(key)}</span>', f"{g.n:,}", first(g), _num(g.ece), *cells, bar,
            _num(g.mce), _num(g.brier), _num(g.nll), _num(g.auc), _num(g.accuracy), str(thin),
        ])
    every: list[str] = []  # the whole's floor and p-value (it is not one of the slices' tests: no q)
    if floors is not None:
        whole = _noise_floor_of(result)
        every = (["n/a"] * 3 if whole is None else
                 [_num(whole.get("expected")), _p_bound(whole.get("p_value"), floors.n_resamples), "—"])
    rows.append(["<strong>(all)</strong>", f"{result.n:,}", first(result), _num(result.ece), *every,
                 "", _num(result.mce), _num(result.brier), _num(result.nll), _num(result.auc),
                 _num(result.accuracy), str(sum(1 for r in result.table.rows if not r.sufficient))])
    table = _table(headers, rows, cls="slices", numeric="lrrr" + "rrr" * bool(noise) + "lrrrrrr")
    if hidden:
        table += (f'<p class="note">{hidden:,} smaller slices are not listed; this table shows the '
                  f"{MAX_SLICES} largest.</p>")
    table += f'<p class="note" data-note="slice-noise">{_slice_note(floors)}</p>'
    if result.zero_weight_groups:  # slices whose rows all weigh 0: named, as the audit's printout names them
        from ..core._display import zero_weight_note

        said = _e(zero_weight_note(result.zero_weight_groups))
        table += f'<p class="note" data-note="slice-weightless">{said}</p>'
    blank = sum(1 for _, g in groups if not g.mce == g.mce)
    if blank:  # "n/a" in the MCE column said nothing of why (the summary card's MCE says it)
        seen = "effective observations" if result.table.weighted else "rows"
        table += (f'<p class="note" data-note="slice-mce">MCE n/a ({blank:,} slice{"s" if blank != 1 else ""}): '
                  f"no bin of the slice has &gt;= {result.table.min_count} {seen}, and the MCE reads only the "
                  "bins that do (the thin bins column counts those that do not).</p>")
    fig = f'<figure class="plot-box wide">{svg}</figure>' if svg else ""
    return table + fig


def _bar(share: float) -> str:
    """A bar ``share`` of its track long (a fixed width: the table's spare width went to other columns)."""
    return f'<span class="bar-track"><span class="bar" style="width:{100.0 * share:.1f}%"></span></span>'


def _p_bound(p: Any, n_resamples: int) -> str:
    """A Monte-Carlo p-value: ``≤ 0.001`` where no redraw of ``n_resamples`` reached the ECE (1/(R + 1),
    the smallest it can be: a bound, not a value), else as :func:`~veracity.core._text.fmt_p` prints it."""
    from ..core._text import fmt_p

    if p is not None and 0 < float(p) <= (1.0 + 1e-12) / (n_resamples + 1.0):
        return f"≤ {_e(fmt_p(float(p)))}"
    return _e(fmt_p(None if p is None else float(p)))


def _slice_note(floors: Any) -> str:
    """What the slices' bars and columns mean (and, without floors, that the ECEs are not a ranking)."""
    if floors is None:
        return ("The bar shows ECE relative to the largest. No slice is tested against its noise floor (it "
                "is computed with the bootstrap, skipped here), so this is not a ranking of miscalibration: "
                "a small slice's plug-in ECE is large by noise alone.")
    k = len(floors.floors)
    text = (f"Each slice's ECE against its own noise floor (the ECE a calibrated model shows on that "
            f"slice's rows: labels redrawn {floors.n_resamples:,} times as Bernoulli(score), seed 0): p is "
            f"the share of redraws at least as large, q its Benjamini–Hochberg value over the {k:,} slices. "
            f"A slice is above noise where q ≤ {floors.alpha:g}; only those get a bar, their ECE above the "
            "floor relative to the largest. A small slice's plug-in ECE is large by noise alone, so the "
            "largest ECE is not the worst slice.")
    if floors.too_few_redraws():
        text += (f" With {floors.n_resamples:,} redraws the smallest p is 1/{floors.n_resamples + 1:,}, too "
                 f"large for one slice alone among {k:,} to reach q ≤ {floors.alpha:g}: pass more resamples.")
    return text


def _ledger(ledger: Any) -> str:
    """The before/after ledger: each change with its paired interval and the ledger's own verdict
    (better / REGRESSION only beyond noise, else "within noise")."""
    rows = []
    for r in getattr(ledger, "rows", ()):
        change = float(getattr(r, "change", float("nan")))
        regression = bool(getattr(r, "regression", False))
        verdict = str(getattr(r, "verdict", "") or "")
        if not verdict:  # a ledger row from before verdicts knew their noise
            verdict = "same" if change == 0 else ("REGRESSION" if regression else "better")
        good = verdict.startswith("better")
        cls = "bad" if regression else ("good" if good else "")
        interval = r.interval_text() if hasattr(r, "interval_text") else ""
        can_move = getattr(r, "can_move", "")
        if isinstance(can_move, bool):
            can_move = "yes" if can_move else "no"
        better = getattr(r, "better", "")
        what = _e(getattr(r, "what", "")) + (f' <span class="muted">({_e(better)} is better)</span>'
                                              if better else "")
        rows.append([f"<strong>{_e(r.metric)}</strong>", what, _num(r.before), _num(r.after),
                     f'<span class="{cls}">{change:+.4f}</span>' if math.isfinite(change) else "n/a",
                     _e(interval), f'<span class="{cls}">{_e(verdict)}</span>', _e(can_move),
                     _e(getattr(r, "note", ""))])
    level = getattr(ledger, "level", None)  # the level of the changes' paired intervals (the report's)
    interval_head = "interval" if level is None else f"{float(level) * 100:g}% interval"
    out = _table(["metric", "what", "before", "after", "change", interval_head, "verdict", "can it move?",
                  "why"], rows, cls="ledger", numeric="llrrrrlll")
    words = ledger.certificate_words() if hasattr(ledger, "certificate_words") else {}
    if words:
        out += f'<h3>Certificates</h3><ul class="certs">{"".join(map(_certificate_item, words.items()))}</ul>'
        # the metadata's "fitted ties_created_" above is the fit rows' count, another number
        out += ('<p class="note">Certificates are checked on the rows shown, not on the rows the calibrator '
                "was fit on.</p>")
    return out


def _certificate_item(item: tuple[str, Any]) -> str:
    """One certificate as a list item, in the ledger's words (:meth:`Ledger.certificate_words`): held ✓,
    BROKEN ✗ (a promise the method failed), "changed" neutral (a cut or ties the method may move: Platt's
    intercept, isotonic steps), n/a and counts muted."""
    label, word = _e(item[0]), str(item[1])
    if word == "held":
        return f'<li><span class="badge ok">✓ held</span> {label}</li>'
    if word == "BROKEN" or word.startswith(("broken", "argmax BROKEN")):
        return f'<li><span class="badge bad">✗ {_e(word)}</span> {label}</li>'
    if word.startswith(("changed", "argmax changed")):
        return f'<li><span class="badge">{_e(word)}</span> {label}</li>'
    return f'<li><span class="muted">{label}:</span> {_e(word)}</li>'


def _short(value: Any, limit: int = 12) -> Any:
    """Long lists shortened for display: the first ``limit`` items and a count."""
    if isinstance(value, dict):
        return {k: _short(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) > limit:
            return [_short(v, limit) for v in value[:limit]] + [f"… {len(value) - limit} more"]
        return [_short(v, limit) for v in value]
    return value


def _calibrator_meta(doc: dict[str, Any]) -> str:
    """Provenance (seed 004: model revision, score type, fit window and cohort), parameters and
    fitted state (temperature, Platt A/B, isotonic steps …) as a key/value grid."""
    raw_meta = doc.get("metadata")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    order = ["model_revision", "score_type", "fit_window", "cohort", "role", "n_rows", "n_classes",
             "data_hash", "method", "library_version"]
    keys = [k for k in order if k in meta] + sorted(k for k in meta if k not in order and k != "params")

    def value(v: Any, missing: str = "— not recorded") -> str:
        if v is None:
            return f'<span class="muted">{missing}</span>'
        return f"<code>{_e(_pretty(v))}</code>"

    pairs: list[tuple[str, str]] = []
    kind = doc.get("kind") or meta.get("method")
    if kind is not None:
        pairs.append(("calibrator", f"<strong>{_e(kind)}</strong>"))
    pairs += [(k.replace("_", " "), value(meta[k])) for k in keys]
    raw_state = doc.get("state")
    state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
    for k in sorted(state):
        v = state[k]
        if isinstance(v, (list, tuple)):
            if len(v) == 0:
                continue
            v = _short(v, 6)
        pairs.append((f"fitted {k}", value(v, "none")))
    params = doc.get("params", meta.get("params"))
    if isinstance(params, dict):
        # a parameter of None is unset (TemperatureScaling's bounds), not missing provenance
        pairs += [(f"param {k}", value(params[k], "none")) for k in sorted(params)]
    grid = "".join(f'<div class="kv-key">{_e(k)}</div><div class="kv-value">{v}</div>' for k, v in pairs)
    rest = {k: v for k, v in doc.items() if k != "metadata"}
    dump = json.dumps(_short(rest), indent=2, sort_keys=True, default=str, allow_nan=True, ensure_ascii=False)
    return (f'<div class="kv">{grid}</div><details class="raw"><summary>Full calibrator artifact '
            f"(JSON, long lists shortened)</summary><pre>{_e(dump)}</pre></details>")


def _pretty(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        # as written, not escaped: a shortened list's "… 20 more" read "\u2026 20 more"
        return json.dumps(_short(value, 8), sort_keys=True, default=str, ensure_ascii=False)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


_EXPLORER_HTML = """
<div class="explorer" id="explorer" data-ready="0">
  <div class="ex-controls">
    <div class="ex-threshold">
      <label for="ex-slider">threshold <span class="muted">(flag when {reading} ≥ t)</span></label>
      <div class="ex-tvalue"><output id="ex-t" data-value="">–</output></div>
      <input type="range" id="ex-slider" min="0" max="{max_index}" step="1" value="{start}"
             aria-label="decision threshold">
      <div class="ex-marks" id="ex-marks"></div>
    </div>
    <div class="ex-inputs">
      <label>type a threshold <input type="number" id="ex-tinput" min="0" max="1" step="0.001"></label>
      <label>cost of a false alarm (FP) <input type="number" id="ex-cfp" min="0" step="any" value="{cost_fp}"></label>
      <label>cost of a miss (FN) <input type="number" id="ex-cfn" min="0" step="any" value="{cost_fn}"></label>
      <div class="ex-buttons">
        <button type="button" id="ex-go-star">go to t*</button>
        <button type="button" id="ex-go-recall"{recall_disabled}>go to recall-target t</button>
        <button type="button" id="ex-go-best">go to lowest cost here</button>
      </div>
    </div>
  </div>
  <div class="ex-body">
    <div class="ex-confusion">
      <table class="confusion">
        <thead><tr><th></th><th>flagged (≥ t)</th><th>not flagged</th></tr></thead>
        <tbody>
          <tr><th>positive</th><td class="tp"><span class="cm-label">TP · caught</span><span id="ex-tp" data-value="">–</span></td>
              <td class="fn"><span class="cm-label">FN · missed</span><span id="ex-fn" data-value="">–</span></td></tr>
          <tr><th>negative</th><td class="fp"><span class="cm-label">FP · false alarm</span><span id="ex-fp" data-value="">–</span></td>
              <td class="tn"><span class="cm-label">TN · quiet</span><span id="ex-tn" data-value="">–</span></td></tr>
        </tbody>
      </table>
      <div class="ex-stats" aria-live="polite">
        <div><span class="stat-label">recall</span><span id="ex-recall" data-value="">–</span></div>
        <div><span class="stat-label">false-alarm rate</span><span id="ex-far" data-value="">–</span></div>
        <div><span class="stat-label">precision</span><span id="ex-precision" data-value="">–</span></div>
        <div><span class="stat-label">alerts</span><span><span id="ex-alerts" data-value="">–</span><span class="share" id="ex-share"></span></span></div>
        <div><span class="stat-label">cost</span><span id="ex-cost" data-value="">–</span></div>
        <div><span class="stat-label">cost / 1,000 rows</span><span id="ex-cost1000" data-value="">–</span></div>
      </div>
    </div>
    <div class="ex-chart"><svg id="ex-chart" viewBox="0 0 560 300" role="img"
         aria-label="recall, precision, false-alarm rate and cost against the threshold"></svg>
      <div class="ex-legend" id="ex-legend"></div>
    </div>
  </div>
  <p class="note" id="ex-note"></p>
  <noscript><p class="note">The explorer needs JavaScript; the tables above do not.</p></noscript>
</div>
"""


def _explorer(p: np.ndarray, y: np.ndarray, w: np.ndarray | None, *, cost_fp: float, cost_fn: float,
              target_recall: float | None, reading: str, max_cuts: int,
              t_recall: float | None = None, costs_declared: bool = True,
              declared_target: bool = True, weight_scale: float = 1.0) -> tuple[str, dict[str, Any], list[str]]:
    """The explorer's markup and data.

    Where it opens: at t* when costs were declared; otherwise at the target-recall threshold
    (1:1 costs put t* at 0.5, an arbitrary point for a low-base-rate model), at t* when there is
    none. The recall mark's label comes from the threshold used: the recall it reaches on these
    rows, and the target only when it is known (computed here, or ``declared_target``).
    """
    notes: list[str] = []
    missing = missing_note = ""  # why there is no target-recall threshold, when a target was asked for
    t_star = cost_fp / (cost_fp + cost_fn)
    recall_target: float | None = None  # the target the threshold was chosen for, when known
    if t_recall is not None:
        t_recall = float(t_recall)
        if not 0.0 <= t_recall <= 1.0:
            raise VeracityError(f"recall_threshold must be a probability threshold in [0, 1], got {t_recall}")
        recall_target = target_recall if declared_target else None
    elif target_recall is not None:
        from ..decisions import recall_threshold
        from ..plotting._decisions import missing_recall_note, recall_fit

        if not (y == 1).any():
            notes.append("target-recall threshold omitted: there are no positives")
        else:
            try:
                t_recall = float(recall_threshold(p, y, target=target_recall, sample_weight=w))
            except VeracityError:  # its advice names recall_threshold's options (correction=), not report's
                notes.append(f"target-recall threshold omitted: {recall_fit(p, y, w, target_recall)[1]}; "
                             f"{LOWER_TARGET_RECALL}")
            else:
                recall_target = target_recall
                notes.append("the target-recall threshold was chosen on the same rows it is shown on, "
                             "which flatters it; choose it on calib rows (recall_threshold=)")
        if t_recall is None:  # said beside the explorer (its recall button is off), as the figure says it
            why = recall_fit(p, y, w, target_recall)[1]
            missing = missing_recall_note(target_recall, why)
            missing_note = ('<p class="note" data-note="t_recall_missing"><span class="badge warn">no '
                            f"recall-target t</span> Target recall {target_recall:g}: {_e(why)}.</p>")
    grid = threshold_grid(p, extra=(t_star, t_recall if t_recall is not None else float("nan")),
                          max_cuts=max_cuts)
    curve = threshold_curve(p, y, w, grid)
    exact = np.unique(p).size <= max_cuts
    recall_here = None
    if t_recall is not None:
        pos = y == 1
        wp = np.ones(int(pos.sum())) if w is None else w[pos]
        total = float(wp.sum())
        recall_here = float(wp[p[pos] >= t_recall].sum() / total) if total > 0 else None
    if t_recall is None:
        recall_label = None
    elif recall_target is not None:
        recall_label = f"recall {recall_target:g} \u2192 {t_recall:.3f}"
    else:
        recall_label = f"given recall t \u2192 {t_recall:.3f}"
    if recall_label is not None and recall_here is not None:
        recall_label += f" (recall here {recall_here:.3f})"
    start_t = t_star if costs_declared or t_recall is None else t_recall
    opens = "t*" if start_t == t_star and (costs_declared or t_recall is None) else "recall-target t"
    if not costs_declared:
        notes.append("no costs declared: the cost readouts assume 1:1 (t* = 0.5) and the explorer opens at the "
                     + (f"recall-target t = {t_recall:.4g}" if opens != "t*" else "t*")
                     + "; declare the costs to open at the threshold they imply")
    data = curve.to_dict()
    if weight_scale != 1.0:  # the counts in the caller's units (the weights were scaled by a power of two)
        with np.errstate(over="ignore"):
            total = (float(data["positives"]) + float(data["negatives"])) / weight_scale
        if np.isfinite(total):
            for key in ("tp", "fp"):
                data[key] = [v / weight_scale for v in data[key]]
            for key in ("positives", "negatives"):
                data[key] = data[key] / weight_scale
        else:  # totals beyond the doubles in the caller's units: shown in units of a power of two of them
            power = int(np.frexp(weight_scale)[1]) - 1  # weight_scale is 2**power exactly
            notes.append(f"the explorer's counts are the weighted counts times 2^{power}: in the weights' own "
                         "units their totals are beyond the largest double")
    data.update({
        "cost_fp": cost_fp, "cost_fn": cost_fn, "t_star": t_star, "t_recall": t_recall,
        "target_recall": recall_target, "recall_target": recall_target, "recall_here": recall_here,
        "recall_label": recall_label, "costs_declared": bool(costs_declared), "t_start": start_t,
        "opens_at": opens, "exact": bool(exact), "reading": reading, "recall_missing": missing or None,
    })
    start = int(np.searchsorted(grid, start_t, side="left"))
    costs_note = ("" if costs_declared else
                  '<p class="note ex-assumed" id="ex-assumed"><span class="badge warn">no costs declared</span> '
                  "The cost readouts assume a false alarm costs as much as a miss (1:1, t* = 0.5). The explorer "
                  f"opens at the {_e(opens)}"
                  + (f" = {t_recall:.4f}" if opens != "t*" else "") + "; enter your costs to see the threshold "
                  "they imply.</p>")
    markup = _EXPLORER_HTML.format(
        max_index=grid.size - 1, start=min(start, grid.size - 1), cost_fp=f"{cost_fp:g}",
        cost_fn=f"{cost_fn:g}", reading=_e(reading),
        recall_disabled="" if t_recall is not None else " disabled",
    )
    return costs_note + missing_note + markup, data, notes


def _about(result: AuditResult, options: dict[str, Any], score_type: str, cost_fp: float, cost_fn: float,
           target_recall: float | None, notes: list[str], timestamp: bool | str, *,
           costs_declared: bool = True, extra: list[list[str]] | None = None) -> str:
    ece_interval = _interval_of(result)
    binary = not result.top_label
    unused = '<span class="muted">not used: no threshold explorer for multiclass scores</span>'
    rows = [
        ["score type", _e(score_type)],
        ["bins", (f"{options['bins']} {_e(options['strategy'])}" if not isinstance(options["bins"], str)
                  else f"{result.table.bins} {_e(options['strategy'])} (auto)")],
        ["per-bin interval", f"{_e(options['interval'])}, {options['level'] * 100:g}%"],
        # with weights a bin is judged by its effective rows, as the reliability note says (Kish)
        ["insufficient below", f"{options['min_count']} " + ("effective observations (Kish)"
                                                             if result.table.weighted else "observations")],
        (["accuracy threshold", f"{options['threshold']:g}"] if binary
         else ["accuracy", "of the argmax (the top class)"]),
        ["costs", (f"false alarm {cost_fp:g}, miss {cost_fn:g}"
                   + ("" if costs_declared else " (not declared: 1:1 assumed)")) if binary else unused],
        ["target recall", ("—" if target_recall is None else f"{target_recall:g}") if binary else unused],
        ["weights", "yes" if options["sample_weight"] is not None else "no"],
        ["summary intervals", "—" if ece_interval is None else _e(f"{ece_interval[3]}, random_state 0")],
        *(extra or []),
        ["veracity", _e(__version__)],
    ]
    if timestamp:
        stamp = (datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if timestamp is True
                 else str(timestamp))
        rows.append(["generated", _e(stamp)])
    out = _table(["setting", "value"], rows, cls="meta", numeric="ll")
    if notes:
        out += '<ul class="notes">' + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>"
    out += ('<p class="note">This page is self-contained: it makes no network requests and carries '
            "aggregates (bin statistics and counts at cut points), not rows.</p>")
    return out
