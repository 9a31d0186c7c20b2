"""A per-row option given beside a frame as a pandas Series is never paired by position (session 38).

``vc.confidence_sequence(frame, score="p", label="y", batches=series)`` with ``series`` on another index
than the frame's (a shuffled or re-indexed copy) paired each row with another row's batch, silently; the
array form refuses such a Series (``check_same_index``), and so does ``sample_weight=`` beside a frame.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(38)
N = 240
P = RNG.uniform(0.05, 0.95, N)
Y = (RNG.random(N) < P).astype(int)
B = np.repeat(np.arange(6), N // 6)
FRAME = pd.DataFrame({"p": P, "y": Y}, index=np.arange(N) + 1000)


@pytest.mark.parametrize("name", ["confidence_sequence", "binned_sequences"])
def test_batches_on_another_index_than_the_frames_are_refused(name):
    fn = getattr(vc, name)
    shuffled = pd.Series(B, index=FRAME.index[::-1])
    with pytest.raises(vc.VeracityError, match=r"^frame and batches are pandas objects with different "
                       r"indexes .*batches = batches\.loc\[frame\.index\]") as err:
        fn(FRAME, score="p", label="y", batches=shuffled)
    assert err.value.param == "batches"
    with pytest.raises(vc.VeracityError, match="different indexes"):  # the array form, as before
        fn(FRAME["p"], FRAME["y"], batches=shuffled)
    aligned = pd.Series(B, index=FRAME.index)  # the frame's own index, or plain values: paired as given
    expected = fn(P, Y, batches=B).to_dict()
    assert fn(FRAME, score="p", label="y", batches=aligned).to_dict() == expected
    assert fn(FRAME, score="p", label="y", batches=B).to_dict() == expected
