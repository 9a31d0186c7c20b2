"""Session 16: the random-sample check of a window labelled almost in full."""

import numpy as np
import pytest

import veracity as vc
from veracity.delayed._ppi import sample_check_p


def test_a_window_labelled_almost_in_full_at_random_is_not_called_non_random():
    # 400 of 405 rows labelled at random: five unlabelled rows spread over ten bins expect < 1 row a cell,
    # and the unmerged chi-square test refused the random sample in 11 % of windows (p < 1e-4 nominal);
    # 99,990 of 100,000 rows: 4.6 %
    rng = np.random.default_rng(16)
    refused = 0
    for _ in range(200):
        f = rng.beta(2, 5, 405)
        y = (rng.random(405) < f).astype(int)
        idx = rng.permutation(405)
        r = vc.ppi_mean(y[idx[:400]], f[idx[:400]], f[idx[400:]], sample_check="flag")
        refused += not r.valid
    assert refused == 0
    # and never raised: the default mode refuses a non-random sample with an error
    for _ in range(50):
        f = rng.beta(2, 5, 1000)
        y = (rng.random(1000) < f).astype(int)
        idx = rng.permutation(1000)
        vc.ppi_mean(y[idx[:990]], f[idx[:990]], f[idx[990:]])


def test_merged_cells_expect_five_rows_of_the_smaller_side_and_large_samples_keep_their_ten_bins():
    from veracity.delayed._ppi import merge_sparse_bins

    a = np.array([40.0, 40, 40, 40, 40, 40, 40, 40, 40, 40])
    b = np.array([1.0, 0, 1, 0, 1, 0, 1, 0, 0, 1])
    ma, mb = merge_sparse_bins(a, b)
    assert ma.sum() == a.sum() and mb.sum() == b.sum()
    expected_b = (ma + mb) * mb.sum() / (ma.sum() + mb.sum())
    assert (expected_b >= 5 - 1e-9).all() or ma.size == 1
    # well-filled histograms are left as they are: the chi-square test of the given table
    a, b = np.full(10, 40.0), np.full(10, 1960.0)
    assert [x.size for x in merge_sparse_bins(a, b)] == [10, 10]


def test_a_flagged_only_sample_is_still_refused():
    rng = np.random.default_rng(3)
    f = rng.beta(0.5, 4.5, 20_000)
    y = (rng.random(f.size) < f).astype(int)
    flagged = np.flatnonzero(f >= 0.3)[:400]
    others = np.setdiff1d(np.arange(f.size), flagged)
    with pytest.raises(vc.VeracityError, match="not a random sample"):
        vc.ppi_mean(y[flagged], f[flagged], f[others])
    # the histogram p-value itself is unchanged: the plain chi-square test of the two histograms
    assert sample_check_p(np.array([10, 10]), np.array([10, 10])) == pytest.approx(1.0)
