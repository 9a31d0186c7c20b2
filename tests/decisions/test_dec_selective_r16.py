"""selective_threshold refuses explicit candidates beside logits in the top-label reading; the message says
the whole fix: the probabilities *with score_type='probability'* (the probabilities passed with
score_type='logit' still, as the old message left it, are refused as "declared logits in [0, 1]")."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

import veracity as vc


def test_the_refusal_names_score_type_probability_and_following_it_works():
    rng = np.random.default_rng(4)
    z = rng.normal(0.0, 3.0, 2000)
    y = (rng.random(2000) < expit(z)).astype(int)
    cand = [0.6, 0.8, 0.9, 0.95, 0.99]
    with pytest.raises(vc.VeracityError, match=r"pass the probabilities \(expit of 1-D logits, softmax of "
                                               r"\(N, K\) ones\) with score_type='probability'") as info:
        vc.selective_threshold(z, y, target_risk=0.1, score_type="logit", candidates=cand)
    assert "\n" not in str(info.value)
    # half the advice (probabilities, score_type left at 'logit') is refused ...
    with pytest.raises(vc.VeracityError):
        vc.selective_threshold(expit(z), y, target_risk=0.1, score_type="logit", candidates=cand)
    # ... the whole of it gives the threshold: hand count of the lowest candidate whose one-sided
    # Clopper-Pearson bound at level 1 - delta/J (J = 5 candidates) is at most the target
    from scipy import stats

    st = vc.selective_threshold(expit(z), y, target_risk=0.1, score_type="probability", candidates=cand)
    p = expit(z)
    conf, wrong = np.maximum(p, 1 - p), (p >= 0.5) != (y == 1)
    expected = None
    for t in cand:
        n, e = int((conf >= t).sum()), int(wrong[conf >= t].sum())
        upper = 1.0 if e == n else stats.beta.ppf(1 - 0.1 / len(cand), e + 1, n - e)
        if upper <= 0.1:
            expected = t
            break
    assert expected is not None and st.threshold == expected
