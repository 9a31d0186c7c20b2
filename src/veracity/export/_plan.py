r"""A fitted calibrator's map as a small expression tree, read from its JSON artifact.

Both back ends (:mod:`._sql`, :mod:`._onnx`) render the same tree, so the SQL and the
ONNX graph compute one formula, written once, step for step as the calibrator's
``transform`` does (same operations in the same order, the same clipping constants),
which is what makes them agree with it to rounding.

Nodes are tuples ``(op, *args)``:

* ``("col", k)`` — input column k (binary: 0); ``("const", v)``;
* ``("add"|"sub"|"mul"|"div", a, b)``, ``("neg"|"abs"|"max0"|"exp"|"ln"|"sigmoid", a)``;
  ``("log1p", a)`` — :func:`numpy.log1p` of ``a >= 0`` (few engines have it: both back ends write
  Kahan's form, :data:`LOG1P_ONE`);
  ``("sigmoid", a, True)`` — the sigmoid as ``transform`` gives it below :math:`e^{-700}` too, where the
  SQL otherwise clamps its exp (:func:`_exact_sigmoids`);
* ``("max"|"min", a, b, ...)`` — the largest (smallest) of its arguments; ``("shift", a, r)`` — ``a − r``
  for ``r`` the ``max`` (``min``) of a row's features, ``a`` among them (:func:`_row_reference`): where
  that overflows ±inf, or on an engine that raises instead (PostgreSQL) a value of magnitude about the
  largest double, which the head never reads (:class:`Rescue`);
* ``("clip", a, lo, hi)`` — :func:`numpy.clip` with float bounds (either may be None);
* ``("inside", a, lo, hi, then, else)`` — ``then`` where ``lo <= a <= hi``, else ``else`` (NaN: ``else``);
* ``("piecewise", a, edges, side, pieces)`` — ``pieces[i]`` where ``i`` is
  ``searchsorted(edges, a, side)``: the number of edges ``<= a`` (``"right"``) or
  ``< a`` (``"left"``). A piece is ``("affine", slope, x0, y0)`` =
  ``slope·(a − x0) + y0`` (slope 0: the constant ``y0``) or ``("frac", x0, x1, y0, y1)`` =
  ``y0 + (a − x0)/(x1 − x0)·(y1 − y0)`` (isotonic knots closer than 1/max-float);
* ``("level", levels, branches)`` — a feature-level lookup: ``branches[c]`` (a node) on the rows whose
  feature :attr:`Levels.name` has level code ``c`` (:meth:`FeatureSpec.codes
  <veracity.segments._spec.FeatureSpec.codes>` semantics, :class:`Levels`), ``branches[-1]`` on the rows of
  no level (code -1: an unseen value, or a missing one where the feature had none at fit); it reads a
  feature column beside the score, so only the SQL back end writes it (a ``"segment"`` calibrator);
* ``("head", name, items, k[, extra])`` — output k of a row-wise map of the K items:
  ``"softmax"`` (of logits; ``extra`` a :class:`SoftmaxExtra`, or absent: a prior shift on large
  logits, and how they are recomputed on a row where they overflow), ``"renorm"`` (one-vs-rest: divide by the row sum; a row
  summing to <= 0 becomes ``extra``, the fallback row, default uniform) or ``"normalise"`` (divide by
  the row sum).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..core._binning import is_uniform_edges
from ..core._prior_shift import binary_prior_shift
from ..core._row_sums import ROUNDING_SHOWS, ReferenceRule, reference_rule
from ..core._validation import PROB_EPS, VeracityError
from ._redact import redact

#: the largest double
MAX_FLOAT = float(np.finfo(np.float64).max)

Node = tuple

#: calibrator kinds (artifact ``kind``) with an SQL and ONNX form
EXPORTABLE = ("beta", "histogram", "isotonic", "matrix", "one-vs-rest", "platt", "temperature", "vector",
              "venn-abers")
#: calibrator kinds with an SQL form only: their map reads feature columns beside the score
SQL_ONLY = ("segment",)


@dataclass
class Plan:
    """The outputs (one node per output column) and where they came from."""

    outputs: list[Node]
    n_inputs: int                    # 1 (binary scores) or K (multiclass columns)
    kind: str
    metadata: dict[str, Any] = field(default_factory=dict)
    #: what the inputs are: "probability" (in [0, 1]) or "logit" / "score" (any finite number)
    score_type: str = "probability"
    #: multiclass probability rows must sum to 1 (within 1e-6·K), as ``transform`` requires
    rows_sum_to_one: bool = False
    #: ranking scores (``score_type="score"``) that must lie in [0, 1] all the same: beta calibration reads
    #: ln s and ln(1 − s), and its ``transform`` refuses a score outside [0, 1]
    unit_scores: bool = False
    #: the prior shift appended to the map, in words (:func:`_prior_text`), or None: the provenance names it
    prior_shift: str | None = None
    #: the feature names the map reads beside the score (a ``"segment"`` calibrator's ``level`` nodes)
    features: tuple[str, ...] = ()
    #: what the map is beyond its kind, in words, for the provenance (a segment calibrator's base and sets)
    about: str | None = None

    @property
    def multiclass(self) -> bool:
        return self.n_inputs > 1


@dataclass(eq=False)
class Rescue:
    r"""A softmax head's logits on the rows where computing them overflows, as ``transform`` gives them.

    Multiclass temperature scaling with :math:`T < 1` (``kind="divided"``, :math:`L = z/T`) and vector or
    matrix scaling (``"affine"``, :math:`L = Wz + b`) on unbounded features (logits, ranking scores) can
    overflow: a row with a non-finite :math:`L_k` (``transform``'s test) gets, instead, the same softmax
    from logits shifted by the row's largest, computed where nothing overflows (``_shifted_logits`` of
    the calibrators), plus :math:`\beta` (the biases :math:`b`; divided: 0; and a folded prior shift's
    :math:`\ln r`, :class:`SoftmaxExtra`). Softmax output :math:`k` of such a row is
    :math:`1/\sum_j e^{\Delta_{jk}}` with :math:`\Delta_{jk}` the difference of logits :math:`j` and
    :math:`k` clamped to :math:`\pm700`:

    * divided: :math:`\Delta_{jk} = (z_j/2 - z_k/2)/(T/2) + \beta_j - \beta_k` (the halves never
      overflow; ``transform``: :math:`(z/2 - \max z/2)/(T/2)`, the same differences);
    * affine: with :math:`W' = 2^{-f} W` (:math:`|W'| < 1`) and :math:`z' = 2^{-E} z`,
      :math:`P = W' z'` (:meth:`scaled`: every product and partial sum is the real one times
      :math:`2^{-n}`, :math:`n = E + f`, exactly, and :math:`|P_k| \le K\,2^{1024-E} \le 2^{1022}`)
      and :math:`\Delta_{jk} = 2^n (P_j - P_k) + \beta_j - \beta_k`. ``transform`` scales
      :math:`z` by its row's own power of two :math:`2^{-e}` instead; the scaling is exact either way,
      so the differences agree to rounding (``transform``'s :math:`P` keeps only the multiples of
      :math:`2^{-1074}` of features far below the row's largest, an error of :math:`2^{e+f-1074}`
      in a logit).

    An entry of ``transform``'s shifted logits that overflows is :math:`-\infty` (probability 0); here
    its :math:`\Delta` is clamped (probability at most :math:`e^{-700}`).

    Affine logits of the shifted features :math:`x_j = z_j - r` (``shifted``, :func:`_row_reference`): where
    some :math:`z_j - r` overflows (entries of both signs beyond :math:`M/2`) ``transform`` leaves the row
    as it is, so the head reads ``plain`` (:math:`W z + b`) there, and rescues the row where those
    overflow; where :math:`W(z - r) + b` overflows the row is rescued as well, from :math:`z` (the same
    limit softmax to rounding: the scaled products are exact).
    """

    kind: str                  # "affine" | "divided"
    zs: list[Node]             # the K features z_j
    W: np.ndarray | None       # affine: the K x K weights
    b: np.ndarray              # affine: the biases (divided: zeros)
    T: float                   # divided: the temperature (< 1)
    shifted: list[Node] | None = None  # affine: the features z_j - r the head's logits read (None: z_j)
    plain: list[Node] | None = None    # with shifted: the logits W z + b of the rows where z_j - r overflows
    offsets: list[Node] | None = None  # with shifted, a partial tie: the features max(r, 0), min(r, 0)
    W_shifted: np.ndarray | None = None  # with offsets: the K x (K + 2) weights of shifted + offsets

    def on_shifted(self) -> Rescue:
        """The affine map the head's logits read where no :math:`z_j - r` overflows: the shifted features
        (and, with a partial tie, the two offset features), no rescue of its own."""
        assert self.shifted is not None
        if self.offsets is None:
            return replace(self, zs=self.shifted, shifted=None, plain=None)
        return replace(self, zs=self.shifted + self.offsets, W=self.W_shifted, shifted=None, plain=None,
                       offsets=None, W_shifted=None)

    @property
    def E(self) -> int:
        r"""The exponent :math:`E` of the features' scale: :math:`K\,2^{1024-E} \le 2^{1022}`."""
        return int(math.ceil(math.log2(len(self.zs)))) + 2

    @property
    def f(self) -> int:
        """The exponent of the weights' scale (numpy's ``frexp`` of the largest, at least 0)."""
        assert self.W is not None
        return max(int(np.frexp(np.abs(self.W).max())[1]), 0)

    @property
    def n(self) -> int:
        return self.E + self.f

    def scaled_terms(self, r: int) -> list[tuple[int, Node]]:
        """``(j, W'_rj z'_j)`` for the nonzero weights of row r, in the order :math:`L_r` sums them."""
        assert self.W is not None
        w = np.ldexp(self.W[r], -self.f)
        return [(j, ("mul", const(float(w[j])), ("mul", z, const(2.0 ** -self.E))))
                for j, z in enumerate(self.zs) if self.W[r, j] != 0.0]

    def scaled(self) -> list[Node]:
        r""":math:`P_r = \sum_j W'_{rj} z'_j`, summed left to right (0 for a row of zero weights)."""
        out = []
        assert self.W is not None
        for r in range(self.W.shape[0]):
            terms = [t for _, t in self.scaled_terms(r)]
            out.append(_sum(terms) if terms else const(0.0))
        return out


@dataclass(eq=False)
class SoftmaxExtra:
    r"""What a softmax head holds beside its logits: ``rescue`` (:class:`Rescue`, or None) and ``ratio``
    (a prior shift :math:`r = new/old`, or None), applied as ``adjust_prior`` does,
    :math:`p_k r_k / \sum_j p_j r_j = 1/\sum_j e^{l_j - l_k + \ln r_j - \ln r_k}`: the SQL adds
    :math:`\ln r_j - \ln r_k` to each difference of logits (to the logits themselves, a shift is lost
    where they are large: tied logits of 1e17 stayed tied), the ONNX graph multiplies the
    probabilities."""

    ratio: np.ndarray | None = None
    rescue: Rescue | None = None

    @property
    def shift(self) -> np.ndarray | None:
        r""":math:`\ln r` (None: no prior shift)."""
        return None if self.ratio is None else np.log(self.ratio)


#: logits up to this size take a prior shift added to them (an error of at most 2^-41 in a difference);
#: larger ones, on their differences (:class:`SoftmaxExtra`)
FOLD_LIMIT = 2.0 ** 12


def _overflows(weights: list[float], bounds: list[float], bias: float) -> bool:
    r"""Whether a sum :math:`\sum_j w_j x_j + c` (left to right) with :math:`|x_j| \le` ``bounds`` can
    round to ±inf: some partial sum of the magnitudes reaches :math:`M + 2^{970}` (the first value that
    rounds to inf), computed exactly."""
    from fractions import Fraction

    top = Fraction(MAX_FLOAT) + Fraction(2) ** 970
    total = Fraction(0)
    for w, x in zip(weights, bounds):
        if not math.isfinite(x):
            return True
        total += abs(Fraction(w)) * Fraction(x)
        if total >= top:
            return True
    return total + abs(Fraction(bias)) >= top


def const(v: float) -> Node:
    return ("const", float(v))


def _sub(a: Node, b: Node) -> Node:
    return ("sub", a, b)


def sigmoid(z: Node) -> Node:
    return ("sigmoid", z)


def _binary_logit(x: Node, score_type: str) -> Node:
    """``Calibrator._logit_input`` for 1-D scores: log q − log(1 − q), q = clip(p, ε, 1 − ε)."""
    if score_type in ("logit", "score"):  # a ranking score is the feature as it is
        return x
    q = ("clip", x, PROB_EPS, 1.0 - PROB_EPS)
    return _sub(("ln", q), ("ln", _sub(const(1.0), q)))


def _multi_logit(x: Node, score_type: str) -> Node:
    """``Calibrator._logit_input`` for (N, K) scores: log of p clipped to [ε, 1]."""
    if score_type in ("logit", "score"):
        return x
    return ("ln", ("clip", x, PROB_EPS, 1.0))


def _softplus(x: Node) -> Node:
    """``numpy.logaddexp(0, x)`` = log(1 + e^x) without overflow: max(x, 0) + log1p(e^{−|x|}), as numpy
    computes it (``ln(1 + e^{−|x|})`` rounded 1 + e^{−|x|} first: 0 for every x beyond ±36.7, where log1p
    gives e^{−|x|}; a beta map's a·ln σ(s) was off by a·2e-16 there)."""
    return ("add", ("max0", x), ("log1p", ("exp", ("neg", ("abs", x)))))


#: ``("log1p", e)`` of ``e >= 0`` is written in Kahan's form by both back ends: ``e`` where ``e <=`` this
#: (2^-53: ``u = 1 + e`` rounds to 1), else :math:`\ln(u)\cdot(e/(u - 1))`, whose quotient (in [1/2, 2];
#: ``u − 1`` exact) corrects the rounding of ``u``: within a few ulps of :func:`numpy.log1p` (Goldberg,
#: 1991, theorem 4), and no product or quotient that under- or overflows (PostgreSQL raises on those)
LOG1P_ONE = 2.0 ** -53


def _sum(terms: list[Node]) -> Node:
    out = terms[0]
    for t in terms[1:]:
        out = ("add", out, t)
    return out


def numpy_sum(items: list[Any], add: Any) -> Any:
    r"""``items`` summed with ``add(a, b)`` in the order numpy's ``sum`` adds a contiguous row (its pairwise
    summation): fewer than 8 items one after the other; up to 128, eight running sums
    :math:`r_j = a_j + a_{j+8} + \dots` combined as :math:`((r_0 + r_1) + (r_2 + r_3)) + ((r_4 + r_5) +
    (r_6 + r_7))`, then the items past the last multiple of 8 one by one; beyond 128, the two halves (the
    first cut to a multiple of 8) summed so and added. ``transform`` tests a probability row's sum this way
    (:func:`~veracity.core._validation.row_sums_off_one`): summed one after the other, a row of K >= 8
    scores can land one rounding on the other side of the tolerance, and get NULL where ``transform`` maps
    it, or a probability where it refuses it."""
    n = len(items)
    if n < 8:
        out = items[0]
        for item in items[1:]:
            out = add(out, item)
        return out
    if n <= 128:
        r = list(items[:8])
        for i in range(8, n - n % 8, 8):
            r = [add(r[j], items[i + j]) for j in range(8)]
        out = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
        for item in items[n - n % 8:]:
            out = add(out, item)
        return out
    half = n // 2
    half -= half % 8
    return add(numpy_sum(items[:half], add), numpy_sum(items[half:], add))


def _consts(values: Any) -> list[Node]:
    return [("affine", 0.0, 0.0, float(v)) for v in values]


def uniform_thresholds(m: int) -> np.ndarray:
    """The smallest p with ``min(floor(p·m), m−1) >= i`` for i = 1..m−1 (exact in binary64).

    Turns the uniform bin rule into a table of edges: a score's bin is the number of
    thresholds at or below it, bit for bit what ``floor(p·m)`` gives.
    """
    i = np.arange(1, m, dtype=np.float64)
    t = i / m
    for _ in range(4):  # a product off by an ulp moves the threshold by an ulp
        low = np.floor(t * m) >= i
        t = np.where(low, np.nextafter(t, -np.inf), t)
    for _ in range(8):
        high = np.floor(t * m) < i
        if not high.any():
            break
        t = np.where(high, np.nextafter(t, np.inf), t)
    return t


def _flip(bits: np.ndarray) -> np.ndarray:
    """Bit patterns of doubles <-> int64 keys ordered like the doubles (the map is its own inverse)."""
    return bits ^ ((bits >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))


def logit_thresholds(cuts: np.ndarray, side: str) -> np.ndarray:
    r"""For each probability cut :math:`t`: the smallest double :math:`s` with
    :math:`\sigma(s) \ge t` (``side="right"``) or :math:`\sigma(s) > t` (``"left"``).

    The number of these at or below a logit :math:`s` is then the number of cuts at or below
    (below) :math:`\sigma(s)`: a histogram fit on logits bins its input exactly as ``transform``
    does (with the same ``expit``), whatever the engine's ``exp`` rounds to -- an exported
    sigmoid one ulp off at a bin edge would move the score by a whole bin (onnxruntime's
    ``Exp`` differs from the C library's in the last bit). Found by bisection over the
    doubles (64 halvings of their ordered keys, all cuts at once).
    """
    from ..core._special import expit  # the sigmoid transform() applies

    t = np.asarray(cuts, dtype=np.float64)
    hit = (lambda v: expit(v) >= t) if side == "right" else (lambda v: expit(v) > t)
    lo = _flip(np.full(t.shape, -1000.0).view(np.int64))  # sigma = 0: below every cut
    hi = _flip(np.full(t.shape, 1000.0).view(np.int64))   # sigma = 1: at or above every cut < 1
    for _ in range(64):
        mid = (lo >> 1) + (hi >> 1) + (lo & hi & 1)         # floor((lo + hi) / 2), overflow-free
        ok = hit(_flip(mid).view(np.float64))
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return _flip(hi).view(np.float64)


# ----------------------------------------------------------------------------------
# per kind: the binary map of one input node, or the multiclass outputs
# ----------------------------------------------------------------------------------
#: the values each option that shapes a map may take (as the calibrators' schema allows them)
_CHOICES = {"score_type": ("probability", "logit", "score"), "ties": ("allow", "strict"),
            "interpolation": ("step", "linear"), "strategy": ("uniform", "quantile", "equal-count")}


def _choice(params: dict[str, Any], name: str, default: str) -> str:
    """``params[name]`` (``default`` where absent), one of :data:`_CHOICES`: an edited value the map does
    not know (``"Linear"``, ``"LOGIT"``) was read as the default, a silently different map."""
    value = params.get(name, default)
    if value not in _CHOICES[name]:
        raise VeracityError(f"params {name} must be one of {', '.join(map(repr, _CHOICES[name]))}, "
                            f"got {value!r}")
    return str(value)


def _binary(kind: str, params: dict[str, Any], state: dict[str, Any], x: Node) -> Node:
    st = _choice(params, "score_type", "probability")
    if kind == "temperature":
        return sigmoid(("div", _binary_logit(x, st), const(_temperature(state))))
    if kind == "platt":
        return sigmoid(("add", ("mul", const(state["a_"]), _binary_logit(x, st)), const(state["b_"])))
    if kind == "beta":
        if st == "logit":
            f1, f2 = ("neg", _softplus(("neg", x))), _softplus(x)
        else:
            q = ("clip", x, PROB_EPS, 1.0 - PROB_EPS)
            f1, f2 = ("ln", q), ("neg", ("ln", _sub(const(1.0), q)))
        terms = [("mul", const(c), f) for c, f in ((state["a_"], f1), (state["b_"], f2)) if c != 0.0]
        return sigmoid(_sum(terms + [const(state["c_"])]))
    if kind == "isotonic":
        return _isotonic(params, state, x)
    if kind == "histogram":
        edges = _increasing("edges_", state["edges_"])
        values = _consts(state["values_"])
        m = edges.size - 1
        if m < 1 or len(values) != m:
            raise VeracityError(f"state values_ must hold one value per bin ({m}), got {len(values)}")
        strategy = _choice(params, "strategy", "uniform")
        if st == "score" and strategy != "quantile":  # as vc.load refuses: a ranking score binned on [0, 1]
            raise VeracityError(f"a histogram of a ranking score (score_type='score') bins on its order, but "
                                f"params strategy is {strategy!r} (fit with 'quantile')")
        if strategy == "uniform" and not is_uniform_edges(edges):
            # the uniform rule reads only the number of bins: edited edges were ignored silently
            raise VeracityError(f"state edges_ must be the {m} equal-width bins [0, 1/{m}, ..., 1] of "
                                "strategy='uniform'")
        if strategy == "uniform":
            cuts, side = uniform_thresholds(m), "right"
        else:
            cuts, side = edges[1:-1], "left" if strategy == "equal-count" else "right"
        if st == "logit":  # the bins of sigma(s), read off s itself: no sigmoid to round across an edge
            return ("piecewise", x, logit_thresholds(cuts, side), "right", values)
        return ("piecewise", x, cuts, side, values)
    if kind == "venn-abers":
        c = _increasing("c_", state["c_"], strict=True)
        if len(state["p0_"]) != c.size + 1 or len(state["p1_"]) != c.size + 1:
            raise VeracityError(f"state p0_ and p1_ must hold {c.size + 1} values (one more than c_)")
        lo, hi = np.asarray(state["p0_"], dtype=np.float64), np.asarray(state["p1_"], dtype=np.float64)
        if not (np.all((lo >= 0.0) & (lo <= 1.0)) and np.all((hi >= 0.0) & (hi <= 1.0))):
            raise VeracityError("state p0_ and p1_ must be probabilities in [0, 1] (the Venn-ABERS bounds)")
        if np.any(lo > hi):  # as vc.load refuses it: the map p1 / ((1 - p0) + p1) is then no Venn-ABERS map
            i = int(np.flatnonzero(lo > hi)[0])
            raise VeracityError(f"state p0_ must not exceed p1_ (the lower and upper Venn-ABERS probabilities), "
                                f"but item {i} has p0 = {float(lo[i])!r} > p1 = {float(hi[i])!r}")
        p0 = ("piecewise", x, c, "right", _consts(state["p0_"]))
        p1 = ("piecewise", x, c, "left", _consts(state["p1_"]))
        return ("div", p1, ("add", _sub(const(1.0), p0), p1))
    raise _unsupported(kind)


def merged_venn_abers(node: Node) -> Node | None:
    r"""The Venn–ABERS quotient ``p1 / ((1 − p0) + p1)`` of :func:`_binary` as one step table, or None
    where ``node`` is not that quotient.

    ``p0`` looks its value up with ``searchsorted(c, x, "right")`` and ``p1`` with ``"left"``: the two
    indices agree except on a score equal to a knot, where ``p0``'s is one more. So the quotient has one
    value on each open gap, :math:`g_i = p_{1,i} / ((1 - p_{0,i}) + p_{1,i})` (i = 0..K), and one at each
    knot, :math:`v_i = p_{1,i} / ((1 - p_{0,i+1}) + p_{1,i})` (i = 0..K−1), computed here with the
    operations ``transform`` uses, so each is its very double. The table's edges are every knot
    :math:`c_i` and the next double above it (side ``"right"``: :math:`x = c_i` alone lies between
    them); an empty gap (the next double is the next knot, or inf) and an edge between two equal values
    are dropped. Written once, the table replaces three (``p1`` twice, ``p0`` once). None also where a
    value would be NaN (0/0, which only a loaded artifact reaches: the SQL then gives NULL on those scores,
    which ``transform`` refuses; :func:`zero_over_zero`).
    """
    if not (node[0] == "div" and node[1][0] == "piecewise" and node[2][0] == "add"
            and node[2][1][0] == "sub" and node[2][1][1] == ("const", 1.0) and node[2][2] is node[1]):
        return None  # the numerator is the denominator's own p1 node (one object), as _binary builds it
    p1, p0 = node[1], node[2][1][2]
    if p0[0] != "piecewise" or p0[1] is not p1[1] or (p0[3], p1[3]) != ("right", "left"):
        return None
    c0, c1 = np.asarray(p0[2], dtype=np.float64), np.asarray(p1[2], dtype=np.float64)
    if c0.shape != c1.shape or not np.array_equal(c0, c1) or c0.size == 0:
        return None
    if any(p[0] != "affine" or p[1] != 0.0 for p in list(p0[4]) + list(p1[4])):
        return None
    lo = np.array([p[3] for p in p0[4]], dtype=np.float64)
    hi = np.array([p[3] for p in p1[4]], dtype=np.float64)
    with np.errstate(all="ignore"):
        gap = hi / (1.0 - lo + hi)                 # transform's p1 / (1.0 - p0 + p1), same order
        knot = hi[:-1] / (1.0 - lo[1:] + hi[:-1])
    if np.isnan(gap).any() or np.isnan(knot).any():
        return None
    with np.errstate(over="ignore"):  # the double above max-float is inf, exactly (IEEE's overflow flag)
        above = np.nextafter(c0, np.inf)
    # per knot i: edge c_i with the knot's value, then edge next(c_i) with gap i+1's value where that gap
    # holds a double (in this order, interleaved)
    cand_edges = np.column_stack([c0, above]).ravel()
    cand_values = np.column_stack([knot, gap[1:]]).ravel()
    holds = np.isfinite(above) & np.append(above[:-1] < c0[1:], True)
    keep = np.column_stack([np.ones(c0.size, dtype=bool), holds]).ravel()
    cand_edges, cand_values = cand_edges[keep], cand_values[keep]
    # the same double (sign included) on both sides of an edge: no edge; equal neighbours form runs, so
    # comparing with the candidate before (gap 0 before the first) is comparing with the last value kept
    before = np.concatenate([gap[:1], cand_values[:-1]])
    same = (cand_values == before) & (np.signbit(cand_values) == np.signbit(before))
    values = np.concatenate([gap[:1], cand_values[~same]])
    return ("piecewise", p1[1], np.asarray(cand_edges[~same], dtype=np.float64), "right", _consts(values))


def _temperature(state: dict[str, Any]) -> float:
    t = float(state["temperature_"])
    if not t > 0:  # 0 divides by zero; a negative temperature reverses the order of the scores
        raise VeracityError(f"state temperature_ must be a positive number, got {state['temperature_']!r}")
    return t


def _isotonic(params: dict[str, Any], state: dict[str, Any], x: Node) -> Node:
    kx = _increasing("knots_x_", state["knots_x_"], strict=True)
    ky = np.asarray(state["knots_y_"], dtype=np.float64)
    if ky.shape != kx.shape:
        raise VeracityError(f"state knots_y_ must hold one value per knot ({kx.size}), got {ky.size}")
    linear = (_choice(params, "ties", "allow") == "strict"
              or _choice(params, "interpolation", "step") == "linear")
    if not linear or kx.size == 1:
        return ("piecewise", x, kx[1:], "right", _consts(ky))
    if not math.isfinite(float(kx[-1]) - float(kx[0])):
        # knots near ±max-float: a difference of two overflows (its slope would read 0), so the map runs on
        # halved scores and knots, as IsotonicCalibration.transform evaluates it
        x, kx = ("mul", x, const(0.5)), kx * 0.5
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slope = np.diff(ky) / np.diff(kx)
    pieces: list[tuple] = []
    for i in range(kx.size - 1):
        if not np.isfinite(slope[i]):
            pieces.append(("frac", float(kx[i]), float(kx[i + 1]), float(ky[i]), float(ky[i + 1])))
        else:
            pieces.append(("affine", float(slope[i]), float(kx[i]), float(ky[i])))
    pieces.append(("affine", 0.0, 0.0, float(ky[-1])))
    xc = ("clip", x, float(kx[0]), float(kx[-1]))
    return ("piecewise", xc, kx[1:], "right", pieces)


def _multiclass(kind: str, params: dict[str, Any], state: dict[str, Any], k: int) -> list[Node]:
    st = _choice(params, "score_type", "probability")
    cols = [("col", j) for j in range(k)]
    if kind == "temperature":
        temperature = _temperature(state)
        if temperature * 0.5 == 0.0:  # the smallest double: the rescue's (z_j/2 − z_k/2)/(T/2) divides by 0
            raise VeracityError(f"state temperature_ {temperature!r} is the smallest positive double: z/T "
                                "overflows for every row that is not all zeros, and transform() refuses "
                                "those rows as a faulty calibrator; re-fit it")
        t = const(temperature)
        zs = [_multi_logit(c, st) for c in cols]
        logits = [("div", z, t) for z in zs]
        inf_from = _limits_div(temperature)
        if inf_from is not None and max(_extent(z, st)[1] for z in zs) >= inf_from:  # z/T can overflow
            extra = SoftmaxExtra(rescue=Rescue("divided", zs, None, np.zeros(k), temperature))
            return [("head", "softmax", logits, j, extra) for j in range(k)]
        return [("head", "softmax", logits, j) for j in range(k)]
    if kind in ("vector", "matrix"):
        W = np.asarray(state["W_"], dtype=np.float64)
        b = np.asarray(state["b_"], dtype=np.float64)
        if W.shape != (k, k) or b.shape != (k,):  # a larger W would be cut to its first K rows silently
            raise VeracityError(f"state W_ must be {k} x {k} and b_ hold {k} values (state n_classes_ = "
                                f"{k}), got W_ of shape {W.shape} and {b.size} values of b_")
        z = [_multi_logit(c, st) for c in cols]
        bounds = [_extent(zj, st)[1] for zj in z]
        found = _row_reference(W, z, bounds)
        ref, rule = found if found is not None else (None, None)
        shifted = None if ref is None else [("shift", zj, ref) for zj in z]
        feats, Wx, offsets = z if shifted is None else shifted, W, None
        if rule is not None and rule.offsets is not None:  # a partial tie: r(s_k - c) as two more features
            offsets = [("max0", ref), ("neg", ("max0", ("neg", ref)))]
            feats, Wx = feats + offsets, np.hstack([W, rule.offsets])
        logits = _affine_logits(Wx, b, feats)
        fbounds = [_extent(f, st)[1] for f in feats]
        spread = ref is not None and max(bounds) >= MAX_FLOAT / 2.0  # some z_j - r can overflow
        if spread or any(_overflows(list(Wx[r]), fbounds, float(b[r])) for r in range(k)):  # so can logits
            plain = None if ref is None else _affine_logits(W, b, z)
            rescue = Rescue("affine", z, W, b, 1.0, shifted, plain, offsets, None if offsets is None else Wx)
            return [("head", "softmax", logits, j, SoftmaxExtra(rescue=rescue)) for j in range(k)]
        return [("head", "softmax", logits, j) for j in range(k)]
    if kind == "one-vs-rest":
        if len(state["maps_"]) != k:
            raise VeracityError(f"state maps_ must hold one map per class ({k}, state n_classes_), "
                                f"got {len(state['maps_'])}")
        maps = [_exact_sigmoids(_binary(m["kind"], {"score_type": st, **m["params"]}, m["state"], cols[j]))
                for j, m in enumerate(state["maps_"])]
        return [("head", "renorm", maps, j) for j in range(k)]
    raise _unsupported(kind)


def _exact_sigmoids(node: Node) -> Node:
    r"""``node`` with each sigmoid marked exact, ``("sigmoid", z, True)`` (the SQL writes it as ``transform``
    gives it below :math:`e^{-700}`, where it otherwise clamps the exp: :meth:`._sql._Builder.sigmoid`).

    A one-vs-rest head divides each class's map by the row's sum of them: the maps of a row whose linear
    predictors all lie below -700 (logits or ranking scores of some hundreds, a steep Platt or beta map)
    were each the clamp's :math:`1/(1 + e^{700})` in the SQL, so the row came out uniform where
    ``transform`` gives the ratios of the :math:`e^{z_k}`. Unchanged subtrees stay the very objects."""
    if not isinstance(node, tuple) or not node or not isinstance(node[0], str) or node[0] == "piecewise":
        return node
    args = [_exact_sigmoids(a) for a in node[1:]]
    if node[0] == "sigmoid":
        return ("sigmoid", args[0], True)
    return node if all(a is b for a, b in zip(args, node[1:])) else (node[0], *args)


def _affine_logits(W: np.ndarray, b: np.ndarray, feats: list[Node]) -> list[Node]:
    r""":math:`L_r = \sum_j W_{rj} x_j + b_r`, summed left to right over the nonzero weights."""
    logits = []
    for r in range(W.shape[0]):
        terms = [("mul", const(W[r, j]), feats[j]) for j in range(len(feats)) if W[r, j] != 0.0]
        logits.append(_sum(terms + [const(b[r])]) if terms else const(b[r]))
    return logits


def _row_reference(W: np.ndarray, z: list[Node], bounds: list[float]) -> tuple[Node, ReferenceRule] | None:
    r"""The per-row reference :math:`r` the logits subtract from the features, :math:`W(z - r\mathbf 1) + b`
    (plus :math:`r(s_k - c)` where only some rows of :math:`W` share their sum :math:`s_k`: two more
    features, :math:`\max(r, 0)` and :math:`\min(r, 0)`, weighed by
    :attr:`~veracity.core._row_sums.ReferenceRule.offsets`), with its rule, or None: :math:`W z + b` as it
    is.

    ``transform`` subtracts the row's largest feature (:math:`\max s \ge 0`; its smallest where
    :math:`\max s < 0`) where some rows of :math:`W` share their exact sum and some
    :math:`\sum_j |W_{kj}||z_j|` reaches :data:`~veracity.core._row_sums.ROUNDING_SHOWS`: the same softmax,
    and :math:`b` is no longer rounded away at :math:`z + 10^{100}`. The export subtracts the same entry,
    one rule for both (:func:`~veracity.core._row_sums.reference_rule`, with its error bound):
    ``GREATEST``/``LEAST`` (SQLite's ``MAX``/``MIN``), ONNX ``Max``/``Min`` (until session 25 ``transform``
    took the median, and rows whose median lies far from their largest entry, such as
    :math:`(10^{17}, 10^{17} + 16, -10^{17}, -10^{17})`, read differently in the two). ``transform``'s gate
    on :math:`\sum_j |W_{kj}||z_j|` is read here at plan time only, on the features' bounds
    (probabilities, :math:`|\ln p| \le 36`, rarely reach it: the text stays :math:`W z + b`); the SQL and
    ONNX shift every row, with no gate per row: below it the two evaluations are the same map rounded on
    products of that size, about :math:`K\,2^{-45}` apart in a logit, far inside the 1e-12 the exports
    keep to ``transform``. A row whose :math:`z_j - r` overflows is read as :math:`W z + b`
    (:class:`Rescue`), as ``transform`` reads it."""
    with np.errstate(over="ignore", invalid="ignore"):
        reach = float(np.max(np.abs(W) @ np.asarray(bounds, dtype=np.float64)))
    rule = reference_rule(W) if reach >= ROUNDING_SHOWS else None
    return None if rule is None else ((rule.side, *z), rule)


def _extent(node: Node, score_type: str) -> tuple[float, float]:
    from ._ranges import extent  # _ranges reads this module's Node

    return extent(node, score_type)


def _limits_div(c: float) -> float | None:
    """The smallest :math:`|v|` with :math:`v / c` = ±inf (None: none)."""
    from ._ranges import limits

    return limits(c, "div")[1]


def _malformed(kind: str, detail: str) -> VeracityError:
    return VeracityError(
        f"the {kind!r} artifact cannot be exported: {detail}; export a fitted calibrator, or an artifact as "
        "saved (vc.load(path) checks one), rather than an edited one")


def _increasing(name: str, values: Any, strict: bool = False) -> np.ndarray:
    """``values`` as a non-empty 1-D array of non-decreasing numbers (``strict``: increasing, as ``vc.load``
    requires of isotonic knots and Venn–ABERS scores: a repeated Venn–ABERS score gave the SQL and the ONNX
    model different probabilities at it, and a repeated knot a map no fit has)."""
    arr = np.asarray(values, dtype=np.float64)
    steps = np.diff(arr) if arr.ndim == 1 else arr
    if arr.ndim != 1 or arr.size == 0 or not np.all(steps > 0 if strict else steps >= 0):
        rule = "strictly increasing" if strict else "non-decreasing"
        raise VeracityError(f"state {name} must be a non-empty list of {rule} numbers")
    return arr


def _check_constants(outputs: list[Node]) -> None:
    """Every number of the map is finite (SQL cannot write the others; ONNX would compute NaN).

    A node several outputs share (a one-vs-rest head holds every class's map in each of its K outputs, a
    Venn–ABERS quotient its ``p1`` table twice) is read once."""
    stack: list[Any] = list(outputs)
    seen: set[int] = set()   # ids of the tuples and lists read (all alive in ``outputs`` meanwhile)
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            if id(node) not in seen:
                seen.add(id(node))
                stack.extend(node)
        elif isinstance(node, np.ndarray):
            if node.dtype.kind == "f" and not np.all(np.isfinite(node)):
                raise VeracityError("its state holds a non-finite number")
        elif isinstance(node, float) and not math.isfinite(node):
            raise VeracityError(f"its state holds the non-finite number {node!r}")


def _unsupported(kind: str) -> VeracityError:
    return VeracityError(
        f"a {kind!r} calibrator has no SQL/ONNX form; exportable kinds: {', '.join(EXPORTABLE)} "
        f"(multiclass Venn-ABERS: fit VennAbers(multiclass='ovr')); SQL only: {', '.join(SQL_ONLY)}")


def artifact_of(calibrator: Any) -> dict[str, Any]:
    """The JSON artifact of a fitted calibrator (or the artifact dict itself)."""
    if isinstance(calibrator, dict):
        return calibrator
    to_dict = getattr(calibrator, "to_dict", None)
    if to_dict is None:
        raise VeracityError(
            f"expected a fitted veracity calibrator or its artifact dict, got {type(calibrator).__name__}; "
            "fit one (vc.PlattScaling().fit(scores, labels)) or load it with vc.load(path)")
    return to_dict()


def _prior_vector(value: Any, name: str, k: int) -> np.ndarray:
    want = "one number in (0, 1) (the positive rate)" if k == 2 else f"{k} class priors in (0, 1)"
    try:
        arr = np.atleast_1d(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError):
        raise VeracityError(f"prior_shift {name} must be {want}, got {value!r}") from None
    if k == 2 and arr.size == 1:
        # the rate itself is checked (as adjust_prior does): 1 − π rounds to 1 for π below ~1e-16, and a
        # rate of 1e-20 is one strictly between 0 and 1
        if not (np.isfinite(arr[0]) and 0.0 < arr[0] < 1.0):
            raise VeracityError(f"prior_shift {name} must be {want}, got {value!r}")
        return np.array([1.0 - arr[0], arr[0]])
    if arr.ndim != 1 or arr.size != k or not np.all(np.isfinite(arr)) or (arr <= 0).any() or (arr >= 1).any():
        raise VeracityError(f"prior_shift {name} must be {want}, got {value!r}")
    if abs(arr.sum() - 1.0) > 1e-9:
        raise VeracityError(f"prior_shift {name} class priors must sum to 1, got sum {arr.sum():.6g}")
    return arr


def _prior_width(prior_shift: Any) -> int:
    """The number of classes a prior shift's ``old`` names when it lists more than two priors (else 2)."""
    try:
        old = prior_shift[0]
        size = np.asarray(old, dtype=np.float64).size
    except (TypeError, ValueError, IndexError, KeyError):
        return 2
    return size if size > 2 else 2


#: the smallest normal double: a product below it has lost digits to underflow (or is 0)
_NORMAL = float(np.finfo(np.float64).tiny)


def _normal_range(o1: float, n1: float) -> tuple[float, float] | None:
    r"""The probabilities :math:`p \in [0, 1]` where neither :math:`p(1-o)n` nor :math:`(1-p)o(1-n)` (as
    ``adjust_prior`` forms them, left to right) falls below the smallest normal double: ``(lo, hi)``, or
    None where no p has both. Each product is monotone in p (rounding is), so the set is an interval,
    found by bisection on the doubles' bit patterns."""
    from ._ranges import first_key as _first_key  # _ranges reads this module's Node

    with np.errstate(under="ignore"):
        def num(p: float) -> bool:
            return bool(np.float64(p) * (1.0 - o1) * n1 >= _NORMAL)

        def rest(p: float) -> bool:  # true while (1 − p)·o·(1 − n) is still normal
            return bool((1.0 - np.float64(p)) * o1 * (1.0 - n1) >= _NORMAL)

        one = int(np.float64(1.0).view(np.int64))
        if not num(1.0) or not rest(0.0):
            return None
        lo = 0.0 if num(0.0) else float(np.int64(_first_key(num, 0, one)).view(np.float64))
        hi = 1.0 if rest(1.0) else float(np.int64(_first_key(lambda p: not rest(p), 0, one) - 1)
                                           .view(np.float64))
    if lo <= hi:
        # no double lies between 0 and the least subnormal, nor between 1 − 2^-53 and 1; at p = 0 and 1
        # both forms give p exactly (the other product is normal there)
        return (0.0 if lo == 5e-324 else lo), (1.0 if hi == float(np.nextafter(1.0, 0.0)) else hi)
    return None


def _binary_shift(p: Node, o1: float, n1: float, score_type: str) -> Node:
    r"""``adjust_prior`` of a binary probability: :math:`p(1-o)n / (p(1-o)n + (1-p)o(1-n))`, and, on the
    probabilities where a product falls below the smallest normal double (:func:`_normal_range`; e.g.
    old = new = 1e-16 turned p = 1e-310 into 0), its underflow-safe form: with :math:`a = (1-o)n`,
    :math:`b = o(1-n)` and :math:`m = \max(a, b)`, :math:`pA / (pA + (1-p)B)`, :math:`A = a/m`,
    :math:`B = b/m` (one of them 1), and p itself where that is 0/0. The branch is written only where
    p can reach those probabilities, so the maps of ordinary calibrators keep their plain form."""
    num = ("mul", ("mul", p, const(1.0 - o1)), const(n1))
    rest = ("mul", ("mul", _sub(const(1.0), p), const(o1)), const(1.0 - n1))
    plain: Node = ("div", num, ("add", num, rest))
    bounds = _normal_range(o1, n1)
    # the nonzero values p can take (a probability: |p| = p); at p = 0 and 1 both forms give p
    lo_p, hi_p = _extent(p, "probability" if p[0] == "col" else score_type)
    if bounds is not None and bounds[0] <= lo_p and hi_p <= bounds[1]:
        return plain
    with np.errstate(under="ignore"):
        a, b = (1.0 - o1) * n1, o1 * (1.0 - n1)
        m = max(a, b)
        A, B = float(np.float64(a) / m), float(np.float64(b) / m)
    top = ("mul", p, const(A))
    safe: Node = ("div", top, ("add", top, ("mul", _sub(const(1.0), p), const(B))))
    if B == 0.0:   # A = 1: pA + 0 is 0 only at p = 0, whose limit is p
        safe = ("inside", p, 0.0, 0.0, p, safe)
    elif A == 0.0:  # B = 1: 0 + (1 − p) is 0 only at p = 1
        safe = ("inside", p, 1.0, 1.0, p, safe)
    if bounds is None:
        return safe
    return ("inside", p, bounds[0], bounds[1], plain, safe)


def _shifted_table(p: Node, old: float, new: float) -> Node | None:
    r"""A binary step table (isotonic steps, histogram bins, Venn–ABERS as :func:`merged_venn_abers`) under
    a prior shift: the same edges, each step's value :math:`v` replaced by ``adjust_prior(v, old, new)``
    itself, so each is the very double ``adjust_prior(transform(x))`` gives (the shift maps a row's
    probability alone); neighbouring steps that become the same double are merged. The table is then
    written once, where the shift's formula repeated it three times (and its underflow-safe form more).
    None where ``p`` is no table of constants in [0, 1] (a linear isotonic, a formula)."""
    table = merged_venn_abers(p) if p[0] == "div" else p
    if table is None or table[0] != "piecewise" or any(q[0] != "affine" or q[1] != 0.0 for q in table[4]):
        return None
    values = np.array([q[3] for q in table[4]], dtype=np.float64)
    if not (np.all(values >= 0.0) and np.all(values <= 1.0)):
        return None
    shifted = binary_prior_shift(values, old, new)  # adjust_prior's very formula (core._prior_shift)
    edges = np.asarray(table[2], dtype=np.float64)
    keep = [i for i in range(edges.size) if not (shifted[i + 1] == shifted[i]
                                                   and np.signbit(shifted[i + 1]) == np.signbit(shifted[i]))]
    out = [float(shifted[0])] + [float(shifted[i + 1]) for i in keep]
    return ("piecewise", table[1], edges[keep], table[3], _consts(out))


def _prior_shift(outputs: list[Node], prior_shift: Any, score_type: str = "probability") -> list[Node]:
    """``vc.adjust_prior`` on the outputs, with its formula and order of operations."""
    try:
        old, new = prior_shift
    except (TypeError, ValueError):
        raise VeracityError(
            f"prior_shift must be a pair (old, new) of base rates or class priors, got {prior_shift!r}"
        ) from None
    binary = len(outputs) == 1  # one output: the positive class; K outputs (K = 2 too): one per class
    k = 2 if binary else len(outputs)
    o, nw = _prior_vector(old, "old", k), _prior_vector(new, "new", k)
    if binary:
        folded = _shifted_table(outputs[0], float(o[1]), float(nw[1]))
        if folded is not None:
            return [folded]
        return [_binary_shift(outputs[0], float(o[1]), float(nw[1]), score_type)]
    ratio = nw / o
    heads = {(out[1], id(out[2])) for out in outputs if out[0] == "head"}
    if len(heads) == 1 and len(outputs) == k and all(out[0] == "head" for out in outputs):
        # the shift folded into the map's own head, so that SQL writes each class's map K times per
        # row, not K^2 (SQL has no common subexpressions): softmax(l)·r / Σ = softmax(l + ln r), and
        # one-vs-rest m_k/Σm · r_k / Σ_j (m_j/Σm · r_j) = m_k r_k / Σ m_j r_j (a row of zero maps, uniform
        # under the old prior, is (1/K)·r / Σ (1/K)·r under the new one, as adjust_prior computes it)
        name, items = outputs[0][1], outputs[0][2]
        if name == "softmax":
            extra = outputs[0][4] if len(outputs[0]) > 4 else None
            large = max(_extent(item, score_type)[1] for item in items) >= FOLD_LIMIT
            if isinstance(extra, SoftmaxExtra) or large:
                # large logits: the shift goes to their differences (added to the logits it was lost)
                rescue = extra.rescue if isinstance(extra, SoftmaxExtra) else None
                before = extra.ratio if isinstance(extra, SoftmaxExtra) and extra.ratio is not None else 1.0
                extra = SoftmaxExtra(ratio=before * ratio, rescue=rescue)
                return [("head", "softmax", items, j, extra) for j in range(k)]
            shifted = [("add", item, const(np.log(r))) for item, r in zip(items, ratio)]
            return [("head", "softmax", shifted, j) for j in range(k)]
        if name == "renorm":
            uniform = np.full(k, 1.0 / k) * ratio
            fallback = tuple(float(v) for v in uniform / uniform.sum())
            weighted = [("mul", item, const(r)) for item, r in zip(items, ratio)]
            return [("head", "renorm", weighted, j, fallback) for j in range(k)]
    q = [("mul", p, const(r)) for p, r in zip(outputs, ratio)]
    return [("head", "normalise", q, j) for j in range(k)]


def _n_classes(value: Any) -> int:
    """An artifact's ``n_classes_``: a whole number of at least 2 (``int(2.7)`` would read 2 silently)."""
    whole = isinstance(value, (int, np.integer)) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole or value < 2:
        raise VeracityError(f"state n_classes_ must be a whole number of at least 2, got {value!r}")
    return int(value)


def _two_columns(metadata: dict[str, Any], width: int | None) -> bool:
    """Whether a two-class temperature reads (N, 2) scores: the width the caller names (its column
    list), else the width it was fit on (``n_columns``, or the recorded score columns)."""
    if width is not None:
        return width == 2
    n = metadata.get("n_columns")
    if isinstance(n, int) and not isinstance(n, bool):
        return n == 2
    recorded = metadata.get("score_column")
    return isinstance(recorded, str) and len(recorded.split(",")) == 2


def plan(calibrator: Any, *, prior_shift: Any = None, n_classes: int | None = None,
         width: int | None = None) -> Plan:
    r"""The expression tree of a fitted calibrator (``None``: the identity, for a bare prior shift).

    A two-class temperature maps 1-D scores by :math:`\sigma(x/\tau)` and (N, 2) scores by a
    softmax (as its ``transform`` does); ``width`` (the number of input columns named) picks
    the form, by default the one it was fit on.
    """
    if calibrator is None:
        if prior_shift is None:
            raise VeracityError("nothing to export: pass a fitted calibrator, or prior_shift=(old, new)")
        if n_classes is not None and (isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer))
                                      or n_classes < 2):
            raise VeracityError(f"n_classes must be an integer of at least 2 (the classes of the shifted "
                                f"scores), got {n_classes!r}")
        # K class priors, or K columns named: K classes (two numbers stay one base rate)
        k = max(width or 2, _prior_width(prior_shift)) if n_classes is None else int(n_classes)
        outs: list[Node] = [("col", 0)] if k == 2 else [("col", j) for j in range(k)]
        # K class probabilities: a row adjust_prior refuses (not summing to 1) gets no output, as a fitted
        # multiclass map's does (a row of zeros was 0/0: NaN, or PostgreSQL's "division by zero")
        return Plan(_prior_shift(outs, prior_shift), 1 if k == 2 else k, "prior-shift", {},
                    rows_sum_to_one=k > 2, prior_shift=_prior_text(prior_shift, k))
    doc = artifact_of(calibrator)
    kind = doc.get("kind")
    for section in ("params", "state", "metadata"):  # dict() of a list or text raised a raw TypeError
        if not isinstance(doc.get(section) or {}, dict):
            raise _malformed(str(kind), f"its {section} must be a JSON object, got "
                                        f"{type(doc[section]).__name__} {str(doc[section])[:40]!r}")
    params, state = dict(doc.get("params") or {}), dict(doc.get("state") or {})
    metadata = dict(doc.get("metadata") or {})
    if kind not in EXPORTABLE + SQL_ONLY:
        raise _unsupported(str(kind))
    if kind == "segment":
        return _segment_plan(params, state, metadata, prior_shift)
    try:
        k = _n_classes(state.get("n_classes_", 2))
        multi = kind in ("vector", "matrix", "one-vs-rest") or (
            kind == "temperature" and (k > 2 or (k == 2 and _two_columns(metadata, width))))
        if multi:
            outputs = _multiclass(kind, params, state, k)
        else:
            outputs = [_binary(kind, params, state, ("col", 0))]
        _check_constants(outputs)
    except VeracityError as exc:
        raise _malformed(str(kind), str(exc)) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as exc:
        detail = f"missing state {exc}" if isinstance(exc, KeyError) else " ".join(str(exc).split())[:120]
        raise _malformed(str(kind), detail) from None
    score_type = str(params.get("score_type", "probability"))
    shift_text = None
    if prior_shift is not None:
        outputs = _prior_shift(outputs, prior_shift, score_type)
        shift_text = _prior_text(prior_shift, k if multi else 2)
    maps = state.get("maps_") if kind == "one-vs-rest" else [{"kind": kind}]
    beta = any(isinstance(m, dict) and m.get("kind") == "beta" for m in maps or [])
    about = None
    if kind == "one-vs-rest":  # which binary map each class has: the kind alone did not say
        kinds = sorted({str(m.get("kind")) for m in maps or []})
        about = f"{k} {' and '.join(kinds)} maps, one per class"
    return Plan(outputs, k if multi else 1, kind, metadata, score_type=score_type,
                rows_sum_to_one=multi and score_type == "probability",
                unit_scores=beta and score_type == "score", prior_shift=shift_text, about=about)


def _prior_text(prior_shift: Any, k: int) -> str:
    """A (validated) prior shift in words, for the provenance: ``base rate 0.3 -> 0.1`` (two classes: the
    positive class's rate) or ``class priors [0.1, 0.9] -> [0.5, 0.5]``."""
    old, new = prior_shift
    o, n = _prior_vector(old, "old", k), _prior_vector(new, "new", k)
    if k == 2 and np.asarray(old).size == 1:
        return f"base rate {float(o[1])!r} -> {float(n[1])!r}"
    return f"class priors {[float(v) for v in o]!r} -> {[float(v) for v in n]!r}"


def zero_over_zero(node: Any, found: list) -> list[tuple[Node, float | None, float | None]]:
    r"""The scores where a Venn–ABERS quotient ``p1 / ((1 − p0) + p1)`` in ``node`` is 0/0, as
    ``(x, lo, hi)``: ``x = lo`` where ``lo == hi`` (a knot :math:`c_i` with :math:`p_{1,i} = 0` and
    :math:`p_{0,i+1} = 1`), else ``lo < x < hi`` (an open gap, None: unbounded).

    A fitted map never has one (:math:`p_1 > 0`: the test row labelled 1 weighs in every block), but a
    loaded artifact may (p0 = p1 = [0, 1] passes the schema): ``transform`` gives NaN there and refuses the
    call, so the SQL gives no probability (NULL) on those rows, on every output they reach (a one-vs-rest
    row sum too), and never evaluates the quotient: PostgreSQL raised "division by zero", DuckDB gave NaN,
    and SQLite's NULL share became the uniform fallback of a one-vs-rest row. Such a quotient is the one
    :func:`merged_venn_abers` leaves unmerged; it is read with the same indices and operations."""
    if isinstance(node, list):
        for item in node:
            zero_over_zero(item, found)
        return found
    if not isinstance(node, tuple) or not node or not isinstance(node[0], str) or node[0] == "piecewise":
        return found
    if (node[0] == "div" and node[1][0] == "piecewise" and node[2][0] == "add" and node[2][1][0] == "sub"
            and node[2][1][1] == ("const", 1.0) and node[2][2] is node[1]):
        p1, p0 = node[1], node[2][1][2]
        if (p0[0] == "piecewise" and p0[1] is p1[1] and (p0[3], p1[3]) == ("right", "left")
                and np.array_equal(p0[2], p1[2]) and len(p0[4]) == len(p1[4]) == len(p0[2]) + 1
                and all(q[0] == "affine" and q[1] == 0.0 for q in list(p0[4]) + list(p1[4]))):
            c = [float(v) for v in np.asarray(p0[2], dtype=np.float64)]
            lo = np.array([q[3] for q in p0[4]], dtype=np.float64)
            hi = np.array([q[3] for q in p1[4]], dtype=np.float64)
            with np.errstate(all="ignore"):
                gap = hi / (1.0 - lo + hi)                 # transform's p1 / (1.0 - p0 + p1), same order
                knot = hi[:-1] / (1.0 - lo[1:] + hi[:-1])  # at c_i: p0's index is one more than p1's
            found += [(p1[1], c[i], c[i]) for i in np.flatnonzero(np.isnan(knot))]
            found += [(p1[1], c[i - 1] if i > 0 else None, c[i] if i < len(c) else None)
                      for i in np.flatnonzero(np.isnan(gap))]
            return found
    for arg in node[1:]:
        zero_over_zero(arg, found)
    return found


def _zero_over_zero_text(p: Plan) -> str:
    """The scores where the map is 0/0 (:func:`zero_over_zero`) in words, or "" where it has none: the
    SQL gives NULL and ONNX NaN there, and ``transform`` refuses them, so the comment says why."""
    seen: list[str] = []
    for x, lo, hi in zero_over_zero(p.outputs, []):
        where = f"class {x[1]} score " if p.multiclass and x[0] == "col" else "score "
        if lo is not None and lo == hi:
            where += f"= {lo!r}"
        else:
            where += " and ".join(([f"> {lo!r}"] if lo is not None else []) + ([f"< {hi!r}"] if hi is not None
                                                                                 else [])) or "any"
        if where not in seen:
            seen.append(where)
    if not seen:
        return ""
    shown = ", ".join(seen[:3]) + (f" and {len(seen) - 3} more" if len(seen) > 3 else "")
    return (f"no probability (SQL NULL, ONNX NaN; transform() refuses it) at {shown}: the artifact's "
            f"Venn-ABERS quotient is 0/0 there")


def _score_type_text(p: Plan) -> str | None:
    """What the exported text reads from the score column: the map's own ``params.score_type`` (the
    metadata's copy is a record, which a loaded artifact may hold stale or not at all), with what it
    means where it is not a probability. None for a bare prior shift (probabilities by definition)."""
    if p.kind == "prior-shift":
        return None
    if p.score_type == "logit":
        return "logit (any finite number)"
    if p.score_type == "score":
        return "score (a ranking score, " + ("in [0, 1])" if p.unit_scores else "any finite number)")
    return p.score_type


def provenance(p: Plan) -> str:
    """One line naming what the exported map is and where it came from (for a comment): the score type
    is the one the map reads (:func:`_score_type_text`); passwords are hidden (:func:`~._redact.redact`)."""
    m = p.metadata
    parts = [f"veracity {p.kind} calibrator" + (f" ({p.about})" if p.about else "")]
    if p.prior_shift is not None:  # the output is not the calibrator's own: say so before anything is cut
        parts[0] += (f"; prior shift: {p.prior_shift}" if p.kind == "prior-shift" else
                     f", then a prior shift (vc.adjust_prior): {p.prior_shift}")
    fields = (("fit rows", "n_rows"), ("score type", "score_type"), ("classes", "n_classes"),
              ("fit window", "fit_window"), ("model revision", "model_revision"), ("cohort", "cohort"),
              ("score column", "score_column"), ("role", "role"), ("data hash", "data_hash"),
              ("veracity", "library_version"))
    for label, key in fields:
        v = _score_type_text(p) if key == "score_type" else m.get(key)
        if v is not None and v != "":
            parts.append(f"{label}: {v}")
    if p.kind != "prior-shift" and m.get("fit_window") in (None, ""):
        parts.append("fit date: not recorded (pass metadata={'fit_window': ...} to fit)")
    holes = _zero_over_zero_text(p)
    if holes:
        parts.insert(1, holes)  # early: the line is cut at 600 characters
    text = redact("; ".join(parts))  # a metadata value may hold a URL with its password: never written out
    # a comment must never end early or hide a statement: drop comment markers and control characters
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    for marker in ("*/", "/*", "--"):
        while marker in text:
            text = text.replace(marker, marker[0] + " " + marker[1])
    return text[:600]



# ----------------------------------------------------------------------------------
# a segment calibrator: the base map's logit plus per-segment shifts, read from feature columns
# ----------------------------------------------------------------------------------
#: the kinds of level values whose SQL comparison is unambiguous on every dialect
LEVEL_KINDS = "text, integers, floats and booleans"


@dataclass(frozen=True, eq=False)
class Levels:
    r"""How one feature's values become level codes, read from a ``"segment"`` artifact's ``specs_`` entry,
    as :meth:`FeatureSpec.codes <veracity.segments._spec.FeatureSpec.codes>` computes them:

    * ``"category"``: code ``i`` where the value equals ``values[i]`` (text, booleans or numbers, all of one
      kind); any other present value: ``other`` (the pooled level; None: no level, code -1);
    * ``"values"``: code ``i`` where the number equals ``values[i]``; another number: code -1;
    * ``"bins"``: the number of ``cuts`` at or below the value (``searchsorted(cuts, x, "right")``: a value
      on a cut goes to the bin above it);
    * a missing value (NULL; NaN for numbers): ``missing`` (None: code -1).

    ``exact``: integer levels or cuts beyond 2**53, compared as the column's own integers (float64 would
    merge neighbours); otherwise numbers are compared as doubles, the column cast to one. ``what``:
    ``"text"``, ``"boolean"`` or ``"number"``."""

    name: str
    kind: str
    values: tuple[Any, ...]
    cuts: tuple[Any, ...]
    other: int | None
    missing: int | None
    n_levels: int
    exact: bool
    what: str


def _value_kind(v: Any) -> str | None:
    """``"text"``, ``"boolean"`` or ``"number"`` of a level value; None for any other kind."""
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, str):
        return "text"
    if isinstance(v, int) or (isinstance(v, float) and math.isfinite(v)):
        return "number"
    return None


def _not_comparable(name: str, what: str) -> VeracityError:
    return VeracityError(f"feature {name!r} has levels of {what}, which SQL cannot compare one way on "
                         f"every engine; its SQL supports levels of {LEVEL_KINDS} (convert the feature, e.g. "
                         "a date to its text or number, and re-fit)")


def _code(v: Any, n: int, what: str) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
        raise VeracityError(f"its {what} level {v!r} is no level code of {n}")
    return int(v)


def levels_of(d: Any) -> Levels:
    """A :class:`Levels` from one ``specs_`` entry of a ``"segment"`` artifact (checked: a malformed one, or
    levels SQL cannot compare one way -- dates, times, bytes, mixed kinds -- refused in one line)."""
    from ..core._keys import key_name

    if not isinstance(d, dict) or not isinstance(d.get("name"), str):
        raise VeracityError("a feature's levels are malformed (no name)")
    name, kind = d["name"], d.get("kind")
    labels = d.get("labels")
    if kind not in ("category", "values", "bins") or not isinstance(labels, list) or not labels:
        raise VeracityError(f"feature {name!r} has malformed levels (kind {kind!r})")
    n = len(labels)
    stored = d.get("value_types")  # written where the fitted levels were dates, bytes, ... (saved as text)
    if stored:
        raise _not_comparable(name, " and ".join(map(str, stored)))
    values, cuts = tuple(d.get("values") or ()), tuple(d.get("cuts") or ())
    other, missing = _code(d.get("other"), n, "other"), _code(d.get("missing"), n, "missing")
    items = cuts if kind == "bins" else values
    odd = [v for v in items if _value_kind(v) is None]
    if odd:
        raise _not_comparable(name, type(odd[0]).__name__ + " values")
    kinds = {str(_value_kind(v)) for v in items}
    if kind != "category" and kinds - {"number"}:
        raise VeracityError(f"feature {name!r} is numeric ({kind}) but holds levels of "
                            f"{' and '.join(sorted(kinds))}")
    if len(kinds) > 1:
        raise _not_comparable(name, "mixed kinds (" + " and ".join(sorted(kinds)) + ")")
    what = kinds.pop() if kinds else "text"
    if kind == "category" and what == "number":
        # a level that is a number but was found as something else (a nanosecond time's integer): its label
        # is that thing's text, not the number's
        for v, label in zip(values, labels):
            if label != key_name(v):
                raise _not_comparable(name, f"another kind than numbers (level {label!r} is stored as {v!r})")
    if kind == "bins" and any(b <= a for a, b in zip(cuts, cuts[1:])):
        raise VeracityError(f"feature {name!r} needs increasing cut points")
    exact = kind != "category" and any(isinstance(v, int) and abs(v) > 2**53 for v in items)
    return Levels(name, str(kind), values, cuts, other, missing, n, exact, what)


def _set_lookup(levels: list[Levels], st: list[int], table: dict[int, float], depth: int = 0,
                key: int = 0) -> Node:
    r"""The shift of one grouping set as nested ``level`` nodes: the outer feature's lookup, each of whose
    branches is the next feature's, down to the constants :math:`\delta_{k}` of the segment keys
    :math:`k = \sum_f c_f\,s_f` (mixed-radix strides :math:`s_f`, as the fit numbers them); 0 where the
    segment has no correction or a feature has no level (code -1). A lookup whose branches are all one node
    is that node."""
    lv = levels[st[depth]]
    stride = int(np.prod([levels[i].n_levels for i in st[depth + 1:]], dtype=np.int64))
    branches: list[Node] = []
    for c in range(lv.n_levels):
        k = key + c * stride
        branches.append(const(table.get(k, 0.0)) if depth + 1 == len(st)
                        else _set_lookup(levels, st, table, depth + 1, k))
    branches.append(const(0.0))  # code -1: no correction
    if all(b == branches[0] for b in branches[1:]):
        return branches[0]
    return ("level", lv, tuple(branches))


def _segment_plan(params: dict[str, Any], state: dict[str, Any], metadata: dict[str, Any],
                  prior_shift: Any) -> Plan:
    r"""A ``"segment"`` calibrator's map, as its ``transform`` computes it:
    :math:`\sigma(\operatorname{logit} g(s) + \sum_S \delta_{S,k_S})` -- the base map :math:`g` (its own
    plan), its logit as ``probability_to_logit`` takes it (clipped to :math:`[\epsilon, 1-\epsilon]`), one
    shift per grouping set added in the artifact's order (a ``level`` lookup of the row's segment), then the
    sigmoid."""
    try:
        base = state["base_"]
        if not isinstance(base, dict):
            raise VeracityError("state base_ must be the base calibrator's artifact")
        bkind = base.get("kind")
        bparams, bstate = dict(base.get("params") or {}), dict(base.get("state") or {})
        if bkind not in EXPORTABLE or bkind in ("matrix", "vector", "one-vs-rest"):
            raise VeracityError(f"its base calibrator {bkind!r} has no SQL form; binary bases with one: "
                                "beta, histogram, isotonic, platt, temperature, venn-abers")
        eta = _binary_logit(_binary(str(bkind), bparams, bstate, ("col", 0)), "probability")
        score_type = _choice(params if "score_type" in params else bparams, "score_type", "probability")
        levels = [levels_of(d) for d in state["specs_"]]
        names = [lv.name for lv in levels]
        sets = []
        for c in state["corrections_"]:
            st, keys, delta = c["set"], c["keys"], c["delta"]
            if not isinstance(st, list) or not st or not all(
                    isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(levels) for i in st) \
                    or len(set(st)) != len(st):
                raise VeracityError(f"a correction's set {st!r} names no distinct features of {len(levels)}")
            size = int(np.prod([levels[i].n_levels for i in st]))
            if len(keys) != len(delta) or not all(isinstance(k, int) and 0 <= k < size for k in keys):
                raise VeracityError(f"a correction over {[names[i] for i in st]} names segments beyond "
                                    f"its {size}")
            sets.append(" x ".join(names[i] for i in st))
            table = {int(k): float(v) for k, v in zip(keys, delta)}
            if table:
                eta = ("add", eta, _set_lookup(levels, st, table))
        out = [sigmoid(eta)]
        _check_constants(out)
    except VeracityError as exc:
        raise _malformed("segment", str(exc)) if "SQL" not in str(exc) else exc from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as exc:
        detail = f"missing state {exc}" if isinstance(exc, KeyError) else " ".join(str(exc).split())[:120]
        raise _malformed("segment", detail) from None
    shift_text = None
    if prior_shift is not None:
        out = _prior_shift(out, prior_shift, score_type)
        shift_text = _prior_text(prior_shift, 2)
    about = f"base {bkind}" + (f"; corrections by {', '.join(sets)}" if sets else "; no correction sets")
    return Plan(out, 1, "segment", metadata, score_type=score_type,
                unit_scores=bkind == "beta" and score_type == "score", prior_shift=shift_text,
                features=tuple(names), about=about)
