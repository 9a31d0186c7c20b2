r"""The declared schema of a calibrator artifact, checked by :func:`veracity.load`.

A calibrator file is an input like any other: it may be damaged, edited by hand
or hostile. :func:`read_artifact` and :func:`check_artifact` turn it into plain
``params`` / ``state`` / ``metadata`` dicts that are known to be sound, or refuse
it with one :class:`~veracity.VeracityError` line naming the field and the rule.

What is checked, per calibrator ``kind`` and artifact ``version``:

* **types** — numbers are numbers (not strings, ``null`` or booleans), lists are
  lists, enum values are one of the allowed strings (``score_type``, ``ties``,
  ``method`` …), and no field is unknown;
* **finiteness and ranges** — every float finite; probabilities (isotonic knot
  outputs, histogram values, Venn–ABERS bounds) in :math:`[0, 1]`; the
  temperature :math:`\tau > 0`; beta's :math:`a, b \ge 0`; ``bins`` and
  ``n_classes_`` bounded;
* **shapes and order** — knot lists of equal length and strictly increasing in
  :math:`x`, non-decreasing in :math:`y` (a map that reverses the score order is
  refused), histogram ``values`` one shorter than ``edges``, (K, K) matrices with
  ``n_classes_ = K``, a Platt ``reversed_`` flag that agrees with the sign of ``a_``;
* **size** — a file of at most :data:`MAX_BYTES`, lists of at most
  :data:`MAX_LENGTH` items, JSON nested at most :data:`MAX_DEPTH` deep.

Library: `msgspec <https://jcristharif.com/msgspec/>`_. It was chosen over
pydantic and jsonschema because (1) its ``Struct`` types with ``Meta``
constraints *are* the schema — declarative, one class per kind, easy to read and
extend; (2) it validates strictly (no silent ``"1.0"`` → ``1.0`` coercion) and
rejects NaN/infinity through range constraints; (3) its errors carry the JSON
path (``$.state.knots_y_[3]``) that the one-line message needs; (4) it is one
small compiled wheel with no dependencies, and decodes JSON several times
faster than :mod:`json`, which matters for Venn–ABERS artifacts with one entry
per calibration row. pydantic would pull in pydantic-core and typing-extensions
for the same checks; jsonschema validates ``dict``\ s after a full
:func:`json.loads` and cannot express "strictly increasing".

**Extending** (a new calibrator kind, or a new field): add one ``Struct`` for its
``params`` and one for its ``state`` below and register them with
:func:`register` — the test ``tests/hardening/test_schema.py`` fails while a
registered calibrator kind has no schema or a fitted field the schema does not
declare. Cross-field rules (lengths, order) go in the state struct's
``__post_init__`` and raise ``ValueError`` with a message that names the field.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
from msgspec import UNSET, Meta, Struct, UnsetType

from ..core._validation import VeracityError

FORMAT = "veracity.calibrator"
FORMAT_VERSION = 1

#: Largest artifact file read (bytes); a Venn-ABERS artifact of 10^7 calibration
#: rows is about 600 MB.
MAX_BYTES = 1 << 30
#: Longest list in an artifact (knots, edges, Venn-ABERS scores).
MAX_LENGTH = 50_000_000
#: Deepest JSON nesting accepted anywhere in an artifact (metadata included).
MAX_DEPTH = 32
#: Most classes a multiclass calibrator may declare.
MAX_CLASSES = 100_000
#: Most bins of a histogram calibrator.
MAX_BINS = 10_000
#: Tolerance for "non-decreasing" on fitted outputs (rounding of the fit itself).
_ORDER_TOL = 1e-9

_BIG = sys.float_info.max
Finite = Annotated[float, Meta(ge=-_BIG, le=_BIG, description="a finite number")]
NonNeg = Annotated[float, Meta(ge=0.0, le=_BIG)]
Positive = Annotated[float, Meta(gt=0.0, le=_BIG)]
Prob = Annotated[float, Meta(ge=0.0, le=1.0)]
Count = Annotated[int, Meta(ge=0)]
ScoreType = Literal["probability", "logit", "score"]


def _length(min_length: int) -> Meta:
    """A list's length rule: from ``min_length`` to :data:`MAX_LENGTH` items."""
    return Meta(min_length=min_length, max_length=MAX_LENGTH)


Finites1 = Annotated[list[Finite], _length(1)]
Finites2 = Annotated[list[Finite], _length(2)]
Probs1 = Annotated[list[Prob], _length(1)]
Probs2 = Annotated[list[Prob], _length(2)]
NonNegs1 = Annotated[list[NonNeg], _length(1)]
FiniteMatrix = Annotated[list[Finites2], _length(2)]  # K rows of K numbers (K >= 2)


class _Strict(Struct, forbid_unknown_fields=True, kw_only=True):
    """Every schema struct: unknown fields refused, fields named when passed."""


def _check_order(name: str, values: list[float], *, strict: bool) -> None:
    a = np.asarray(values, dtype=np.float64)
    if a.size < 2:
        return
    d = np.diff(a)
    bad = d <= 0 if strict else d < -_ORDER_TOL
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        rule = "strictly increasing" if strict else "non-decreasing"
        raise ValueError(
            f"{name} must be {rule} (a monotone map; otherwise it would reverse the score "
            f"order), but item {i + 1} = {float(a[i + 1])!r} follows {float(a[i])!r}"
        )


def _check_len(name: str, values: list[Any], other: str, n: int) -> None:
    if len(values) != n:
        raise ValueError(f"{name} has {len(values)} items but must have {n} ({other})")


# ----------------------------------------------------------------------------------
# params (what __init__ takes) and state (what fit learns), one pair per kind
# ----------------------------------------------------------------------------------
class BaseParams(_Strict, kw_only=True):
    score_type: ScoreType | UnsetType = UNSET


class BaseState(_Strict, kw_only=True):
    n_classes_: Annotated[int, Meta(ge=2, le=MAX_CLASSES)] = 2


class BinaryState(BaseState, kw_only=True):
    """The state of a binary map (one score column in, one probability out): ``n_classes_`` is 2.

    Its fitted parameters are one map's (scalars, or one step table), so another ``n_classes_`` is an
    edited file: it loaded, and only ``transform`` refused every score ("fit on 3-class scores")."""

    def __post_init__(self) -> None:
        _check_binary(self.n_classes_)


def _check_binary(n_classes: int) -> None:
    if n_classes != 2:
        raise ValueError(
            f"state.n_classes_ = {n_classes} contradicts the fitted parameters, which are one binary map's "
            "(state.n_classes_ = 2; multiclass maps are one-vs-rest artifacts)")


class TemperatureParams(BaseParams, kw_only=True):
    method: Literal["newton", "golden"] | UnsetType = UNSET
    bounds: tuple[Positive, Positive] | None | UnsetType = UNSET
    iterations: Annotated[int, Meta(ge=1, le=100_000)] | UnsetType = UNSET

    def __post_init__(self) -> None:
        if self.bounds not in (UNSET, None) and not self.bounds[0] < self.bounds[1]:
            raise ValueError(f"params.bounds must satisfy lo < hi, got {list(self.bounds)}")


class TraceRow(_Strict, kw_only=True):
    iteration: Count
    width: NonNeg
    tau: Positive
    nll: NonNeg


class TemperatureState(BaseState, kw_only=True):
    temperature_: Positive
    nll_before_: NonNeg
    nll_after_: NonNeg
    trace_: Annotated[list[TraceRow], _length(0)] = []
    n_iter_: Count = 0
    clamped_: Literal["lower", "upper"] | None = None


class PlattParams(BaseParams, kw_only=True):
    smoothing: bool | UnsetType = UNSET
    on_reversed: Literal["warn", "error", "allow"] | UnsetType = UNSET


class PlattAssociation(_Strict, kw_only=True):
    """What a fit of negative slope found of its rows' association (``calibrators._platt.Association``):
    the AUC and its DeLong interval at ``level`` (``null`` ends: no interval), ``few`` the text naming too
    few rows of a class ("" otherwise)."""

    auc: Prob
    low: Finite | None = None
    high: Finite | None = None
    level: Annotated[float, Meta(gt=0.0, lt=1.0)]
    few: Annotated[str, Meta(max_length=200)] = ""

    def __post_init__(self) -> None:
        if (self.low is None) != (self.high is None) or (self.low is not None and self.high is not None
                                                         and not self.low <= self.high):
            raise ValueError(f"state.association_ needs an interval low <= high (or both null), got "
                             f"[{self.low!r}, {self.high!r}]")


class PlattState(BinaryState, kw_only=True):
    a_: Finite
    b_: Finite
    reversed_: bool
    n_iter_: Count = 0
    converged_: bool = True
    # a fit of negative slope records it (veracity.load reads it only while a_ < 0); absent from artifacts
    # written before the fit recorded it, and from fits of positive slope
    association_: PlattAssociation | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reversed_ != (self.a_ < 0):
            raise ValueError(
                f"state.reversed_ = {self.reversed_} contradicts the slope state.a_ = {self.a_!r} "
                "(reversed_ is true exactly when a_ < 0)"
            )


class IsotonicParams(BaseParams, kw_only=True):
    ties: Literal["allow", "strict"] | UnsetType = UNSET
    interpolation: Literal["step", "linear"] | UnsetType = UNSET


class IsotonicState(BinaryState, kw_only=True):
    knots_x_: Finites1
    knots_y_: Probs1
    n_unique_: Count
    n_steps_: Count
    ties_created_: Count

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_len("state.knots_y_", self.knots_y_, "one per item of state.knots_x_",
                   len(self.knots_x_))
        _check_order("state.knots_x_", self.knots_x_, strict=True)
        _check_order("state.knots_y_", self.knots_y_, strict=False)


class HistogramParams(BaseParams, kw_only=True):
    bins: Annotated[int, Meta(ge=1, le=MAX_BINS)] | UnsetType = UNSET
    strategy: Literal["uniform", "quantile", "equal-count"] | UnsetType = UNSET


class HistogramState(BinaryState, kw_only=True):
    edges_: Finites2  # probabilities, or a ranking score's own values (score_type="score")
    values_: Probs1
    counts_: NonNegs1

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_order("state.edges_", self.edges_, strict=False)
        m = len(self.edges_) - 1
        _check_len("state.values_", self.values_, "one per bin: len(edges_) - 1", m)
        _check_len("state.counts_", self.counts_, "one per bin: len(edges_) - 1", m)
        if m > MAX_BINS:
            raise ValueError(f"state.edges_ declares {m} bins; at most {MAX_BINS} are allowed")


class BetaState(BinaryState, kw_only=True):
    a_: NonNeg
    b_: NonNeg
    c_: Finite


class ScalingParams(BaseParams, kw_only=True):
    reg_lambda: NonNeg | UnsetType = UNSET
    reg_mu: NonNeg | UnsetType = UNSET
    max_iter: Annotated[int, Meta(ge=1, le=10_000_000)] | UnsetType = UNSET


class ScalingState(BaseState, kw_only=True):
    W_: FiniteMatrix
    b_: Finites2
    n_iter_: Count = 0
    converged_: bool = True

    def __post_init__(self) -> None:
        k = self.n_classes_
        _check_len("state.W_", self.W_, "K rows for state.n_classes_ = K", k)
        for i, row in enumerate(self.W_):
            _check_len(f"state.W_[{i}]", row, "K columns for state.n_classes_ = K", k)
        _check_len("state.b_", self.b_, "one per class: state.n_classes_", k)


class VectorState(ScalingState, kw_only=True):
    def __post_init__(self) -> None:
        super().__post_init__()
        W = np.asarray(self.W_)
        off = W - np.diag(np.diag(W))
        if off.any():
            raise ValueError("state.W_ of vector scaling must be diagonal")


class VennAbersState(BinaryState, kw_only=True):
    c_: Finites1
    p0_: Probs2
    p1_: Probs2

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_venn_abers(self)


def _check_venn_abers(st: Any) -> None:
    """The Venn-ABERS rules of one map (a binary state, or one pair map of the one-vs-one artifact)."""
    _check_order("state.c_", st.c_, strict=True)
    n = len(st.c_) + 1
    _check_len("state.p0_", st.p0_, "len(c_) + 1", n)
    _check_len("state.p1_", st.p1_, "len(c_) + 1", n)
    _check_order("state.p0_", st.p0_, strict=False)
    _check_order("state.p1_", st.p1_, strict=False)
    # p0 (the test row labelled 0) <= p1 (labelled 1) in every slot: adding a positive never lowers an
    # isotonic fit. Without it p = p1 / (1 - p0 + p1) is no Venn-ABERS probability (p0 = 1 gives p = 1)
    gap = np.asarray(st.p0_, dtype=np.float64) - np.asarray(st.p1_, dtype=np.float64)
    if (gap > _ORDER_TOL).any():
        i = int(np.flatnonzero(gap > _ORDER_TOL)[0])
        raise ValueError(
            f"state.p0_ must not exceed state.p1_ (the lower and upper Venn-ABERS probabilities), but "
            f"item {i} has p0 = {st.p0_[i]!r} > p1 = {st.p1_[i]!r}")


class VennAbersParams(BaseParams, kw_only=True):
    multiclass: Literal["ovo", "ovr"] | UnsetType = UNSET


class PairMap(_Strict, kw_only=True):
    c_: Finites1
    p0_: Probs2
    p1_: Probs2

    def __post_init__(self) -> None:
        _check_venn_abers(self)


class PairwiseVennAbersState(BaseState, kw_only=True):
    maps_: Annotated[list[PairMap], Meta(min_length=1)]

    def __post_init__(self) -> None:
        k = self.n_classes_
        _check_len("state.maps_", self.maps_, "one per class pair: K(K-1)/2 with K = state.n_classes_",
                   k * (k - 1) // 2)


class Metadata(Struct, kw_only=True):
    """Provenance fields the library reads back; any other key is kept unchecked
    (depth- and size-limited)."""

    score_column: str | None = None
    label_column: str | None = None
    role: str | None = None
    method: str | None = None
    score_type: ScoreType | None = None
    n_rows: Count | None = None
    n_classes: Annotated[int, Meta(ge=2, le=MAX_CLASSES)] | None = None
    n_columns: Annotated[int, Meta(ge=1, le=MAX_CLASSES)] | None = None


#: (kind, format version) -> (params struct, state struct).
SCHEMAS: dict[tuple[str, int], tuple[type[Struct], type[Struct]]] = {}


def register(kind: str, params: type[Struct], state: type[Struct], *, version: int = FORMAT_VERSION) -> None:
    """Declare the schema of one calibrator kind (one entry per kind and version)."""
    SCHEMAS[(kind, version)] = (params, state)


register("temperature", TemperatureParams, TemperatureState)
register("platt", PlattParams, PlattState)
register("isotonic", IsotonicParams, IsotonicState)
register("histogram", HistogramParams, HistogramState)
register("beta", BaseParams, BetaState)
register("vector", ScalingParams, VectorState)
register("matrix", ScalingParams, ScalingState)
register("venn-abers", VennAbersParams, VennAbersState)
register("venn-abers-ovo", BaseParams, PairwiseVennAbersState)


class OneVsRestParams(BaseParams, kw_only=True):
    method: Literal["platt", "isotonic", "beta", "histogram", "venn-abers"]
    method_params: dict | None = None


class OneVsRestMap(_Strict, kw_only=True):
    kind: Literal["platt", "isotonic", "beta", "histogram", "venn-abers"]
    params: dict
    state: dict


class OneVsRestState(BaseState, kw_only=True):
    maps_: Annotated[list[OneVsRestMap], Meta(min_length=2, max_length=MAX_CLASSES)]

    def __post_init__(self) -> None:
        _check_len("maps_", self.maps_, "one map per class", self.n_classes_)
        for i, m in enumerate(self.maps_):  # each class's map obeys its own kind's schema, named by index
            params_t, state_t = SCHEMAS[(m.kind, FORMAT_VERSION)]
            for key, value, schema in (("params", m.params, params_t), ("state", m.state, state_t)):
                try:
                    msgspec.convert(value, schema, strict=True)
                except msgspec.ValidationError as exc:
                    rule, sep, path = str(exc).rpartition(" - at `")
                    if not sep:  # a cross-field rule, whose text names the field
                        raise ValueError(f"state.maps_[{i}]: {exc}") from None
                    field = f"state.maps_[{i}].{key}{path.rstrip('`').removeprefix('$')}"
                    raise ValueError(f"{field}: {rule}") from None


register("one-vs-rest", OneVsRestParams, OneVsRestState)


# ----------------------------------------------------------------------------------
# reading and checking
# ----------------------------------------------------------------------------------
def _refuse(where: str, message: str) -> VeracityError:
    return VeracityError(
        f"{where} is not a valid calibrator artifact: {message}; re-fit and save it "
        "(calibrator.save(path) or `veracity fit`) rather than editing it"
    )


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _depth_and_size(doc: Any, where: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH (iteratively: no recursion to exhaust)."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            items: Any = node.values()
        elif isinstance(node, (list, tuple)):
            items = node
            if len(node) > MAX_LENGTH:
                raise _refuse(where, f"a list holds {len(node)} items (at most {MAX_LENGTH})")
        else:
            continue
        if depth > MAX_DEPTH:
            raise _refuse(where, f"JSON nested deeper than {MAX_DEPTH} levels")
        stack.extend((v, depth + 1) for v in items if isinstance(v, (dict, list, tuple)))


def read_artifact(path: str | Path) -> Any:
    """The decoded JSON document of an artifact file (not yet checked)."""
    p = Path(path)
    where = str(p)
    if isinstance(path, str) and path.lstrip().startswith("{"):  # JSON text, e.g. json.dumps(cal.to_dict())
        raise VeracityError("vc.load reads a path or a dict, and this is JSON text; pass "
                            "json.loads(text), or save the calibrator to a file and pass its path")
    from .._files import path_state

    found, _ = path_state(p, "calibrator file ")
    if not found:
        raise VeracityError(f"calibrator file not found: {_one_line(where)}; check the path")
    if p.is_dir():
        raise VeracityError(f"{_one_line(where)} is a directory; pass the calibrator's JSON file")
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise _refuse(where, f"the file has {size} bytes (at most {MAX_BYTES})")
        raw = p.read_bytes()
    except OSError as exc:
        raise VeracityError(
            f"could not read calibrator file {_one_line(where)}: {exc.strerror or exc}; check the path"
        ) from None
    try:
        return msgspec.json.decode(raw)
    except RecursionError:
        raise _refuse(where, f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except msgspec.DecodeError as exc:
        try:  # Python's json also reads NaN/Infinity: then the schema names the field
            return json.loads(raw)
        except RecursionError:
            raise _refuse(where, f"JSON nested deeper than {MAX_DEPTH} levels") from None
        except ValueError:
            pass
        raise VeracityError(
            f"{_one_line(where)} is not a JSON calibrator artifact ({_one_line(str(exc))}); "
            "pass the file written by `veracity fit` or calibrator.save(path)"
        ) from None


def _value_at(doc: Any, path: str) -> Any:
    """The value at a msgspec path such as ``$.state.knots_y_[3]`` (or a sentinel)."""
    import re

    node = doc
    for name, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path.removeprefix("$")):
        try:
            node = node[name] if name else node[int(index)]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return node


_MISSING = object()


def _allowed(schema: Any, path: str) -> tuple[Any, ...]:
    """The Literal values allowed for a top-level field of ``schema`` (or ``()``)."""
    import typing

    name = path.removeprefix("$.")
    try:
        hint = typing.get_type_hints(schema).get(name)
    except Exception:  # pragma: no cover - forward references
        return ()
    found: list[Any] = []
    stack = [hint]
    while stack:
        t = stack.pop()
        if typing.get_origin(t) is Literal:
            found.extend(typing.get_args(t))
        else:
            stack.extend(typing.get_args(t))
    return tuple(found)


def _explain(exc: msgspec.ValidationError, doc: Any, prefix: str, schema: Any = None) -> str:
    text = str(exc)
    rule, sep, path = text.rpartition(" - at `")
    if not sep:  # a rule of the object itself (missing/unknown field, __post_init__)
        rule, path = text, "$"
    path = path.rstrip("`")
    if path == "$" and not rule.startswith("Object "):
        return _one_line(rule)  # a cross-field rule: its message names the fields
    field = prefix + path.removeprefix("$")
    value = _value_at(doc, path)
    if isinstance(value, float) and not math.isfinite(value):
        rule = "Expected a finite number"
    shown = "" if value is _MISSING else f" (got {_one_line(repr(value), 60)})"
    name = rule.rpartition(" field ")[2].strip("`")
    where = (prefix + path.removeprefix("$")).lstrip(".")
    if rule.startswith("Invalid enum value") and schema is not None:
        allowed = _allowed(schema, path)
        if allowed:
            rule += f"; allowed: {', '.join(repr(a) for a in allowed)}"
    if rule.startswith("Object contains unknown field"):
        what = "unknown parameters" if where == "params" else f"{where}: unknown field"
        return _one_line(f"{what} [{name!r}]")
    if rule.startswith("Object missing required field"):
        what = "lacks fitted field" if where == "state" else f"{where} lacks field"
        return _one_line(f"{what} {name!r}")
    return _one_line(f"{field.lstrip('.')}: {rule}{shown}")


def check_artifact(doc: Any, where: str, known: Any) -> tuple[str, dict, dict, dict]:
    """``(kind, params, state, metadata)`` of a sound artifact, or a VeracityError.

    ``known`` is the collection of registered calibrator kinds.
    """
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise VeracityError(
            f"{where} is not a veracity calibrator (expected format {FORMAT!r}, got "
            f"{_one_line(repr(got), 60)}); save one with calibrator.save(path) or `veracity fit`"
        )
    version = doc.get("version")
    kind = doc.get("kind")
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION:
        from .._version import __version__

        meta = doc.get("metadata")
        wrote = meta.get("library_version") if isinstance(meta, dict) else None
        by = "a newer veracity"
        if isinstance(wrote, str) and wrote:
            by = f"veracity {_one_line(wrote, 30)}"
        if wrote == __version__:  # this very version writes FORMAT_VERSION: no upgrade reads the file
            raise VeracityError(
                f"{where} claims artifact version {version} but records veracity {__version__}, this "
                f"version, which writes version {FORMAT_VERSION}: the file was edited; re-fit and save it "
                "(calibrator.save(path) or `veracity fit`) rather than editing it")
        raise VeracityError(
            f"{where} was written by {by} (artifact version {version}); this veracity ({__version__}) reads "
            f"version {FORMAT_VERSION}. Upgrade veracity (pip install -U veracity) to read it, or re-fit "
            "and save it with this version"
        )
    if isinstance(version, bool) or version != FORMAT_VERSION:
        raise VeracityError(
            f"{where} has artifact version {_one_line(repr(version), 60)}; this veracity reads "
            f"version {FORMAT_VERSION}. Re-fit and save it with this version"
        )
    if not isinstance(kind, str) or kind not in known:
        raise VeracityError(
            f"{where} has unknown calibrator kind {_one_line(repr(kind), 60)}; known kinds: "
            f"{', '.join(sorted(known))}"
        )
    if (kind, version) not in SCHEMAS:  # pragma: no cover - guarded by a test
        raise VeracityError(f"no artifact schema is declared for calibrator kind {kind!r}")
    unknown = sorted(set(doc) - {"format", "version", "kind", "params", "state", "metadata"})
    if unknown:
        raise _refuse(where, f"unknown top-level field(s) {_one_line(repr(unknown), 80)}")
    _depth_and_size(doc, where)
    params_t, state_t = SCHEMAS[(kind, version)]
    parts = {}
    for key, schema in (("params", params_t), ("state", state_t), ("metadata", Metadata)):
        value = doc.get(key)
        if value is None and key != "state":
            value = {}
        if not isinstance(value, dict):
            raise _refuse(where, f"{key} must be a JSON object, got {type(value).__name__}")
        try:
            msgspec.convert(value, schema, strict=True)
        except msgspec.ValidationError as exc:
            raise _refuse(where, _explain(exc, value, "." + key, schema)) from None
        parts[key] = value
    why = _classes_contradicted(parts["state"], parts["metadata"])
    if why is not None:
        raise _refuse(where, why)
    return kind, dict(parts["params"]), dict(parts["state"]), dict(parts["metadata"])


def _classes_contradicted(state: dict, metadata: dict) -> str | None:
    """Why the recorded classes disagree with ``state.n_classes_`` (K, 2 where absent), or None.

    A fit records ``metadata.n_classes`` = K and ``metadata.n_columns``, the width of its scores: K for
    K > 2 classes, 1 or 2 for two (a two-class temperature reads either)."""
    k = state.get("n_classes_", 2)
    recorded = metadata.get("n_classes")
    if recorded is not None and recorded != k:
        return (f"state.n_classes_ = {k} contradicts metadata.n_classes = {recorded}, the number of classes "
                "the fit saw")
    width = metadata.get("n_columns")
    if width is not None and width not in ((1, 2) if k == 2 else (k,)):
        return (f"state.n_classes_ = {k} contradicts metadata.n_columns = {width}, the score columns the fit "
                f"read ({'1 or 2' if k == 2 else k} for {k} classes)")
    return None


def _unstorable(value: Any) -> str | None:
    """Why ``value`` (one metadata entry, already plain JSON types) cannot be saved and read back, or None."""
    stack: list[tuple[Any, int]] = [(value, 3)]  # the artifact (1) > metadata (2) > this entry (3)
    while stack:
        node, depth = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return (f"holds {node!r}: a calibrator artifact is strict JSON, which has no NaN or "
                    "infinity; pass None for a missing value, or the value as text")
        if isinstance(node, (dict, list, tuple)):
            if depth > MAX_DEPTH:
                return (f"is nested deeper than the {MAX_DEPTH} levels vc.load reads back; pass a "
                        "flatter value, or the value as text")
            items = node.values() if isinstance(node, dict) else node
            stack.extend((v, depth + 1) for v in items)
    return None


def check_metadata(metadata: dict[str, Any]) -> None:
    """Refuse, at fit time, caller metadata that :meth:`Calibrator.save` could not write or
    :func:`veracity.load` would refuse on reading it back: a NaN or infinity (strict JSON has neither),
    nesting deeper than :data:`MAX_DEPTH`, a key the library reads back (``score_column`` …) of the wrong
    type. ``metadata`` holds plain JSON types (see ``_jsonable``) and only the keys the fit does not record."""
    for key, value in metadata.items():
        why = _unstorable(value)
        if why is not None:
            raise VeracityError(f"metadata[{key!r}] {why}")
    try:
        msgspec.convert(metadata, Metadata, strict=True)
    except msgspec.ValidationError as exc:
        rule, _, path = str(exc).rpartition(" - at `")
        key = path.rstrip("`").removeprefix("$.").partition("[")[0]
        shown = _one_line(repr(metadata.get(key)), 60)
        raise VeracityError(
            f"metadata[{key!r}] = {shown}: {_one_line(rule, 80)}; vc.load reads {key!r} back and would "
            "refuse the saved file: pass the value it records there (text), or None") from None


#: scores at least this large in magnitude are within a few multiplications of overflowing a double
EXTREME_SCORE = 1e300


def check_output(name: str, p: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Refuse NaN/inf or out-of-range probabilities from a calibrator.

    Blamed on the calibrator, except where the first offending row holds a score of magnitude
    :data:`EXTREME_SCORE` or more: then the arithmetic overflowed on the scores' magnitude, and the
    message says so (re-fitting would not help)."""
    lo, hi = (float(v) for v in (np.min(p), np.max(p))) if p.size else (0.0, 1.0)
    if lo >= 0.0 and hi <= 1.0:  # NaN fails both comparisons
        return p
    bad = ~((p >= 0.0) & (p <= 1.0))
    rows = np.flatnonzero(bad.reshape(p.shape[0], -1).any(axis=1))
    i = int(rows[0])
    shown = scores[i] if scores.ndim == 1 else scores[i].tolist()
    what = (f"{name} produced {rows.size} invalid probabilities (NaN, infinite or outside [0, 1]) "
            f"from valid scores (first at row {i}, score {_one_line(repr(shown), 60)})")
    top = float(np.max(np.abs(scores[i]))) if scores.size else 0.0
    if top >= EXTREME_SCORE:
        raise VeracityError(
            f"{what}; that row's scores reach |score| = {top:.3g}, so near the largest double that "
            f"{name}'s arithmetic overflowed on their magnitude. Clip or rescale such scores (and fit the "
            "calibrator on the same scale)"
        )
    raise VeracityError(f"{what}; the calibrator is faulty, not the data. Re-fit it on calibration rows")


__all__ = ["FORMAT", "FORMAT_VERSION", "SCHEMAS", "check_artifact", "check_metadata", "check_output",
           "read_artifact", "register"]
