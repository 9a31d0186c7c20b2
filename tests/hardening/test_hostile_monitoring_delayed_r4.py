"""Hostile input against monitoring and delayed labels, round 4: each case reproduces a silent wrong
answer or a bad error seen before its fix."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc

#: the module's tests in one worker under ``make test`` (``-n 2 --dist loadgroup``):
#: the shared store is built once; spread over both workers, each made it (r43)
pytestmark = pytest.mark.xdist_group(__name__)


# -- labels_needed: a width so small that (w / 2z)^2 underflows, or scores whose one-pass variance is
# -- rounding noise, was blamed on "the scores vary too much (sd 0)" -----------------------------------
@pytest.mark.parametrize("score, width", [(0.5, 1e-300), (0.3, 1e-150), (0.3, 1e-300), (0.1, 1e-200)])
def test_labels_needed_for_constant_scores_never_blames_their_spread(score, width):
    f = np.full(1000, score)
    with pytest.raises(vc.VeracityError) as info:
        vc.labels_needed(f, width=width)
    assert "vary too much" not in str(info.value)
    assert "needs more than" in str(info.value) and "only 1,000 rows" in str(info.value)


def test_labels_needed_still_blames_a_real_spread():
    f = np.random.default_rng(0).random(1000)
    with pytest.raises(vc.VeracityError, match="vary too much"):
        vc.labels_needed(f, width=1e-300)


def test_label_plan_of_certain_scores_warns_nothing():
    # 0/0 in the labels-only count was cast to an integer (RuntimeWarning: invalid value in cast)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plan = vc.label_plan(np.ones(100), width=1e-300)
        # calibrated 1s: y = 1 always, but n labels all 1 read [1 - z²/(n + z²), 1] (modified Wilson, as
        # ppi_mean reads them): no count gives a width of 1e-300
        with pytest.raises(vc.VeracityError, match="needs more than"):
            vc.labels_needed(np.ones(100), width=1e-300)
    assert plan.rows[0]["labels_ppi"] is None and plan.rows[0]["labels_classical"] is None


# -- ppi_mean(propensity=...): labels that were all certain (or a single random one) gave a zero-width
# -- interval, the unlabelled rows silently counted as negatives --------------------------------------
@pytest.mark.parametrize("propensity", [[1.0, 1.0, 1.0], [1.0, 1.0, 0.5], 1.0])
def test_a_designed_sample_without_two_random_labels_is_refused(propensity):
    g = np.random.default_rng(0).random(1000)  # 1,000 unlabelled rows, mean score about 0.5
    with pytest.raises(vc.VeracityError, match="at least 2 labelled rows drawn at random") as info:
        vc.ppi_mean([0, 1, 0], [0.3, 0.6, 0.2], g, propensity=propensity)
    assert info.value.param == "propensity"


def test_a_single_random_label_is_refused_with_or_without_propensity():
    g = np.random.default_rng(0).random(1000)
    with pytest.raises(vc.VeracityError, match="at least 2"):
        vc.ppi_mean([1], [0.3], g)
    with pytest.raises(vc.VeracityError, match="at least 2"):
        vc.ppi_mean([1], [0.3], g, propensity=[0.5])
    r = vc.ppi_mean([1, 0], [0.3, 0.6], g, propensity=0.002)  # two random labels of 1,002 rows: an interval
    assert r.ci_high - r.ci_low > 0.1


# -- the monitoring store ------------------------------------------------------------------------------
duckdb = pytest.importorskip("duckdb")


def _store(folder):
    """400 predictions over four weeks of March 2026 in two slices, 300 of them labelled."""
    import pandas as pd

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    n = 400
    ts = pd.Timestamp("2026-03-02") + pd.to_timedelta(rng.integers(0, 28 * 86400, n), unit="s")
    p = rng.uniform(0.02, 0.98, n)
    frame = pd.DataFrame({"id": np.arange(n).astype(str), "ts": ts, "p": p, "seg": rng.choice(["a", "b"], n)})
    s = MonitorStore(folder / "m.duckdb").init()
    s.log(frame, id="id", time="ts", score="p", by="seg")
    s.outcomes(pd.DataFrame({"id": frame["id"][:300], "y": (rng.random(300) < p[:300]).astype(int)}),
               id="id", label="y")
    return s


@pytest.fixture()
def store(tmp_path, monkeypatch):
    """A fresh store in the working directory, for a test that writes to it."""
    monkeypatch.chdir(tmp_path)
    return _store(tmp_path)


@pytest.fixture(scope="module")
def _store_once(tmp_path_factory):
    return _store(tmp_path_factory.mktemp("store"))


def _files(folder) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir()) if f.is_file()}


@pytest.fixture()
def read_store(_store_once, monkeypatch):
    """The same store built once for the module, in the working directory, for the tests that only read it
    (refusals): each leaves its files as they were (built afresh for each of them: ~0.25 s, 16 tests)."""
    folder = _store_once.path.parent
    monkeypatch.chdir(folder)
    before = _files(folder)
    yield _store_once
    assert _files(folder) == before, "a test of the shared store changed its files"


@pytest.mark.parametrize("kwargs", [{"cost_fp": float("nan")}, {"cost_fn": -5.0}, {"cost_fp": float("inf")}])
def test_status_refuses_a_cost_that_is_not_a_finite_non_negative_number(read_store, kwargs):
    # the label-free estimate once printed "expected cost nan" (or a negative cost) and exited 0
    with pytest.raises(vc.VeracityError, match="finite non-negative cost"):
        read_store.status(as_of="2026-04-01", **kwargs)


def test_cli_status_cost_nan_is_bad_input(read_store, capsys):
    from veracity.cli import main

    assert main(["monitor", "status", "m.duckdb", "--as-of", "2026-04-01", "--cost-fp", "nan"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--cost-fp" in err and "Traceback" not in err


@pytest.mark.parametrize("kwargs, match", [({"alert_level": "x"}, "alert_level"), ({"tolerance": "x"}, "tolerance"),
                                           ({"bins": True}, "bins"), ({"alert_level": None}, "alert_level"),
                                           ({"min_count": "x"}, "min_count"), ({"min_count": float("nan")}, "min_count")])
def test_status_settings_of_the_wrong_type_are_one_line_errors(read_store, kwargs, match):
    # a string once raised a bare ValueError ("could not convert string to float"), bins=True a TypeError
    with pytest.raises(vc.VeracityError, match=match):
        read_store.status(as_of="2026-04-01", **kwargs)


def test_an_id_sent_twice_in_one_file_with_two_slices_is_a_conflict(store):
    import pandas as pd

    # one of the two slice values was kept at random, and the ingest reported "1 new"
    twice = pd.DataFrame({"id": ["x1", "x1"], "ts": ["2026-03-03", "2026-03-03"], "p": [0.3, 0.3], "seg": ["a", "b"]})
    before = store.counts()
    with pytest.raises(vc.VeracityError, match="'x1' appears more than once with a different score, time, model or slice"):
        store.log(twice, id="id", time="ts", score="p", by="seg")
    assert store.counts() == before
    # the same slice twice, or a slice missing in one of the two rows, is one prediction
    same = pd.DataFrame({"id": ["x2", "x2", "x3", "x3"], "ts": ["2026-03-03"] * 4, "p": [0.3] * 4,
                         "seg": ["a", "a", "b", None]})
    res = store.log(same, id="id", time="ts", score="p", by="seg")
    assert res.inserted == 2


@pytest.mark.parametrize("action", [["status"], ["plan", "--width", "0.1"]])
@pytest.mark.parametrize("window", ["0d", "1e-7s", "0.5s"])
def test_a_window_under_a_second_is_bad_input_for_status_and_plan(read_store, capsys, action, window):
    # plan --window 0d divided by zero in SQL (a traceback); status --window 1e-7s rounded the window to
    # 0 microseconds and blamed the store ("restore it from a backup")
    from veracity.cli import main

    assert main(["monitor", *action, "m.duckdb", "--as-of", "2026-04-01", "--window", window]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--window must be at least one second" in err


def test_windows_under_a_minute_have_distinct_names(store):
    # names were cut to the minute: two 30 s windows shared one name (and --reference picked the first)
    import pandas as pd

    store.log(pd.DataFrame({"id": ["w1", "w2"], "ts": ["2026-03-01T23:59:05", "2026-03-01T23:59:40"],
                            "p": [0.2, 0.6]}), id="id", time="ts", score="p")
    status = store.status(as_of="2026-03-02T00:00", window="30s")
    names = [r.period for r in status.rows]
    assert len(names) == len(set(names)) > 1


# -- confidence sequences ------------------------------------------------------------------------------
@pytest.mark.parametrize("batches", [[1.0, np.nan, 2.0, 2.0], np.array([1, np.nan, 2, 2], dtype=object),
                                     np.array(["2026-01-01", "NaT", "2026-01-02", "2026-01-02"], "datetime64[D]")])
def test_a_missing_batch_key_is_refused_not_sorted_last(batches):
    # NaN (or NaT) sorted after every day: its rows were silently counted as the latest batch
    with pytest.raises(vc.VeracityError, match="batches has 1 missing keys") as info:
        vc.confidence_sequence([0.3] * 4, [1, 0, 1, 0], batches=batches)
    assert info.value.param == "batches"
    with pytest.raises(vc.VeracityError, match="missing keys"):
        vc.binned_sequences([0.3] * 4, [1, 0, 1, 0], batches=batches, bins=2)


def test_recalibrate_a_slice_as_the_status_names_it(store):
    import pandas as pd

    ids = [f"m{i}" for i in range(300)]
    store.log(pd.DataFrame({"id": ids, "ts": ["2026-03-10"] * 150 + ["2026-03-17"] * 150, "p": [0.4] * 300}),
              id="id", time="ts", score="p")  # logged without the slice column: status calls them '(missing)'
    store.outcomes(pd.DataFrame({"id": ids, "y": [0, 1] * 150}), id="id", label="y")
    # '(missing)' has 150 labelled rows a week in the status, but the fit read none ("scores is empty")
    r = store.recalibrate(by="seg", slice="(missing)", min_count=50)
    assert (r.fit_period, r.n_fit, r.n_eval) == ("2026-W11", 150, 150)
    # a slice value that does not exist was blamed on immature windows
    with pytest.raises(vc.VeracityError, match=r"slice 'zz' of 'seg' has no predictions \(its values: "
                                               r"'\(missing\)', 'a', 'b'\)"):
        store.recalibrate(by="seg", slice="zz", min_count=50)


# -- ppi_mean / ppi_audit on labels without spread: a zero-width interval was printed as a 95% CI, and two
# -- negatives scored 0.1 were "not calibrated" -------------------------------------------------------
def test_labels_all_one_class_say_their_interval_is_no_interval():
    g = np.random.default_rng(0).random(1000)
    r = vc.ppi_mean([1] * 50, np.random.default_rng(1).random(50), g)
    # session 16: Wilson's interval for 50 of 50, not the zero-width [1, 1]; the note names the rare class
    assert r.ci_high == 1.0 and r.ci_low == pytest.approx(50 / (50 + 1.959963984540054**2))
    assert not any("zero width" in n for n in r.notes)
    assert "only 0 of the 50 labels are negative" in r.to_dict()["note"]
    # the rectifier (mean y - score = 0.5 +- 0.08) still says the scores are not calibrated: that is evidence
    assert r.calibrated is False


def test_a_rectifier_without_spread_is_no_evidence_of_miscalibration():
    g = np.full(100, 0.1)
    r = vc.ppi_mean([0, 0], [0.1, 0.1], g)
    assert r.rectifier_low == r.rectifier_high == pytest.approx(-0.1)
    assert r.calibrated is True and not any("not calibrated" in n for n in r.notes)
    a = vc.ppi_audit([0, 0], [0.1, 0.1], g)
    assert a.calibrated is True
    from veracity.delayed import PpiSums, ppi_records

    rec = ppi_records(PpiSums.of(np.zeros(2), np.full(2, 0.1), g))[0]
    assert rec["calibrated"] is True and "only 0 of the 2 labels" in rec["note"] and "not calibrated" not in rec["note"]


def test_many_labels_of_one_class_against_their_scores_are_evidence_of_miscalibration():
    # no spread is no normal interval, but 1,000 negatives scored 0.5 are not "no evidence": an exact
    # bound, P(all 0 | calibrated) <= (1 - mean score)^n = 0.5^1000, rejects (two negatives at 0.1: 0.81)
    g = np.full(100, 0.5)
    r = vc.ppi_mean(np.zeros(1000), np.full(1000, 0.5), g)
    assert r.calibrated is False and any("not calibrated" in n for n in r.notes)
    assert vc.ppi_audit(np.zeros(1000), np.full(1000, 0.5), g).calibrated is False
    from veracity.delayed import PpiSums, ppi_records

    rec = ppi_records(PpiSums.of(np.zeros(1000), np.full(1000, 0.5), g))[0]
    assert rec["calibrated"] is False and "not calibrated" in rec["note"]
    assert vc.ppi_mean(np.ones(30), np.full(30, 0.9), g).calibrated is True  # 0.9^30 = 0.04 > 0.025


@pytest.mark.parametrize("ids", [[1e20, 2e20], [2.0**53 + 2, 3.0]])
def test_float_ids_beyond_2_53_are_refused(store, ids):
    import pandas as pd

    # 1e20 and 2e20 both became id '-9223372036854775808' (the int64 cast wrapped round); past 2**53 two
    # distinct ids can be one float
    frame = pd.DataFrame({"id": ids, "ts": ["2026-03-03"] * 2, "p": [0.1, 0.2]})
    before = store.counts()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(vc.VeracityError, match=r"ids beyond 2\*\*53 as floating-point numbers"):
            store.log(frame, id="id", time="ts", score="p")
        with pytest.raises(vc.VeracityError, match=r"ids beyond 2\*\*53"):
            store.outcomes(pd.DataFrame({"id": ids, "y": [0, 1]}), id="id", label="y")
    assert store.counts() == before
    ok = pd.DataFrame({"id": [2.0**53, 1e6], "ts": ["2026-03-03"] * 2, "p": [0.1, 0.2]})
    assert store.log(ok, id="id", time="ts", score="p").inserted == 2


@pytest.mark.parametrize("value", ["(all)", "(other)", "(missing)"])
def test_a_slice_value_named_like_a_status_row_is_refused(store, value):
    import pandas as pd

    # a slice value '(all)' gave two status rows called '(all)'; '(missing)' merged with the rows without one
    frame = pd.DataFrame({"id": ["r1", "r2"], "ts": ["2026-03-03"] * 2, "p": [0.2, 0.4], "seg": [value, "a"]})
    before = store.counts()
    with pytest.raises(vc.VeracityError, match=rf"slice column 'seg' .* holds the value '\({value[1:-1]}\)'"):
        store.log(frame, id="id", time="ts", score="p", by="seg")
    assert store.counts() == before


def test_rows_piped_into_dash_are_recorded_as_stdin_not_a_temporary_file(store, monkeypatch, capsys):
    import io
    import sys

    from veracity.cli import main

    # the batch recorded (and the line printed) the name of the deleted temporary copy,
    # /tmp/veracity-stdin-XXXX.csv, where errors said <stdin>
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"id,y\nq1,1\n")))
    assert main(["monitor", "outcomes", "m.duckdb", "-", "--id", "id", "--label", "y"]) == 0
    assert capsys.readouterr().out.startswith("<stdin>: 1 outcome read")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"id,ts,p\nq1,2026-03-03,0.5\n")))
    assert main(["monitor", "log", "m.duckdb", "-", "--id", "id", "--time", "ts", "--score", "p", "--json"]) == 0
    assert '"source": "<stdin>"' in capsys.readouterr().out
    con = duckdb.connect(str(store.path), read_only=True)
    try:
        sources = [s for (s,) in con.execute("SELECT source FROM batches ORDER BY batch DESC LIMIT 2").fetchall()]
    finally:
        con.close()
    assert sources == ["<stdin>", "<stdin>"]


def test_column_options_given_data_instead_of_a_name_are_one_line_errors(store):
    import pandas as pd

    # time=<a Series> raised pandas' "truth value of a Series is ambiguous" from inside the store
    frame = pd.DataFrame({"id": ["q1"], "y": [1]})
    with pytest.raises(vc.VeracityError, match="time= must name a column of the data"):
        store.outcomes(frame, id="id", label="y", time=pd.Series(["2026-03-04"]))
    with pytest.raises(vc.VeracityError, match="score= must name a column"):
        store.log(frame, id="id", time="ts", score=np.array([0.2]))
    with pytest.raises(vc.VeracityError, match="by= must name a column"):
        store.log(frame, id="id", time="ts", score="p", by=["seg", 3])
    with pytest.raises(vc.VeracityError, match="source must be a string"):
        store.outcomes(frame, id="id", label="y", source=3)


# -- vc.monitor: a missing period key became a period named 'nan' or 'None' ----------------------------
@pytest.mark.parametrize("periods", [np.array([1.0, np.nan, 2.0, 2.0]), np.array(["a", None, "b", "b"], dtype=object),
                                     np.array(["a", np.nan, "b", "b"], dtype=object), "pandas-NA", "pandas-Int64"])
def test_monitor_refuses_missing_period_keys(periods):
    import pandas as pd

    p, y = np.full(4, 0.3), np.array([0, 1, 0, 0])
    if isinstance(periods, str) and periods == "pandas-NA":  # a period '<NA>' (and, checked naively, "boolean value of NA is ambiguous")
        periods = pd.Series(["a", None, "b", "b"], dtype="string")
    elif isinstance(periods, str):
        periods = pd.Series([1, None, 2, 2], dtype="Int64")
    with pytest.raises(vc.VeracityError,
                       match=r"periods has 1 missing key \(first at row 1\); drop or fill it") as info:
        vc.monitor(p, y, periods, min_count=1)
    assert info.value.param == "periods"
    assert [r.period for r in vc.monitor(p, y, ["a", "b", "b", "c"], min_count=1).rows] == ["a", "b", "c"]


@pytest.mark.parametrize("column", ["k", "f"])
def test_monitor_on_a_relation_refuses_missing_period_keys(column):
    import pandas as pd

    logs = pd.DataFrame({"p": [0.3] * 4, "y": [0, 1, 0, 0], "k": ["a", None, "b", "b"], "f": [1.0, np.nan, 2.0, 2.0]})
    rel = duckdb.sql("SELECT * FROM logs")
    with pytest.raises(vc.VeracityError,
                       match=rf"column '{column}' \(periods\) has 1 missing value; drop or fill it"):
        vc.monitor(rel, score="p", label="y", periods=column, min_count=1)


@pytest.mark.parametrize("by", [np.r_[np.nan, np.ones(1999)], np.array([None] + ["a"] * 1999, dtype=object),
                                np.array([np.nan] + ["a"] * 1999, dtype=object)])
def test_label_plan_groups_missing_keys_as_audit_does(by):
    # NaN was a group of its own named 'nan'; None raised a bare TypeError from np.unique; round 29: a
    # missing key is the group '(missing)', as vc.audit names it (it was refused)
    g = np.random.default_rng(0).random(2000)
    plan = vc.label_plan(g, width=0.1, by=by)
    assert plan.rows[-1]["group"] == "(missing)" and plan.rows[-1]["rows"] == 1
    with pytest.raises(vc.VeracityError, match="group keys of one type"):
        vc.label_plan(g[:2], width=0.1, by=np.array([1, "a"], dtype=object))


def test_ppi_audit_on_labels_of_one_class_says_its_interval_is_no_interval():
    rng = np.random.default_rng(0)
    a = vc.ppi_audit(np.zeros(100), rng.random(100), rng.random(2000))
    # session 16: Wilson's interval for 0 of 100 (the rare-outcome interval), not [0, 0]
    assert a.row("rate")["ci_low"] == 0.0 and a.row("rate")["ci_high"] == pytest.approx(
        1.959963984540054**2 / (100 + 1.959963984540054**2))
    assert "zero width" not in a.note and "only 0 of the 100 labels are positive" in a.note


@pytest.mark.parametrize("score, label, alerted", [(0.0, 1, True), (1.0, 0, True), (0.0, 0, False), (1.0, 1, False)])
def test_certain_scores_that_the_outcomes_contradict_raise_the_calibration_alert(tmp_path, score, label, alerted):
    import pandas as pd

    from veracity.monitoring import MonitorStore

    # scores of exactly 0 have no Poisson-binomial spread: the test's z was NaN, so 300 positives where
    # the scores promised none gave status 'ok' (ECE 1.0) and no alert
    n = 300
    s = MonitorStore(tmp_path / "z.duckdb")
    ids = np.arange(n).astype(str)
    s.log(pd.DataFrame({"id": ids, "ts": ["2026-03-03"] * n, "p": [score] * n}), id="id", time="ts", score="p")
    s.outcomes(pd.DataFrame({"id": ids, "y": [label] * n, "o": ["2026-03-04"] * n}), id="id", label="y", time="o")
    row = s.status(as_of="2026-04-01").rows[0]
    assert row.ece == abs(score - label)
    assert (row.status == "alert") is alerted
    assert any(a.kind == "calibration" for a in row.alerts) is alerted


@pytest.mark.parametrize("horizon", [np.timedelta64(-30, "D"), np.timedelta64("NaT"), np.timedelta64(200 * 365, "D")])
def test_label_maturity_checks_a_timedelta_horizon_as_every_other(horizon):
    # a numpy timedelta skipped the checks its docstring promised: -30 days made every label mature
    t = np.array(["2026-01-01", "2026-03-01"], dtype="datetime64[D]")
    with pytest.raises(vc.VeracityError, match="horizon must be a finite duration between 0 and 100 years"):
        vc.label_maturity(t, np.datetime64("2026-03-15"), horizon)


def test_label_maturity_reads_every_kind_of_duration_alike():
    import datetime

    import pandas as pd

    t = np.array(["2026-01-01", "2026-03-01"], dtype="datetime64[D]")
    as_of = np.datetime64("2026-03-15")
    for h in (30, "30d", "720h", np.timedelta64(30, "D"), np.timedelta64(30 * 86400 * 10**9, "ns"),
              datetime.timedelta(days=30), pd.Timedelta(days=30)):
        assert vc.label_maturity(t, as_of, h).tolist() == [True, False]


def test_text_outcomes_say_how_to_send_them(store):
    import pandas as pd

    store.log(pd.DataFrame({"id": ["a", "b"], "ts": ["2026-03-01"] * 2, "p": [0.2, 0.7]}), id="id", time="ts", score="p")
    with pytest.raises(vc.VeracityError, match=r"values such as 'no', 'yes'.*map the positive outcome to 1"):
        store.outcomes(pd.DataFrame({"id": ["a", "b"], "y": ["no", "yes"]}), id="id", label="y")


def test_the_exact_bound_for_labels_without_spread_keeps_its_false_alarm_rate_and_has_power():
    # seeded simulation of judged_calibrated's no-spread branch: calibrated scores f ~ U(0, 0.1), 20 labels
    # y ~ Bernoulli(f); whenever every label is 0 (no spread) the scores must be flagged at most alpha/2 of
    # the time; scores of 0.5 with 20 negatives must be flagged
    from veracity.delayed._ppi import judged_calibrated

    rng = np.random.default_rng(11)
    draws, n, level = 4000, 20, 0.95
    f = rng.uniform(0.0, 0.1, (draws, n))
    y = rng.random((draws, n)) < f
    flat = ~y.any(axis=1)  # all labels 0: the rectifier y - f has (almost) no spread only if f is constant,
    c = (y - f).mean(axis=1)[flat]  # so judge the branch itself with se = 0
    calibrated = judged_calibrated(c, c, np.zeros(c.size), n, level)
    assert flat.sum() > 1000 and 1.0 - calibrated.mean() <= (1 - level) / 2
    c_bad = np.full(50, -0.5)
    assert not judged_calibrated(c_bad, c_bad, np.zeros(50), n, level).any()
