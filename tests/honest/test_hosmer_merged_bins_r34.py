"""Tied scores never split across Hosmer–Lemeshow groups, so a block of ties makes fewer groups than ``bins``:
the printout said "7 equal-count bins" for bins=10 without saying why. It now says how many the ties merged, and
the JSON keeps the bins asked for (round 34)."""
import numpy as np

import veracity as vc


def test_a_tie_block_that_merges_groups_is_named():
    rng = np.random.default_rng(0)
    p = np.r_[np.ones(370), rng.uniform(0.05, 0.95, 630)]
    y = (rng.uniform(size=p.size) < p).astype(int)
    result = vc.hosmer_lemeshow(p, y, bins=10)
    # 370 of 1,000 rows tied at 1.0: the 3.7 deciles they fill are one group, so 10 - 7 = 3 groups merged
    made = np.unique(np.searchsorted(np.sort(p), np.sort(p), side="right")[np.arange(99, 1000, 100)]).size
    assert result.bins == made == 7
    assert "7 equal-count bins, 3 of bins=10 merged by tied scores" in str(result)
    assert result.to_dict()["requested_bins"] == 10


def test_no_note_when_every_group_asked_for_is_made():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.05, 0.95, 1000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    text = str(vc.hosmer_lemeshow(p, y, bins=10))
    assert "10 equal-count bins" in text and "merged" not in text
