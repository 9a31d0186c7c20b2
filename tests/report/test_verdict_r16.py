"""The summary's one-line verdict: what its interval is, and what it says when no bin is judged.

Before: "(the observed frequency lies below / above the interval around the mean confidence)" —
but the interval is the observed frequency's binomial interval, compared with the mean confidence;
"1 are over-confident"; and with 5 rows, "Of 0 bins with at least 20 observations, 0 are
over-confident and 0 under-confident", which reads as a clean bill where nothing was judged."""

from __future__ import annotations

import numpy as np

import veracity as vc


def test_verdict_names_the_interval_it_compares():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, 3000)
    y = (rng.uniform(size=3000) < p).astype(int)
    page = vc.report(p, y, bootstrap=False, figures=False).html
    assert "the 95% interval of the observed frequency lies wholly below / above the mean confidence" in page
    assert "lies below / above the interval around the mean confidence" not in page


def test_one_overconfident_bin_is_singular():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.01, 0.99, 4000)
    y = (rng.uniform(size=4000) < p).astype(int)
    hot = (p > 0.9) & (p < 0.95)
    y[hot] = (rng.uniform(size=int(hot.sum())) < 0.5).astype(int)  # one bin far below its confidence
    table = vc.reliability(p, y, bins=20)
    over = sum(r.sufficient and r.ci_high < r.conf for r in table.rows)
    assert over == 1
    page = vc.report(p, y, bins=20, bootstrap=False, figures=False).html
    assert "<strong>1</strong> is over-confident" in page


def test_no_judged_bin_says_so():
    page = vc.report(np.array([.2, .4, .6, .8, .9]), np.array([0, 1, 0, 1, 1]), bootstrap=False,
                     figures=False).html
    assert "No bin has at least 20 observations, so none is judged over- or under-confident." in page
    assert "Of 0 bins" not in page
