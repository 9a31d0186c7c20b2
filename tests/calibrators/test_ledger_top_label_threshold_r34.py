"""A threshold on (N, K) scores read top-label cuts nothing (the accuracy row and the decisions certificate read
the argmax): ``vc.compare`` printed "0.7" beside argmax numbers, and the lazy frame form of ``vc.accuracy``
returned the argmax accuracy for ``threshold=0.7``. Both now refuse it as the array forms do (round 34)."""
import numpy as np
import pytest

import veracity as vc
from veracity import VeracityError


@pytest.fixture
def two_columns():
    rng = np.random.default_rng(4)
    s = rng.uniform(0.02, 0.98, 400)
    y = (rng.uniform(size=400) < s).astype(int)
    return np.c_[1 - s, s], y


def test_compare_refuses_a_threshold_on_top_label_scores(two_columns):
    P, y = two_columns
    cal = vc.TemperatureScaling().fit(P, y)
    with pytest.raises(VeracityError, match=r"threshold=0\.7 .*P\[:, 1\]"):
        vc.compare(P, y, cal, threshold=0.7)
    assert vc.compare(P, y, cal, threshold=0.5).threshold == 0.5  # the default still reads the argmax


def test_lazy_accuracy_refuses_a_threshold_on_top_label_scores(two_columns):
    duckdb = pytest.importorskip("duckdb")
    P, y = two_columns
    con = duckdb.connect()
    con.execute("create table t (p0 double, p1 double, y integer)")
    con.executemany("insert into t values (?, ?, ?)", [(float(a), float(b), int(c)) for (a, b), c in zip(P, y)])
    rel = con.table("t")
    with pytest.raises(VeracityError, match=r"threshold=0\.7 .*P\[:, 1\]"):
        vc.accuracy(rel, score=["p0", "p1"], label="y", threshold=0.7)
    assert vc.accuracy(rel, score=["p0", "p1"], label="y") == pytest.approx(
        float(np.mean(np.argmax(P, axis=1) == y)), abs=1e-12)
