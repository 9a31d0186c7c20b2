"""A slice whose weights lie far below the other rows' (more than about 1e221 apart): in one common weight scale its
weight products underflowed — the slice's AUC lost digits (1e-235), read as a negative variance (1e-240) or raised
a raw ZeroDivisionError (1e-245). In memory each slice now has its own exact 2^k scale (exact numbers); where the
rows stay in an engine (one scale per query) such a slice's AUC is refused in one line (round 34)."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import veracity as vc
from veracity import VeracityError


def _rows():
    rng = np.random.default_rng(0)
    n = 2000
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    g = np.where(rng.uniform(size=n) < 0.3, "a", "b")
    return p, y, g


@pytest.mark.parametrize("tiny", [1e-235, 1e-240, 1e-245, 1e-300])
def test_in_memory_a_light_slice_reads_as_if_alone(tiny):
    p, y, g = _rows()
    w = np.where(g == "a", tiny, 1.0)
    a = vc.audit(p, y, sample_weight=w, by=g).groups["a"]
    alone = vc.audit(p[g == "a"], y[g == "a"])
    assert a.auc == pytest.approx(roc_auc_score(y[g == "a"], p[g == "a"]), abs=1e-14)
    assert a.ece == pytest.approx(alone.ece, abs=1e-14) and a.brier == pytest.approx(alone.brier, abs=1e-14)
    assert sum(r.n for r in a.table.rows) == pytest.approx(tiny * np.count_nonzero(g == "a"), rel=1e-12)


def test_in_an_engine_a_light_slice_is_refused_in_one_line_or_exact():
    duckdb = pytest.importorskip("duckdb")
    p, y, g = _rows()
    frame = pd.DataFrame({"p": p, "y": y, "g": g, "w": np.where(g == "a", 1e-245, 1.0)})
    with pytest.raises(VeracityError, match=r"^the AUC of slice 'a' cannot be computed where they are") as info:
        vc.audit(duckdb.from_df(frame), score="p", label="y", sample_weight="w", by="g")
    assert "\n" not in str(info.value)
    frame["w"] = np.where(g == "a", 1e-200, 1.0)  # far apart, still in range: read, and right
    a = vc.audit(duckdb.from_df(frame), score="p", label="y", sample_weight="w", by="g").groups["a"]
    assert a.auc == pytest.approx(roc_auc_score(y[g == "a"], p[g == "a"]), abs=1e-14)
