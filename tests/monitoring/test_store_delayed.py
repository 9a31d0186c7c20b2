"""The store before the labels arrive (issue 26): PPI from a random audit sample, early evidence,
shift-aware label-free estimates, anytime-valid sequential alerts — each checked against the
statistics package it wires in (``veracity.delayed``, itself tested against ppi-python and a
reference of Waudby-Smith & Ramdas), on the rows the store holds.
"""

import json

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.cli import main
from veracity.delayed import sequence_from_sums
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")
T0 = np.datetime64("2026-01-05", "s")
AS_OF = "2026-03-20"


def _world(tmp_path, *, shift=True, seed=1, n=20_000, audit_rate=0.03, early=False):
    rng = np.random.default_rng(seed)
    t = T0 + rng.integers(0, 70 * 86400, n).astype("timedelta64[s]")
    week = ((t - T0) // np.timedelta64(7 * 86400, "s")).astype(int)
    logit = rng.normal(-2.2, 1.2, n)
    p = 1 / (1 + np.exp(-logit))
    true = logit + (np.where(week >= 5, np.log(2.2), 0.0) if shift else 0.0)
    y = (rng.random(n) < 1 / (1 + np.exp(-true))).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    observed = t + np.timedelta64(30 * 86400, "s")
    final = observed <= np.datetime64(AS_OF)
    store.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": observed[final]}), id="id",
                   label="y", time="ts")
    audit = ~final & (rng.random(n) < audit_rate)
    store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": t[audit] + np.timedelta64(86400, "s")}),
                   id="id", label="y", time="ts", audit_sample=True)
    if early:  # confirmed positives arrive early (a selected, not random, set of labels)
        fast = ~final & ~audit & (y == 1) & (rng.random(n) < 0.5)
        store.outcomes(pa.table({"id": np.arange(n)[fast], "y": y[fast], "ts": t[fast] + np.timedelta64(86400, "s")}),
                       id="id", label="y", time="ts")
    return store, dict(t=t, week=week, p=p, y=y, final=final, audit=audit)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """``world(**options)``: :func:`_world` built once per module and options, for the tests that only read
    the store (status, plots, the command line's status)."""
    built = {}

    def get(**options):
        key = tuple(sorted(options.items()))
        if key not in built:
            built[key] = _world(tmp_path_factory.mktemp("world"), **options)
        return built[key]

    return get


def test_status_rows_carry_the_delayed_label_keys(world, capsys):
    store, _ = world()
    assert main(["monitor", "status", str(store.path), "--as-of", AS_OF, "--horizon", "30d", "--json", "-"]) in (0, 1)
    rows = json.loads(capsys.readouterr().out)["periods"]
    for row in rows:
        assert {"estimate_ppi", "estimate_cbpe", "provisional", "sequence_low", "sequence_high"} <= row.keys()
    pending = [r for r in rows if r["pending"] == r["rows"] and r["rows"]]
    assert pending and all(r["estimate_ppi"] and r["provisional"]["basis"] == "ppi" for r in pending)


def test_ppi_in_status_equals_ppi_mean_on_the_windows_rows(world):
    store, w = world()
    st = store.status(freq="W", as_of=AS_OF, horizon="30d")
    starts = np.array([np.datetime64(r.start) for r in st.rows])
    checked = 0
    for i, row in enumerate(st.rows):
        if not row.estimate_ppi:
            continue
        end = starts[i + 1] if i + 1 < len(starts) else np.datetime64(AS_OF)
        inside = (w["t"] >= starts[i]) & (w["t"] < end)
        lab = inside & w["audit"]
        ref = vc.ppi_mean(w["y"][lab], w["p"][lab], w["p"][inside & ~w["audit"]])
        assert row.estimate_ppi["estimate"] == pytest.approx(ref.estimate, abs=1e-9)
        assert row.estimate_ppi["ci_low"] == pytest.approx(ref.ci_low, abs=1e-9)
        assert row.estimate_ppi["ci_high"] == pytest.approx(ref.ci_high, abs=1e-9)
        checked += 1
    assert checked >= 3


def test_ppi_covers_the_shifted_rate_where_cbpe_does_not_and_cbpe_is_withdrawn(world):
    store, w = world()
    st = store.status(freq="W", as_of=AS_OF, horizon="30d")
    diagnosed = [r.period for r in st.rows if r.diagnosis and r.diagnosis.startswith("prior shift")]
    assert diagnosed
    later = [r for r in st.rows if r.period > diagnosed[0]]
    assert later and all((r.estimate_cbpe or {}).get("withdrawn", "").startswith("prior shift diagnosed")
                         for r in later)
    assert "withdrawn: prior shift diagnosed" in str(st)
    covered = [r for r in later if r.estimate_ppi]
    truth = {r.period: w["y"][(w["t"] >= np.datetime64(r.start)) & (w["t"] < np.datetime64(r.end))].mean()
             for r in covered}
    assert all(r.estimate_ppi["ci_low"] <= truth[r.period] <= r.estimate_ppi["ci_high"] for r in covered)
    # the rectifier's interval excludes 0: the scores are not calibrated there, and status says so
    assert "the scores are not calibrated here" in str(st)


def test_early_labels_give_a_provisional_partial_rate_with_its_caveat(tmp_path):
    store, _ = _world(tmp_path, audit_rate=0.0, early=True)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d")
    prov = [r.provisional for r in st.rows if r.provisional]
    assert prov and all(p["basis"] == "partial labels" and "not a random sample" in p["caveat"] for p in prov)
    assert all(r.estimate_ppi is None for r in st.rows)  # no audit sample, no PPI
    # early labels stay pending: the horizon decides when a window is final
    assert all(r.labelled == 0 for r in st.rows if r.provisional and r.pending == r.rows)


def test_sequence_bounds_equal_the_sequence_of_daily_sums(tmp_path):
    store, w = _world(tmp_path, shift=False)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d", alerts="sequential")
    final = w["final"]
    matured = np.maximum(w["t"] + np.timedelta64(30 * 86400, "s"), w["t"] + np.timedelta64(30 * 86400, "s"))
    day = matured[final].astype("datetime64[D]")
    days, inv = np.unique(day, return_inverse=True)
    x = w["y"][final] - w["p"][final]
    n = np.bincount(inv, minlength=days.size).astype(float)
    # alpha = 1 - alert_level is shared out in advance: half for the overall gap, half over the bins
    alpha = 1 - st.alert_level
    low, high = sequence_from_sums(n, np.bincount(inv, x, days.size), np.bincount(inv, x * x, days.size),
                                   alpha=alpha / 2)
    last = st.rows[-1]
    assert last.sequence_low == pytest.approx(low[-1], abs=1e-12)
    assert last.sequence_high == pytest.approx(high[-1], abs=1e-12)
    # each score bin's sequence is the sequence of that bin's daily sums at alpha / (2 bins)
    bins = st.bins
    b = np.minimum(np.floor(w["p"][final] * bins), bins - 1).astype(int)
    checked = 0
    for j in range(bins):
        inb = b == j
        if not inb.any():
            assert last.bins[j]["sequence_low"] is None
            continue
        nb = np.bincount(inv[inb], minlength=days.size).astype(float)
        lb, hb = sequence_from_sums(nb, np.bincount(inv[inb], x[inb], days.size),
                                    np.bincount(inv[inb], x[inb] ** 2, days.size), alpha=alpha / (2 * bins))
        assert last.bins[j]["sequence_low"] == pytest.approx(lb[-1], abs=1e-12)
        assert last.bins[j]["sequence_high"] == pytest.approx(hb[-1], abs=1e-12)
        assert last.bins[j]["sequence_labels"] == inb.sum()
        checked += 1
    assert checked >= 10
    # the same numbers as the public vc.binned_sequences with one batch per day
    ref = vc.binned_sequences(w["p"][final], w["y"][final], bins=bins, batches=day, alpha=alpha / 2)
    assert [r["low"] for r in ref.rows()] == pytest.approx(
        [bb["sequence_low"] if bb["sequence_low"] is not None else -1.0 for bb in last.bins], abs=1e-12)
    assert all(r.sequence_low is None or r.sequence_low <= r.sequence_high for r in st.rows)
    assert st.sequence_alarms == {} and not st.alerts  # calibrated stream: no alarm


def test_sequential_alerts_fire_on_a_shift_and_window_alerts_are_replaced(world, capsys):
    # 60,000 rows (was 40,000 while the overall sequence had all of alpha; it now shares it with the bins)
    store, _ = world(shift=True, n=60_000)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d", alerts="sequential")
    assert "(all)" in st.sequence_alarms
    assert all(a.startswith("sequential") for r in st.rows for a in r.alerts)
    assert st.to_dict()["alert_mode"] == "sequential"
    assert main(["monitor", "status", str(store.path), "--as-of", AS_OF, "--horizon", "30d", "--alerts",
                 "sequential", "--fail-on-alert"]) == 1
    assert "left the calibrated region" in capsys.readouterr().out


def test_audit_sample_ingest_is_idempotent_and_its_mark_is_part_of_the_record(tmp_path, capsys):
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": ["1", "2"], "ts": ["2026-01-05"] * 2, "p": [0.2, 0.7]}), id="id", time="ts",
              score="p")
    labels = pa.table({"id": ["1", "2"], "y": [0, 1], "ts": ["2026-01-06"] * 2})
    assert store.outcomes(labels, id="id", label="y", time="ts", audit_sample=True).inserted == 2
    again = store.outcomes(labels, id="id", label="y", time="ts", audit_sample=True)
    assert (again.inserted, again.duplicates, again.batch) == (0, 2, None)
    # the same labels, not marked as audit (the full feed repeating them): a no-op, the mark kept (round 42:
    # a conflict, whose --replace dropped the mark)
    again = store.outcomes(labels, id="id", label="y", time="ts")
    assert (again.duplicates, again.batch) == (2, None)
    with pytest.raises(vc.VeracityError, match="audit_sample must be True or False"):
        store.outcomes(labels, id="id", label="y", audit_sample="yes")
    path = tmp_path / "y.csv"
    path.write_text("id,y\n1,0\n2,1\n")
    assert main(["monitor", "outcomes", str(store.path), str(path), "--id", "id", "--label", "y",
                 "--audit-sample"]) == 0  # the same audit labels again: a no-op
    assert "2 already stored (no-op)" in capsys.readouterr().out


def test_bad_alert_options_are_one_line(tmp_path):
    store, _ = _world(tmp_path, n=2000)
    with pytest.raises(vc.VeracityError, match="alerts must be 'window'"):
        store.status(alerts="daily")
    with pytest.raises(vc.VeracityError, match="tolerance must be in"):
        store.status(alerts="sequential", tolerance=2)


def test_label_plan_per_window(tmp_path, capsys):
    store, w = _world(tmp_path, n=8000)
    plan = store.plan(width=0.05, freq="W", as_of=AS_OF, horizon="30d")
    assert plan.rows and all(r["labels_ppi"] is None or r["labels_ppi"] <= r["labels_classical"] for r in plan.rows)
    # the same numbers as planning on the arrays of one window's pending rows
    last = plan.rows[-1]
    pend = ~w["final"]
    tail = w["week"] == w["week"].max()
    ref = vc.label_plan(w["p"][pend & tail], width=0.05)
    assert last["labels_ppi"] == ref.rows[0]["labels_ppi"]
    assert main(["monitor", "plan", str(store.path), "--width", "0.05", "--as-of", AS_OF, "--horizon", "30d",
                 "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["plan"][-1]["labels_ppi"] == last["labels_ppi"]


def test_store_statistics_merge_with_an_audits(tmp_path):
    # one edge builder: the store's per-window statistics and an audit's merge by addition (issue 21)
    rng = np.random.default_rng(0)
    n = 3000
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.random(n) < p).astype(int)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": ["2026-01-05"] * n, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": ["2026-01-06"] * n}), id="id", label="y", time="ts")
    for bins in (10, 15):
        window = list(store.status(freq="M", as_of="2026-02-01", bins=bins).stats.values())[0]
        audit = vc.audit(p, y, bins=bins).table.stats
        assert np.array_equal(window.edges, audit.edges)
        merged = window + audit
        assert vc.ReliabilityTable.from_stats(merged).ece == pytest.approx(
            vc.ece(np.r_[p, p], np.r_[y, y], bins=bins), abs=1e-12)


def test_status_finds_the_miscalibrated_segment_per_window(tmp_path, capsys):
    # issue 24: the store's windows searched over the logged slice columns (vc.segments on the window's rows)
    rng = np.random.default_rng(0)
    n = 16_000
    t = T0 + rng.integers(0, 14 * 86400, n).astype("timedelta64[s]")
    region, channel = rng.choice(["EU", "US", "APAC"], n), rng.choice(["web", "app"], n)
    p = rng.uniform(0.05, 0.9, n)
    planted = (region == "EU") & (channel == "app")
    y = (rng.random(n) < np.where(planted, np.clip(p + 0.15, 0, 1), p)).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "region": region, "channel": channel}), id="id",
              time="ts", score="p", by=["region", "channel"])
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": t}), id="id", label="y", time="ts")
    st = store.status(freq="W", as_of="2026-03-01", segments=True)
    for row in st.rows:
        found = {d["segment"] for d in row.segments}
        assert "region=EU & channel=app" in found
        window = (t >= np.datetime64(row.start)) & (t < np.datetime64(row.end))
        ref = vc.segments(p[window], y[window], features={"region": region[window], "channel": channel[window]},
                          min_count=50)
        assert row.segments[0]["q_value"] == pytest.approx(ref.discoveries[0].q_value, rel=1e-9)
    assert "where it is miscalibrated" in str(st)
    assert main(["monitor", "status", str(store.path), "--as-of", "2026-03-01", "--segments", "--json", "-"]) in (0, 1)
    rows = json.loads(capsys.readouterr().out)["periods"]
    assert all(r["segments"] for r in rows)
    with pytest.raises(vc.VeracityError, match="needs slice columns"):
        _world(tmp_path / "x" if (tmp_path / "x").mkdir() is None else tmp_path, n=500)[0].status(segments=True)


def test_per_bin_ppi_rates_equal_ppi_mean_and_ppi_python_on_the_bins_rows(tmp_path, capsys):
    ppi_py = pytest.importorskip("ppi_py")
    scipy_special = pytest.importorskip("scipy.special")
    store, w = _world(tmp_path, audit_rate=0.08)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d")
    bins = st.bins
    assert bins == 15  # the audit's default: the store's ECE reads like vc.audit's
    b = np.minimum(np.floor(w["p"] * bins), bins - 1).astype(int)
    checked = 0
    for row in st.rows:
        assert len(row.bins) == bins and [x["lo"] for x in row.bins] == pytest.approx(np.arange(bins) / bins)
        inside = (w["t"] >= np.datetime64(row.start)) & (w["t"] < np.datetime64(row.end))
        for j, cell in enumerate(row.bins):
            here = inside & (b == j)
            assert cell["rows"] == here.sum()
            lab, unl = here & w["audit"], here & ~w["audit"]
            if cell["estimate_ppi"] is None:
                assert lab.sum() < 2
                continue
            ref = vc.ppi_mean(w["y"][lab], w["p"][lab], w["p"][unl], sample_check="off")
            e = cell["estimate_ppi"]
            assert e["estimate"] == pytest.approx(ref.estimate, abs=1e-9)
            assert 0.0 <= e["ci_low"] <= e["ci_high"] <= 1.0
            # the same bin of vc.ppi_audit on the window's rows: the same numbers (one interval for bins)
            aud = vc.ppi_audit(w["y"][inside & w["audit"]], w["p"][inside & w["audit"]],
                               w["p"][inside & ~w["audit"]], bins=bins, sample_check="off")
            ab = next(r for r in aud.rows[7:] if r["lo"] == pytest.approx(j / bins))
            assert (e["estimate"], e["ci_low"], e["ci_high"]) == pytest.approx(
                (ab["estimate"], ab["ci_low"], ab["ci_high"]), abs=1e-9)
            assert e["sufficient"] == ab["sufficient"]
            # the package of Angelopoulos, Duchi & Zrnic on the same rows (PPI++, power-tuned lambda): its
            # estimate, and the Wilson interval there with n* = min(labels, p(1 - p) / se^2) from its se
            yl, fl, fu = w["y"][lab].astype(float), w["p"][lab], w["p"][unl]
            est = float(np.ravel(ppi_py.ppi_mean_pointestimate(yl, fl, fu, lam=None))[0])
            lo, hi = (float(np.ravel(v)[0]) for v in ppi_py.ppi_mean_ci(yl, fl, fu, alpha=0.05, lam=None))
            z = 1.959963984540054
            pc = min(max(est, 0.0), 1.0)
            se = (hi - lo) / (2 * z)
            ns = lab.sum() if not (se > 1e-7 and 0 < pc < 1) else min(lab.sum(), pc * (1 - pc) / se**2)
            centre = (pc + z * z / (2 * ns)) / (1 + z * z / ns)
            half = z / (1 + z * z / ns) * np.sqrt(pc * (1 - pc) / ns + z * z / (4 * ns * ns))
            low, high = centre - half, centre + half
            # session 35: each end moved out to Garwood's exact Poisson bound below 10 effective (non-)events
            x, x_ = pc * ns, (1 - pc) * ns
            if 0 < x < 10 - 1e-9:  # (10 up to rounding: 14 labels at 4 / 14)
                low = min(low, scipy_special.gammaincinv(x, 0.025) / ns)
            if 0 < x_ < 10 - 1e-9:
                high = max(high, 1 - scipy_special.gammaincinv(x_, 0.025) / ns)
            low, high = (0.0, high) if pc <= 0 else (low, high)
            high = 1.0 if pc >= 1 else high
            assert (e["estimate"], e["ci_low"], e["ci_high"]) == pytest.approx(
                (est, min(max(low, 0.0), pc), max(min(high, 1.0), pc)), abs=1e-9)
            assert e["labels"] == lab.sum()
            checked += 1
    assert checked >= 25
    # in the JSON, per row, under "bins"
    assert main(["monitor", "status", str(store.path), "--as-of", AS_OF, "--horizon", "30d", "--json", "-"]) in (0, 1)
    out = json.loads(capsys.readouterr().out)
    assert out["bins"] == 15
    cell = out["periods"][-1]["bins"][3]
    assert {"bin", "lo", "hi", "rows", "conf", "labelled", "rate", "ci_low", "ci_high", "estimate_ppi",
            "sequence_low", "sequence_high", "sequence_labels", "alert"} == cell.keys()
    # the text and the notebook view show the latest window per bin
    text = str(st)
    assert "per score bin, " + st.rows[-1].period in text and "PPI rate" in text
    assert "Per score bin, " + st.rows[-1].period in st._repr_html_()  # a visible section, not only the text


def test_per_bin_ppi_covers_the_bins_true_rate_when_the_scores_are_overconfident(tmp_path):
    """Over-confident scores (the truth is pulled towards 0.5): every bin's PPI interval covers the bin's
    realised rate in the pending windows, while the label-free conf of the outer bins is far off."""
    rng = np.random.default_rng(7)
    n = 60_000
    t = T0 + rng.integers(0, 70 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0, 1, n)
    y = (rng.random(n) < 0.5 + 0.6 * (p - 0.5)).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    audit = rng.random(n) < 0.05
    store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": t[audit]}), id="id", label="y",
                   time="ts", audit_sample=True)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d", bins=5)
    b = np.minimum(np.floor(p * 5), 4).astype(int)
    inside_all, off = [], []
    for row in st.rows:
        inside = (t >= np.datetime64(row.start)) & (t < np.datetime64(row.end))
        for j, cell in enumerate(row.bins):
            if cell["estimate_ppi"] is None:
                continue
            truth = y[inside & (b == j)].mean()
            inside_all.append(cell["estimate_ppi"]["ci_low"] <= truth <= cell["estimate_ppi"]["ci_high"])
            off.append(abs(cell["conf"] - truth))
    assert len(inside_all) >= 40 and np.mean(inside_all) >= 0.9
    assert max(off) > 0.1  # the scores' own promise is off by more than 0.1 in the outer bins


@pytest.mark.parametrize("mode", ["window", "sequential"])
def test_the_over_time_plot_draws_the_band_the_alert_reads(world, mode):
    pytest.importorskip("matplotlib")
    store, _ = world(shift=True, n=60_000)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d", alerts=mode, tolerance=0.001 if mode == "sequential"
                      else 0.0)
    fig = st.plot()
    mid = fig.axes[1]
    bars = [p for p in mid.patches if p.get_gid() == "band"]
    rows = [r for r in st.rows if r.slice == "(all)"]
    if mode == "sequential":
        want = [(i, r.sequence_low, r.sequence_high) for i, r in enumerate(rows) if r.sequence_low is not None]
        tol = 0.001
    else:
        want = [(i, (r.details["expected_low"] - r.expected_positives) / r.labelled,
                 (r.details["expected_high"] - r.expected_positives) / r.labelled)
                for i, r in enumerate(rows) if r.labelled >= st.min_count]
        tol = 0.0
    assert len(bars) == len(want) > 0
    for bar, (i, lo, hi) in zip(bars, want):
        assert bar.get_x() + bar.get_width() / 2 == pytest.approx(i)
        assert (bar.get_y(), bar.get_y() + bar.get_height()) == pytest.approx((lo, hi), abs=1e-12)
    # a window alerts on calibration exactly where the plotted band leaves what it is compared with
    for i, lo, hi in want:
        r = rows[i]
        if mode == "sequential":
            fired = any(a.startswith("sequential: mean") for a in r.alerts)
            assert fired == (lo > tol or hi < -tol)
        else:
            fired = any(a.startswith("calibration") for a in r.alerts)
            assert fired == (not lo <= r.rate - r.conf <= hi)
    assert any(rows[i].alerts for i, _, _ in want)


def test_sequences_of_a_pooled_slice_sum_the_slices_pooled_into_it(tmp_path):
    rng = np.random.default_rng(11)
    n = 6000
    t = T0 + rng.integers(0, 40 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(2, 6, n)
    y = (rng.random(n) < p).astype(np.int8)
    seg = np.where(rng.random(n) < 0.5, "big", rng.choice(["a", "b", "c", "d"], n))
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "seg": seg}), id="id", time="ts", score="p", by="seg")
    seen = t + np.timedelta64(2 * 86400, "s")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": seen}), id="id", label="y", time="ts")
    st = store.status(freq="W", as_of="2026-03-01", by="seg", max_slices=2, alerts="sequential")
    names = {r.slice for r in st.rows}
    assert "(other)" in names and len(names) == 4  # (all), the two biggest, (other)
    kept = {x for x in names if x not in ("(all)", "(other)")}
    last = [r for r in st.rows if r.period == st.rows[-1].period]
    day = seen.astype("datetime64[D]")
    for r in last:
        m = np.ones(n, bool) if r.slice == "(all)" else (~np.isin(seg, list(kept)) if r.slice == "(other)"
                                                       else seg == r.slice)
        days, inv = np.unique(day[m], return_inverse=True)
        x = (y - p)[m]
        low, high = sequence_from_sums(np.bincount(inv).astype(float), np.bincount(inv, x), np.bincount(inv, x * x),
                                       alpha=(1 - st.alert_level) / 2)
        assert (r.sequence_low, r.sequence_high) == pytest.approx((low[-1], high[-1]), abs=1e-12), r.slice


def test_alerts_have_one_type_on_the_status_and_on_its_rows(tmp_path):
    """Issue 22: StoreStatus.alerts listed rows while row.alerts held strings. Both now hold Alert
    (a str: the sentence, with period, slice and kind); the rows are StoreStatus.alert_rows; reading
    a row's attribute through an alert still works, with a deprecation warning."""
    import pickle
    import warnings

    from veracity.monitoring import Alert

    store, _ = _world(tmp_path, shift=True, n=30_000)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d")
    assert st.alerts and st.alert_rows
    assert all(type(a) is Alert for a in st.alerts)
    assert all(type(a) is Alert for r in st.rows for a in r.alerts)
    assert list(st.alerts) == [a for r in st.rows for a in r.alerts]  # the same sentences, in row order
    first = st.alerts[0]
    row = st.alert_rows[0]
    assert isinstance(first, str) and first.startswith(first.kind)
    assert (first.period, first.slice) == (row.period, row.slice) == (row.alerts[0].period, row.alerts[0].slice)
    assert first.kind in {"calibration", "slope", "score shift"}
    assert first.to_dict() == {"period": row.period, "slice": row.slice, "kind": first.kind, "message": str(first)}
    assert pickle.loads(pickle.dumps(first)) == first and pickle.loads(pickle.dumps(first)).period == row.period
    # old code that walked st.alerts as rows keeps working, warned once
    from veracity.core import _compat

    _compat._WARNED.discard(("StoreStatus.alerts", "rows"))  # warned once per process
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        assert first.rate == row.rate and first.labelled == row.labelled
    assert [w for w in got if issubclass(w.category, DeprecationWarning) and "alert_rows" in str(w.message)]
    with pytest.raises(AttributeError):
        first.no_such_attribute
    d = st.to_dict()
    assert d["alerts"] == len(st.alerts) and d["alert_rows"] == len(st.alert_rows)
    assert json.dumps(d, default=str) and all(isinstance(a, str) for r in d["periods"] for a in r["alerts"])


def test_status_has_a_real_signature_and_keyword_only_options(tmp_path):
    """Issue 22: status(**kwargs) showed no parameters; slices(con) and period_keys(t, freq) took
    their options by position."""
    import inspect
    import warnings

    params = inspect.signature(MonitorStore.status).parameters
    assert not any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params.values())
    assert {"freq", "window", "as_of", "horizon", "by", "bins", "alerts", "tolerance", "segments"} <= params.keys()
    assert all(p.kind is p.KEYWORD_ONLY for name, p in params.items() if name != "self")
    assert inspect.signature(MonitorStore.slices).parameters["con"].kind is inspect.Parameter.KEYWORD_ONLY
    assert inspect.signature(vc.period_keys).parameters["freq"].kind is inspect.Parameter.KEYWORD_ONLY
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": ["1"], "ts": ["2026-01-05"], "p": [0.2], "seg": ["a"]}), id="id", time="ts",
              score="p", by="seg")
    from veracity.core import _compat

    _compat._WARNED.difference_update({("MonitorStore.slices", "positional"), ("period_keys", "positional")})
    con = store.connect(read_only=True)
    try:
        assert store.slices(con=con) == ["seg"] == store.slices()
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            assert store.slices(con) == ["seg"]  # positional still works, warned
    finally:
        con.close()
    t = np.array(["2026-01-15", "2026-04-01"], dtype="datetime64[D]")
    with warnings.catch_warnings(record=True) as got2:
        warnings.simplefilter("always")
        assert vc.period_keys(t, "Q").tolist() == vc.period_keys(t, freq="Q").tolist() == ["2026Q1", "2026Q2"]
    assert len(got) == len(got2) == 1
    for w in got + got2:
        assert issubclass(w.category, DeprecationWarning) and "by keyword" in str(w.message)


@pytest.mark.parametrize("make", ["pandas-no-columns", "pandas", "pyarrow", "polars", "dict"])
def test_empty_outcomes_and_predictions_are_a_noop_with_a_note(tmp_path, make, capsys):
    """Issue 22: an empty frame is a no-op with a note (like a re-send), not an error; the CLI says so too."""
    store = MonitorStore(tmp_path / "m.duckdb").init()
    if make.startswith("pandas"):
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame() if make == "pandas-no-columns" else pd.DataFrame({"id": [], "y": [], "ts": [], "p": []})
    elif make == "polars":
        pl = pytest.importorskip("polars")
        frame = pl.DataFrame({"id": [], "y": [], "ts": [], "p": []})
    elif make == "pyarrow":
        frame = pa.table({"id": pa.array([], pa.string()), "y": pa.array([], pa.int8()), "ts": pa.array([], pa.string()),
                          "p": pa.array([], pa.float64())})
    else:
        frame = {"id": [], "y": [], "ts": [], "p": []}
    for got in (store.outcomes(frame, id="id", label="y"), store.outcomes(frame, id="id", label="y", audit_sample=True),
                store.log(frame, id="id", time="ts", score="p")):
        assert got.batch is None and got.rows == 0 and got.note and "no rows" in got.note
        assert "nothing stored (no-op)" in str(got)
    assert store.counts() == {"predictions": 0, "outcomes": 0, "batches": 0}
    empty = tmp_path / "empty.csv"
    empty.write_text("id,y\n")
    assert main(["monitor", "outcomes", str(store.path), str(empty), "--id", "id", "--label", "y", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["note"] == "the file has a header but no rows"


def test_ppi_confusion_and_cost_at_the_threshold_equal_ppi_audit_on_the_windows_rows(tmp_path):
    """Issue 26: PPI estimates of the expected confusion and cost at the deployed threshold, per window,
    equal vc.ppi_audit's (the same PPI++ per target) on the window's rows; calibration-in-the-large
    from the audit labels sits in estimate_ppi['rate_minus_score']."""
    store, w = _world(tmp_path, audit_rate=0.06)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d", threshold=0.3, cost_fp=1.0, cost_fn=5.0)
    checked = 0
    for row in st.rows:
        if row.confusion_ppi is None:
            assert row.estimate_ppi is None
            continue
        inside = (w["t"] >= np.datetime64(row.start)) & (w["t"] < np.datetime64(row.end))
        lab, unl = inside & w["audit"], inside & ~w["audit"]
        ref = vc.ppi_audit(w["y"][lab], w["p"][lab], w["p"][unl], threshold=0.3, cost_fp=1.0, cost_fn=5.0,
                           sample_check="off")
        got = row.confusion_ppi
        assert got["threshold"] == 0.3 and got["labels"] == lab.sum()
        # both cut each interval at its quantity's range (shares [0, 1], cost [0, max c]): the same numbers
        def three(e):
            return e["estimate"], e["ci_low"], e["ci_high"]

        for name, (lo, hi) in {"tp": (0, 1), "fp": (0, 1), "fn": (0, 1), "tn": (0, 1), "cost": (0, 5)}.items():
            assert three(got[name]) == pytest.approx(three(ref.row(name)), abs=1e-9), name
            assert lo <= got[name]["ci_low"] <= got[name]["ci_high"] <= hi, name
        rect = row.estimate_ppi["rate_minus_score"]
        assert three(rect) == pytest.approx(three(ref.row("rate - score")), abs=1e-9)
        checked += 1
    assert checked >= 3
    assert "confusion_ppi" in st.rows[-1].to_dict()


def test_bin_ppi_cells_read_as_rates():
    """What a user reads for a bin's PPI rate: never a rate outside [0, 1], and no number at all
    from a handful of audit labels (the normal interval of 3 labels said '1.000 [1.000, 1.000]')."""
    from veracity.monitoring._status import _ppi_cell

    assert _ppi_cell(None) == ""
    assert _ppi_cell({"estimate": 1.0, "ci_low": 1.0, "ci_high": 1.0, "labels": 3, "sufficient": False}) \
        == "n/a (3 audit labels, too few)"
    cell = _ppi_cell({"estimate": 0.7448, "ci_low": 0.338, "ci_high": 1.151, "labels": 40, "sufficient": True})
    assert cell == "0.7448 [0.338, 1.000] (40)"
    cell = _ppi_cell({"estimate": -0.01, "ci_low": -0.05, "ci_high": 0.03, "labels": 90, "sufficient": True})
    assert cell == "0.0000 [0.000, 0.030] (90)"
