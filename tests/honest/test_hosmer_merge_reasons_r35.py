"""Hosmer–Lemeshow makes fewer groups than ``bins`` for three reasons, and the printout named only one: "4 of
bins=10 merged by tied scores" of 6 rows with 6 distinct scores (no tie: there are fewer rows than bins), and
"7 of bins=10 merged by tied scores" of 40 distinct scores, one row carrying 200 of the 239 units of weight
(it spans the equal-weight cuts j·W/10 from 0.2 to 0.9). Each reason now has its count (round 35)."""
import numpy as np
import pytest

import veracity as vc


def test_fewer_rows_than_bins_is_not_called_ties():
    text = str(vc.hosmer_lemeshow([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0, 0, 1, 0, 1, 1], bins=10))
    assert "6 equal-count bins, 4 of bins=10 merged as there are only 6 rows" in text
    assert "tied" not in text


def test_a_heavy_row_that_spans_the_weight_cuts_is_named():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=40)
    assert np.unique(p).size == 40  # no tie at all
    y = (rng.uniform(size=40) < p).astype(int)
    w = np.r_[np.ones(39), 200.0]  # one row holds 200/239 of the weight: it covers the cuts 2/10 .. 9/10
    result = vc.hosmer_lemeshow(p, y, sample_weight=w, bins=10)
    assert result.bins == 3
    text = str(result)
    assert "3 equal-weight bins, 7 of bins=10 merged by rows each holding more than 1/10 of the weight" \
        in text
    assert "tied" not in text


def test_mixed_reasons_add_up_and_ties_alone_keep_their_words():
    # 6 rows for 10 bins, two of them tied: 4 lost to the row count, 1 to the tie
    result = vc.hosmer_lemeshow([0.1, 0.2, 0.3, 0.3, 0.5, 0.6], [0, 0, 1, 0, 1, 1], bins=10)
    assert result.bins == 5
    assert "5 of bins=10 merged (4 as there are only 6 rows, 1 by tied scores)" in str(result)
    ties = vc.hosmer_lemeshow([0.1, 0.2, 0.3, 0.4, 0.5, 0.6] * 3, [0, 0, 1, 0, 1, 1] * 3, bins=10)
    assert "6 equal-count bins, 4 of bins=10 merged by tied scores" in str(ties)


def test_the_df_refusal_names_the_same_reason():
    with pytest.raises(vc.VeracityError) as info:
        vc.hosmer_lemeshow([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0, 0, 1, 0, 1, 1], bins=10, df=8)
    line = str(info.value)
    assert "the 6 groups made of bins=10 (4 merged as there are only 6 rows)" in line and "ties" not in line


def test_the_reasons_do_not_depend_on_the_order_of_tied_rows_of_unequal_weight():
    rng = np.random.default_rng(3)
    p = np.r_[np.full(30, 0.3), rng.uniform(0.4, 0.9, 30)]
    y = (rng.uniform(size=p.size) < p).astype(int)
    w = np.r_[np.r_[40.0, 35.0], np.ones(58)]  # two heavy rows among the tied ones
    texts = set()
    for seed in range(6):
        order = np.random.default_rng(seed).permutation(p.size)
        texts.add(str(vc.hosmer_lemeshow(p[order], y[order], sample_weight=w[order], bins=10)))
    assert len(texts) == 1, texts
