"""vc.monitor on arrays (session 36): the period keys' text is sorted once (each grouping sorts their integer
codes), and a period whose PSI reads "stable" or "few rows" runs no chi-square test (its label reads none).
Both gave a third of the time of a 1,000-period weighted monitor; the numbers and labels are those of the
groupings by text and of the test run everywhere."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.monitoring import _monitor


def _stream(seed=1, periods=120, rows=200, shift=0.0):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.5, 20, periods * rows)
    y = (rng.random(p.size) < np.clip(p + shift, 0, 1)).astype(int)
    w = np.exp(1.5 * rng.normal(size=p.size))
    return p, y, np.repeat(np.arange(periods), rows).astype(str), w


def test_the_keys_text_is_sorted_once(monkeypatch):
    p, y, keys, w = _stream()
    real = np.unique
    sorted_text = []

    def unique(a, *args, **kwargs):
        if np.asarray(a).dtype.kind == "U":
            sorted_text.append(np.asarray(a).size)
        return real(a, *args, **kwargs)

    monkeypatch.setattr(np, "unique", unique)
    vc.monitor(p, y, keys, sample_weight=w, min_count=30)
    assert [n for n in sorted_text if n] == [keys.size]  # was 4 sorts of the 24,000 keys


def test_grouping_by_codes_gives_the_numbers_of_grouping_by_text():
    """The oracle: histograms, effective sizes and statistics grouped by the keys' text, as before."""
    from veracity.core._binning import uniform_edges
    from veracity.core._stats import grouped_stats, prepare_binary, score_histograms

    p, y, keys, w = _stream(seed=2)
    keys = np.where(np.arange(keys.size) % 3 == 0, np.char.add("k", keys), keys)  # 9 before 10 before k1
    edges = uniform_edges(15)
    hist = score_histograms(p, keys, edges, sample_weight=w)
    squares = score_histograms(p, keys, edges, sample_weight=w * w)
    sizes = _monitor._effective_sizes(keys, w)
    stats = grouped_stats(prepare_binary(p, y, sample_weight=w), keys, edges)
    want = _monitor.summarize_periods(dict(sorted(stats.items())), histograms=hist, min_count=30,
                                      histogram_sizes=sizes, histogram_squares=squares,
                                      weight_scale=prepare_binary(p, y, sample_weight=w).weight_scale)
    got = vc.monitor(p, y, keys, sample_weight=w, min_count=30)
    assert [r.period for r in got.rows] == [r.period for r in want.rows]
    assert repr(got.rows) == repr(want.rows)  # every number to the last bit (NaN reads as nan in both)


def test_a_stable_period_runs_no_chi_square_test_and_a_shifted_one_does(monkeypatch):
    real = _monitor.chi2_homogeneity
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_monitor, "chi2_homogeneity", counted)
    p, y, keys, w = _stream(periods=60, rows=400)
    rows = vc.monitor(p, y, keys, min_count=100).rows
    assert {r.shift for r in rows} == {"stable"} and calls == []  # was one test per period
    monkeypatch.setattr(_monitor, "chi2_homogeneity", real)
    labels = [r.shift for r in vc.monitor(p, y, keys, min_count=100).rows]
    assert labels == [r.shift for r in rows]
    # a period whose scores moved: material PSI, so the test is run and its label read from it
    moved = np.where(keys == "7", np.clip(p * 4, 0, 1), p)
    monkeypatch.setattr(_monitor, "chi2_homogeneity", counted)
    shifted = {r.period: r.shift for r in vc.monitor(moved, y, keys, min_count=100).rows}
    assert shifted["7"] in ("moderate", "MAJOR") and len(calls) >= 1
    assert [s for k, s in shifted.items() if k != "7"] == ["stable"] * 59


@pytest.mark.parametrize("min_count", [100, 1000])
def test_few_rows_and_stable_labels_are_those_of_the_test_run_everywhere(monkeypatch, min_count):
    """With the test forced to reject everywhere, a material PSI reads moderate/MAJOR: the labels that skip the
    test ("stable", "few rows") are the same either way."""
    p, y, keys, _ = _stream(seed=3, periods=40, rows=150)
    p = np.where(keys.astype(int) % 5 == 0, np.clip(p * 2.5, 0, 1), p)
    plain = [r.shift for r in vc.monitor(p, y, keys, min_count=min_count).rows]
    monkeypatch.setattr(_monitor, "chi2_homogeneity", lambda *a, **k: 0.0)
    forced = [r.shift for r in vc.monitor(p, y, keys, min_count=min_count).rows]
    assert {"stable"} <= set(plain) or {"few rows"} <= set(plain)
    for a, b in zip(plain, forced):
        assert a == b or (a == "within noise" and b in ("moderate", "MAJOR")), (a, b)
