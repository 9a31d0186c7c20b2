r"""Prediction-powered estimates of a rate from a few labels and many scored rows.

A window has :math:`n` rows whose outcome is known — a **random** audit sample — and
:math:`N` rows with only a score :math:`f`. The PPI++ estimate of the mean outcome
(Angelopoulos, Duchi & Zrnic 2023, *PPI++: Efficient Prediction-Powered Inference*)

.. math:: \hat\theta_\lambda = \lambda\,\bar f_{\text{unlabelled}}
          + \overline{(y - \lambda f)}_{\text{labelled}}

is unbiased for every fixed :math:`\lambda` — the scores need not be calibrated —
with the normal interval :math:`\hat\theta_\lambda \pm z\sqrt{\hat\sigma^2_{y-\lambda f}/n
+ \lambda^2\hat\sigma^2_f/N}` (variances with divisor :math:`n`, :math:`N`). Power tuning
picks the :math:`\lambda` that minimises that variance,

.. math:: \hat\lambda = \frac{\widehat{\mathrm{Cov}}(y, f)}{(1 + n/N)\,\widehat{\mathrm{Var}}(f)}
          \quad\text{clipped to } [0, 1],

(covariance over the labelled rows with divisor :math:`n`, variance over all
:math:`n + N` scores with divisor :math:`n + N - 1`): :math:`\lambda = 0` is the classical
mean of the labels, :math:`\lambda = 1` plain PPI. These are exactly ``ppi_py``'s
``ppi_mean_pointestimate`` / ``ppi_mean_ci`` (``lam=None``), to rounding.

Beside it every result carries

* the **classical** estimate (labels only) and the **CBPE** estimate (the mean score of
  all rows, with the Poisson-binomial interval :math:`\pm z\sqrt{\sum f(1-f)}/M` that is
  right only if the scores are calibrated);
* the **rectifier** :math:`\overline{y - f}` over the labelled rows with its interval —
  calibration-in-the-large of the window, estimated without assuming anything. When
  its interval excludes 0 the scores are not calibrated here and CBPE's estimate is
  not valid; the result says so.

Everything is a function of a handful of sums per window (:class:`PpiSums`), so a
store computes them in SQL and calls :func:`ppi_from_sums` for all windows at once.

**Sample weights** (survey / importance weights; only their ratios matter) give the
weighted means and the linearised (Hájek) variance :math:`\sum_i \omega_i^2 (r_i -
\bar r)^2` with :math:`\omega = w / \sum w`; unweighted this is the formula above.
Weights of one side only (``sample_weight`` without ``sample_weight_unlabelled``, or the
reverse) are read relative to their mean: the other side's rows weigh one mean weight each.
A row of weight 0 is a dropped row (it counts nowhere, not even as a label).

**The audit sample must be random.** PPI's validity rests on the labelled rows being a
uniformly random sample of the window. A sample of flagged rows only, or of the
early-maturing outcomes, is not: :func:`ppi_mean` compares the labelled rows' score
histogram with the unlabelled rows' (a chi-square test of homogeneity) and refuses —
or, with ``sample_check="flag"``, marks the result invalid — when they clearly differ.
``audit_sample=`` (a mask over the labelled rows) keeps only the randomly sampled
labels for PPI; the other labelled rows count as scored rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any

import numpy as np

from ..core._display import Display
from ..core._special import chdtrc, ndtri
from ..core._text import fmt, fmt_p, render_table
from ..core._validation import (WEIGHT_EXP_LIMIT, VeracityError, as_float_array, check_binary_labels, check_weights,
                                to_numpy)
from ..decisions._inputs import scores_1d

#: a labelled sample whose score histogram differs from the unlabelled rows' at this
#: p-value is not a random sample of the window
SAMPLE_CHECK_P = 1e-4
SAMPLE_CHECK_BINS = 10
SAMPLE_CHECKS = ("raise", "flag", "off")
NOT_CALIBRATED = "the scores are not calibrated here; the label-free estimate is not valid"
#: below this many labels the normal intervals cover less than their level (seeded simulation in
#: tests/delayed/test_ppi_simulation.py: 85-88 % at 10 labels, 88-92 % at 20, for a 95 % interval)
FEW_LABELS = 50
FEW = ("only {n:,} labels: below about 50 the normal interval is too narrow (simulated 95 % intervals "
       "covered 85-88 % of true rates at 10 labels, 88-92 % at 20); label more rows (vc.labels_needed says how many)")
#: the same for weighted labels, counted by their Kish effective size (seeded simulation in
#: tests/delayed/test_ppi_weights_scale.py: 95 % intervals from 100 labels of effective size below 50,
#: typically about 4, covered 48 % of true rates)
FEW_EFFECTIVE = ("only {eff:.1f} effective labels (Kish size (sum w)^2 / sum w^2 of the {n:,} weighted labels): "
                 "below about 50 the normal interval is too narrow (simulated 95 % intervals from 100 labels of "
                 "effective size about 4 covered about half of true rates); label more rows, or weigh them "
                 "less unevenly")
#: the same for a designed sample (propensity=), counting only the labels drawn at random (seeded
#: simulation in tests/delayed/test_ppi_weights_scale.py: every flagged row and 5 random others covered
#: 39 % for a 95 % interval, 10 random others 69 %, 20 others 84 %)
FEW_DRAWN = ("only {n:,} labels drawn at random (propensity < 1; the {certain:,} rows labelled with certainty say "
             "nothing about the others): below about 50 the normal interval is too narrow (simulated 95 % "
             "intervals covered 39 % of true rates with 5 random labels, 69 % with 10, 84 % with 20); label more "
             "randomly chosen rows")
ZERO_WIDTH = ("the {n:,} labels show no spread (e.g. all one class): the normal interval has zero width and is "
              "not a confidence interval; label more rows")


#: a standard error (on the scale of a rate) below this is the rounding noise of the one-pass sums
#: (about sqrt(eps / n)): the labels have no spread, and the normal interval no width
NO_SPREAD = 1e-7


def judged_calibrated(rect_low: Any, rect_high: Any, rect_se: Any, n: Any, level: float) -> Any:
    r"""The rectifier's interval holds 0 — or, where it has no width, an exact test does not reject.

    A rectifier without spread (every label one class, y − f = c for every labelled row) has a
    normal interval of zero width, which is no confidence interval. Then, under calibration,
    seeing n labels all 0 has probability :math:`\prod (1 - f_i) \le (1 - \bar f)^n = (1 - |c|)^n`
    (and n labels all 1, :math:`\prod f_i \le \bar f^n = (1 - |c|)^n`, by the AM–GM
    inequality), so the scores are judged not calibrated when :math:`(1 - |c|)^n \le (1-\text{level})/2`:
    two negatives scored 0.1 are no evidence (0.81), 1,000 negatives scored 0.5 are. Vectorised."""
    low, high = np.asarray(rect_low, dtype=np.float64), np.asarray(rect_high, dtype=np.float64)
    flat = ~(np.asarray(rect_se) >= NO_SPREAD)
    c = np.clip(np.abs(0.5 * (low + high)), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        exact_p = np.exp(np.asarray(n, dtype=np.float64) * np.log1p(-c))
    return np.where(flat, exact_p > (1.0 - level) / 2.0, (low <= 0.0) & (0.0 <= high))


def cut_to_range(out: dict[str, Any], bounds: Any) -> None:
    r"""Cut the normal intervals of ``out`` (keys of :func:`ppi_from_sums`) at the range the quantity can take.

    ``bounds`` maps an interval prefix (``"ci"``, ``"classical"``, ``"cbpe"``, ``"rectifier"``) to
    ``(lo, hi)`` (scalars or arrays, one per entry). A rate is in [0, 1] and the rectifier
    :math:`y - f` in [-1, 1]; a normal interval reaching beyond is cut at the bound — the same
    coverage, no impossible values. In place; NaN stays NaN. :func:`ppi_from_sums` itself stays the
    plain normal interval."""
    for prefix, (lo, hi) in bounds.items():
        for key, op in ((f"{prefix}_low", np.fmax), (f"{prefix}_high", np.fmin)):
            bound = lo if key.endswith("_low") else hi
            x = np.asarray(out[key], dtype=np.float64)
            out[key] = np.where(np.isnan(x), np.nan, op(x, bound))


#: the range of each interval of a rate (the outcome is 0/1)
RATE_BOUNDS = {"ci": (0.0, 1.0), "classical": (0.0, 1.0), "cbpe": (0.0, 1.0), "rectifier": (-1.0, 1.0)}


def check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0.0 < level < 1.0:
        raise VeracityError(f"level must be a number strictly between 0 and 1, e.g. 0.95; got {level!r}")
    return float(level)


def z_of(level: float) -> float:
    return float(ndtri(1.0 - (1.0 - level) / 2.0))


# -- the sums -----------------------------------------------------------------------------
_LAB = ("n", "w", "w2", "wy", "wf", "wff", "wyf", "w2y", "w2f", "w2yy", "w2yf", "w2ff")
_UNL = ("m", "wu", "wu2", "wuf", "wuff", "wu2f", "wu2ff")


@dataclass(frozen=True, eq=False)
class PpiSums:
    r"""The sums one window (or an array of windows) needs for PPI, CBPE and the rectifier.

    Labelled rows (weights :math:`w`, labels :math:`y`, scores :math:`f`): ``n`` (rows),
    ``w`` :math:`\sum w`, ``w2`` :math:`\sum w^2`, ``wy``, ``wf``, ``wff``, ``wyf``
    (:math:`\sum w y`, …), ``w2y``, ``w2f``, ``w2yy``, ``w2yf``, ``w2ff`` (:math:`\sum w^2 y`,
    …). Unlabelled rows (weights :math:`u`, scores :math:`g`): ``m`` (rows), ``wu``, ``wu2``,
    ``wuf``, ``wuff``, ``wu2f``, ``wu2ff``. Unweighted every weight is 1, so
    :meth:`from_counts` needs only eight of them. Each field is a float or an array
    (one entry per window); merging two disjoint sets of rows is adding their sums.
    """

    n: Any
    w: Any
    w2: Any
    wy: Any
    wf: Any
    wff: Any
    wyf: Any
    w2y: Any
    w2f: Any
    w2yy: Any
    w2yf: Any
    w2ff: Any
    m: Any
    wu: Any
    wu2: Any
    wuf: Any
    wuff: Any
    wu2f: Any
    wu2ff: Any

    @classmethod
    def from_counts(cls, *, n: Any, sum_y: Any, sum_f: Any, sum_ff: Any, sum_yf: Any, m: Any, sum_fu: Any,
                    sum_ffu: Any, sum_yy: Any = None) -> PpiSums:
        r"""Unweighted sums: labelled ``n``, :math:`\sum y`, :math:`\sum f`, :math:`\sum f^2`,
        :math:`\sum yf`; unlabelled ``m``, :math:`\sum g`, :math:`\sum g^2`
        (:math:`\sum y^2 = \sum y` for 0/1 labels unless ``sum_yy`` is given)."""
        a = {k: np.asarray(v, dtype=np.float64) for k, v in {
            "n": n, "sum_y": sum_y, "sum_f": sum_f, "sum_ff": sum_ff, "sum_yf": sum_yf, "m": m, "sum_fu": sum_fu,
            "sum_ffu": sum_ffu}.items()}
        yy = a["sum_y"] if sum_yy is None else np.asarray(sum_yy, dtype=np.float64)
        return cls(n=a["n"], w=a["n"], w2=a["n"], wy=a["sum_y"], wf=a["sum_f"], wff=a["sum_ff"],
                   wyf=a["sum_yf"], w2y=a["sum_y"], w2f=a["sum_f"], w2yy=yy, w2yf=a["sum_yf"],
                   w2ff=a["sum_ff"], m=a["m"], wu=a["m"], wu2=a["m"], wuf=a["sum_fu"], wuff=a["sum_ffu"],
                   wu2f=a["sum_fu"], wu2ff=a["sum_ffu"])

    @classmethod
    def of(cls, y: np.ndarray, f: np.ndarray, g: np.ndarray, w: np.ndarray | None = None,
           u: np.ndarray | None = None) -> PpiSums:
        """The sums of checked arrays (labels ``y`` may be any real values)."""
        if w is None:
            lab = {"n": y.size, "w": y.size, "w2": y.size, "wy": y.sum(), "wf": f.sum(), "wff": f @ f, "wyf": y @ f}
            lab.update(w2y=lab["wy"], w2f=lab["wf"], w2yy=y @ y, w2yf=lab["wyf"], w2ff=lab["wff"])
        else:
            wy, wf = w * y, w * f
            lab = {"n": y.size, "w": w.sum(), "w2": w @ w, "wy": wy.sum(), "wf": wf.sum(), "wff": wf @ f, "wyf": wy @ f,
                       "w2y": wy @ w, "w2f": wf @ w, "w2yy": wy @ wy, "w2yf": wy @ wf, "w2ff": wf @ wf}
        if u is None:
            unl = {"m": g.size, "wu": g.size, "wu2": g.size, "wuf": g.sum(), "wuff": g @ g}
            unl.update(wu2f=unl["wuf"], wu2ff=unl["wuff"])
        else:
            ug = u * g
            unl = {"m": g.size, "wu": u.sum(), "wu2": u @ u, "wuf": ug.sum(), "wuff": ug @ g, "wu2f": ug @ u, "wu2ff": ug @ ug}
        return cls(**{k: np.float64(v) for k, v in {**lab, **unl}.items()})

    def __add__(self, other: PpiSums) -> PpiSums:
        return PpiSums(**{k: np.add(getattr(self, k), getattr(other, k)) for k in _LAB + _UNL})


def _wmean_var(s1: Any, s: Any, w2x: Any, w2xx: Any, w2: Any) -> tuple[Any, Any]:
    r"""Weighted mean :math:`\bar x = \sum wx / \sum w` and its linearised variance
    :math:`\sum w^2 (x - \bar x)^2 / (\sum w)^2` from the sums."""
    mean = s / s1
    var = (w2xx - 2.0 * mean * w2x + mean * mean * w2) / (s1 * s1)
    return mean, np.maximum(var, 0.0)


def ppi_from_sums(sums: PpiSums, *, level: float = 0.95, power_tuning: bool = True,
                  lam: Any = None) -> dict[str, np.ndarray]:
    r"""PPI++, classical, CBPE and rectifier estimates from :class:`PpiSums` (vectorised).

    Returns arrays keyed ``estimate, se, ci_low, ci_high, lam, classical, classical_se,
    cbpe, cbpe_se, rectifier, rectifier_se`` (and the ``_low``/``_high`` of each). A window
    with fewer than 2 labelled rows gives NaN; one with no unlabelled row gives the
    classical estimate (:math:`\lambda = 0`). ``lam`` fixes :math:`\lambda` (overrides tuning).
    """
    level = check_level(level)
    z = z_of(level)
    S = sums
    with np.errstate(divide="ignore", invalid="ignore"):
        n, m = np.asarray(S.n, dtype=np.float64), np.asarray(S.m, dtype=np.float64)
        ybar, fbar = S.wy / S.w, S.wf / S.w
        gbar = np.where(m > 0, S.wuf / S.wu, 0.0)
        if lam is not None:
            lam_ = np.broadcast_to(np.asarray(lam, dtype=np.float64), np.shape(n)).copy()
        elif not power_tuning:
            lam_ = np.ones_like(n)
        else:
            cov = S.wyf / S.w - ybar * fbar
            # variance of all n + m scores, each sample's weights scaled to mean 1 (ppi_py's convention)
            sf, sff = n * fbar, n * S.wff / S.w
            sg = np.where(m > 0, m * gbar, 0.0)
            sgg = np.where(m > 0, m * S.wuff / S.wu, 0.0)
            tot = n + m
            var_all = (sff + sgg - (sf + sg) ** 2 / tot) / (tot - 1.0)
            n_eff, m_eff = S.w * S.w / S.w2, np.where(m > 0, S.wu * S.wu / S.wu2, 0.0)
            lam_ = cov / ((1.0 + n_eff / m_eff) * var_all)
            lam_ = np.where(np.isfinite(lam_), np.clip(lam_, 0.0, 1.0), 0.0)
        lam_ = np.where(m > 0, lam_, 0.0)
        # rectifier y - lam f over the labelled rows
        r_s = S.wy - lam_ * S.wf
        r_w2x = S.w2y - lam_ * S.w2f
        r_w2xx = S.w2yy - 2.0 * lam_ * S.w2yf + lam_ * lam_ * S.w2ff
        rbar, r_var = _wmean_var(S.w, r_s, r_w2x, r_w2xx, S.w2)
        _, g_var = _wmean_var(S.wu, S.wuf, S.wu2f, S.wu2ff, S.wu2)
        g_var = np.where(m > 0, g_var, 0.0)
        est = lam_ * gbar + rbar
        se = np.sqrt(r_var + lam_ * lam_ * g_var)
        classical, c_var = _wmean_var(S.w, S.wy, S.w2y, S.w2yy, S.w2)
        rect, rect_var = _wmean_var(S.w, S.wy - S.wf, S.w2y - S.w2f, S.w2yy - 2.0 * S.w2yf + S.w2ff, S.w2)
        # CBPE: the weighted mean score of all rows; Poisson-binomial spread under calibration
        tw = S.w + S.wu
        cbpe = (S.wf + S.wuf) / tw
        cbpe_var = np.maximum((S.w2f - S.w2ff + S.wu2f - S.wu2ff) / (tw * tw), 0.0)
        few = n < 2
        out = {"estimate": est, "se": se, "lam": lam_, "classical": classical, "classical_se": np.sqrt(c_var),
               "rectifier": rect, "rectifier_se": np.sqrt(rect_var), "cbpe": cbpe, "cbpe_se": np.sqrt(cbpe_var)}
        for k in ("estimate", "se", "lam", "classical", "classical_se", "rectifier", "rectifier_se"):
            out[k] = np.where(few, np.nan, out[k])
        for name, sd in (("", "se"), ("classical", "classical_se"), ("rectifier", "rectifier_se"),
                         ("cbpe", "cbpe_se")):
            centre = out[name or "estimate"]
            prefix = f"{name}_" if name else "ci_"
            out[f"{prefix}low"] = centre - z * out[sd]
            out[f"{prefix}high"] = centre + z * out[sd]
    return out


# -- the audit-sample check -----------------------------------------------------------------
def sample_check_p(counts_labelled: np.ndarray, counts_unlabelled: np.ndarray) -> float:
    """p-value of a chi-square test that two score histograms (same bins) come from one law."""
    a = np.asarray(counts_labelled, dtype=np.float64)
    b = np.asarray(counts_unlabelled, dtype=np.float64)
    keep = (a + b) > 0
    a, b = a[keep], b[keep]
    if a.size < 2 or a.sum() == 0 or b.sum() == 0:
        return 1.0
    col = a + b
    ea = col * a.sum() / col.sum()
    eb = col * b.sum() / col.sum()
    stat = float((((a - ea) ** 2) / ea).sum() + (((b - eb) ** 2) / eb).sum())
    return float(chdtrc(a.size - 1, stat))


def _sample_check(f: np.ndarray, g: np.ndarray) -> float:
    if g.size < 2 or f.size < 2:
        return 1.0
    edges = np.unique(np.quantile(g, np.linspace(0, 1, SAMPLE_CHECK_BINS + 1)[1:-1]))
    a = np.bincount(np.searchsorted(edges, f, side="right"), minlength=edges.size + 1)
    b = np.bincount(np.searchsorted(edges, g, side="right"), minlength=edges.size + 1)
    return sample_check_p(a, b)


def _nonrandom_message(p: float, f: np.ndarray, g: np.ndarray) -> str:
    return (f"the {f.size:,} labelled rows are not a random sample of the window: their scores differ from the "
            f"{g.size:,} unlabelled rows' (mean {f.mean():.3f} vs {g.mean():.3f}; chi-square p = {fmt_p(p)}), and PPI "
            "is valid only for a random audit sample. Label randomly chosen rows (vc.labels_needed says how many), "
            "or pass audit_sample= marking the randomly sampled ones")


# -- the result ---------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class PpiMean(Display):
    """A prediction-powered estimate of a window's rate, beside the classical and CBPE ones.

    ``estimate``, ``ci_low``, ``ci_high`` — PPI++ (power-tuned ``lam``); ``classical*`` — the
    labels alone; ``cbpe*`` — the mean score (valid only if the scores are calibrated);
    ``rectifier*`` — the mean of y − score over the labelled rows (calibration-in-the-large).
    ``calibrated`` is False when the rectifier's interval excludes 0, and ``note`` then
    says that the label-free estimate is not valid (a rectifier interval of zero width —
    labels without spread — is no evidence either way and counts as calibrated). When the
    PPI interval itself has zero width (e.g. every label one class) ``note`` says it is
    not a confidence interval. ``sample_p`` is the p-value of the
    random-sample check; ``valid`` is False when the check failed (``sample_check="flag"``).
    """

    estimate: float
    ci_low: float
    ci_high: float
    se: float
    lam: float
    level: float
    n_labelled: int
    n_unlabelled: int
    classical: float
    classical_low: float
    classical_high: float
    cbpe: float
    cbpe_low: float
    cbpe_high: float
    rectifier: float
    rectifier_low: float
    rectifier_high: float
    calibrated: bool
    sample_p: float
    valid: bool
    n_excluded: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def note(self) -> str | None:
        return "; ".join(self.notes) if self.notes else None

    @property
    def width(self) -> float:
        return self.ci_high - self.ci_low

    def rows(self) -> list[dict[str, Any]]:
        return [
            {"method": "ppi", "estimate": self.estimate, "ci_low": self.ci_low, "ci_high": self.ci_high,
             "uses": f"{self.n_labelled:,} labels + {self.n_unlabelled:,} scores (lambda {self.lam:.3f})"},
            {"method": "classical", "estimate": self.classical, "ci_low": self.classical_low,
             "ci_high": self.classical_high, "uses": f"{self.n_labelled:,} labels"},
            {"method": "cbpe", "estimate": self.cbpe, "ci_low": self.cbpe_low, "ci_high": self.cbpe_high,
             "uses": "scores only; valid if calibrated"},
            {"method": "rectifier", "estimate": self.rectifier, "ci_low": self.rectifier_low,
             "ci_high": self.rectifier_high, "uses": "mean of y - score (0 if calibrated)"},
        ]

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "notes"}
        out["notes"] = list(self.notes)
        out["note"] = self.note
        out["methods"] = self.rows()
        return out

    def _frame_records(self) -> list[dict[str, Any]]:
        return self.rows()

    def __str__(self) -> str:
        pct = f"{self.level * 100:g}% CI"
        body = [[r["method"], fmt(r["estimate"]), f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]", r["uses"]]
                for r in self.rows()]
        lines = [(f"rate of the window: PPI++ estimate {fmt(self.estimate)} [{fmt(self.ci_low)}, "
                 f"{fmt(self.ci_high)}] ({pct})"),
                 render_table(["method", "estimate", pct, "uses"], body, align="lrll")]
        if self.n_excluded:
            lines.append(f"({self.n_excluded} labelled rows outside the random audit sample were used as "
                         "scored rows only)")
        lines.extend(f"note: {t}" for t in self.notes)
        return "\n".join(lines)


def _labels_and_scores(labels: Any, scores_labelled: Any, scores_unlabelled: Any, pos_label: Any
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = scores_1d(scores_labelled, name="scores_labelled")
    y = check_binary_labels(labels, f.shape[0], pos_label)
    g = scores_1d(scores_unlabelled, name="scores_unlabelled")
    return y, f, g


def _check_mask(audit_sample: Any, n: int) -> np.ndarray | None:
    if audit_sample is None:
        return None
    raw = to_numpy(audit_sample, "audit_sample")
    if raw.ndim != 1 or raw.shape[0] != n:
        raise VeracityError(f"audit_sample must be one True/False per labelled row ({n}), got shape {raw.shape}")
    if raw.dtype != bool:
        vals = as_float_array(raw, "audit_sample")
        if not np.isin(vals, (0.0, 1.0)).all():
            raise VeracityError("audit_sample must be True/False (or 1/0): True where the row was labelled "
                                "because it was randomly sampled")
        raw = vals == 1.0
    return raw


def _mean_one(w: np.ndarray | None) -> np.ndarray | None:
    """Weights divided by their mean over the rows of positive weight (None stays None)."""
    return None if w is None else w / float(np.mean(w[w > 0]))


def _joint_weights(sample_weight: Any, sample_weight_unlabelled: Any, n: int, m: int
                   ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Checked weights of the labelled and the unlabelled rows. Given both, they are in one unit: CBPE's
    mean over all rows (and audit_sample's rows moved to the unlabelled side) compare the two, so
    extreme weights are scaled by one common power of two, never each by its own. Given one side
    only, the other side's rows weigh 1 each, so the given weights are divided by their mean over the
    rows of positive weight: a row of that side weighs its weight over the mean weight, and
    multiplying all of them by a constant changes nothing (CBPE pools both sides, and audit_sample
    moves labelled rows to the unlabelled side)."""
    if sample_weight is None or sample_weight_unlabelled is None:
        return _mean_one(check_weights(sample_weight, n)), _mean_one(check_weights(sample_weight_unlabelled, m))
    w = check_weights(sample_weight, n, rescale=False)
    u = check_weights(sample_weight_unlabelled, m, rescale=False)
    assert w is not None and u is not None  # both given
    exp = math.frexp(max(float(w.max()), float(u.max())))[1]
    if abs(exp) > WEIGHT_EXP_LIMIT:
        w, u = np.ldexp(w, -exp), np.ldexp(u, -exp)
    return w, u


def _check_sample_mode(sample_check: Any) -> str:
    if sample_check not in SAMPLE_CHECKS:
        raise VeracityError(f"sample_check must be 'raise', 'flag' or 'off', got {sample_check!r}")
    return str(sample_check)


def _prepare(labels: Any, scores_labelled: Any, scores_unlabelled: Any, *, sample_weight: Any,
             sample_weight_unlabelled: Any, audit_sample: Any, pos_label: Any, sample_check: Any
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, int, float, bool]:
    """Checked (y, f, g, w, u, excluded, sample p, sample valid) for one window."""
    mode = _check_sample_mode(sample_check)
    y, f, g = _labels_and_scores(labels, scores_labelled, scores_unlabelled, pos_label)
    w, u = _joint_weights(sample_weight, sample_weight_unlabelled, f.shape[0], g.shape[0])
    mask = _check_mask(audit_sample, f.shape[0])
    excluded = 0
    if mask is not None and not mask.all():
        excluded = int((~mask).sum())
        if u is not None or w is not None:
            u = np.concatenate([np.ones(g.size) if u is None else u, (np.ones(f.size) if w is None else w)[~mask]])
        g = np.concatenate([g, f[~mask]])
        y, f = y[mask], f[mask]
        w = None if w is None else w[mask]
    if y.size < 2:
        raise VeracityError(f"PPI needs at least 2 randomly sampled labelled rows, got {y.size}; label more rows "
                            "of the window (vc.labels_needed says how many)")
    if w is not None and int((w > 0).sum()) < 2:  # rows of weight 0 are no evidence: one row would give [e, e]
        raise VeracityError(f"PPI needs at least 2 randomly sampled labelled rows of positive sample_weight, got "
                            f"{int((w > 0).sum())}; give more labelled rows a weight above 0")
    if w is not None and not w.all():  # a row of weight 0 is a dropped row (λ, the counts, the sample check)
        y, f, w = y[w > 0], f[w > 0], w[w > 0]
    if u is not None and not u.all():
        g, u = g[u > 0], u[u > 0]
    if g.size < 1:
        raise VeracityError("scores_unlabelled is empty: every row is labelled, so the classical rate needs no "
                            "scores; pass the rows that have no label yet")
    p = 1.0
    valid = True
    if mode != "off":
        p = _sample_check(f, g)
        if p < SAMPLE_CHECK_P:
            if mode == "raise":
                raise VeracityError(_nonrandom_message(p, f, g))
            valid = False
    return y, f, g, w, u, excluded, p, valid


def _result(out: dict[str, np.ndarray], *, level: float, n: int, m: int, excluded: int, p: float, valid: bool,
            f: np.ndarray | None = None, g: np.ndarray | None = None, w: np.ndarray | None = None,
            drawn: int | None = None) -> PpiMean:
    """The :class:`PpiMean` of one window; ``w`` (the labelled rows' weights) counts the labels by
    their Kish effective size for the few-labels note, ``drawn`` (a designed sample) by the labels
    drawn at random."""
    v = {k: float(np.asarray(x)) for k, x in out.items()}
    calibrated = bool(judged_calibrated(v["rectifier_low"], v["rectifier_high"], v["rectifier_se"], n, level))
    # the outcome is 0/1: a rate lies in [0, 1] and the rectifier y - f in [-1, 1], so a normal interval
    # reaching beyond is cut at the bound (ppi_from_sums stays the plain normal interval, as it also
    # serves quantities such as costs)
    cut_to_range(v, RATE_BOUNDS)
    v = {k: float(x) for k, x in v.items()}
    notes = []
    if not valid:
        notes.append("NOT VALID: the labelled rows do not look like a random sample of the window "
                     f"(score-histogram chi-square p = {fmt_p(p)}); PPI needs a random audit sample")
    if not v["se"] >= NO_SPREAD:
        notes.append(ZERO_WIDTH.format(n=n))
    elif drawn is not None and drawn < FEW_LABELS:
        notes.append(FEW_DRAWN.format(n=drawn, certain=n - drawn))
    elif n < FEW_LABELS:
        notes.append(FEW.format(n=n))
    elif w is not None and (eff := float(w.sum()) ** 2 / float(w @ w)) < FEW_LABELS:
        notes.append(FEW_EFFECTIVE.format(eff=eff, n=n))
    if not calibrated:
        notes.append(NOT_CALIBRATED)
    return PpiMean(
        estimate=v["estimate"], ci_low=v["ci_low"], ci_high=v["ci_high"], se=v["se"], lam=v["lam"], level=level,
        n_labelled=n, n_unlabelled=m, classical=v["classical"], classical_low=v["classical_low"],
        classical_high=v["classical_high"], cbpe=v["cbpe"], cbpe_low=v["cbpe_low"], cbpe_high=v["cbpe_high"],
        rectifier=v["rectifier"], rectifier_low=v["rectifier_low"], rectifier_high=v["rectifier_high"],
        calibrated=calibrated, sample_p=p, valid=valid, n_excluded=excluded, notes=tuple(notes))


def ppi_mean(labels: Any, scores_labelled: Any, scores_unlabelled: Any, *, level: float = 0.95,
             power_tuning: bool = True, sample_weight: Any = None, sample_weight_unlabelled: Any = None,
             audit_sample: Any = None, sample_check: str = "raise", propensity: Any = None,
             pos_label: Any = None) -> PpiMean:
    r"""Prediction-powered (PPI++) estimate of the rate, with its interval, from a random
    audit sample and the window's scored rows.

    ``labels`` and ``scores_labelled`` are the audited rows; ``scores_unlabelled`` the rows
    without a label. ``power_tuning=False`` uses :math:`\lambda = 1` (plain PPI).
    ``audit_sample`` (True/False per labelled row) marks the labels that come from random
    sampling; only those enter PPI. ``sample_check`` — ``"raise"`` (default) refuses a
    labelled sample whose scores clearly differ from the unlabelled rows' (not random),
    ``"flag"`` returns the result marked ``valid=False``, ``"off"`` skips the check.
    ``propensity`` — for a *designed* sample (every flagged row and 2 % of the others,
    say): each labelled row's known probability of having been chosen; the estimate is
    then the inverse-probability-weighted PPI of :mod:`veracity.delayed._design`, valid for
    the window's realised rate without a uniform sample (the random-sample check is skipped; at least
    2 labelled rows must have been drawn at random, propensity < 1).

    >>> r = ppi_mean([1, 0, 0, 1, 0, 0], [0.9, 0.2, 0.1, 0.6, 0.3, 0.2], [0.8, 0.1, 0.3, 0.2, 0.7, 0.1, 0.2])
    >>> round(r.estimate, 4), round(r.lam, 4)
    (0.3004, 0.8135)
    """
    level = check_level(level)
    if not isinstance(power_tuning, (bool, np.bool_)):  # "no" would read as True
        raise VeracityError(f"power_tuning must be True or False, got {power_tuning!r}", param="power_tuning")
    if propensity is not None:
        from ._design import check_propensity, design_estimates

        if sample_weight is not None or sample_weight_unlabelled is not None or audit_sample is not None:
            raise VeracityError("propensity= already weighs each labelled row by 1 / propensity; drop "
                                "sample_weight= and audit_sample= (give every labelled row its propensity)")
        _check_sample_mode(sample_check)
        y, f, g = _labels_and_scores(labels, scores_labelled, scores_unlabelled, pos_label)
        pi = check_propensity(propensity, f.size)
        drawn = int((pi < 1).sum())
        if drawn < 2:  # certain rows say nothing of the unlabelled rows: the interval would be [e, e]
            raise VeracityError(
                f"PPI with propensity= needs at least 2 labelled rows drawn at random (propensity < 1), got "
                f"{drawn}: rows labelled with certainty (propensity 1) say nothing about the unlabelled rows' "
                "outcomes; label randomly chosen rows as well", param="propensity")
        out = design_estimates(y, f, g, pi, level=level, power_tuning=bool(power_tuning))
        return _result(out, level=level, n=y.size, m=g.size, excluded=0, p=float("nan"), valid=True, drawn=drawn)
    y, f, g, w, u, excluded, p, valid = _prepare(
        labels, scores_labelled, scores_unlabelled, sample_weight=sample_weight,
        sample_weight_unlabelled=sample_weight_unlabelled, audit_sample=audit_sample, pos_label=pos_label,
        sample_check=sample_check)
    out = ppi_from_sums(PpiSums.of(y, f, g, w, u), level=level, power_tuning=bool(power_tuning))
    return _result(out, level=level, n=y.size, m=g.size, excluded=excluded, p=p, valid=valid, w=w)


def ppi_records(sums: PpiSums, *, level: float = 0.95, power_tuning: bool = True) -> list[dict[str, Any]]:
    """One JSON-ready record per window of :func:`ppi_from_sums` (the keys a status row carries):
    ``estimate_ppi`` and ``estimate_cbpe`` (each ``{"estimate", "ci_low", "ci_high"}``, PPI's
    with ``lam`` and ``labels``; None where the window has fewer than 2 random labels),
    ``rectifier`` (the same three keys), ``calibrated`` (None without labels) and ``note``;
    NaN is written as None, so the records pass ``json.dumps(..., allow_nan=False)``."""
    out = ppi_from_sums(sums, level=level, power_tuning=power_tuning)
    cut_to_range(out, RATE_BOUNDS)  # a rate, as vc.ppi_mean reports it
    n = np.atleast_1d(np.asarray(sums.n, dtype=np.float64))
    cols = {k: np.atleast_1d(v) for k, v in out.items()}
    recs = []
    for i in range(n.size):
        def three(name: str, prefix: str, i: int = i) -> dict[str, float | None]:
            vals = (cols[name][i], cols[f"{prefix}_low"][i], cols[f"{prefix}_high"][i])
            return {k: float(v) if np.isfinite(v) else None for k, v in zip(("estimate", "ci_low", "ci_high"), vals)}

        has = n[i] >= 2 and np.isfinite(cols["estimate"][i])
        calibrated = bool(judged_calibrated(cols["rectifier_low"][i], cols["rectifier_high"][i],
                                            cols["rectifier_se"][i], n[i], level)) if has else None
        recs.append({
            "estimate_ppi": {**three("estimate", "ci"), "lam": float(cols["lam"][i]), "labels": int(n[i])}
            if has else None,
            "estimate_cbpe": three("cbpe", "cbpe"),
            "rectifier": three("rectifier", "rectifier") if has else None,
            "calibrated": calibrated,
            "note": "; ".join(([ZERO_WIDTH.format(n=int(n[i]))] if has and not cols["se"][i] >= NO_SPREAD else [])
                              + ([NOT_CALIBRATED] if calibrated is False else [])) or None,
        })
    return recs
