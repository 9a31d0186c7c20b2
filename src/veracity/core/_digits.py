r"""How many decimals the comparison and segment results print: enough significant digits for each scale.

Four decimals read well where the numbers are about 0.01 or more (a Brier score of 0.1823 at a base rate of
30 %), and lose the result at rare events: at a 0.5 % default rate a Brier score is about 0.005 and the
difference of two models about 0.0001, so a CORP line read "DSC +0.0004 [+0.0000, +0.0007]" and a Brier
difference "+0.0001 [+0.0000, +0.0002]" — an interval that seems to touch 0, and an estimate of one digit.

The one rule every text, notebook and figure label of :mod:`veracity.comparison` follows (and
:mod:`veracity.segments`, which sits below the comparison and so finds it here, in the core)
(:func:`decimals`): numbers are printed in *groups* read together — a level alone (one model's Brier score),
or a difference with its interval's ends (one group, whose ends may be near 0 and must not ask for digits
of their own) — and a group needs the decimals that show its largest magnitude :math:`m` to
:data:`SIGNIFICANT` significant digits,

.. math:: d(m) = \mathrm{SIGNIFICANT} - 1 - \lfloor \log_{10} m \rfloor ;

the numbers printed together (a table's row, a sentence's clause) share
:math:`\max(\mathrm{FEWEST}, \max_g d(m_g))` decimals, at most :data:`MOST`. A group whose numbers are all
0, NaN or below :math:`\tfrac12 10^{-\mathrm{MOST}}` (rounding noise) asks for nothing. So every group of
0.001 or more prints at 4 decimals, as it always did, and 0.00071 prints as 0.00071, not 0.0007.
JSON (``to_dict()``) keeps every number at full precision; only the printing reads this rule.

**A difference within noise** (its interval holds 0) is printed no finer than its levels need
(:func:`noise_decimals`): at most the decimals that show the levels' largest magnitude :math:`L` to
:data:`LEVEL_SIGNIFICANT` (4) significant digits,

.. math:: d_{\mathrm{noise}} = \min\big(d_{\mathrm{row}},\;
          \max(\mathrm{FEWEST}, \mathrm{LEVEL\_SIGNIFICANT} - 1 - \lfloor \log_{10} L \rfloor)\big),

where :math:`d_{\mathrm{row}}` is what the rule above asks. Its two significant digits are for a difference
that tells the models apart; a near-tie (B is A rounded to 4 decimals, or a monotone map of A plus noise of
1e-9) has a difference and an interval of 1e-7 or less, and asked for 8 decimals of two Brier scores
("0.19426322  0.19426325  +0.00000003") or 6 of two DSCs ("0.047832 / +0.000000 [-0.000001, +0.000015]")
— digits of nothing, on a difference the interval already calls noise. Capped, the Brier row reads at 4
decimals ("0.1943  0.1943  +0.0000  [-0.0000, +0.0000]": its ends signed by their side, which says the
interval holds 0 where an exact 0's "[+0.0000, +0.0000]" would not) and the DSC at 5 ("0.04783 / +0.00000
[-0.00000, +0.00001]"); where every number of the difference then prints as 0, a note gives them at two
significant digits. The cap never bites a difference clear of 0 (it keeps the digits that show it so), nor
one whose largest number is a hundredth of its levels' or more: a rare event's Brier difference within
noise, "0.0054  0.0054  -0.000012  [-0.000043, +0.000019]", needs 6 decimals, and its levels' 4 significant
digits allow 6. Levels that are all 0 (or rounding noise) give no scale and cap nothing. The comparison's AUC
row follows the same cap (:func:`veracity.comparison._compare._below_print`), also where DeLong has no
interval: an AUC, a share of pairs, needs no more than 4 decimals as a level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._text import fmt

#: fewest decimals printed (the look of every result at common scales)
FEWEST = 4
#: most decimals printed: a number below half a unit of the last of them is rounding noise, printed as 0
MOST = 8
#: significant digits each group's largest magnitude shows at least
SIGNIFICANT = 2
#: significant digits of its levels that a difference within noise is printed to, and no finer
LEVEL_SIGNIFICANT = 4


def _top(group: Any) -> float:
    """The largest finite magnitude in ``group`` (0 for none)."""
    values = np.abs(np.asarray(group, dtype=np.float64).ravel())
    values = values[np.isfinite(values)]
    return float(values.max()) if values.size else 0.0


def _need(group: Any, significant: int = SIGNIFICANT) -> int:
    top = _top(group)
    if top < 0.5 * 10.0 ** -MOST:
        return 0  # rounding noise asks for nothing
    return significant - 1 - math.floor(math.log10(top))


def decimals(*groups: Any, fewest: int = FEWEST) -> int:
    """The decimals shared by numbers printed together: each of ``groups`` (a number, or a sequence of
    numbers read as one — a difference and its interval's ends) needs its largest magnitude to show
    :data:`SIGNIFICANT` significant digits; at least ``fewest`` (:data:`FEWEST`; a result whose common look
    has fewer, such as a segment's interval at 3, passes its own), at most :data:`MOST`.

    >>> decimals(0.1823, (0.0120, 0.0080, 0.0160)), decimals(0.0012, (0.0001, 0.00003, 0.00018))
    (4, 5)
    >>> decimals((0.031, 0.012, 0.050), fewest=3), decimals((0.0030, 0.0012, 0.0048), fewest=3)
    (3, 4)
    """
    return min(max([fewest, *(_need(g) for g in groups)]), MOST)


def holds_zero(low: float, high: float) -> bool:
    """Whether an interval ``[low, high]`` holds 0 — a difference within noise (False without an interval:
    NaN ends)."""
    return bool(low <= 0.0 <= high)


def clear_of_zero_decimals(low: float, high: float, digits: int) -> int:
    """``digits``, or more where the interval ``[low, high]`` is clear of 0 and its end nearest 0 prints as
    0 at ``digits`` decimals: then the decimals that show that end to two significant digits
    (:func:`decimals` of the end alone, at least ``digits``, at most :data:`MOST`). A bound of -0.000021
    beside an alarm printed "-0.0000", which reads as an interval touching 0.

    >>> clear_of_zero_decimals(-0.0431, -0.000021, 4), clear_of_zero_decimals(-0.0431, 0.00002, 4)
    (6, 4)
    """
    if not (low > 0.0 or high < 0.0) or not (math.isfinite(low) and math.isfinite(high)):
        return digits  # it holds 0 (or has no end): its ends need no digits of their own
    near = low if low > 0.0 else high
    if float(f"{near:.{digits}f}") != 0.0:
        return digits
    return decimals(near, fewest=digits)


def noise_decimals(digits: int, *levels: float, fewest: int = FEWEST) -> int:
    r"""The decimals of a difference within noise (:func:`holds_zero`) printed at ``digits`` (what
    :func:`decimals` asks for it, with its levels or alone): no more than show the ``levels``' largest
    magnitude :math:`L` to :data:`LEVEL_SIGNIFICANT` significant digits,
    :math:`\min(\mathrm{digits}, \max(\mathrm{fewest}, \mathrm{LEVEL\_SIGNIFICANT} - 1
    - \lfloor\log_{10} L\rfloor))`;
    ``digits`` unchanged where the levels are all 0, NaN or rounding noise (they give no scale).

    >>> noise_decimals(8, 0.2068, 0.2068), noise_decimals(6, 0.0478, 0.0478)
    (4, 5)
    >>> noise_decimals(6, 0.0054, 0.0054), noise_decimals(8, 0.0054, 0.0054)
    (6, 6)
    >>> noise_decimals(7, 0.0, 0.0), noise_decimals(4, 0.2068)
    (7, 4)
    """
    if _top(levels) < 0.5 * 10.0 ** -MOST:
        return digits
    return min(digits, max(fewest, _need(levels, LEVEL_SIGNIFICANT)))


def level_text(value: float, digits: int | None = None) -> str:
    """A level (a score, a rate) at ``digits`` decimals (default: its own, :func:`decimals`)."""
    return fmt(float(value), decimals(value) if digits is None else digits)


def threshold_decimals(values: Any) -> int:
    """Decimals for a column of thresholds (θ, t): the fewest of 3 to 6 that print every one of them as it
    is (0.005 and 0.0025 as "0.0050", "0.0025", not "0.005", "0.003"), else 6."""
    ts = np.asarray(values, dtype=np.float64).ravel()
    ts = ts[np.isfinite(ts)]
    for d in range(3, 7):
        if np.all(np.abs(np.round(ts, d) - ts) < 1e-12):
            return d
    return 6


@dataclass(frozen=True)
class Cell:
    """A number already printed at its group's decimals, for a notebook table: the shared table renderer
    prints it as its text, right-aligned as a number (a ``str`` would be left-aligned as a name)."""

    text: str

    def __str__(self) -> str:
        return self.text
