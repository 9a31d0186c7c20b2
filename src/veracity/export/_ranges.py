r"""Bounds on the values of a plan's nodes, for engines whose double arithmetic raises errors.

PostgreSQL refuses a product or quotient of doubles that rounds to 0 from nonzero operands
("value out of range: underflow") or overflows ("overflow"), where IEEE -- numpy, DuckDB, SQLite,
Spark, onnxruntime -- rounds. :mod:`._sql` writes a guard around an operation only where
:func:`extent` says its operands can reach the bounds :func:`limits` finds, so the maps of
ordinary scores keep their plain text.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._plan import Node

#: the smallest positive double (subnormal)
TINY = 5e-324
#: exp() arguments are clamped to this range (in the SQL)
EXP_LIMIT = 700.0
#: the largest double whose exp is finite (exp of the next one overflows): a sigmoid
#: :math:`1/(1 + e^{-z})` (scipy's ``expit``, which ``transform`` applies) is 0 where :math:`-z` is beyond it
EXP_FINITE = 709.782712893384
#: the largest double: a logit beyond it is ±inf, which ``transform`` refuses
MAX_FLOAT = float(np.finfo(np.float64).max)


def extent(node: Node, score_type: str) -> tuple[float, float]:
    r"""``(tiny, big)``: bounds on the magnitude of a plan node's value on the rows that reach it --
    every nonzero value has :math:`|v| \ge` ``tiny`` and every value :math:`|v| \le` ``big``
    (conservative; a node that is always 0 gives ``(inf, 0)``).

    Inputs: a probability in [0, 1], a logit or ranking score up to ±max-float (rows ``transform``
    refuses never reach the map). A sum or difference of two doubles is a multiple of the smaller
    one's unit in the last place, so its nonzero magnitude is at least
    :math:`\min(t_a, t_b)\cdot 2^{-53}`; :math:`|\ln y| \ge 1.1\cdot 10^{-16}` for a double
    :math:`y \ne 1`.
    """
    op = node[0]
    if op == "col":
        return (TINY, 1.0) if score_type == "probability" else (TINY, MAX_FLOAT)
    if op == "const":
        v = abs(float(node[1]))
        return (v, v) if v else (np.inf, 0.0)
    if op in ("neg", "abs", "max0"):
        return extent(node[1], score_type)
    if op == "shift":  # a - r, read only where it is finite (at most the largest double; see _plan)
        (ta, ba), (tr, br) = extent(node[1], score_type), extent(node[2], score_type)
        return max(min(ta, tr) * 2.0 ** -53, TINY), min(ba + br, MAX_FLOAT)
    if op in ("max", "min"):  # one of its arguments
        spans = [extent(a, score_type) for a in node[1:]]
        return min(t for t, _ in spans), max(b for _, b in spans)
    if op == "clip":
        t, b = extent(node[1], score_type)
        lo, hi = node[2], node[3]
        bounds = [abs(float(v)) for v in (lo, hi) if v is not None]
        if lo is not None and hi is not None:
            b = max(bounds)
        elif bounds:
            b = max(b, bounds[0])
        if lo is not None and lo > 0:
            return float(lo), b
        if hi is not None and hi < 0:
            return abs(float(hi)), b
        return min([t] + [v for v in bounds if v > 0]), b
    if op in ("add", "sub", "mul", "div"):
        (ta, ba), (tb, bb) = extent(node[1], score_type), extent(node[2], score_type)
        with np.errstate(all="ignore"):
            if op in ("add", "sub"):
                if ba == 0.0 or bb == 0.0:
                    return (tb, bb) if ba == 0.0 else (ta, ba)
                return max(min(ta, tb) * 2.0 ** -53, TINY), float(np.float64(ba) + np.float64(bb))
            if op == "mul":
                return max(float(np.float64(ta) * tb), TINY), float(np.float64(ba) * bb)
            return max(float(np.float64(ta) / bb), TINY) if bb else np.inf, float(np.float64(ba) / tb)
    if op == "exp":
        b = min(extent(node[1], score_type)[1], EXP_LIMIT)
        return math.exp(-b), math.exp(b)
    if op == "ln":
        t, b = extent(node[1], score_type)
        ends = [abs(math.log(v)) if v > 0 else np.inf for v in (t, b) if np.isfinite(v)]
        return 1e-16, max(ends) if ends else np.inf
    if op == "log1p":  # increasing, log1p(t) >= t/2 for t <= 1
        t, b = extent(node[1], score_type)
        return max(math.log1p(t), TINY) if np.isfinite(t) else np.inf, math.log1p(b)
    if op == "sigmoid":  # 1 / (1 + e^-z), e^-z clamped to e^700 (exact: to e^m, beyond which it is 0)
        exact = len(node) > 2 and node[2]
        m = min(max(extent(node[1], score_type)[1], EXP_LIMIT), EXP_FINITE) if exact else EXP_LIMIT
        return 1.0 / (1.0 + math.exp(m)), 1.0
    if op == "piecewise":
        pieces = node[4]
        ys = np.abs([v for pc in pieces for v in ((pc[3],) if pc[0] == "affine" else (pc[3], pc[4]))])
        flat = all(pc[0] == "affine" and pc[1] == 0.0 for pc in pieces)
        nonzero = ys[ys > 0]
        tiny = (float(nonzero.min()) if nonzero.size else np.inf) if flat else TINY
        return tiny, float(ys.max())
    if op == "level":  # one of its branches
        spans = [extent(b, score_type) for b in node[2]]
        return min(t for t, _ in spans), max(b for _, b in spans)
    return TINY, 1.0  # a head: probabilities


def first_double(pred: Any) -> float | None:
    """The smallest positive double ``v`` with ``pred(v)`` (``pred`` monotone), or None where none has it."""
    top = int(np.float64(MAX_FLOAT).view(np.int64))
    if not pred(MAX_FLOAT):
        return None
    return float(np.int64(first_key(pred, 0, top)).view(np.float64))  # pred false at key 0 (0.0)


def first_key(pred: Any, lo: int, hi: int) -> int:
    """The smallest bit pattern (key) of a non-negative double in (lo, hi] where ``pred`` holds
    (``pred`` monotone in the double, false at key ``lo``, true at key ``hi``): bisection on the keys,
    which order non-negative doubles as their values."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pred(float(np.int64(mid).view(np.float64))):
            hi = mid
        else:
            lo = mid
    return hi


def limits(c: float, op: str) -> tuple[float | None, float | None]:
    """``(zero_below, inf_from)`` of ``v·c`` (``op="mul"``) or ``v/c`` (``"div"``), ``c > 0``: below
    ``zero_below`` the double result is 0, from ``inf_from`` on it is inf (None: never)."""
    f = (lambda v: np.float64(v) * c) if op == "mul" else (lambda v: np.float64(v) / c)
    with np.errstate(all="ignore"):
        return first_double(lambda v: f(v) != 0.0), first_double(lambda v: bool(np.isinf(f(v))))
