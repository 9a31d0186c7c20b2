"""Hostile inputs to the core, segments, decisions and calibrators (session 13, helper r13)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc


def _data(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    return p, (rng.uniform(size=n) < p).astype(int)


# -- by= slices: one order on every route -------------------------------------------------------


def test_object_by_keys_order_by_value_like_int_keys_and_files(tmp_path):
    """An object column of numbers ordered its slices as text ('10' < '9') in memory, while the
    int column and the file route (DuckDB) order 2, 9, 10, 100."""
    p, y = _data()
    keys = np.random.default_rng(1).choice([9, 10, 2, 100], size=p.size)
    want = ["2", "9", "10", "100"]
    assert list(vc.audit(p, y, by=keys).groups) == want
    assert list(vc.audit(p, y, by=keys.astype(object)).groups) == want
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"p": p, "y": y, "k": keys.astype(object)})
    assert list(vc.audit(frame, score="p", label="y", by="k").groups) == want
    pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    path = tmp_path / "k.parquet"
    frame.to_parquet(path)
    assert list(vc.audit(str(path), score="p", label="y", by="k").groups) == want


def test_object_by_keys_pool_the_same_slices_under_max_groups_as_int_keys():
    p, y = _data(600)
    keys = np.repeat([10, 9, 2, 100, 11], 120)  # five equal slices: the ties go to the first in key order
    assert list(vc.audit(p, y, by=keys.astype(object), max_groups=3).groups) == ["2", "9", "(other 3 values)"]
    assert list(vc.audit(p, y, by=keys, max_groups=3).groups) == ["2", "9", "(other 3 values)"]


def test_object_by_keys_nan_and_none_are_one_missing_slice_last():
    p, y = _data()
    keys = np.array([10.0, None, 9.0, float("nan")] * 100, dtype=object)
    # NaN and None were two slices ('nan', 'None'); now one missing slice, last, with both their rows
    got = vc.audit(p, y, by=keys)
    assert list(got.groups) == ["9.0", "10.0", "(missing)"]
    assert got.groups["(missing)"].n == 200 and got.groups["9.0"].n == got.groups["10.0"].n == 100
    mixed = np.array([9, "a", 10, None] * 100, dtype=object)  # do not compare: as text, missing last
    assert list(vc.audit(p, y, by=mixed).groups) == ["10", "9", "a", "(missing)"]


def test_core_key_order_is_the_sources_order():
    from veracity.core._keys import key_order
    from veracity.sources._api import key_order as engine_order

    for keys in ([10, None, 9, 2], ["b", 1, "a", None], [float("nan"), 3.5, -1.0], [True, False], ["10", "9"]):
        got, want = key_order(list(keys)), engine_order(list(keys))
        assert [repr(k) for k in got] == [repr(k) for k in want]


# -- vc.compare on one-class evaluation rows --------------------------------------------------


def _logits(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n) * 2.0
    return s, (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-s / 2.0))).astype(int)


def test_compare_one_class_reports_ece_brier_and_auc_na():
    """compare refused evaluation rows of one class ('AUC needs both classes'), though ECE, NLL and
    Brier are defined there; now they are reported and AUC reads n/a, as in vc.audit."""
    s, y = _logits(300, 3)
    cal = vc.TemperatureScaling(score_type="logit").fit(s[:150], y[:150])
    pos = s[150:][y[150:] == 1]
    ledger = vc.compare(pos, np.ones(pos.size, int), cal)
    p0, p1 = 1 / (1 + np.exp(-pos)), 1 / (1 + np.exp(-pos / cal.temperature_))
    assert ledger.row("Brier").before == pytest.approx(np.mean((p0 - 1) ** 2), rel=1e-12)
    assert ledger.row("Brier").after == pytest.approx(np.mean((p1 - 1) ** 2), rel=1e-12)
    assert ledger.row("NLL").after == pytest.approx(np.mean(np.log1p(np.exp(-pos / cal.temperature_))), rel=1e-9)
    assert vc.audit(p1, np.ones(pos.size, int)).ece == pytest.approx(ledger.row("ECE").after, rel=1e-12)
    auc = ledger.row("AUC")
    assert math.isnan(auc.before) and math.isnan(auc.after) and not auc.regression and not auc.worse
    assert auc.verdict == "n/a (one class)"
    assert ledger.certificates["auc_identical"] is None
    text = str(ledger)
    assert "AUC bit-identical: n/a" in text and "BROKEN" not in text


def test_compare_zero_weight_class_equals_dropping_its_rows():
    s, y = _logits(400, 4)
    cal = vc.PlattScaling(score_type="logit").fit(s[:200], y[:200])
    ev, yv = s[200:], y[200:]
    w = (yv == 1).astype(float)
    weighted = vc.compare(ev, yv, cal, sample_weight=w, n_resamples=0)
    dropped = vc.compare(ev[yv == 1], yv[yv == 1], cal, n_resamples=0)
    for m in ("ECE", "NLL", "Brier"):
        assert weighted.row(m).after == pytest.approx(dropped.row(m).after, rel=1e-12)
    assert math.isnan(weighted.row("AUC").after)


# -- vc.split: the spare row of an odd class ------------------------------------------------------


def test_split_spare_rows_bias_no_row_and_move_a_role_by_at_most_one_row_per_class():
    """The largest-remainder tie goes to the first role, so a role's class counts are fixed within one
    row of n_c·f; which rows fill them is a uniform draw: every row of a class lands in a role with the
    same probability (count / n_c), whatever its position."""
    y = np.r_[np.zeros(7, int), np.ones(9, int)]
    runs = 3000
    hits = np.zeros(y.size)
    for seed in range(runs):
        r = vc.split(y, roles={"calib": 0.5, "test": 0.5}, random_state=seed)
        for c, n_c in ((0, 7), (1, 9)):
            assert abs(int(((r == "calib") & (y == c)).sum()) - n_c / 2) <= 0.5
        hits += r == "calib"
    for c, want in ((0, 4 / 7), (1, 4 / 9)):  # 4 of 7 negatives, 4 of 9 positives (the carry's turn)
        rate = hits[y == c] / runs
        se = math.sqrt(want * (1 - want) / runs)
        assert np.all(np.abs(rate - want) < 4.5 * se)
