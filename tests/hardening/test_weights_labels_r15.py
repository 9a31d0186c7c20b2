"""Round 15: one rule for rescaling weights, and hostile ``pos_label`` values in memory.

Before: weights were rescaled by a power of two chosen from the largest weight alone (copied in
``check_weights``, the frame/file routes' ``weight_scale`` and PPI's joint weights). Weights
spread over more than about 1e150 kept their scale when the largest lay in [2**-256, 2**256], so
the squares of the smallest underflowed: a bin holding only small weights got the fallback
effective size 1 (interval [0.002, 0.825] instead of [0.028, 0.213]), the same weights times 2**100
got their true Kish size, and the MCE moved from 0.036 to 0.066; PPI with labelled weights near
1e-170 beside unlabelled weights of 1 raised ZeroDivisionError. Now the scale is chosen from the
largest and the smallest positive weight (``veracity.core._weights.weight_exponent``).

``pos_label='b\\x00'`` matched labels ``'b'`` (numpy's fixed-width text drops trailing NULs), an
object array's label ``'b\\x00'`` never matched ``pos_label='b\\x00'`` (every label silently 0),
and ``pos_label=[1]`` was broadcast as 1.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import veracity as vc

# -- A. one rule for rescaling weights -----------------------------------------------------------------


def _data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.uniform(size=n) < p).astype(float)
    return p, y


def _weights(p: np.ndarray, low_exp: int, seed: int) -> np.ndarray:
    """Weights near 1 for scores >= 0.5 and near 2**low_exp below: bins made only of tiny weights."""
    rng = np.random.default_rng(seed + 1)
    return np.ldexp(rng.uniform(1.0, 2.0, p.size), np.where(p < 0.5, low_exp, 0))


def _kish(w: np.ndarray) -> float:
    """(sum w)^2 / sum w^2 computed on w / max(w): no underflow whatever the units."""
    v = w / w.max()
    return float(v.sum() ** 2 / (v @ v))


def _interval_size(w: np.ndarray, p: np.ndarray, y: np.ndarray) -> float:
    """The reliability interval's size from its definition (session 43), on w / max(w): the smallest of Kish's
    size, the observed r(1 - r)W^2 / sum w^2 (y - r)^2 and calibration's c(1 - c)W^2 / sum w^2 p(1 - p)."""
    v = w / w.max()
    W, r, c = v.sum(), v @ y / v.sum(), v @ p / v.sum()
    sizes = [_kish(w), r * (1 - r) * W * W / ((v * v) @ ((y - r) ** 2)),
             c * (1 - c) * W * W / ((v * v) @ (p * (1 - p)))]
    return float(min(s for s in sizes if s > 0))


def _summary(r: vc.AuditResult) -> tuple:
    """Everything of an audit that must not depend on the weights' units (not the weights' sums)."""
    rows = tuple((row.count, row.conf, row.acc, row.gap, row.ci_low, row.ci_high, row.sufficient)
                 for row in r.table.rows)
    return (r.ece, r.mce, r.brier, r.nll, r.auc, r.accuracy, r.base_rate, rows)


def _rows_close(a: vc.AuditResult, b: vc.AuditResult) -> None:
    assert a.ece == pytest.approx(b.ece, rel=1e-9, abs=1e-15)
    assert a.mce == pytest.approx(b.mce, rel=1e-9, abs=1e-15, nan_ok=True)
    assert len(a.table.rows) == len(b.table.rows)
    for ra, rb in zip(a.table.rows, b.table.rows):
        assert ra.count == rb.count and ra.sufficient == rb.sufficient
        for field in ("conf", "acc", "ci_low", "ci_high"):
            assert getattr(ra, field) == pytest.approx(getattr(rb, field), rel=1e-9, abs=1e-15), field


def test_bins_of_tiny_weights_get_their_kish_size():
    # weights 1e-170 beside weights near 1: the tiny bins' squares underflowed (effective size 1)
    p, y = _data(400, 1)
    w = _weights(p, -565, 1)  # 2**-565 ~ 1.5e-170
    bins = 5
    r = vc.audit(p, y, sample_weight=w, bins=bins, min_count=20)
    edges = np.linspace(0, 1, bins + 1)
    idx = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, bins - 1)
    for row in r.table.rows:
        in_bin = idx == row.index
        kish = _kish(w[in_bin])
        size = _interval_size(w[in_bin], p[in_bin], y[in_bin])  # uneven weights: at most Kish's (session 43)
        assert 0.5 * kish < size <= kish
        low, high = vc.binomial_interval(np.array([row.acc * size]), np.array([size]))
        assert (row.ci_low, row.ci_high) == (pytest.approx(float(low[0]), rel=1e-9),
                                             pytest.approx(float(high[0]), rel=1e-9)), row.index
        assert row.sufficient == (kish >= 20)


@settings(max_examples=40)
@given(low_exp=st.integers(-1000, -1), shift=st.integers(-1000, 1000), seed=st.integers(0, 2**16))
def test_audit_is_invariant_to_multiplying_the_weights_by_a_power_of_two(low_exp, shift, seed):
    p, y = _data(120, seed)
    w = _weights(p, low_exp, seed)
    # keep every weight a normal float64 (a subnormal input has already lost its digits)
    shift = max(min(shift, 1022), -1021 - low_exp)
    base = vc.audit(p, y, sample_weight=w, bins=5)
    moved = vc.audit(p, y, sample_weight=np.ldexp(w, shift), bins=5)
    assert repr(_summary(moved)) == repr(_summary(base))  # repr: exact, and NaN (no MCE) equals NaN


@settings(max_examples=10)
@given(low_exp=st.integers(-700, -1), high_exp=st.integers(-700, 700), seed=st.integers(0, 2**16))
def test_memory_and_parquet_routes_agree_for_extreme_weights(tmp_path_factory, low_exp, high_exp, seed):
    p, y = _data(150, seed)
    w = np.ldexp(_weights(p, low_exp, seed), high_exp)
    assume(np.isfinite(w).all() and w.min() >= 2.0 ** -1022)  # normal numbers: no digits lost on the way in
    path = tmp_path_factory.mktemp("w") / "rows.parquet"
    pd.DataFrame({"p": p, "y": y, "w": w}).to_parquet(path)
    memory = vc.audit(p, y, sample_weight=w, bins=5)
    on_file = vc.audit(str(path), score="p", label="y", sample_weight="w", bins=5)
    _rows_close(memory, on_file)


def test_weight_rule_places_largest_and_smallest():
    from veracity.core._weights import WEIGHT_EXP_FLOOR, WEIGHT_EXP_LIMIT, weight_exponent

    rng = np.random.default_rng(3)
    for _ in range(2000):
        lo_exp, spread = int(rng.integers(-1020, 1000)), int(rng.integers(0, 1200))
        hi_exp = min(lo_exp + spread, 1022)
        smallest, largest = math.ldexp(rng.uniform(1, 2), lo_exp), math.ldexp(rng.uniform(1, 2), hi_exp)
        k = weight_exponent(largest, smallest)
        assert math.ldexp(largest, k) < 2.0 ** WEIGHT_EXP_LIMIT
        if math.frexp(largest)[1] - math.frexp(smallest)[1] + 1 <= WEIGHT_EXP_LIMIT + WEIGHT_EXP_FLOOR:
            assert math.ldexp(smallest, k) >= 2.0 ** -WEIGHT_EXP_FLOOR  # its square is a normal number
            if abs(math.frexp(largest)[1]) <= WEIGHT_EXP_LIMIT and smallest >= 2.0 ** -WEIGHT_EXP_FLOOR:
                assert k == 0  # ordinary weights keep their units
        else:  # too far apart: the largest just below 2**256, whatever the units
            assert math.ldexp(largest, k) >= 2.0 ** (WEIGHT_EXP_LIMIT - 1)


def test_file_route_uses_the_same_rule():
    from veracity.core._weights import weight_exponent
    from veracity.sources._aggregates import weight_scale

    assert weight_scale({"w_max": 1.0, "w_min": 1e-170}) == math.ldexp(1.0, weight_exponent(1.0, 1e-170)) > 1
    assert weight_scale({"w_max": 3e300}) == math.ldexp(1.0, -999)
    assert weight_scale({"w_max": 1.0, "w_min": 0.0}) == 1.0  # smallest positive weight unknown


def test_ppi_joint_weights_spread_over_many_decades():
    # labelled weights near 1e-170, unlabelled near 1: sum w^2 of the labelled rows underflowed to 0
    rng = np.random.default_rng(5)
    f = rng.beta(1, 6, 3000)
    y = (rng.random(f.size) < f).astype(float)
    lab = rng.random(f.size) < 0.05
    w = rng.uniform(0.5, 2.0, f.size)
    keys = ("estimate", "ci_low", "ci_high", "lam", "cbpe")
    base = vc.ppi_mean(y[lab], f[lab], f[~lab], sample_weight=w[lab],
                       sample_weight_unlabelled=w[~lab] * 2.0 ** 565)
    for shift in (0, 300, -300):
        r = vc.ppi_mean(y[lab], f[lab], f[~lab], sample_weight=np.ldexp(w[lab], shift - 565),
                        sample_weight_unlabelled=np.ldexp(w[~lab], shift))
        assert [getattr(r, k) for k in keys] == [getattr(base, k) for k in keys], shift


# -- B. hostile pos_label ------------------------------------------------------------------------------

P6 = np.array([0.2, 0.7, 0.9, 0.4, 0.6, 0.3])


def test_pos_label_with_a_trailing_nul_is_not_the_label_without_it():
    from veracity.core._validation import labels_with_pos_label

    with pytest.raises(vc.VeracityError, match=r"pos_label='b\\x00' is not among the label values "
                                               r"\('a', 'b'\).*only by NUL characters at the end: pass 'b'"):
        labels_with_pos_label(np.array(["a", "b", "a"]), "b\x00")
    with pytest.raises(vc.VeracityError, match=r"not among"):
        vc.audit(P6, np.array(["a", "b", "b", "a", "b", "a"]), pos_label="b\x00")


@pytest.mark.parametrize("kind", ["object", "list", "series"])
def test_a_label_ending_in_nul_is_matched_exactly(kind):
    from veracity.core._validation import labels_with_pos_label

    values = ["a", "b\x00", "b\x00", "a"]
    labels = {"object": np.array(values, dtype=object), "list": values, "series": pd.Series(values)}[kind]
    assert labels_with_pos_label(labels, "b\x00").tolist() == [0.0, 1.0, 1.0, 0.0]
    with pytest.raises(vc.VeracityError, match=r"pos_label='b' is not among .*strip them from the labels"):
        labels_with_pos_label(labels, "b")


@pytest.mark.parametrize("pos_label", [[1], np.array([1]), (1,), {1}, {1: 1}, pd.Series([1]), [0, 1]],
                         ids=["list", "array", "tuple", "set", "dict", "series", "two"])
def test_a_pos_label_that_is_not_one_value_is_refused(pos_label):
    from veracity.core._validation import labels_with_pos_label

    one_value = r"^pos_label= must be one label value .*; pass the positive class itself"
    with pytest.raises(vc.VeracityError, match=one_value) as err:
        labels_with_pos_label(np.array([0, 1, 1, 0]), pos_label)
    assert "\n" not in str(err.value) and err.value.param == "pos_label"
    with pytest.raises(vc.VeracityError, match=r"one label value"):
        vc.audit(P6, np.array([0, 1, 1, 0, 1, 0]), pos_label=pos_label)


def test_one_value_pos_labels_still_work():
    from veracity.core._validation import labels_with_pos_label

    y = np.array([0, 1, 1, 0])
    for pos_label in (1, np.int64(1), 1.0, np.array(1)):
        assert labels_with_pos_label(y, pos_label).tolist() == [0.0, 1.0, 1.0, 0.0]
    assert labels_with_pos_label(np.array([True, False]), True).tolist() == [1.0, 0.0]
    assert labels_with_pos_label(["no", "yes"], "yes").tolist() == [0.0, 1.0]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_file_routes_read_nul_labels_as_memory_does(tmp_path, fmt):
    labels = np.array(["a", "b\x00", "b\x00", "a", "b\x00", "a"], dtype=object)
    frame = pd.DataFrame({"p": P6, "y": labels})
    path = tmp_path / f"rows.{fmt}"
    frame.to_csv(path, index=False) if fmt == "csv" else frame.to_parquet(path)
    memory = vc.audit(P6, labels, pos_label="b\x00", bins=2)
    on_file = vc.audit(str(path), score="p", label="y", pos_label="b\x00", bins=2)
    assert memory.base_rate == on_file.base_rate == 0.5
    assert memory.ece == pytest.approx(on_file.ece, rel=1e-12)
    for data, kw in ((P6, {}), (str(path), {"score": "p", "label": "y"})):
        args = (data, labels) if isinstance(data, np.ndarray) else (data,)
        with pytest.raises(vc.VeracityError, match=r"pos_label='b' is not among"):
            vc.audit(*args, pos_label="b", bins=2, **kw)


def test_cli_names_the_nul_when_pos_label_misses_by_it(tmp_path, cli, refused):
    labels = np.array(["a", "b\x00"] * 20, dtype=object)
    p = np.linspace(0.05, 0.95, labels.size)
    path = tmp_path / "rows.parquet"
    pd.DataFrame({"p": p, "y": labels}).to_parquet(path)
    for argv in (["audit", path], ["threshold", path, "--cost-fp", "1", "--cost-fn", "2"]):
        refused(cli([*argv, "--score", "p", "--label", "y", "--pos-label", "b"]),
                r"--pos-label b is not among the values of column 'y' \(labels\) \('a', 'b\\x00'\).*NUL characters")
