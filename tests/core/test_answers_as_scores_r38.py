"""score= naming the label= column reads the answers as scores (a perfect model, silently): vc.threshold_table,
vc.segments and vc.report's frame forms now refuse it as the other frame forms do (session 38)."""

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.fixture()
def frame():
    rng = np.random.default_rng(8)
    p = rng.uniform(0.05, 0.95, 400)
    return pd.DataFrame({"p": p, "y": (rng.uniform(size=400) < p).astype(int), "g": rng.choice(["a", "b"], 400)})


@pytest.mark.parametrize("call", [
    lambda f: vc.threshold_table(f, [0.5], score="y", label="y"),
    lambda f: vc.segments(f, score="y", label="y", features=["g"]),
    lambda f: vc.report(f, score="y", label="y"),
])
def test_score_naming_the_label_column_is_refused(frame, call):
    with pytest.raises(vc.VeracityError, match="read the answers as scores") as info:
        call(frame)
    assert "\n" not in str(info.value)


def test_the_score_column_still_works(frame):
    assert vc.threshold_table(frame, [0.5], score="p", label="y").rows[0].recall < 1.0
