"""Weights far from 1 are rescaled by an exact power of two inside (their sums stay in range); the CORP
curve's ``weight`` and the Hosmer-Lemeshow table's ``n``, ``observed`` and ``expected`` are weight sums and
were returned in those internal units: weights of 1e-300 read 0.67 "rows" a point, 1e300 read 0.75. They
are now the caller's sums (the statistics, ratios of sums, were right and stay the same)."""

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e250, 1e300])
def test_corp_curve_weight_in_the_callers_units(scale) -> None:
    rng = np.random.default_rng(0)
    p = np.round(rng.uniform(size=200), 2)
    y = (rng.random(200) < p).astype(int)
    w = rng.integers(1, 5, 200).astype(float)
    unit, scaled = vc.corp(p, y, sample_weight=w), vc.corp(p, y, sample_weight=w * scale)
    np.testing.assert_allclose(scaled.weight, unit.weight * scale, rtol=1e-12)
    np.testing.assert_allclose(scaled.to_dict()["curve"]["weight"], unit.weight * scale, rtol=1e-12)
    assert scaled.brier.mcb == pytest.approx(unit.brier.mcb, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_hosmer_lemeshow_table_in_the_callers_units(scale) -> None:
    rng = np.random.default_rng(1)
    p = rng.uniform(size=400)
    y = (rng.random(400) < p).astype(int)
    w = np.where(np.arange(400) % 7 == 0, 3.0, 1.0)
    unit = vc.hosmer_lemeshow(p, y, sample_weight=w)
    scaled = vc.hosmer_lemeshow(p, y, sample_weight=w * scale)
    for name in ("n", "observed", "expected"):
        np.testing.assert_allclose(getattr(scaled, name), getattr(unit, name) * scale, rtol=1e-12,
                                   err_msg=name)
    assert [row["n"] for row in scaled.to_dict()["table"]] == pytest.approx(list(unit.n * scale), rel=1e-12)
    assert scaled.statistic == pytest.approx(unit.statistic, rel=1e-9)
