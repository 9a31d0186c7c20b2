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
from ..delayed._ppi import MIN_EXPECTED as MIN_EXPECTED, merge_sparse_bins as _merged

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


def chi2_homogeneity(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of the chi-square test that two histograms come from one distribution (NaN when
    fewer than two cells remain or a histogram is empty).

    Sparse bins are merged first (:func:`_merged`): with expected counts near 0 the chi-square law
    is far from the statistic's, and skewed scores (most rows in the lowest bins, a fraud or click
    model's) read stationary windows as shifted two to three times as often as the level says."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    keep = (a + b) > 0
    a, b = a[keep], b[keep]
    if a.size < 2 or a.sum() == 0 or b.sum() == 0:
        return float("nan")
    a, b = _merged(a, b)
    if a.size < 2:
        return float("nan")
    table = np.vstack([a, b])
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    stat = float(((table - expected) ** 2 / expected).sum())
    return float(chdtrc(a.size - 1, stat))


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
