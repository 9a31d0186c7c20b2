"""pandas inputs of the PPI functions on different indexes are refused, not paired by position (round 20).

vc.ppi_mean / vc.ppi_audit took labels and scores_labelled as pandas Series with a shuffled index and
paired them by position — each label with another row's score, a silently wrong estimate — while
vc.confidence_sequence, vc.ece and the rest of veracity refuse such inputs in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _window(seed: int = 0):
    rng = np.random.default_rng(seed)
    f = pd.Series(rng.uniform(0, 1, 200), index=np.arange(200) + 1000)
    y = pd.Series((rng.random(200) < f.to_numpy()).astype(int), index=f.index)
    g = pd.Series(rng.uniform(0, 1, 2000))
    return rng, f, y, g


@pytest.mark.parametrize("fn", [vc.ppi_mean, vc.ppi_audit])
def test_shuffled_labels_are_refused(fn) -> None:
    _, f, y, g = _window()
    shuffled = y.sample(frac=1.0, random_state=1)
    with pytest.raises(vc.VeracityError, match="different indexes") as e:
        fn(shuffled, f, g)
    assert "\n" not in str(e.value)
    # aligned, it is the numpy call
    a = fn(shuffled.loc[f.index], f, g)
    b = fn(y.to_numpy(), f.to_numpy(), g.to_numpy())
    assert str(a) == str(b)


@pytest.mark.parametrize("fn", [vc.ppi_mean, vc.ppi_audit])
def test_shuffled_weights_and_masks_are_refused(fn) -> None:
    rng, f, y, g = _window(1)
    w = pd.Series(rng.uniform(0.5, 2, 200), index=f.index).sample(frac=1.0, random_state=2)
    with pytest.raises(vc.VeracityError, match="different indexes"):
        fn(y, f, g, sample_weight=w)
    u = pd.Series(rng.uniform(0.5, 2, g.size), index=g.index).sample(frac=1.0, random_state=3)
    with pytest.raises(vc.VeracityError, match="different indexes"):
        fn(y, f, g, sample_weight_unlabelled=u)
    mask = pd.Series(np.arange(200) % 7 != 0, index=f.index).sample(frac=1.0, random_state=4)
    with pytest.raises(vc.VeracityError, match="different indexes"):
        fn(y, f, g, audit_sample=mask)


def test_shuffled_propensities_are_refused() -> None:
    rng, f, y, g = _window(2)
    pi = pd.Series(np.where(f.to_numpy() > 0.5, 1.0, 0.3), index=f.index).sample(frac=1.0, random_state=5)
    with pytest.raises(vc.VeracityError, match="different indexes"):
        vc.ppi_mean(y, f, g, propensity=pi)


def test_label_plan_refuses_group_keys_on_another_index() -> None:
    _, f, _, _ = _window(3)
    by = pd.Series(np.arange(200) % 2, index=f.index).sample(frac=1.0, random_state=6)
    with pytest.raises(vc.VeracityError, match="different indexes"):
        vc.label_plan(f, width=0.2, by=by)
