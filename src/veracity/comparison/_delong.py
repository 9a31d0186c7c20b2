r"""DeLong's paired test of two AUCs for ``vc.compare_models``: the one implementation lives in
:mod:`veracity.core._delong` (the calibrator ledger, a lower layer, reads it too); its names are
re-exported here, where the comparison modules, the benchmarks and the tests import them.

Placements from one sort per model (DeLong, DeLong & Clarke-Pearson 1988), the (weighted) covariance
of the models' AUCs, each class's term scaled by its small-sample factor :math:`\kappa_c`
(:math:`n_c/(n_c - 1)` for equal weights),

.. math:: \mathrm{Cov}(\hat A_a, \hat A_b) = \kappa_1\frac{\sum_{y_i=1} w_i^2 (V^a_{10}(i) - \hat A_a)(V^b_{10}(i) - \hat A_b)}{W_1^2}
          + \kappa_0\frac{\sum_{y_j=0} w_j^2 (V^a_{01}(j) - \hat A_a)(V^b_{01}(j) - \hat A_b)}{W_0^2}

and Student's t test of :math:`\hat A_b - \hat A_a` with variance
:math:`\mathrm{Var}_a + \mathrm{Var}_b - 2\,\mathrm{Cov}_{ab}` on the Welch-Satterthwaite degrees of
freedom of the two class terms (the normal test with hundreds of rows of each class): see
:mod:`veracity.core._delong`.
"""

from __future__ import annotations

from ..core._delong import (  # noqa: F401 - re-exported: the comparison's import path for DeLong
    CHUNK,
    KEY_BITS,
    Ranked,
    argsort,
    auc_interval,
    delong_covariance,
    delong_difference,
    delong_test,
    rank_model,
    rank_models,
    same_ranking,
)

