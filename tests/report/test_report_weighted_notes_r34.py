"""The report's reliability notes say what the table computed: a weighted table's bins are insufficient below
``min_count`` *effective* observations (a 31-row bin was flagged beside "fewer than 30 observations"), and a
one-sided interval says so; the notebook summary likewise ("effective n >= 30"; round 34)."""
import numpy as np

import veracity as vc
from veracity.reporting._sections import _reliability_table as reliability_table_html


def _weighted():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=600)
    y = (rng.uniform(size=600) < p).astype(int)
    w = rng.uniform(1, 3, 600)
    return p, y, w


def test_weighted_insufficient_bins_are_named_in_effective_observations():
    p, y, w = _weighted()
    table = vc.audit(p, y, bins=20, min_count=30, sample_weight=w).table
    assert any(not r.sufficient for r in table.rows)
    html = reliability_table_html(table)
    assert "fewer than 30 effective observations (Kish)" in html
    assert table._summary_items()["sufficient bins"] == "effective n >= 30"
    plain = vc.audit(p, y, bins=20, min_count=30).table
    assert plain._summary_items()["sufficient bins"] == "n >= 30"


def test_one_sided_interval_is_named_in_the_note():
    p, y, _ = _weighted()
    html = reliability_table_html(vc.audit(p, y, bins=10, sided="upper").table)
    assert "binomial interval of acc (upper, one-sided)." in html
