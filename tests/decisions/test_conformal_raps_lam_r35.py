"""RAPS with a huge penalty: every lam above 1 gives the same sets (one rank's penalty outweighs the whole
probability mass), but past about 1e12 floating point lost the probabilities the penalty is added to, and
every class of q̂'s rank entered the set: lam = 1e15 gave sets of mean size 3.0 where lam = 2 gives 2.765,
silently; lam = 1e308 overflowed and was refused as "scores contains ... infinite values". Refused past 1e6
in one line naming lam."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _data():
    rng = np.random.default_rng(0)
    z = rng.normal(0.0, 1.5, (3000, 5))
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (rng.random((3000, 1)) > p.cumsum(axis=1)).sum(axis=1).clip(0, 4)
    return p, y


@pytest.mark.parametrize("randomized", [False, True])
def test_every_lam_above_one_up_to_the_limit_gives_the_same_sets(randomized):
    p, y = _data()
    sets = [vc.ConformalClassifier(alpha=0.1, score="raps", lam=lam, randomized=randomized, random_state=1)
            .fit(p[:1000], y[:1000]).predict_sets(p[1000:]) for lam in (1.5, 1e3, 1e6)]
    assert all((s == sets[0]).all() for s in sets[1:])


@pytest.mark.parametrize("lam", [1e15, 1e308])
def test_a_lam_past_the_limit_is_refused_in_one_line(lam, error_line):
    p, y = _data()
    cp = vc.ConformalClassifier(alpha=0.1, score="raps", lam=lam)
    text = error_line(lambda: cp.fit(p[:1000], y[:1000]))
    assert text.startswith("lam must be at most 1,000,000")
    assert "every lam above 1 gives the same sets" in text
