"""``result.segment(text)`` with a segment's conditions in another order than its text (session 38).

``res.segment("device=ios & region=EU")`` answered "no segment 'device=ios & region=EU' in this result", as
if that segment had not been searched, where the result holds it as ``region=EU & device=ios`` (a segment's
text names its features in the order of ``features=``). The error now names the text to use.
"""

import numpy as np
import pytest

import veracity as vc


def test_the_error_names_the_same_segment_written_in_the_order_of_features():
    rng = np.random.default_rng(2)
    n = 3000
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.random(n) < p).astype(int)
    team = rng.choice(["R & D", "ops"], n)  # a level holding " & " is quoted, and still matched
    region = rng.choice(["EU", "US"], n)
    res = vc.segments(p, y, features={"region": region, "team": team})
    assert res.segment('region=EU & team="R & D"').n == int(np.sum((region == "EU") & (team == "R & D")))
    with pytest.raises(vc.VeracityError, match=r"but 'region=EU & team=\"R & D\"' is the same segment"):
        res.segment('team="R & D" & region=EU')
    with pytest.raises(vc.VeracityError, match=r"no segment 'region=XX' in this result; see"):
        res.segment("region=XX")
