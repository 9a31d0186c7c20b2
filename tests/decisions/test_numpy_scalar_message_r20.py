"""A target or alpha given as a numpy scalar is shown as the number it holds in the refusal
(``got 1.0``), not as ``got np.float64(1.0)``."""

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("call, shown", [
    (lambda: vc.recall_threshold([0.2, 0.8], [0, 1], target=np.float64(1.0)), "got 1.0"),
    (lambda: vc.precision_threshold([0.2, 0.8], [0, 1], target=np.float32(1.5)), "got 1.5"),
    (lambda: vc.ConformalClassifier(alpha=np.float64(0.0)).fit(np.eye(3), [0, 1, 2]), "got 0.0"),
])
def test_numpy_scalars_read_as_numbers(call, shown):
    with pytest.raises(vc.VeracityError) as info:
        call()
    # the value shown as it reads (a recall target of 1 is followed by why 1 is refused: session 39)
    message = str(info.value)
    assert (message.endswith(shown) or f"{shown}: " in message) and "np." not in message
