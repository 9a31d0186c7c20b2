"""The paired bootstrap of unweighted rows reads its integer Poisson counts directly (session 29,
``veracity.comparison._resample``): each model's PAV input from running integer sums of the counts over
the stretches of one label in its sort (``PairedBootstrap.corp_counts``, no per-run ``reduceat``), the
debiased ECE's Σc and Σcy per bin from one ``bincount`` over (label, bin) cells (``ece_counts``), and the
counts themselves with three comparisons and a search of the few large ones. The resampling scheme (paired
Poisson(1) counts, the same for every model) is unchanged, and so must every number be, to the bit: each
new route is checked here against the per-resample route it replaces (``corp``, ``ece_many``, and the
thirteen comparisons of the counts), on distinct scores, ties mixing both labels, few-valued models, three
models, resamples that drop whole stretches of rows and one that draws no row at all."""

from __future__ import annotations

import numpy as np
import pytest

from veracity.comparison._compare import _per_model
from veracity.comparison._inputs import models_from_arrays
from veracity.comparison._resample import _POISSON_CUTS, SMALL_ROWS, PairedBootstrap, poisson_counts_many


def _counts_by_comparisons(rng: np.random.Generator, n: int, b: int) -> np.ndarray:
    """The counts as drawn before: every uniform compared with every Poisson(1) cut below 2**32."""
    u = np.empty((b, n), dtype=np.uint32)
    for r in range(b):
        u[r] = rng.integers(0, 2**32, size=n, dtype=np.uint32)
    c = np.zeros((b, n), dtype=np.uint8)
    for cut in _POISSON_CUTS[_POISSON_CUTS < 2**32]:
        c += u >= np.uint32(cut)
    return c


@pytest.mark.parametrize("n, b", [(1, 1), (7, 3), (1000, 40), (400_000, 2)])
def test_counts_are_the_comparisons_counts(n, b):
    """The same uniforms give the same counts, the rare large ones (4 and more: 1.9 % of rows; up to 9 or so
    in 800,000 draws) included."""
    got = poisson_counts_many(np.random.default_rng(n), n, b)
    want = _counts_by_comparisons(np.random.default_rng(n), n, b)
    assert got.dtype == np.uint8 and got.shape == (b, n)
    np.testing.assert_array_equal(got, want)
    if n > 100_000:
        assert got.max() >= 7  # the searched tail was exercised


def _boot(kind: str, n: int, seed: int = 0) -> PairedBootstrap:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-1.5 * z))).astype(int)
    a = 1.0 / (1.0 + np.exp(-(z + rng.normal(size=n))))
    b = 1.0 / (1.0 + np.exp(-(1.3 * z + rng.normal(size=n))))
    scores = {
        "distinct": {"a": a, "b": b},
        "ties": {"a": np.round(a, 2), "b": np.round(b, 1)},  # runs of equal scores holding both labels
        "few": {"a": np.round(a * 3) / 3, "b": np.full(n, 0.4)},  # four values, and a constant model
        "three": {"a": a, "b": np.round(b, 3), "c": np.clip(a + 0.05, 0.0, 1.0)},
        # logits: ranked by the logits, runs of the probabilities (those past ±37 are all 1.0 or 0.0)
        "logit": {"a": 20.0 * z + rng.normal(size=n), "b": np.round(1.5 * z, 1)},
    }[kind]
    models = models_from_arrays(scores, y, score_type="logit" if kind == "logit" else "probability")
    runs = [_per_model(models, k, 15)[1] for k in range(len(scores))]
    return PairedBootstrap(list(models.data), runs, bins=15)


def _resamples(n: int) -> np.ndarray:
    """Poisson counts, then harsher ones: mostly zeros (whole stretches of one label dropped, so that the
    stretches around them meet) and none at all."""
    rng = np.random.default_rng(n)
    counts = poisson_counts_many(rng, n, 6)
    sparse = (rng.random((3, n)) < 0.05).astype(np.uint8) * rng.integers(1, 4, (3, n)).astype(np.uint8)
    return np.concatenate([counts, sparse, np.zeros((1, n), dtype=np.uint8)])


@pytest.mark.parametrize("kind", ["distinct", "ties", "few", "three", "logit"])
@pytest.mark.parametrize("n", [SMALL_ROWS + 1, 20_000])
def test_corp_from_counts_is_corp_to_the_bit(kind, n):
    """Each resample's MCB and DSC from the counts are those of ``corp`` on the same counts as float weights,
    bit for bit (NaN for the resample that drew no row)."""
    boot = _boot(kind, n)
    for counts in _resamples(n):
        c = counts.astype(np.float64)
        got = np.r_[boot.corp_counts(counts, c)]
        want = np.r_[boot.corp(c)]
        assert got.tobytes() == want.tobytes(), (got, want)


@pytest.mark.parametrize("kind", ["distinct", "ties", "three", "logit"])
@pytest.mark.parametrize("b", [1, 5])
def test_ece_from_counts_is_ece_many_to_the_bit(kind, b):
    boot = _boot(kind, 6000)
    c = _resamples(6000)[:b].astype(np.float64)
    assert boot.ece_counts(c).tobytes() == boot.ece_many(c, c).tobytes()


@pytest.mark.parametrize("kind, n", [("ties", 5000), ("distinct", 70_000)])
def test_run_is_the_per_resample_route(kind, n):
    """``run`` (chunks of resamples, the counts' routes) gives, resample by resample, what the plain route
    gives on the same draws: counts drawn resample after resample, ``ece_many`` and ``corp`` on each."""
    boot = _boot(kind, n)
    out = boot.run(17, 5)
    rng = np.random.default_rng(5)
    want = {"ece": [], "mcb": [], "dsc": []}
    for _ in range(17):
        c = _counts_by_comparisons(rng, n, 1).astype(np.float64)
        want["ece"].append(boot.ece_many(c, c)[0])
        mcb, dsc = boot.corp(c[0])
        want["mcb"].append(mcb)
        want["dsc"].append(dsc)
    for key, rows in want.items():
        assert out[key].tobytes() == np.array(rows).tobytes(), key


@pytest.mark.parametrize("ties", [False, True])
def test_weighted_corp_from_counts_is_corp_to_the_bit(ties):
    """Weighted, each model's sorted weights are its sorted counts times its sorted weights (``corp(cw,
    counts)``): the same products as the counts' weights gathered, so the same MCB and DSC bit for bit."""
    n = 9000
    rng = np.random.default_rng(11)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(int)
    a = 1.0 / (1.0 + np.exp(-(z + rng.normal(size=n))))
    b = 1.0 / (1.0 + np.exp(-(0.7 * z + rng.normal(size=n))))
    scores = {"a": np.round(a, 2), "b": np.round(b, 1)} if ties else {"a": a, "b": b}
    w = rng.exponential(size=n)
    models = models_from_arrays(scores, y, sample_weight=w)
    boot = PairedBootstrap(list(models.data), [_per_model(models, k, 15)[1] for k in range(2)], bins=15)
    for counts in _resamples(n):
        cw = counts.astype(np.float64) * w
        got = np.r_[boot.corp(cw, counts)]
        want = np.r_[boot.corp(cw)]
        assert got.tobytes() == want.tobytes(), (got, want)
