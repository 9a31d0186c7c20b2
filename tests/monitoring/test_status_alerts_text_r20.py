"""Session 20: what the status says about its alerts.

* ``status.plot()``'s middle panel is "the band each calibration alert reads ... an alert exactly where
  the gap leaves it" (docs/monitoring.md): it rings the rows whose alert reads that band (a calibration
  alert; with sequential alerts, the overall sequence's), never a score-shift alert whose gap sits
  inside the band; every alerting row is still ringed in the top panel.
* With ``alerts="sequential"`` the window tests (calibration, slope, score shift) raise no alert: the
  note under the table must not promise "three tests per window".
* The store's ``bins``/``max_slices`` take numpy integers, as every other count in veracity.
* ``vc.monitor``'s refusals of its ``periods`` name ``periods``.
* ``veracity.monitoring.estimate`` refuses a level, threshold or cost out of range (a NaN interval before).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.monitoring import MonitorStore, estimate

pytest.importorskip("duckdb")

T0 = np.datetime64("2026-03-02T00:00", "s")  # a Monday


def _shifted_store(tmp_path):
    """Six calibrated weeks of 1,000 rows; from week 5 the scores move up (beta(2, 5) -> beta(5, 2)) and the
    outcomes follow them: calibration holds, the score distribution does not (a score-shift alert only)."""
    rng = np.random.default_rng(5)
    n = 6000
    ts = T0 + rng.integers(0, 42 * 86400, n).astype("timedelta64[s]")
    late = ts > np.datetime64("2026-03-30")
    p = np.where(late, rng.beta(5, 2, n), rng.beta(2, 5, n))
    y = (rng.random(n) < p).astype(int)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": ts, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "o": ts}), id="id", label="y", time="o")
    return store


def _rings(ax, gid):
    hits = [c for c in ax.collections if c.get_gid() == gid]
    return [] if not hits else [float(x) for x, _ in hits[0].get_offsets()]


def test_the_band_panel_rings_only_the_alerts_that_read_the_band(tmp_path):
    pytest.importorskip("matplotlib")
    st = _shifted_store(tmp_path).status(freq="W", as_of="2026-04-13")
    rows = [r for r in st.rows if r.slice == "(all)"]
    kinds = [{a.kind for a in r.alerts} for r in rows]
    assert {"score shift"} in kinds and not any("calibration" in k for k in kinds)  # the world as described
    fig = st.plot()
    top, mid = fig.axes[0], fig.axes[1]
    # every alerting row is ringed above ...
    assert _rings(top, "alerts") == [float(i) for i, r in enumerate(rows) if r.alerts]
    # ... and in the band panel only a calibration alert: a score shift inside the band is no band alert
    assert _rings(mid, "band-alerts") == [float(i) for i, k in enumerate(kinds) if "calibration" in k]


def test_sequential_status_does_not_promise_the_window_tests(tmp_path):
    store = _shifted_store(tmp_path)
    window = str(store.status(freq="W", as_of="2026-04-13"))
    assert "three tests per window" in window  # the window tests' note stays where they run
    seq = store.status(freq="W", as_of="2026-04-13", alerts="sequential")
    text = str(seq)
    assert not seq.alerts and max(r.psi for r in seq.rows) > 1  # a large shift, and no alert on it
    assert "three tests per window" not in text and "alerts need >=" not in text
    note = next(line for line in text.splitlines() if line.startswith("(pending = "))
    assert "score shift" in note and "sequen" in note


def test_store_counts_take_numpy_integers(tmp_path):
    store = _shifted_store(tmp_path)
    a = store.status(freq="W", as_of="2026-04-13", bins=np.int64(10), max_slices=np.int32(5))
    b = store.status(freq="W", as_of="2026-04-13", bins=10, max_slices=5)
    # the same bins and windows; DuckDB's parallel sums of doubles may differ in the last bit between two
    # queries under load (seen once: 0.01941484726533768 vs ...702), so the ECEs agree to rounding
    assert [r.period for r in a.rows] == [r.period for r in b.rows]
    assert [r.ece for r in a.rows] == pytest.approx([r.ece for r in b.rows], rel=1e-12, nan_ok=True)
    with pytest.raises(vc.VeracityError, match="bins"):
        store.status(freq="W", as_of="2026-04-13", bins=np.int64(0))
    with pytest.raises(vc.VeracityError, match="bins"):
        store.status(freq="W", as_of="2026-04-13", bins=np.bool_(True))


@pytest.mark.parametrize("extra", [{}, {"as_of": "2026-01-01", "horizon": 1}])
@pytest.mark.parametrize("periods, word", [
    (np.array([1.7e12, 1.7e12]), "epoch seconds"),
    (np.array(["2026-01-01", "soon"]), "ISO 8601"),
    (np.array(["2026-01-01", "NaT"], dtype="datetime64[D]"), "missing")])
def test_monitor_names_its_periods_argument(periods, word, extra):
    with pytest.raises(vc.VeracityError, match=word) as err:
        vc.monitor(np.array([0.2, 0.3]), np.array([0, 1]), periods, freq="M", **extra)
    msg = str(err.value)
    assert "periods" in msg and "'times'" not in msg and "prediction_time" not in msg
    assert not msg.startswith("times ")


def test_monitor_refuses_numbers_beside_text_in_one_line():
    with pytest.raises(vc.VeracityError, match="mixes numbers") as err:
        vc.monitor(np.array([0.2, 0.3]), np.array([0, 1]), np.array([1.7e9, "2026-01-01"], dtype=object),
                   freq="M")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("kw, word", [({"level": 95}, "level"), ({"level": 1.5}, "level"),
                                      ({"threshold": float("nan")}, "threshold"),
                                      ({"threshold": 2.0}, "threshold"), ({"cost_fp": -1.0}, "cost_fp")])
def test_label_free_estimate_checks_its_arguments(kw, word):
    with pytest.raises(vc.VeracityError, match=word):
        estimate([0.2, 0.9, 0.5, 0.4], **kw)


def test_label_free_estimate_by_its_definition():
    p = np.array([0.2, 0.9, 0.5, 0.4])
    e = estimate(p, threshold=0.5, level=0.9, cost_fp=2.0, cost_fn=3.0)
    # the count is Poisson-binomial: P(X=0) = .8*.1*.5*.6 = 0.024 and P(X=4) = .2*.9*.5*.4 = 0.036 are each
    # <= 0.05, so [1, 3] is the exact equal-tailed 90% interval of whole numbers (round 31: it was 2 -+ z*sd)
    pmf = np.array([1.0])
    for q in p:
        pmf = np.convolve(pmf, [1 - q, q])
    assert pmf[0] == pytest.approx(0.024) and pmf[4] == pytest.approx(0.036)
    assert (e.positives, e.low, e.high) == pytest.approx((2.0, 1.0, 3.0))
    assert (e.tp, e.fp, e.fn, e.tn) == pytest.approx((1.4, 0.6, 0.6, 1.4))
    assert e.cost == pytest.approx(2.0 * 0.6 + 3.0 * 0.6)
