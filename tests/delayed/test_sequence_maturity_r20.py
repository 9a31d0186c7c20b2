"""Which day a row's outcome enters the sequence (round 20).

confidence_sequence's docstring suggested ``batches`` = "the day the outcome arrived". When the wait for a
label depends on the outcome — fraud confirmed in days, a legitimate payment only at the end of the
maturity horizon — the outcomes that have arrived on any day over-represent the fast class, and a calibrated
stream alarms: in every one of 20 seeded year-long streams below. Keyed by the day each row *matures* (its
scoring day plus one fixed horizon) the same streams never alarm. The docs now say so."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np

import veracity as vc

ROOT = Path(__file__).resolve().parents[2]


def _stream(seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    day = np.repeat(np.arange(365), 60)
    p = rng.beta(0.5, 4.5, day.size)
    y = (rng.random(p.size) < p).astype(int)  # calibrated
    arrived = day + np.where(y == 1, 5, 30)   # fraud confirmed in 5 days, legitimate at the 30-day horizon
    return p, y, arrived, day + 30


def test_arrival_days_that_depend_on_the_outcome_alarm_on_a_calibrated_stream_maturity_days_do_not() -> None:
    by_arrival = by_maturity = 0
    for seed in range(20):
        p, y, arrived, matured = _stream(seed)
        a, m = arrived < 365, matured < 365  # what is known after a year
        by_arrival += vc.confidence_sequence(p[a], y[a], batches=arrived[a]).alarm_at is not None
        by_maturity += vc.confidence_sequence(p[m], y[m], batches=matured[m]).alarm_at is not None
    assert by_arrival == 20 and by_maturity <= 1


def test_the_docs_key_batches_by_maturity_and_warn_about_arrival_days() -> None:
    for doc in (inspect.getdoc(vc.confidence_sequence), (ROOT / "docs" / "delayed.md").read_text()):
        assert doc is not None
        assert "the day the outcome arrived" not in doc
        assert "matures" in doc and "depends on the outcome" in doc
