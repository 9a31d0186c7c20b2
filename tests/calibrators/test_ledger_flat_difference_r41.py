"""Round 41: vc.compare's Brier, NLL and accuracy changes used the paired t interval even where every row's
difference is the same nonzero value: on separated rows a map pushed to 0 and 1 printed "NLL -0.2231
[-0.2231, -0.2231] better", an interval of no width claiming certainty about rows it never saw. As
vc.compare_models reads such a difference (n/a, round 41), the interval is n/a and the verdict "better (no
interval)"; a difference that varies keeps its t interval."""

from __future__ import annotations

import warnings

import numpy as np

import veracity as vc


def test_a_flat_per_row_change_has_no_interval():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    p = np.where(y == 1, 0.8, 0.2)  # separated: the fit pushes every score to 0 or 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = vc.PlattScaling().fit(p[:200], y[:200])
        led = vc.compare(p[200:], y[200:], cal)
    rows = {r["metric"]: r for r in led.to_dict()["rows"]}
    for metric in ("NLL", "Brier"):
        assert rows[metric]["ci_low"] != rows[metric]["ci_low"]  # NaN: no interval
        assert rows[metric]["verdict"] == "better (no interval)"
        line = next(t for t in str(led).splitlines() if t.startswith(metric))
        assert "n/a" in line and "better (no interval)" in line, line


def test_a_varying_change_keeps_its_interval():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.05, 0.95, 2000)
    y = (rng.uniform(size=2000) < p ** 1.5).astype(int)
    cal = vc.PlattScaling().fit(p[:1000], y[:1000])
    line = next(l for l in str(vc.compare(p[1000:], y[1000:], cal)).splitlines() if l.startswith("Brier"))
    assert "n/a" not in line and "[" in line
