"""Round 33: the order of a confidence sequence's steps is the sorted order of its batch keys, and two kinds
of keys sorted silently out of time order — the bets, the bounds and ``alarm_at`` then followed a wrong order
of the looks:

* a pandas ``Categorical`` (or a polars ``Enum``) of batch keys declares its order in its categories, which
  were ignored: a week of ``mon`` ... ``sun`` was sorted as text, ``fri`` first. The categories' order is
  the step order now, as pandas and polars sort them;
* text keys with unpadded numbers (``week1`` ... ``week12``, ``2026-1-5``) sort ``week10`` before ``week2``
  as text: refused now, in one line that says what to pass (zero-padded keys and ISO times pass).

And an empty score bin of ``vc.binned_sequences`` (no rows, its running mean n/a) printed "the running mean
has left the bounds: the gap moved over time": it has no running mean to leave them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc

DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def _stream(steps: int, per: int = 200, seed: int = 33):
    """``steps`` batches of ``per`` rows; calibrated for the first half, rate 0.15 above the scores after."""
    rng = np.random.default_rng(seed)
    step = np.repeat(np.arange(steps), per)
    p = rng.uniform(0.05, 0.6, step.size)
    y = (rng.random(step.size) < p + 0.15 * (step >= steps // 2)).astype(int)
    return p, y, step


def test_an_ordered_categorical_gives_its_own_step_order():
    keys = [f"{d}{w}" for w in range(3) for d in DAYS]  # three weeks in time order; as text 'fri0' first
    p, y, step = _stream(len(keys))
    cat = pd.Categorical(np.asarray(keys)[step], categories=keys, ordered=True)
    by_number = vc.confidence_sequence(p, y, batches=step)
    for batches in (cat, pd.Series(cat)):
        cs = vc.confidence_sequence(p, y, batches=batches)
        assert [str(k) for k in cs.steps] == keys
        assert np.array_equal(cs.low, by_number.low) and np.array_equal(cs.high, by_number.high)
        assert cs.alarm_at == by_number.alarm_at and cs.alarm_step == keys[by_number.alarm_at]
    binned = vc.binned_sequences(p, y, batches=pd.Series(cat), bins=2)
    binned_number = vc.binned_sequences(p, y, batches=step, bins=2)
    assert binned.alarm_at == binned_number.alarm_at
    assert all(np.array_equal(a.low, b.low) for a, b in zip(binned.sequences, binned_number.sequences))


def test_a_polars_enum_gives_its_own_step_order():
    keys = ["start", "middle", "end", "after"]  # alphabetically: after, end, middle, start
    p, y, step = _stream(len(keys), per=400)
    s = pl.Series(np.asarray(keys)[step].tolist(), dtype=pl.Enum(keys))
    cs = vc.confidence_sequence(p, y, batches=s)
    assert [str(k) for k in cs.steps] == keys
    assert np.array_equal(cs.low, vc.confidence_sequence(p, y, batches=step).low)


@pytest.mark.parametrize("keys", [[f"week{i}" for i in range(1, 13)],
                                  [f"2026-1-{d}" for d in range(1, 15)],
                                  [f"day {i}" for i in range(8, 12)]])
def test_text_keys_whose_numbers_sort_out_of_order_are_refused(keys, error_line):
    p, y, step = _stream(len(keys), per=20)
    text = error_line(lambda: vc.confidence_sequence(p, y, batches=np.asarray(keys)[step]))
    assert "sort differently as text" in text and "batches" in text
    with pytest.raises(vc.VeracityError, match="zero-padded"):
        vc.binned_sequences(p, y, batches=np.asarray(keys)[step])


@pytest.mark.parametrize("keys", [[f"week{i:02d}" for i in range(1, 13)],
                                  [f"2026-01-{d:02d}" for d in range(1, 15)],
                                  ["2026-01-01T00:00:00.25", "2026-01-01T00:00:00.5", "2026-01-01T00:00:01"],
                                  ["alpha", "beta", "gamma"]])
def test_keys_that_sort_alike_as_text_and_as_numbers_pass(keys):
    p, y, step = _stream(len(keys), per=20)
    cs = vc.confidence_sequence(p, y, batches=np.asarray(keys)[step])
    assert [str(k) for k in cs.steps] == sorted(keys)
    assert np.array_equal(cs.low, vc.confidence_sequence(p, y, batches=step).low)


def test_an_empty_bin_does_not_say_its_running_mean_left_the_bounds():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.0, 0.3, 2000)
    y = (rng.random(p.size) < p).astype(int)
    b = vc.binned_sequences(p, y, bins=4, batches=np.repeat(np.arange(20), 100))
    empty = b.sequences[-1]
    assert int(empty.n[-1]) == 0 and np.isnan(empty.estimate[-1])
    assert "left the bounds" not in str(empty)
    assert "alarm: none" in str(empty)


@pytest.mark.parametrize("sums, words", [
    (([100.0, 100, 100], [3.0, np.nan, 3], [40.0, 40, 40]), "NaN or infinite"),  # a NULL day read as NaN
    (([100.0, -5, 100], [3.0, 1, 3], [40.0, 1, 40]), "negative count"),
    (([100.0, 100], [300.0, 3], [40.0, 40]), "sum_x exceeds n"),
    (([100.0, 100], [3.0, 3], [400.0, 40]), "outside [0, n]"),
    (([100.0, 100], [30.0, 3], [4.0, 40]), "sum_x^2 > n * sum_xx"),
])
def test_sums_no_batch_of_rows_has_are_refused(sums, words, error_line):
    # NaN sums had given NaN bounds from that batch on, which never alarm: a silent "no alarm" for ever
    text = error_line(lambda: vc.delayed.sequence_from_sums(*(np.asarray(a) for a in sums)))
    assert words in text


def test_valid_sums_and_empty_batches_still_pass():
    rng = np.random.default_rng(4)
    x = (rng.random(300) < 0.3) - rng.uniform(0, 0.6, 300)
    day = np.repeat([0, 2, 3], 100)  # day 1 has no rows: n = 0, sums 0
    n, sx, sxx = (np.bincount(day, weights=v, minlength=4) for v in (np.ones(300), x, x * x))
    low, high = vc.delayed.sequence_from_sums(n, sx, sxx)
    assert low[1] == low[0] and high[1] == high[0] and (low <= high).all()
    ones = np.ones(50)  # every x = 1 (or -1): |sum x| = n and sum x^2 = n, the edge of the range
    assert vc.delayed.sequence_from_sums(ones * 50, ones * 50, ones * 50)[0][-1] > 0.9
    assert vc.delayed.sequence_from_sums(ones * 50, -ones * 50, ones * 50)[1][-1] < -0.9


def test_a_calibrated_weighted_stream_is_not_said_to_have_a_moving_gap():
    # very uneven weights (log-normal, sigma 2): a few heavy rows carry the weighted running mean, while
    # each row's bet is capped at 1/2, so the mean can lie outside the bounds of a calibrated stream with a
    # constant gap 0 — the printout had said "the gap moved over time"
    rng = np.random.default_rng(8)
    day = np.repeat(np.arange(60), 100)
    outside = 0
    for _ in range(40):
        p = rng.beta(1, 3, day.size)
        y = (rng.random(day.size) < p).astype(int)
        cs = vc.confidence_sequence(p, y, batches=day, sample_weight=rng.lognormal(0, 2, day.size))
        if not cs.low[-1] <= cs.estimate[-1] <= cs.high[-1]:
            outside += 1
            assert "(the running mean has left the bounds: the gap moved" not in str(cs)
            assert "the weighted running mean lies outside the bounds" in str(cs)
    assert outside >= 2  # the case occurs in this design (17 % of 200 streams)


def test_equal_weights_print_as_no_weights():
    rng = np.random.default_rng(9)
    day = np.repeat(np.arange(100), 100)
    p = rng.beta(1, 3, day.size)
    y = (rng.random(day.size) < p + 0.15 * (day >= 50)).astype(int)  # the gap moves: 0, then 0.15
    plain = vc.confidence_sequence(p, y, batches=day)
    assert "the running mean has left the bounds" in str(plain)
    assert str(vc.confidence_sequence(p, y, batches=day, sample_weight=np.full(day.size, 3.0))) == str(plain)


def test_binned_printout_names_alarm_days_as_dates_and_the_level_per_bin_unrounded():
    rng = np.random.default_rng(9)
    day = np.repeat(np.arange(100), 100)
    q = rng.beta(1, 1, day.size)
    y = (rng.random(q.size) < 0.5 + 0.7 * (q - 0.5)).astype(int)  # over-confident: both outer bins alarm
    dates = pd.Series(pd.Timestamp("2026-01-01") + pd.to_timedelta(day, unit="D"))
    b = vc.binned_sequences(q, y, bins=4, batches=dates)
    text = str(b)
    alarmed = [cs for cs in b.sequences if cs.alarm_at is not None]
    assert len(alarmed) >= 2
    for cs in alarmed:  # the table's cell and the last line say the same date
        day_text = str((pd.Timestamp("2026-01-01") + pd.Timedelta(days=cs.alarm_at)).date())
        assert f"ALARM at {day_text}" in text
    assert "00:00:00" not in text
    assert "0.0125 each" in text  # alpha 0.05 over 4 bins (printed 0.013 before)
