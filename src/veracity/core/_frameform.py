"""The frame form of the core's public functions, computed by the rows seam above the core.

``vc.audit(frame, score="p", label="y", ...)`` is :func:`veracity.core._audit.audit`
itself: its signature names ``score=`` and ``label=`` beside the array form's
``(scores, labels)``. The rows of a frame are read by :mod:`veracity.sources`, which is
built on the core, so the core never imports it: :mod:`veracity.sources` registers the
frame form of each function here when it is imported (``import veracity`` registers a
loader, :mod:`._plugins`, that imports it on the first call that needs it). The dependency points down, as for the audit's sections
(:mod:`._sections`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, overload

from ._validation import VeracityError, check_same_index

_FORMS: dict[str, Callable[..., Any]] = {}

T = TypeVar("T")
P = ParamSpec("P")

#: parameters that say where the rows are, not how to compute
_ROWS = ("scores", "labels", "score", "label")


def register_frame_form(name: str, compute: Callable[..., Any]) -> None:
    """Make ``compute(data, labels, *, score, label, **options)`` the frame form of ``vc.<name>``."""
    _FORMS[name] = compute


def _form(name: str) -> Callable[..., Any]:
    """The registered form ``name``, loading the packages that register forms on first need."""
    from ._plugins import load_registrations

    if name not in _FORMS:
        load_registrations()
    return _FORMS[name]


def is_frame_form(score: Any, label: Any) -> bool:
    return score is not None or label is not None


def _same(value: Any, default: Any) -> bool:
    if value is default:
        return True
    scalar = (str, int, float, bool)
    return type(value) is type(default) and isinstance(value, scalar) and value == default


def called(name: str) -> str:
    """How a message names the call: ``vc.audit`` for a function, ``PlattScaling.transform`` for a method
    (a dotted ``name``, which ``vc.`` does not hold: "vc.PlattScaling.transform" named no callable)."""
    return name if "." in name else f"vc.{name}"


def refuse_answers_as_scores(name: str, score: Any, label: Any, sample_weight: Any = None) -> None:
    """``score=`` naming the ``label=`` (or ``sample_weight=``) column reads the answers as scores: a
    perfect model (Brier 0, AUC 1), silently; ``sample_weight=`` naming the ``label=`` column weighs every
    negative row 0 (base rate 1). Refused on every frame form, before any work."""
    named = [score] if isinstance(score, str) else [s for s in score if isinstance(s, str)] \
        if isinstance(score, (list, tuple)) else []
    for key, col in (("label", label), ("sample_weight", sample_weight)):
        if isinstance(col, str) and col in named:
            raise VeracityError(f"{called(name)}: score= names the {key}= column {col!r}, which would read "
                                "the answers as scores (a perfect model); name the score column(s)",
                                param="score")
    if isinstance(sample_weight, str) and isinstance(label, str) and sample_weight == label:
        raise VeracityError(f"{called(name)}: sample_weight= names the label= column {label!r}, which would "
                            "weigh every negative row 0 (base rate 1); name the column of the rows' weights",
                            param="sample_weight")


#: URL schemes (before any ``+driver``) that name a database, not a file
_DATABASE_SCHEMES = frozenset({"sqlite", "duckdb", "postgresql", "postgres", "mysql", "mariadb", "mssql",
                               "oracle", "snowflake", "bigquery", "redshift", "trino", "presto", "clickhouse",
                               "databricks"})


def is_database(data: Any) -> bool:
    """A database connection (DB-API 2.0, ADBC, SQLAlchemy) or a database URL, not a frame."""
    if isinstance(data, str):
        head = data.split("://", 1)[0] if "://" in data else ""
        return head.split("+", 1)[0].lower() in _DATABASE_SCHEMES
    module = (type(data).__module__ or "").split(".")[0]
    if module == "sqlalchemy":
        return hasattr(data, "raw_connection") or hasattr(data, "exec_driver_sql")
    return module.startswith("adbc_driver_") or (callable(getattr(data, "cursor", None))
                                                  and callable(getattr(data, "commit", None)))


def refuse_connection(name: str, data: Any, *, takes_table: bool = False) -> None:
    """A connection or database URL given where a frame is read: say what to pass instead (the
    rows reader would only say it cannot read the type)."""
    if not is_database(data):
        return
    if takes_table:
        raise VeracityError(f"{called(name)}(connection_or_url, ...) needs table= naming the table or view "
                            f"to read: {called(name)}(con, table='t', score='p', label='y')", param="table")
    raise VeracityError(f"{called(name)} reads a frame, not a database connection: pass one table's rows "
                        f"(con.table('t') on DuckDB, a pandas or polars frame), or audit inside the database "
                        "with vc.audit(con, table='t', score='p', label='y')", param="scores")


def frame_call(fn: Callable[..., T], data: Any, labels: Any, params: dict[str, Any]) -> T:
    """Call the frame form of the public function ``fn`` with the options given to it.

    ``params`` are ``fn``'s arguments (its ``locals()`` on entry); options left at their
    defaults are not passed on, so the frame form sees what the caller chose.
    """
    name = fn.__name__
    try:
        compute = _form(name)
    except KeyError:
        raise VeracityError(
            f"the frame form of {called(name)} is computed by veracity.sources, which is not loaded; "
            "import veracity before calling it") from None
    refuse_answers_as_scores(name, params.get("score"), params.get("label"), params.get("sample_weight"))
    refuse_connection(name, data, takes_table="table" in inspect.signature(fn).parameters)
    options = {}
    for key, p in inspect.signature(fn).parameters.items():
        if key in _ROWS or p.default is inspect.Parameter.empty or key not in params:
            continue
        if not _same(params[key], p.default):
            options[key] = params[key]
    result: T = compute(data, labels, score=params.get("score"), label=params.get("label"), **options)
    return result


def require_labels(name: str, labels: Any) -> None:
    """The array form needs labels; say how to call either form."""
    if labels is None:
        raise VeracityError(
            f"{called(name)} needs labels: {called(name)}(scores, labels, ...), or with a frame "
            f"{called(name)}(frame, score='p', label='y', ...)", param="labels")


def table_call(fn: Callable[..., T], data: Any, params: dict[str, Any]) -> T:
    """``vc.<name>(connection_or_url, table="t", score=, label=, ...)``: computed inside the database by
    the form registered as ``<name>_sql`` (:mod:`veracity.sql`, above the core, registers it)."""
    name = fn.__name__
    try:
        compute = _form(f"{name}_sql")
    except KeyError:
        raise VeracityError(f"{called(name)}(connection, table=...) is computed by veracity.sql, which is "
                            "not loaded; import veracity before calling it") from None
    if params.get("labels") is not None:  # the table's label= column is read: an array beside it was ignored
        raise VeracityError(f"{called(name)}(connection_or_url, table='t', ...) takes no labels array: the "
                            "labels are the table's label= column; name it with label='y'", param="labels")
    if params.get("score") is None or params.get("label") is None:
        raise VeracityError(f"{called(name)}(connection_or_url, table='t', score='p', label='y') needs the "
                            "score and label column names", param="score")
    accepted = inspect.signature(compute).parameters
    options = {}
    for key, p in inspect.signature(fn).parameters.items():
        if key in ("scores", "labels") or p.default is inspect.Parameter.empty or key not in params:
            continue
        if key in ("score", "label", "table") or not _same(params[key], p.default):
            if key not in accepted:
                raise VeracityError(f"{key}= is not computed inside a database; drop it, or audit the rows in "
                                    "memory", param=key)
            options[key] = params[key]
    result: T = compute(data, **options)
    return result


def rows_call(name: str, fn: Callable[..., T], data: Any, labels: Any, *, score: Any, label: Any,
              **options: Any) -> T:
    """The frame form of a function that needs the rows themselves (a threshold read off the sorted
    positives, a risk-coverage curve, a ledger): ``fn(frame, score="p", label="y", ...)`` reads the
    named columns of an in-memory frame (pandas, polars, pyarrow) and calls ``fn`` on their arrays;
    a lazy frame is refused in one line (collect the columns first). Registered by
    :mod:`veracity.sources` as ``"_rows"``."""
    if labels is not None:
        raise VeracityError(f"{called(name)}(frame, score=..., label=...) takes no labels array; name the "
                            "label column with label=", param="labels")
    if score is None or label is None:
        raise VeracityError(f"the frame form needs both column names: {called(name)}(frame, score='p', "
                            "label='y', ...)", param="score" if score is None else "label")
    refuse_answers_as_scores(name, score, label, options.get("sample_weight"))
    refuse_connection(name, data)
    result: T = _rows_form(name)(name, _taking_score_type(fn), data, score=score, label=label, **options)
    return result


def _rows_form(name: str) -> Callable[..., Any]:
    """The reader :mod:`veracity.sources` registers as ``"_rows"`` (the rows of an in-memory frame)."""
    try:
        return _form("_rows")
    except KeyError:
        raise VeracityError(f"the frame form of {called(name)} is computed by veracity.sources, which is not "
                            "loaded; import veracity before calling it") from None


def scores_call(name: str, fn: Callable[..., T], data: Any, *, score: Any, **options: Any) -> T:
    """The frame form of a function that needs the rows but no labels (a review budget):
    ``fn(frame, score="p", sample_weight="w", ...)`` reads the named columns through the seam of
    :func:`rows_call` (the same column lookup, type checks, empty frame, lazy frame and connection
    refusals) and calls ``fn(scores, sample_weight=..., **options)``. A ``sample_weight`` that is not
    a column name is the rows' weights, passed on as given (a pandas Series on the frame's index)."""
    refuse_connection(name, data)
    result: T = _rows_form(name)(name, _taking_score_type(fn), data, score=score, label=None, labelled=False,
                                 **options)
    return result


@overload
def rows_form(fn: Callable[P, T]) -> Callable[P, T]: ...


@overload
def rows_form(*, columns: tuple[str, ...]) -> Callable[[Callable[P, T]], Callable[P, T]]: ...


def rows_form(fn: Callable[P, T] | None = None, *, columns: tuple[str, ...] = ()) -> Any:
    """``fn`` with its frame form: the decorator of every public function that needs the rows.

    ``fn(frame, score="p", label="y", **options)`` reads the named columns of an in-memory frame
    through :func:`rows_call` and calls ``fn`` on their arrays; ``fn(scores, labels, **options)``
    is ``fn`` itself, after the checks that the labels were given (:func:`require_labels`) and that
    pandas ``scores``, ``labels``, ``sample_weight`` (and ``columns``) share one index
    (:func:`~._validation.check_same_index`: never paired by position).
    ``columns`` names further options that hold one value per row (``batches=``): in the frame
    form a text there names a column of the frame, read as ``sample_weight=`` is
    (``@rows_form(columns=("batches",))``). The signature, name and docstring stay ``fn``'s
    (``inspect.signature`` shows them).
    """
    if fn is None:
        return functools.partial(rows_form, columns=columns)
    name = fn.__name__
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        if kwargs.get("score") is None and kwargs.get("label") is None:
            labels = args[1] if len(args) > 1 else kwargs.get("labels")
            if labels is None:
                require_labels(name, None)
            # pandas rows on different indexes would be paired by position: refused here, once for all
            check_same_index(scores=args[0] if args else kwargs.get("scores"), labels=labels,
                             sample_weight=kwargs.get("sample_weight"),
                             **{key: kwargs.get(key) for key in columns})
            return fn(*args, **kwargs)
        given = _bound(signature, args, kwargs)
        data, labels = given.pop("scores", None), given.pop("labels", None)
        score, label = given.pop("score", None), given.pop("label", None)
        # values given beside the frame (not column names): a pandas Series on another index than the
        # frame's would be paired by position, as the array form refuses (check_same_index)
        check_same_index(frame=data, **{key: given.get(key) for key in columns})
        named = {key: given.pop(key) for key in columns if isinstance(given.get(key), str)}
        if named:  # column names: the rows' values are read from the frame
            given["columns"] = named
        return rows_call(name, fn, data, labels, score=score, label=label, **given)

    return call


def _bound(signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a call by name, a ``**kwargs`` parameter's entries unpacked beside the named ones
    (``cross_fit(frame, ..., role="calib")`` passes ``role=`` on to each fit, not ``fit_kwargs={...}``)."""
    given = dict(signature.bind(*args, **kwargs).arguments)
    for key, p in signature.parameters.items():
        if p.kind is inspect.Parameter.VAR_KEYWORD and key in given:
            given.update(given.pop(key))
    return given


def _taking_score_type(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` itself, or (when it reads probabilities only and has no ``score_type=``) ``fn`` behind a
    parameter that accepts the reader's ``score_type="probability"`` and refuses any other. A ``fn`` that
    takes ``**kwargs`` (``cross_fit``: its options go to each fit) is given any other ``score_type`` to
    refuse in its own words, the array form's."""
    parameters = inspect.signature(fn).parameters
    if "score_type" in parameters:
        return fn
    passes_on = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())

    def call(*args: Any, score_type: str = "probability", **kwargs: Any) -> T:
        if score_type != "probability" and passes_on:
            return fn(*args, score_type=score_type, **kwargs)
        if score_type != "probability":
            raise VeracityError(f"{fn.__name__} reads probabilities; got score_type={score_type!r}",
                                param="score_type")
        return fn(*args, **kwargs)

    return call
