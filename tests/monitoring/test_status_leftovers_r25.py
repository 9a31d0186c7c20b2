"""A store's status under sequential alerts, read as a user reads it (session 25).

1. ``store_status(..., delayed=False, alerts="sequential")`` returned the window tests' alerts under the
   sequential heading: the sequences are computed on the delayed-label path only, so the combination is
   refused in one line naming the fix.
2. The alarm lines of the status text, the CLI and the report's lead named the whole table ``[(all)]``;
   they read "All rows left ..." and "Slice [EU] left ..." (the window rows' tag) — the dict's own repr
   keeps its keys.
3. The bounds on mean(y − p) are a running intersection, valid for one fixed gap; when the gap moves they
   cross, and "mean(y - p) is in [+0.0180, +0.0130]" read as a range: an alert says they crossed.

The store: 20,000 predictions over ten weeks, sliced EU/US; from the third week on EU's base rate is
0.5 where its scores promise 0.14 (US stays calibrated); labels final 30 days after the prediction,
a 3 % random audit sample labelled at once; read as of 20 March.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

import veracity as vc
from veracity.monitoring import store_status

pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

AS_OF = "2026-03-20"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    rng = np.random.default_rng(1)
    n = 20_000
    t0 = np.datetime64("2026-01-05", "s")
    t = t0 + rng.integers(0, 70 * 86400, n).astype("timedelta64[s]")
    week = ((t - t0) // np.timedelta64(7 * 86400, "s")).astype(int)
    seg = np.where(rng.random(n) < 0.5, "EU", "US")
    y = (rng.random(n) < np.where((week >= 3) & (seg == "EU"), 0.5, 0.14)).astype(np.int8)
    s = rng.normal(np.where(y == 1, 1.0, -1.0), 1.0)
    p = 1 / (1 + np.exp(-(2 * s + np.log(0.14 / 0.86))))
    st = vc.MonitorStore(str(tmp_path_factory.mktemp("r25") / "m.duckdb"))
    st.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "seg": seg}), id="id", time="ts", score="p",
           by="seg")
    observed = t + np.timedelta64(30 * 86400, "s")
    final = observed <= np.datetime64(AS_OF)
    st.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": observed[final]}), id="id",
                label="y", time="ts")
    audit = ~final & (rng.random(n) < 0.03)
    st.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": t[audit]}), id="id", label="y",
                time="ts", audit_sample=True)
    return st


@pytest.fixture(scope="module")
def sequential(store):
    return store.status(freq="W", as_of=AS_OF, horizon="30d", by="seg", alerts="sequential")


# -- 1. delayed=False does not turn the sequential alerts into the window tests' -------------------------
def test_sequential_alerts_without_the_delayed_path_are_refused(store, error_line):
    common = dict(freq="W", as_of=AS_OF, horizon="30d", by="seg")
    text = error_line(lambda: store_status(store, delayed=False, alerts="sequential", **common))
    assert "alerts='sequential'" in text and "delayed=True" in text and "alerts='window'" in text
    # the plain status with the window tests stays: its alerts are the full status's window alerts
    plain, full = store_status(store, delayed=False, **common), store_status(store, **common)
    assert plain.alert_mode == "window"
    def said(status):
        return [(a.period, a.slice, str(a)) for a in status.alerts]

    assert said(plain) == said(full)


# -- 2. the alarm lines name the whole table and a slice as the rows do ----------------------------------
def _subject(name: str) -> str:
    """How the status text names a slice's alarm: the whole table's rows, or the slice by its rows' tag."""
    return "All rows" if name == "(all)" else f"Slice [{name}]"


def test_alarm_lines_name_the_whole_table_and_the_slices(sequential, store, cli):
    alarms = sequential.sequence_alarms
    assert set(alarms) == {"(all)", "EU"}  # EU drifted, US did not; (all) holds EU's rows
    text = str(sequential)
    out = cli(["monitor", "status", store.path, "--freq", "W", "--as-of", AS_OF, "--horizon", "30d",
               "--by", "seg", "--alerts", "sequential"])
    assert out.code == 0
    from veracity.reporting._store import store_section

    section = store_section(sequential, source="m", plots=False)
    lead = html.unescape(re.search(r'<p class="lead">(.*?)</p>', section, re.S).group(1))
    for name, a in alarms.items():
        line = (f"{_subject(name)} left the calibrated region on {a['day']} "
                f"(after {a['labels']:,} final labels")
        assert line in text and line in out.out and line in lead, (name, line)
    for shown in (text, out.out, lead):
        assert "[(all)] left" not in shown
    # the dict's own view keeps the keys that index it
    assert "[(all)] left the calibrated region" in repr(alarms) and "[EU] left" in repr(alarms)


def test_the_whole_table_without_slices_is_all_rows(store):
    st = store.status(freq="W", as_of=AS_OF, horizon="30d", alerts="sequential")
    a = st.sequence_alarms["(all)"]
    assert f"  All rows left the calibrated region on {a['day']}" in str(st)
    assert "[(all)]" not in str(st)  # no slice column: no bracketed slice anywhere


# -- 3. crossed bounds are said, not printed as a range ----------------------------------------------------
def test_crossed_bounds_are_said_in_the_alert(sequential):
    crossed = [r for r in sequential.rows if r.sequence_low is not None and r.sequence_low > r.sequence_high]
    assert crossed, "the seeded drift makes EU's bounds cross by the last week"
    for r in sequential.rows:
        if r.sequence_low is None:
            continue
        overall = [str(a) for a in r.alerts
                   if a.kind == "sequential" and not str(a).startswith("sequential: scores")]
        as_range = f"is in [{r.sequence_low:+.4f}, {r.sequence_high:+.4f}]"
        if r.sequence_low > r.sequence_high:  # crossed: 0 is outside, and so is every other one gap
            assert len(overall) == 1 and "crossed" in overall[0] and as_range not in overall[0], overall
        else:
            assert all("crossed" not in a for a in overall)
