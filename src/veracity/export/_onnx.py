r"""A calibrator's map as an ONNX model: double input ``score``, double output ``probability``.

Every tensor is double (binary64) from input to output. The plan's nodes map onto
standard ``ai.onnx`` operators (opset 17, IR version 8, which onnxruntime ≥ 1.14 runs):

* arithmetic, ``Exp``, ``Log``, ``Abs``, ``Max`` and ``Clip`` as they are; the sigmoid as
  ``1 / (1 + Exp(−z))`` (scipy's ``expit`` formula, not the ``Sigmoid`` kernel);
* a step table (isotonic, histogram, Venn–ABERS) as a **branch-free binary search**:
  ``i = 0``; for each power of two ``s`` from the largest below the table length down to
  1, ``i += s`` where ``edges[i + s − 1] <= x`` (``<`` for the left side) — ``Gather``,
  ``LessOrEqual``, ``Where``; ⌈log₂ K⌉ rounds, O(N log K) work and O(N) memory. The result
  is ``searchsorted(edges, x, side)`` exactly, so a score on a knot gets the knot's step,
  as ``transform`` gives it; the piece's value (or slope, knot and value of a linear
  piece) is then gathered at ``i``. skl2onnx's isotonic instead takes the *nearest*
  threshold (``ArgMin |x − X|``), which is not the function scikit-learn applies;
* multiclass heads: ``Softmax`` over the K logits (where they can overflow, the rows where they do get
  the softmax of the shifted logits ``transform`` computes there: :meth:`_Graph.rescued`; the logits of
  :math:`z - r`, where a row's :math:`z_j - r` overflows those of :math:`z`, ``Where``); one-vs-rest
  renormalisation with ``ReduceSum`` and ``Where`` (a row summing to <= 0 becomes uniform);
* a two-way choice (``inside``: the underflow-safe form of a binary prior shift) as ``Where`` of
  ``GreaterOrEqual`` ``And`` ``LessOrEqual``;
* a score ``transform`` refuses gives NaN (ONNX's missing value), as the SQL gives NULL: NaN, a
  probability outside [0, 1] (±inf among them; a beta map's ranking score too), a logit or ranking
  score of ±inf, a score where a loaded Venn–ABERS artifact's quotient is 0/0
  (:func:`~._plan.zero_over_zero`: tested for, as the SQL tests for it, not left to the division);
  multiclass: a row with any such
  score, or a probability row whose sum is more than ``ROW_SUM_ATOL``·K from 1, is NaN in every
  column.

The artifact's provenance is stored in the model's ``metadata_props`` and ``doc_string``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import ROW_SUM_ATOL, VeracityError
from ._plan import LOG1P_ONE, Node, Plan, Rescue, SoftmaxExtra, numpy_sum, provenance, zero_over_zero
from ._redact import without_secrets

OPSET = 17
IR_VERSION = 8

#: the neutral constant of each operator onnxruntime's ``NoopElimination`` removes (see :meth:`_Graph.kept`)
_NEUTRAL = {"Add": 0.0, "Sub": 0.0, "Mul": 1.0, "Div": 1.0}
#: a constant this close to the neutral value may read as it: 2·FLT_EPSILON (a float cast or tolerance)
_NEAR = 2.0 * float(np.finfo(np.float32).eps)


class _Graph:
    def __init__(self, p: Plan):
        import onnx
        from onnx import TensorProto, helper, numpy_helper

        self.onnx, self.helper, self.nph, self.TP = onnx, helper, numpy_helper, TensorProto
        self.plan = p
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.memo: dict[int, str] = {}
        self.keep: list[Any] = []   # keeps memoised nodes alive so their ids stay unique
        self.consts: dict[tuple, str] = {}
        self.values: dict[str, float] = {}   # rank-0 double initializers: name -> value
        self.static: set[str] = set()        # outputs that do not read the score (ORT folds them)
        self.inits_named: set[str] = set()   # the initializers' names
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}_{self.count}"

    def op(self, op_type: str, inputs: list[str], **attrs: Any) -> str:
        if op_type in _NEUTRAL and len(inputs) == 2:
            kept = self.kept(op_type, inputs)
            if kept is not None:
                return kept
        return self.raw(op_type, inputs, **attrs)

    def raw(self, op_type: str, inputs: list[str], **attrs: Any) -> str:
        """One node, as given; its output is static when every input is."""
        out = self.name(op_type.lower())
        self.nodes.append(self.helper.make_node(op_type, inputs, [out], name=out, **attrs))
        if all(i in self.static for i in inputs):
            self.static.add(out)
        return out

    def kept(self, op_type: str, inputs: list[str]) -> str | None:
        r"""``op_type(x, c)`` written so that onnxruntime's ``NoopElimination`` cannot drop it, or None.

        onnxruntime removes ``x + c``, ``c + x``, ``x - c``, ``x * c``, ``c * x`` and ``x / c`` where the
        constant ``c`` *looks* neutral: 1.32 casts a double to float first, so ``x * (1 + 1e-8)`` became
        ``x`` (a temperature of 1 + 1e-8, a prior shift from a base rate of 1e-9: outputs 2e-9 off
        ``transform``), and ``x + 1e-50`` became ``x``. Where ``c`` lies within :data:`_NEAR` of the
        neutral value (0 or 1) without being it, or is a subexpression of constants (whose value the
        runtime folds), the same double is formed another way, exact in IEEE arithmetic (rounding to
        nearest is symmetric in sign, and :math:`a - b` is :math:`a + (-b)`):
        :math:`x c = -(x \cdot (-c))`, :math:`x / c = -(x / (-c))`, :math:`x + c = c - (-x)`,
        :math:`x - c = (-c) - (-x)` (a constant on the left of ``Sub`` is no no-op).
        """
        a, b = inputs
        if op_type in ("Add", "Mul") and self.risky(op_type, a) and not self.risky(op_type, b):
            a, b = b, a  # the constant on the right
        if not self.risky(op_type, b):
            return None
        negated = self.scalar(-self.values[b]) if b in self.values else self.raw("Neg", [b])
        if op_type in ("Mul", "Div"):
            return self.raw("Neg", [self.raw(op_type, [a, negated])])
        return self.raw("Sub", [b if op_type == "Add" else negated, self.raw("Neg", [a])])

    def risky(self, op_type: str, name: str) -> bool:
        """Whether ``name`` is a constant that onnxruntime may read as the neutral value of ``op_type``: a
        double initializer within :data:`_NEAR` of it (not equal: dropping that changes nothing), or a
        subexpression of constants (the runtime folds it into one whose value is not known here)."""
        if name in self.values:
            v, neutral = self.values[name], _NEUTRAL[op_type]
            return v != neutral and abs(v - neutral) <= _NEAR
        return name in self.static and name not in self.inits_named

    def tensor(self, values: Any, dtype: Any = np.float64) -> str:
        arr = np.asarray(values, dtype=dtype)
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        if key not in self.consts:
            nm = self.name("c")
            self.inits.append(self.nph.from_array(arr, nm))
            self.consts[key] = nm
            self.static.add(nm)
            self.inits_named.add(nm)
            if arr.ndim == 0 and arr.dtype == np.float64:
                self.values[nm] = float(arr)
        return self.consts[key]

    def scalar(self, v: float) -> str:
        return self.tensor(np.float64(v))

    # -- nodes --------------------------------------------------------------------------
    def render(self, node: Node) -> str:
        key = id(node)
        if key in self.memo:
            return self.memo[key]
        out = self._render(node)
        self.memo[key] = out
        self.keep.append(node)
        return out

    def _render(self, node: Node) -> str:
        op = node[0]
        if op == "col":
            if not self.plan.multiclass:
                return "score"
            return self.op("Gather", ["score", self.tensor(np.int64(node[1]), np.int64)], axis=1)
        if op == "const":
            return self.scalar(node[1])
        if op in ("add", "sub", "mul", "div"):
            kind = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div"}[op]
            return self.op(kind, [self.render(node[1]), self.render(node[2])])
        if op == "neg":
            return self.op("Neg", [self.render(node[1])])
        if op == "abs":
            return self.op("Abs", [self.render(node[1])])
        if op == "max0":
            return self.op("Max", [self.render(node[1]), self.scalar(0.0)])
        if op in ("max", "min"):
            return self.op("Max" if op == "max" else "Min", [self.render(a) for a in node[1:]])
        if op == "shift":  # ±inf where it overflows: the head then reads the unshifted logits
            return self.op("Sub", [self.render(node[1]), self.render(node[2])])
        if op == "ln":
            return self.op("Log", [self.render(node[1])])
        if op == "exp":
            return self.op("Exp", [self.render(node[1])])
        if op == "log1p":  # Kahan's form (_plan.LOG1P_ONE); Where reads the quotient only where e > 2^-53
            e = self.render(node[1])
            u = self.op("Add", [self.scalar(1.0), e])
            ratio = self.op("Div", [e, self.op("Sub", [u, self.scalar(1.0)])])
            small = self.op("LessOrEqual", [e, self.scalar(LOG1P_ONE)])
            return self.op("Where", [small, e, self.op("Mul", [self.op("Log", [u]), ratio])])
        if op == "sigmoid":
            e = self.op("Exp", [self.op("Neg", [self.render(node[1])])])
            return self.op("Div", [self.scalar(1.0), self.op("Add", [self.scalar(1.0), e])])
        if op == "clip":
            x, lo, hi = self.render(node[1]), node[2], node[3]
            if lo is not None and hi is not None:
                return self.op("Clip", [x, self.scalar(lo), self.scalar(hi)])
            if lo is not None:
                return self.op("Max", [x, self.scalar(lo)])
            return self.op("Min", [x, self.scalar(hi)]) if hi is not None else x
        if op == "inside":  # Where(lo <= a <= hi, then, else): NaN compares false, so it takes else
            x = self.render(node[1])
            cond = self.op("And", [self.op("GreaterOrEqual", [x, self.scalar(node[2])]),
                                   self.op("LessOrEqual", [x, self.scalar(node[3])])])
            return self.op("Where", [cond, self.render(node[4]), self.render(node[5])])
        if op == "piecewise":
            return self.piecewise(self.render(node[1]), np.asarray(node[2], dtype=np.float64), node[3], node[4])
        if op == "level":  # pragma: no cover - to_onnx refuses such a plan first
            raise VeracityError("a feature-level lookup has no ONNX form; export the calibrator as SQL")
        if op == "head":
            head = self.head(node[1], node[2], node[4] if len(node) > 4 else None)
            return self.op("Gather", [head, self.tensor(np.int64(node[3]), np.int64)], axis=1)
        raise AssertionError(op)  # pragma: no cover

    def searchsorted(self, x: str, edges: np.ndarray, side: str) -> str:
        """``searchsorted(edges, x, side)`` (int64, shape of x) by a branch-free binary search."""
        n = edges.size
        top = 1 << (n.bit_length() - 1)
        padded = self.tensor(np.concatenate([edges, np.full(top, np.inf)]))
        cmp = "LessOrEqual" if side == "right" else "Less"
        pos = self.filled(x, np.int64(0))
        step = top
        while step >= 1:
            cand = self.op("Add", [pos, self.tensor(np.int64(step), np.int64)])
            edge = self.op("Gather", [padded, self.op("Sub", [cand, self.tensor(np.int64(1), np.int64)])], axis=0)
            pos = self.op("Where", [self.op(cmp, [edge, x]), cand, pos])
            step //= 2
        # the padding is +inf, which an x of +inf passes too (inf <= inf): searchsorted counts at most n edges
        return self.op("Min", [pos, self.tensor(np.int64(n), np.int64)])

    def piecewise(self, x: str, edges: np.ndarray, side: str, pieces: list[tuple]) -> str:
        if edges.size == 0:
            return self.piece_const(x, pieces[0])
        i = self.searchsorted(x, edges, side)
        y0 = self.op("Gather", [self.tensor([p[3] for p in pieces]), i], axis=0)
        if all(p[0] == "affine" and p[1] == 0.0 for p in pieces):
            return y0
        slope = [p[1] if p[0] == "affine" else 0.0 for p in pieces]
        x0 = [p[2] if p[0] == "affine" else p[1] for p in pieces]
        gx0 = self.op("Gather", [self.tensor(x0), i], axis=0)
        affine = self.op("Add", [self.op("Mul", [self.op("Gather", [self.tensor(slope), i], axis=0),
                                                 self.op("Sub", [x, gx0])]), y0])
        if not any(p[0] == "frac" for p in pieces):
            return affine
        # knots closer than 1/max-float: interpolate by the fraction of the interval
        x1 = [p[2] if p[0] == "frac" else 1.0 for p in pieces]
        y1 = [p[4] if p[0] == "frac" else 0.0 for p in pieces]
        xs = [p[1] if p[0] == "frac" else 0.0 for p in pieces]
        gxs = self.op("Gather", [self.tensor(xs), i], axis=0)
        t = self.op("Div", [self.op("Sub", [x, gxs]),
                            self.op("Sub", [self.op("Gather", [self.tensor(x1), i], axis=0), gxs])])
        frac = self.op("Add", [y0, self.op("Mul", [t, self.op("Sub", [self.op("Gather", [self.tensor(y1), i], axis=0),
                                                                        y0])])])
        steep = self.op("Gather", [self.tensor([p[0] == "frac" for p in pieces], np.bool_), i], axis=0)
        return self.op("Where", [steep, frac, affine])

    def filled(self, x: str, value: Any) -> str:
        """A tensor of x's shape holding ``value`` everywhere."""
        return self.op("ConstantOfShape", [self.op("Shape", [x])],
                       value=self.nph.from_array(np.asarray([value])))

    def piece_const(self, x: str, piece: tuple) -> str:
        _, slope, x0, y0 = piece
        if slope == 0.0:
            return self.filled(x, np.float64(y0))
        return self.op("Add", [self.op("Mul", [self.scalar(slope), self.op("Sub", [x, self.scalar(x0)])]),
                               self.scalar(y0)])

    def per_row(self, node: Node) -> str:
        """``render(node)`` with one value per row: a map that ignores its input (beta's a = b = 0,
        a matrix row of zeros) renders as a scalar, which is broadcast to the rows (``Expand``)."""
        out = self.render(node)
        if _reads_input(node):
            return out
        rows = self.op("Shape", [self.render(("col", 0))])  # [N]: the score, or one column of it
        return self.op("Expand", [out, rows])

    def matrix(self, items: list[Node]) -> str:
        cols = [self.op("Unsqueeze", [self.per_row(it), self.tensor(np.array([1], dtype=np.int64), np.int64)])
                for it in items]
        return self.op("Concat", cols, axis=1)

    def head(self, name: str, items: list[Node], fallback: Any = None) -> str:
        key = id(items)
        if key in self.memo:
            return self.memo[key]
        Q = self.matrix(items)
        axes = self.tensor(np.array([1], dtype=np.int64), np.int64)
        r = fallback.rescue if isinstance(fallback, SoftmaxExtra) else None
        if name == "softmax" and r is not None and r.shifted is not None and r.plain is not None:
            # logits of z - r (Rescue): where some z_j - r overflows, those of z, as transform reads the row
            over = self.op("Cast", [self.op("IsInf", [self.matrix(r.shifted)])], to=self.TP.INT64)
            over = self.op("Cast", [self.op("ReduceMax", [over], keepdims=1, axes=[1])], to=self.TP.BOOL)
            Q = self.op("Where", [over, self.matrix(r.plain), Q])
        if name == "softmax":
            out = self.op("Softmax", [Q], axis=1)
            if isinstance(fallback, SoftmaxExtra):
                if fallback.rescue is not None:  # logits that can overflow: the rows where they do, rescued
                    out = self.rescued(Q, out, fallback.rescue)
                if fallback.ratio is not None:  # a prior shift on large logits: adjust_prior's p·r / Σ p·r
                    out = self.op("Mul", [out, self.tensor(np.asarray(fallback.ratio, dtype=np.float64))])
                    out = self.op("Div", [out, self.op("ReduceSum", [out, axes], keepdims=1)])
        elif name == "normalise":
            out = self.op("Div", [Q, self.op("ReduceSum", [Q, axes], keepdims=1)])
        else:
            total = self.op("ReduceSum", [Q, axes], keepdims=1)
            flat = self.op("LessOrEqual", [total, self.scalar(0.0)])
            if fallback is None:  # uniform: 1 / K
                Q1 = self.op("Where", [flat, self.scalar(1.0), Q])
                t1 = self.op("Where", [flat, self.scalar(float(len(items))), total])
            else:  # the fallback row itself (it sums to 1)
                row = self.tensor(np.asarray([fallback], dtype=np.float64), np.float64)
                Q1 = self.op("Where", [flat, row, Q])
                t1 = self.op("Where", [flat, self.scalar(1.0), total])
            out = self.op("Div", [Q1, t1])
        self.memo[key] = out
        self.keep.append(items)
        return out

    def rescued(self, Q: str, plain: str, r: Rescue) -> str:
        r"""``plain`` (the softmax of the logits ``Q``) on the rows where ``Q`` is finite; on the others the
        softmax of the shifted logits ``transform`` computes there (:class:`Rescue`): divided,
        :math:`(z/2 - \max z/2)/(T/2)`; affine, :math:`2^n (P - \max P)` of the scaled :math:`P`
        (``Mul`` by powers of two: exact, −inf where it overflows, which ``Softmax`` reads as 0); then
        :math:`+b` (a prior shift: :class:`SoftmaxExtra`)."""
        axes1 = [1]
        flag = self.op("Or", [self.op("IsInf", [Q]), self.op("IsNaN", [Q])])
        bad = self.op("ReduceMax", [self.op("Cast", [flag], to=self.TP.INT64)], keepdims=1, axes=axes1)
        bad = self.op("Cast", [bad], to=self.TP.BOOL)
        if r.kind == "affine":
            P = self.matrix(r.scaled())
            D = self.op("Sub", [P, self.op("ReduceMax", [P], keepdims=1, axes=axes1)])
            n = r.n
            while n > 0:
                step = min(n, 1000)
                D = self.op("Mul", [D, self.scalar(2.0 ** step)])
                n -= step
        else:
            H = self.op("Mul", [self.matrix(r.zs), self.scalar(0.5)])
            D = self.op("Div", [self.op("Sub", [H, self.op("ReduceMax", [H], keepdims=1, axes=axes1)]),
                                self.scalar(r.T * 0.5)])
        if np.any(r.b != 0.0):
            D = self.op("Add", [D, self.tensor(np.asarray(r.b, dtype=np.float64))])
        return self.op("Where", [bad, self.op("Softmax", [D], axis=1), plain])

    def missing(self, out: str) -> str:
        """``out`` with NaN where the row's score is NaN or refused by ``transform`` (multiclass: any of
        its K scores, or a probability row summing to more than ``ROW_SUM_ATOL``·K from 1), as the SQL
        gives NULL: a step table would otherwise read NaN as below every knot, its first step, and a
        probability outside [0, 1] (a logit of ±inf) would get the clipped formula's number. A score at a
        loaded Venn–ABERS artifact's 0/0 quotient (:func:`~._plan.zero_over_zero`) is tested for by its
        knot, as the SQL tests for it, so its NaN does not rest on the division's rounding."""
        p = self.plan
        nan = self.op("IsNaN", ["score"])
        if p.score_type == "probability" or p.unit_scores:  # outside [0, 1], ±inf among them
            outside = self.op("Or", [self.op("Less", ["score", self.scalar(0.0)]),
                                     self.op("Greater", ["score", self.scalar(1.0)])])
        else:
            outside = self.op("IsInf", ["score"])
        bad = self.op("Or", [nan, outside])
        if p.multiclass:
            flag = self.op("Cast", [bad], to=self.TP.INT64)
            bad = self.op("ReduceMax", [flag], keepdims=1, axes=[1])  # opset 17
            bad = self.op("Cast", [bad], to=self.TP.BOOL)
            if p.rows_sum_to_one:
                # summed in numpy's order (not ReduceSum's), so the test falls where transform's does
                columns = [self.op("Gather", ["score", self.tensor(np.array([k], dtype=np.int64), np.int64)],
                                   axis=1) for k in range(p.n_inputs)]
                total = numpy_sum(columns, lambda a, b: self.op("Add", [a, b]))
                off = self.op("Abs", [self.op("Sub", [total, self.scalar(1.0)])])
                bad = self.op("Or", [bad, self.op("Greater", [off, self.scalar(ROW_SUM_ATOL * p.n_inputs)])])
        for x, lo, hi in zero_over_zero(p.outputs, []):  # written by the map's own test, not left to 0/0
            xr = self.render(x)
            if lo is not None and lo == hi:
                flag = self.op("Equal", [xr, self.scalar(lo)])
            else:
                sides = ([self.op("Greater", [xr, self.scalar(lo)])] if lo is not None else []) + (
                    [self.op("Less", [xr, self.scalar(hi)])] if hi is not None else [])
                flag = sides[0] if len(sides) == 1 else self.op("And", sides) if sides else \
                    self.op("Not", [self.op("IsNaN", [xr])])  # no knot at all: every (non-NaN) score
            if p.multiclass:  # one column's test, [N] -> [N, 1]
                flag = self.op("Unsqueeze", [flag, self.tensor(np.array([1], dtype=np.int64), np.int64)])
            bad = self.op("Or", [bad, flag])
        return self.op("Where", [bad, self.scalar(float("nan")), out])

    def build(self) -> bytes:
        helper, TP = self.helper, self.TP
        p = self.plan
        heads = {id(o[2]) for o in p.outputs if o[0] == "head"}
        if p.multiclass and len(heads) == 1 and all(o[0] == "head" for o in p.outputs) \
                and [o[3] for o in p.outputs] == list(range(len(p.outputs))):
            first = p.outputs[0]
            out = self.head(first[1], first[2], first[4] if len(first) > 4 else None)
        elif p.multiclass:
            out = self.matrix(p.outputs)
        else:
            out = self.per_row(p.outputs[0])
        out = self.missing(out)
        self.nodes.append(helper.make_node("Identity", [out], ["probability"], name="probability"))
        shape = ["N", p.n_inputs] if p.multiclass else ["N"]
        oshape = ["N", len(p.outputs)] if p.multiclass else ["N"]
        used = {i for nd in self.nodes for i in nd.input}  # a constant kept() negated is left unused
        graph = helper.make_graph(
            self.nodes, f"veracity_{p.kind.replace('-', '_')}",
            [helper.make_tensor_value_info("score", TP.DOUBLE, shape)],
            [helper.make_tensor_value_info("probability", TP.DOUBLE, oshape)],
            initializer=[t for t in self.inits if t.name in used],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="veracity", ir_version=IR_VERSION,
                                  doc_string=provenance(p))
        from .._version import __version__

        model.producer_version = __version__
        # "kind", "score_type" and "prior_shift" describe this model, whatever the metadata holds under those
        # names (fit(metadata={"kind": "churn model"}) made the props read kind "churn model"; a "prior_shift"
        # of the user's read as a shift the model does not apply)
        meta = {k: v for k, v in p.metadata.items() if k not in ("params", "kind", "prior_shift")}
        meta = {"kind": p.kind, **meta}
        meta["score_type"] = p.score_type  # what the input is read as: the map's own, not a stale record
        if p.prior_shift is not None:  # the output is adjust_prior's of the map's, which "kind" alone hides
            meta["prior_shift"] = p.prior_shift
        # a metadata value may hold a URL with its password (source="postgresql://user:PASSWORD@host/db"), and a
        # key may name a secret (db_password=..., at any depth): without_secrets hides both
        helper.set_model_props(model, {str(k): str(v) for k, v in without_secrets(meta).items() if v is not None})
        self.onnx.checker.check_model(model)
        return model.SerializeToString()


def _reads_input(node: Node) -> bool:
    """Whether the value of ``node`` depends on an input column (else it is one scalar)."""
    op = node[0]
    if op == "col":
        return True
    if op == "head":
        return any(_reads_input(it) for it in node[2])
    if op == "piecewise":
        return _reads_input(node[1])
    return any(_reads_input(a) for a in node[1:] if isinstance(a, tuple) and a and isinstance(a[0], str))


def to_onnx(p: Plan) -> bytes:
    """The serialised ONNX model of a plan; a plan that reads feature columns (a ``level`` node: a
    ``"segment"`` calibrator) is refused in one line: the model's one input is the score."""
    if p.features:
        raise VeracityError(
            f"a {p.kind!r} calibrator has no ONNX form: its corrections read the feature columns "
            f"({', '.join(map(repr, p.features))}) beside the score, and the model's one input is the score; "
            "export it as SQL (to_sql, or veracity export --sql DIALECT)")
    return _Graph(p).build()
