"""With fewer redraws than a p-value at the level needs (1/(R + 1) > alpha), the report's ECE card showed a
green "within noise" beside an ECE eight times its floor; it now says the noise floor is undecided (round 34)."""
import numpy as np

import veracity as vc
from veracity.reporting._sections import _summary


def _rows():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=2000)
    return p, (rng.uniform(size=2000) < p ** 3).astype(int)


def test_too_few_redraws_read_undecided_not_within_noise():
    p, y = _rows()
    html = _summary(vc.audit(p, y, noise_floor=True, n_resamples=10), "binary")
    assert "undecided (too few redraws)" in html and "within noise" not in html


def test_enough_redraws_keep_the_verdict():
    p, y = _rows()
    html = _summary(vc.audit(p, y, noise_floor=True, n_resamples=40), "binary")
    assert "above noise" in html and "undecided" not in html
