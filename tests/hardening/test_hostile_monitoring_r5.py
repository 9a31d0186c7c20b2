"""Hostile input against monitoring, round 5: each case reproduces a silent wrong answer, a silent
explosion or a bad error seen before its fix (``vc.monitor``, ``vc.MonitorStore`` and ``veracity monitor``)."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main
from veracity.monitoring import MonitorStore

pd = pytest.importorskip("pandas")
pytest.importorskip("duckdb")

#: the module's tests in one worker under ``make test`` (``-n 2 --dist loadgroup``):
#: the shared store is built once; spread over both workers, each made it (r43)
pytestmark = pytest.mark.xdist_group(__name__)

AS_OF = "2026-04-15"


def _frame(n: int = 500, seed: int = 0, start: str = "2026-03-02") -> "pd.DataFrame":
    rng = np.random.default_rng(seed)
    ts = pd.Timestamp(start) + pd.to_timedelta(rng.integers(0, 28 * 86400, n), unit="s")
    p = rng.uniform(0.05, 0.95, n)
    return pd.DataFrame({"id": np.arange(n), "ts": ts, "p": p, "y": (rng.random(n) < p).astype(int)})


@pytest.fixture(scope="module")
def _typo_store_once(tmp_path_factory):
    """500 predictions in March 2026 and one whose year was typed 2206 (built once: every test of it reads)."""
    folder = tmp_path_factory.mktemp("typo")
    df = _frame()
    df.loc[7, "ts"] = pd.Timestamp("2206-03-05")
    store = MonitorStore(folder / "m.duckdb").init()
    store.log(df, id="id", time="ts", score="p")
    df["observed"] = pd.Timestamp("2026-04-10")
    # observed in 2026, predicted in 2206: the mistyped row is already pointed at when its outcome arrives
    with pytest.warns(UserWarning, match="1 outcome was observed more than a day before their prediction"):
        store.outcomes(df, id="id", label="y", time="observed")
    return store


def _files(folder) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir()) if f.is_file()}


@pytest.fixture()
def typo_store(_typo_store_once, monkeypatch):
    """The store above, in the working directory; each test only reads it, and leaves its files as they were
    (it was built afresh for each test: ~0.25 s each, 16 tests)."""
    folder = _typo_store_once.path.parent
    monkeypatch.chdir(folder)
    before = _files(folder)
    yield _typo_store_once
    assert _files(folder) == before, "a test of the shared store changed its files"


# -- 1. a mistyped year made ~10^4 empty weekly rows (seconds of work) with no warning ----------------------
def test_a_mistyped_year_is_refused_in_one_line_naming_the_stray_rows(typo_store):
    start = time.perf_counter()
    with pytest.raises(vc.VeracityError) as info:
        typo_store.status(as_of="2300-01-01")
    assert time.perf_counter() - start < 5  # refused before any period is built
    text = str(info.value)
    assert info.value.param == "max_periods" and "\n" not in text
    assert "9,393 weeks" in text and "2206-03-05" in text and "2026-03-02" in text
    assert "180 years" in text and "1 after" in text and "max_periods=9393" in text


def test_max_periods_lets_a_long_listing_through(typo_store):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        st = typo_store.status(as_of="2300-01-01", freq="M", max_periods=5000)
    assert len(st.rows) == 2161 and sum(r.rows for r in st.rows) == 500
    # still said once: nearly every period listed is empty
    assert [str(w.message) for w in seen if "hold no prediction" in str(w.message)]


def test_a_sparse_listing_under_the_cap_is_warned_about(typo_store):
    with pytest.warns(UserWarning, match=r"719 of the 721 quarters listed hold no prediction.*2206-03-05"):
        typo_store.status(as_of="2300-01-01", freq="Q")


def test_a_tiny_window_is_refused_before_millions_of_periods_are_built(typo_store):
    with pytest.raises(vc.VeracityError, match=r"1s windows .*longer window=") as info:
        typo_store.status(window="1s", as_of=AS_OF)
    assert "mistyped" not in str(info.value)  # no stray row here: the window is the problem


def test_a_prediction_dated_in_the_future_is_not_dropped_silently(typo_store):
    with pytest.warns(UserWarning, match=r"1 predictions are dated in the future .*2206-03-05"):
        st = typo_store.status()
    assert sum(r.rows for r in st.rows) == 499


def test_cli_names_the_flag_for_a_mistyped_year(typo_store, capsys):
    assert main(["monitor", "status", str(typo_store.path), "--as-of", "2300-01-01"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--max-periods 9393" in err and "Traceback" not in err
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # the command prints a warning as one stderr line
        assert main(["monitor", "status", str(typo_store.path), "--as-of", "2300-01-01", "--freq", "M",
                     "--max-periods", "3000", "--json", "-q"]) == 0
    assert "warning: 2,159 of the 2,161 months listed hold no prediction" in capsys.readouterr().err
    assert main(["monitor", "recalibrate", str(typo_store.path), "--as-of", "2300-01-01"]) == 2
    assert "--max-periods" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "x"])
def test_max_periods_must_be_a_positive_integer(typo_store, bad):
    with pytest.raises(vc.VeracityError, match="max_periods"):
        typo_store.status(as_of=AS_OF, max_periods=bad)


# -- 2. vc.monitor: the interval used n_eff, the PSI "few rows" label the raw weighted sum; and the PSI ------
# -- itself changed with the weights' scale (the +0.5 smoothing was in weight units) -------------------------
def _weighted_case():
    rng = np.random.default_rng(1)
    p = np.r_[rng.uniform(0.1, 0.9, 200), rng.uniform(0.1, 0.3, 200)]
    y = (rng.random(400) < p).astype(int)
    periods = np.array(["a"] * 200 + ["b"] * 200)
    return p, y, periods


def test_one_huge_weight_makes_few_rows_for_the_psi_too():
    p, y, periods = _weighted_case()
    w = np.ones(400)
    w[200] = 1000.0  # period b: 1,199 in weight, about 1.2 effective rows
    b = vc.monitor(p, y, periods, sample_weight=w, min_count=50).rows[1]
    assert b.status == "insufficient"  # n_eff < min_count
    assert b.shift == "few rows"  # the same size decides the PSI's label


@pytest.mark.parametrize("scale", [0.01, 1.0, 100.0])
def test_the_psi_does_not_depend_on_the_weights_scale(scale):
    p, y, periods = _weighted_case()
    unweighted = vc.monitor(p, y, periods, min_count=50).rows[1]
    r = vc.monitor(p, y, periods, sample_weight=np.full(400, scale), min_count=50).rows[1]
    assert r.psi == pytest.approx(unweighted.psi, rel=1e-12)
    assert r.shift == unweighted.shift == "MAJOR"


def test_weighted_psi_agrees_between_the_array_and_the_frame_forms():
    pl = pytest.importorskip("polars")
    p, y, periods = _weighted_case()
    w = np.random.default_rng(3).uniform(0.1, 5.0, 400)
    a = vc.monitor(p, y, periods, sample_weight=w, min_count=50)
    f = vc.monitor(pl.DataFrame({"p": p, "y": y, "g": periods, "w": w}).lazy(), score="p", label="y",
                   periods="g", sample_weight="w", min_count=50)
    for ra, rf in zip(a.rows, f.rows):
        assert ra.psi == pytest.approx(rf.psi, rel=1e-9) and ra.shift == rf.shift


# -- 3. outcomes had no pos_label: "yes"/"no" labels could not be declared --------------------------------
@pytest.fixture()
def text_store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pd.DataFrame({"id": range(6), "ts": ["2026-03-02"] * 6, "p": [.1, .2, .3, .6, .7, .8]}).to_csv("p.csv", index=False)
    pd.DataFrame({"id": range(6), "y": ["yes", "no", "no", "yes", "yes", "no"]}).to_csv("y.csv", index=False)
    assert main(["monitor", "log", "m.duckdb", "p.csv", "--id", "id", "--time", "ts", "--score", "p", "-q"]) == 0
    return MonitorStore(tmp_path / "m.duckdb")


def _labels(store):
    con = store.connect(read_only=True)
    try:
        return dict(con.execute("SELECT id, label FROM predictions WHERE label IS NOT NULL").fetchall())
    finally:
        con.close()


def test_cli_outcomes_take_pos_label(text_store, capsys):
    assert main(["monitor", "outcomes", "m.duckdb", "y.csv", "--id", "id", "--label", "y", "--pos-label", "yes",
                 "-q"]) == 0
    assert _labels(text_store) == {"0": 1, "1": 0, "2": 0, "3": 1, "4": 1, "5": 0}


def test_text_labels_without_pos_label_say_which_flag(text_store, capsys):
    assert main(["monitor", "outcomes", "m.duckdb", "y.csv", "--id", "id", "--label", "y"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--pos-label" in err


@pytest.mark.parametrize("value", ["Yes", 3])
def test_a_pos_label_that_is_not_a_label_value_is_refused(text_store, value):
    with pytest.raises(vc.VeracityError, match="not among the values") as info:
        text_store.outcomes("y.csv", id="id", label="y", pos_label=value)
    assert info.value.param == "pos_label"
    assert _labels(text_store) == {}


def test_pos_label_on_three_values_is_refused(text_store):
    pd.DataFrame({"id": range(3), "y": ["a", "b", "c"]}).to_csv("y3.csv", index=False)
    with pytest.raises(vc.VeracityError, match="3 values"):
        text_store.outcomes("y3.csv", id="id", label="y", pos_label="a")


def test_a_batch_of_negatives_is_stored_with_a_warning(text_store):
    pd.DataFrame({"id": [1, 2], "y": ["no", "no"]}).to_csv("neg.csv", index=False)
    with pytest.warns(UserWarning, match="not among the labels .* stored as negative"):
        text_store.outcomes("neg.csv", id="id", label="y", pos_label="yes")
    assert _labels(text_store) == {"1": 0, "2": 0}


def test_pos_label_is_read_in_a_numeric_or_boolean_columns_type(text_store):
    text_store.outcomes(pd.DataFrame({"id": ["0", "1"], "y": [2, 1]}), id="id", label="y", pos_label="2")
    text_store.outcomes(pd.DataFrame({"id": ["3", "4"], "y": [True, False]}), id="id", label="y", pos_label="true")
    assert _labels(text_store) == {"0": 1, "1": 0, "3": 1, "4": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a day of 0s with pos_label=1 is nothing to warn about
        text_store.outcomes(pd.DataFrame({"id": ["5"], "y": [0]}), id="id", label="y", pos_label=1)


# -- 4. --tolerance changed only the per-bin flags under --alerts window, while its help said sequential ------
def test_tolerance_with_window_alerts_is_refused(typo_store, capsys):
    with pytest.raises(vc.VeracityError, match="sequential alerts only") as info:
        typo_store.status(as_of=AS_OF, tolerance=0.01)
    assert info.value.param == "tolerance"
    typo_store.status(as_of=AS_OF, alerts="sequential", tolerance=0.01)
    assert main(["monitor", "status", str(typo_store.path), "--as-of", AS_OF, "--tolerance", "0.01"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--alerts sequential" in err


# -- hunted further -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("times, row, text", [
    (["2026-03-02", "garbage"], 1, "'garbage'"),
    (["2026-03-02", "03/04/2026"], 1, "'03/04/2026'"),
])
def test_a_bad_time_string_is_named_not_the_first_good_one(tmp_path, times, row, text):
    # the message named the first string (a valid '2026-03-02') as the one that was not a time
    store = MonitorStore(tmp_path / "m.duckdb")
    with pytest.raises(vc.VeracityError, match=rf"row {row}: {text}") as info:
        store.log(pd.DataFrame({"id": [1, 2], "ts": times, "p": [0.2, 0.3]}), id="id", time="ts", score="p")
    assert "'2026-03-02'" not in str(info.value)


def test_times_with_and_without_an_offset_are_named_as_a_mix(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    df = pd.DataFrame({"id": [1, 2], "ts": ["2026-03-02T00:00:00+02:00", "2026-03-03"], "p": [0.2, 0.3]})
    with pytest.raises(vc.VeracityError, match=r"mixes times with a UTC offset \(row 0.*without \(row 1: '2026-03-03'\)"):
        store.log(df, id="id", time="ts", score="p")


@pytest.mark.parametrize("bad", [1.5, float("inf"), 99.9])
def test_min_count_must_be_a_whole_number(typo_store, bad):
    # 1.5 was accepted: the table said ">= 1 labelled rows" while the per-bin status compared with 1.5
    with pytest.raises(vc.VeracityError, match="min_count must be a whole number"):
        typo_store.status(as_of=AS_OF, min_count=bad)


def test_an_outcome_observed_before_its_prediction_is_warned_about(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pd.DataFrame({"id": [1, 2], "ts": ["2026-03-02", "2026-03-03"], "p": [0.2, 0.3]}), id="id", time="ts",
              score="p")
    with pytest.warns(UserWarning, match="1 outcome was observed more than a day before their prediction"):
        res = store.outcomes(pd.DataFrame({"id": [1, 2], "y": [0, 1], "t": ["2020-01-01", "2026-03-04"]}), id="id",
                             label="y", time="t")
    assert res.observed_before == 1 and res.inserted == 2  # kept: stored, and said
    assert "observed more than a day before" in str(res)


def _three_weeks(tmp_path, label_middle: bool):
    """Weeks 10 and 12 of 2026 labelled (week 12 miscalibrated: half the promised rate); week 11's rows
    only with ``label_middle``... or none at all."""
    rng = np.random.default_rng(0)
    n = 600
    t = [pd.Timestamp(day) + pd.to_timedelta(rng.integers(0, 7 * 86400, n), unit="s")
         for day in ("2026-03-02", "2026-03-09", "2026-03-16")]
    p = rng.uniform(0.05, 0.95, 3 * n)
    y = (rng.random(3 * n) < p * np.repeat([1.0, 1.0, 0.5], n)).astype(int)
    df = pd.DataFrame({"id": range(3 * n), "ts": np.concatenate(t), "p": p, "y": y, "obs": pd.Timestamp("2026-04-01")})
    if not label_middle:
        df = df.drop(index=range(n, 2 * n))  # week 11: no prediction at all
    store = MonitorStore(tmp_path / "m.duckdb").init()
    store.log(df, id="id", time="ts", score="p")
    store.outcomes(df[df.ts < pd.Timestamp("2026-03-09")] if label_middle else df, id="id", label="y", time="obs")
    if label_middle:
        store.outcomes(df[df.ts >= pd.Timestamp("2026-03-16")], id="id", label="y", time="obs")
    return store


def test_a_reference_with_no_predictions_is_refused(tmp_path):
    # every PSI came back n/a and week 12's alert was diagnosed "miscalibration in the reference window itself"
    store = _three_weeks(tmp_path, label_middle=False)
    with pytest.raises(vc.VeracityError, match=r"reference '2026-W11' holds no predictions.*2026-W10, 2026-W12") \
            as info:
        store.status(as_of="2026-04-02", reference="2026-W11")
    assert info.value.param == "reference"


def test_a_reference_without_labels_is_not_blamed_for_the_alert(tmp_path):
    store = _three_weeks(tmp_path, label_middle=True)
    st = store.status(as_of="2026-04-02", reference="2026-W11")
    w12 = [r for r in st.rows if r.period == "2026-W12"][0]
    assert w12.status == "alert" and w12.psi == w12.psi  # the scores still compare with the reference
    assert "reference window itself" not in w12.diagnosis
    assert "2026-W11 has no labelled rows" in w12.diagnosis


@pytest.mark.parametrize("bad", [-5, "x", 1.5, float("nan"), float("inf"), True])
def test_monitor_min_count_is_checked(bad):
    # -5 and 1.5 were used as they came; "x" raised a TypeError, NaN a ValueError, inf an OverflowError
    p, y, periods = _weighted_case()
    with pytest.raises(vc.VeracityError, match="min_count must be a whole number") as info:
        vc.monitor(p, y, periods, min_count=bad)
    assert info.value.param == "min_count"


def test_monitor_reads_iso_strings_with_an_offset_without_a_numpy_warning():
    # numpy's "no explicit representation of timezones" warning escaped (an error under -W error)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = vc.monitor([0.2, 0.7], [0, 1], np.array(["2026-01-01T00:30+02:00", "2026-01-02T00:00+00:00"], dtype=object), freq="M",
                       min_count=1)
    assert [row.period for row in r.rows] == ["2025-12", "2026-01"]  # the offset converted to UTC


def test_an_as_of_before_every_prediction_is_not_a_silent_all_clear(typo_store, capsys):
    # an empty table and "alerts: none" (exit 0 under --fail-on-alert) for an as-of mistyped into the past
    with pytest.warns(UserWarning, match=r"no prediction is dated at or before the as-of time 2020-01-01.*500 stored "
                                         r"begin at 2026-03-02"):
        st = typo_store.status(as_of="2020-01-01")
    assert st.rows == ()
