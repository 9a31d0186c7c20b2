r"""PPI for a *designed* audit sample: each row labelled with a known probability (propensity).

Fraud and credit teams rarely label a uniform sample: every flagged case is reviewed
(propensity 1) and a small random share of the others (say 2 %). Such a sample is not
random — plain PPI on it is biased — but with each labelled row's inclusion probability
:math:`\pi_i` the inverse-probability-weighted PPI estimate of the window's rate

.. math:: \hat\theta_\lambda = \frac1M\Big(\lambda\sum_{\text{all } M\text{ rows}} f_i
          + \sum_{\text{labelled}} \frac{y_i - \lambda f_i}{\pi_i}\Big)

is unbiased for the window's realised rate for every fixed :math:`\lambda` (Horvitz–Thompson:
each row enters the second sum with probability :math:`\pi_i`), whatever the scores do,
provided every row of the window had a positive chance of being labelled. Under
independent (Poisson) sampling its variance is
:math:`\frac1{M^2}\sum_{\text{all}} \frac{1-\pi_i}{\pi_i}(y_i - \lambda f_i)^2`, estimated without
bias by :math:`\frac1{M^2}\sum_{\text{labelled}} \frac{1-\pi_i}{\pi_i^2}(y_i - \lambda f_i)^2` — rows
labelled with certainty add nothing; a fixed-size draw within each stratum has no more
variance than this, so the interval is conservative there. Power tuning picks the
:math:`\lambda` that minimises the estimated variance,
:math:`\lambda = \sum c\,y f / \sum c f^2` with :math:`c = (1-\pi)/\pi^2`, clipped to [0, 1]
(:math:`\lambda = 0` is the Horvitz–Thompson mean of the labels).

The interval is the normal one :math:`\hat\theta \pm z\hat\sigma` where the labels drawn at random
(propensity < 1) hold at least 10 of each class. With fewer, the inverse-probability sum of the few drawn
positives is skewed and the normal interval runs short on the side away from 0: every row in the top 2 % of
scores and 3 % of the others (120-150 random labels holding 4-5 positives, rates 0.03-0.05) covered 0.88-0.90
of true rates at a nominal 95 %, missing high. There the interval is the modified Wilson interval (Wilson's,
with Garwood's exact Poisson end for a class seen fewer than 10 times) for the rate of the rows not
labelled with certainty, at PPI's effective number of labels (:func:`rare_design_interval`): 0.96 or more
in the same simulation (tests/delayed/test_ppi_rare_r17.py). Larger random strata keep the normal interval:
10,000-row windows with 6 % of the unflagged rows drawn (tens of drawn positives) covered 94.6 %
(tests/delayed/test_ppi_simulation.py).

Random labels drawn with *unequal* propensities (a propensity that rises with the score, say) take Fay and
Feuer's gamma interval for the sampled count of positives instead (:func:`uneven_design_interval`): a
drawn row of propensity 0.005 weighs 200 and is rarely positive, so in the windows that drew none of those
heavy positives the estimate and its standard error are both too small, while many light positives keep
the rare-class switch off. With propensity :math:`0.002\text{-}0.02 + 0.5 f` the normal interval covered
0.92-0.94 (the true rate above it in 5-7 % of windows); the gamma interval 0.956-0.962.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import VeracityError, as_float_array
from ._ppi import z_of
from ._ppi_sums import rare_outcome, rare_outcome_interval


def check_propensity(propensity: Any, n: int) -> np.ndarray:
    pi = as_float_array(propensity, "propensity")
    if pi.ndim == 0:
        pi = np.full(n, float(pi))
    if pi.ndim != 1 or pi.shape[0] != n:
        raise VeracityError(f"propensity must give one inclusion probability per labelled row ({n}), got shape "
                            f"{pi.shape}")
    if not ((pi > 0) & (pi <= 1)).all():
        bad = pi[~((pi > 0) & (pi <= 1))][0]
        raise VeracityError(f"propensity must be the probability with which each labelled row was chosen, in "
                            f"(0, 1]; found {bad:g}")
    return pi


#: the labels drawn at random stand for clearly more rows than the window has (:func:`design_size`): a
#: one-sided z above this refuses the propensities (``sample_check="raise"``) or marks the result invalid
#: (``"flag"``)
DESIGN_Z = 4.5


def design_size(pi: np.ndarray, M: float) -> tuple[float, float, float]:
    r"""``(S, M_r, z)``: the rows the labels drawn at random (propensity < 1) stand for,
    :math:`S = \sum 1/\pi_i` — the Horvitz–Thompson estimate of the count of the window's rows not labelled
    with certainty — that count, :math:`M_r = M - (\text{rows of propensity } 1)`, and
    :math:`z = (S - M_r) / \sqrt{\sum (1 - \pi_i) / \pi_i^2}` (sums over the drawn labels; NaN where not
    finite). Where the propensities describe this window, :math:`S` is :math:`M_r` on average (exactly, for
    a fixed-size draw within each stratum) with variance :math:`\sum_{\text{all}} (1 - \pi)/\pi`, estimated
    by the denominator's square. Propensities of a larger window — ``scores_unlabelled`` holding only some
    of the window's unlabelled rows (a day of a week), or each row's chance from a larger pool — make
    :math:`S` exceed :math:`M_r` by many standard errors, and every estimate too high (the labels' part by
    :math:`S / M_r`; 20,000 rows with every top-2 % row labelled and 2 % of the others, a quarter of the
    unlabelled rows passed: PPI 0.142 and the labels alone 0.338 for a rate of 0.076, with no note;
    :math:`z = 15`). Only that side is tested: :math:`z < S / \sqrt{\sum (1 - \pi_i)/\pi_i^2}`, at most about
    :math:`\sqrt{k}` for :math:`k` drawn labels of small propensity (a large weight enlarges its own
    denominator), and over designs of 300-20,000 rows (strata at 0.1-30 %,
    propensity 0.002-0.02 + 0.5 f, a 1 % minority at 0.5 among 0.003; Poisson and fixed-size draws,
    3,000-20,000 windows each) the largest :math:`z` was 3.5 (:data:`DESIGN_Z` is 4.5;
    tests/delayed/test_design_size_r34.py). The other side is not: a window that drew none of its few
    heaviest rows has :math:`S` short of :math:`M_r` by far more than its estimated standard error (1 % of
    windows beyond -3.9 in those designs)."""
    d = pi[pi < 1]
    M_r = float(M - (pi.size - d.size))
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        S = float(np.sum(1.0 / d))
        z = float((S - M_r) / np.sqrt(np.sum((1.0 - d) / (d * d))))
    return S, M_r, z if np.isfinite(z) else float("nan")


def design_estimates(y: np.ndarray, f: np.ndarray, g: np.ndarray, pi: np.ndarray, *, level: float,
                     power_tuning: bool) -> dict[str, np.ndarray]:
    """The keys of :func:`~veracity.delayed._ppi.ppi_from_sums` for a designed sample."""
    z = z_of(level)
    M = float(y.size + g.size)
    # lambda reads c = (1 - pi) / pi^2 up to a constant: c' = c / s^2 with s = 1 / min(pi), so c' <= 1. A
    # propensity below about 1e-154 made pi^2 underflow to 0 (c infinite, every estimate NaN and a note
    # that the labels "show no spread")
    sp = pi / float(pi.min())  # >= 1
    with np.errstate(over="ignore", under="ignore"):  # (s pi)^2 beyond 1.8e308: c' is 0 to double precision
        c_ = (1.0 - pi) / (sp * sp)
    sum_all = float(f.sum() + g.sum())
    if not power_tuning:
        lam = 1.0
    else:
        den = float(c_ @ (f * f))
        lam = float(np.clip((c_ @ (y * f)) / den, 0.0, 1.0)) if den > 0 else 0.0

    def ht(r: np.ndarray, offset: float) -> tuple[float, float]:
        # the standard error sqrt(sum c r^2) / M as the norm of v = sqrt(1 - pi) r / pi, scaled by its largest
        # entry (squares of entries near 1e200 would overflow, those of the others underflow beside them)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # a propensity below 1e-308: inf
            v = np.sqrt(1.0 - pi) * (r / pi)
            top = float(np.abs(v).max())
            sd = top * float(np.sqrt(((v / top) ** 2).sum())) if 0 < top < np.inf else top
            return (offset + float((r / pi).sum())) / M, sd / M

    est, se = ht(y - lam * f, lam * sum_all)
    cls, cls_se = ht(y, 0.0)
    rect, rect_se = ht(y - f, 0.0)
    cbpe = sum_all / M
    cbpe_se = float(np.sqrt((f * (1 - f)).sum() + (g * (1 - g)).sum())) / M
    out = {"estimate": est, "se": se, "lam": lam, "classical": cls, "classical_se": cls_se, "rectifier": rect,
           "rectifier_se": rect_se, "cbpe": cbpe, "cbpe_se": cbpe_se}
    for name, centre, sd in (("ci", est, se), ("classical", cls, cls_se), ("rectifier", rect, rect_se),
                             ("cbpe", cbpe, cbpe_se)):
        out[f"{name}_low"] = centre - z * sd
        out[f"{name}_high"] = centre + z * sd
    # the labels drawn at random (propensity < 1), for the calibration judgement when they are all one
    # class: their spread (0 then) and mean y - f (see judged_calibrated)
    drawn = pi < 1
    yd, fd = y[drawn], f[drawn]
    out["drawn_label_se"] = float(yd.std() / np.sqrt(yd.size)) if yd.size else float("nan")
    out["drawn_rectifier"] = float((yd - fd).mean()) if yd.size else float("nan")
    rare_design_interval(out, y, drawn, M, level)
    uneven_design_interval(out, y, pi, drawn, M, level)
    # 0-d arrays, as ppi_from_sums gives for one window
    return {k: np.asarray(v, dtype=np.float64) for k, v in out.items()}


def rare_design_interval(out: dict[str, Any], y: np.ndarray, drawn: np.ndarray, M: float, level: float) -> None:
    r"""Replace the normal interval of a designed sample's rate (``out["ci_low"]``, ``out["ci_high"]``) by
    the modified Wilson interval where the labels drawn at random hold fewer than
    :data:`~veracity.delayed._ppi_sums.EXACT_BELOW` of one class (counted as they are: :math:`k` positives of
    :math:`n_d` rows with propensity < 1).

    The :math:`C` positives labelled with certainty are known; the uncertainty is in the rate :math:`\rho` of
    the :math:`M_r = M - (\text{rows labelled with certainty})` other rows, estimated by
    :math:`\hat\rho = (M\hat\theta - C) / M_r` with standard error :math:`s_\rho = M s / M_r`. Its interval is
    :func:`~veracity.delayed._ppi_sums.rare_outcome_interval`'s: modified Wilson at :math:`\hat\rho`
    (cut to [0, 1]) with :math:`n^* = \hat\rho(1 - \hat\rho)/s_\rho^2` (:math:`n_d` where :math:`\hat\rho` is
    0 or 1 or :math:`s_\rho = 0`; at most :math:`n_d` when the drawn labels are all one class), mapped back:
    :math:`\theta \in [(C + M_r \rho_{\text{low}}) / M, (C + M_r \rho_{\text{high}}) / M]`. The skew of a
    rare outcome lives in the drawn rows' rate, not in the certain rows' known count, so the correction is
    taken there. In place; ``out["rare_interval"]`` is 1 where it applied (0 elsewhere, and where the estimate
    or its standard error is not finite)."""
    out["rare_interval"] = 0.0
    yd = y[drawn]
    k, n_d = float(yd.sum()), float(yd.size)
    if not bool(rare_outcome(n_d, k)):
        return
    certain = int((~drawn).sum())
    C, M_r = float(y[~drawn].sum()), M - certain
    # the PPI rate's interval, and the labels alone's (the classical row: the same estimator at lambda 0,
    # which kept the normal interval beside PPI's rare one, as vc.ppi_mean's classical row of a random
    # sample did)
    for centre, sd, prefix in (("estimate", "se", "ci"), ("classical", "classical_se", "classical")):
        with np.errstate(over="ignore", invalid="ignore"):
            r = {"estimate": np.asarray((float(out[centre]) * M - C) / M_r),
                 "se": np.asarray(float(out[sd]) * M / M_r),
                 "ci_low": np.asarray(np.nan), "ci_high": np.asarray(np.nan)}
        rare_outcome_interval(r, n_d, k, level)
        lo, hi = float(r["ci_low"]), float(r["ci_high"])
        if np.isfinite(lo) and np.isfinite(hi):
            out[f"{prefix}_low"], out[f"{prefix}_high"] = (C + M_r * lo) / M, (C + M_r * hi) / M
            if prefix == "ci":
                out["rare_interval"] = 1.0


def uneven_design_interval(out: dict[str, Any], y: np.ndarray, pi: np.ndarray, drawn: np.ndarray, M: float,
                           level: float) -> None:
    r"""Replace the interval of a designed sample's rate (``out["ci_low"]``, ``out["ci_high"]``, and the
    classical row's) by Fay and Feuer's (1997) gamma interval where the labels drawn at random (propensity
    < 1) were drawn with unequal propensities.

    The :math:`C` positives labelled with certainty are known; the sampled part is the count
    :math:`Y = M\hat\theta - C` of positives among the other rows, an inverse-probability sum in which a
    positive drawn with propensity :math:`\pi_i` weighs :math:`1/\pi_i`, with variance
    :math:`V = (M s)^2` (:math:`s` the standard error). Read as a weighted sum of Poisson counts, its
    interval is

    .. math:: Y_{\text{low}} = G^{-1}_{Y^2/V,\,V/Y}\big(\tfrac{1-\text{level}}2\big), \qquad
              Y_{\text{high}} = G^{-1}_{(Y+\bar w)^2/(V+\bar w^2),\,(V+\bar w^2)/(Y+\bar w)}
              \big(\tfrac{1+\text{level}}2\big),

    :math:`G^{-1}_{a,b}` the quantile of the gamma law of shape :math:`a` and scale :math:`b` (the lower end
    0 where :math:`Y \le 0` or :math:`V = 0`; :math:`Y` taken as :math:`\max(Y, 0)` in the upper end),
    :math:`\bar w` the mean of :math:`1/\pi_i` over the drawn labels — the upper end allows for one more
    positive of an average weight, the "mean" form of the gamma interval (Fay and Feuer add the largest
    weight; Ng, Filardo and Zheng 2008; R's ``asht::wspoissonTest(wmtype = "mean")``). For :math:`k`
    positives of equal weight :math:`w` and no score term (:math:`\lambda = 0`, :math:`V = (1 - \pi) w Y`)
    it is :math:`w` times Garwood's exact Poisson interval for :math:`k` (up to the factor
    :math:`1 - \pi`). Mapped back, :math:`\theta \in [(C + Y_{\text{low}})/M, (C +
    \min(Y_{\text{high}}, M_r))/M]`, :math:`M_r` the rows not labelled with certainty.

    Why: rows drawn with a small propensity weigh 50-500 each and are rarely positive, so the sum of the few
    heavy positives is skewed, and in the windows that drew none or few of them the estimate and its
    standard error are both too small: the normal interval (and the rare-class switch of
    :func:`rare_design_interval`, which counts the many light drawn positives) missed high. With propensity
    :math:`0.002\text{-}0.02 + 0.5 f` (scores :math:`f \sim` Beta(0.5, 4), calibrated or 1.6 f true, 5,000
    rows, 300-500 labels) the 95 % interval covered 0.92-0.94 of true rates (true rate above it in 5-7 % of
    windows); this one 0.956-0.959, above it in 2.6-3.5 %, medians 6-8 % wider (1,500 windows a design);
    strata (every top-2 % row, 10 % of scores 0.2 and up, 2 % of the others) 0.915 -> 0.947, 9 % wider; with
    few drawn positives (rate 0.03, propensity 0.01 + 0.3 f) 0.943 -> 0.981, 16 % wider (seeded simulation
    in tests/delayed/test_design_uneven_r33.py: propensity 0.003 + 0.25 f, 0.906 -> 0.962). Equal drawn
    propensities keep the interval as it is: the designs of tests/delayed/test_ppi_rare_r17.py and
    test_ppi_simulation.py already covered (0.93-0.97), and this interval would be 5-10 % wider there.
    The mean weight against the other forms (seeded simulation, tests/delayed/test_design_uneven_forms_r34.py:
    rates 0.01-0.5, 50-2,000 random labels, propensities rising with the score over 2-20x, each tail at a
    nominal 2.5 %): it kept each tail within 3.5 % over that grid and, in the design above, 1.1 % below and
    3.0 % above (8,000 windows); the largest weight (Fay and Feuer) misses high in 0-0.9 % at 1.3x the median
    width (up to 4.5x); Tiwari, Clegg and Zou's :math:`V + \overline{w^2}` in the upper end 2.0 % above there
    at 4-8 % more width; mid-p gamma 3-4 % above; Wilson's interval at the effective size
    :math:`\hat\rho(1-\hat\rho)/s_\rho^2` 5-6 % above.
    Unequal: the largest drawn propensity above the smallest by more than a relative 1e-9. In place;
    ``out["rare_interval"]`` is set to 1 where it applied (the interval always has width). Nothing changes
    where :math:`Y` or :math:`V` is not finite, nor where :math:`\bar w \ge M_r`: the drawn labels'
    propensities then add up to :math:`\sum 1/\pi_i = n_d \bar w \ge n_d M_r` rows (:math:`n_d` drawn
    labels), a multiple of the :math:`M_r` the window has, where a valid design gives :math:`M_r` on
    average — they do not describe this window (one row labelled with propensity 1e-150 among 49 at 0.1 in
    550 rows: the normal interval, the formulas' numbers of tests/delayed/test_design_extreme_r16.py)."""
    from ..core._special import _special

    pd = pi[drawn]
    if pd.size < 2 or not float(pd.max()) > float(pd.min()) * (1.0 + 1e-9):
        return
    with np.errstate(over="ignore"):
        w = float(np.mean(1.0 / pd))
    certain = int((~drawn).sum())
    C, M_r = float(y[~drawn].sum()), M - certain
    if not 0.0 < w < M_r:
        return
    a = (1.0 - level) / 2.0
    for centre, sd, prefix in (("estimate", "se", "ci"), ("classical", "classical_se", "classical")):
        with np.errstate(over="ignore", invalid="ignore"):
            Y, V = float(np.float64(out[centre]) * M - C), float(np.square(np.float64(out[sd]) * M))
        if not (np.isfinite(Y) and np.isfinite(V)):
            continue
        low = float(_special().gammaincinv(Y * Y / V, a)) * V / Y if Y > 0.0 and V > 0.0 else 0.0
        Yw, Vw = max(Y, 0.0) + w, V + w * w
        high = float(_special().gammaincinv(Yw * Yw / Vw, 1.0 - a)) * Vw / Yw
        if not (np.isfinite(low) and np.isfinite(high)):
            continue
        out[f"{prefix}_low"] = (C + min(max(low, 0.0), M_r)) / M
        out[f"{prefix}_high"] = (C + min(max(high, 0.0), M_r)) / M
        if prefix == "ci":
            out["rare_interval"] = 1.0
