"""``vc.compare_models(..., by=...)`` computes its many small slices together (session 26,
``veracity.comparison._slices``): the slices too small for the bootstrap (fewer than 10 rows of a class)
in one vectorised pass, sums grouped by slice, instead of one comparison per slice. The numbers must be
those of the public one-slice computation — ``vc.compare_models`` on each slice's rows alone — to 1e-12,
and the readings across slices (Benjamini–Hochberg) those of the same per-slice results: checked here on a
few hundred slices with ties, weights, logits, rankings, three models, one-row and one-class slices, and
slices large enough for the bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.comparison import _compare
from veracity.comparison._compare import _slice_readings

SIZES = (1, 2, 3, 4, 6, 9, 14, 20, 31, 45, 70)


def _data(seed: int, three: bool = False) -> dict:
    """~300 slices of the sizes above, ties (scores rounded to 2 decimals in model a), a fifth of the slices
    of one class, exponential weights."""
    rng = np.random.default_rng(seed)
    sizes = rng.choice(SIZES, size=240)
    seg = np.repeat(np.arange(sizes.size), sizes)
    rng.shuffle(seg)  # the slices' rows interleaved, as in a real column
    n = seg.size
    z = rng.normal(size=n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(int)
    one_class = rng.random(sizes.size) < 0.2
    y = np.where(one_class[seg], (seg % 2 == 0).astype(int), y)
    scores = {"a": np.round(1.0 / (1.0 + np.exp(-(z + rng.normal(size=n)))), 2),
              "b": 1.0 / (1.0 + np.exp(-(0.7 * z + rng.normal(scale=0.7, size=n))))}
    if three:
        scores["c"] = np.round(scores["b"], 1)
    return {"scores": scores, "y": y, "seg": seg, "w": rng.exponential(size=n)}


def _close(new: float | None, old: float | None, what: str) -> None:
    if new is None or old is None:
        assert new is old, what
        return
    assert (new != new and old != old) or abs(new - old) <= 1e-12 * max(1.0, abs(old)), (what, new, old)


def _same_comparison(new: vc.ModelComparison, old: vc.ModelComparison, key: str) -> None:
    assert new.n == old.n and new.models == old.models, key
    assert len(new.rows) == len(old.rows), key
    for a, b in zip(new.rows, old.rows):
        assert (a.model_a, a.model_b, a.metric, a.method, a.reading) == (b.model_a, b.model_b, b.metric, b.method,
                                                                         b.reading), key
        for f in ("value_a", "value_b", "diff", "ci_low", "ci_high", "p_value", "se", "q_value"):
            _close(getattr(a, f), getattr(b, f), f"{key} {a.metric} {f}")
    assert list(new.corp) == list(old.corp), key
    for name in new.corp:
        ca, cb = new.corp[name], old.corp[name]
        np.testing.assert_allclose(ca.x, cb.x, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ca.y, cb.y, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ca.weight, cb.weight, rtol=1e-12, atol=1e-12)
        assert ca.n == cb.n and ca.blocks == cb.blocks, key
        for part in ("brier", "log_loss"):
            for f in ("score", "mcb", "dsc", "unc"):
                _close(getattr(getattr(ca, part), f), getattr(getattr(cb, part), f), f"{key} {name} {part} {f}")
    assert len(new.corp_differences) == len(old.corp_differences), key
    for a, b in zip(new.corp_differences, old.corp_differences):
        for f, v in a.to_dict().items():
            if isinstance(v, str):
                assert v == getattr(b, f), key
            else:
                _close(v, getattr(b, f), f"{key} corp difference {f}")
    assert new.verdicts == old.verdicts, key
    assert new.notes == old.notes and new.readings == old.readings, key


CASES = {
    "unweighted": {},
    "weighted": {"weighted": True},
    "logit": {"logit": True},
    "ranking": {"score_type": "score"},
    "three models": {"three": True, "weighted": True},
    "no resamples": {"n_resamples": 0},
}


@pytest.mark.parametrize("case", list(CASES))
def test_slices_are_the_one_slice_comparisons(case):
    opts = CASES[case]
    d = _data(26 + len(case), three=opts.get("three", False))
    scores, y, seg = d["scores"], d["y"], d["seg"]
    w = d["w"] if opts.get("weighted") else None
    score_type = opts.get("score_type", "probability")
    if opts.get("logit"):
        scores = {k: np.log(np.clip(v, 1e-3, 1 - 1e-3) / (1 - np.clip(v, 1e-3, 1 - 1e-3))) for k, v in scores.items()}
        score_type = "logit"
    kw = {"n_resamples": opts.get("n_resamples", 20), "random_state": 0, "level": 0.9, "bins": 10,
          "score_type": score_type}
    got = vc.compare_models(scores, y, sample_weight=w, by=seg, min_count=2, **kw)
    # the straightforward route: each slice's rows alone, through the public one-slice computation
    loop, notes, small = {}, [], {}
    for key in sorted(set(seg.tolist())):
        rows = np.flatnonzero(seg == key)
        if rows.size < 2:
            small[str(key)] = int(rows.size)
            continue
        try:
            loop[str(key)] = vc.compare_models({k: v[rows] for k, v in scores.items()}, y[rows],
                                               sample_weight=None if w is None else w[rows], **kw)
        except vc.VeracityError as exc:
            notes.append(f"slice {key} ({rows.size:,} row{'s' if rows.size != 1 else ''}) not compared: {exc}")
    expected = _slice_readings(loop, kw["level"])
    assert got.too_small == small
    whole = vc.compare_models(scores, y, sample_weight=w, **kw)
    # session 27: 20 resamples over 100+ slices cannot read one slice's bootstrap difference; a note says it
    floor = [t for t in got.notes if "a bootstrap p-value is at least" in t]
    bootstrap = kw["n_resamples"] and score_type != "score"
    assert len(floor) == (1 if bootstrap else 0) and [t for t in got.notes if t not in floor] == \
        list(whole.notes) + notes
    assert list(got.groups) == list(expected)
    assert len(expected) > 100 and notes  # many slices compared, and some of one class refused
    for key, old in expected.items():
        _same_comparison(got.groups[key], old, key)
    assert str(got) and got.to_dict()["groups"].keys() == expected.keys()


def test_small_slices_are_not_compared_one_at_a_time(monkeypatch):
    """Structure, not time: a slice below min_count is only counted, and a slice too small for the
    bootstrap is computed with the others (no per-slice comparison); only the slices with enough rows of
    each class for the bootstrap are compared one at a time."""
    d = _data(7)
    calls = []
    real = _compare.compare_of

    def counted(models, **kw):
        calls.append(models.n)
        return real(models, **kw)

    monkeypatch.setattr(_compare, "compare_of", counted)
    got = vc.compare_models(d["scores"], d["y"], by=d["seg"], min_count=5, n_resamples=10)
    assert calls[0] == d["y"].size  # the whole comparison
    per_slice = calls[1:]
    counts = np.bincount(d["seg"])
    y = d["y"]
    heavy = [s for s in range(counts.size) if counts[s] >= 5
             and min(np.sum(y[d["seg"] == s]), counts[s] - np.sum(y[d["seg"] == s])) >= 10]
    assert sorted(per_slice) == sorted(int(counts[s]) for s in heavy)
    assert len(got.groups) > len(heavy) and got.too_small


@pytest.mark.parametrize("n, weighted", [(3, False), (30, False), (57, True), (400, True)])
def test_a_chunk_of_resamples_fits_as_each_resample_alone(n, weighted):
    """The bootstrap of a few rows fits a chunk's PAV curves together (``PairedBootstrap.corp_many``, one
    grouped pool-adjacent-violators pass); each resample's MCB and DSC must be those of ``corp`` (one
    ``scipy.optimize.isotonic_regression`` per resample and model) to 1e-12, a resample that drew no row NaN."""
    from veracity.comparison._compare import _per_model
    from veracity.comparison._inputs import models_from_arrays
    from veracity.comparison._resample import PairedBootstrap, poisson_counts_many

    rng = np.random.default_rng(n)
    z = rng.normal(size=n)
    y = (rng.random(n) < 0.5).astype(int)
    scores = {"a": np.round(1.0 / (1.0 + np.exp(-z - rng.normal(size=n))), 1), "b": 1.0 / (1.0 + np.exp(-z))}
    w = rng.exponential(size=n) if weighted else None
    models = models_from_arrays(scores, y, sample_weight=w)
    boot = PairedBootstrap(list(models.data), [_per_model(models, k, 15)[1] for k in range(2)], bins=15)
    c = poisson_counts_many(np.random.default_rng(0), n, 60).astype(float)
    cw = c if w is None else c * w
    mcb, dsc = boot.corp_many(cw)
    one = np.array([np.r_[boot.corp(r)] for r in cw])
    np.testing.assert_allclose(mcb, one[:, :2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dsc, one[:, 2:], rtol=1e-12, atol=1e-12)
