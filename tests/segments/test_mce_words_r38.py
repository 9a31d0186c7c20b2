"""The MCE's p-value line counts its draws in the number it takes (session 38): ``n_resamples=1`` read
"p <= 0.500 in 1 draws under calibration" in the printout and "(1 draws under calibration, ...)" in the
notebook's summary."""

from __future__ import annotations

import numpy as np

import veracity as vc

rng = np.random.default_rng(3803)
N = 400
G = rng.choice(["a", "b"], N)
P = rng.uniform(0.05, 0.95, N)
Y = (rng.uniform(size=N) < P).astype(int)


def test_one_draw_is_one_draw():
    result = vc.segments(P, Y, features={"g": G}, n_resamples=1)
    text = str(result)
    assert " in 1 draw under calibration, over " in text, text
    assert "1 draws" not in text
    assert any(key.startswith("MCE p-value, corrected for the maximum (1 draw under calibration, ")
               for key in result._summary_items()), list(result._summary_items())
    many = str(vc.segments(P, Y, features={"g": G}, n_resamples=19))
    assert " in 19 draws under calibration" in many
