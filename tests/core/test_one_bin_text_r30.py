"""One bin is "1 uniform bin" in the table's summary line (before: "1 uniform bins")."""

import numpy as np

import veracity as vc


def test_one_bin_is_singular_and_ten_stay_plural() -> None:
    p, y = np.linspace(0.01, 0.99, 64), np.arange(64) % 2
    assert "(64 points in 1 uniform bin)" in str(vc.reliability(p, y, bins=1))
    assert "(64 points in 10 uniform bins" in str(vc.reliability(p, y, bins=10))
    assert "1 quantile bin;" in vc.reliability(p, y, bins=1, strategy="quantile")._title()
