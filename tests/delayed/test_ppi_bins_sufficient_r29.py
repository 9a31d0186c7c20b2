"""Session 29: vc.ppi_audit's per-bin "sufficient" flag reads the labels' Kish size under uneven weights.

A bin was marked sufficient from 30 labelled rows, however they were weighted: 40 labels of which one
weighs 50 (Kish size 3.4) were "sufficient" while a reliability table's bin or a segment with the same rows
is insufficient (core._binning.enough_effective on (sum w)^2 / sum w^2). The bins now use the same rule on
their labelled rows' weights; equal weights mark the bins the counts mark (up to the sums' rounding).
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.delayed._audit import MIN_LABELS

EDGES = [0.0, 0.5, 1.0]


def _window(rng: np.random.Generator, n_high: int):
    """200 labels scored below 0.5 and ``n_high`` above, 1,000 unlabelled rows; calibrated scores."""
    f = np.concatenate([rng.uniform(0.05, 0.45, 200), rng.uniform(0.55, 0.95, n_high)])
    y = (rng.random(f.size) < f).astype(float)
    g = rng.uniform(0.05, 0.95, 1000)
    return y, f, g


def _bin(audit, lo: float) -> dict:
    (row,) = [r for r in audit.rows if r.get("lo") == lo]
    return row


def test_a_bin_whose_weight_sits_on_one_label_is_insufficient():
    rng = np.random.default_rng(1)
    y, f, g = _window(rng, 40)
    w = np.ones(f.size)
    w[-1] = 50.0  # the upper bin: 39 labels weighing 1 and one weighing 50
    kish = (39 + 50.0) ** 2 / (39 + 2500.0)
    assert kish < 4
    plain = vc.ppi_audit(y, f, g, bins=EDGES, sample_check="off")
    a = vc.ppi_audit(y, f, g, bins=EDGES, sample_weight=w, sample_check="off")
    assert _bin(plain, 0.5)["sufficient"] is True
    high = _bin(a, 0.5)
    assert high["n_labelled"] == 40 and high["sufficient"] is False
    assert _bin(a, 0.0)["sufficient"] is True  # 200 labels weighing 1
    assert ("rate in [0.5, 1]: fewer than 30 effective labels (the Kish size of their uneven weights)"
            in a.note)
    assert "insufficient" in str(a)


@pytest.mark.parametrize("weight", [1.0, 0.1, 3.7, 1e-3])
@pytest.mark.parametrize("n_high", [29, 30, 31])
def test_equal_weights_mark_the_bins_the_counts_mark(weight, n_high):
    """30 labels weighing 0.1 each have a Kish size of 30 up to rounding: sufficient, as without weights."""
    rng = np.random.default_rng(n_high)
    y, f, g = _window(rng, n_high)
    plain = vc.ppi_audit(y, f, g, bins=EDGES, sample_check="off")
    a = vc.ppi_audit(y, f, g, bins=EDGES, sample_weight=np.full(f.size, weight),
                     sample_weight_unlabelled=np.full(g.size, weight), sample_check="off")
    assert _bin(a, 0.5)["sufficient"] is (n_high >= MIN_LABELS)
    assert str(a) == str(plain) and a.note == plain.note


def test_no_bin_is_sufficient_below_30_effective_labels_in_weighted_windows():
    """Seeded: 60 windows of 400 labels with log-normal weights (sigma 0.5-1.2) over 10 equal-width bins.
    Every bin's flag is the Kish rule on its labelled rows, worked out here from the rows; before, bins with
    30 rows or more were all sufficient (189 of the 368 here have a Kish size below 30)."""
    rng = np.random.default_rng(29)
    edges = np.linspace(0, 1, 11)
    seen = {True: 0, False: 0}
    for i in range(60):
        sigma = 0.5 + 0.7 * (i % 8) / 7
        f = rng.beta(2, 3, 400)
        y = (rng.random(f.size) < f).astype(float)
        w = np.exp(sigma * rng.normal(size=f.size))
        g = rng.beta(2, 3, 2000)
        a = vc.ppi_audit(y, f, g, bins=edges, sample_weight=w, sample_check="off")
        k = np.searchsorted(edges[1:-1], f, side="right")
        for r in a.rows:
            if "sufficient" not in r:
                continue
            wb = w[k == int(np.searchsorted(edges, r["lo"]))]
            assert wb.size == r["n_labelled"]
            kish = wb.sum() ** 2 / (wb @ wb) if wb.size else 0.0
            assert abs(kish - MIN_LABELS) > 1e-6  # away from the rounding margin
            enough = bool(wb.size >= MIN_LABELS and kish >= MIN_LABELS)
            assert r["sufficient"] is enough, (r["quantity"], kish)
            if wb.size >= MIN_LABELS:
                seen[bool(kish >= MIN_LABELS)] += 1
    assert seen[True] > 50 and seen[False] > 50, seen  # both kinds of bin with 30 rows or more were met
