"""vc.monitor's default PSI reference is the first period with min_count rows: a 3-row first period made
every later period's PSI "within noise" against a histogram of 3 rows."""
from __future__ import annotations

import numpy as np

import veracity as vc


def test_a_tiny_first_period_is_not_the_reference() -> None:
    rng = np.random.default_rng(1)
    sizes = [3, 2000, 2000, 2000]
    periods = np.repeat(["2026-01", "2026-02", "2026-03", "2026-04"], sizes)
    # the scores shift in the last period: Beta(2, 5) -> Beta(5, 2)
    p = np.concatenate([rng.beta(2, 5, sum(sizes[:3])), rng.beta(5, 2, sizes[3])])
    y = (rng.uniform(size=p.size) < p).astype(int)
    res = vc.monitor(p, y, periods)
    assert res.reference == "2026-02"
    rows = {r.period: r for r in res.rows}
    assert rows["2026-03"].psi < 0.1 and rows["2026-04"].psi > 0.25
    assert "within noise" not in rows["2026-04"].shift
    # named explicitly, the tiny period is still taken
    assert vc.monitor(p, y, periods, reference="2026-01").reference == "2026-01"


def test_without_a_large_period_the_first_is_the_reference() -> None:
    rng = np.random.default_rng(2)
    periods = np.repeat(["a", "b"], [5, 6])
    p = rng.uniform(size=11)
    assert vc.monitor(p, (rng.uniform(size=11) < p).astype(int), periods).reference == "a"
