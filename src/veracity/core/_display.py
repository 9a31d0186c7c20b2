"""Display shared by every public result: terminal, notebook, DataFrame and plot.

:class:`Display` gives a result class

* ``repr(result)`` — the same readable text as ``str(result)`` (not a dataclass dump);
* ``result._repr_html_()`` — a compact, self-contained HTML table for Jupyter
  (inline CSS, no external assets, every user string escaped), flagged rows
  (insufficient bins, regressions, alerts) highlighted and intervals shown as
  ``[low, high]``;
* ``result.to_frame()`` — the result's main table as a pandas DataFrame
  (``to_frame("polars")`` for polars), numbers unchanged;
* ``result.plot(ax=None)`` — the result's picture as a matplotlib Figure, where
  one exists: :func:`veracity.plotting.draw` finds the figure for the result's type
  (imported only then). This call is the one import from the core up the layers;
  a result class never imports a figure function.

A class says what its table is by overriding :meth:`Display._frame_records`
(default: the first list of records in ``to_dict()``); what it draws is registered in
``veracity/plotting/_dispatch.py``. The dataclasses that use it pass ``repr=False`` so
the dataclass machinery does not replace ``__repr__``.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Collection
from typing import Any, cast

from ._text import count_noun, fmt_count, interval_name
from ._validation import VeracityError

#: rows shown in the notebook table before "… N more rows"
MAX_HTML_ROWS = 40

_STYLE = (
    ".vc-result{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:12.5px;"
    "color:#1f2933;max-width:100%;overflow-x:auto;overflow-wrap:break-word}"
    ".vc-result .vc-title{font-weight:600;margin:2px 0 4px}"
    ".vc-result .vc-kv{display:flex;flex-wrap:wrap;gap:4px 14px;margin:0 0 6px}"
    ".vc-result .vc-kv span b{font-weight:600;color:#52606d;margin-right:4px}"
    ".vc-result table{border-collapse:collapse;margin:0 0 4px}"
    ".vc-result th,.vc-result td{padding:2px 8px;border-bottom:1px solid #e4e7eb;text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}"
    ".vc-result th{font-weight:600;background:#f5f7fa}"
    ".vc-result td.vc-l,.vc-result th.vc-l{text-align:left}"
    # a long name (a 200-character slice or model) wraps inside its cell instead of pushing the numbers
    # out of view; short ones never break (only cells of LONG_CELL characters or more get vc-wrap)
    ".vc-result th.vc-wrap,.vc-result td.vc-wrap{white-space:normal;overflow-wrap:anywhere;min-width:16em}"
    # a name the caller marked (a model's, possibly shortened): wraps where it must, so that a table of a
    # few named columns fits a notebook column (about 900 px) instead of running off its right edge
    ".vc-result th.vc-name,.vc-result td.vc-name{white-space:normal;overflow-wrap:anywhere;min-width:6em}"
    ".vc-result tr.vc-flag td{background:#fff4e5;color:#8a4b00}"
    ".vc-result .vc-badge{font-size:11px;padding:0 5px;border-radius:3px;background:#fde3c2;color:#8a4b00}"
    ".vc-result details pre{font-size:11.5px;margin:4px 0;white-space:pre}"
    ".vc-result .vc-more{color:#8a94a6;font-size:11.5px}"
    ".vc-result .vc-h{font-weight:600;font-size:12px;color:#323f4b;margin:10px 0 3px;"
    "border-bottom:1px solid #cbd2d9;padding-bottom:1px}"
    ".vc-result .vc-note{color:#52606d;font-size:11.5px;margin:0 0 4px}"
    ".vc-result details{margin:2px 0 4px}"
    ".vc-result details summary{cursor:pointer;color:#3e4c59;font-size:12px}"
    ".vc-result .vc-verdict{font-weight:600}"
)

#: columns of a result's table that are differences wherever they are shown, printed with their sign as the
#: text tables print them: a "gap" (observed rate minus mean score) says over- or under-confident by its
#: sign (a monitor's and a reliability table's notebook view printed "0.0136" beside "-0.0062")
SIGNED = ("gap",)

#: a table cell or header this many characters long or longer may wrap (anywhere, a long name has no spaces)
LONG_CELL = 40

#: a table wider than this many columns shows its first columns, the rest in a <details>
WIDE_COLUMNS = 12
#: columns kept in the summary of a wide table
SUMMARY_COLUMNS = 8

#: row keys that mark a row as needing attention, and what the badge says
_FLAGS = (
    ("sufficient", False, "insufficient"),
    ("regression", True, "regression"),
    ("status", "alert", "alert"),
    ("status", "insufficient", "insufficient"),
    ("feasible", False, "not certified"),
    ("below target", True, "below target"),
    ("discovery", True, "discovery"),
)


def _humanize(name: str) -> str:
    """``MonitorResult`` -> ``Monitor result``."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+|\d+", name)
    return " ".join([words[0]] + [w.lower() if not w.isupper() else w for w in words[1:]]) if words else name


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str)) or type(v).__module__ == "numpy" and getattr(
        v, "ndim", 1) == 0


def _scalar(v: Any) -> Any:
    return v.item() if hasattr(v, "item") and not isinstance(v, (bool, int, float, str)) else v


def _flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Scalars of ``d``, nested dicts flattened one level as ``key.sub``; lists dropped."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if _is_scalar(v):
            out[prefix + str(k)] = _scalar(v)
        elif isinstance(v, dict) and not prefix:
            out.update(_flat(v, f"{k}."))
    return out


def fmt_cell(v: Any) -> str:
    """A cell as text: floats with 4 decimals (a value that rounds to zero prints ``0.0000``, never
    ``-0.0000``), whole numbers with separators, NaN/None 'n/a'."""
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if abs(v) >= 1000:
            return f"{v:,.0f}" if v.is_integer() else f"{v:,.1f}"
        text = f"{v:.4f}"
        return "0.0000" if text == "-0.0000" else text  # -0.0 and -1e-12 alike: no sign on a printed zero
    return str(v)


def fmt_weight(x: float) -> str:
    """A weighted count as :func:`~veracity.core._text.fmt_count` prints it (whole numbers as integers, others
    with one decimal), read at 12 significant digits first, so the last bits of a sum's rounding never show:
    100 weights of 0.1 sum to 10 in one order and 9.999999999999998 or 10.000000000000002 in another, which
    printed "10" on one route and "10.0" on the next (and a sum ending in 5 could round either way)."""
    x = float(x)
    return fmt_count(float(f"{x:.12g}") if math.isfinite(x) else x)


#: most slice names the note on weightless slices lists before "and N more"
_NAMED_SLICES = 10


def zero_weight_note(left_out: dict[str, int]) -> str:
    """The line under a slice table naming the slices left out because every row weighs 0 — with their
    row counts, which the ``(all)`` row's ``n`` includes (a = 184 and b = 205 rows beside (all) = 600
    read as lost rows without it): ``(left out, every row weighing 0: c (211 rows); the (all) row's n
    counts these rows)``."""
    names = [f"{k} ({count_noun(n, 'row')})" for k, n in list(left_out.items())[:_NAMED_SLICES]]
    more = len(left_out) - len(names)
    listed = ", ".join(names) + (f" and {more} more" if more else "")
    return f"(left out, every row weighing 0: {listed}; the (all) row's n counts these rows)"


def added_term(name: str, value: float, digits: int = 4) -> str:
    """A named term added in a printed sum, ``"+ within-bin 0.0012"`` or ``"- within-bin 0.0012"``: the
    operator carries the sign and the number the size. A term that rounds to zero at ``digits`` decimals
    prints ``+ … 0.0000``, the sign the formula has, never the sign of its rounding noise (a within-bin
    term of ±1e-18 printed "+ within-bin 0.0000" on one route and "- within-bin 0.0000" on another)."""
    size = f"{abs(value):.{digits}f}"
    return f"{'-' if value < 0 and float(size) != 0 else '+'} {name} {size}"


#: a key or column that holds a p-value ("p_value", "mce_pvalue", "p-value", "q_value")
_P_KEY = re.compile(r"(^|_)[pq][_-]?value$")


def interval_cell(low: str, high: str) -> str:
    """An interval from its two printed ends: ``[low, high]``, or one ``n/a`` when neither end is known (no
    interval: no labelled rows, one row, a refused normal law) — the tables' one reading, text and HTML
    alike, never ``[n/a, n/a]``."""
    return "n/a" if low == high == "n/a" else f"[{low}, {high}]"


def _fmt_named(key: str, v: Any) -> str:
    """A cell as :func:`fmt_cell` writes it, except a p-value under 0.0001: ``<0.0001``, not ``0.0000``
    (a segment scan's MCE p-value of 1e-300 read as exactly 0 in the notebook, "<1e-300" in the text)."""
    if _P_KEY.search(key) and isinstance(v, float) and 0 <= v < 5e-5:
        return "<0.0001"
    return fmt_cell(v)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _flag_of(row: dict[str, Any]) -> str | None:
    for key, bad, text in _FLAGS:
        if key in row and row[key] is not None and row[key] == bad:
            return text
    return None


class Display:
    """Mixin: readable ``repr``, ``_repr_html_``, ``to_frame`` and ``plot`` for a result."""

    __slots__ = ()

    # -- what a class may override ------------------------------------------------------
    def _frame_records(self) -> list[dict[str, Any]]:
        """The result's main table as records (one dict per row, scalar values)."""
        d = self.to_dict()  # type: ignore[attr-defined]
        for v in d.values():
            if isinstance(v, list) and v and all(isinstance(r, dict) for r in v):
                return [_flat(r) for r in v]
        for v in d.values():  # e.g. {"ece": {...}, "brier": {...}}
            if isinstance(v, dict) and v and all(isinstance(x, dict) for x in v.values()):
                return [{"name": str(k), **_flat(x)} for k, x in v.items()]
        nested = {k: v for k, v in d.items()
                  if isinstance(v, dict) and any(_is_scalar(x) for x in v.values())}
        if len(nested) >= 2:
            return [{"name": str(k), **_flat(v)} for k, v in nested.items()]
        return [_flat(d)]

    def _summary_items(self) -> dict[str, Any]:
        """Scalars shown above the table in a notebook (default: the scalars of ``to_dict()``)."""
        d = self.to_dict()  # type: ignore[attr-defined]
        records = self._frame_records()
        if len(records) == 1 and records[0] == _flat(d):
            return {}
        return {k: _scalar(v) for k, v in d.items() if _is_scalar(v)}

    def _title(self) -> str:
        first = str(self).splitlines()[0] if str(self).strip() else ""
        # the first line of a printout that starts with its table is a column header, not a title
        if not first or (":" not in first and len(re.split(r"\s{2,}", first.strip())) >= 3):
            return _humanize(type(self).__name__)
        return first

    # -- the shared behaviour -----------------------------------------------------------
    def __repr__(self) -> str:
        if type(self).__str__ is object.__str__:  # no text of its own: name and scalars
            items = ", ".join(f"{k}={fmt_cell(v)}" for k, v in _flat(self.to_dict()).items())  # type: ignore
            return f"{type(self).__name__}({items})"
        return str(self)

    def to_frame(self, kind: str = "pandas") -> Any:
        """The main table as a DataFrame: ``"pandas"`` (default) or ``"polars"``."""
        records = self._frame_records()
        if kind == "pandas":
            try:
                import pandas as pd
            except ImportError:
                raise VeracityError(
                    "to_frame() needs pandas: pip install pandas (or call to_frame('polars') with polars "
                    "installed; to_dict() needs nothing)") from None
            return pd.DataFrame.from_records(records)
        if kind == "polars":
            try:
                import polars as pl
            except ImportError:
                raise VeracityError("to_frame('polars') needs polars: pip install polars") from None
            return pl.DataFrame(records, infer_schema_length=None)
        raise VeracityError(f"to_frame(kind) takes 'pandas' or 'polars', got {kind!r}")

    def plot(self, ax: Any = None) -> Any:
        """The result's picture as a matplotlib Figure (drawn into ``ax`` when given)."""
        from ..plotting import draw  # the one upward seam: the plotting package draws every result

        return draw(self, ax)

    def _html_records(self) -> list[dict[str, Any]]:
        """The rows the notebook table shows: every row of :meth:`to_frame` unless a result
        shows fewer (a long sequence shows the steps its printout shows)."""
        return self._frame_records()

    def _repr_html_(self) -> str:
        render = _RENDERERS.get(type(self).__name__)
        if render is not None:
            return str(render(self))
        return html_result(self._title(), self._summary_items(), self._html_records(), str(self),
                           signed=SIGNED, last_bin=self._last_bin())

    def _last_bin(self) -> int | None:
        """The index of a binned result's last bin (``bins - 1``), whose interval is closed; else None."""
        bins = getattr(self, "bins", None)
        return bins - 1 if isinstance(bins, int) and not isinstance(bins, bool) else None

    def _html_body(self) -> str:
        """The result's HTML without the outer box and title (nested inside another result)."""
        summary, records = self._summary_items(), self._html_records()
        table = html_table(records, signed=SIGNED, last_bin=self._last_bin()) if records else ""
        return (html_kv(summary) if summary else "") + table


def html_page(title: str, parts: list[str], text: str | None = None) -> str:
    """One result box: the title, its parts in order, and the plain text in a closed <details>."""
    e = html.escape
    out = [f'<div class="vc-result"><style>{_STYLE}</style>', f'<div class="vc-title">{e(title)}</div>']
    out.extend(p for p in parts if p)
    if text is not None:
        out.append(f"<details><summary>as text</summary><pre>{e(text)}</pre></details>")
    out.append("</div>")
    return "".join(out)


def html_kv(items: dict[str, Any]) -> str:
    """Key numbers in a row: ``name value`` pairs (escaped)."""
    e = html.escape
    return '<div class="vc-kv">' + "".join(
        f"<span><b>{e(str(k))}</b>{e(v if isinstance(v, str) else _fmt_named(str(k), v))}</span>"
        for k, v in items.items()) + "</div>"


def html_section(title: str, body: str) -> str:
    """A titled, always visible part of a result."""
    return f'<div class="vc-section"><div class="vc-h">{html.escape(title)}</div>{body}</div>'


def html_details(summary: str, body: str, *, open_: bool = False) -> str:
    """A collapsible part (wide tables, the plain text, parameters)."""
    return (f'<details{" open" if open_ else ""}><summary>{html.escape(summary)}</summary>'
            f"{body}</details>")


def html_note(text: str) -> str:
    return f'<div class="vc-note">{html.escape(text)}</div>'


def html_table(records: list[dict[str, Any]], *, rename: dict[str, str] | None = None,
               wide: bool = False, names: dict[str, str] | None = None, signed: Collection[str] = (),
               last_bin: int | None = None) -> str:
    """A table of records; a wide one shows its first columns and the whole table in <details>
    (``wide=True``: every column, for a view whose columns were chosen to be read together). An
    interval's ``ci_high`` stays beside a shown ``ci_low``: the two are one cell. ``names`` maps each
    header or cell text that is a name to the whole name: such a text may wrap, and a shortened one
    shows the whole name as its tooltip (``title``). ``signed`` names the columns of differences, whose
    numbers print with their sign as the text tables print them (``+0.1138``; ``"ci_low"``: the interval's
    bounds, ``[-0.0168, +0.0071]``), so which side is better reads from the cell. Records of bins (``lo``,
    ``hi``) read as one interval, ``[0.1, 0.2)``, closed (``[0.9, 1]``) for the bin whose number (``index``,
    or an integer ``bin``) is ``last_bin`` (the table's last), else for the last record."""
    cols: list[str] = []
    for r in records:
        cols.extend(k for k in r if k not in cols)
    if wide or len(cols) <= WIDE_COLUMNS:
        return _html_table(records, rename, names, signed, last_bin)
    keep = cols[:SUMMARY_COLUMNS]
    if "ci_low" in keep and "ci_high" in cols and "ci_high" not in keep:
        keep.append("ci_high")  # a lower bound is never shown without its upper one
    # the keys that raise a row's flag travel with the first columns: before, only "sufficient" did, so
    # a monitor's alerts ("status", column 13 of 14) and a segment scan's discoveries read as no flag at all
    flag_keys = [k for k in dict.fromkeys(key for key, _, _ in _FLAGS) if k in cols and k not in keep]
    head = [{k: r[k] for k in [*keep, *flag_keys] if k in r} for r in records]
    return (_html_table(head, rename, names, signed, last_bin) + html_details(
        f"all {len(cols)} columns", _html_table(records, rename, names, signed, last_bin)))


def html_result(title: str, summary: dict[str, Any], records: list[dict[str, Any]], text: str, *,
                wide: bool = False, signed: Collection[str] = (), last_bin: int | None = None) -> str:
    """The notebook rendering: title, key numbers, the table (flags highlighted; ``wide`` and the
    difference columns ``signed``: see :func:`html_table`) and the text."""
    return html_page(title, [html_kv(summary) if summary else "",
                             html_table(records, wide=wide, signed=signed, last_bin=last_bin)
                             if records else ""], text)


def _signed_cell(v: Any) -> str:
    """A difference's cell: :func:`fmt_cell` with the number's own sign in front, as ``fmt(..., sign=True)``
    prints it in the text tables: ``+`` before a number that is not negative (0 too), ``-`` before a negative
    one, also where it rounds to zero (a gap of -3e-5, rate just under the mean score, prints ``-0.0000``, as
    the text does; ``+0.0000`` said the opposite side); n/a and text as they are."""
    text = fmt_cell(v)
    if not _is_number(v) or text.startswith("-"):
        return text
    return ("-" if v < 0 else "+") + text


def _html_table(records: list[dict[str, Any]], rename: dict[str, str] | None = None,
                names: dict[str, str] | None = None, signed: Collection[str] = (),
                last_bin: int | None = None) -> str:
    e = html.escape
    rename = rename or {}
    full = names or {}
    cols: list[str] = []
    for r in records:
        cols.extend(k for k in r if k not in cols)
    interval = "ci_low" in cols and "ci_high" in cols
    flags = [_flag_of(r) for r in records]
    any_flag = any(flags)
    # a bin reads as one interval "[0.1, 0.2)", like the text table; what another column already
    # says is left out (the full table stays in to_frame()): the bin's index, n when it equals count
    # (unweighted), a yes/no column whose "no" the flag column shows
    bins = "lo" in cols and "hi" in cols and all(_is_number(r.get("lo")) and _is_number(r.get("hi"))
                                                 for r in records)
    same_n = "count" in cols and "n" in cols and all(r.get("n") == r.get("count") for r in records)
    # a yes/no column that only raises a flag is shown by the flag column (or says nothing)
    flagged = {key for key, _, _ in _FLAGS if isinstance(next(
        (r[key] for r in records if key in r), None), bool)}
    drop = ({"ci_high"} if interval else set()) | ({"lo", "hi", "index", "bin"} if bins else set()) \
        | ({"n"} if same_n else set()) | flagged
    shown = (["bin"] if bins else []) + [c for c in cols if c not in drop]
    if bins:
        # only the table's last bin is closed: where the top bins are empty (omitted), the last row shown is
        # not it ("[0.8, 0.9]" stood under "no rows in [0.9,1.0]", where the text table reads "[0.8,0.9)")
        last = len(records) - 1

        def closed(i: int, r: dict[str, Any]) -> bool:
            number = r.get("index", r.get("bin"))  # the bin's number (a reliability table's frame: "bin")
            if last_bin is None or not isinstance(number, int) or isinstance(number, bool):
                return i == last
            return number == last_bin

        records = [{**r, "bin": f"[{r['lo']:.4g}, {r['hi']:.4g}{']' if closed(i, r) else ')'}"}
                   for i, r in enumerate(records)]
    # counts stored as floats (weights) print as whole numbers when every value in the column is one
    whole = {c for c in cols if all(
        isinstance(r.get(c), float) and math.isfinite(r[c]) and r[c].is_integer() for r in records)
        and any(abs(r[c]) > 1 for r in records)}
    # a column of large amounts (a cost per 1,000 rows) prints every value at one precision: fmt_cell
    # alone printed 672.0000 beside 1,037.3 and 1,155 in one column; 0 decimals when every value is
    # whole, else 1 (values under 1 in size other than 0 keep fmt_cell's 4 decimals: no rounding away)
    amounts: dict[str, int] = {}
    for c in cols:
        values = [float(r[c]) for r in records if isinstance(r.get(c), float) and math.isfinite(r[c])]
        if c not in whole and values and any(abs(v) >= 1000 for v in values) and all(
                v == 0 or abs(v) >= 1 for v in values):
            amounts[c] = 0 if all(v.is_integer() for v in values) else 1

    # text columns read left-aligned, header included
    text_cols = {c for c in shown if all(isinstance(r.get(c), (str, bool)) or r.get(c) is None for r in records)
                 and not (interval and c == "ci_low")}

    def classes(text: str, left: bool) -> str:
        wrap = "vc-name" if text in full else "vc-wrap" if len(text) >= LONG_CELL else ""
        names = (["vc-l"] if left else []) + ([wrap] if wrap else [])
        # a shortened name carries its whole text as a tooltip
        tip = f' title="{e(full[text])}"' if text in full and full[text] != text else ""
        return (f' class="{" ".join(names)}"' if names else "") + tip

    def head(c: str) -> str:
        name = rename.get(c, "interval" if interval and c == "ci_low" else c)
        return f"<th{classes(name, c == shown[0] or c in text_cols)}>{e(name)}</th>"

    rows = []
    for r, flag in zip(records[:MAX_HTML_ROWS], flags[:MAX_HTML_ROWS]):
        cells = []
        for c in shown:
            v = r.get(c)
            if interval and c == "ci_low":
                cell = _signed_cell if c in signed else fmt_cell
                text = interval_cell(cell(v), cell(r.get("ci_high")))
            elif c in signed:
                text = _signed_cell(v)
            elif c in whole:
                text = f"{int(cast(float, v)):,}"
            elif c in amounts and isinstance(v, float) and math.isfinite(v):
                text = f"{v:,.{amounts[c]}f}"
            else:
                text = _fmt_named(c, v)
            cells.append(f"<td{classes(text, c == shown[0] or c in text_cols)}>{e(text)}</td>")
        if any_flag:
            cells.append(f'<td class="vc-l">{f"<span class=vc-badge>{e(flag)}</span>" if flag else ""}</td>')
        rows.append(f'<tr{" class=vc-flag" if flag else ""}>' + "".join(cells) + "</tr>")
    more = len(records) - MAX_HTML_ROWS
    tail = f'<div class="vc-more">… {more:,} more rows (to_frame() has them all)</div>' if more > 0 else ""
    header = "<tr>" + "".join(head(c) for c in shown) + ('<th class="vc-l">flag</th>' if any_flag else "") + "</tr>"
    return f"<table><thead>{header}</thead><tbody>{''.join(rows)}</tbody></table>{tail}"


# -- renderers of result types whose modules leave the notebook layout to this one --------------
def _audit_html(result: Any) -> str:
    """An audit: key numbers (each labelled with its reading), the reliability table, the Brier
    decomposition, every optional section (noise floor, intervals, estimators, tests, CORP) and
    the slices — all visible; only the plain text is collapsed."""
    multiclass = result.top_label
    t = result.table
    items: dict[str, Any] = {"rows": result.n}
    # with weights a bin is sufficient by its effective rows (Kish), as the text says: "n≥20" read as the
    # weight column's n, which a weight-69 bin of 31 rows flagged insufficient at min_count=30 contradicted
    seen, n_ = ("effective observations (Kish)", "effective n") if t.weighted else ("observations", "n")
    if multiclass:
        items.update({
            "classes": result.n_classes,
            "ECE (top-label)": result.ece,
            f"MCE (top-label, bins {n_}≥{t.min_count})": result.mce,
            "Brier (top-label: confidence vs correct)": result.brier,
            "NLL (full multiclass: −log p of the true class)": result.nll,
            "AUC (confidence vs correct)": result.auc,
            "top-label accuracy": result.accuracy,
        })
    else:
        items.update({
            "base rate": result.base_rate,
            "ECE": result.ece,
            f"MCE (bins {n_}≥{t.min_count})": result.mce,
            "Brier": result.brier,
            "NLL": result.nll,
            "AUC": result.auc,
            f"accuracy@{result.threshold:g}": result.accuracy,
        })
    thin = getattr(t, "mce_insufficient", None)
    if thin is not None and (result.mce != result.mce or thin > result.mce):
        items[f"largest gap among the insufficient bins ({n_}<{t.min_count}, not acted on)"] = thin
    parts = [html_kv(items)]
    rate = "accuracy (share correct)" if multiclass else "rate (observed positive rate)"
    empty = f"; {t.empty_bin_text()}" if t.empty_bins else ""
    # a one-sided interval says so, as the text's "95% upper CI" does ([0, bound] read as a two-sided one)
    side = "" if t.sided == "two-sided" else f" ({t.sided}, one-sided)"
    parts.append(html_section(
        f"Reliability table: {count_noun(t.bins, t.strategy + ' bin')}, {t.level * 100:g}% {interval_name(t.ci)} interval{side} "
        f"of the observed {'accuracy' if multiclass else 'rate'}{empty}",
        html_table(t._frame_records(), rename={"acc": rate, "conf": "conf (mean score)",
                                               # a weighted bin's n is its total weight (the text says so)
                                               **({"n": "weight"} if t.weighted else {})},
                   # + under-confident, - over-confident: as the text table prints it
                   signed=SIGNED, last_bin=t.bins - 1)
        + (html_note(f"insufficient: fewer than {t.min_count} {seen}; do not act on these bins")
           if any(not r.sufficient for r in t.rows) else "")))
    d = result.decomposition
    parts.append(html_section("Brier decomposition (reliability − resolution + uncertainty + within-bin)", html_kv({
        "Brier": d.brier, "reliability": d.reliability, "resolution": d.resolution,
        "uncertainty": d.uncertainty, "within-bin": d.within_variance - 2 * d.within_covariance})))
    titles = {"noise_floor": "Noise floor (labels redrawn from a calibrated model)",
              "intervals": "Bootstrap intervals", "estimators": "ECE estimators",
              "tests": "Calibration tests", "corp": "CORP decomposition"}
    for key, section in result.extras.items():
        body = section._html_body() if hasattr(section, "_html_body") else html.escape(str(section))
        parts.append(html_section(titles.get(key, key), body))
    if result.groups:
        col = result.group_column or "group"
        # a classwise audit's class rows are binary one-vs-rest audits: their accuracy is at the threshold,
        # as the text's "acc@0.5" says, and only the whole is read top-label ("(all, top-label)" in the text).
        # Before, the column was headed "top-label accuracy" over class 0's 0.8245 beside the whole's 0.6100
        classwise = multiclass and result.group_column == "class"
        acc = "top-label accuracy" if multiclass and not classwise else f"accuracy@{result.threshold:g}"
        rows = [{col: str(k), "n": g.n, **({} if multiclass else {"base rate": g.base_rate}),
                 "ECE": g.ece, "MCE": g.mce, "Brier": g.brier, "NLL": g.nll, "AUC": g.auc, acc: g.accuracy,
                 "thin bins": sum(not r.sufficient for r in g.table.rows)}
                for k, g in result.groups.items()]
        whole = "(all, top-label)" if classwise else "(all)"  # as the text names it
        rows.append({col: whole, "n": result.n, **({} if multiclass else {"base rate": result.base_rate}),
                     "ECE": result.ece, "MCE": result.mce, "Brier": result.brier, "NLL": result.nll,
                     "AUC": result.auc, acc: result.accuracy,
                     "thin bins": sum(not r.sufficient for r in t.rows)})
        slices = f"{len(result.groups)} slice{'s' if len(result.groups) != 1 else ''}"
        left_out = html_note(zero_weight_note(result.zero_weight_groups)) if result.zero_weight_groups else ""
        parts.append(html_section(f"By {col} ({slices})", html_table(rows) + left_out))
    return html_page(str(result).splitlines()[0], parts, str(result))


def _recalibration_html(result: Any) -> str:
    """A store recalibration: the windows, the calibrator in one line, its ledger; the
    calibrator's full parameters collapsed."""
    import json

    items = {"method": result.method, "fit on": f"{result.fit_period} ({result.n_fit:,} rows)",
             "judged on": f"{result.eval_period} ({result.n_eval:,} rows, never used for fitting)"}
    parts = [html_kv(items), html_note(str(result.calibrator).splitlines()[0])]
    ledger = result.ledger
    parts.append(html_section("Before / after ledger", ledger._html_body() if hasattr(ledger, "_html_body")
                              else html.escape(str(ledger))))
    parts.append(html_details("calibrator parameters (JSON)", "<pre>" + html.escape(
        json.dumps(result.calibrator.to_dict(), indent=1, default=str)[:20000]) + "</pre>"))
    if getattr(result, "note", None):  # e.g. an evaluation window with too few labels to judge
        parts.insert(1, html_note(str(result.note)))
    return html_page(str(result).splitlines()[0], parts, str(result))


#: result type name -> its notebook renderer, for result classes defined in modules that keep no
#: display code of their own (the audit, the store's recalibration)
_RENDERERS: dict[str, Any] = {"AuditResult": _audit_html, "Recalibration": _recalibration_html}
