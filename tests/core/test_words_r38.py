"""Printouts: "1 uniform bin", not "1 uniform bins", in the audit's header, the notebook's reliability table and
BinStats' repr; threshold=-0.0 reads 0 on the array route ("acc(-0)" before) — session 38."""

import numpy as np

import veracity as vc


def _data():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 300)
    return p, (rng.uniform(size=300) < p).astype(int)


def test_one_bin_is_singular_everywhere():
    p, y = _data()
    result = vc.audit(p, y, bins=1)
    assert "1 uniform bin\n" in str(result) and "1 uniform bins" not in str(result)
    assert "1 uniform bins" not in vc.reliability(p, y, bins=1)._repr_html_()
    assert "15 uniform bins" in str(vc.audit(p, y))


def test_negative_zero_threshold_reads_zero():
    p, y = _data()
    result = vc.audit(p, y, threshold=-0.0)
    assert str(result.threshold) == "0.0" and "acc(0) " in str(result) and "acc(-0)" not in str(result)
    assert result.to_dict()["threshold"] == 0.0 and str(result.to_dict()["threshold"]) == "0.0"
