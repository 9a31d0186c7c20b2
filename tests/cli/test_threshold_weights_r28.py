"""Round 28: ``veracity threshold --sample-weight`` printed its weight sums with fmt_count, so 100 rows
weighing 0.1 printed a weight of "10.0" (their float sum, 9.999999999999998) where ``vc.threshold_table``
prints "10": the command and the library disagreed on the same table."""

from __future__ import annotations

import numpy as np


def test_weight_sums_print_as_the_library_prints_them(cli, tmp_path):
    rng = np.random.default_rng(0)
    p = rng.uniform(size=100)
    y = (rng.uniform(size=100) < p).astype(int)
    path = tmp_path / "w.csv"
    path.write_text("p,y,w\n" + "".join(f"{a!r},{b},0.1\n" for a, b in zip(p.tolist(), y.tolist())))
    assert sum([0.1] * 100) != 10.0  # the float sum is not 10
    result = cli(["threshold", path, "--score", "p", "--label", "y", "--sample-weight", "w"])
    assert result.code == 0, result.err
    header, row = result.out.splitlines()[2:4]
    cells = dict(zip(["role", "weight", "threshold", "TP", "FP", "FN", "TN"], row.split()))
    assert header.split()[:2] == ["role", "weight"]
    assert cells["weight"] == "10"
    tp = 0.1 * np.count_nonzero((p >= 0.5) & (y == 1))
    assert cells["TP"] == f"{tp:.1f}"
