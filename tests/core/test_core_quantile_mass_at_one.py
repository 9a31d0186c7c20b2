"""Quantile bins keep a mass of scores at 1 apart (they were merged with the bin below).

Before: scores of only 0 and 1 (a hard classifier, or scores clipped at 1) gave one quantile
bin [0, 1]; its gap averaged the 0s' miscalibration (+0.2) with the 1s' (-0.2) into an ECE of
0, and ``HistogramBinning(strategy="quantile")`` mapped every score to the base rate.
"""

import numpy as np
import pandas as pd
import pytest

import veracity as vc

P = np.r_[np.zeros(500), np.ones(500)]
Y = np.r_[np.zeros(400), np.ones(100), np.zeros(100), np.ones(400)]


def test_scores_of_0_and_1_are_two_quantile_bins():
    table = vc.reliability(P, Y, strategy="quantile", bins=10)
    assert [r.count for r in table.rows] == [500, 500]
    assert table.ece == pytest.approx(0.2, abs=1e-12)  # |0.2 - 0| and |0.8 - 1|, half the rows each
    assert vc.ece(P, Y, strategy="quantile", bins=10) == pytest.approx(vc.ece(P, Y, bins=10), abs=1e-12)


def test_histogram_binning_on_quantile_bins_maps_0_and_1_to_their_rates():
    cal = vc.HistogramBinning(strategy="quantile", bins=10).fit(P, Y)
    assert cal.transform([0.0, 1.0]) == pytest.approx([0.2, 0.8], abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_a_mass_at_1_is_its_own_bin_on_every_backend(seed):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(seed)
    s = np.where(rng.uniform(size=2000) < 0.3, 1.0, rng.uniform(size=2000))
    y = (rng.uniform(size=2000) < 0.9 * s).astype(int)
    want = vc.reliability(s, y, strategy="quantile", bins=5)
    ones = s == 1.0
    last = want.rows[-1]
    assert last.count == ones.sum() and last.acc == pytest.approx(y[ones].mean(), rel=1e-12)
    df = pd.DataFrame({"s": s, "y": y})
    for frame in (duckdb.from_df(df), pl.from_pandas(df).lazy()):
        got = vc.reliability(frame, score="s", label="y", strategy="quantile", bins=5)
        assert [r.count for r in got.rows] == [r.count for r in want.rows]
        assert got.ece == pytest.approx(want.ece, rel=1e-12)
