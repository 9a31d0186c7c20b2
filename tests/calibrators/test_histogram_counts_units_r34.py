"""``HistogramBinning.counts_`` (the weight per bin) in the caller's units: weights rescaled by an exact 2^k inside
the fit had left 2^k·Σw there (bins of 1e-200 weights read 16.8), on arrays and on frames (round 34)."""
import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _data(scale):
    rng = np.random.default_rng(0)
    s = rng.uniform(size=100)
    y = (rng.uniform(size=100) < s).astype(int)
    w = np.where(rng.uniform(size=100) < 0.5, 1.0, 2.0)
    with np.errstate(over="ignore"):  # Σw per quarter, exact (inf beyond the largest double)
        expected = np.bincount(np.minimum((s * 4).astype(int), 3), weights=w) * scale
    return s, y, w * scale, expected


@pytest.mark.parametrize("scale", [2.0 ** -660, 1e-200, 1.0, 1e300])
@pytest.mark.parametrize("form", ["array", "pandas", "duckdb"])
def test_counts_are_the_bins_weight_totals(scale, form):
    s, y, w, expected = _data(scale)
    if form == "array":
        cal = vc.HistogramBinning(bins=4).fit(s, y, sample_weight=w)
    else:
        df = pd.DataFrame({"s": s, "y": y, "w": w})
        data = df if form == "pandas" else pytest.importorskip("duckdb").from_df(df)
        cal = vc.HistogramBinning(bins=4).fit(data, score="s", label="y", sample_weight="w")
    np.testing.assert_allclose(cal.counts_, expected, rtol=1e-12)


def test_totals_beyond_the_largest_double_are_kept_finite_and_saved(tmp_path):
    s, y, w, _ = _data(1e307)
    cal = vc.HistogramBinning(bins=4).fit(s, y, sample_weight=w)
    assert np.all(cal.counts_ == np.finfo(np.float64).max)
    cal.save(tmp_path / "h.json")
    np.testing.assert_array_equal(vc.load(tmp_path / "h.json").counts_, cal.counts_)
