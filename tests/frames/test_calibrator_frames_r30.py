"""Calibrators fit on a frame (round 30): the lazy smoothed Platt counts in the caller's weight units, and
every frame fit refuses the label column as scores or weights.

* ``PlattScaling(smoothing=True)`` reads the weights as row counts (``N+ = Σ w y``). On a lazy frame the
  sums came from the weights after their exact power-of-two rescaling (``sources._aggregates.weight_scale``):
  one extra row of weight 1e-150 among weights of 1 raised every count by 2^19, the targets to within 1e-6
  of 0/1 (the smoothing switched off): slope 1.31 where dropping that row gives 0.97 (the array fit was
  fixed in e300a48; the lazy route now divides by the scale too, and warns as the array fit does when
  weights summing to ~1 pull the targets towards 1/2). The oracle is the fit without the negligible row
  (or, for huge constant weights, with weights of 1e20: targets 1 and 0 to the last bit either way).
* ``PlattScaling().fit(df, score="y", label="y")`` fitted on the answers (a perfect model), and
  ``sample_weight="y"`` weighed every negative row 0; every other frame form refuses both
  (``core._frameform.refuse_answers_as_scores``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import veracity as vc

from .conftest import make

LAZY = ["duckdb", "polars-lazy", "parquet", "dask"]


def _binary(seed: int, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 2, n)
    y = (rng.random(n) < expit(z)).astype(int)
    y[:2] = [0, 1]
    return z, y


def _smoothed() -> vc.PlattScaling:
    return vc.PlattScaling(score_type="logit", smoothing=True)


def _same_fit(got: vc.PlattScaling, want: vc.PlattScaling) -> None:
    assert got.a_ == pytest.approx(want.a_, abs=1e-12) and got.b_ == pytest.approx(want.b_, abs=1e-12)


# -- 1. smoothed Platt on a lazy frame: the counts in the caller's units ----------------------------------
@pytest.mark.parametrize("tiny", [1e-150, 1e-300])
@pytest.mark.parametrize("backend", LAZY)
def test_a_negligible_row_leaves_lazy_smoothed_platt_as_dropping_it(backend, tiny, tmp_path):
    z, y = _binary(0, 30)
    w = np.ones(z.size)
    w[5] = tiny
    dropped = _smoothed().fit(np.delete(z, 5), np.delete(y, 5))
    df = pd.DataFrame({"p": z, "y": y, "w": w})
    lazy = _smoothed().fit(make(backend, df, tmp_path), score="p", label="y", sample_weight="w")
    # old (DuckDB, polars lazy, a Parquet path): a = 1.31 against 0.97, the counts raised by 2^19
    _same_fit(lazy, dropped)
    _same_fit(lazy, _smoothed().fit(df, score="p", label="y", sample_weight="w"))  # the memory route


@pytest.mark.parametrize("scale", [1e200, 1e300])
@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
def test_huge_constant_weights_are_huge_counts_on_a_lazy_frame(backend, scale, tmp_path):
    # counts of 1e20 and of 1e300 a row both make the targets 1 and 0 to the last bit: the same fit
    z, y = _binary(1)
    ref = _smoothed().fit(z, y, sample_weight=np.full(z.size, 1e20))
    df = pd.DataFrame({"p": z, "y": y, "w": np.full(z.size, scale)})
    big = _smoothed().fit(make(backend, df, tmp_path), score="p", label="y", sample_weight="w")
    assert big.a_ == pytest.approx(ref.a_, rel=1e-12) and big.b_ == pytest.approx(ref.b_, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("backend", LAZY)
def test_weights_summing_to_one_are_warned_alike_in_memory_and_lazy(backend, tmp_path):
    z, y = _binary(3, 1000)
    w = np.random.default_rng(3).uniform(0.5, 1.5, z.size)
    df = pd.DataFrame({"p": z, "y": y, "w": w / w.sum()})
    pattern = r"reads the weights as row counts.*scale them to a mean of 1"
    with pytest.warns(UserWarning, match=pattern) as memory_warned:
        memory = _smoothed().fit(df, score="p", label="y", sample_weight="w")
    with pytest.warns(UserWarning, match=pattern) as lazy_warned:  # old: no warning on a lazy frame
        lazy = _smoothed().fit(make(backend, df, tmp_path), score="p", label="y", sample_weight="w")
    assert [str(m.message) for m in lazy_warned] == [str(m.message) for m in memory_warned]
    assert lazy_warned[0].filename == __file__  # attributed to the user's line, as in memory
    _same_fit(lazy, memory)
    lo, hi = lazy.transform([-5.0, 5.0])
    assert 0.3 < lo < hi < 0.7  # the pull the warning names
    (tmp_path / "mean1").mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # mean-1 weights are no reason to warn, lazy or not
        _smoothed().fit(make(backend, df.assign(w=w), tmp_path / "mean1"), score="p", label="y",
                        sample_weight="w")


# -- 2. the label column as scores or weights, refused by every calibrator's frame fit --------------------
CALIBRATORS = {
    "TemperatureScaling": vc.TemperatureScaling, "PlattScaling": vc.PlattScaling,
    "IsotonicCalibration": vc.IsotonicCalibration, "HistogramBinning": vc.HistogramBinning,
    "BetaCalibration": vc.BetaCalibration, "VennAbers": vc.VennAbers, "VectorScaling": vc.VectorScaling,
    "MatrixScaling": vc.MatrixScaling,
}
ANSWERS = [
    ({"score": "y"}, r"score= names the label= column 'y', which would read the answers as scores"),
    ({"score": ["p", "y"]}, r"score= names the label= column 'y', which would read the answers as scores"),
    ({"score": "p", "sample_weight": "y"},
     r"sample_weight= names the label= column 'y', which would weigh every negative row 0"),
]


@pytest.mark.parametrize("how", ["fit", "fit_transform"])
@pytest.mark.parametrize("backend", ["pandas", "polars", "duckdb"])
@pytest.mark.parametrize("name", list(CALIBRATORS))
@pytest.mark.parametrize("case", range(len(ANSWERS)))
def test_frame_fit_refuses_the_label_column_as_scores_or_weights(name, backend, how, case, tmp_path):
    kwargs, words = ANSWERS[case]
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"p": rng.uniform(0.05, 0.95, 60), "y": np.arange(60) % 2})
    cal = CALIBRATORS[name]()
    with pytest.raises(vc.VeracityError, match=rf"^{name}\.fit: {words}") as info:
        getattr(cal, how)(make(backend, df, tmp_path), label="y", **kwargs)
    assert "\n" not in str(info.value)
    assert not hasattr(cal, "metadata")  # refused before any fit


def test_the_scores_of_a_frame_fit_may_still_be_any_other_column():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"p": rng.uniform(0.05, 0.95, 80), "y": np.arange(80) % 2, "w": 1.0})
    got = vc.PlattScaling().fit(df, score="p", label="y", sample_weight="w")
    want = vc.PlattScaling().fit(df["p"].to_numpy(), df["y"].to_numpy())
    _same_fit(got, want)
