r"""Calibrators fit on a frame: ``cal.fit(frame, score="p", label="y", sample_weight="w")``.

In-memory frames (pandas, polars, pyarrow) hand their columns to the array fit,
so the result is the array fit's, bit for bit. Lazy frames (DuckDB relations and
files, polars LazyFrames, Dask, Spark) are never collected (small Spark and Dask
frames aside: see below); each fit reads only a handful of sums per step, each step
ONE aggregate query where the data lives, and hands them to the same optimiser the array fit runs:

* **temperature** — safeguarded Newton on :math:`\beta = 1/\tau`
  (:meth:`TemperatureScaling._fit_objective`). Binary, with :math:`z` the logit
  input and :math:`\sigma` the logistic function:

  .. math:: f'(\beta) = -\frac{\sum_i w_i m_i \sigma(-\beta m_i)}{W},\qquad
            f''(\beta) = \frac{\sum_i w_i m_i^2 \sigma(\beta m_i)(1 - \sigma(\beta m_i))}{W}

  with the margins :math:`m_i = (2y_i - 1) z_i` (each row's term on its own: no cancellation when
  a few logits dwarf the rest);

  multiclass (``score=["p0", "p1", ...]``), with :math:`d_{ik} = z_{ik} - \max_k z_{ik}`,
  :math:`S_j = \sum_k e^{\beta d_{ik}} d_{ik}^j`: :math:`f' = \sum w (S_1/S_0 - d_{iy})/W`,
  :math:`f'' = \sum w (S_2/S_0 - (S_1/S_0)^2)/W` — the softmax sums are one aggregate too.
  Both read the array fit's rule for the typical scale
  (:func:`~veracity.calibrators._temperature.typical_scale`, counted in the first query; the median
  nonzero :math:`|d|` is one more pass, read only where the counts cannot place it in [1e-3, 1e3]):
  logits of extreme typical size run Newton on :math:`d/c` and map back, :math:`\tau = c\tau'`; where
  Newton ends on its range, the array fit's second fit on the scale of the rows beyond it runs too (their
  smallest and largest nonzero :math:`|d|`, ``extent()``, also come with the first query);
* **Platt** — damped Newton on :math:`(a, b)` (:func:`~veracity.calibrators._platt.newton_logistic`)
  on the standardised score, as :func:`~veracity.calibrators._platt.logistic_fit`:
  the loss :math:`\sum w[\mathrm{softplus}(a x + b) - t(a x + b)]`, its gradient and
  Hessian are six sums. The range query also reads the median, one more pass the mean, the
  sd and the rows near the median; where rows lie beyond 1e4 median absolute deviations the
  array fit's far-row rule runs on aggregates too (see :func:`_fit_platt`);
* **isotonic** — PAV on the per-distinct-score aggregates (value, Σw, Σw·y): pooling
  equal scores first is exactly what the array fit does, so PAV on the aggregated
  points *is* PAV on the rows (refused above :data:`MAX_DISTINCT` distinct scores);
* **histogram** — per-bin Σw and Σw·y (equal-mass edges from per-distinct-score counts).

On Spark and Dask every aggregate query is a job of its own (~0.1–0.5 s however few the rows), and a
Newton fit takes 6 to 10 of them: there a binary temperature or Platt fit of at most
:data:`READ_ONCE_ROWS` (65,536) kept rows reads its three working columns (score, label, weight;
1.5 MB at most) in ONE query and runs the array fit on them (:func:`_fit_read_once`: three jobs in
all, with the contract's counts and the summary, against 9 to 10; two unweighted, where the contract's
counts ride in the summary's query, :func:`_contract_and_summary`). Larger frames take the aggregate
route above.

A fit that comes out reversed (Platt's slope a < 0, or a binary temperature with no positive optimum)
is called reversed only when the rows' AUC lies below 1/2 beyond noise, as the array fit does: the
Mann–Whitney AUC and its DeLong interval come from two more aggregate queries over the distinct scores
(:func:`frame_association`; only on that warning path), and the rows are never collected.

Beta calibration, Venn–ABERS and vector/matrix scaling need the rows: they refuse
a lazy frame in one line (collect the columns, or pass an in-memory frame).
"""

from __future__ import annotations

import hashlib
import math
import os
from typing import Any

import numpy as np

from ..calibrators._base import register_frame_fit
from ..calibrators._platt import Association, ClassSums, association_from_sums
from ..calibrators._temperature import TYPICAL_HI, TYPICAL_LO, typical_scale
from ..core._frameform import is_database, refuse_answers_as_scores
from ..core._validation import PROB_EPS, VeracityError, check_logit_range
from ..core._weights import in_user_units
from ..sources import _aggregates as agg
from ..sources._api import _Prepared

#: most distinct scores an isotonic fit on a lazy frame brings back
MAX_DISTINCT = 5_000_000
_LAZY_KINDS = ("temperature", "platt", "isotonic", "histogram")
#: the engines where each aggregate query is a job of its own, and the most kept rows whose working
#: columns a temperature or Platt fit there reads in one query (see :func:`_fit_read_once`)
READ_ONCE_BACKENDS = ("pyspark", "dask")
READ_ONCE_ROWS = 65_536


def fit_frame(cal: Any, data: Any, labels: Any = None, *, score: Any, label: Any, sample_weight: Any = None,
              role: Any = None, allow_role: Any = None, metadata: dict[str, Any] | None = None,
              pos_label: Any = None) -> Any:
    """``cal.fit(frame, score=..., label=..., sample_weight=...)`` (see the module doc)."""
    if labels is not None:
        raise VeracityError(f"{cal.name}.fit(frame, score=..., label=...) takes no positional labels")
    if score is None or label is None:
        raise VeracityError(f"the frame form needs both column names: {cal.name}().fit(frame, score='p', label='y')")
    refuse_answers_as_scores(f"{cal.name}.fit", score, label, sample_weight)  # the answers as scores/weights
    if is_database(data):
        raise VeracityError(f"{cal.name}.fit reads a frame, not a database connection: pass the calibration "
                            "rows (con.table('t') on DuckDB, a pandas or polars frame, a Parquet file)",
                            param="scores")
    cal._check_params()
    if isinstance(role, str):  # the role's policy before any row is read, in memory as on a lazy frame (a test
        from ..calibrators._base import check_role  # role refused there, a negative weight first here)

        check_role(cal.name, role, allow_role)
    prep = _Prepared(data, score, label, sample_weight, pos_label=pos_label)  # labels read as 0/1 = [label == pos_label]
    from ..calibrators._base import frame_fit_metadata

    source = {"source_file": prep.frame.source} if prep.frame.source != "frame" else {}
    meta: dict[str, Any] = frame_fit_metadata(list(prep.score), label, pos_label,
                                              {**source, **(metadata or {})})
    if not prep.frame.lazy:
        scores, labels_, weights = prep.arrays()
        try:
            return cal.fit(scores, labels_, sample_weight=weights, role=role, allow_role=allow_role,
                           metadata=meta)
        except VeracityError as exc:
            raise prep.explain(cal.score_type, exc) from None
    try:
        return _fit_lazy(cal, prep, role, allow_role, meta)
    except VeracityError:
        raise
    except Exception as exc:  # a file's read error (found mid-query) must not echo its content
        from ..sources._duckdb import describe_error, is_duckdb_error

        if isinstance(data, (str, os.PathLike)) and is_duckdb_error(exc):
            raise VeracityError(describe_error(exc, os.fspath(data))) from None
        raise


def _fit_lazy(cal: Any, prep: _Prepared, role: Any, allow_role: Any, meta: dict[str, Any]) -> Any:
    """The fit on a lazy frame, from aggregates (see the module doc); the labels are ``prep.y``: the label
    column, or ``[label == pos_label]`` (1.0 or 0.0) where ``pos_label=`` names the positive class."""
    from ..calibrators._base import check_role

    backend = prep.frame.backend
    if cal.kind not in _LAZY_KINDS:
        raise VeracityError(
            f"{cal.name} fits on rows in memory; on a lazy {backend} frame use TemperatureScaling, PlattScaling, "
            "IsotonicCalibration or HistogramBinning, or pass an in-memory frame (collect the needed columns)"
        )
    if prep.multiclass and cal.kind != "temperature":
        raise VeracityError(
            f"{cal.name} on a lazy {backend} frame fits one score column; fit multiclass scores there with "
            "TemperatureScaling, or collect the columns for the one-vs-rest form"
        )
    if cal.score_type == "score":  # the lazy fits read probabilities or logits (issue 22)
        raise VeracityError(
            f"{cal.name}(score_type='score') fits a ranking score on rows in memory; collect the calibration "
            f"rows of the lazy {backend} frame (score and label columns) first", param="score_type")
    if role is not None and not isinstance(role, str):
        raise VeracityError(
            f"with a lazy {backend} frame, role= is one role for every row (a string); "
            "filter the frame to the calibration rows first"
        )
    role_label = check_role(cal.name, role, allow_role)
    prep.require_lazy_support()
    fused = _contract_and_summary(cal, prep)
    counts = prep.check_lazy(cal.score_type) if fused is None else fused[0]
    if prep.multiclass:
        n_rows, n_classes, hash_ = _fit_multiclass_temperature(cal, prep, counts)
    else:
        lf = _kept(prep.working(False), prep.weight is not None)
        summary = _summary(lf, _distinct_of(cal)) if fused is None else fused[1]
        _check_binary(cal, counts, summary)
        if not _fit_read_once(cal, prep, lf, summary):
            {"temperature": _fit_temperature, "platt": _fit_platt, "isotonic": _fit_isotonic,
             "histogram": _fit_histogram}[cal.kind](cal, prep, lf, summary)
        n_rows, n_classes, hash_ = int(summary["n"]), 2, _hash(summary)
    # n_columns: the fit's width, as the array fit records it (a binary column named "p,1" is one column)
    return cal._record_fit(meta, None, n_rows=n_rows, n_classes=n_classes, hash_=hash_,
                           role_label=role_label, allow_role=allow_role, n_columns=len(prep.score))


def _fit_read_once(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> bool:
    r"""A temperature or Platt fit on a Spark or Dask frame of at most :data:`READ_ONCE_ROWS` kept rows:
    its three working columns (score, label, weight: 24 bytes a row, 1.5 MB at most) are read in ONE
    query and fit by the array fit itself (``cal._fit``, the same rows and weights, so the array fit's
    numbers); returns False (nothing read) otherwise. There every aggregate query is a job of its own
    (~0.1–0.5 s on a local Spark, a graph and a compute on Dask), and the Newton steps of the aggregate
    fit take 6 to 10 of them: more than reading so few rows once. The weights come back multiplied by
    ``prep.weight_scale`` (an exact power of two, see :func:`veracity.sources._aggregates.weight_scale`)
    and are divided by it again: exactly the user's weights, as floats."""
    import narwhals as nw

    if (cal.kind not in ("temperature", "platt") or prep.frame.backend not in READ_ONCE_BACKENDS
            or summary["n"] > READ_ONCE_ROWS):
        return False
    t = agg.collect(lf.select(nw.col("_s"), nw.col("_y"), nw.col("_w")))
    s, y, w = (t.get_column(c).to_numpy().astype(np.float64, copy=False) for c in ("_s", "_y", "_w"))
    cal._fit(s, y, w / prep.weight_scale if prep.weight is not None else None)
    return True


# ---------------------------------------------------------------------------------------
# shared checks
# ---------------------------------------------------------------------------------------
def _kept(lf: Any, weighted: bool) -> Any:
    """The rows the fit sees: a row of weight 0 is a dropped row (as in the array fit)."""
    import narwhals as nw

    return lf.filter(nw.col("_w") > 0) if weighted else lf


def _row(lf: Any, **exprs: Any) -> dict[str, Any]:
    """One aggregate query; its single row as ``{name: value}``."""
    row: dict[str, Any] = agg.collect(lf.select(**exprs)).rows(named=True)[0]
    return row


def _aggregate(lf: Any, **spec: tuple[str, Any]) -> dict[str, Any]:
    """One aggregate query, ``name=(fn, expr)`` with fn ``"min"``, ``"max"``, ``"sum"`` or ``"median"``
    (nulls skipped); its row as ``{name: value}``. DuckDB's exact median holds every value in memory
    (past a configured memory limit on a large file): there the median is ``approx_quantile(x, 0.5)``
    (a t-digest in bounded memory). The fits use a median only to place a scale and a cut-off."""
    import narwhals as nw

    x = lf.select(**{f"_a_{k}": e for k, (_, e) in spec.items()})
    if agg.backend_of(lf) != "duckdb":
        return _row(x, **{k: getattr(nw.col(f"_a_{k}"), fn)() for k, (fn, _) in spec.items()})
    sql = {"min": "min({})", "max": "max({})", "sum": "sum({})", "median": "approx_quantile({}, 0.5)"}
    cols = ", ".join(f'{sql[fn].format(f"_a_{k}")} AS "{k}"' for k, (fn, _) in spec.items())
    row = x.to_native().aggregate(cols)
    return dict(zip(spec, row.fetchall()[0]))


#: the summary's sums that fingerprint the fit data (:func:`_hash`)
_FINGERPRINT = ("n", "n_pos", "w", "wy", "wn", "ws", "ws2")


def _distinct_of(cal: Any) -> Any:
    """The values whose distinct count a fit reads before collecting one row per value (isotonic: the
    scores; equal-mass histogram bins: their probabilities), refused beyond :data:`MAX_DISTINCT`; None for
    the other fits."""
    if cal.kind == "isotonic":
        import narwhals as nw

        return nw.col("_s")
    if cal.kind == "histogram" and cal.strategy != "uniform":
        return agg.probability(cal.score_type)
    return None


def _summary(lf: Any, distinct: Any = None) -> dict[str, float]:
    """Rows, positives and the weighted sums of the kept rows (also the fit data's fingerprint); with
    ``distinct`` (an expression, see :func:`_distinct_of`) its number of distinct values too, as
    ``"distinct"``, in the same query (on Spark and Dask a query is a job: an isotonic fit there was four,
    now three)."""
    row: dict[str, Any] = agg.collect(_with_summary(lf, distinct)).rows(named=True)[0]
    return {k: float(v or 0.0) for k, v in row.items()}


def _contract_and_summary(cal: Any, prep: _Prepared) -> tuple[dict[str, Any], dict[str, float]] | None:
    """An unweighted binary fit's input contract (``prep.check_lazy``) and :func:`_summary` in ONE aggregate
    query, both over the working columns as they are (no weight: every row is kept, and the weight scale,
    which the contract's counts decide, is 1): the same sums of the same columns, so the same numbers,
    and on Spark one job fewer a fit (the read-once route: two, not three). The contract is still judged
    first: a broken input gets its own one-line error, whatever the summary's sums read. None (two
    queries, as before) for a weighted or multiclass fit and on Dask (whose contract is one numpy pass per
    partition, :func:`veracity.sources._aggregates.contract_counts`)."""
    if prep.multiclass or prep.weight is not None:
        return None
    lf = prep.working(False)
    if agg.backend_of(lf) == "dask":
        return None
    prep.score_type = cal.score_type
    row = agg.collect(_with_summary(agg.contract_columns(lf, False), _distinct_of(cal),
                                    list(agg.contract_exprs(False))))
    values = {name: row.get_column(name).to_list() for name in row.columns}
    contract = {k: v for k, v in values.items() if k.startswith("_c_")}
    counts = prep.accept(agg.exact_labels(lf, agg.combine_contract(contract, False)))
    return counts, {k: float(v[0] or 0.0) for k, v in values.items() if not k.startswith("_c_")}


def _with_summary(lf: Any, distinct: Any = None, more: list[Any] | None = None) -> Any:
    """The aggregate query of :func:`_summary` over ``lf`` (with ``more`` aggregates in the same query)."""
    import narwhals as nw

    s, y, w = nw.col("_s"), nw.col("_y"), nw.col("_w")
    x = lf.with_columns(_one=nw.lit(1, nw.Int64), _ws=w * s, _ws2=w * s * s, _wy=w * y, _wn=w * (1.0 - y))
    extra = {} if distinct is None else {"distinct": distinct.n_unique()}
    return x.select(*(more or []), n=nw.col("_one").sum(), n_pos=nw.col("_y").sum(), w=nw.col("_w").sum(),
                    wy=nw.col("_wy").sum(), wn=nw.col("_wn").sum(), ws=nw.col("_ws").sum(),
                    ws2=nw.col("_ws2").sum(), **extra)


def _hash(summary: dict[str, float]) -> str:
    """For a lazy frame: SHA-256 (32 hex digits) of its aggregate fingerprint (12 significant digits)."""
    text = ";".join(f"{k}={summary[k]:.12g}" for k in sorted(summary) if k in _FINGERPRINT)
    return hashlib.sha256(("aggregate:" + text).encode()).hexdigest()[:32]


def aggregate_hash(scores: Any, labels: Any, sample_weight: Any = None) -> str:
    r"""The ``data_hash`` a binary fit on a lazy frame records (:func:`_summary`, :func:`_hash`), of rows
    held as arrays: the score column as stored (a logit as it is, not its probability), 0/1 labels and the
    weights, rows of weight 0 dropped. The fingerprint is over

    .. math:: n,\ \textstyle\sum y,\ \sum w,\ \sum w y,\ \sum w (1 - y),\ \sum w s,\ \sum w s^2

    with the weights times the power of two every route rescales them by
    (:func:`veracity.core._weights.weight_exponent`), each written to 12 significant digits. An array fit
    records a hash of the rows' bytes instead (:func:`veracity.calibrators._base.data_hash`), which a lazy
    frame cannot compute; a caller asking "were these the fit's rows?" compares both."""
    from ..core._weights import rescale_exponent

    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=np.float64).ravel()
    if sample_weight is None:
        w = np.ones(s.size)
    else:
        w = np.asarray(sample_weight, dtype=np.float64).ravel()
        keep = w > 0
        s, y, w = s[keep], y[keep], w[keep]
        if w.size:
            w = np.ldexp(w, rescale_exponent(w))
    return _hash({"n": float(s.size), "n_pos": float(y.sum()), "w": float(w.sum()),
                  "wy": float((w * y).sum()), "wn": float((w * (1.0 - y)).sum()),
                  "ws": float((w * s).sum()), "ws2": float((w * s * s).sum())})


def _check_binary(cal: Any, counts: dict[str, Any], summary: dict[str, float]) -> None:
    """The array fit's checks beyond the input contract: logit scale, both classes present."""
    if cal.score_type == "logit":
        check_logit_range(float(counts["s_min"]), float(counts["s_max"]), int(counts["n"]))
    n, n_pos = int(summary["n"]), int(summary["n_pos"])
    if n_pos == 0 or n_pos == n:
        only = "1" if n_pos == n else "0"
        raise VeracityError(
            f"{cal.name} needs both classes in the fit data; all {n} labels are "
            f"{only}. Fit on a calibration split that holds positives and negatives"
        )


def _logit_input(score_type: str) -> Any:
    r"""The calibrators' logit input: the score itself, or :math:`\log q - \log(1-q)`, q clipped."""
    import narwhals as nw

    s = nw.col("_s")
    if score_type == "logit":
        return s
    q = s.clip(lower_bound=PROB_EPS, upper_bound=1.0 - PROB_EPS)
    return q.log() - (1.0 - q).log()


def _sigmoid(x: Any) -> Any:
    r"""The logistic function, overflow-free on both sides: :math:`e^{\min(x, 0)}/(1 + e^{-|x|})`, which is
    :math:`1/(1 + e^{-x})` for :math:`x \ge 0` and :math:`e^x/(1 + e^x)` below, to the bit. No exp of a large
    positive number is formed on either side (a ``when``/``otherwise`` evaluates both branches on Dask:
    logits of 1e100 warned of overflow there)."""
    return x.clip(upper_bound=0.0).exp() / (1.0 + (-(x.abs())).exp())


def _softplus(x: Any) -> Any:
    r""":math:`\mathrm{softplus}(x) = \max(x, 0) + \log(1 + e^{-|x|})`, the logarithm as ``log1p``: with
    :math:`e = e^{-|x|}` and :math:`u = 1 + e` (rounded), :math:`\log u - ((u - 1) - e)/u`, which corrects the
    rounding of :math:`u` to first order (:math:`e` itself where :math:`u` rounds to 1). The plain
    :math:`\log(1 + e)` was 0 for :math:`|x| > 37`, where the array fit's ``log1p`` still reads
    :math:`e^{-|x|}`: a separated fit's loss fell to 0, and its line search accepted every step."""
    e = (-(x.abs())).exp()
    u = 1.0 + e
    return x.clip(lower_bound=0.0) + (u.log() - ((u - 1.0) - e) / u)


# ---------------------------------------------------------------------------------------
# the scores' association with the labels (a reversed fit's words)
# ---------------------------------------------------------------------------------------
def frame_association(lf: Any, weighted: bool, level: float = 0.95) -> Association:
    r"""The :class:`~veracity.calibrators._platt.Association` of ``_x`` with the 0/1 labels ``_y`` (weights
    ``_w``, read only when ``weighted``) of a lazy frame's kept rows: what
    :func:`~veracity.calibrators._platt.association` gives on the same rows, from sums over the distinct
    scores (two aggregate queries; a handful of numbers collected).

    Per distinct score k in ascending order, with :math:`P_k`, :math:`N_k` the positives' and negatives'
    weight (unweighted: counts) there and :math:`C^N_k = \sum_{j \le k} N_j`, :math:`C^P_k` alike (a window
    sum in the engine), the DeLong placements are :math:`V_{10}(k) = (C^N_k - N_k/2)/W_0` for a positive and
    :math:`V_{01}(k) = (W_1 - C^P_k + P_k/2)/W_1` for a negative (:mod:`veracity.core._delong`), and

    .. math:: \hat A = \frac{\sum_k P_k (2 C^N_k - N_k)}{2 W_1 W_0},\qquad
              S_1 = \sum_k Q^1_k (V_{10}(k) - \hat A)^2,\qquad S_0 = \sum_k Q^0_k (V_{01}(k) - \hat A)^2

    with :math:`Q^c_k` the class's :math:`\sum w^2` at score k (unweighted: its rows); unweighted the first is
    exact (integer counts below :math:`2^{53}`), as the array AUC. The first query gives :math:`\hat A`
    and each class's rows, :math:`\sum w`, :math:`\sum w^2`, :math:`\sum w^3`; the second the spreads about
    :math:`\hat A` (centred, as the array fit sums them);
    :func:`~veracity.calibrators._platt.association_from_sums` does the rest."""
    import narwhals as nw

    y, w = nw.col("_y"), nw.col("_w")
    one = nw.lit(1.0, nw.Float64)
    rows = lf.select(_x=nw.col("_x") + 0.0, _p=(w * y) if weighted else y, _n=(w * (1.0 - y)) if weighted
                     else one - y, _c1=y, _c0=one - y, _q1=w * w * y, _q0=w * w * (1.0 - y),
                     _r1=w * w * w * y, _r0=w * w * w * (1.0 - y))  # + 0.0: -0.0 is 0.0
    names = ("_p", "_n", "_c1", "_c0", "_q1", "_q0", "_r1", "_r0")
    levels = rows.group_by("_x").agg(*[nw.col(c).sum() for c in names]).with_columns(
        _cn=nw.col("_n").cum_sum().over(order_by="_x"), _cp=nw.col("_p").cum_sum().over(order_by="_x"))
    first = _row(levels.with_columns(_u=nw.col("_p") * (2.0 * nw.col("_cn") - nw.col("_n")), _k=one),
                 u=nw.col("_u").sum(), k=nw.col("_k").sum(),
                 **{c[1:]: nw.col(c).sum() for c in names})
    s = {k: float(v or 0.0) for k, v in first.items()}
    w1, w0 = s["p"], s["n"]
    auc = s["u"] / (2.0 * w1 * w0)
    # the placements' spread about the AUC, per class (unweighted Q is the class's rows at the level)
    v10 = (nw.col("_cn") - 0.5 * nw.col("_n")) / w0
    v01 = (w1 - nw.col("_cp") + 0.5 * nw.col("_p")) / w1
    q1, q0 = (nw.col("_q1"), nw.col("_q0")) if weighted else (nw.col("_c1"), nw.col("_c0"))
    second = _row(levels.with_columns(_s1=q1 * (v10 - auc) ** 2, _s0=q0 * (v01 - auc) ** 2),
                  s1=nw.col("_s1").sum(), s0=nw.col("_s0").sum())
    n1, n0 = int(round(s["c1"])), int(round(s["c0"]))
    pos = ClassSums(n1, w1 if weighted else float(n1), s["q1"] if weighted else float(n1),
                    s["r1"] if weighted else None, float(second["s1"] or 0.0))
    neg = ClassSums(n0, w0 if weighted else float(n0), s["q0"] if weighted else float(n0),
                    s["r0"] if weighted else None, float(second["s0"] or 0.0))
    return association_from_sums(auc, pos, neg, one_level=s["k"] <= 1.0, level=level)


# ---------------------------------------------------------------------------------------
# temperature
# ---------------------------------------------------------------------------------------
def _scale_counts(d: list[Any]) -> dict[str, tuple[str, Any]]:
    r"""The aggregates :func:`~veracity.calibrators._temperature.typical_scale` reads, over every entry of
    the columns ``d`` (binary: the logit; multiclass: :math:`d_k = z_k - \max_k z`): how many are nonzero,
    how many of those lie below ``TYPICAL_LO`` and above ``TYPICAL_HI``, the largest :math:`|d|`, and the
    smallest nonzero one (for :func:`_extent`; ∞ when every entry is 0)."""
    import narwhals as nw

    def count(cond: Any) -> Any:
        return nw.when(cond).then(nw.lit(1, nw.Int64)).otherwise(nw.lit(0, nw.Int64))

    def per_row(cond: Any) -> Any:
        return nw.sum_horizontal(*[cond(x) for x in d]) if len(d) > 1 else cond(d[0])

    nonzero = [nw.when(x != 0.0).then(x.abs()).otherwise(nw.lit(math.inf, nw.Float64)) for x in d]
    return {"nz": ("sum", per_row(lambda x: count(x != 0.0))),
            "small": ("sum", per_row(lambda x: count((x != 0.0) & (x.abs() < TYPICAL_LO)))),
            "large": ("sum", per_row(lambda x: count(x.abs() > TYPICAL_HI))),
            "top": ("max", nw.max_horizontal(*[x.abs() for x in d]) if len(d) > 1 else d[0].abs()),
            "low": ("min", nw.min_horizontal(*nonzero) if len(d) > 1 else nonzero[0])}


def _counts_of(row: dict[str, Any]) -> tuple[int, int, int, float]:
    """``typical_scale``'s first four arguments from a row of :func:`_scale_counts`."""
    return int(row["nz"] or 0), int(row["small"] or 0), int(row["large"] or 0), float(row["top"] or 0.0)


def _extent(row: dict[str, Any]) -> tuple[float, float]:
    """(smallest, largest) nonzero :math:`|d|` from a row of :func:`_scale_counts`; (1, 1) when every entry is
    0, as the array objectives' ``extent``."""
    low, top = float(row["low"] if row["low"] is not None else math.inf), float(row["top"] or 0.0)
    return (low, top) if 0.0 < low < math.inf and top > 0.0 else (1.0, 1.0)


class FrameBinaryObjective:
    r"""The binary temperature objective f(β) = Σ w softplus(−βm) / W on a lazy frame (margins m = y±·z).

    Each call is one aggregate query: ``derivs`` returns (f', f'') from two sums,
    ``nll_many`` the NLL at several β from one sum each. As in the array objective the
    derivatives are summed per margin, :math:`f'(\beta) = -\sum w\,m\,\sigma(-\beta m)/W`,
    :math:`f''(\beta) = \sum w\,m^2\sigma(\beta m)(1-\sigma(\beta m))/W` (each product formed
    so that a saturated row gives 0, not ∞·0): :math:`\sum w z \sigma(\beta z) - \sum w z y`
    cancelled to 0 when two correctly labelled logits of ±1e10 … ±1e308 joined both sums.
    The first query also counts what :meth:`scale` needs (see :meth:`rescaled`).
    """

    def __init__(self, lf: Any, score_type: str, summary: dict[str, float], weighted: bool = False) -> None:
        import narwhals as nw

        self.weighted = weighted
        z = _logit_input(score_type)
        self.lf = lf.select(_z=z, _m=(2.0 * nw.col("_y") - 1.0) * z, _w=nw.col("_w"), _y=nw.col("_y"))
        zc, w = nw.col("_z"), nw.col("_w")
        self.total = summary["w"]
        self.rate = summary["wy"] / self.total if self.total > 0.0 else 0.0
        # what centre() reads, in the same pass: Σ w z, Σ w z (y − ȳ) (the sign of cov_w(z, y)), min z, max z
        row = _aggregate(self.lf, margin=("min", nw.col("_m")), wz=("sum", w * zc),
                         cov=("sum", w * zc * (nw.col("_y") - self.rate)), zmin=("min", zc), zmax=("max", zc),
                         **_scale_counts([zc]))
        self.min_margin = float(row["margin"])
        self.queries = 1
        self.counts = _counts_of(row)
        self._extent, self.c = _extent(row), 1.0
        self._centre = (float(row["cov"] or 0.0), float(row["wz"] or 0.0),
                        float(row["zmin"] or 0.0) == float(row["zmax"] or 0.0))

    def centre(self) -> tuple[float, bool, float, float]:
        r"""What the off-centre warning of ``TemperatureScaling`` reads (the array objective's rows give
        it there): :math:`\sum w z (y - \bar y)` (its sign is that of :math:`\mathrm{cov}_w(z, y)`), whether
        every logit is equal, the mean logit :math:`\sum w z / W` and the positive rate :math:`\bar y`, on the
        logits' own scale. Counted with the first query; where a sum of logits near max-float overflows,
        one more pass sums :math:`z / \max|z|` instead."""
        import narwhals as nw

        cov, wz, equal = self._centre
        if equal:  # Σ w z (y − ȳ) = z Σ w (y − ȳ) = 0, whatever ȳ's rounding leaves of it
            cov = 0.0
        if not (math.isfinite(cov) and math.isfinite(wz)):
            top = self.counts[3]
            zc, w = nw.col("_z") / (top / self.c), nw.col("_w")   # the raw logits over their largest
            row = _aggregate(self.lf, wz=("sum", w * zc), cov=("sum", w * zc * (nw.col("_y") - self.rate)))
            self.queries += 1
            cov, wz = float(row["cov"] or 0.0), float(row["wz"] or 0.0)
            with np.errstate(over="ignore"):
                wz = float(np.float64(wz) / self.total * top)
            return cov, equal, wz, self.rate
        return cov, equal, wz / self.total, self.rate

    def scale(self) -> float:
        """:func:`~veracity.calibrators._temperature.typical_scale` of z: the counts came with the first
        query; the median nonzero :math:`|z|` is one more pass, read only where they cannot place it in
        range."""
        import narwhals as nw

        def median() -> float:
            self.queries += 1
            return float(_aggregate(self.lf, med=("median", nw.when(nw.col("_z") != 0.0)
                                                  .then(nw.col("_z").abs())))["med"])

        return typical_scale(*self.counts, median)

    def rescaled(self, c: float) -> FrameBinaryObjective:
        """The objective of the logits z / c (no query): Newton's β on a typical scale of 1."""
        import narwhals as nw

        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.lf = self.lf.with_columns(_z=nw.col("_z") / c, _m=nw.col("_m") / c)
        other.c = self.c * c
        return other

    def extent(self) -> tuple[float, float]:
        """Smallest and largest nonzero :math:`|z|` of this objective's logits (those of the first query over
        the scale :meth:`rescaled` divided by; no query), as the array objective's ``extent``."""
        return self._extent[0] / self.c, self._extent[1] / self.c

    def derivs(self, beta: float) -> tuple[float, float]:
        import narwhals as nw

        m, w = nw.col("_m"), nw.col("_w")
        x = self.lf.with_columns(_p=_sigmoid(m * (-beta))).with_columns(   # σ(−βm) = 1 − σ(βm)
            _g=w * m * nw.col("_p"), _h=nw.col("_p") * (1.0 - nw.col("_p")) * m * (w * m))
        row = _row(x, g=nw.col("_g").sum(), h=nw.col("_h").sum())
        self.queries += 1
        return -float(row["g"]) / self.total, float(row["h"]) / self.total

    def nll_many(self, betas: tuple[float, ...]) -> list[float]:
        import narwhals as nw

        m = nw.col("_m")
        x = self.lf.with_columns(**{f"_f{i}": nw.col("_w") * _softplus(m * (-b)) for i, b in enumerate(betas)})
        row = _row(x, **{f"f{i}": nw.col(f"_f{i}").sum() for i in range(len(betas))})
        self.queries += 1
        return [float(row[f"f{i}"]) / self.total for i in range(len(betas))]

    def nll(self, beta: float) -> float:
        return self.nll_many((beta,))[0]

    def separated(self) -> bool:
        return self.min_margin >= 0.0

    def subsample(self) -> None:  # no cheap strided subsample of a lazy frame: start at β = 1
        return None

    def association(self) -> Association:
        """The logits' :func:`frame_association` with the labels (what the array objective's rows give
        ``calibrators._platt.association``): read only where a clamped fit's words need it."""
        import narwhals as nw

        self.queries += 2
        rows = self.lf.select(_x=nw.col("_z"), _y=nw.col("_y"), _w=nw.col("_w"))
        return frame_association(rows, self.weighted)


class FrameMulticlassObjective:
    r"""The multiclass objective f(β) = Σ w [log Σ_k e^{β d_k} − β d_y] / W, d = z − max z.

    ``derivs`` is one aggregate (f, f', f'' together; ``last`` keeps them as the
    array objective does). The first query also counts, over every :math:`d_{ik}`, what
    :meth:`scale` needs; :meth:`rescaled` gives the objective of :math:`d/c`, formed as
    :func:`~veracity.calibrators._temperature.scaled_differences` does.
    """

    def __init__(self, prep: _Prepared, score_type: str) -> None:
        import narwhals as nw

        f = prep.frame
        schema = f.nw.collect_schema()
        cols = [agg.as_float(f.ref(c), schema) for c in prep.score]
        if score_type != "logit":
            cols = [c.clip(lower_bound=PROB_EPS, upper_bound=1.0).log() for c in cols]
        self.k = len(cols)
        y = agg.as_float(f.ref(prep.label), schema)
        w = (agg.as_float(f.ref(prep.weight), schema) * prep.weight_scale if prep.weight
             else nw.lit(1.0, nw.Float64))
        self._source = (f.nw, cols, y, w, prep.weight is not None)
        self.lf = self._select(1.0)
        d = [nw.col(f"_d{i}") for i in range(self.k)]
        counts = {k: getattr(e, fn)() for k, (fn, e) in _scale_counts(d).items()}
        row = _row(self.lf.with_columns(_one=nw.lit(1, nw.Int64)), n=nw.col("_one").sum(),
                   total=nw.col("_w").sum(), dy=nw.col("_dy").min(), classes=nw.col("_y").n_unique(),
                   y0=nw.col("_y").min(), lo=nw.col("_lo").min(), hi=nw.col("_hi").max(), **counts)
        self.counts = _counts_of(row)
        self._extent, self.c = _extent(row), 1.0
        self.summary = {k: float(row[k]) for k in ("n", "total", "dy", "classes", "y0", "lo", "hi")}
        self.total = self.summary["w"] = self.summary["total"]
        self.last: tuple[float, float, float, float] | None = None
        self.queries = 1
        self._nll: dict[float, float] = {}  # f(β) that derivs read, by β (see nll)

    def _select(self, c: float) -> Any:
        r"""The kept rows' :math:`d_k/c` (``_d0``, ``_d1``, …), :math:`d_y/c`, label, weight, row min and
        max; at :math:`c \ne 1` as :math:`(z_k/2 - \max z/2)/(c/2)`, finite for any finite logits."""
        import narwhals as nw

        frame, cols, y, w, weighted = self._source
        top = nw.max_horizontal(*cols)
        if c == 1.0:
            d = [col - top for col in cols]
        else:
            d = [(col * 0.5 - top * 0.5) / (0.5 * c) for col in cols]
        dy = nw.sum_horizontal(*[nw.when(y == float(i)).then(di).otherwise(nw.lit(0.0))
                                 for i, di in enumerate(d)])
        lf = frame.select(*[di.alias(f"_d{i}") for i, di in enumerate(d)], dy.alias("_dy"), y.alias("_y"),
                          w.alias("_w"), nw.min_horizontal(*cols).alias("_lo"), top.alias("_hi"))
        return _kept(lf, weighted)

    def scale(self) -> float:
        """:func:`~veracity.calibrators._temperature.typical_scale` of every :math:`d_{ik}`: the counts came
        with the first query; the median nonzero :math:`|d|` (over all K columns) is one more pass, read only
        where the counts cannot place it in range."""
        import narwhals as nw

        def median() -> float:
            self.queries += 1
            cells = nw.concat([self.lf.select(_a=nw.when(nw.col(f"_d{i}") != 0.0).then(-nw.col(f"_d{i}")))
                               for i in range(self.k)], how="vertical")  # |d| = -d
            return float(_aggregate(cells, med=("median", nw.col("_a")))["med"])

        return typical_scale(*self.counts, median)

    def rescaled(self, c: float) -> FrameMulticlassObjective:
        """The objective of :math:`d/c` (no query): Newton's β on a typical scale of 1."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.lf = self._select(c)
        other.last, other.c, other._nll = None, c, {}
        return other

    def extent(self) -> tuple[float, float]:
        """Smallest and largest nonzero :math:`|d|` of this objective's :math:`d/c` (counted in the first
        query; no query), as the array objective's ``extent``."""
        return self._extent[0] / self.c, self._extent[1] / self.c

    def derivs(self, beta: float) -> tuple[float, float]:
        import narwhals as nw

        d = [nw.col(f"_d{i}") for i in range(self.k)]
        e = [(di * beta).exp() for di in d]
        s0 = nw.sum_horizontal(*e)
        s1 = nw.sum_horizontal(*[ei * di for ei, di in zip(e, d)])
        s2 = nw.sum_horizontal(*[ei * di * di for ei, di in zip(e, d)])
        x = self.lf.with_columns(_s0=s0, _s1=s1, _s2=s2).with_columns(_mean=nw.col("_s1") / nw.col("_s0"))
        w, dy, mean = nw.col("_w"), nw.col("_dy"), nw.col("_mean")
        x = x.with_columns(_g=w * (mean - dy), _h=w * (nw.col("_s2") / nw.col("_s0") - mean * mean),
                           _f=w * (nw.col("_s0").log() - dy * beta))
        row = _row(x, g=nw.col("_g").sum(), h=nw.col("_h").sum(), f=nw.col("_f").sum())
        self.queries += 1
        g, h, fv = (float(row[k]) / self.total for k in ("g", "h", "f"))
        self.last = (beta, fv, g, h)
        self._nll[beta] = fv
        return g, h

    def nll(self, beta: float) -> float:
        r"""f(β): where :meth:`derivs` ran at this β (Newton's first step at β = 1: ``nll_before_``) its f,
        the same sum of the same terms :math:`w(\log S_0 - \beta d_y)`, with no query of its own."""
        import narwhals as nw

        if beta in self._nll:
            return self._nll[beta]
        e = [(nw.col(f"_d{i}") * beta).exp() for i in range(self.k)]
        x = self.lf.with_columns(_f=nw.col("_w") * (nw.sum_horizontal(*e).log() - nw.col("_dy") * beta))
        self.queries += 1
        return float(_row(x, f=nw.col("_f").sum())["f"]) / self.total

    def separated(self) -> bool:
        return self.summary["dy"] >= 0.0

    def subsample(self) -> None:
        return None


def _fit_temperature(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> None:
    r"""As ``TemperatureScaling._fit``, through the same :meth:`TemperatureScaling._fit_scaled`: logits of
    extreme typical magnitude run Newton on :math:`z/c` and map back, :math:`\tau = c\tau'`."""
    obj = FrameBinaryObjective(lf, cal.score_type, summary, weighted=prep.weight is not None)
    cal._fit_scaled(obj.scale, lambda c: obj if c == 1.0 else obj.rescaled(c))


def _fit_multiclass_temperature(cal: Any, prep: _Prepared, counts: dict[str, Any]) -> tuple[int, int, str]:
    obj = FrameMulticlassObjective(prep, cal.score_type)
    s = obj.summary
    n = int(s["n"])
    if cal.score_type == "logit":
        check_logit_range(s["lo"], s["hi"], n * obj.k)
    if int(s["classes"]) < 2:
        raise VeracityError(
            f"{cal.name} needs at least 2 classes in the fit data; all {n} labels are "
            f"{int(s['y0'])}. Fit on a calibration split that holds several classes"
        )
    cal._fit_scaled(obj.scale, lambda c: obj if c == 1.0 else obj.rescaled(c))
    return n, obj.k, _hash(s)


# ---------------------------------------------------------------------------------------
# Platt, isotonic, histogram
# ---------------------------------------------------------------------------------------
def _fit_platt(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> None:
    r"""As ``PlattScaling._fit`` (:func:`~veracity.calibrators._platt.logistic_fit`): damped Newton on
    :math:`u = (x - \bar x)/\mathrm{sd}(x)`, :math:`(a, b)` mapped back to the original scale.

    When some rows lie beyond ``_FAR`` (1e4) median absolute deviations of the median (two logits
    of ±1e10 among logits of order 1), the rows within fit alone; if the far rows' gradient at that
    fit asks for no Newton step (:func:`_far_rows_move_nothing`: they lie on the right side, loss 0 to
    the last bit) it is the answer, otherwise the converged fit of lower loss among a fit of every row on the
    median/MAD scale (started there) and the standard fit wins. The median rides on the range
    query; one extra pass reads the mean and sd and counts the rows near the median, and only
    where that count leaves room for far rows does a third pass read the MAD.
    """
    import narwhals as nw

    from ..calibrators._platt import _FAR, smoothed_targets, warn_weights_not_counts

    target = nw.col("_y")
    t_pos, t_neg = 1.0, 0.0
    if cal.smoothing:
        # N+ and N- are row counts (a weight of k is k rows), in the caller's weight units: the sums of the
        # weights times prep.weight_scale = 2^k divided by it again (as the array fit divides by _weight_unit;
        # one extra row of weight 1e-150 among weights of 1 raised them by 2^19: the slope 1.312 for 0.971)
        n_pos = in_user_units(summary["wy"], prep.weight_scale)
        n_neg = in_user_units(summary["wn"], prep.weight_scale)
        t_pos, t_neg = smoothed_targets(n_pos, n_neg)
        if prep.weight is not None:
            warn_weights_not_counts(int(summary["n"]), summary["n_pos"], n_pos, n_neg, t_pos, t_neg)
        target = nw.when(nw.col("_y") == 1.0).then(nw.lit(t_pos)).otherwise(nw.lit(t_neg))
    work = lf.select(_x=_logit_input(cal.score_type), _t=target, _w=nw.col("_w"))
    side: str | None = None

    def set_fit(theta: np.ndarray, n_iter: int, ok: bool) -> None:
        # a negative slope is told apart from noise by the rows' AUC, as in the array fit (only then)
        assoc = None
        if theta[0] < 0 and cal.on_reversed != "allow":
            rows = lf.select(_x=_logit_input(cal.score_type), _y=nw.col("_y"), _w=nw.col("_w"))
            assoc = frame_association(rows, prep.weight is not None)
        cal._set_fit(theta, n_iter, ok, separated=side, assoc=assoc)

    xc = nw.col("_x")
    pos = nw.col("_t") == 1.0
    span = _aggregate(work, lo=("min", xc), hi=("max", xc), med=("median", xc),
                      lo_pos=("min", nw.when(pos).then(xc)), hi_pos=("max", nw.when(pos).then(xc)),
                      lo_neg=("min", nw.when(~pos).then(xc)), hi_neg=("max", nw.when(~pos).then(xc)))
    lo, hi, med = float(span["lo"]), float(span["hi"]), float(span["med"])
    # the array fit's separation check (calibrators._platt.separation) from each class's score range
    if not cal.smoothing and lo != hi:
        if float(span["hi_neg"]) <= float(span["lo_pos"]):
            side = "up"
        elif float(span["hi_pos"]) <= float(span["lo_neg"]):
            side = "down"
    if lo == hi:
        # one score: the Hessian is singular and Newton would stop at any (a, b) with a·x + b = logit of the
        # base rate; the array fit's answer is a = 0 (the score says nothing), b = logit(Σwt / Σw)
        rate = (t_pos * summary["wy"] + t_neg * summary["wn"]) / summary["w"]
        cal._set_fit(np.array([0.0, math.log(rate) - math.log1p(-rate)]), 0, True)
        return
    top = max(hi - med, med - lo)                     # max |x − med|
    # mean and sd of x from Σu, Σu², u = (x − mid)/half in [−1, 1] (the range's midpoint, half-width):
    # no overflow, and nothing that depends on the (approximate) median
    mid, half = 0.5 * lo + 0.5 * hi, 0.5 * hi - 0.5 * lo
    u = (xc - mid) / half
    # MAD < top / _FAR (some row is far) needs at least half the rows within top / _FAR of the median:
    # counted in the same pass, so that the MAD's own (holistic) median runs only where it may
    close = nw.when((xc - med).abs() < top / _FAR).then(nw.lit(1, nw.Int64)).otherwise(nw.lit(0, nw.Int64))
    row = _aggregate(work, su=("sum", u), su2=("sum", u * u), close=("sum", close))
    centre, scale = _mean_sd(float(row["su"]), float(row["su2"]), summary["n"], mid, half)
    if 2 * int(row["close"] or 0) < summary["n"] or not math.isfinite(top):
        set_fit(*_frame_newton(work, centre, scale, None))
        return
    mad = float(_aggregate(work, mad=("median", (xc - med).abs()))["mad"] or 0.0)
    far_cut = _FAR * mad
    if not (mad > 0.0 and math.isfinite(mad) and math.isfinite(top)) or top <= far_cut:
        set_fit(*_frame_newton(work, centre, scale, None))
        return
    near = work.filter((xc - med).abs() <= far_cut)
    nrow = _row(near.with_columns(_one=nw.lit(1, nw.Int64), _u=(xc - med) / far_cut)
                .with_columns(_u2=nw.col("_u") ** 2, _wt=nw.col("_w") * nw.col("_t"),
                              _wf=nw.col("_w") * (1.0 - nw.col("_t"))),
                n=nw.col("_one").sum(), su=nw.col("_u").sum(), su2=nw.col("_u2").sum(),
                pos=nw.col("_wt").sum(), neg=nw.col("_wf").sum())
    if not (float(nrow["pos"] or 0.0) > 0.0 and float(nrow["neg"] or 0.0) > 0.0):
        set_fit(*_frame_newton(work, centre, scale, None))
        return
    n_centre, n_scale = _mean_sd(float(nrow["su"]), float(nrow["su2"]), float(nrow["n"]), med, far_cut)
    near_fit = _frame_newton(near, n_centre, n_scale, None)
    if not near_fit[2]:
        set_fit(*_frame_newton(work, centre, scale, None))
        return
    if _far_rows_move_nothing(work, near_fit[0], n_centre, n_scale, med, far_cut):
        set_fit(*near_fit)
        return
    robust_fit = _frame_newton(work, med, max(mad, top / 1e150), near_fit[0])
    std_fit = _frame_newton(work, centre, scale, None)
    fits = [f for f in (robust_fit, std_fit) if f[2]] or [std_fit]
    set_fit(*min(fits, key=lambda f: _frame_loss(work, f[0])))



def _mean_sd(su: float, su2: float, n: float, origin: float, unit: float) -> tuple[float, float]:
    r"""Mean and (population) standard deviation of x from :math:`\sum u`, :math:`\sum u^2`,
    :math:`u = (x - \text{origin})/\text{unit}`; a zero or non-finite deviation reads 1 (as in the
    array fit)."""
    mu = su / n
    sd = math.sqrt(max(su2 / n - mu * mu, 0.0)) * unit
    centre = origin + mu * unit
    if not (math.isfinite(sd) and sd > 0.0):
        sd = 1.0
    return (centre if math.isfinite(centre) else origin), sd


def _frame_newton(work: Any, centre: float, scale: float, theta0: np.ndarray | None,
                  tol: float = 1e-10) -> tuple[np.ndarray, int, bool]:
    r"""``calibrators._platt._scaled_fit`` on a frame: damped Newton
    (:func:`~veracity.calibrators._platt.newton_logistic`) on :math:`u = (x - c)/s`, each step one
    aggregate of :math:`\sum w[\mathrm{softplus}(z) - tz]`, :math:`\sum w(p - t)(u, 1)`,
    :math:`\sum w p(1-p)(u, 1)(u, 1)^\top`; ``theta`` in and out on the original scale."""
    import narwhals as nw

    from ..calibrators._platt import newton_logistic

    frame = work.with_columns(_u=(nw.col("_x") - centre) / scale)

    uc, t, w, zc, pc = nw.col("_u"), nw.col("_t"), nw.col("_w"), nw.col("_z"), nw.col("_p")
    res, qc = w * (pc - t), w * pc * (1.0 - pc)
    # the sums of one step, over the columns _z (the linear predictor) and _p = σ(_z): built once, so a
    # step builds one projection and one aggregate (four projections and an aggregate were rebuilt and
    # bound per step: 30-60 ms of each step on DuckDB, where the query itself takes a few)
    sums = {"l": (w * (_softplus(zc) - t * zc)).sum(), "rx": (res * uc).sum(), "r": res.sum(),
            "qxx": (qc * uc * uc).sum(), "qx": (qc * uc).sum(), "q": qc.sum()}

    def loss_grad_hess(theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        z = uc * float(theta[0]) + float(theta[1])
        r = _row(frame.with_columns(_z=z, _p=_sigmoid(z)), **sums)
        g = np.array([float(r["rx"]), float(r["r"])])
        H = np.array([[float(r["qxx"]), float(r["qx"])], [float(r["qx"]), float(r["q"])]])
        return float(r["l"]), g, H

    def losses(thetas: list[np.ndarray]) -> list[float]:  # a few trial points' losses: one query
        zs = [uc * float(th[0]) + float(th[1]) for th in thetas]
        r = _row(frame, **{f"l{i}": (w * (_softplus(z) - t * z)).sum() for i, z in enumerate(zs)})
        return [float(r[f"l{i}"]) for i in range(len(zs))]

    start = None if theta0 is None else np.array([theta0[0] * scale, theta0[1] + theta0[0] * centre])
    th, n_iter, ok = newton_logistic(loss_grad_hess, 1, theta0=start, tol=tol, losses=losses)
    a = th[0] / scale
    return np.array([a, th[1] - a * centre]), n_iter, ok


def _far_rows_move_nothing(work: Any, theta: np.ndarray, centre: float, scale: float, med: float,
                           far_cut: float, tol: float = 1e-10) -> bool:
    r"""``calibrators._platt._far_rows_move_nothing`` on a frame: one aggregate of the far rows'
    gradient :math:`g = \sum_\text{far} w r (u, 1)` and the near rows' Hessian
    :math:`H = \sum_\text{near} w p(1-p)(u, 1)(u, 1)^\top` at ``theta``, in the near rows'
    standardised coordinates :math:`u = (x - c)/s`, the residual :math:`r = (1-t)\sigma(z) - t\sigma(-z)`
    formed without cancellation; then :func:`veracity.calibrators._platt.negligible_step`."""
    import narwhals as nw

    from ..calibrators._platt import negligible_step

    th = np.array([theta[0] * scale, theta[1] + theta[0] * centre])
    u, t, w = nw.col("_u"), nw.col("_t"), nw.col("_w")
    x = work.with_columns(_u=(nw.col("_x") - centre) / scale,
                          _far=(nw.col("_x") - med).abs() > far_cut).with_columns(
        _z=u * float(th[0]) + float(th[1])).with_columns(
        _p=_sigmoid(nw.col("_z")), _pm=_sigmoid(-nw.col("_z"))).with_columns(
        _r=nw.when(nw.col("_far")).then(w * ((1.0 - t) * nw.col("_p") - t * nw.col("_pm"))).otherwise(0.0),
        _q=nw.when(nw.col("_far")).then(0.0).otherwise(w * nw.col("_p") * (1.0 - nw.col("_p")))
    ).with_columns(_ru=nw.col("_r") * u, _qu=nw.col("_q") * u, _quu=nw.col("_q") * u * u)
    r = _row(x, ru=nw.col("_ru").sum(), r=nw.col("_r").sum(), quu=nw.col("_quu").sum(),
             qu=nw.col("_qu").sum(), q=nw.col("_q").sum())
    g = np.array([float(r["ru"]), float(r["r"])])
    H = np.array([[float(r["quu"]), float(r["qu"])], [float(r["qu"]), float(r["q"])]])
    return negligible_step(g, H, th, tol)


def _frame_loss(work: Any, theta: np.ndarray) -> float:
    r"""``calibrators._platt._exact_loss`` on a frame: :math:`\sum w[t\,\mathrm{softplus}(-z) +
    (1-t)\,\mathrm{softplus}(z)]`, each side only where its weight is positive (inf, never NaN)."""
    import narwhals as nw

    t, w = nw.col("_t"), nw.col("_w")
    x = work.with_columns(_z=nw.col("_x") * float(theta[0]) + float(theta[1])).with_columns(
        _l=nw.when(t > 0.0).then(t * _softplus(-nw.col("_z"))).otherwise(0.0)
        + nw.when(t < 1.0).then((1.0 - t) * _softplus(nw.col("_z"))).otherwise(0.0))
    total = float(_row(x, l=(w * nw.col("_l")).sum())["l"])
    return total if total == total else math.inf


def _fit_isotonic(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> None:
    import narwhals as nw

    n_distinct = int(summary["distinct"])  # counted with the summary (:func:`_distinct_of`)
    if n_distinct > MAX_DISTINCT:
        raise VeracityError(
            f"IsotonicCalibration on a lazy {prep.frame.backend} frame needs per-score sums of its "
            f"{n_distinct:,} distinct scores, over the limit of {MAX_DISTINCT:,}; round the scores "
            "(e.g. to 1e-6) or use PlattScaling"
        )
    t = agg.collect(lf.with_columns(_one=nw.lit(1, nw.Int64), _wy=nw.col("_w") * nw.col("_y"))
                    .group_by("_s").agg(nw.col("_one").sum(), nw.col("_y").sum(), nw.col("_w").sum(),
                                        nw.col("_wy").sum()))
    v = np.asarray(t.get_column("_s").to_list(), dtype=np.float64)
    order = np.argsort(v, kind="stable")
    if prep.weight is None:  # counts and label sums: exact integers, as the array fit pools them
        wsum = np.asarray(t.get_column("_one").to_list(), dtype=np.float64)[order]
        ysum = np.asarray(t.get_column("_y").to_list(), dtype=np.float64)[order]
    else:
        wsum = np.asarray(t.get_column("_w").to_list(), dtype=np.float64)[order]
        ysum = np.asarray(t.get_column("_wy").to_list(), dtype=np.float64)[order]
    def reversed_of(ybar: np.ndarray, pooled_weight: np.ndarray) -> Any:
        # the rows' DeLong verdict where they live (as the array fit reads it on its rows), only where the
        # pooled AUC lies below 1/2
        from ..calibrators._isotonic import pooled_auc_below_half

        if not pooled_auc_below_half(ybar, pooled_weight):
            return None
        assoc = frame_association(lf.select(_x=nw.col("_s"), _y=nw.col("_y"), _w=nw.col("_w")),
                                  prep.weight is not None)
        return assoc if assoc.verdict == "reversed" else None

    # distinct sorted points: PAV on the pooled rows
    cal._fit(v[order], ysum / wsum, wsum, reversed_of=reversed_of)


def _fit_histogram(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> None:
    import narwhals as nw

    from ..core._binning import bin_index, sorted_edges, uniform_edges

    if cal.strategy == "uniform":
        edges = uniform_edges(int(cal.bins))
    else:  # the array rule on per-distinct-probability counts
        v, c, wsum = agg.distinct_scores(lf, score_type=cal.score_type, limit=MAX_DISTINCT,
                                         n_distinct=int(summary["distinct"]))
        edges = sorted_edges(v, int(cal.bins), cal.strategy, counts=c, weights=wsum if prep.weight else None)
    m = edges.size - 1
    x = lf.with_columns(_p=agg.probability(cal.score_type)).with_columns(
        _b=bin_index(nw.col("_p"), edges, cal.strategy), _wy=nw.col("_w") * nw.col("_y"))
    t = agg.collect(x.group_by("_b").agg(nw.col("_w").sum(), nw.col("_wy").sum()))
    idx = np.asarray(t.get_column("_b").to_list(), dtype=np.int64)
    counts, pos = np.zeros(m), np.zeros(m)
    counts[idx] = np.asarray(t.get_column("_w").to_list(), dtype=np.float64)
    pos[idx] = np.asarray(t.get_column("_wy").to_list(), dtype=np.float64)
    mid = 0.5 * (edges[:-1] + edges[1:])
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(counts > 0, pos / np.where(counts > 0, counts, 1.0), mid)
    from ..calibrators._histogram import user_counts

    cal.edges_, cal.values_, cal.counts_ = edges, values, user_counts(
        counts, prep.weight_scale if prep.weight is not None else 1.0)


register_frame_fit(fit_frame)  # Calibrator.fit(frame, score=, label=) calls it (calibrators/_base.py)
