"""Session 16: an alert's ``kind`` names its test; weights whose squares underflow in one period."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import veracity as vc
from veracity.monitoring import MonitorStore
from veracity.monitoring._alerts import Alert

T0 = np.datetime64("2026-01-05T00:00", "s")  # a Monday


@pytest.mark.parametrize("text, kind", [
    ("calibration: 316 positives observed, the scores promised 159.9 [132.1, 187.8]", "calibration"),
    ("slope 0.62 (p = 0.0021; 1 when calibrated: over-confident scores)", "slope"),
    ("score shift vs 2026-W10: PSI 0.107, chi-square p = 3.6e-05", "score shift"),
    ("score shift vs 2026-W02..2026-W08: PSI 0.31, chi-square p = 1e-09", "score shift"),
    ("sequential: mean(y - p) is in [+0.01, +0.05], outside 0 (anytime-valid at alpha 0.005)", "sequential"),
])
def test_an_alerts_kind_is_the_test_that_fired(text, kind):
    # the kind was the words before the first colon: 'slope 0.62 (p = 0.0021; 1 when calibrated' and
    # 'score shift vs 2026-W10', so filtering alerts by kind == "slope" found none
    a = Alert(text, period="2026-W11")
    assert a.kind == kind
    assert a.to_dict()["kind"] == kind


def test_a_stores_slope_and_shift_alerts_carry_their_kind(tmp_path):
    rng = np.random.default_rng(3)
    per, weeks = 400, 4
    wk = np.repeat(np.arange(weeks), per)
    n = wk.size
    ts = T0 + wk * np.timedelta64(7 * 86400, "s") + rng.integers(0, 7 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(2, 3, n)
    late = wk == weeks - 1
    p = np.where(late, rng.beta(5, 2, n), p)  # the last week's scores move up ...
    q = 1 / (1 + np.exp(-0.3 * np.log(p / (1 - p))))  # ... and are over-confident there (slope 0.3)
    y = (rng.random(n) < np.where(late, q, p)).astype(int)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": ts, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y}), id="id", label="y")
    st = store.status(freq="W", as_of="2027-01-01")
    last = st.rows[-1]
    texts = [str(a) for a in last.alerts]
    assert any(t.startswith("slope ") for t in texts) and any(t.startswith("score shift vs ") for t in texts), texts
    kinds = {a.kind for a in last.alerts}
    assert {"slope", "score shift"} <= kinds <= {"calibration", "slope", "score shift"}
    assert {a.kind for a in st.alerts} == kinds
    assert [d["kind"] for d in (a.to_dict() for a in last.alerts)] == [a.kind for a in last.alerts]
    # the notebook view lists the kinds, not the sentences cut at their first colon
    html = st._repr_html_()
    assert "1 when calibrated, " not in html and "score shift vs 2026" not in html.split("<pre")[0]


@pytest.mark.parametrize("frame", ["array", "pandas", "duckdb"])
def test_a_period_whose_weights_squares_underflow_counts_as_one_row(frame):
    # weights 1e300 and 1e-300 in one period, 1 and 1 in the other: 600 decades apart, so the rescaled
    # squares of period b's weights underflow to 0 (core._weights: such a slice counts as one row). This was a
    # ZeroDivisionError, and on a DuckDB relation period b's histogram was read as 0 rows (PSI 0.121, "few
    # rows") where the array form reads 1 (PSI 0.211)
    p, y, k, w = [0.3, 0.4, 0.5, 0.2], [0, 1, 1, 0], ["a", "a", "b", "b"], [1e300, 1e-300, 1.0, 1.0]
    if frame == "array":
        r = vc.monitor(p, y, k, sample_weight=w, min_count=1)
    else:
        df = pd.DataFrame({"p": p, "y": y, "k": k, "w": w})
        data = df
        if frame == "duckdb":
            duckdb = pytest.importorskip("duckdb")
            data = duckdb.connect().sql("SELECT * FROM df")
        r = vc.monitor(data, score="p", label="y", periods="k", sample_weight="w", min_count=1)
    b = next(row for row in r.rows if row.period == "b")
    assert r.histogram_sizes == {"a": pytest.approx(1.0), "b": 1.0}
    # period b read as one effective row: the Wilson interval of 1/2 positives at n = 1, by hand
    z = 1.959963984540054
    centre, half = (0.5 + z * z / 2) / (1 + z * z), z / (1 + z * z) * np.sqrt(0.25 + z * z / 4)
    assert (b.ci_low, b.ci_high) == (pytest.approx(centre - half), pytest.approx(centre + half))
    assert b.base_rate == 0.5 and b.conf == pytest.approx(0.35)
    # PSI by hand: 15 bins, each histogram scaled to one row, +0.5 per bin; a: all in bin 4 (0.3; 0.4 weighs
    # 1e-600 of it), b: half in bin 3 (0.2), half in bin 7 (0.5)
    ha, hb = np.full(15, 0.5), np.full(15, 0.5)
    ha[4] += 1.0
    hb[3] += 0.5
    hb[7] += 0.5
    ha, hb = ha / ha.sum(), hb / hb.sum()
    assert b.psi == pytest.approx(float(np.sum((hb - ha) * np.log(hb / ha))))
