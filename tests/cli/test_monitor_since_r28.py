"""Session 28: ``veracity monitor status STORE --fail-on-alert`` counted the alerts of every listed period,
and every period from the first prediction on was always listed: a daily cron job exited 1 every day forever
after the first alert. ``--since WHEN`` (a date/time or a period key as printed) and ``--last N`` (the N
periods up to the one holding ``--as-of``) now cut the listing, and so what ``--fail-on-alert`` and the JSON
count; without them the output is as before.

The store: 2026-W10 (Monday 2 March) holds 400 scores whose outcomes run 0.3 above them (a calibration alert
far beyond chance: about 240 positives where the scores promise about 120); 2026-W11 holds 400 calibrated
ones (seeded: no alert)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("duckdb")

AS_OF = "2026-03-20"  # a Friday of 2026-W12, which holds no prediction
#: the top-level keys of the status JSON before this change (with ``store`` from the CLI), in order
KEYS = ["store", "as_of", "freq", "window", "horizon", "by", "reference", "level", "alert_level", "min_count",
        "threshold", "bins", "pooled_slices", "alert_mode", "tolerance", "sequence_alarms", "alerts",
        "alert_rows", "periods"]


@pytest.fixture(scope="module")
def store(alert_then_clean_store) -> str:
    return alert_then_clean_store


def _status(cli, store, *flags):
    return cli(["monitor", "status", store, "--as-of", AS_OF, "--min-count", "50", "--fail-on-alert", *flags])


def test_the_old_alert_fails_every_run_without_a_cut(cli, store) -> None:
    r = _status(cli, store)
    assert r.code == 1, r.err
    assert "ALERT 2026-W10: calibration" in r.out
    assert "listed:" not in r.out
    for flags in (["--since", "2026-W10"], ["--since", "2026-03-08T23:59"], ["--since", "2026-03"],
                  ["--since", "2026Q1"], ["--last", "3"], ["--last", "1000000"]):
        assert _status(cli, store, *flags).code == 1, flags  # the alerting week is still listed


@pytest.mark.parametrize("flags", [["--since", "2026-W11"], ["--since", "2026-03-09"],
                                   ["--since", "2026-03-12"], ["--since", "2026-03-09T01:00+01:00"],
                                   ["--last", "2"], ["--last", "1"]])
def test_a_cut_after_the_alerting_week_exits_0(cli, store, flags) -> None:
    r = _status(cli, store, *flags)
    assert r.code == 0, (flags, r.out, r.err)
    assert "ALERT" not in r.out and "alerts: none" in r.out
    assert "2026-W10 " not in r.out.split("\n", 1)[1]  # the header names it as the PSI reference only


def test_the_cut_rows_are_the_full_listing_s_rows(cli, store) -> None:
    full = json.loads(_status(cli, store, "--json").out)
    cut = json.loads(_status(cli, store, "--json", "--since", "2026-W11").out)
    assert list(full) == KEYS  # without a flag the JSON is as it was
    assert [p["period"] for p in full["periods"]] == ["2026-W10", "2026-W11"]
    assert (full["alerts"], full["alert_rows"]) == (1, 1)
    assert [p["period"] for p in cut["periods"]] == ["2026-W11"]
    assert (cut["alerts"], cut["alert_rows"]) == (0, 0)
    assert (cut["since"], cut["last"], cut["periods_left_out"], cut["alerts_left_out"]) == \
        ("2026-W11", None, 1, 1)
    assert cut["reference"] == full["reference"] == "2026-W10"  # the PSI reference does not move
    assert cut["periods"][0] == full["periods"][1]  # PSI, shift test, sequences: every number as before
    assert {k: v for k, v in cut.items() if k not in ("periods", "alerts", "alert_rows", "since", "last",
                                                     "periods_left_out", "alerts_left_out")} == \
        {k: v for k, v in full.items() if k not in ("periods", "alerts", "alert_rows")}
    last = json.loads(_status(cli, store, "--json", "--last", "2").out)
    assert (last["since"], last["last"], last["periods_left_out"]) == ("2026-W11", 2, 1)
    assert last["periods"] == cut["periods"]


def test_the_text_says_what_was_left_out(cli, store) -> None:
    full = _status(cli, store).out.splitlines()
    cut = _status(cli, store, "--since", "2026-W11").out.splitlines()
    assert cut[0] == full[0] and cut[0].endswith("PSI against 2026-W10")
    w11 = [ln for ln in full if ln.startswith("2026-W11 ")]
    assert [ln for ln in cut if ln.startswith("2026-W")] == w11
    assert ("(listed: weeks from 2026-W11 on (--since); 1 earlier week with 1 alert left out (every listed "
            "number, and the reference, as in the full listing))") in cut
    days = _status(cli, store, "--freq", "D", "--last", "7", "--as-of", "2026-03-15T12:00").out
    assert "(listed: the last 7 days up to the as-of time (--last 7), from 2026-03-09; 7 earlier days" in days


def test_last_counts_back_from_the_as_of_period(cli, store) -> None:
    # days: 2026-03-09..2026-03-15 are the last 7 up to the 15th, all of 2026-W11
    r = _status(cli, store, "--freq", "D", "--last", "7", "--as-of", "2026-03-15T12:00", "--json")
    assert r.code == 0, r.err
    assert [p["period"] for p in json.loads(r.out)["periods"]] == [f"2026-03-{d:02d}" for d in range(9, 16)]
    assert _status(cli, store, "--freq", "D", "--last", "8", "--as-of", "2026-03-15T12:00").code == 1
    for freq in ("M", "Q"):  # both weeks lie in 2026-03 and 2026Q1, the periods holding the as-of time
        assert _status(cli, store, "--freq", freq, "--last", "1").code == 1, freq
    # April holds no prediction: nothing listed, nothing counted
    assert _status(cli, store, "--freq", "M", "--last", "1", "--as-of", "2026-04-02").code == 0


@pytest.mark.parametrize("flags, match", [
    (["--since", "2026-03-21"], r"--since 2026-03-21 \(2026-03-21 00:00:00 UTC\) is after the as-of time"),
    (["--since", "2026-W13"], "is after the as-of time"),
    (["--since", "last tuesday"], "--since must be a date or time like 2026-03-02"),
    (["--since", "2026-W60"], "--since 2026-W60 names no week"),
    (["--since", "2026-13"], "names no month"),
    (["--since", "2026Q5"], "names no quarter"),
    (["--last", "0"], "--last must be a whole number of periods, at least 1"),
    (["--last", "-2"], "--last must be a whole number of periods, at least 1"),
    (["--last", "two"], "--last must be a whole number of periods, at least 1"),
    (["--last", "1.5"], "--last must be a whole number"),
    (["--since", "2026-W11", "--last", "2"], "pass --since or --last, not both"),
])
def test_bad_values_are_refused_in_one_line(cli, refused, store, flags, match) -> None:
    refused(_status(cli, store, *flags), match)
