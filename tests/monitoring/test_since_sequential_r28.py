"""Session 28: ``status(since=..., last=...)`` cut the listed periods but not ``sequence_alarms`` under
``alerts="sequential"``: the text's alarm lines and the JSON's ``sequence_alarms`` named alarms that fired
before the cut, also when no listed period alerted (``alerts: none`` and exit code 0 under a line saying a
slice "left the calibrated region"). Now an alarm is kept while a listed row of its slice still alerts on a
sequence (bounds being a running intersection, every listed period from its day on), named in
``sequence_alarms.before_listing`` when it fired before the first listed period, and left out, and counted,
otherwise; so
the alarms named are exactly those of the alerts ``--fail-on-alert`` counts.

Stores: ``alert_then_clean_store`` (2026-W10's outcomes 0.3 above the scores, 2026-W11 calibrated: the
overall sequence leaves 0 during W10 and stays out), and a two-slice one below (EU off in W10, US off in
W11)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")

AS_OF = "2026-03-20"  # a Friday of 2026-W12, which holds no prediction
SEQ = dict(freq="W", alerts="sequential", as_of=AS_OF)


@pytest.fixture(scope="module")
def store(alert_then_clean_store) -> MonitorStore:
    return MonitorStore(alert_then_clean_store)


@pytest.fixture(scope="module")
def two_slices(tmp_path_factory) -> MonitorStore:
    """400 scores per region and week; EU's outcomes run 0.3 above its scores in 2026-W10, US's in 2026-W11."""
    import pandas as pd

    rng = np.random.default_rng(11)
    frames = []
    for monday, lifts in [("2026-03-02", {"EU": 0.3, "US": 0.0}), ("2026-03-09", {"EU": 0.0, "US": 0.3})]:
        for region, lift in lifts.items():
            p = rng.uniform(0.1, 0.5, 400)
            y = (rng.random(400) < p + lift).astype(int)
            ts = np.datetime64(monday, "s") + rng.integers(0, 7 * 86400, 400).astype("timedelta64[s]")
            frames.append(pd.DataFrame({"id": [f"{monday}-{region}-{i}" for i in range(400)], "ts": ts,
                                        "p": p, "y": y, "region": region}))
    rows = pd.concat(frames, ignore_index=True)
    s = MonitorStore(tmp_path_factory.mktemp("seq") / "m.duckdb")
    s.log(rows, id="id", time="ts", score="p", by="region")
    s.outcomes(rows, id="id", label="y", time="ts")
    return s


def _named(status) -> set[str]:
    """The slices whose alarm the text names."""
    return {ln.split(" left the calibrated region")[0].strip() for ln in str(status).splitlines()
            if " left the calibrated region on " in ln}


def test_the_full_listing_is_as_before(store) -> None:
    full = store.status(**SEQ)
    assert full.since is None and getattr(full, "left_out_alarms", 0) == 0
    assert list(full.sequence_alarms) == ["(all)"] and full.sequence_alarms["(all)"]["day"] < "2026-03-09"
    assert set(full.sequence_alarms["(all)"]) == {"day", "labels", "low", "high", "bin"}
    d = full.to_dict()
    assert not {"sequence_alarms_left_out", "sequence_alarms_before_listing"} & set(d)
    assert "before the listed periods" not in str(full)


def test_an_old_alarm_still_active_is_kept_and_marked(store) -> None:
    full = store.status(**SEQ)
    cut = store.status(**SEQ, since="2026-W11")
    assert [r.period for r in cut.rows] == ["2026-W11"]
    assert [a.kind for a in cut.alerts] == ["sequential"]  # the running bounds still exclude 0 in W11
    assert dict(cut.sequence_alarms) == dict(full.sequence_alarms)  # the alarm itself as in the full listing
    assert cut.sequence_alarms.before_listing == {"(all)"}
    assert repr(cut.sequence_alarms).endswith("still outside the calibrated region in them")
    line = [ln for ln in str(cut).splitlines() if "left the calibrated region" in ln]
    assert len(line) == 1 and line[0].endswith(
        "; before the listed periods, and still outside the calibrated region in them")
    d = cut.to_dict()
    assert d["sequence_alarms"] == full.to_dict()["sequence_alarms"]
    assert (d["sequence_alarms_before_listing"], d["sequence_alarms_left_out"]) == (["(all)"], 0)
    assert "sequence alarm" not in [ln for ln in str(cut).splitlines() if ln.startswith("(listed:")][0]


@pytest.mark.parametrize("cut", [dict(last=1), dict(since="2026-03-16"), dict(since="2026-W12")])
def test_an_alarm_no_listed_period_alerts_on_is_left_out(store, cut) -> None:
    status = store.status(**SEQ, **cut)
    assert status.rows == () and status.alerts == ()
    assert dict(status.sequence_alarms) == {} and status.sequence_alarms.sequential
    assert status.left_out_alarms == 1
    text = str(status)
    assert not _named(status) and "alerts: none" in text
    note = [ln for ln in text.splitlines() if ln.startswith("(listed:")]
    assert len(note) == 1 and "left out, as is 1 sequence alarm that no listed week still alerts on" in note[0]
    d = status.to_dict()
    assert d["sequence_alarms"] == {} and d["sequence_alarms_left_out"] == 1


def test_new_and_old_alarms_per_slice(two_slices) -> None:
    full = two_slices.status(**SEQ, by="region")
    assert set(full.sequence_alarms) == {"(all)", "EU", "US"}
    assert full.sequence_alarms["US"]["day"] >= "2026-03-09" > full.sequence_alarms["EU"]["day"]
    cut = two_slices.status(**SEQ, by="region", since="2026-W11")
    assert set(cut.sequence_alarms) == {"(all)", "EU", "US"} and cut.left_out_alarms == 0
    assert cut.sequence_alarms.before_listing == {"(all)", "EU"}  # US fired in the listed week: new
    assert [ln.endswith("in them") for ln in cut.sequence_alarms.lines()] == [True, True, False]
    assert cut.sequence_alarms["US"] == full.sequence_alarms["US"]


@pytest.mark.parametrize("cut", [dict(), dict(since="2026-W10"), dict(since="2026-W11"), dict(since="2026-W12"),
                                 dict(last=1), dict(last=2), dict(last=3)])
def test_the_alarms_named_are_those_of_the_alerts_counted(two_slices, store, cut) -> None:
    for status in (two_slices.status(**SEQ, by="region", **cut), store.status(**SEQ, **cut)):
        alerting = {a.slice for a in status.alerts if a.kind == "sequential"}
        assert set(status.sequence_alarms) == alerting, cut
        assert _named(status) == {"All rows" if s == "(all)" else f"Slice [{s}]" for s in alerting}, cut
        assert getattr(status, "left_out_alarms", 0) == (3 if status.by else 1) - len(alerting), cut


def test_the_cli_exit_code_and_json_follow_the_cut(cli, store) -> None:
    path = str(store.path)

    def status(*flags):
        return cli(["monitor", "status", path, "--as-of", AS_OF, "--alerts", "sequential", "--fail-on-alert",
                    *flags])

    r = status("--since", "2026-W11")
    assert r.code == 1, r.err  # the alarm is still active in 2026-W11: old news, but not over
    assert "before the listed periods, and still outside the calibrated region in them" in r.out
    for flags in (["--last", "1"], ["--since", "2026-03-16"]):
        r = status(*flags)
        assert r.code == 0, (flags, r.err)
        assert "left the calibrated region" not in r.out and "alerts: none" in r.out, flags
        assert "as is 1 sequence alarm that no listed week still alerts on" in r.out, flags
        d = json.loads(status("--json", *flags).out)
        assert (d["sequence_alarms"], d["sequence_alarms_left_out"], d["alerts"]) == ({}, 1, 0), flags
        assert d["sequence_alarms_before_listing"] == [], flags
    window = json.loads(cli(["monitor", "status", path, "--as-of", AS_OF, "--json", "--last", "1"]).out)
    assert "sequence_alarms_left_out" not in window  # the window tests compute no sequence


def test_the_report_marks_an_old_alarm_as_the_text_does(store) -> None:
    """The store section of the HTML report rebuilt the alarms without ``before_listing``: an old alarm
    read as new on the page while the status text marked it."""
    from veracity.reporting._store import store_section

    cut = store.status(since="2026-W11", **SEQ)
    page = store_section(cut, source="m.duckdb", plots=False)
    assert "before the listed periods, and still outside the calibrated region in them" in page
