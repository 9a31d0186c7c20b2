"""Too few bootstrap resamples cannot place a percentile-type interval's ends at the level asked for:
with (B + 1) * alpha / 2 <= 1 the alpha/2 quantile of B values lies between the two smallest of them, so a
"95 %" interval from 19 resamples is at most a 90 % one. vc.bootstrap_intervals printed it as a 95 % CI;
now it shows n/a and says how many resamples it needs, as vc.compare_models and the ledger do."""

from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc

ALL = ("ece", "mce", "brier", "nll", "auc", "accuracy")


def _data(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p).astype(int)


def _shown(r: vc.BootstrapIntervals) -> set[str]:
    return {i.metric for i in r.intervals if math.isfinite(i.low) and math.isfinite(i.high)}


def test_nineteen_resamples_show_no_95_percent_interval() -> None:
    p, y = _data()
    r = vc.bootstrap_intervals(p, y, n_resamples=19, random_state=0)
    assert _shown(r) == set()
    for row in r.intervals:
        assert math.isfinite(row.estimate) and math.isfinite(row.se)  # the estimate and boot SE stay
        assert row.note == "too few resamples for this level"
    (note,) = r.notes
    assert note.startswith("19 resamples are too few for the 95% bootstrap intervals of ece/mce/brier")
    assert "at least 50" in note  # ECE's noise quantiles are at 0.8 alpha: (B + 1) * 0.02 > 1
    assert "n/a" in str(r) and "note: 19 resamples are too few" in str(r)
    assert r.to_dict()["notes"] == [note]


@pytest.mark.parametrize(("b", "level", "hidden"), [
    (39, 0.95, set(ALL)),  # (39 + 1) * 0.025 = 1: the 2.5 % quantile is the smallest resample
    (40, 0.95, {"ece"}),  # the others are placed; ECE's noise reads the 2 % quantile: needs 50
    (49, 0.95, {"ece"}),
    (50, 0.95, set()),
    (199, 0.99, set(ALL)),
    (250, 0.99, set()),
])
def test_the_fewest_resamples_by_level(b: int, level: float, hidden: set[str]) -> None:
    p, y = _data()
    r = vc.bootstrap_intervals(p, y, n_resamples=b, level=level, random_state=1)
    assert _shown(r) == set(ALL) - hidden
    assert bool(r.notes) == bool(hidden)


def test_an_undefined_interval_keeps_its_own_note() -> None:
    p, y = _data(60)  # 15 bins of about 4 rows: no bin has min_count=20 rows, so MCE is undefined
    r = vc.bootstrap_intervals(p, y, n_resamples=19, random_state=0)
    assert r["mce"].note == "undefined"
    assert "mce" not in r.notes[0]


def test_too_few_rows_and_too_few_resamples_both_say_why() -> None:
    p, y = np.r_[np.linspace(0.05, 0.95, 40)], np.r_[np.ones(5), np.zeros(35)].astype(int)
    r = vc.bootstrap_intervals(p, y, n_resamples=19, random_state=0, metrics=["brier"])
    assert len(r.notes) == 2 and r.notes[0].startswith("too few rows of a class")
    assert r.notes[1].startswith("19 resamples are too few")


def test_a_95_percent_interval_from_19_resamples_covers_far_less_than_95_percent() -> None:
    """The claim behind the refusal, simulated: the percentile interval of the Brier score (true value
    E p(1 - p) = 1/6 for uniform calibrated scores) from 19 resamples' 2.5 % and 97.5 % quantiles."""
    rng = np.random.default_rng(30)
    runs, covered19, covered200 = 150, 0, 0
    for s in range(runs):
        p = rng.uniform(size=300)
        y = (rng.uniform(size=300) < p).astype(int)
        r = vc.bootstrap_intervals(p, y, metrics=["brier"], n_resamples=200, random_state=s,
                                   method="percentile")
        low, high = np.quantile(r.samples["brier"][:19], [0.025, 0.975])
        covered19 += low <= 1 / 6 <= high
        covered200 += r["brier"].low <= 1 / 6 <= r["brier"].high
    assert covered19 / runs < 0.9 < covered200 / runs, (covered19, covered200)
