r"""Tests of calibration-in-the-large per segment, and the multiplicity adjustments.

Under perfect calibration each label is an independent :math:`y_i \sim
\mathrm{Bernoulli}(p_i)`, so a segment's :math:`S = \sum_i w_i y_i` has mean
:math:`\sum w_i p_i` and variance :math:`V = \sum w_i^2 p_i(1-p_i)` (a
Poisson-binomial law when unweighted).

* **z test** — :math:`z = (S - \sum w p)/\sqrt V`, two-sided normal p-value.
* **exact** (unweighted segments of at most :data:`EXACT_MAX` rows, and larger ones whose law has a
  skewness :math:`\sum p(1-p)(1-2p)/V^{3/2}` of at least :data:`EXACT_SKEW`, as when few of the rarer
  label are expected: there the normal law's far tail is much thinner than the skewed law's, and
  10 positives where 2.1 are expected read p = 3e-8 against the exact 6e-5) — the Poisson-binomial
  law of S by convolving one Binomial(:math:`n_c, p_c`) per score cell; two-sided p-value
  :math:`\min(1, 2\min(P(S \le k), P(S \ge k)))`.
  A cell that holds several distinct scores uses their mean; by Hoeffding (1956)
  the binomial with the same mean is more spread than the Poisson-binomial, so the
  test stays valid (conservative).
* **gamma** (weighted segments, weights uneven, whose law has a skewness
  :math:`\gamma = \sum w^3p(1-p)(1-2p)/V^{3/2}` of at least :data:`EXACT_SKEW`: rare events and
  uneven weights, where z's tail is far too thin and no exact law is at hand) — on the side the law
  leans to (:math:`z\gamma > 0`) the three-moment shifted gamma (Pearson type III) law with S's
  mean, variance and skewness, :math:`S - \mu \approx G - k\theta`, :math:`G \sim
  \Gamma(k = 4/\gamma^2, \theta = |\gamma|\sqrt V/2)`: :math:`p = \min(1, 2 Q(k, k + 2|z|/|\gamma|))`
  (:math:`Q` the regularised upper incomplete gamma), or the **heavy rows**' p-value where larger; on
  the other side the z test's p (the gamma's short tail ends at :math:`-2\sqrt V/|\gamma|`, which S can
  pass). z's size was up to 5 times nominal at 1e-2 and up to 260 times at 1e-4.
* **heavy rows** (on the gamma's long side) — a few rows of large weight can carry much of the variance;
  S is then close to a mixture of atoms (no heavy event, one, two …) which no continuous law spreads
  right: one row of weight 40 among 1,000 of weight 1, its event expected 0.2 % of the time, was a 1e-4
  event to the gamma, exactly p = 0.0022 (over 900 such cases computed exactly, the gamma's size reached
  2, 4 and 17 times nominal at 1e-2, 1e-3, 1e-4). The p-value there is the larger of the gamma's and
  :func:`lattice_pvalues`': the law :math:`b(\Pi - \lambda) + N(0, V - \lambda b^2)` whose every jump is
  the segment's largest weight :math:`b` (on the long side: among rows scored below 1/2 when positives
  are the rare label), :math:`\lambda = \min(\sum w^3p(1-p)(1-2p)/b^3, \sum w^4p(1-p)/b^4)` — no more
  skewness than jumps of size b carry, no more of them than the fourth moment allows (a row of weight b
  adds :math:`b^4p(1-p)`). Over the 900 cases its size stayed at or below nominal at 1e-2 and 1e-3 (at
  most 0.96 times), at most 1.8 times at 1e-4 (4 of the 900, where the weight-1 rows expect two events
  or fewer); with
  log-normal (σ = 1, 1.5, 2), two-point and 1 %-, 5 %-heavy weights, event rates 0.2–3 % and 300–3,000
  rows, simulated, below 0.8 times nominal at 1e-2 and 1e-3; the power to find a segment with twice
  its predicted rate (log-normal weights, 3 % events) moved from 35.3 % to 34.5 % of 400 data sets.
  A weighted segment below the skewness threshold keeps z, but where one row weighs a standard deviation
  of S or more (:math:`\beta \ge 1`) its long side takes the larger of z's and the lattice's p-value
  (one row of weight 354 at 0.02 % beside 20,000 of weight 1 at 1/2, skewness 0.025: its event read
  p = 6e-7 under z, exactly 2e-4; z's size 1.15 and 2.7 times nominal at 1e-3 and 1e-4, now 0.99).
* **certain** — a score of exactly 0 with label 1, or exactly 1 with label 0, has
  probability 0 under calibration: the segment holding it gets p = 0 whatever its sums say
  (with as many of each kind, its gap is 0 and the z test alone would read p = 1). Under
  the null no such row occurs, so the combined test keeps its level. With ``score_type="logit"``
  no row is certain (a finite logit's probability is never exactly 0 or 1, though it may round
  to it; its variance is :math:`\sigma(s)\sigma(-s) > 0`, see :mod:`._cells`).
* **Benjamini–Hochberg** q-values :math:`q_{(i)} = \min_{j \ge i} m\,p_{(j)}/j`, and
  **Benjamini–Yekutieli** (valid under any dependence) :math:`q^{BY} = c(m)\,q^{BH}`,
  :math:`c(m) = \sum_{i=1}^m 1/i`.
"""

from __future__ import annotations

import numpy as np

#: largest unweighted segment tested exactly (larger ones: the z test, unless their events are rare)
EXACT_MAX = 200
#: a larger unweighted segment whose null law has at least this skewness is tested exactly too (a
#: segment expecting 1,000 of its rarer label has about 1/sqrt(1000) = 0.032; the skewness bounds the
#: variance, 1/skew^2 >= V, and so the exact law's cost)
EXACT_SKEW = 0.03
#: a weighted segment's largest jump is checked as an atom (:func:`lattice_pvalues`) up to this many
#: expected jumps of its size; beyond, the lattice's steps are below a tenth of a standard deviation
#: and its tail within about 15 % of the shifted gamma's
LATTICE_MAX = 100.0


def z_pvalues(d: np.ndarray, var: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(z, two-sided p)`` for excess ``d = Σw(y - p)`` and null variance ``var`` (any shape)."""
    from ..core._special import ndtr

    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, d / np.sqrt(np.where(var > 0, var, 1.0)), np.where(d == 0, 0.0, np.inf * np.sign(d)))
    p = 2.0 * ndtr(-np.abs(z))
    return z, np.minimum(p, 1.0)


def skew_pvalues(z: np.ndarray, skew: np.ndarray, jump: np.ndarray | None = None,
                 rate: np.ndarray | None = None) -> np.ndarray:
    r"""Two-sided p-values of the Pearson type III law (mean 0, variance 1, skewness ``skew`` ≠ 0) at
    ``z``: :math:`2Q(k, k + 2|z|/|\gamma|)`, :math:`k = 4/\gamma^2`, on the side of the skew
    (:math:`z\gamma > 0`), the normal's :math:`2\Phi(-|z|)` on the other (see the module's **gamma**).
    ``jump``, ``rate``: the standardised largest jump :math:`\beta` and its rate :math:`\lambda` on the
    long side; where given (finite, :math:`0 < \lambda \le` :data:`LATTICE_MAX`) the long side's p-value
    is the larger of the gamma's and :func:`lattice_pvalues`' (the module's **heavy rows**)."""
    from scipy.special import gammaincc

    from ..core._special import ndtr

    z, g = np.broadcast_arrays(np.asarray(z, dtype=np.float64), np.asarray(skew, dtype=np.float64))
    a = np.abs(np.where(g != 0, g, 1.0))
    k = 4.0 / (a * a)
    with np.errstate(invalid="ignore", over="ignore"):
        lean = gammaincc(k, k + 2.0 * np.abs(z) / a)
    long = z * g > 0
    if jump is not None and rate is not None:
        beta = np.broadcast_to(np.asarray(jump, dtype=np.float64), z.shape).ravel()
        lam = np.broadcast_to(np.asarray(rate, dtype=np.float64), z.shape).ravel()
        usable = np.isfinite(beta) & (beta > 0) & (lam > 0) & (lam <= LATTICE_MAX)
        atoms = np.flatnonzero(long.ravel() & usable)
        if atoms.size:
            lean = np.array(lean, dtype=np.float64).reshape(-1)
            lattice = lattice_pvalues(z.ravel()[atoms], beta[atoms], lam[atoms]) / 2.0
            lean[atoms] = np.maximum(lean[atoms], lattice)
            lean = lean.reshape(z.shape)
    p = np.where(long, 2.0 * lean, 2.0 * ndtr(-np.abs(z)))
    return np.minimum(p, 1.0)


def lattice_pvalues(z: np.ndarray, jump: np.ndarray, rate: np.ndarray) -> np.ndarray:
    r"""Two-sided (doubled upper-tail) p-values at ``|z|`` of :math:`\beta(\Pi - \lambda) + \sigma_r N`,
    :math:`\Pi \sim` Poisson(:math:`\lambda`), :math:`N` standard normal, :math:`\sigma_r^2 = \max(0, 1 -
    \lambda\beta^2)`: mean 0, variance 1, every jump the largest one (``jump`` :math:`\beta`, ``rate``
    :math:`\lambda`; 1-d arrays, :math:`\lambda \le` :data:`LATTICE_MAX`).
    :math:`2\sum_j P(\Pi = j)\,\Phi((\beta(j - \lambda) - |z|)/\sigma_r)`, the sum up to
    :math:`\lambda + 12\sqrt\lambda + 30` (the Poisson mass beyond is below 1e-20)."""
    from scipy.special import gammaln, xlogy

    from ..core._special import ndtr

    z = np.abs(np.asarray(z, dtype=np.float64))
    beta, lam = np.asarray(jump, dtype=np.float64), np.asarray(rate, dtype=np.float64)
    top = int(np.ceil(np.max(lam + 12.0 * np.sqrt(lam) + 30.0))) if lam.size else 0
    j = np.arange(top + 1, dtype=np.float64)[None, :]
    pmf = np.exp(xlogy(j, lam[:, None]) - lam[:, None] - gammaln(j + 1.0))
    off = beta[:, None] * (j - lam[:, None]) - z[:, None]  # a path reaches |z| where off >= 0
    sd = np.sqrt(np.maximum(1.0 - lam * beta * beta, 0.0))[:, None]
    step = (off >= -1e-9 * (1.0 + z[:, None])).astype(np.float64)  # no remainder: a path reaches |z| or not
    reach = np.where(sd > 1e-9, ndtr(off / np.where(sd > 1e-9, sd, 1.0)), step)
    return np.minimum(2.0 * np.sum(pmf * reach, axis=1), 1.0)


def binom_pmf(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    r"""The Binomial(``n``, ``p``) pmf at ``k``, :math:`\binom{n}{k}p^k(1-p)^{n-k}`, for whole
    :math:`0 \le k \le n` and :math:`0 \le p \le 1` (what :func:`poisson_binomial_pvalue` asks): the
    doubles of ``scipy.stats.binom.pmf``, which on such arguments is the ufunc ``_binom_pmf`` (Boost's
    binomial pdf) clipped to [0, 1], called here without loading ``scipy.stats`` (about 0.7 s of CPU
    a process: each ``veracity segments`` or ``veracity report --features`` run paid it)."""
    try:
        from scipy.special._ufuncs import _binom_pmf
    except ImportError:  # pragma: no cover - a scipy that moved its private ufunc
        from scipy.stats import binom

        return np.asarray(binom.pmf(k, n, p), dtype=np.float64)
    return np.clip(_binom_pmf(k, n, p), 0.0, 1.0)


def poisson_binomial_pvalue(k: int, counts: np.ndarray, probs: np.ndarray) -> float:
    r"""Two-sided exact p-value of ``k`` successes; cells of ``counts`` rows with probability ``probs``.

    The law of :math:`S` is the convolution, cell after cell, of the Binomial(:math:`n_c, p_c`) pmfs
    (:math:`p_c` clipped to [0, 1]); every cell's pmf comes from one vectorised ``binom.pmf`` call.
    It is taken on the rarer label's side (:math:`N - S` with :math:`1 - p_c` when positives are the
    majority: the same two-sided p-value) and only up to :math:`L = \max(k + 20, \mu + 12\sigma + 12)`
    (an entry up to L depends on entries up to L only, so those are exact); the pmf is log-concave,
    so the mass beyond L is at most :math:`f_L\,r/(1 - r)`, :math:`r = f_L/f_{L-1}`, added to the
    upper tail (a bound: the p-value stays valid). Entries that underflow to 0 (below 5e-324) are
    dropped as they appear, so a count far beyond its mean costs no more than one near it.
    """
    n = np.asarray(counts).astype(np.int64)
    keep = n != 0
    n = n[keep]
    prob = np.clip(np.asarray(probs, dtype=np.float64)[keep], 0.0, 1.0)
    total = int(n.sum())
    mu = float(np.sum(n * prob))
    if mu > total - mu:  # the rarer label's count: N - S, whose law has probabilities 1 - p
        k, prob, mu = total - k, 1.0 - prob, total - mu
    sd = float(np.sqrt(np.sum(n * prob * (1.0 - prob))))
    top = min(total, max(k + 20, int(np.ceil(mu + 12.0 * sd + 12.0)))) + 1  # entries 0 .. top - 1 computed
    pmf = np.ones(1)
    if n.size:
        # beyond m + 40 sqrt(m) + 750 a Binomial of mean m has pmf < e^-745 (Bernstein): 0 in a double
        size = np.minimum(np.minimum(n, top - 1), np.ceil(n * prob + 40.0 * np.sqrt(n * prob) + 750.0)) + 1
        size = size.astype(np.int64)
        starts = np.cumsum(size) - size
        every = binom_pmf(np.arange(int(size.sum())) - np.repeat(starts, size), np.repeat(n, size),
                          np.repeat(prob, size))
        for s, n_c in zip(starts.tolist(), size.tolist()):
            cell = every[s: s + n_c]
            if cell[-1] == 0.0:  # trailing entries that underflowed to 0
                nz = np.flatnonzero(cell)
                cell = cell[: nz[-1] + 1] if nz.size else cell[:1]
            pmf = np.convolve(pmf, cell)[:top]
            if pmf[-1] == 0.0:  # past the mode, entries that underflowed to 0 (those beyond are too)
                pmf = pmf[: np.flatnonzero(pmf)[-1] + 1]
    tail = 0.0
    if pmf.size == top and top <= total and pmf.size >= 2 and pmf[-2] > 0:  # mass beyond the last entry
        r = pmf[-1] / pmf[-2]
        tail = float(pmf[-1] * r / (1.0 - r)) if r < 1.0 else 1.0
    low = float(pmf[: k + 1].sum())
    high = float(pmf[k:].sum()) + tail
    return min(1.0, 2.0 * min(low, high))


def harmonic(m: int) -> float:
    return float(np.sum(1.0 / np.arange(1, m + 1))) if m > 0 else 1.0


def bh_qvalues(p: np.ndarray, *, by: bool = False) -> np.ndarray:
    """BH (or BY) q-values along axis 0 (NaN entries are not tests and stay NaN)."""
    p = np.asarray(p, dtype=np.float64)
    squeeze = p.ndim == 1
    P = p[:, None] if squeeze else p
    out = np.full(P.shape, np.nan)
    for j in range(P.shape[1]):
        col = P[:, j]
        tested = np.flatnonzero(~np.isnan(col))
        m = tested.size
        if m == 0:
            continue
        order = tested[np.argsort(col[tested], kind="stable")]
        ranked = col[order] * m / np.arange(1, m + 1)
        if by:
            ranked = ranked * harmonic(m)
        q = np.minimum.accumulate(ranked[::-1])[::-1]
        out[order, j] = np.minimum(q, 1.0)
    return out[:, 0] if squeeze else out


def qvalues(p: np.ndarray, depth_of: np.ndarray) -> np.ndarray:
    r"""The family's q-values: BH over single-feature segments, BY over intersections (``p``: one
    p-value per segment, or segments x data sets along axis 0, as :func:`bh_qvalues`).

    When both families hold a *tested* segment (a p-value, not NaN) each gets half the FDR
    budget (its q-values are doubled), so the false-discovery rate of all discoveries together
    stays below ``fdr``: :math:`E[V/R] \le E[V_1/R_1] + E[V_2/R_2]`. A family none of whose
    segments is tested (every intersection below ``min_count``) makes no discovery and spends
    none of the budget: the other family's q-values are its plain BH (or BY) ones.
    """
    p = np.asarray(p, dtype=np.float64)
    P = p[:, None] if p.ndim == 1 else p
    q = np.full(P.shape, np.nan)
    single = depth_of == 1
    inter = depth_of >= 2
    tested = ~np.isnan(P)
    both = tested[single].any(axis=0) & tested[inter].any(axis=0)  # per data set (column)
    factor = np.where(both, 2.0, 1.0)
    if single.any():
        q[single] = np.minimum(1.0, factor * bh_qvalues(P[single]))
    if inter.any():
        q[inter] = np.minimum(1.0, factor * bh_qvalues(P[inter], by=True))
    q[np.isnan(P)] = np.nan
    return q[:, 0] if p.ndim == 1 else q
