"""Session 16: batch keys that are ISO times with different UTC offsets (a change of summer time)."""

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def test_iso_batch_keys_with_different_offsets_are_refused_not_sorted_as_text():
    # 01:00+01:00 is 00:00 UTC, 00:30+00:00 is 00:30 UTC, 03:00+02:00 is 01:00 UTC; as text they sorted
    # 00:30+00:00, 01:00+01:00, 03:00+02:00 — the bets and alarm_at in the wrong order, silently
    keys = np.array(["2026-03-29T01:00+01:00", "2026-03-29T03:00+02:00", "2026-03-29T00:30+00:00"])
    p, y = [0.5, 0.2, 0.3], [1, 0, 0]
    for fn in (vc.confidence_sequence, vc.binned_sequences):
        with pytest.raises(vc.VeracityError, match="different UTC offsets") as e:
            fn(p, y, batches=keys)
        assert "\n" not in str(e.value)
    # across the autumn change of Paris time: 02:30+02:00 then 02:10+01:00 (40 minutes later)
    with pytest.raises(vc.VeracityError, match=r"\+01:00, \+02:00"):
        vc.confidence_sequence(p[:2], y[:2], batches=["2026-10-25 02:30:00+02:00", "2026-10-25 02:10:00+01:00"])


def test_one_offset_dates_and_zoned_timestamps_keep_their_order():
    p, y = [0.5, 0.2, 0.3], [1, 0, 0]
    cs = vc.confidence_sequence(p, y, batches=["2026-03-29T03:00+01:00", "2026-03-29T01:00+01:00",
                                               "2026-03-29T02:00+01:00"])
    assert cs.steps.tolist() == ["2026-03-29T01:00+01:00", "2026-03-29T02:00+01:00", "2026-03-29T03:00+01:00"]
    # Z and +00:00 are one offset
    vc.confidence_sequence(p[:2], y[:2], batches=["2026-03-29T01:00Z", "2026-03-29T02:00+00:00"])
    # zoned timestamps (not text) sort by their instant
    t = pd.Series(pd.to_datetime(["2026-10-25 02:30", "2026-10-25 01:30", "2026-10-25 03:30"]).tz_localize(
        "Europe/Paris", ambiguous=[True, True, False]))
    cs = vc.confidence_sequence(p, y, batches=t)
    assert [s.tz_convert("UTC").hour for s in cs.steps] == [23, 0, 2]
    # plain day keys are untouched
    assert vc.confidence_sequence(p, y, batches=["2026-03-30", "2026-03-29", "2026-03-31"]).steps.tolist() == [
        "2026-03-29", "2026-03-30", "2026-03-31"]
