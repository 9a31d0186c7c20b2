"""Round 25: the slices of ``by=`` read with the false-discovery rate controlled across them
(Benjamini-Hochberg q-values per pair and metric), ``min_count``, and a printout that stays short."""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc

ALPHA = 0.05


def _slices(rng: np.random.Generator, sizes: np.ndarray, better: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Slice s has sizes[s] rows; model b is the truth where better[s], else as noisy as model a."""
    key = np.repeat(np.arange(sizes.size), sizes)
    n = key.size
    x = rng.normal(size=n)
    truth = 1 / (1 + np.exp(-1.5 * x))
    y = (rng.random(n) < truth).astype(int)

    def noisy() -> np.ndarray:
        return 1 / (1 + np.exp(-1.5 * (x + rng.normal(scale=0.8, size=n))))

    a, b = noisy(), noisy()
    b = np.where(better[key], truth, b)
    return a, b, y, key


def _bh(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg q-values from the definition, q_(i) = min_{j >= i} m p_(j) / j (the oracle)."""
    m = p.size
    order = np.argsort(p)
    q = np.empty(m)
    running = 1.0
    for rank in range(m, 0, -1):
        running = min(running, p[order[rank - 1]] * m / rank)
        q[order[rank - 1]] = running
    return q


def _read(r: vc.ModelComparison, metric: str) -> dict[str, str]:
    return {k: g.row(metric).reading for k, g in r.groups.items()}


def test_equally_good_models_on_500_slices_keep_false_discoveries_under_the_level():
    rng = np.random.default_rng(25)
    sizes = np.full(500, 60)
    a, b, y, key = _slices(rng, sizes, np.zeros(500, dtype=bool))
    r = vc.compare_models({"a": a, "b": b}, y, by=key, n_resamples=0)
    assert len(r.groups) == 500
    unadjusted = sum(g.row("brier").p_value <= ALPHA for g in r.groups.values())
    assert unadjusted >= 10  # the premise: each slice's own test calls ~5 % of them different
    for metric in ("brier", "log_loss", "auc"):
        readings = _read(r, metric)
        assert set(readings.values()) <= {"better", "worse", "within noise", "n/a"}
        called = sum(v in ("better", "worse") for v in readings.values())
        assert called / len(readings) <= ALPHA, (metric, called)
    # no slice verdict names a winner by a test on these rows (without resamples the CORP parts are read as
    # point estimates, and the verdict says so)
    assert not any("lower Brier" in v or "ranks better" in v for g in r.groups.values() for v in g.verdicts)


def test_one_model_better_in_a_tenth_of_the_slices_is_found_there():
    rng = np.random.default_rng(7)
    better = np.zeros(500, dtype=bool)
    better[rng.choice(500, size=50, replace=False)] = True
    sizes = np.where(better, 400, 60)
    a, b, y, key = _slices(rng, sizes, better)
    r = vc.compare_models({"a": a, "b": b}, y, by=key, n_resamples=0)
    readings = _read(r, "brier")
    called = {int(k): v for k, v in readings.items() if v in ("better", "worse")}
    power = np.mean([readings[str(s)] == "better" for s in np.flatnonzero(better)])
    false = sum(not (better[s] and v == "better") for s, v in called.items())
    assert power >= 0.6, f"power {power:.2f}"  # most of the 50 slices where b is better are found
    # one draw's false-discovery share (its expectation is at most 5 % x 450/500)
    assert false / max(len(called), 1) <= 2 * ALPHA, (false, len(called), f"power {power:.2f}")


def test_q_values_are_benjamini_hochberg_of_the_slices_p_values():
    rng = np.random.default_rng(3)
    better = np.arange(40) < 6
    a, b, y, key = _slices(rng, np.where(better, 300, 80), better)
    r = vc.compare_models({"a": a, "b": b}, y, by=key, n_resamples=50, random_state=1)
    for metric in ("brier", "log_loss", "ece", "auc"):
        rows = [g.row(metric) for g in r.groups.values()]
        p = np.array([x.p_value for x in rows])
        ok = ~np.isnan(p)
        np.testing.assert_allclose([x.q_value for x in np.array(rows)[ok]], _bh(p[ok]), rtol=1e-12)
        for x in rows:
            expected = ("within noise" if x.q_value > ALPHA else
                        "better" if (x.diff > 0) == (metric == "auc") else "worse")
            assert x.reading == expected
    dsc_p = np.array([g.corp_differences[0].dsc_p for g in r.groups.values()])
    ok = ~np.isnan(dsc_p)
    np.testing.assert_allclose(np.array([g.corp_differences[0].dsc_q for g in r.groups.values()])[ok],
                               _bh(dsc_p[ok]), rtol=1e-12)
    # the whole-table rows carry no q-value: nothing to adjust
    assert all(x.q_value is None and "q_value" not in x.to_dict() for x in r.rows)


def test_a_slice_verdict_reads_its_q_value_not_its_own_interval():
    rng = np.random.default_rng(11)
    a, b, y, key = _slices(rng, np.full(200, 60), np.zeros(200, dtype=bool))
    r = vc.compare_models({"a": a, "b": b}, y, by=key, n_resamples=0)
    own = [k for k, g in r.groups.items() if g.row("brier").ci_high < 0 or g.row("brier").ci_low > 0]
    assert own  # the premise: some slice's own Brier interval excludes 0
    for k in own:
        if r.groups[k].row("brier").q_value > ALPHA:
            assert "lower Brier score" not in r.groups[k].verdict, r.groups[k].verdict
            assert ", q = " in r.groups[k].verdict


def test_min_count_lists_small_slices_untested_and_the_printout_stays_short():
    rng = np.random.default_rng(2)
    sizes = np.concatenate([np.full(30, 80), np.full(70, 5)])
    a, b, y, key = _slices(rng, sizes, np.arange(100) < 5)
    r = vc.compare_models({"a": a, "b": b}, y, by=key, n_resamples=0, min_count=20)
    assert len(r.groups) == 30 and len(r.too_small) == 70 and set(r.too_small.values()) == {5}
    text = str(r)
    slice_lines = [line for line in text.splitlines() if line.startswith("  ") and " rows): " in line]
    assert len(slice_lines) <= 20  # more than 20 slices: only those read beyond noise
    assert "more slices not printed" in text and "too small to test (fewer than 20 rows)" in text
    assert "Benjamini-Hochberg" in text
    d = r.to_dict()
    assert len(d["groups"]) == 30 and len(d["too_small"]) == 70  # the dict keeps every slice
    assert d["slice_fdr"]["slices_tested"] == 30 and d["slice_fdr"]["alpha"] == pytest.approx(ALPHA)
    whole = vc.compare_models({"a": a, "b": b}, y, n_resamples=0)
    # the whole table unchanged (str: its n/a entries are NaN, never equal to themselves)
    assert str([x.to_dict() for x in r.rows]) == str([x.to_dict() for x in whole.rows])
    assert r.verdicts == whole.verdicts


def test_min_count_without_slices_is_refused(error_line):
    text = error_line(lambda: vc.compare_models({"a": [0.2, 0.7], "b": [0.3, 0.6]}, [0, 1], min_count=5))
    assert "min_count" in text and "by=" in text


def test_cli_min_count_and_json_q_values(cli, refused, tmp_path):
    rng = np.random.default_rng(4)
    sizes = np.concatenate([np.full(25, 60), np.full(10, 4)])
    a, b, y, key = _slices(rng, sizes, np.arange(35) < 3)
    path = tmp_path / "m.csv"
    lines = [f"{u:.6f},{v:.6f},{w},s{k}\n" for u, v, w, k in zip(a, b, y, key)]
    path.write_text("a,b,y,seg\n" + "".join(lines))
    base = ["compare", str(path), "--score", "a", "--against", "b", "--label", "y", "--by", "seg",
            "--n-resamples", "0", "--quiet"]
    r = cli([*base, "--min-count", "10", "--json"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    sliced = [row for row in doc["comparison"] if row["segment"] is not None]
    whole = [row for row in doc["comparison"] if row["segment"] is None]
    assert len({row["segment"] for row in sliced}) == 25 and len(doc["too_small"]) == 10
    assert all("q_value" in row and row["reading"] in ("better", "worse", "within noise", "n/a")
               for row in sliced)
    assert all("q_value" not in row for row in whole)
    text = cli([*base, "--min-count", "10"])
    assert text.code == 0 and "too small to test" in text.out and "more slices not printed" in text.out
    no_by = ["compare", str(path), "--score", "a", "--against", "b", "--label", "y", "--min-count", "3"]
    refused(cli(no_by), "--min-count")
