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

**Weighted, heavy-tailed weights.** The interval of one weighted AUC under-covers where the smaller class's
Kish effective size is below 100 (the audit's bootstrap interval notes it:
:data:`veracity.honest._bootstrap.WEIGHTED_AUC_NOTE`); the paired *difference* held its level wherever
tried, and its coverage but near an AUC of 1 (below), where it falls short unweighted too, so the comparison's
AUC row carries no such note. Seeded simulation
(tests/comparison/test_compare_weighted_auc_r32.py; :math:`p \sim U(0, 1)`,
:math:`y \sim \mathrm{Bernoulli}(p)`, :math:`w = e^{\sigma Z + 2p}`, :math:`\sigma` 0, 0.5, 1, 1.2, 300 and
1,000 rows, smaller Kish sizes about 15-490, 3,000-4,000 draws a setting; models
:math:`\mathrm{logit}\,p + N(0, \tau)`): two exchangeable models were called different in 2.2-5.5 % of
draws at 5 %, and the 95 % interval covered the true weighted difference (0.036-0.15) in 0.940-0.964 of
draws, where the normal interval of one model's weighted AUC covered 0.90-0.945 at :math:`\sigma \ge 1`. At
AUCs near 0.93 (:math:`p \sim \mathrm{Beta}(0.3, 0.3)`) and a difference of 0.08 it covered 0.929-0.944
weighted and 0.942-0.953 unweighted, its misses on one side (DeLong's skew near an AUC of 1); a t quantile on
the smaller class's Kish size less one (0.936 where 0.929) did not mend that.
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

