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
from typing import Any, cast

from ._validation import VeracityError

#: rows shown in the notebook table before "… N more rows"
MAX_HTML_ROWS = 40

_STYLE = (
    ".vc-result{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:12.5px;"
    "color:#1f2933;max-width:100%;overflow-x:auto}"
    ".vc-result .vc-title{font-weight:600;margin:2px 0 4px}"
    ".vc-result .vc-kv{display:flex;flex-wrap:wrap;gap:4px 14px;margin:0 0 6px}"
    ".vc-result .vc-kv span b{font-weight:600;color:#52606d;margin-right:4px}"
    ".vc-result table{border-collapse:collapse;margin:0 0 4px}"
    ".vc-result th,.vc-result td{padding:2px 8px;border-bottom:1px solid #e4e7eb;text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}"
    ".vc-result th{font-weight:600;background:#f5f7fa}"
    ".vc-result td.vc-l,.vc-result th.vc-l{text-align:left}"
    ".vc-result tr.vc-flag td{background:#fff4e5;color:#8a4b00}"
    ".vc-result .vc-badge{font-size:11px;padding:0 5px;border-radius:3px;background:#fde3c2;color:#8a4b00}"
    ".vc-result details pre{font-size:11.5px;margin:4px 0;white-space:pre}"
    ".vc-result .vc-more{color:#8a94a6;font-size:11.5px}"
)

#: row keys that mark a row as needing attention, and what the badge says
_FLAGS = (
    ("sufficient", False, "insufficient"),
    ("regression", True, "regression"),
    ("status", "alert", "alert"),
    ("status", "insufficient", "insufficient"),
    ("feasible", False, "not certified"),
)


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
    """A cell as text: floats with 4 decimals, whole numbers with separators, NaN/None 'n/a'."""
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
        return f"{v:.4f}"
    return str(v)


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
        return str(self).splitlines()[0] if str(self).strip() else type(self).__name__

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

    def _repr_html_(self) -> str:
        return html_result(self._title(), self._summary_items(), self._frame_records(), str(self))


def html_result(title: str, summary: dict[str, Any], records: list[dict[str, Any]], text: str) -> str:
    """The notebook rendering: title, key numbers, the table (flags highlighted) and the text."""
    e = html.escape
    parts = [f'<div class="vc-result"><style>{_STYLE}</style>', f'<div class="vc-title">{e(title)}</div>']
    if summary:
        parts.append('<div class="vc-kv">' + "".join(
            f"<span><b>{e(str(k))}</b>{e(fmt_cell(v))}</span>" for k, v in summary.items()) + "</div>")
    if records:
        parts.append(_html_table(records))
    parts.append(f"<details><summary>as text</summary><pre>{e(text)}</pre></details></div>")
    return "".join(parts)


def _html_table(records: list[dict[str, Any]]) -> str:
    e = html.escape
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
    flagged = {key for key, _, _ in _FLAGS if any_flag and isinstance(next(
        (r[key] for r in records if key in r), None), bool)}
    drop = ({"ci_high"} if interval else set()) | ({"lo", "hi", "index"} if bins else set()) \
        | ({"n"} if same_n else set()) | flagged
    shown = (["bin"] if bins else []) + [c for c in cols if c not in drop]
    if bins:
        last = len(records) - 1
        records = [{"bin": f"[{r['lo']:.4g}, {r['hi']:.4g}{']' if i == last else ')'}", **r}
                   for i, r in enumerate(records)]
    # counts stored as floats (weights) print as whole numbers when every value in the column is one
    whole = {c for c in cols if all(
        isinstance(r.get(c), float) and math.isfinite(r[c]) and r[c].is_integer() for r in records)
        and any(abs(r[c]) > 1 for r in records)}

    def head(c: str) -> str:
        name = "interval" if interval and c == "ci_low" else c
        return f'<th class="vc-l">{e(name)}</th>' if c == shown[0] else f"<th>{e(name)}</th>"

    rows = []
    for r, flag in zip(records[:MAX_HTML_ROWS], flags[:MAX_HTML_ROWS]):
        cells = []
        for c in shown:
            v = r.get(c)
            if interval and c == "ci_low":
                text = f"[{fmt_cell(v)}, {fmt_cell(r.get('ci_high'))}]"
            elif c in whole:
                text = f"{int(cast(float, v)):,}"
            else:
                text = fmt_cell(v)
            cls = ' class="vc-l"' if c == shown[0] or isinstance(v, str) else ""
            cells.append(f"<td{cls}>{e(text)}</td>")
        if any_flag:
            cells.append(f'<td class="vc-l">{f"<span class=vc-badge>{e(flag)}</span>" if flag else ""}</td>')
        rows.append(f'<tr{" class=vc-flag" if flag else ""}>' + "".join(cells) + "</tr>")
    more = len(records) - MAX_HTML_ROWS
    tail = f'<div class="vc-more">… {more:,} more rows (to_frame() has them all)</div>' if more > 0 else ""
    header = "<tr>" + "".join(head(c) for c in shown) + ('<th class="vc-l">flag</th>' if any_flag else "") + "</tr>"
    return f"<table><thead>{header}</thead><tbody>{''.join(rows)}</tbody></table>{tail}"
