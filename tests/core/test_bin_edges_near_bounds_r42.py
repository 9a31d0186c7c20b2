"""A reliability table names bins whose edges lie within 1e-4 of 0 or 1 apart (round 42).

Quantile bins of rare-event scores (or of near-certain ones) printed their edges at 4 decimals:
"[0.0,0.0000)", "[0.0000,0.0000)", and "[0.0000,1.0000)" for a bin of scores 3e-6 to 0.99999 — two bins
that read alike and one that read as the whole axis; the empty-bin note the same. Such an edge now shows its
distance to the bound to two significant digits, alike in both rows it bounds."""
import numpy as np

import veracity as vc


def _table():
    rng = np.random.default_rng(3)
    p = np.r_[rng.uniform(1e-7, 5e-6, 200), rng.uniform(0.99999, 0.999999, 200)]
    return vc.reliability(p, (rng.uniform(size=400) < p).astype(int), bins=6, strategy="quantile")


def test_edges_near_0_and_1_are_told_apart():
    table = _table()
    labels = [line.split()[0] for line in str(table).splitlines()[1:7]]
    assert len(set(labels)) == 6, labels
    ends = [tuple(float(x) for x in label[1:-1].split(",")) for label in labels]
    for (lo, hi), row in zip(ends, table.rows):
        assert lo < hi, labels  # no bin reads as empty ([0.0000,0.0000)) ...
        assert abs(lo - row.lo) <= 0.05 * max(min(row.lo, 1 - row.lo), 1e-300) or lo == row.lo, (labels, row)
        assert hi < 1.0 or row.hi == 1.0, labels  # ... nor as reaching 1
    # an edge reads the same in the two rows it bounds
    assert all(a[1] == b[0] for a, b in zip(ends, ends[1:])), labels


def test_edges_elsewhere_keep_their_four_decimals():
    from veracity.core._text import fmt_edge_pair

    assert fmt_edge_pair(0.0, 0.2) == ("0.0", "0.2")
    assert fmt_edge_pair(0.0245123, 0.06561) == ("0.0245", "0.0656")
    assert fmt_edge_pair(0.00023, 0.0009) == ("0.0002", "0.0009")
    assert fmt_edge_pair(0.9333333333333333, 1.0) == ("0.9333", "1.0")


def test_tiny_edges():
    from veracity.core._text import fmt_edge_pair

    assert fmt_edge_pair(0.0, 1e-300) == ("0.0", "1e-300")
    assert fmt_edge_pair(1 - 2**-53, 1.0) == ("0.9999999999999999", "1.0")
    assert fmt_edge_pair(2.341e-6, 2.345e-6) == ("0.000002341", "0.000002345")  # distinct ends stay distinct
    assert _table().rows[0].label(False) == "[0.0,0.0000019)"
