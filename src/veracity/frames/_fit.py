r"""Calibrators fit on a frame: ``cal.fit(frame, score="p", label="y", sample_weight="w")``.

In-memory frames (pandas, polars, pyarrow) hand their columns to the array fit,
so the result is the array fit's, bit for bit. Lazy frames (DuckDB relations and
files, polars LazyFrames, Dask, Spark) are never collected; each fit reads only a
handful of sums per step, each step ONE aggregate query where the data lives, and
hands them to the same optimiser the array fit runs:

* **temperature** — safeguarded Newton on :math:`\beta = 1/\tau`
  (:meth:`TemperatureScaling._fit_objective`). Binary, with :math:`z` the logit
  input and :math:`\sigma` the logistic function:

  .. math:: f'(\beta) = \frac{\sum_i w_i z_i(\sigma(\beta z_i) - y_i)}{W},\qquad
            f''(\beta) = \frac{\sum_i w_i z_i^2 \sigma(\beta z_i)(1 - \sigma(\beta z_i))}{W}

  multiclass (``score=["p0", "p1", ...]``), with :math:`d_{ik} = z_{ik} - \max_k z_{ik}`,
  :math:`S_j = \sum_k e^{\beta d_{ik}} d_{ik}^j`: :math:`f' = \sum w (S_1/S_0 - d_{iy})/W`,
  :math:`f'' = \sum w (S_2/S_0 - (S_1/S_0)^2)/W` — the softmax sums are one aggregate too;
* **Platt** — damped Newton on :math:`(a, b)` (:func:`~veracity.calibrators._platt.newton_logistic`):
  the loss :math:`\sum w[\mathrm{softplus}(a x + b) - t(a x + b)]`, its gradient and
  Hessian are six sums;
* **isotonic** — PAV on the per-distinct-score aggregates (value, Σw, Σw·y): pooling
  equal scores first is exactly what the array fit does, so PAV on the aggregated
  points *is* PAV on the rows (refused above :data:`MAX_DISTINCT` distinct scores);
* **histogram** — per-bin Σw and Σw·y (equal-mass edges from per-distinct-score counts).

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
from ..core._frameform import is_database
from ..core._validation import PROB_EPS, VeracityError, check_logit_range
from ..sources import _aggregates as agg
from ..sources._api import _Prepared

#: most distinct scores an isotonic fit on a lazy frame brings back
MAX_DISTINCT = 5_000_000
_LAZY_KINDS = ("temperature", "platt", "isotonic", "histogram")


def fit_frame(cal: Any, data: Any, labels: Any = None, *, score: Any, label: Any, sample_weight: Any = None,
              role: Any = None, allow_role: Any = None, metadata: dict[str, Any] | None = None,
              pos_label: Any = None) -> Any:
    """``cal.fit(frame, score=..., label=..., sample_weight=...)`` (see the module doc)."""
    if labels is not None:
        raise VeracityError(f"{cal.name}.fit(frame, score=..., label=...) takes no positional labels")
    if score is None or label is None:
        raise VeracityError(f"the frame form needs both column names: {cal.name}().fit(frame, score='p', label='y')")
    if is_database(data):
        raise VeracityError(f"{cal.name}.fit reads a frame, not a database connection: pass the calibration "
                            "rows (con.table('t') on DuckDB, a pandas or polars frame, a Parquet file)",
                            param="scores")
    cal._check_params()
    if isinstance(role, str):  # the role's policy before any row is read, in memory as on a lazy frame (a test
        from ..calibrators._base import check_role  # role refused there, a negative weight first here)

        check_role(cal.name, role, allow_role)
    prep = _Prepared(data, score, label, sample_weight, pos_label=pos_label)  # labels read as 0/1 = [label == pos_label]
    meta: dict[str, Any] = {"score_column": ",".join(prep.score), "label_column": label}
    if prep.frame.source != "frame":
        meta["source_file"] = prep.frame.source
    meta.update(metadata or {})
    if not prep.frame.lazy:
        scores, labels_, weights = prep.arrays()
        try:
            return cal.fit(scores, labels_, sample_weight=weights, role=role, allow_role=allow_role,
                           metadata=meta)
        except VeracityError as exc:
            raise prep.explain(cal.score_type, exc) from None
    try:
        return _fit_lazy(cal, prep, role, allow_role, meta, pos_label)
    except VeracityError:
        raise
    except Exception as exc:  # a file's read error (found mid-query) must not echo its content
        from ..sources._duckdb import describe_error, is_duckdb_error

        if isinstance(data, (str, os.PathLike)) and is_duckdb_error(exc):
            raise VeracityError(describe_error(exc, os.fspath(data))) from None
        raise


def _fit_lazy(cal: Any, prep: _Prepared, role: Any, allow_role: Any, meta: dict[str, Any], pos_label: Any) -> Any:
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
    if pos_label is not None:
        raise VeracityError(
            f"pos_label= needs the labels in memory; on a lazy {backend} frame map the label column to 0/1 "
            "(or booleans) first"
        )
    if role is not None and not isinstance(role, str):
        raise VeracityError(
            f"with a lazy {backend} frame, role= is one role for every row (a string); "
            "filter the frame to the calibration rows first"
        )
    role_label = check_role(cal.name, role, allow_role)
    prep.require_lazy_support()
    counts = prep.check_lazy(cal.score_type)
    if prep.multiclass:
        n_rows, n_classes, hash_ = _fit_multiclass_temperature(cal, prep, counts)
    else:
        lf = _kept(prep.working(False), prep.weight is not None)
        summary = _summary(lf)
        _check_binary(cal, counts, summary)
        {"temperature": _fit_temperature, "platt": _fit_platt, "isotonic": _fit_isotonic,
         "histogram": _fit_histogram}[cal.kind](cal, prep, lf, summary)
        n_rows, n_classes, hash_ = int(summary["n"]), 2, _hash(summary)
    # n_columns: the fit's width, as the array fit records it (a binary column named "p,1" is one column)
    return cal._record_fit(meta, None, n_rows=n_rows, n_classes=n_classes, hash_=hash_,
                           role_label=role_label, allow_role=allow_role, n_columns=len(prep.score))


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


def _summary(lf: Any) -> dict[str, float]:
    """Rows, positives and the weighted sums of the kept rows (also the fit data's fingerprint)."""
    import narwhals as nw

    s, y, w = nw.col("_s"), nw.col("_y"), nw.col("_w")
    x = lf.with_columns(_one=nw.lit(1, nw.Int64), _ws=w * s, _ws2=w * s * s, _wy=w * y, _wn=w * (1.0 - y))
    row = _row(x, n=nw.col("_one").sum(), n_pos=nw.col("_y").sum(), w=nw.col("_w").sum(),
               wy=nw.col("_wy").sum(), wn=nw.col("_wn").sum(), ws=nw.col("_ws").sum(), ws2=nw.col("_ws2").sum())
    return {k: float(v or 0.0) for k, v in row.items()}


def _hash(summary: dict[str, float]) -> str:
    """For a lazy frame: SHA-256 (32 hex digits) of its aggregate fingerprint (12 significant digits)."""
    text = ";".join(f"{k}={summary[k]:.12g}" for k in sorted(summary))
    return hashlib.sha256(("aggregate:" + text).encode()).hexdigest()[:32]


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
    """The logistic function, overflow-free on both sides."""
    import narwhals as nw

    return nw.when(x >= 0).then(1.0 / (1.0 + (-x).exp())).otherwise(x.exp() / (1.0 + x.exp()))


def _softplus(x: Any) -> Any:
    return x.clip(lower_bound=0.0) + (1.0 + (-(x.abs())).exp()).log()


# ---------------------------------------------------------------------------------------
# temperature
# ---------------------------------------------------------------------------------------
class FrameBinaryObjective:
    r"""The binary temperature objective f(β) = Σ w softplus(−y±·βz) / W on a lazy frame.

    Each call is one aggregate query: ``derivs`` returns (f', f'') from two sums,
    ``nll_many`` the NLL at several β from one sum each.
    """

    def __init__(self, lf: Any, score_type: str, summary: dict[str, float]) -> None:
        import narwhals as nw

        self.lf = lf.select(_z=_logit_input(score_type), _y=nw.col("_y"), _w=nw.col("_w"))
        z, y, w = nw.col("_z"), nw.col("_y"), nw.col("_w")
        row = _row(self.lf.with_columns(_wzy=w * z * y, _m=(2.0 * y - 1.0) * z),
                   wzy=nw.col("_wzy").sum(), margin=nw.col("_m").min())
        self.wzy = float(row["wzy"])
        self.min_margin = float(row["margin"])
        self.total = summary["w"]
        self.queries = 1

    def derivs(self, beta: float) -> tuple[float, float]:
        import narwhals as nw

        z, w = nw.col("_z"), nw.col("_w")
        x = self.lf.with_columns(_p=_sigmoid(z * beta)).with_columns(
            _g=w * z * nw.col("_p"), _h=w * z * z * nw.col("_p") * (1.0 - nw.col("_p")))
        row = _row(x, g=nw.col("_g").sum(), h=nw.col("_h").sum())
        self.queries += 1
        return (float(row["g"]) - self.wzy) / self.total, float(row["h"]) / self.total

    def nll_many(self, betas: tuple[float, ...]) -> list[float]:
        import narwhals as nw

        m = (2.0 * nw.col("_y") - 1.0) * nw.col("_z")
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


class FrameMulticlassObjective:
    r"""The multiclass objective f(β) = Σ w [log Σ_k e^{β d_k} − β d_y] / W, d = z − max z.

    ``derivs`` is one aggregate (f, f', f'' together; ``last`` keeps them as the
    array objective does).
    """

    def __init__(self, prep: _Prepared, score_type: str) -> None:
        import narwhals as nw

        f = prep.frame
        schema = f.nw.collect_schema()
        cols = [agg.as_float(f.ref(c), schema) for c in prep.score]
        if score_type != "logit":
            cols = [c.clip(lower_bound=PROB_EPS, upper_bound=1.0).log() for c in cols]
        self.k = len(cols)
        top = nw.max_horizontal(*cols)
        y = agg.as_float(f.ref(prep.label), schema)
        w = (agg.as_float(f.ref(prep.weight), schema) * prep.weight_scale if prep.weight
             else nw.lit(1.0, nw.Float64))
        d = [(c - top).alias(f"_d{i}") for i, c in enumerate(cols)]
        dy = nw.sum_horizontal(*[nw.when(y == float(i)).then(c - top).otherwise(nw.lit(0.0))
                                 for i, c in enumerate(cols)])
        lf = f.nw.select(*d, dy.alias("_dy"), y.alias("_y"), w.alias("_w"),
                         nw.min_horizontal(*cols).alias("_lo"), top.alias("_hi"))
        self.lf = _kept(lf, prep.weight is not None)
        row = _row(self.lf.with_columns(_one=nw.lit(1, nw.Int64)), n=nw.col("_one").sum(),
                   total=nw.col("_w").sum(), dy=nw.col("_dy").min(), classes=nw.col("_y").n_unique(),
                   y0=nw.col("_y").min(), lo=nw.col("_lo").min(), hi=nw.col("_hi").max())
        self.summary = {k: float(v) for k, v in row.items()}
        self.total = self.summary["w"] = self.summary["total"]
        self.last: tuple[float, float, float, float] | None = None
        self.queries = 1

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
        return g, h

    def nll(self, beta: float) -> float:
        import narwhals as nw

        e = [(nw.col(f"_d{i}") * beta).exp() for i in range(self.k)]
        x = self.lf.with_columns(_f=nw.col("_w") * (nw.sum_horizontal(*e).log() - nw.col("_dy") * beta))
        self.queries += 1
        return float(_row(x, f=nw.col("_f").sum())["f"]) / self.total

    def separated(self) -> bool:
        return self.summary["dy"] >= 0.0

    def subsample(self) -> None:
        return None


def _fit_temperature(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> None:
    cal._fit_objective(FrameBinaryObjective(lf, cal.score_type, summary))


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
    cal._fit_objective(obj)
    return n, obj.k, _hash(s)


# ---------------------------------------------------------------------------------------
# Platt, isotonic, histogram
# ---------------------------------------------------------------------------------------
def _fit_platt(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> None:
    import narwhals as nw

    from ..calibrators._platt import newton_logistic, smoothed_targets

    target = nw.col("_y")
    t_pos, t_neg = 1.0, 0.0
    if cal.smoothing:
        t_pos, t_neg = smoothed_targets(summary["wy"], summary["wn"])
        target = nw.when(nw.col("_y") == 1.0).then(nw.lit(t_pos)).otherwise(nw.lit(t_neg))
    work = lf.select(_x=_logit_input(cal.score_type), _t=target, _w=nw.col("_w"))
    span = _row(work, lo=nw.col("_x").min(), hi=nw.col("_x").max())
    if span["lo"] == span["hi"]:
        # one score: the Hessian is singular and Newton would stop at any (a, b) with a·x + b = logit of the
        # base rate; the array fit's answer is a = 0 (the score says nothing), b = logit(Σwt / Σw)
        rate = (t_pos * summary["wy"] + t_neg * summary["wn"]) / summary["w"]
        cal._set_fit(np.array([0.0, math.log(rate) - math.log1p(-rate)]), 0, True)
        return

    def loss_grad_hess(theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        xc, t, w = nw.col("_x"), nw.col("_t"), nw.col("_w")
        z = xc * float(theta[0]) + float(theta[1])
        x = work.with_columns(_z=z).with_columns(_p=_sigmoid(nw.col("_z"))).with_columns(
            _r=w * (nw.col("_p") - t), _q=w * nw.col("_p") * (1.0 - nw.col("_p")),
            _l=w * (_softplus(nw.col("_z")) - t * nw.col("_z")),
        ).with_columns(_rx=nw.col("_r") * xc, _qx=nw.col("_q") * xc, _qxx=nw.col("_q") * xc * xc)
        r = _row(x, l=nw.col("_l").sum(), rx=nw.col("_rx").sum(), r=nw.col("_r").sum(),
                 qxx=nw.col("_qxx").sum(), qx=nw.col("_qx").sum(), q=nw.col("_q").sum())
        g = np.array([float(r["rx"]), float(r["r"])])
        H = np.array([[float(r["qxx"]), float(r["qx"])], [float(r["qx"]), float(r["q"])]])
        return float(r["l"]), g, H

    cal._set_fit(*newton_logistic(loss_grad_hess, 1))


def _fit_isotonic(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> None:
    import narwhals as nw

    n_distinct = int(_row(lf, d=nw.col("_s").n_unique())["d"])
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
    cal._fit(v[order], ysum / wsum, wsum)  # distinct sorted points: PAV on the pooled rows


def _fit_histogram(cal: Any, prep: _Prepared, lf: Any, summary: dict[str, float]) -> None:
    import narwhals as nw

    from ..core._binning import bin_index, sorted_edges, uniform_edges

    if cal.strategy == "uniform":
        edges = uniform_edges(int(cal.bins))
    else:  # the array rule on per-distinct-probability counts
        v, c, wsum = agg.distinct_scores(lf, score_type=cal.score_type, limit=MAX_DISTINCT)
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
    cal.edges_, cal.values_, cal.counts_ = edges, values, counts


register_frame_fit(fit_frame)  # Calibrator.fit(frame, score=, label=) calls it (calibrators/_base.py)
