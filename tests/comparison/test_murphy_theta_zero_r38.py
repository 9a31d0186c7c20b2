"""At theta = 0 every model flags every row (p >= 0), so no row is discordant whatever the data and the
Murphy difference is exactly 0 with no uncertainty: its band is [0, 0] with p = 1, as for two models with
the same scores. The discordant cells' Wilson reach gave it +-z^2/(n + z^2) (+-0.037 on 100 rows)."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("weighted", [False, True])
def test_the_band_at_theta_0_has_no_width(weighted):
    rng = np.random.default_rng(38)
    p = rng.random(100)
    y = (rng.random(100) < p).astype(int)
    w = rng.lognormal(0, 1, 100) if weighted else None
    d = vc.murphy_diagram({"m": p, "k": p ** 2}, y, theta=[0.0, 0.5], sample_weight=w).difference
    assert (d.diff[0], d.ci_low[0], d.ci_high[0], d.p_value[0]) == (0.0, 0.0, 0.0, 1.0)
    assert d.ci_low[1] < d.diff[1] < d.ci_high[1]  # elsewhere the band as before
