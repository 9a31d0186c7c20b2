"""One plain-text table renderer used by every printed result."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: characters that change the direction of the text around them (U+202E shows the rest of a line
#: backwards) or are invisible: shown as their ``\uXXXX`` escape in text tables (:func:`render_table`),
#: figures and on the report's page (a browser applies them to the page's own words beside a user's name too)
HIDDEN = {c: f"\\u{c:04x}"
          for c in (0x061C, 0x200B, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def visible(text: Any) -> str:
    """``str(text)`` with the direction-changing and invisible characters of :data:`HIDDEN` escaped."""
    return str(text).translate(HIDDEN)


def render_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    align: str | None = None,
    indent: str = "",
) -> str:
    """Fixed-width table; ``align`` is one 'l'/'r' per column (first left, rest right).

    Widths are terminal columns (:func:`display_width`): a wide character (CJK, most emoji)
    takes two, a combining mark none, so names in any script stay aligned. A direction-changing
    or invisible character (:data:`HIDDEN`: U+202E would print the rest of the line backwards)
    shows as its ``\\uXXXX`` escape (:func:`visible`), as figures and the report show it.
    """
    ncol = len(headers)
    align = align or ("l" + "r" * (ncol - 1))
    cells = [[c if c.isascii() else visible(c) for c in row]
             for row in [list(headers)] + [list(r) + [""] * (ncol - len(r)) for r in rows]]
    shown = [[display_width(c) for c in row] for row in cells]
    widths = [max(row[j] for row in shown) for j in range(ncol)]
    lines = []
    for row, width in zip(cells, shown):
        parts = [
            row[j] + " " * (widths[j] - width[j]) if align[j] == "l" else " " * (widths[j] - width[j]) + row[j]
            for j in range(ncol)
        ]
        lines.append((indent + "  ".join(parts)).rstrip())
    return "\n".join(lines)


def display_width(text: str) -> int:
    """Terminal columns of ``text``: 2 for East Asian wide and fullwidth characters, 0 for combining
    marks and zero-width characters, 1 otherwise (ASCII text: its length)."""
    if text.isascii():
        return len(text)
    import unicodedata

    return sum(0 if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf")
               else 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def fmt(value: float | None, digits: int = 4, *, sign: bool = False) -> str:
    """A float with fixed decimals; None/NaN print as 'n/a'; -0.0 (a log loss of exactly 0,
    a negated zero) prints as 0, while a tiny negative keeps its sign ("-0.0000")."""
    if value is None or value != value:
        return "n/a"
    if value == 0:
        value = 0.0
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


#: p-values below this print as a bound: a double holds nothing smaller faithfully (0 is an underflow)
P_FLOOR = 1e-300


def fmt_p(v: float | None) -> str:
    """A p- or q-value: 3 decimals, 2 significant digits below 0.001, ``<1e-300`` below that (a
    printed "0" would claim a certainty the arithmetic cannot give); None/NaN print as 'n/a'."""
    if v is None or v != v:
        return "n/a"
    if v < P_FLOOR:
        return f"<{P_FLOOR:.0e}"
    return f"{v:.2g}" if v < 0.001 else f"{v:.3f}"


def fmt_edge(x: float) -> str:
    """Shortest of 1–4 decimals that represents a bin edge faithfully."""
    for d in (1, 2, 3, 4):
        if abs(round(x, d) - x) < 1e-12:
            return f"{x:.{d}f}"
    return f"{x:.4f}"


def fmt_edge_pair(lo: float, hi: float) -> tuple[str, str]:
    r"""The two ends of a bin's range: each :func:`fmt_edge`, but for an end within :math:`10^{-4}` of 0 or 1
    (other than 0 and 1 themselves), which shows its distance :math:`m` to that bound to two significant
    digits (:math:`1 - \lfloor\log_{10} m\rfloor` decimals, trailing zeros dropped; below what 17 decimals
    show, as ``4.2e-300``) — the same text for an edge in both rows it bounds; and two distinct ends that
    still print alike get decimals until they differ. Quantile bins of scores near 0 or 1 (rare events)
    read "[0.0000,0.0000)" and "[0.0000,1.0000)" — a bin of scores 5e-6 to 0.99999 named as the whole
    axis — now "[0.0000023,0.0000035)" and "[0.0000035,0.99999)"."""
    texts = [_bound_edge(lo), _bound_edge(hi)]
    d = max(len(t.split(".")[1]) if "." in t and "e" not in t else 0 for t in texts)
    while lo != hi and texts[0] == texts[1] and d < 17:  # distinct ends printed alike
        d += 1
        texts = [f"{lo:.{d}f}", f"{hi:.{d}f}"]
    return texts[0], texts[1]


def _bound_edge(x: float) -> str:
    """:func:`fmt_edge`, or for an edge within 1e-4 of 0 or 1 its distance to that bound to two significant
    digits (:func:`fmt_edge_pair`)."""
    m = min(abs(x), abs(1.0 - x))
    if m == 0.0 or m >= 1e-4 or not math.isfinite(x):
        return fmt_edge(x)
    d = 1 - math.floor(math.log10(m))
    if d > 17:  # below what 17 decimals show (an edge of 1e-300; 1 - 1e-300 is 1.0 itself)
        return f"{x:.2g}"
    shortest = next(k for k in range(1, d + 1) if round(x, k) == round(x, d))  # no trailing zeros
    return f"{x:.{shortest}f}"


def fmt_count(x: float) -> str:
    """A count or a weighted count: whole numbers as integers, others with one decimal, and beyond
    1e15 (weights of 1e300 sum past any count of rows) in scientific notation, never 300 digits. A weight
    sum goes through :func:`~veracity.core._display.fmt_weight` instead (read at 12 significant digits, so
    100 weights of 0.1 print "10", not "10.0" from the sum's last bit); a count of rows prints every digit."""
    if abs(float(x)) >= 1e15:
        return f"{float(x):.4g}"
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


#: the binomial interval methods as a reader names them (the option values are lower case)
INTERVAL_NAMES = {"wilson": "Wilson", "clopper-pearson": "Clopper–Pearson"}


def interval_name(method: str) -> str:
    """``"wilson"`` as ``"Wilson"``, ``"clopper-pearson"`` as ``"Clopper–Pearson"`` (a person's name in a
    legend, a title or a note); any other text unchanged."""
    return INTERVAL_NAMES.get(method, method)


def count_noun(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 row"``, ``"0 rows"``, ``"2000 rows"``: the count and the noun in the number it takes
    (``plural`` for nouns not made plural by an ``s``)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
