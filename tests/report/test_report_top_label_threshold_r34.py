"""``vc.report(P, y, threshold=0.7)`` on (N, K) scores read top-label: refused in the report's own words (the
audit's refusal it reached offered ``multiclass='classwise'``, which report does not take; round 34)."""
import numpy as np
import pytest

import veracity as vc
from veracity import VeracityError


def test_report_refuses_a_threshold_on_top_label_scores_without_naming_an_option_it_lacks():
    rng = np.random.default_rng(0)
    s = rng.uniform(size=300)
    y = (rng.uniform(size=300) < s).astype(int)
    with pytest.raises(VeracityError, match=r"threshold=0\.7 .*P\[:, 1\]") as info:
        vc.report(np.c_[1 - s, s], y, threshold=0.7)
    assert "classwise" not in str(info.value) and "\n" not in str(info.value)
