"""Session 17: the status's "before the labels are final" section lists only windows whose labels are
not all final; ``vc.period_keys`` reads times as the monitoring store does (one parser for time
strings, the microsecond, the floor)."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.monitoring import MonitorStore
from veracity.monitoring._time import to_utc_timestamps

pytest.importorskip("duckdb")

T0 = np.datetime64("2026-01-05T00:00:00", "s")  # a Monday: 2026-W02
AS_OF = "2026-02-10"
HORIZON_DAYS = 14  # labels final for predictions up to 2026-01-27 00:00: weeks W02..W04 whole, W05 in part
HEADER = "before the labels are final"


def _audited_store(tmp_path):
    """Four weeks of predictions, a random 10% audit sample labelled at once and every other row labelled
    an hour after its prediction: the first three weeks are fully labelled at the as-of time, yet hold
    audit labels (so their rows carry a PPI estimate)."""
    rng = np.random.default_rng(0)
    n = 3000
    t = T0 + rng.integers(0, 28 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.05, 0.6, n)
    y = (rng.random(n) < p).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    audit = rng.random(n) < 0.1
    for mask, flag in ((audit, True), (~audit, False)):
        store.outcomes(pa.table({"id": np.arange(n)[mask], "y": y[mask], "ts": t[mask] + np.timedelta64(3600, "s")}),
                       id="id", label="y", time="ts", audit_sample=flag)
    cutoff = np.datetime64(AS_OF) - np.timedelta64(HORIZON_DAYS, "D")
    # the weeks holding a prediction whose label is not final yet, from the construction
    unfinished = set(vc.period_keys(t[t > cutoff], freq="W").tolist())
    return store, unfinished


def _section(text: str) -> list[str]:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(HEADER))
    out = []
    for line in lines[at + 1:]:
        if not line.startswith("  "):
            break
        out.append(line.strip().split(":")[0])
    return out


def test_the_provisional_section_lists_only_windows_whose_labels_are_not_final(tmp_path):
    # before: 2026-W02..W04 (714, 721, 764 rows, every one labelled) were listed "before the labels are
    # final" with a PPI rate beside 2026-W05, the one week with pending rows
    store, unfinished = _audited_store(tmp_path)
    assert unfinished == {"2026-W05"}
    st = store.status(freq="W", as_of=AS_OF, horizon=f"{HORIZON_DAYS}d")
    final = [r for r in st.rows if r.labelled == r.rows]
    assert [r.period for r in final] == ["2026-W02", "2026-W03", "2026-W04"]
    assert all(r.estimate_ppi for r in final)  # audit labels there: the estimate stays in the row's data
    assert _section(str(st)) == ["2026-W05"]
    # the JSON rows: provisional only where labels are pending
    periods = st.to_dict()["periods"]
    assert [r["period"] for r in periods if r["provisional"]] == ["2026-W05"]


def test_the_notebook_view_shows_a_ppi_rate_only_for_windows_with_pending_rows(tmp_path):
    store, _ = _audited_store(tmp_path)
    st = store.status(freq="W", as_of=AS_OF, horizon=f"{HORIZON_DAYS}d")
    html = st._repr_html_()
    assert "PPI rate (all rows)" in html
    for r in st.rows:
        e = r.estimate_ppi
        cell = f"{e['estimate']:.4f} [{e['ci_low']:.3f}, {e['ci_high']:.3f}]"
        assert (cell in html) == (r.labelled < r.rows), r.period


# -- period_keys reads times as the store does --------------------------------------------------------------

MIXED_FORMS = [
    ["2026-03-01T23:30:00+02:00", "2026-03-01T23:30:00"],
    ["2026-03-01T23:30:00Z", "2026-03-02"],
    ["2026-03-01", "2026-03-01T23:30:00-05:00"],
]


@pytest.mark.parametrize("times", MIXED_FORMS)
def test_strings_with_and_without_an_offset_are_refused_by_period_keys_as_by_the_store(tmp_path, times):
    # before: period_keys read the naive string as UTC beside the converted one and gave two keys without
    # a word, where the store refuses the same column
    with pytest.raises(vc.VeracityError, match="mixes times with a UTC offset") as store_err:
        MonitorStore(tmp_path / "m.duckdb").log(pa.table({"id": [1, 2], "ts": times, "p": [0.2, 0.3]}),
                                                id="id", time="ts", score="p")
    for route in (lambda: vc.period_keys(times, freq="D"),
                  lambda: vc.period_keys(np.array(times, dtype=object), freq="W"),
                  lambda: vc.label_maturity(times, "2026-04-01", 30),
                  lambda: vc.monitor([0.2, 0.3], [0, 1], times, freq="M")):
        with pytest.raises(vc.VeracityError, match="mixes times with a UTC offset") as err:
            route()
        message = str(err.value)
        assert "\n" not in message and "add +00:00" in message
        # the same rows named as the store names them
        assert message.split("mixes", 1)[1] == str(store_err.value).split("mixes", 1)[1]


def test_strings_with_different_offsets_are_each_converted_to_utc_as_in_the_store(tmp_path):
    times = ["2026-03-01T23:30:00+02:00", "2026-03-01T23:30:00-05:00", "2026-03-02T01:00:00+05:30"]
    # by hand: 21:30 on the 1st, 04:30 on the 2nd, 19:30 on the 1st (UTC)
    assert vc.period_keys(times, freq="D").tolist() == ["2026-03-01", "2026-03-02", "2026-03-01"]
    stored = to_utc_timestamps(pa.array(times), "ts").to_numpy()
    assert stored.tolist() == np.array(["2026-03-01T21:30", "2026-03-02T04:30", "2026-03-01T19:30"],
                                       dtype="datetime64[us]").tolist()


@pytest.mark.parametrize("text", ["20260301", "today", "now"])
def test_strings_the_store_cannot_read_are_refused_not_misread(text):
    # before: numpy read '20260301' as 1995-11-14 and 'today' as the day the code ran, without a word
    with pytest.raises(vc.VeracityError, match=r"times must be dates.*not ISO 8601 times \(row 0"):
        vc.period_keys([text], freq="D")
    with pytest.raises(vc.VeracityError, match="not ISO 8601 times"):
        to_utc_timestamps(pa.array([text]), "ts")


def test_month_and_year_strings_still_read_as_their_first_day():
    # ISO 8601 reduced precision (a month key passed as --time): kept, and never mixed into a refusal
    assert vc.period_keys(["2026-03", "2026-04"], freq="D").tolist() == ["2026-03-01", "2026-04-01"]
    assert vc.period_keys(["2026"], freq="M").tolist() == ["2026-01"]


@pytest.mark.parametrize("times, expected", [
    (["2300-03-01"], "2300-03-01"),
    (np.array(["1500-06-30"]), "1500-06-30"),
    ([dt.datetime(2300, 3, 1, 12)], "2300-03-01"),
    ([dt.date(2263, 1, 1)], "2263-01-01"),
    (["2300-03-01T00:30:00+02:00"], "2300-02-28"),  # 2300 is no leap year
])
def test_dates_outside_the_nanosecond_range_keep_their_day(times, expected):
    # before: parsed at the nanosecond, 2300-03-01 wrapped round to 1715-08-11 and 1500-06-30 to 2084
    assert vc.period_keys(times, freq="D").tolist() == [expected]
    stored = to_utc_timestamps(pa.array(list(times)), "ts").to_numpy()  # the store reads them alike
    assert str(stored[0].astype("datetime64[D]")) == expected


def test_a_nanosecond_before_1970_stays_on_its_day_in_the_store():
    # before: the store's cast truncated toward 1970 and put 1969-12-31T23:59:59.9999995 on 1970-01-01,
    # where period_keys (numpy's floor) keeps it on 1969-12-31
    t = np.array(["1969-12-31T23:59:59.9999995", "2026-03-01T23:59:59.9999999"], dtype="datetime64[ns]")
    for values in (pa.array(t), pa.array(t).cast(pa.timestamp("ns", tz="UTC")),
                   pa.array(["1969-12-31T23:59:59.9999995", "2026-03-01T23:59:59.9999999"])):
        stored = to_utc_timestamps(values, "ts").to_numpy()
        assert stored.tolist() == np.array(["1969-12-31T23:59:59.999999", "2026-03-01T23:59:59.999999"],
                                           dtype="datetime64[us]").tolist()
        assert stored.astype("datetime64[D]").astype(str).tolist() == vc.period_keys(t, freq="D").tolist()


def test_zone_aware_nanoseconds_in_a_dst_fall_back_hour_are_stored():
    # 01:30 on 2026-11-01 happens twice in New York; the instants are distinct and unambiguous in UTC
    t = np.array(["2026-11-01T05:30:00.0000005", "2026-11-01T06:30:00.0000015"], dtype="datetime64[ns]")
    values = pa.array(t).cast(pa.timestamp("ns", tz="America/New_York"))
    assert to_utc_timestamps(values, "ts").to_numpy().tolist() == np.array(
        ["2026-11-01T05:30:00", "2026-11-01T06:30:00.000001"], dtype="datetime64[us]").tolist()


@pytest.mark.parametrize("start", ["2020-12-24T20:00:00", "2024-12-26T20:00:00"])
@pytest.mark.parametrize("freq", ["D", "W", "M", "Q"])
def test_period_keys_count_the_rows_the_store_puts_in_each_period(tmp_path, start, freq):
    """Across ISO-year and quarter boundaries (2020 has a week 53; 2024-12-30 is in 2025-W01), times with
    mixed offsets near midnight: the store's periods and period_keys hold the same rows."""
    rng = np.random.default_rng(3)
    n = 400
    base = np.datetime64(start, "s") + rng.integers(0, 14 * 86400, n).astype("timedelta64[s]")
    offsets = rng.choice([-9, -5, 0, 2, 9], n)
    local = base + (offsets * 3600).astype("timedelta64[s]")  # the same instant written in its zone
    text = [f"{str(v)}{'+' if h >= 0 else '-'}{abs(h):02d}:00" for v, h in zip(local.tolist(), offsets)]
    text = [s.replace(" ", "T") for s in text]
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": text, "p": rng.uniform(0.1, 0.9, n)}), id="id", time="ts",
              score="p")
    status = store.status(freq=freq, as_of="2026-01-01")
    from_store = {r.period: r.rows for r in status.rows if r.rows}
    keys = vc.period_keys(text, freq=freq)
    assert dict(Counter(keys.tolist())) == from_store
    # and both equal the keys of the UTC instants (numpy datetime64, read independently of either)
    assert vc.period_keys(base, freq=freq).tolist() == keys.tolist()
