"""What a reader of a store's status sees before the labels arrive (session 23).

The store is the monitoring notebook's (docs/notebooks/monitoring.ipynb): a prior shift from
week 7 (base rate 0.14 -> 0.28, each class's scores unchanged), labels final 30 days after the
prediction, a 3 % random audit sample labelled at once; read as of 20 March, when W09-W11 have no
final label and W08 part of them. Defects seen:

1. a pending week's ``conf`` was n/a although the mean score of its rows needs no label, and the
   provisional PPI lines gave a rate without the mean score to compare it with;
2. the withdrawn label-free estimate repeated the same long sentence once per pending week;
3. ``status.sequence_alarms`` showed as a raw dict of 16-digit floats.
"""

from __future__ import annotations

import json
import pickle
import re

import numpy as np
import pytest

import veracity as vc

# its tests share expensive module fixtures: one worker builds them once (tests/conftest.py)
pytestmark = pytest.mark.xdist_group(__name__)

pa = pytest.importorskip("pyarrow")

AS_OF = "2026-03-20"


@pytest.fixture(scope="module")
def shifted(tmp_path_factory):
    """The notebook's store (60,000 rows), with the scores, labels and weeks kept for the oracles."""
    rng = np.random.default_rng(1)
    n = 60_000
    t0 = np.datetime64("2026-01-05", "s")
    t = t0 + rng.integers(0, 70 * 86400, n).astype("timedelta64[s]")
    week = ((t - t0) // np.timedelta64(7 * 86400, "s")).astype(int)  # 0 = 2026-W02
    y = (rng.random(n) < np.where(week >= 5, 0.28, 0.14)).astype(np.int8)
    s = rng.normal(np.where(y == 1, 1.0, -1.0), 1.0)
    p = 1 / (1 + np.exp(-(2 * s + np.log(0.14 / 0.86))))
    store = vc.MonitorStore(str(tmp_path_factory.mktemp("r23") / "m.duckdb"))
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    observed = t + np.timedelta64(30 * 86400, "s")
    final = observed <= np.datetime64(AS_OF)
    store.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": observed[final]}),
                   id="id", label="y", time="ts")
    audit = ~final & (rng.random(n) < 0.03)
    store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": t[audit]}),
                   id="id", label="y", time="ts", audit_sample=True)
    status = store.status(freq="W", as_of=AS_OF, horizon="30d")
    return {"store": store, "status": status, "p": p, "week": week, "final": final}


def _row(status, period):
    return next(r for r in status.rows if r.period == period)


def _table(text):
    return {line.split()[0]: line.split() for line in text.splitlines() if line.startswith("2026-W")}


def test_pending_weeks_show_the_mean_score_of_their_rows_starred(shifted):
    """A pending week's conf cell is the mean score of all its rows (numpy's mean of the logged scores),
    marked * and explained under the table; the JSON ``conf`` stays NaN there (no labelled row)."""
    status, p, week = shifted["status"], shifted["p"], shifted["week"]
    text = str(status)
    table = _table(text)
    for w in (9, 10, 11):
        period = f"2026-W{w:02d}"
        r = _row(status, period)
        assert r.labelled == 0 and r.rows == int((week == w - 2).sum())
        assert r.mean_score == pytest.approx(p[week == w - 2].mean(), rel=1e-12)
        assert table[period][4] == f"{p[week == w - 2].mean():.4f}*"
        assert r.to_dict()["conf"] != r.to_dict()["conf"]  # NaN: the key keeps its meaning
    assert "* no final label yet: the mean score of all the window's rows" in text
    # a fully labelled week prints no star
    assert not table["2026-W03"][4].endswith("*")


def test_partly_labelled_week_conf_reads_the_labelled_rows_and_mean_score_all_rows(shifted):
    """W08: ``conf`` is the mean score of its labelled rows (those ``rate`` reads), ``mean_score`` that of
    all its rows; the text says which is which."""
    status, p, week, final = shifted["status"], shifted["p"], shifted["week"], shifted["final"]
    r = _row(status, "2026-W08")
    w8 = week == 6
    assert 0 < r.labelled < r.rows
    assert r.labelled == int((w8 & final).sum())
    assert r.conf == pytest.approx(p[w8 & final].mean(), rel=1e-12)
    assert r.mean_score == pytest.approx(p[w8].mean(), rel=1e-12)
    assert "(conf: the mean score of the labelled rows, those rate reads" in str(status)


def test_provisional_lines_compare_the_ppi_rate_with_the_mean_score_of_the_same_rows(shifted):
    """Each pending week's PPI line says the mean score of its rows and the gap, whose interval is the PPI
    interval moved by that (known) mean score: it excludes 0 exactly when the PPI interval excludes the
    mean score. The gap is also a new JSON key, ``gap_ppi``; the old keys stay."""
    status, p, week = shifted["status"], shifted["p"], shifted["week"]
    lines = {ln.split(":")[0].strip(): ln for ln in str(status).splitlines() if ": PPI rate " in ln}
    assert set(lines) == {"2026-W08", "2026-W09", "2026-W10", "2026-W11"}
    for period, line in lines.items():
        r = _row(status, period)
        e, m = r.estimate_ppi, p[week == int(period[-2:]) - 2].mean()
        assert f"vs mean score {m:.4f} of those scores" in line
        g = r.to_dict()["gap_ppi"]
        assert g["estimate"] == pytest.approx(e["estimate"] - m, abs=1e-12)
        assert (g["ci_low"], g["ci_high"]) == pytest.approx((e["ci_low"] - m, e["ci_high"] - m), abs=1e-12)
        assert f"gap (rate - score) {g['estimate']:+.4f} [{g['ci_low']:+.4f}, {g['ci_high']:+.4f}]" in line
        assert (g["ci_low"] > 0 or g["ci_high"] < 0) == (not e["ci_low"] <= m <= e["ci_high"])
    # the keys the JSON always had are still there, with their meanings
    d = status.to_dict()["periods"][-1]
    for key in ("period", "labelled", "pending", "conf", "rate", "ci_low", "ci_high", "ece", "brier", "nll",
                "psi", "status", "alerts", "estimate_ppi", "estimate_cbpe", "provisional", "sequence_low",
                "sequence_high", "mean_score", "gap_ppi"):
        assert key in d
    json.dumps(status.to_dict(), default=str)


def test_withdrawn_estimate_is_said_once_for_the_run_of_weeks(shifted):
    """The withdrawn label-free estimate is one line for W08..W11 (the weeks from the diagnosed shift on
    with rows still waiting), not the same sentence four times."""
    text = str(shifted["status"])
    section = text.split("label-free estimates for pending rows")[1].split("before the labels are final")[0]
    withdrawn = [ln for ln in section.splitlines() if "withdrawn: prior shift diagnosed in 2026-W07" in ln]
    assert len(withdrawn) == 1 and withdrawn[0].strip().startswith("2026-W08..2026-W11: withdrawn:")
    assert text.count("withdrawn: prior shift") == 1
    # every pending week is still withdrawn, each in the JSON
    for period in ("2026-W08", "2026-W09", "2026-W10", "2026-W11"):
        assert _row(shifted["status"], period).estimate_cbpe["withdrawn"].startswith("prior shift diagnosed")


def test_withdrawn_runs_are_per_slice(tmp_path):
    """With slices, a run names its slice and never spans two slices."""
    rng = np.random.default_rng(5)
    n = 12_000
    t0 = np.datetime64("2026-01-05", "s")
    t = t0 + rng.integers(0, 70 * 86400, n).astype("timedelta64[s]")
    week = ((t - t0) // np.timedelta64(7 * 86400, "s")).astype(int)
    y = (rng.random(n) < np.where(week >= 5, 0.28, 0.14)).astype(np.int8)
    s = rng.normal(np.where(y == 1, 1.0, -1.0), 1.0)
    p = 1 / (1 + np.exp(-(2 * s + np.log(0.14 / 0.86))))
    region = np.where(rng.random(n) < 0.5, "EU", "US")
    store = vc.MonitorStore(str(tmp_path / "m.duckdb"))
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "region": region}), id="id", time="ts",
              score="p", by=["region"])
    observed = t + np.timedelta64(30 * 86400, "s")
    final = observed <= np.datetime64(AS_OF)
    store.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": observed[final]}),
                   id="id", label="y", time="ts")
    status = store.status(freq="W", as_of=AS_OF, horizon="30d", by="region")
    pend = [r for r in status.rows if r.estimate is not None]
    lines = status._estimate_lines(pend, True)
    # oracle: one line per maximal run of consecutive periods with one slice and one text
    periods = list(dict.fromkeys(r.period for r in status.rows))
    expected = 0
    for name in dict.fromkeys(r.slice for r in pend):
        mine = [r for r in pend if r.slice == name]
        for i, r in enumerate(mine):
            text = (r.estimate_cbpe or {}).get("withdrawn") or str(r.estimate)
            prev = mine[i - 1] if i else None
            expected += not (prev is not None and periods.index(prev.period) + 1 == periods.index(r.period)
                             and ((prev.estimate_cbpe or {}).get("withdrawn") or str(prev.estimate)) == text)
    assert len(lines) == expected
    for line in lines:
        tag = line.split(":")[0]
        assert re.fullmatch(r"2026-W\d\d(\.\.2026-W\d\d)? \[(\(all\)|EU|US)\]", tag), tag
    assert any(".." in line for line in lines)  # the withdrawn weeks after the shift are runs


def test_sequence_alarms_read_as_lines_and_stay_a_dict(shifted):
    """``sequence_alarms`` indexes, compares, pickles and dumps to JSON as the dict it was; its repr is the
    status text's alarm line (4 decimals), not 16-digit floats; the notebook view is a table."""
    st = shifted["store"].status(freq="W", as_of=AS_OF, horizon="30d", alerts="sequential")
    alarms = st.sequence_alarms
    assert isinstance(alarms, dict) and "(all)" in alarms
    a = alarms["(all)"]
    plain = {name: dict(v) for name, v in alarms.items()}
    assert alarms == plain and json.loads(json.dumps(alarms)) == plain
    assert type(st.to_dict()["sequence_alarms"]) is dict and st.to_dict()["sequence_alarms"] == plain
    text = repr(alarms)
    assert not re.search(r"\d\.\d{6,}", text), text
    line = (f"[(all)] left the calibrated region on {a['day']} (after {a['labels']:,} final labels; "
            f"bounds [{a['low']:+.4f}, {a['high']:+.4f}])")
    # session 25: the status text names the whole table "All rows" (the dict's repr keeps its key)
    assert line in text and line.replace("[(all)] left", "All rows left") in str(st)
    assert "<table" in alarms._repr_html_() and a["day"] in alarms._repr_html_()
    back = pickle.loads(pickle.dumps(alarms))
    assert back == alarms and repr(back) == text
    # the window tests compute no sequence: the empty mapping says so rather than "none"
    window = shifted["status"].sequence_alarms
    assert window == {} and "not computed" in repr(window)


def test_status_plot_draws_the_mean_score_and_ppi_gap_of_pending_weeks(shifted):
    """The plot's short black line is drawn for the pending weeks too (at the mean score of all their rows,
    beside the PPI estimate), and the middle panel shows PPI rate - mean score with its interval."""
    pytest.importorskip("matplotlib")
    status = shifted["status"]
    fig = status.plot()
    try:
        top, mid = fig.axes[0], fig.axes[1]
        rows = [r for r in status.rows if r.slice == "(all)"]
        want = [r for r in rows if r.labelled < r.rows and r.estimate_ppi]
        assert len(want) == 4
        line = next(a for a in top.get_lines() if a.get_gid() == "mean-score")
        assert np.allclose(line.get_ydata(), [r.mean_score for r in want])
        bars = next(c for c in mid.containers if c.get_label().startswith("PPI rate - mean score"))
        assert bars.lines[0].get_gid() == "ppi-gap"
        gaps = [r.estimate_ppi["estimate"] - r.mean_score for r in want]
        assert np.allclose(bars.lines[0].get_ydata(), gaps)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_early_labels_line_says_the_mean_score_of_the_same_rows(tmp_path):
    """Without an audit sample, the provisional line of a week with early (not yet final) labels sets their
    rate against the mean score of those labelled rows (numpy's), a new ``provisional`` key."""
    rng = np.random.default_rng(3)
    n = 3_000
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 14 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(2, 8, n)
    y = (rng.random(n) < p).astype(np.int8)
    store = vc.MonitorStore(str(tmp_path / "m.duckdb"))
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    early = rng.random(n) < 0.4  # observed a day later, but final only after 30 days
    seen_at = t[early] + np.timedelta64(86400, "s")
    store.outcomes(pa.table({"id": np.arange(n)[early], "y": y[early], "ts": seen_at}),
                   id="id", label="y", time="ts")
    status = store.status(freq="W", as_of="2026-03-17", horizon="30d")
    text = str(status)
    week = (t - np.datetime64("2026-03-02", "s")) // np.timedelta64(7 * 86400, "s")
    seen = early & (t + np.timedelta64(86400, "s") <= np.datetime64("2026-03-17"))
    for i, r in enumerate(status.rows):
        pr = r.provisional
        assert pr is not None and pr["basis"] == "partial labels"
        assert pr["labels"] == int((seen & (week == i)).sum())
        assert pr["mean_score"] == pytest.approx(p[seen & (week == i)].mean(), rel=1e-12)
        assert f"vs mean score {pr['mean_score']:.4f} of those rows" in text


def test_alert_ring_on_a_pending_week_sits_on_its_ppi_square(shifted):
    """Round 24: a pending week's alert is ringed at its PPI estimate, which is drawn beside the tick
    (x + 0.18); the ring was drawn at the tick, beside the square it marks."""
    pytest.importorskip("matplotlib")
    st = shifted["store"].status(freq="W", as_of=AS_OF, horizon="30d", alerts="sequential")
    fig = st.plot()
    try:
        top = fig.axes[0]
        rings = next(c for c in top.collections if c.get_gid() == "alerts").get_offsets()
        squares = next(c for c in top.containers if c.get_label().startswith("PPI estimate")).lines[0]
        centres = np.column_stack((squares.get_xdata(), squares.get_ydata()))
        pending = [r for r in st.rows if r.alerts and r.labelled == 0 and r.estimate_ppi]
        assert pending, "the sequential example has an alert on a week without final labels"
        for ring in np.asarray(rings):
            if np.isclose(ring[1], [r.estimate_ppi["estimate"] for r in pending]).any():
                assert np.isclose(centres, ring).all(axis=1).any(), (ring, centres)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
