"""The PPI figure's CBPE row counts the scores CBPE reads (session 31).

CBPE, the label-free estimate, is the mean score of every row of the window, the labelled rows too
(``cbpe = (Σ f_labelled + Σ f_unlabelled) / N``). The figure named its row "CBPE, 825 scores" for a June of
975 scored rows of which 150 were labelled: the count of the unlabelled rows only. The row now counts all.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("matplotlib")


def test_the_cbpe_row_counts_every_scored_row():
    rng = np.random.default_rng(4)
    f = rng.uniform(0.05, 0.6, 975)
    y = (rng.random(975) < f).astype(int)
    audit = rng.choice(975, 150, replace=False)
    rest = np.setdiff1d(np.arange(975), audit)
    r = vc.ppi_mean(y[audit], f[audit], f[rest])
    # the CBPE estimate is the mean score of all 975 rows, not of the 825 unlabelled ones
    assert r.cbpe == pytest.approx(f.mean(), abs=1e-12)
    assert r.cbpe != pytest.approx(f[rest].mean(), abs=1e-6)
    names = [t.get_text() for t in r.plot().axes[0].get_yticklabels()]
    cbpe = next(n for n in names if n.startswith("CBPE"))
    assert cbpe.splitlines()[0] == "CBPE, 975 scores", names
