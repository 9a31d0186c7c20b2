r"""The one calibrator shape: ``fit`` / ``transform`` / ``to_dict`` / :func:`load`.

Every calibrator is a small model of its own (seed 003: *calib* rows set
post-training values; *test* rows only measure). So :meth:`Calibrator.fit`

* refuses rows whose split role is ``"test"`` or ``"train"`` unless the caller
  passes ``allow_role=`` explicitly (the override is recorded in the artifact),
* checks the data (finite scores, both classes present, binary vs multiclass),
* records provenance in :attr:`Calibrator.metadata` (seed 004's report
  metadata: model revision, score type, fit window and cohort, rows, classes, a
  hash of the fit data, the split role, the library version).

Artifacts are plain JSON (``format`` / ``version`` / ``kind`` / ``params`` /
``state`` / ``metadata``), never pickles. Floats survive a JSON round trip
exactly, so ``load(c.to_dict()).transform(s)`` equals ``c.transform(s)`` bit for bit.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import json
import warnings
from pathlib import Path
from types import FrameType
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar, TypeVar

import numpy as np
from ..core._validation import (
    _NO_VALUE,
    PROB_EPS,
    VeracityError,
    VeracityWarning,
    as_float_array,
    check_binary_labels,
    check_class_labels,
    check_logit_scale,
    check_probabilities,
    check_same_index,
    check_score_type,
    offending_rows,
    python_spelling,
    refuse_pos_label_for_multiclass,
    row_sums_off_one,
    rows_not_summing_to_one,
    rows_rounding,
    scaled_weights,
    to_numpy,
)
from ..core._keys import is_missing
from ..core._text import count_noun
from .._version import __version__

from . import _schema
from ._schema import FORMAT, FORMAT_VERSION

#: Roles a calibrator must not be fit on (seed 003): train rows already set the
#: model's weights; test rows decide nothing and only measure.
FORBIDDEN_ROLES = ("test", "train")

_REGISTRY: dict[str, type[Calibrator]] = {}

_META_KEYS = ("model_revision", "fit_window", "cohort")

#: ``fit(frame, score=, label=)``: reading a frame's columns is veracity.frames' work, which is built
#: on this package, so it registers its fitter here when imported (``import veracity`` does)
_FRAME_FIT: dict[str, Any] = {}


def register_frame_fit(fit_frame: Any) -> None:
    _FRAME_FIT["fit"] = fit_frame


def _why_role(role: str) -> str:
    if role == "test":
        return ("test rows decide nothing and only measure; what is fit on them can no "
                "longer be measured fairly on them (seed 003)")
    return ("train rows already set the model's weights, where its scores are "
            "over-confident by construction (fitting there gives T << 1, seed 003)")


def _role_word(role: str) -> str:
    """A role as the fit-role policy compares it: case and surrounding blanks aside."""
    return role.strip().casefold()


def role_rows(role: Any, n: int) -> Any:
    """A per-row ``role=`` checked against the ``n`` rows of scores: ``role`` itself when it is None or one
    role for every row (a string), else its array. A role array of another length (the whole data's role
    column beside a calib subset of the scores: a false "role is 'test'" refusal, or another rows' roles
    recorded) and a row with no role (None, NaN, pandas' NA: which split is that row in?) are refused in
    one line, as the command line refuses a missing role (``veracity fit --role-col``)."""
    if role is None:
        return role
    if isinstance(role, str) or (isinstance(role, np.ndarray) and role.ndim == 0):
        _refuse_empty_role(role)
        return role
    # a list as it holds its values: numpy reads ['calib', nan] as the texts 'calib' and 'nan'
    arr = np.array(role, dtype=object) if isinstance(role, (list, tuple)) else to_numpy(role, "role")
    if arr.ndim == 0:  # one role (a number or a 0-d array) for every row, as a string is
        _refuse_empty_role(arr)
        return arr
    if arr.ndim != 1 or arr.shape[0] != n:
        got = f"{arr.shape[0]} values" if arr.ndim == 1 else f"shape {arr.shape}"
        raise VeracityError(
            f"role has {got} but the scores have {count_noun(n, 'row')}; pass one role per score row (the "
            "role column of the same rows, e.g. df.loc[rows, 'role']) or one role for every row "
            "(role='calib')",
            param="role")
    absent = (np.isnan(arr) if arr.dtype.kind in "fc"
              else np.frompyfunc(is_missing, 1, 1)(arr).astype(bool) if arr.dtype == object
              else np.zeros(arr.shape, bool))
    blank = blank_roles(arr)
    if absent.any() or blank.any():
        k = int((absent | blank).sum())
        what = "None/NaN or empty text" if blank.any() else "None/NaN"
        absent = absent | blank
        raise VeracityError(
            f"role has {count_noun(k, 'missing value')} ({what}) of {n} rows, first at row "
            f"{int(np.flatnonzero(absent)[0])}; drop or fill {'that row' if k == 1 else 'those rows'} first",
            param="role", **offending_rows(absent))
    return arr


def blank_roles(arr: np.ndarray) -> np.ndarray:
    """Which roles are empty or blank text (``""``, ``"  "``): a missing role, as the command line reads an
    empty cell of ``--role-col`` (a fit recorded the role ``''``, a split no one named)."""
    if arr.dtype.kind == "U":
        return np.char.strip(arr) == ""
    if arr.dtype == object:
        return np.frompyfunc(lambda v: isinstance(v, str) and not v.strip(), 1, 1)(arr).astype(bool)
    return np.zeros(arr.shape, bool)


def _refuse_empty_role(role: Any) -> None:
    """One role for every row given as empty or blank text: refused, as a row with no role is."""
    if blank_roles(np.asarray(role, dtype=object).reshape(1))[0]:
        raise VeracityError(f"role is empty text ({str(role)!r}): it names no split; pass the rows' role "
                            "(role='calib') or leave role= out", param="role")


def refuse_role_column(data: Any, role: Any) -> None:
    """``fit(frame, score=, label=, role="split")`` where ``"split"`` is a column of the (in-memory) frame:
    role= is the split role of the rows fit on, so every row, its test rows too, was fit on and recorded as
    of the role "split", silently (``veracity fit --role-col split`` fits on the calib rows alone). Refused
    in one line."""
    if not isinstance(role, str):
        return
    try:
        import narwhals as nw

        columns = nw.from_native(data, eager_only=True).columns
    except Exception:  # not an eager frame: the reader speaks for it
        return
    if role in columns:
        raise VeracityError(
            f"role={role!r} names a column of the frame, but role= is the split role of the rows fit on (one "
            f"for every row, e.g. role='calib'), not a column: fit on the rows of one role, e.g. "
            f"frame[frame[{role!r}] == 'calib'] with role='calib', or pass the roles themselves, "
            f"role=frame[{role!r}]", param="role")


def frame_fit_metadata(score: Any, label: Any, pos_label: Any, metadata: Any) -> Any:
    """The metadata a fit on a frame records: the score and label column names and ``pos_label`` (the
    frame's labels reach the fit as 0/1 = [label == pos_label]; a fit with ``pos_label=0`` that recorded
    none was measured by ``vc.compare`` against label 1), the caller's ``metadata`` winning; ``metadata``
    as given where the names are not column names or it is not a dict (the fit's own check refuses it)."""
    names = [score] if isinstance(score, str) else list(score) if isinstance(score, (list, tuple)) else []
    if not (isinstance(label, str) and names and all(isinstance(n, str) for n in names)) \
            or not (metadata is None or isinstance(metadata, dict)):
        return metadata
    record: dict[str, Any] = {"score_column": ",".join(names), "label_column": label}
    if pos_label is not None:
        record["pos_label"] = pos_label
    return {**record, **(metadata or {})}


def check_role(name: str, role: Any, allow_role: Any) -> str | None:
    """The role label recorded for the fit rows, or a :class:`VeracityError`."""
    if allow_role is not None and (isinstance(allow_role, (bool, bytes)) or not isinstance(allow_role, Iterable)):
        raise VeracityError(f"allow_role names the role(s) a fit may use, e.g. allow_role='test' (or a list of "
                            f"names); got {allow_role!r}", param="allow_role")
    if role is None:
        return None
    if isinstance(role, str):
        _refuse_empty_role(role)  # a lazy frame's one role reaches here alone
        roles = [str(role)]  # a numpy str_ read as text ('test', not np.str_('test'))
    else:
        arr = to_numpy(role, "role")
        roles = sorted({str(r) for r in np.unique(arr.astype(str))})
    allowed = ({_role_word(allow_role)} if isinstance(allow_role, str) else
               {_role_word(str(a)) for a in (() if allow_role is None else allow_role)})
    for r in roles:
        # 'Test', 'TEST' or ' test' (a role column written by hand) name the test rows as 'test' does
        if _role_word(r) in FORBIDDEN_ROLES and _role_word(r) not in allowed:
            raise VeracityError(
                f"refusing to fit {name} on rows whose role is {r!r}: a calibrator is itself a "
                f"model and must be fit on held-out calibration rows ('calib'); {_why_role(_role_word(r))}. "
                "Fit on the calib rows, or pass {setting} to override (it is recorded "
                "in the artifact)", param="allow_role", value=r
            )
    return ",".join(roles)


def data_hash(*arrays: np.ndarray | None) -> str:
    """SHA-256 (first 32 hex digits) of the fit data (scores, labels, weights), for provenance."""
    h = hashlib.sha256()
    for a in arrays:
        if a is None:
            h.update(b"none")
            continue
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.data)
    return h.hexdigest()[:32]


def _label_bytes(y: np.ndarray) -> np.ndarray:
    """Labels compactly for hashing: bits for 0/1 labels, int32 class indices otherwise."""
    if y.dtype.kind == "f":
        return np.packbits(y.astype(bool))
    return y.astype(np.int32)


def probability_to_logit(p: np.ndarray) -> np.ndarray:
    r""":math:`\log p - \log(1-p)` of probabilities clipped to :math:`[\epsilon, 1-\epsilon]`."""
    q = np.clip(p, PROB_EPS, 1.0 - PROB_EPS)
    return np.log(q) - np.log1p(-q)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)  # dates, paths, ... are recorded by their text


#: the calibrator's own class, for methods that return ``self``
_C = TypeVar("_C", bound="Calibrator")

#: a calibrator fit on logits warns when a batch at least this large lies wholly in [0, 1]
LOGIT_WARN_ROWS = 100


def logits_look_like_probabilities(name: str, n: int, low: float, high: float) -> VeracityWarning:
    """The warning of a calibrator fit on logits given ``n`` scores (at least :data:`LOGIT_WARN_ROWS`) that
    all lie in [0, 1], ``low`` and ``high`` their extremes: most likely ``predict_proba`` output. One
    rule for a transform's batch and for a file streamed batch by batch (``veracity apply``), which
    counts the whole file's scores."""
    said = (f" but all {n} scores lie in [0, 1] (min={low:.3g}, max={high:.3g}): they look "
            "like probabilities; pass the raw logits / decision_function values the calibrator was fit on")
    return VeracityWarning(f"this {name} was fit on logits ({{setting}})" + said, "score_type",
                           value="logit", fallback=f"this {name} was fit on logits" + said)


class Calibrator:
    """Base class: subclasses define ``kind``, ``multiclass``, ``_params``, ``_state``,
    ``_fit(X, y, w)`` and ``_transform(X)``.

    ``multiclass`` is ``"binary"`` (1-D scores), ``"multiclass"`` ((N, K) scores) or
    ``"both"``. ``_fit`` receives the checked score array (logits or probabilities
    as declared by ``score_type``), float labels (0/1, or class indices for
    (N, K) input) and weights or None.
    """

    kind: ClassVar[str] = "base"
    multiclass: ClassVar[str] = "binary"
    _params: ClassVar[tuple[str, ...]] = ("score_type",)
    _state: ClassVar[tuple[str, ...]] = ()
    #: order-preserving by construction (temperature; Platt with a > 0).
    preserves_order: ClassVar[bool] = False
    #: what the scores are: ``"probability"``, ``"logit"`` or ``"score"`` (every calibrator's option)
    score_type: str
    #: during :meth:`fit`, the exact power of two :math:`2^k` the weights reaching ``_fit`` were multiplied by
    #: (:func:`~veracity.core._validation.scaled_weights`; 1.0 when none): a weight total over it is in the
    #: caller's units, which only a fit that reads the weights as row counts needs (Platt's smoothed targets)
    _weight_unit: float = 1.0

    def __init__(self, *, score_type: str = "probability") -> None:
        self.score_type = score_type

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # only a class that declares its own kind: a user's subclass of PlattScaling (to log, or to test)
        # inherits kind = "platt" and took over the registry, so every Platt artifact loaded in the process
        # came back as the subclass
        if "kind" in cls.__dict__ and cls.kind != "base":
            _REGISTRY[cls.kind] = cls
        own = cls.__dict__.get("__str__")
        if own is not None and cls.multiclass == "binary":
            def __str__(self: Calibrator, _own: Any = own) -> str:
                ovr = getattr(self, "_ovr", None)  # fitted on (N, K): its one-vs-rest form
                return str(ovr) if ovr is not None else _own(self)

            setattr(cls, "__str__", __str__)  # replaces the class's method on purpose

    # -- plumbing ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        return type(self).__name__

    @contextlib.contextmanager
    def _own_settings_spelled(self) -> Iterator[None]:
        """An error that tells Python code to set one of this calibrator's own parameters to another value
        says to set it on the constructor, ``PlattScaling(score_type='logit')``: "pass score_type='logit'"
        read as a keyword of ``fit`` or ``transform`` (a TypeError). An error about the value it has ("were
        declared score_type='logit'") keeps its words. Only the Python text changes; a front end that
        spells the parameter itself (``exc.render``: the command line's ``--score-type logit``) is as it was.
        """
        try:
            yield
        except VeracityError as exc:
            param, value = exc.param, exc.value
            if param in self._params and value is not _NO_VALUE and getattr(self, param, value) != value:
                def spell(param: str, *value: Any) -> str:
                    setting = python_spelling(param, *value)
                    return self._constructor_with(setting) if value and param in self._params else setting

                exc.args = (exc.render(spell),)
            raise

    def _constructor_with(self, setting: str) -> str:
        """The constructor call that builds this calibrator with ``setting`` (``"score_type='logit'"``), as
        an error's advice spells it: ``PlattScaling(score_type='logit')``. A form whose :attr:`name` is not
        a plain class name (pairwise Venn–ABERS) or whose other options decide the map (one-vs-rest's
        ``method``) spells its own."""
        return f"{self.name}({setting})"

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's options, unchanged (scikit-learn's contract: ``sklearn.base.clone``
        copies a calibrator with them). ``deep`` is accepted for that contract; a calibrator
        holds no nested estimators, so it changes nothing."""
        return {p: getattr(self, p) for p in self._params}

    def set_params(self: _C, **params: Any) -> _C:
        """Set constructor options by name (scikit-learn's contract); returns ``self``.

        Fitted state is kept until the next :meth:`fit`; an unknown name is refused.
        """
        for key, value in params.items():
            if key not in self._params:
                raise VeracityError(
                    f"{self.name} has no parameter {key!r}; its parameters are {', '.join(self._params)}",
                    param=key)
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{self.name}({args})"

    def _check_params(self) -> None:
        check_score_type(self.score_type, allow_score=True)

    def _rows_options(self, options: dict[str, Any], n: int) -> Callable[[np.ndarray], dict[str, Any]] | None:
        """The fit options that hold one value per row of the ``n`` scores and that :meth:`transform` takes
        too (:class:`~veracity.segments.SegmentCalibration`'s ``features=``), as ``take(mask)``: those
        options for the rows of a boolean ``mask``, as :func:`vc.cross_fit` gives each fold's fit and
        out-of-fold transform its own rows. None (the default): no fit option is per row."""
        return None

    def _frame_column_sets(self) -> dict[str, list[str]]:
        """The per-row fit options read from a frame's columns by the names this calibrator was built with
        (``SegmentCalibration(features=[...])``: ``{"features": [...]}``), as the frame form of
        :func:`vc.cross_fit` reads them; none by default."""
        return {}

    def _is_fitted(self) -> bool:
        if getattr(self, "_ovr", None) is not None:
            return True
        return all(hasattr(self, s) for s in self._state)

    def _require_fitted(self) -> None:
        if not self._is_fitted():
            raise VeracityError(
                f"this {self.name} is not fitted yet; call fit(scores, labels) first"
            )

    # -- input checks -----------------------------------------------------------------
    def _fitted_shape(self, shape: tuple[int, ...]) -> None:
        """Refuse 1-D scores, or another number of columns, for a map fit on (N, K) scores (a multiclass
        calibrator, or a binary one's one-vs-rest form), in this calibrator's words and before the checks
        of the class: a PlattScaling fit on (N, 2) scores and given 1-D ones was told "OneVsRest is a
        multiclass calibrator ...; use TemperatureScaling, PlattScaling or another binary calibrator"."""
        fit_2d = getattr(self, "_ovr", None) is not None or type(self).multiclass == "multiclass"
        if not fit_2d or not hasattr(self, "n_classes_") or len(shape) not in (1, 2):
            return
        if len(shape) == 1 or shape[1] != self.n_classes_:
            got = "1-D binary" if len(shape) == 1 or shape[1] == 1 else f"{shape[1]}-column"
            raise VeracityError(
                f"this {self.name} was fit on {self.n_classes_}-class (N, K) scores but got {got} scores; "
                "pass scores of the same shape as at fit time")

    def _scores(self, scores: Any, *, fitting: bool) -> np.ndarray:
        s = as_float_array(scores, "scores")
        if s.ndim == 2 and s.shape[1] == 1:
            s = s[:, 0]
        if not fitting:
            self._fitted_shape(s.shape)
        if s.ndim == 2:
            if self.multiclass == "binary":
                raise VeracityError(
                    f"{self.name} is a binary calibrator but scores have shape {s.shape} "
                    "(multiclass); use TemperatureScaling, VectorScaling or MatrixScaling "
                    "for (N, K) scores, or pass the positive-class column only"
                )
            if s.shape[1] < 2:
                raise VeracityError(f"multiclass scores need K >= 2 columns, got {s.shape}")
        elif s.ndim == 1:
            if self.multiclass == "multiclass":
                raise VeracityError(
                    f"{self.name} is a multiclass calibrator but scores are 1-D (binary); "
                    "use TemperatureScaling, PlattScaling or another binary calibrator, "
                    "or pass (N, K) scores"
                )
        elif s.ndim == 0:  # one number: the same map, read as one row
            raise VeracityError(
                f"scores must be an array of scores, one per row; got the single number {float(s):g}: "
                f"pass an array (a list such as [{float(s):g}] for one row)")
        else:
            raise VeracityError(
                f"scores must be 1-D (binary) or 2-D (N, K) (multiclass), got shape {s.shape}"
            )
        if not fitting and hasattr(self, "n_classes_"):
            k = s.shape[1] if s.ndim == 2 else 2
            if k != self.n_classes_:
                raise VeracityError(
                    f"this {self.name} was fit on {self.n_classes_}-class scores but got "
                    f"{'1-D binary' if s.ndim == 1 else f'{k}-column'} scores; "
                    "pass scores of the same shape as at fit time"
                )
        if self.score_type == "logit" and fitting:
            check_logit_scale(s)
        elif self.score_type == "logit" and s.size >= LOGIT_WARN_ROWS and s.min() >= 0.0 and s.max() <= 1.0:
            # a few logits in [0, 1] are normal (p in [0.5, 0.73]); a large batch of them is most likely
            # predict_proba output sent to a calibrator fit on logits
            warnings.warn(logits_look_like_probabilities(self.name, s.size, float(s.min()), float(s.max())),
                          stacklevel=3)
        if self.score_type == "probability":
            rounded = None
            try:
                check_probabilities(s)
                if s.ndim == 2:
                    sums, bad = row_sums_off_one(s)  # the audit's rule, and its words for rounded rows
                    if bad.any():
                        i = int(np.flatnonzero(bad)[0])
                        decimals = rows_rounding(s, sums, bad)
                        rounded = rows_not_summing_to_one(int(bad.sum()), sums.size, i, float(sums[i]),
                                                          rows=np.flatnonzero(bad), decimals=decimals,
                                                          k=s.shape[1])
                        if decimals is None:
                            raise rounded
            except VeracityError as exc:
                if fitting:
                    raise
                # a fitted map's score type is fixed: "pass score_type='logit'" would not reach it
                raise VeracityError(
                    f"{exc.message}; this {self.name} was fit on probabilities and reads only those: pass "
                    "the same kind of scores it was fit on (for logits, fit a calibrator with {setting})",
                    param="score_type", value="logit", rows=exc.rows, n_rows=exc.n_rows) from None
            if rounded is not None:  # rows of probabilities rounded: the fix is to renormalise, not logits
                raise rounded
        return s

    def _labels(self, labels: Any, s: np.ndarray, keep: np.ndarray | None = None,
                pos_label: Any = None) -> np.ndarray:
        n = s.shape[0]
        if s.ndim == 1:
            y = check_binary_labels(labels, n, pos_label)
            if keep is not None:
                y, n = y[keep], int(keep.sum())
            n_pos = int(y.sum())
            if n_pos == 0 or n_pos == n:
                only = "1" if n_pos == n else "0"
                raise VeracityError(
                    f"{self.name} needs both classes in the fit data; all {n} labels are "
                    f"{only}. Fit on a calibration split that holds positives and negatives"
                )
            return y
        refuse_pos_label_for_multiclass(pos_label, s.shape[1])
        y = check_class_labels(labels, n, s.shape[1])
        if keep is not None:
            y, n = y[keep], int(keep.sum())
        present = np.flatnonzero(np.bincount(y, minlength=s.shape[1]))
        if present.size < 2:
            raise VeracityError(
                f"{self.name} needs at least 2 classes in the fit data; all {n} labels are "
                f"{int(present[0])}. Fit on a calibration split that holds several classes"
            )
        return y

    # -- public API --------------------------------------------------------------------
    def fit(
        self: _C,
        scores: Any,
        labels: Any = None,
        *,
        sample_weight: Any = None,
        role: Any = None,
        allow_role: Any = None,
        metadata: dict[str, Any] | None = None,
        pos_label: Any = None,
        score: Any = None,
        label: str | None = None,
    ) -> _C:
        """Fit on held-out calibration rows; returns ``self``.

        Frame form: ``fit(frame, score="p", label="y", sample_weight="w")`` with column
        names, on any frame :func:`vc.audit` reads (a lazy one is never collected: see
        :mod:`veracity.frames._fit`).

        ``role`` is the split role of the fit rows (a string, or one role per row of the scores: another
        length, or a row with no role, is refused; a row of weight 0 is fit on in no role);
        ``"test"`` and ``"train"`` are refused unless named in ``allow_role``.
        ``metadata`` may carry ``model_revision``, ``fit_window``, ``cohort`` (and
        anything else JSON-able); it is stored in :attr:`metadata`. ``pos_label`` names the
        positive class of two-valued binary labels (strings, booleans, numbers; recorded).
        Pandas scores, labels and weights must share one index (never matched by position).
        """
        with self._own_settings_spelled():
            _check_metadata(metadata)
            if score is not None or label is not None:
                if "fit" not in _FRAME_FIT:  # registered by veracity.frames._fit (the layer above), loaded on need
                    from ..core._plugins import load_registrations

                    load_registrations()
                fit_frame = _FRAME_FIT["fit"]
                # a role per row given beside the frame: a Series on another index is never paired by position
                # (as cross_fit's frame form refuses it)
                check_same_index(frame=scores, role=None if isinstance(role, str) else role)
                refuse_role_column(scores, role)

                return fit_frame(self, scores, labels, score=score, label=label, sample_weight=sample_weight,
                                 role=role, allow_role=allow_role, metadata=metadata, pos_label=pos_label)
            if labels is None:
                raise VeracityError(
                    f"{self.name}.fit needs labels: fit(scores, labels), or fit(frame, score='p', label='y')")
            self._check_params()
            check_same_index(scores=scores, labels=labels, sample_weight=sample_weight,
                             role=None if isinstance(role, str) else role)
            if self.multiclass == "binary" and _is_multiclass(scores):
                # (N, K) scores: this calibrator's one-vs-rest form, rows renormalised
                from ._ovr import OneVsRest

                params = {k: v for k, v in self.get_params().items() if k != "score_type"}
                # a refit on (N, K) scores leaves nothing of an earlier binary fit (PlattScaling's a_ and
                # preserves_order_ read the old slope beside the new one-vs-rest maps)
                for attr in [k for k in self.__dict__ if k.endswith("_") and not k.startswith("_")]:
                    del self.__dict__[attr]
                self.__dict__.pop("_lookup", None)
                self._ovr = OneVsRest(method=self.kind, score_type=self.score_type, method_params=params)
                self._ovr._built_as = self.name  # its errors name the calibrator the user built
                self._ovr.fit(scores, labels, sample_weight=sample_weight, role=role,
                              allow_role=allow_role, metadata=metadata, pos_label=pos_label)
                self.metadata, self.n_classes_ = self._ovr.metadata, self._ovr.n_classes_
                return self
            self.__dict__.pop("_ovr", None)
            s = self._scores(scores, fitting=True)
            role = role_rows(role, s.shape[0])
            # the weights times an exact 2^k where they are extreme (scaled_weights); a fit that reads them as
            # row counts (Platt's smoothed targets) divides its totals by _weight_unit = 2^k
            w, unit = scaled_weights(sample_weight, s.shape[0])
            keep = None
            if w is not None and not w.all():
                # a row of weight 0 is a dropped row: it never changes the fit (nor its hash)
                keep = w > 0
            y = self._labels(labels, s, keep, pos_label)
            if keep is not None and w is not None:  # keep is set only with weights
                s, w = s[keep], w[keep]
                # the roles of the rows fit on (a dropped row is fit on in no role)
                role = role[keep] if isinstance(role, np.ndarray) and role.ndim == 1 else role
            role_label = check_role(self.name, role, allow_role)
            self._weight_unit = unit
            try:
                self._fit(s, y, w)
            finally:  # only for this fit: a frame's fit passes weights in the caller's units
                self.__dict__.pop("_weight_unit", None)
            return self._record_fit(metadata, pos_label, n_rows=int(s.shape[0]),
                                    n_classes=int(s.shape[1]) if s.ndim == 2 else 2,
                                    hash_=data_hash(s, _label_bytes(y), w), role_label=role_label,
                                    allow_role=allow_role, n_columns=int(s.shape[1]) if s.ndim == 2 else 1)

    def _record_fit(self: _C, metadata: dict[str, Any] | None, pos_label: Any, *, n_rows: int, n_classes: int,
                    hash_: str, role_label: str | None, allow_role: Any, n_columns: int | None = None) -> _C:
        """Store the provenance of a finished fit in :attr:`metadata`; returns ``self``.

        ``n_columns`` is the width of the fit scores (1 for 1-D, K for (N, K)): a two-class
        temperature reads either, and its export (:mod:`veracity.export`) reads what it was fit on.
        """
        meta: dict[str, Any] = {k: None for k in _META_KEYS}
        meta.update(dict(metadata or {}))
        if pos_label is not None:
            meta["pos_label"] = pos_label
        meta.update(
            method=self.kind,
            score_type=self.score_type,
            n_rows=n_rows,
            n_classes=n_classes,
            data_hash=hash_,
            role=role_label,
            allow_role=allow_role if isinstance(allow_role, (str, type(None))) else list(allow_role),
            library_version=__version__,
            params=_jsonable(self.get_params()),
        )
        if n_columns is not None:
            meta["n_columns"] = n_columns
        self.metadata = _jsonable(meta)
        self.n_classes_ = meta["n_classes"]
        return self

    def transform(self, scores: Any, *, score: Any = None) -> np.ndarray:
        """Calibrated probabilities: ``(N,)`` for binary, ``(N, K)`` for multiclass input.

        Frame form: ``transform(frame, score="p")`` (multiclass: ``score=["p0", "p1", ...]``) reads the
        score column(s) of an in-memory frame (pandas, polars, pyarrow) as :meth:`fit`'s frame form does
        — missing columns, text, NaN and empty frames named in one line — then transforms their values."""
        if score is not None:
            from ..core._frameform import scores_call

            def transform_rows(s: np.ndarray, *, sample_weight: Any, score_type: str) -> np.ndarray:
                return self.transform(s)

            # score_type="score": the seam names the column of missing or infinite scores and leaves the range
            # to the fitted map, whose words say which kind of scores it was fit on
            framed: np.ndarray = scores_call(f"{type(self).__name__}.transform", transform_rows, scores,
                                             score=score, score_type="score")
            return framed
        if hasattr(scores, "columns") and not hasattr(scores, "dtype"):  # a frame (a Series has a dtype)
            raise VeracityError(f"{type(self).__name__}.transform got a frame: name its score column with score=, "
                                "e.g. cal.transform(frame, score='p')", param="score")
        with self._own_settings_spelled():
            if getattr(self, "_ovr", None) is not None:
                try:  # the shape alone (a frame's or a list's, no copy); the form checks the values
                    shape = np.shape(scores)
                except ValueError:  # ragged rows: the form's own check names them
                    shape = ()
                self._fitted_shape(shape)
                return self._ovr.transform(scores)
            self._require_fitted()
            s = self._scores(scores, fitting=False)
        with np.errstate(all="ignore"):  # a faulty calibrator is reported by check_output
            p = self._transform(s)
        return _schema.check_output(self.name, p, s)

    def fit_transform(self, scores: Any, labels: Any = None, *, score: Any = None, label: Any = None,
                      sample_weight: Any = None, pos_label: Any = None, **kwargs: Any) -> np.ndarray:
        """:meth:`fit` then :meth:`transform` on the same scores; with a frame, ``score=``/``label=`` name its
        columns (the fit is :meth:`fit`'s frame form, the probabilities are those of the ``score`` column)."""
        if score is not None or label is not None:

            self.fit(scores, labels, score=score, label=label, sample_weight=sample_weight, pos_label=pos_label,
                     **kwargs)
            return self.transform(scores, score=score)
        return self.fit(scores, labels, sample_weight=sample_weight, pos_label=pos_label, **kwargs).transform(scores)

    # -- subclass hooks ------------------------------------------------------------------
    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:  # pragma: no cover
        raise NotImplementedError

    def _transform(self, s: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _logit_input(self, s: np.ndarray) -> np.ndarray:
        """Scores on the logit scale (binary: logit of p; multiclass: log p); a ranking score
        (``score_type="score"``) is the feature as it is, as scikit-learn's sigmoid takes it."""
        if self.score_type in ("logit", "score"):
            return s
        if s.ndim == 2:
            return np.log(np.clip(s, PROB_EPS, 1.0))
        return probability_to_logit(s)

    def _state_dict(self) -> dict[str, Any]:
        return {k: _jsonable(getattr(self, k)) for k in self._state}

    def _load_state(self, state: dict[str, Any]) -> None:
        for k in self._state:
            if k not in state:
                raise VeracityError(f"calibrator artifact lacks fitted field {k!r}; re-save it")
            v = state[k]
            setattr(self, k, np.asarray(v, dtype=np.float64) if isinstance(v, list) else v)

    # -- artifacts -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON artifact: format, version, kind, params, fitted state, metadata."""
        if getattr(self, "_ovr", None) is not None:
            return self._ovr.to_dict()
        self._require_fitted()
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "kind": self.kind,
            "params": _jsonable(self.get_params()),
            "state": {**self._state_dict(), "n_classes_": self.n_classes_},
            "metadata": self.metadata,
        }

    def to_sql(self, column: Any = "score", *, dialect: str = "duckdb", prior_shift: Any = None,
               alias: str = "probability") -> str:
        """One SQL expression applying this fitted map to ``column`` (see :mod:`veracity.export`).

        Multiclass outputs are named ``{alias}_0 … {alias}_{K-1}``, as in :func:`veracity.export.to_sql`.
        """
        from ..export import to_sql  # export sits below the calibrators: it reads only to_dict()

        return to_sql(self, column, dialect=dialect, prior_shift=prior_shift, alias=alias)

    def to_onnx(self, *, prior_shift: Any = None) -> bytes:
        """Bytes of an ONNX model of this fitted map: double ``score`` in, ``probability`` out."""
        from ..export import to_onnx

        return to_onnx(self, prior_shift=prior_shift)

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as JSON to ``path``; returns the path."""
        from .._files import write_atomic

        text = json.dumps(self.to_dict(), indent=2, allow_nan=False) + "\n"
        if Path(path).is_dir():
            raise VeracityError(f"{os.fspath(path)!r} is a folder; pass a file path such as 'cal.json'")
        try:
            return write_atomic(path, text)
        except OSError as exc:  # a missing folder, no permission: the user's path, not a temporary file's
            raise VeracityError(
                f"could not write calibrator file {os.fspath(path)!r}: {exc.strerror or exc}; "
                "check that the folder exists and is writable") from None

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Calibrator:
        obj = load(doc)
        if not isinstance(obj, cls):
            raise VeracityError(
                f"the dict holds a {obj.name} ({obj.kind!r}), not a {cls.__name__}; use vc.load(doc) "
                "to load any kind")
        return obj


def load(path_or_dict: str | Path | dict[str, Any]) -> Calibrator:
    """A fitted calibrator from a JSON artifact (a path or the dict of ``to_dict()``).

    The artifact is checked against its declared schema first (:mod:`._schema`):
    anything damaged is refused with one line naming the field and the rule.
    """
    if isinstance(path_or_dict, (str, os.PathLike)):
        doc, where = _schema.read_artifact(path_or_dict), str(path_or_dict)
    else:
        doc, where = path_or_dict, "the dict"
    kind_named = doc.get("kind") if isinstance(doc, dict) else None
    if isinstance(kind_named, str) and kind_named not in _REGISTRY:
        # a kind registered by a package above this one (SegmentCalibration), loaded on first need
        from ..core._plugins import load_registrations

        load_registrations()
    kind, params, state, metadata = _schema.check_artifact(doc, where, _REGISTRY)
    obj = from_params(kind, params)
    obj.n_classes_ = int(state.pop("n_classes_", 2))
    obj._load_state(state)
    obj.metadata = metadata
    on_reversed = getattr(obj, "on_reversed", "allow")  # Platt's option; other kinds never reverse
    if getattr(obj, "reversed_", False) and on_reversed != "allow":
        # the words follow the fit's own verdict (PlattScaling.why_reversed: reversed beyond noise, no signal,
        # or far rows), which the artifact records; one written before it was recorded gets the sign advice
        why = getattr(obj, "why_reversed", None)
        sign = "check the score's sign convention before applying it"
        cause, advice = why() if why is not None else ("", sign)
        message = (f"{where}: this {obj.name} reverses the score order (slope a = "
                   f"{getattr(obj, 'a_', float('nan')):.4g} < 0){cause}")
        if on_reversed == "error":
            raise VeracityError(message + "; re-fit it, or save it with on_reversed='allow'")
        warn(message + "; " + advice)
    return obj


def from_params(kind: str, params: dict[str, Any]) -> Calibrator:
    """An unfitted calibrator of ``kind`` with an artifact's options (JSON lists read back as tuples)."""
    options: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in params.items()}
    return _REGISTRY[kind](**options)


#: metadata keys every fit records itself (what the caller passes under these names is replaced)
_RECORDED = ("method", "score_type", "n_rows", "n_classes", "data_hash", "role", "allow_role",
             "library_version", "params", "n_columns")


def _check_metadata(metadata: Any) -> None:
    """The caller's ``metadata=`` can be saved and read back (:func:`._schema.check_metadata`), or a one-line
    error at fit time: before, a NaN failed only in ``save`` (json's bare ValueError) and a ``score_column``
    that is no text was saved and then refused by :func:`load`."""
    if metadata is None:
        return
    if not isinstance(metadata, Mapping):
        raise VeracityError(f"metadata must be a dict of provenance fields, e.g. {{'model_revision': 'v3'}}; "
                            f"got {type(metadata).__name__}")
    plain = _jsonable(dict(metadata))
    _schema.check_metadata({k: v for k, v in plain.items() if k not in _RECORDED})


def _is_multiclass(scores: Any) -> bool:
    shape = getattr(scores, "shape", None)
    if shape is None:
        try:
            shape = np.shape(scores)
        except Exception:  # pragma: no cover - ragged input is refused later
            return False
    return len(shape) == 2 and shape[1] >= 2


def warn(message: str | Warning) -> None:
    """``warnings.warn`` attributed to the first caller outside veracity (the user's line). A
    :class:`~veracity.core._validation.VeracityWarning` whose advice names a parameter is warned as it is:
    each front end spells that parameter in its own words (the command line: its flag)."""
    import sys

    package = str(Path(__file__).resolve().parents[1])
    level = 2
    frame: FrameType | None = sys._getframe(1)  # stacklevel 2 = the caller of warn()
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(package):
        level += 1
        frame = frame.f_back
    warnings.warn(message, stacklevel=level)


#: the mean change of the calibrated probabilities (over the other fit rows) that rows of exactly 0 or 1 that
#: their labels contradict must make before it is warned (see warn_certain_contradicted)
CERTAIN_SHIFT = 0.02


def warn_certain_contradicted(cal: Calibrator, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
    r"""Warn where probabilities of exactly 0 or 1 that their labels contradict (p = 0 with label 1, p = 1
    with label 0) move a fitted binary logit-scale map (temperature, Platt, beta; called at the end of its
    ``_fit``). The clip :math:`[\epsilon, 1 - \epsilon]` reads them as logits of :math:`\pm 36.04`; at the
    exact 0 or 1 their loss is infinite for every map, so the clip, not the data, sets their pull: trees' or
    k-NN's probabilities (every tenth in [0, 1], 11 of 2,000 rows at 0 and 1 wrong) fit τ = 6.28 at this
    clip, 3.98 at scikit-learn's 1e-12 and 1.25 without those rows, a map that read p = 0.1 as 0.41 (the rows'
    rate 0.14); probabilities rounded to 0.00 and 1.00 are read so too. The same map is fit again without
    them, and the warning says how far the other rows' calibrated probabilities moved: only where the
    (weighted) mean change :math:`\overline{|\Delta p|}` reaches :data:`CERTAIN_SHIFT` (one such row among
    3,000 scores rounded to 0.01 moved them by 0.007: not warned). A probability below :math:`\epsilon`
    but above 0 has a finite logit, which the clip moves: not counted. Probabilities only (``score_type``
    ``"probability"``, or beta's ``"score"``, also read through the clip); 1-D fit rows of positive weight."""
    if cal.score_type == "logit" or (cal.score_type == "score" and cal.kind != "beta") or s.ndim != 1:
        return  # a ranking score is read as it is (beta alone clips it, as a probability)
    bad = np.where(y == 1.0, s == 0.0, s == 1.0)
    k = int(np.count_nonzero(bad))
    keep = ~bad
    if k == 0 or not 0.0 < float(y[keep].sum()) < float(keep.sum()):  # no rows, or one class without them
        return
    other = type(cal)(**cal.get_params())
    if "_weight_unit" in cal.__dict__:
        other._weight_unit = cal._weight_unit
    wk = None if w is None else w[keep]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            other._fit(s[keep], y[keep], wk)
    except VeracityError:
        return
    with np.errstate(all="ignore"):
        shift = np.abs(cal._transform(s[keep]) - other._transform(s[keep]))
    mean, top = float(np.average(shift, weights=wk)), float(np.max(shift))
    if not mean >= CERTAIN_SHIFT:
        return
    its, them = ("its", "it") if k == 1 else ("their", "them")
    clip = f"[{PROB_EPS:.3g}, 1 - {PROB_EPS:.3g}]"
    said = (f"{cal.name}: {k:,} of {s.size:,} fit rows {'has' if k == 1 else 'have'} a probability of "
            f"exactly 0 or 1 that {its} label contradicts (p = 0 with label 1, p = 1 with label 0). No map "
            f"gives such a row a finite loss: the clip to {clip} reads {them} as logits of +-36.04 and so "
            f"sets {its} pull, not the data; the map fit without {them} gives the other rows probabilities "
            f"{mean:.3f} apart on average (up to {top:.3f}). For scores with exact 0 and 1 (trees, k-NN, "
            "probabilities rounded to 0.00 and 1.00) use IsotonicCalibration or HistogramBinning")
    advice = ", or PlattScaling with {setting} (the probability itself as its feature, as scikit-learn's "
    warn(VeracityWarning(said + advice + "sigmoid calibration)", "score_type", value="score", fallback=said))


def require_every_class(y: np.ndarray, w: np.ndarray | None, k: int, what: str) -> None:
    """Refuse a multiclass calibration split in which some class has no (positively weighted) row."""
    counts = np.bincount(y, minlength=k) if w is None else np.bincount(y, weights=w, minlength=k)
    missing = np.flatnonzero(counts == 0)
    if missing.size:
        raise VeracityError(
            f"{what} needs rows of every class; class {int(missing[0])} has none among the "
            f"{y.size} calibration rows. Use a calibration split that holds every class, "
            "or TemperatureScaling (one parameter for all classes)")
