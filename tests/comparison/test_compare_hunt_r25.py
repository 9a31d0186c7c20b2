"""Round 25 hunt: ``ModelComparison.row`` said only ``KeyError: ('auc', 'b', 'a')`` for a pair asked the
other way round (the rows hold each pair once, diff = value_b - value_a), or for a misspelt metric; it
still raises a KeyError, now one that is a VeracityError and says what to pass.

The rest of the hunt (identical models: diff 0 and p = 1; a monotone map: AUC diff exactly 0; the
decision curve against ``dcurves`` at unsorted, duplicated and 0 thresholds; the Murphy diagram against
its elementary-score definition with ties at theta, theta = 0 and 1; DeLong against the O(N^2) placements;
CORP against an isotonic fit; pandas, polars, DuckDB and lazy frames against the arrays; weights from
1e-300 to 1e300) found nothing wrong; the existing suite pins those.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    a = rng.uniform(size=n)
    b = np.clip(a + rng.normal(0, 0.2, n), 0, 1)
    return vc.compare_models({"a": a, "b": b}, y, n_resamples=0)


def test_a_pair_asked_the_other_way_round_says_how_it_is_stored(result, error_line):
    text = error_line(lambda: result.row("auc", "b", "a"))
    assert "model_a='a', model_b='b'" in text and "negate" in text
    with pytest.raises(KeyError):  # still the KeyError it always was
        result.row("auc", "b", "a")
    row = result.row("auc", "a", "b")
    assert row.diff == pytest.approx(row.value_b - row.value_a)


def test_an_unknown_metric_names_the_metrics(result, error_line):
    text = error_line(lambda: result.row("brier_score"))
    assert "'brier'" in text and "'auc'" in text


def test_an_unknown_model_names_the_pairs(result, error_line):
    text = error_line(lambda: result.row("brier", "a", "c"))
    assert "('a', 'b')" in text
