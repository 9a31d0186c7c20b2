"""The "Over time" status under sequential alerts, and the conf column's one rule (session 24).

* With ``alerts="sequential"`` no window test runs, yet a window with final labels and no alert read
  ``ok`` — the notebook's W07/W08 (rate 0.28 against conf 0.20 after a prior shift) among them. Such a
  window now reads ``not tested``; ``empty``, ``pending`` and ``alert`` keep their meaning, the window
  tests' statuses are unchanged, and the JSON keys are the same in both modes.
* The conf column of the text (and of the report, tests/report/test_overtime_table_r24.py) is one rule,
  :func:`veracity.monitoring._status_rows.shown_conf`: checked here against the stored rows themselves.
"""

import json

import numpy as np
import pyarrow as pa
import pytest

from veracity.cli import main
from veracity.core._text import fmt
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")
T0 = np.datetime64("2026-01-05", "s")  # a Monday: ISO week 2026-W02
AS_OF = "2026-03-20"


@pytest.fixture(scope="module")
def shifted(tmp_path_factory):
    return _shifted(tmp_path_factory.mktemp("overtime"))


def _shifted(tmp_path, n=24_000, seed=3):
    """Ten weeks of scores calibrated for a base rate that doubles in odds from the sixth week (a prior
    shift: each later labelled week's rate sits far above its conf); labels final 30 days on."""
    rng = np.random.default_rng(seed)
    t = T0 + rng.integers(0, 70 * 86400, n).astype("timedelta64[s]")
    week = ((t - T0) // np.timedelta64(7 * 86400, "s")).astype(int)
    logit = rng.normal(-1.8, 1.2, n)
    p = 1 / (1 + np.exp(-logit))
    y = (rng.random(n) < 1 / (1 + np.exp(-(logit + np.where(week >= 5, np.log(2.5), 0.0))))).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    observed = t + np.timedelta64(30 * 86400, "s")
    final = observed <= np.datetime64(AS_OF)
    store.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": observed[final]}), id="id",
                   label="y", time="ts")
    return store, dict(t=t, week=week, p=p, y=y, final=final)


def _expected_sequential(r):
    """A window's status under sequential alerts, from its counts and alerts (the documented rule)."""
    if r.rows == 0:
        return "empty"
    if r.alerts:
        return "alert"
    return "pending" if r.labelled == 0 else "not tested"


def test_sequential_status_never_says_ok_for_an_untested_window(shifted):
    store, _ = shifted
    seq = store.status(freq="W", as_of=AS_OF, horizon="30d", alerts="sequential")
    assert [r.status for r in seq.rows] == [_expected_sequential(r) for r in seq.rows]
    assert not {"ok", "insufficient"} & {r.status for r in seq.rows}
    # the defect: a labelled window whose rate is far from its conf (its own Wilson interval excludes conf),
    # with no alert of its own, read "ok"
    gapped = [r for r in seq.rows if r.labelled and not r.alerts and not r.ci_low <= r.conf <= r.ci_high]
    assert gapped and all(r.status == "not tested" for r in gapped)
    # the window tests keep their vocabulary: "ok" where they pass, and "not tested" never appears
    window = store.status(freq="W", as_of=AS_OF, horizon="30d")
    assert "ok" in {r.status for r in window.rows} and "not tested" not in {r.status for r in window.rows}
    # the alerts (and so --fail-on-alert) are the sequences' as before: statuses "alert" exactly there
    assert [r.status == "alert" for r in seq.rows] == [bool(r.alerts) for r in seq.rows]
    assert any(r.alerts for r in seq.rows) and "(all)" in seq.sequence_alarms  # the shift is caught


def test_sequential_text_names_and_explains_the_new_status(shifted):
    store, _ = shifted
    seq = store.status(freq="W", as_of=AS_OF, horizon="30d", alerts="sequential")
    lines = str(seq).splitlines()
    table = lines[2:2 + len(seq.rows)]
    for line, r in zip(table, seq.rows):
        assert line.startswith(r.period) and line.rstrip().endswith(r.status), line
    note = next(line for line in lines if line.startswith("(pending = "))
    assert "not tested = " in note and "sequence" in note
    window = str(store.status(freq="W", as_of=AS_OF, horizon="30d"))
    assert "not tested" not in window


def test_sequential_json_keys_stay_and_status_is_the_new_value(shifted, capsys):
    store, _ = shifted
    base = ["monitor", "status", str(store.path), "--as-of", AS_OF, "--horizon", "30d", "--json", "-"]
    main(base)
    window = json.loads(capsys.readouterr().out)
    main(base + ["--alerts", "sequential"])
    seq = json.loads(capsys.readouterr().out)
    assert seq.keys() == window.keys()
    assert [r.keys() for r in seq["periods"]] == [r.keys() for r in window["periods"]]
    assert {r["status"] for r in seq["periods"]} <= {"empty", "pending", "alert", "not tested"}
    assert any(r["status"] == "not tested" for r in seq["periods"])


def test_text_conf_column_reads_the_stored_rows(tmp_path):
    """The conf cell of each window, from the rows logged (the oracle): the mean score of the labelled
    rows where any label is final; of all the window's rows, starred, where none is; n/a where empty."""
    rng = np.random.default_rng(5)
    n = 3000
    t = T0 + rng.integers(0, 35 * 86400, n).astype("timedelta64[s]")
    t = t[(t < T0 + np.timedelta64(14 * 86400, "s")) | (t >= T0 + np.timedelta64(21 * 86400, "s"))]  # W04 empty
    n = t.size
    p = rng.beta(2, 8, n)
    y = (rng.random(n) < p).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": t + np.timedelta64(86400, "s")}), id="id",
                   label="y", time="ts")
    as_of = T0 + np.timedelta64(35 * 86400, "s")
    st = store.status(freq="W", as_of=str(as_of), horizon="7d")
    week = ((t - T0) // np.timedelta64(7 * 86400, "s")).astype(int)
    final = t + np.timedelta64(7 * 86400, "s") <= as_of
    want = []
    for w in range(5):
        rows, lab = week == w, (week == w) & final
        want.append("n/a" if not rows.any() else fmt(p[lab].mean()) if lab.any() else fmt(p[rows].mean()) + "*")
    assert want[2] == "n/a" and want[4].endswith("*") and not want[3].endswith("*")  # the cases covered
    lines = str(st).splitlines()
    header = lines[1]
    at = header.index("conf") + len("conf")  # the column is right-aligned, the star after its digits
    got = [line[:at + 1].split()[-1] for line in lines[2:2 + len(st.rows)]]
    assert got == want
    assert "* no final label yet: the mean score of all the window's rows" in str(st)
