"""Round 4 of the hostile user against vc.segments, vc.SegmentCalibration and the model comparison.

Each test is a reproducer of a silent wrong answer or a traceback found by hand: ambiguous
segment text, levels that printed alike, a mixed column, weights, saved date levels, feature
Series on another index, a model named like a decision-curve strategy, an unsorted θ grid and
slice keys that print alike.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._validation import VeracityError


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    return rng, p, y


# -- segment text: one text, one segment ---------------------------------------------------------
def test_levels_named_like_the_missing_and_pooled_levels_or_holding_separators_stay_distinct():
    rng, p, y = _data()
    n = p.size
    g = rng.choice(["missing", "other", "a & b=c", "", "plain"] + [f"rare{i}" for i in range(8)], n,
                   p=[0.2, 0.2, 0.2, 0.1, 0.22] + [0.01] * 8).astype(object)
    g[rng.random(n) < 0.05] = None  # real missing values
    res = vc.segments(p, y, features={"g": g, "x=y": rng.choice(["1", "2"], n)}, depth=2)
    texts = [r.segment for r in res.rows]
    assert len(set(texts)) == len(texts)  # before: two 'g=missing', two 'g=other'
    assert {'g="missing"', "g=missing", 'g="other"', "g=other", 'g="a & b=c"', 'g=""', "g=plain"} <= set(texts)
    assert res.segment('g="missing"').n == int(np.sum(g == "missing"))
    assert res.segment("g=missing").n == int(sum(v is None for v in g))
    assert res.segment('g="a & b=c" & "x=y"=1').depth == 2  # a feature name with '=' is quoted too
    assert res.segment('g="a & b=c" & "x=y"=1').features == {"g": '"a & b=c"', "x=y": "1"}
    # the same text on a lazy backend
    import duckdb

    frame = pd.DataFrame({"p": p, "y": y, "g": g})
    lazy = vc.segments(duckdb.connect().from_df(frame), score="p", label="y", features=["g"])
    arrays = vc.segments(p, y, features={"g": g})
    assert sorted((r.segment, r.n) for r in lazy.rows) == sorted((r.segment, r.n) for r in arrays.rows)


def test_numeric_levels_and_bin_edges_that_round_alike_get_distinct_labels():
    rng, p, y = _data()
    close = rng.choice([0.10001, 0.10002, 0.10003], p.size)
    res = vc.segments(p, y, features={"f": close})
    assert sorted(r.segment for r in res.rows) == ["f=0.10001", "f=0.10002", "f=0.10003"]  # before: 'f=0.1' x3
    big = np.array([2**53 - 4, 2**53 - 2], dtype=np.int64)[rng.integers(0, 2, p.size)]
    assert len({r.segment for r in vc.segments(p, y, features={"big": big}).rows}) == 2
    edges = 1.0 + rng.integers(0, 10, p.size) * 1e-6  # ten values 1.000000 ... 1.000009: equal-mass bins
    labels = vc.segments(p, y, features={"e": edges}).levels["e"]
    ends = [lab.strip("[)]").split(", ") for lab in labels]
    assert len(set(labels)) == len(labels) and all(lo != hi for lo, hi in ends)  # before: '[1, 1)' x4


def test_a_column_of_numbers_then_text_is_levels_by_text_not_a_traceback():
    _, p, y = _data(2000)
    mixed = np.array([1] * 1000 + ["a"] * 1000, dtype=object)  # the first 1,000 values look numeric
    res = vc.segments(p, y, features={"m": mixed})
    assert sorted((r.segment, r.n) for r in res.rows) == [("m=1", 1000), ("m=a", 1000)]


# -- options ----------------------------------------------------------------------------------------
def test_numpy_floats_are_accepted_for_fdr_and_level():
    rng, p, y = _data()
    f = {"r": rng.choice(list("abc"), p.size)}
    want = vc.segments(p, y, features=f, fdr=0.1, level=0.9)
    got = vc.segments(p, y, features=f, fdr=np.float32(0.1), level=np.float64(0.9))
    assert [r.ci_low for r in got.rows] == [r.ci_low for r in want.rows]
    with pytest.raises(VeracityError, match="fdr must be in"):
        vc.segments(p, y, features=f, fdr=np.float32(1.5))


def test_bins_for_an_unknown_feature_or_cut_points_for_text_are_refused_not_ignored():
    rng, p, y = _data()
    f = {"age": rng.integers(18, 80, p.size), "r": rng.choice(list("abc"), p.size)}
    with pytest.raises(VeracityError, match=r"bins= names 'agee', which is not among features="):
        vc.segments(p, y, features=f, bins={"agee": [30, 45]})
    with pytest.raises(VeracityError, match=r"bins= gives cut points for feature 'r'"):
        vc.segments(p, y, features=f, bins={"r": [1, 2]})
    assert vc.segments(p, y, features=f, bins={"age": [30, 45]}).levels["age"] == ["[18, 30)", "[30, 45)",
                                                                                  "[45, 79]"]


def test_feature_series_on_another_index_than_the_scores_are_refused():
    rng, p, y = _data(400)
    idx = np.arange(p.size)
    scores, labels = pd.Series(p, index=idx), pd.Series(y, index=idx)
    shuffled = pd.Series(rng.choice(["a", "b"], p.size), index=idx[::-1])
    with pytest.raises(VeracityError, match=r"scores and features\['f'\] are pandas objects with different indexes"):
        vc.segments(scores, labels, features={"f": shuffled})
    seg = vc.SegmentCalibration(features=["f"])
    with pytest.raises(VeracityError, match="different indexes"):
        seg.fit(scores, labels, features={"f": shuffled})
    seg.fit(scores, labels, features={"f": shuffled.to_numpy()})
    with pytest.raises(VeracityError, match="different indexes"):
        seg.transform(scores, features={"f": shuffled})


# -- weights ----------------------------------------------------------------------------------------
def test_equal_weights_keep_the_exact_test_of_small_segments():
    rng, p, y = _data(1500, seed=4)
    f = {"r": rng.choice(list("abcdefghij"), p.size), "s": rng.choice(list("xyz"), p.size)}
    base = {r.segment: r for r in vc.segments(p, y, features=f).rows}
    assert any(r.test == "exact" for r in base.values())
    for c in (1.0, 2.5, 0.1):
        weighted = {r.segment: r for r in vc.segments(p, y, features=f, sample_weight=np.full(p.size, c)).rows}
        for k, r in base.items():
            s = weighted[k]
            assert s.test == r.test  # before: "z" for every weighted segment
            if r.p_value is not None:
                assert s.p_value == pytest.approx(r.p_value, rel=1e-9, abs=1e-15)
                assert s.discovery == r.discovery
    unequal = vc.segments(p, y, features=f, sample_weight=rng.uniform(0.5, 2, p.size))
    assert {r.test for r in unequal.rows if r.test} <= {"z", "gamma"}  # uneven weights: never the exact law


# -- SegmentCalibration --------------------------------------------------------------------------
@pytest.mark.parametrize("unit", ["us", "ns", "D"])
def test_segment_calibration_with_date_levels_saves_as_json_and_loads_the_same(unit, tmp_path):
    rng, p, _ = _data(6000, seed=5)
    days = np.array(["2026-01-01", "2026-02-01", "2026-03-01"], dtype=f"datetime64[{unit}]")
    d = days[rng.integers(0, 3, p.size)]
    y = (rng.uniform(size=p.size) < np.clip(p + np.where(d == days[1], 0.15, 0.0), 0, 1)).astype(int)
    seg = vc.SegmentCalibration(features=["d"]).fit(p, y, features={"d": d})
    assert any(c["keys"] for c in seg.corrections_)  # the planted month is corrected
    want = seg.transform(p, features={"d": d})
    text = json.dumps(seg.to_dict())  # before (us, D): TypeError, datetime is not JSON serializable
    again = vc.load(json.loads(text))
    np.testing.assert_array_equal(again.transform(p, features={"d": d}), want)
    seg.save(tmp_path / "seg.json")
    np.testing.assert_array_equal(vc.load(tmp_path / "seg.json").transform(p, features={"d": d}), want)


def test_segment_calibration_refuses_bad_feature_columns_in_one_line():
    rng, p, y = _data(3000)
    f = {"r": rng.choice(list("abc"), p.size), "k": rng.integers(0, 3, p.size)}
    seg = vc.SegmentCalibration(features=["r", "k"]).fit(p, y, features=f)
    q = p[:4]
    two_d = np.array(list("abcabcab")).reshape(4, 2)
    for bad, match in ((two_d, r"1-D\), got shape \(4, 2\)"), ("a", r"1-D\), got shape \(\)")):
        with pytest.raises(VeracityError, match=match):
            seg.transform(q, features={"r": bad, "k": f["k"][:4]})
    with pytest.raises(VeracityError, match="feature 'k' has numeric levels"):
        seg.transform(q, features={"r": f["r"][:4], "k": np.array(["x"] * 4)})
    with pytest.raises(VeracityError, match=r"built without features; build it with SegmentCalibration\(features="):
        vc.SegmentCalibration().fit(p, y, features=f)  # before: fit the base alone, silently


def test_time_zone_aware_dates_name_the_same_levels_on_every_backend():
    import duckdb
    import polars as pl

    rng, p, y = _data(600)
    d = (pd.to_datetime("2026-01-01") + pd.to_timedelta(rng.integers(0, 2, p.size), unit="D")).tz_localize(
        "Europe/Paris")
    frame = pd.DataFrame({"p": p, "y": y, "d": d})
    seen = []
    for data in (frame, pl.from_pandas(frame), pl.from_pandas(frame).lazy(), duckdb.connect().from_df(frame)):
        seen.append(sorted((r.segment, r.n) for r in vc.segments(data, score="p", label="y", features=["d"]).rows))
    instants = [sorted((pd.Timestamp(t.split("=", 1)[1]), n) for t, n in s) for s in seen]
    assert all(s == instants[0] for s in instants)  # the same two instants on every backend
    assert all(s == seen[0] for s in seen)  # and the same text: each instant in UTC (was the column's zone
    # in memory and on polars, UTC on DuckDB)
    assert [t for t, _ in seen[0]] == ["d=2025-12-31 23:00:00+00:00", "d=2026-01-01 23:00:00+00:00"]
    audit = list(vc.audit(frame, score="p", label="y", by="d").to_dict()["groups"])
    assert [t for t, _ in seen[0]] == [f"d={g}" for g in audit]  # as the audit names its slices


# -- comparison ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["all", "none"])
def test_decision_curve_refuses_a_model_named_like_a_strategy(name):
    rng, p, y = _data(300)
    with pytest.raises(VeracityError, match=f"a model named '{name}' would be confused"):
        vc.decision_curve({name: p, "b": np.clip(p + 0.1, 0, 0.99)}, y, thresholds=[0.2, 0.5])
    frame = pd.DataFrame({name: p, "y": y})
    with pytest.raises(VeracityError, match="rename the model"):
        vc.decision_curve(frame, scores=[name], label="y", thresholds=[0.2])


def test_murphy_theta_is_sorted_once_so_the_better_ranges_read_along_it():
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.integers(0, 2, n)
    a = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, n), 0.01, 0.99)
    b = np.clip(0.5 + 0.1 * (y - 0.5) + rng.normal(0, 0.2, n), 0.01, 0.99)
    m = vc.murphy_diagram({"a": a, "b": b}, y, theta=[0.9, 0.1, 0.5, 0.3, 0.7, 0.5])
    np.testing.assert_array_equal(m.theta, [0.1, 0.3, 0.5, 0.7, 0.9])
    assert m.difference.ranges(m.theta) == {"b": [], "a": [(0.1, 0.9)]}  # before: a "range" [0.9, 0.5]
    ref = vc.murphy_diagram({"a": a, "b": b}, y, theta=[0.1, 0.3, 0.5, 0.7, 0.9])
    np.testing.assert_array_equal(m.elementary["a"], ref.elementary["a"])


def test_compare_slices_whose_keys_print_alike_are_refused_as_the_audit_refuses_them():
    rng = np.random.default_rng(1)
    n = 800
    y = rng.integers(0, 2, n)
    a = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, n), 0.01, 0.99)
    b = np.clip(a + rng.normal(0, 0.05, n), 0.01, 0.99)
    keys = np.array([1, "1"] * (n // 2), dtype=object)
    # first: one slice of 400 rows, the other lost; then two slices '1' and "'1'" where vc.audit and SQL
    # refuse the pair (session 16): one rule on every route
    with pytest.raises(VeracityError, match="both named '1'"):
        vc.compare_models({"a": a, "b": b}, y, by=keys, n_resamples=0)
    with pytest.raises(VeracityError, match="both named '1'"):
        vc.audit(a, y, by=keys)


def test_threshold_grids_are_refused_in_a_threshold_s_words():
    _, p, y = _data(200)
    with pytest.raises(VeracityError, match=r"thresholds is empty; pass at least one probability in \[0, 1\)"):
        vc.decision_curve({"m": p}, y, thresholds=[])
    with pytest.raises(VeracityError, match=r"theta holds NaN; pass probabilities in \[0, 1\]"):
        vc.murphy_diagram({"m": p}, y, theta=[0.2, np.nan])


def test_compare_slice_keys_on_another_index_than_the_scores_are_refused():
    rng = np.random.default_rng(1)
    n = 400
    idx = np.arange(n)
    y = pd.Series(rng.integers(0, 2, n), index=idx)
    a = pd.Series(np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, n), 0.01, 0.99), index=idx)
    b = pd.Series(np.clip(a + rng.normal(0, 0.05, n), 0.01, 0.99), index=idx)
    g = pd.Series(rng.choice(["u", "v"], n), index=idx[::-1])  # before: slices of the wrong rows, silently
    with pytest.raises(VeracityError, match="and by are pandas objects with different indexes"):
        vc.compare_models({"a": a, "b": b}, y, by=g, n_resamples=0)
    r = vc.compare_models({"a": a, "b": b}, y, by=g.loc[idx], n_resamples=0)
    assert sum(part.n for part in r.groups.values()) == n


def test_segment_calibration_with_time_zone_aware_levels_loads_the_same():
    rng, p, _ = _data(6000, seed=6)
    days = pd.to_datetime(["2026-01-01", "2026-02-01", "2026-03-01"]).tz_localize("Europe/Paris")
    d = pd.Series(days[rng.integers(0, 3, p.size)])  # the array form reads these as Timestamp objects
    y = (rng.uniform(size=p.size) < np.clip(p + np.where(d == days[1], 0.15, 0.0), 0, 1)).astype(int)
    seg = vc.SegmentCalibration(features=["d"]).fit(p, y, features={"d": d})
    assert any(c["keys"] for c in seg.corrections_)
    want = seg.transform(p, features={"d": d})
    again = vc.load(json.loads(json.dumps(seg.to_dict())))  # before: TypeError (Timestamp), then no match
    np.testing.assert_array_equal(again.transform(p, features={"d": d}), want)


def test_segment_tables_name_the_level_of_their_intervals():
    rng, p, _ = _data(4000)
    r = rng.choice(["a", "b"], p.size)
    y = (rng.uniform(size=p.size) < np.clip(p + 0.1 * (r == "a"), 0, 1)).astype(int)
    res = vc.segments(p, y, features={"r": r}, level=0.8)
    assert "80% CI of gap" in str(res) and "95%" not in str(res)  # before: "95% CI of gap" at every level
    assert "80% CI of gap" in str(res.rows[0])
    assert "95% CI of gap" in str(vc.segments(p, y, features={"r": r}))


def test_a_model_s_error_keeps_the_option_it_is_about():
    # the model-named re-raise dropped param/hint, so front ends could not spell the option
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    with pytest.raises(vc.VeracityError) as err:
        vc.compare_models({"a": rng.normal(size=300), "b": rng.uniform(size=300)}, y)
    assert err.value.param == "score_type" and str(err.value).startswith("model 'a': scores must be probabilities")
