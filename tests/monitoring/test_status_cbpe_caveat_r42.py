"""Label-free estimates after the final labels rejected calibration say so (session 42).

The status withdrew the label-free (CBPE) estimates of the pending weeks after a prior shift, but after a
calibration or slope alert diagnosed as miscalibration or a likelihood shift it printed them as before:
over-confident scores, right on average, alerted week after week on their slope while the pending weeks read
"TP 581.6, FP 151.4, FN 178.3" for weeks holding TP 472, FP 261, FN 239. Each pending window's estimate now
carries a caveat (text, JSON ``estimate.caveat``, ``estimate_cbpe.caveat``) while the latest window the window
tests judged for its slice alerted so; a calibrated stream keeps its window tests' false-alarm rate (<= 1 %).
"""

import json

import numpy as np
import pyarrow as pa
import pytest

from veracity.cli import main
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")
T0 = np.datetime64("2026-03-02T00:00", "s")
AS_OF = "2026-03-30"  # weeks W10-W12 final (horizon 7d), W13 pending
SLICES = 40


def _store(tmp_path, *, overconfident, seed, per_week=150, weeks=(0, 1, 2, 3)):
    rng = np.random.default_rng(seed)
    n = 4 * SLICES * per_week
    week = np.repeat(np.arange(4), SLICES * per_week)
    t = T0 + (week * 7 * 86400 + rng.integers(0, 7 * 86400, n)).astype("timedelta64[s]")
    seg = np.tile(np.repeat(np.char.add("s", np.arange(SLICES).astype(str)), per_week), 4)
    logit = rng.normal(-1.0, 1.5, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    bent = overconfident & np.isin(week, weeks)  # the weeks whose scores are over-confident
    p = np.where(bent, 1 / (1 + np.exp(-(1.8 * logit + 0.8))), 1 / (1 + np.exp(-logit)))
    ids = np.arange(n).astype(str)
    store = MonitorStore(tmp_path / f"m{int(overconfident)}{seed}.duckdb")
    store.log(pa.table({"id": ids, "ts": t, "p": p, "seg": seg}), id="id", time="ts", score="p", by="seg")
    done = week < 3
    store.outcomes(pa.table({"id": ids[done], "y": y[done], "ts": t[done] + np.timedelta64(86400, "s")}),
                   id="id", label="y", time="ts")
    return store, dict(p=p, y=y, week=week)


def _caveats(status):
    return {r.slice: r.estimate_cbpe.get("caveat") for r in status.rows if r.period == "2026-W13"}


def test_a_calibrated_stream_keeps_its_estimates_and_an_overconfident_one_is_caveated(tmp_path, capsys):
    kw = dict(freq="W", as_of=AS_OF, horizon="7d", by="seg", max_slices=SLICES)
    calm = _caveats(_store(tmp_path, overconfident=False, seed=1)[0].status(**kw))
    assert len(calm) == SLICES + 1
    # 41 rows, each caveated only when its W12 (its latest judged window) alerted: probability <= 0.01 each
    assert sum(c is not None for c in calm.values()) <= 2
    store, w = _store(tmp_path, overconfident=True, seed=2)
    st = store.status(**kw)
    bad = _caveats(st)
    assert bad["(all)"].startswith("not valid: the final labels of 2026-W12 found the scores miscalibrated")
    assert sum(c is not None for c in bad.values()) >= 30  # 150 final labels a slice-week: slope 0.56 alerts
    # the estimate is as far off as the caveat says: FP expected vs realised in the pending week
    (row,) = [r for r in st.rows if r.period == "2026-W13" and r.slice == "(all)"]
    pend = w["week"] == 3
    real_fp = int(((w["p"] >= 0.5) & (w["y"] == 0) & pend).sum())
    assert row.estimate.fp < 0.7 * real_fp
    text = str(st)
    assert f"2026-W13 [(all)]: {row.estimate} ({bad['(all)']})" in text
    assert main(["monitor", "status", str(store.path), "--freq", "W", "--as-of", AS_OF, "--horizon", "7d",
                 "--json", "-"]) == 0
    out = json.loads(capsys.readouterr().out)
    (last,) = [p for p in out["periods"] if p["period"] == "2026-W13"]
    assert last["estimate"]["caveat"] == last["estimate_cbpe"]["caveat"] == bad["(all)"]


def test_a_later_window_judged_calibrated_lifts_the_caveat(tmp_path):
    """Over-confident in W12, the latest judged week: W13's estimate is caveated; over-confident in W10 only,
    with W11 and W12 calibrated since: it is not."""
    kw = dict(freq="W", as_of=AS_OF, horizon="7d")
    store = _store(tmp_path, overconfident=True, seed=6, weeks=(2, 3))[0]
    assert _caveats(store.status(**kw))["(all)"].startswith("not valid: the final labels of 2026-W12")
    # sequential alerts raise no window-test alert: the caveat says whose verdict it is
    assert "the window tests' calibration and slope verdict, which sequential alerts do not raise" in _caveats(
        store.status(**kw, alerts="sequential"))["(all)"]
    early = _store(tmp_path, overconfident=True, seed=7, weeks=(0,))[0].status(**kw, reference="2026-W11")
    assert [r.status for r in early.rows] == ["alert", "ok", "ok", "pending"]
    assert _caveats(early)["(all)"] is None


def test_the_figure_draws_no_label_free_expectation_the_status_caveats(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    store = _store(tmp_path, overconfident=True, seed=6, weeks=(2, 3))[0]
    fig = store.status(freq="W", as_of=AS_OF, horizon="7d").plot()
    try:
        top = fig.axes[0]
        assert not [c for c in top.collections if c.get_gid() == "estimate"]
        legend = top.figure.get_supxlabel()  # the note under the figure
        assert "no label-free expectation drawn for 2026-W13: final labels found the scores miscalibrated" in legend
    finally:
        plt.close(fig)
    calm = _store(tmp_path, overconfident=False, seed=3)[0]
    fig = calm.status(freq="W", as_of=AS_OF, horizon="7d").plot()
    try:
        assert [c for c in fig.axes[0].collections if c.get_gid() == "estimate"]
    finally:
        plt.close(fig)
