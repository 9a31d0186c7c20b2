r"""Score shift between two windows: the population stability index and its noise.

PSI :math:`= \sum_b (a_b - r_b)\ln(a_b / r_b)` over the shares :math:`a_b, r_b` of the two
windows' rows in each score bin (each count +0.5, so empty bins stay finite); the customary
reading is < 0.1 stable, 0.1–0.25 moderate, > 0.25 major. Those thresholds assume large
windows: with no shift at all, :math:`\tfrac{n m}{n + m}\,\mathrm{PSI}` is about
:math:`\chi^2_{B-1}` (B occupied bins), so two windows of 100 rows read "moderate" most of the
time (24 of 29 stationary windows in a seeded check). A shift is therefore called only when it is
material (PSI >= 0.1) **and** real: the chi-square test of homogeneity of the two histograms
rejects at :data:`SHIFT_ALPHA`; a material PSI that the test cannot tell from noise reads
"within noise" (the store's alert asks the same two questions).
"""

from __future__ import annotations

import numpy as np

from ..core._special import chdtrc
# the merging of sparse bins is the one of the PPI random-sample check (delayed labels sit below monitoring)
from ..delayed._ppi import MIN_EXPECTED as MIN_EXPECTED, merge_sparse_bins as _merged  # noqa: F401
from ..delayed._ppi import merge_starts as _merge_starts

#: the chi-square test's level for calling a shift (per window)
SHIFT_ALPHA = 0.01
#: the PSI below which a shift is not material, and above which it is major
PSI_MATERIAL, PSI_MAJOR = 0.1, 0.25


def population_stability(actual: np.ndarray, reference: np.ndarray) -> float:
    r"""PSI :math:`\sum_b (a_b - r_b)\ln(a_b / r_b)` of two per-bin counts (+0.5 smoothing).

    >>> round(population_stability(np.array([50., 50.]), np.array([50., 50.])), 6)
    0.0
    """
    a = np.asarray(actual, dtype=np.float64) + 0.5
    r = np.asarray(reference, dtype=np.float64) + 0.5
    a /= a.sum()
    r /= r.sum()
    return float(np.sum((a - r) * np.log(a / r)))


def _share_covariance(h: np.ndarray, q: np.ndarray) -> np.ndarray:
    r"""The linearised covariance of a weighted histogram's bin shares :math:`s_k = \sum_{i \in k}\omega_i`
    (:math:`\omega = w / \sum w`; ``h``, ``q`` the per-bin sums of the weights and of their squares):
    :math:`\mathrm{Cov}(s_j, s_k) = \sum_i \omega_i^2 (1_{i \in j} - s_j)(1_{i \in k} - s_k)
    = \delta_{jk} Q_j - s_j Q_k - s_k Q_j + s_j s_k Q` with :math:`Q_k = \sum_{i \in k} \omega_i^2`,
    :math:`Q = \sum_k Q_k`. Equal weights give the multinomial :math:`(\mathrm{diag}(s) - s s^\top) / n`."""
    t = float(h.sum())
    sh, Q = h / t, q / t / t
    return np.diag(Q) - np.outer(sh, Q) - np.outer(Q, sh) + np.outer(sh, sh) * Q.sum()


def _design_p(stat: float, a: np.ndarray, qa: np.ndarray, b: np.ndarray, qb: np.ndarray) -> float:
    r"""The p-value of the Pearson statistic ``stat`` of two weighted histograms scaled to their Kish sizes
    (``a``, ``b`` unscaled, ``qa``, ``qb`` the per-bin sums of their squared weights), read
    with Rao & Scott's (1981) second-order (Satterthwaite) correction: the statistic is about
    :math:`\sum_k \lambda_k \chi^2_1` with :math:`\lambda` the eigenvalues of :math:`P^{-1} V` over K − 1
    cells (V the two histograms' summed share covariances, :func:`_share_covariance`; P the multinomial one
    at the pooled shares and the Kish sizes, which the plain test assumes), read as
    :math:`X^2 \sum\lambda / \sum\lambda^2 \sim \chi^2_\nu`, :math:`\nu = (\sum\lambda)^2 / \sum\lambda^2`.
    Weights that rise with the score put the heavy rows in a few bins, whose shares vary more than a Kish
    size says. NaN where it cannot be read."""
    ta, tb = float(a.sum()), float(b.sum())
    na, nb = ta / (float(qa.sum()) / ta), tb / (float(qb.sum()) / tb)
    pooled = (a / ta * na + b / tb * nb) / (na + nb)
    k = a.size - 1
    P = (np.diag(pooled[:k]) - np.outer(pooled[:k], pooled[:k])) * (1.0 / na + 1.0 / nb)
    V = (_share_covariance(a, qa) + _share_covariance(b, qb))[:k, :k]
    try:
        lam = np.linalg.eigvals(np.linalg.solve(P, V)).real
    except np.linalg.LinAlgError:
        return float("nan")
    s1, s2 = float(lam.sum()), float((lam * lam).sum())
    if not (np.isfinite(s1) and np.isfinite(s2) and s1 > 0 and s2 > 0):
        return float("nan")
    return float(chdtrc(s1 * s1 / s2, stat * s1 / s2))


def chi2_homogeneity(a: np.ndarray, b: np.ndarray,
                     design: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None) -> float:
    r"""p-value of the chi-square test that two histograms come from one distribution (NaN when
    fewer than two cells remain or a histogram is empty).

    Sparse bins are merged first (:func:`_merged`): with expected counts near 0 the chi-square law
    is far from the statistic's, and skewed scores (most rows in the lowest bins, a fraud or click
    model's) read stationary windows as shifted two to three times as often as the level says.
    ``design`` (weighted histograms ``a`` and ``b`` scaled to their Kish sizes: the two unscaled histograms,
    each followed by the per-bin sums of its squared weights) reads the statistic with the
    design's own share variances (:func:`_design_p`) where the weights' squares are not spread over the
    bins as the weights are (:math:`\sum w^2 / \sum w` differing between bins): read at the Kish sizes
    alone, the test at 1 % had rejected 8-26 % of stationary pairs of 2,000-row periods, and 7-19 % were
    called shifted (PSI >= 0.1 too); 0-2 % now (log-normal weights of sigma 1.5 correlated 0.8 with the
    logit score; seeded simulation in tests/monitoring/test_claims_r31.py). The p-value is never below the
    plain test's."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    keep = (a + b) > 0
    a, b = a[keep], b[keep]
    if a.size < 2 or a.sum() == 0 or b.sum() == 0:
        return float("nan")
    starts = _merge_starts(a, b)
    a, b = np.add.reduceat(a, starts), np.add.reduceat(b, starts)
    if a.size < 2:
        return float("nan")
    table = np.vstack([a, b])
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    stat = float(((table - expected) ** 2 / expected).sum())
    p = float(chdtrc(a.size - 1, stat))
    if design is not None:
        wa, qa, wb, qb = (np.add.reduceat(np.asarray(v, dtype=np.float64)[keep], starts) for v in design)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            if _uneven(wa, qa) or _uneven(wb, qb):
                p_design = _design_p(stat, wa, qa, wb, qb)
                p = max(p, p_design) if p_design == p_design else p
    return p


def _uneven(h: np.ndarray, q: np.ndarray) -> bool:
    r"""Whether the weights' squares are spread over the occupied bins otherwise than the weights
    (:math:`\sum w^2 / \sum w` not one number): only then do the shares vary otherwise than a Kish size
    says."""
    r = (q / h)[h > 0]
    return bool(r.size > 1 and np.all(np.isfinite(r)) and r.max() > r.min() * (1.0 + 1e-9))


def shift_label(psi: float, p_value: float, rows: float, min_count: float) -> str:
    """The reading of a window's PSI: "" (no reference), "few rows" (under ``min_count`` rows:
    not judged), "stable", "within noise" (material but not told from noise at
    :data:`SHIFT_ALPHA`), "moderate" or "MAJOR"."""
    if psi != psi:
        return ""
    if rows < min_count:
        return "few rows"
    if psi < PSI_MATERIAL:
        return "stable"
    if not p_value < SHIFT_ALPHA:
        return "within noise"
    return "moderate" if psi <= PSI_MAJOR else "MAJOR"
