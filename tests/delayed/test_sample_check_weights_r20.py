"""The random-sample check reads the weights (round 20).

PPI with ``sample_weight=`` (``ppi_py``'s ``w``: importance weights) is valid when the *weighted* labelled
rows look like the (weighted) unlabelled rows — a stratified review that labels 200 of the flagged payments
and 200 of the others, each weighted by its stratum's unlabelled rows over its labels. The check compared
the *unweighted* score histograms and refused every such window as "not a random sample". The check is
now on the weighted histograms, each side counted by its Kish size (sum w)^2 / sum w^2 (equal weights:
the counts, the unweighted check exactly)."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.delayed._ppi import _sample_check


def _window(seed: int, N: int = 20000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    f = rng.beta(0.5, 4.5, N)
    y = (rng.random(N) < f).astype(float)
    return rng, f, y


def _stratified(rng: np.random.Generator, f: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    high, low = np.flatnonzero(f >= 0.3), np.flatnonzero(f < 0.3)
    lab = np.r_[rng.choice(high, 200, replace=False), rng.choice(low, 200, replace=False)]
    # each stratum's unlabelled rows over its labels
    w = np.r_[np.full(200, (high.size - 200) / 200), np.full(200, (low.size - 200) / 200)]
    rest = np.ones(f.size, dtype=bool)
    rest[lab] = False
    return lab, w, rest


def test_a_stratified_sample_with_its_survey_weights_is_not_refused() -> None:
    for seed in range(20):
        rng, f, y = _window(seed)
        lab, w, rest = _stratified(rng, f)
        r = vc.ppi_mean(y[lab], f[lab], f[rest], sample_weight=w)  # refused before: "not a random sample"
        assert r.valid and r.sample_p > 1e-3
        a = vc.ppi_audit(y[lab], f[lab], f[rest], sample_weight=w)
        assert a.valid


def test_the_same_labels_without_their_weights_are_still_refused() -> None:
    rng, f, y = _window(1)
    lab, w, rest = _stratified(rng, f)
    with pytest.raises(vc.VeracityError, match="not a random sample"):
        vc.ppi_mean(y[lab], f[lab], f[rest])
    with pytest.raises(vc.VeracityError, match="not a random sample"):  # weights that do not undo the design
        vc.ppi_mean(y[lab], f[lab], f[rest], sample_weight=np.full(400, 3.0))


def test_flagged_rows_only_are_refused_whatever_their_weights() -> None:
    rng, f, y = _window(2)
    flagged = np.flatnonzero(f >= 0.3)[:400]
    rest = np.setdiff1d(np.arange(f.size), flagged)
    w = rng.uniform(0.5, 2.0, 400)
    with pytest.raises(vc.VeracityError, match="not a random sample"):
        vc.ppi_mean(y[flagged], f[flagged], f[rest], sample_weight=w)
    with pytest.raises(vc.VeracityError, match="not a random sample"):
        vc.ppi_mean(y[flagged], f[flagged], f[rest], sample_weight=w,
                    sample_weight_unlabelled=np.ones(rest.size))


def test_random_samples_with_population_weights_on_both_sides_pass() -> None:
    """A uniform random audit sample of a weighted window (weights on every row, heavy or mild) is what
    the weighted check must accept: 200 windows, no refusal at p < 1e-4."""
    refused = 0
    for seed in range(200):
        rng, f, y = _window(100 + seed, N=5000)
        w = rng.lognormal(0.0, 1.0, f.size) if seed % 2 else np.where(rng.random(f.size) < 0.01, 100.0, 1.0)
        lab = rng.choice(f.size, 300, replace=False)
        rest = np.ones(f.size, dtype=bool)
        rest[lab] = False
        r = vc.ppi_mean(y[lab], f[lab], f[rest], sample_weight=w[lab], sample_weight_unlabelled=w[rest],
                        sample_check="flag")
        refused += not r.valid
    assert refused == 0


def test_equal_weights_are_the_unweighted_check() -> None:
    rng, f, _ = _window(3, N=3000)
    lab = rng.choice(f.size, 200, replace=False)
    rest = np.setdiff1d(np.arange(f.size), lab)
    p0 = _sample_check(f[lab], f[rest])
    assert _sample_check(f[lab], f[rest], np.full(200, 7.0), None) == pytest.approx(p0, rel=1e-12)
    both = _sample_check(f[lab], f[rest], np.full(200, 7.0), np.full(rest.size, 0.5))
    assert both == pytest.approx(p0, rel=1e-12)


def test_the_refusal_names_every_way_out_of_it() -> None:
    """A designed sample (every flagged row and a random share of the others) is refused as plain PPI; the
    message named only audit_sample=, not propensity= (the documented way for a known design)."""
    rng, f, y = _window(4)
    pi = np.where(f >= 0.3, 1.0, 0.03)
    lab = rng.random(f.size) < pi
    with pytest.raises(vc.VeracityError, match="not a random sample") as e:
        vc.ppi_mean(y[lab], f[lab], f[~lab])
    assert "propensity=" in str(e.value) and "audit_sample=" in str(e.value)
    assert "\n" not in str(e.value)
