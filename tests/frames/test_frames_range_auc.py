"""The code Spark's Python workers run for the exact AUC, checked without Spark.

``range_numerators`` gets Arrow batches of a shuffle partition — one or several
score ranges, any slices, ties, weights — and its per-(slice, range) numerators,
merged by ``combine_ranges``, must give ``roc_auc_score`` exactly; and it must run
where veracity is not installed (it is pickled by value).
"""

from __future__ import annotations

import subprocess
import sys
from functools import partial

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import veracity as vc
from veracity.sources._aggregates import combine_ranges
from veracity.sources._range_auc import range_numerators


def _batches(s, y, w=None, g=None, size=7):
    cols = {"_s": pa.array(s, pa.float64()), "_y": pa.array(np.asarray(y) == 1)}
    if g is not None:
        cols = {"_g": pa.array(g), **cols}
    if w is not None:
        cols["_w"] = pa.array(w, pa.float64())
    table = pa.table(cols)
    return table.to_batches(max_chunksize=size)


def _auc(parts, *, bounds, grouped, weighted):
    """Run the worker on each partition's batches and merge the ranges, as Spark would."""
    tables = [b for part in parts for b in range_numerators(iter(part), bounds, grouped, weighted)]
    merged = pa.Table.from_batches(tables).to_pydict()
    return combine_ranges(merged, grouped=grouped, weighted=weighted)


def _split_by_range(s, bounds):
    return np.searchsorted(np.asarray(bounds, np.float64), s, side="right")


@pytest.mark.parametrize("weighted", [False, True])
def test_one_partition_many_ranges_equals_sklearn(weighted):
    rng = np.random.default_rng(3)
    s = np.round(rng.random(2000), 2)  # ties, also on the cut points
    y = (rng.random(2000) < s).astype(int)
    w = rng.uniform(0.0, 3.0, 2000) if weighted else None
    bounds = [0.1, 0.25, 0.5, 0.51, 0.9]
    got = _auc([_batches(s, y, w)], bounds=bounds, grouped=False, weighted=weighted)[None]
    assert got == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-12)


def test_ranges_spread_over_partitions_with_slices_and_a_null_key():
    rng = np.random.default_rng(5)
    n = 3000
    s = np.round(rng.normal(0, 2, n), 1)  # logits: bounds on the score's own axis
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    w = rng.uniform(0.1, 2.0, n)
    g = np.array(rng.choice(["a", "b", None], n), dtype=object)
    bounds = [-1.0, 0.0, 0.3, 2.0]
    r = _split_by_range(s, bounds)
    parts = [_batches(s[r % 2 == k], y[r % 2 == k], w[r % 2 == k], list(g[r % 2 == k])) for k in (0, 1)]
    got = _auc(parts, bounds=bounds, grouped=True, weighted=True)
    for key in ("a", "b", None):
        rows = np.array([v == key for v in g])
        assert got[key] == pytest.approx(roc_auc_score(y[rows], s[rows], sample_weight=w[rows]), rel=1e-12)


def test_unweighted_numerators_are_exact_integers():
    # 2U of one range is an int64 sum: no float rounding even where doubles would lose it
    s = np.array([0.5] * 6 + [0.2, 0.8])
    y = np.array([1, 0, 1, 0, 0, 1, 0, 1])
    (batch,) = range_numerators(iter(_batches(s, y)), [0.4], False, False)
    table = batch.to_pydict()
    assert table["_r"] == [0, 1]
    assert table["_num"] == [0, 3 * (0 + 3) + (3 + 3)]  # per positive: #neg(<s) + #neg(<=s); ties count 1/2
    assert batch.schema.field("_num").type == pa.int64()


def test_an_empty_partition_yields_nothing():
    assert list(range_numerators(iter([]), [0.5], False, False)) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.booleans()), min_size=2, max_size=60),
       st.lists(st.integers(1, 19), max_size=5))
def test_any_cut_points_give_the_same_exact_auc(rows, cuts):
    s = np.array([v / 20 for v, _ in rows])
    y = np.array([int(b) for _, b in rows])
    if y.min() == y.max():
        return
    bounds = sorted({c / 20 for c in cuts})
    whole = _auc([_batches(s, y)], bounds=[], grouped=False, weighted=False)[None]
    cut = _auc([_batches(s, y)], bounds=bounds, grouped=False, weighted=False)[None]
    assert cut == whole == vc.auc(s, y)  # bit for bit the array form
    assert whole == pytest.approx(roc_auc_score(y, s), rel=1e-12)


def test_the_worker_runs_where_veracity_is_not_installed():
    cloudpickle = pytest.importorskip("pyspark.cloudpickle")
    from veracity.sources import _range_auc

    _range_auc.register_by_value(cloudpickle)  # the worker module and the 2U kernel it counts with
    body = partial(_range_auc.range_numerators, bounds=[0.5], grouped=False, weighted=False)
    blob = cloudpickle.dumps(body)
    script = (
        "import sys, pickle\n"
        "sys.modules['veracity'] = None  # any import of veracity fails\n"
        "import pyarrow as pa\n"
        "body = pickle.loads(sys.stdin.buffer.read())\n"
        "batch = pa.record_batch({'_s': pa.array([0.2, 0.6, 0.7]), '_y': pa.array([False, False, True])})\n"
        "print(list(body(iter([batch])))[0].to_pydict()['_num'])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], input=blob, capture_output=True, check=True)
    assert out.stdout.decode().strip() == "[0, 2]"


@pytest.mark.parametrize("weighted", [False, True])
def test_whole_table_rows_from_the_same_pass(weighted):
    # with whole=True the slices' ranges come with the ranges of every row (``_all``, ``_g`` null),
    # so a grouped audit gets the whole AUC without a second shuffle
    from veracity.sources._aggregates import WHOLE

    rng = np.random.default_rng(3)
    n = 500
    s, y = np.round(rng.random(n), 2), rng.integers(0, 2, n)
    g = rng.choice(["a", "b", None], n)
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    bounds = [0.25, 0.5, 0.8]
    in_low = np.searchsorted(bounds, s, side="right") < 2  # whole ranges per partition, as after the shuffle
    batches = [b for part in (in_low, ~in_low) for b in range_numerators(
        iter(_batches(s[part], y[part], None if w is None else w[part], list(g[part]))), bounds, True, weighted,
        whole=True)]
    merged = pa.Table.from_batches(batches).to_pydict()
    assert all(key is None for key, every in zip(merged["_g"], merged["_all"]) if every)
    aucs = combine_ranges(merged, grouped=True, weighted=weighted)
    assert aucs[WHOLE] == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    for key in ("a", "b", None):
        rows = np.array([k == key for k in g])
        assert aucs[key] == pytest.approx(
            roc_auc_score(y[rows], s[rows], sample_weight=None if w is None else w[rows]), rel=1e-12)


def test_label_in_the_sign_bit_is_the_same_input():
    # Spark sends probabilities as one column, +s for positives and -s for negatives (-0.0 at 0)
    rng = np.random.default_rng(4)
    s = np.where(rng.random(400) < 0.2, 0.0, np.round(rng.random(400), 2))
    y = rng.integers(0, 2, 400)
    packed = pa.table({"_s": pa.array(np.where(y == 1, s, -s))}).to_batches(max_chunksize=50)
    assert np.signbit(np.where(y == 1, s, -s)[(s == 0) & (y == 0)]).all()
    (one,) = range_numerators(iter(packed), [0.3, 0.6], False, False)
    (two,) = range_numerators(iter(_batches(s, y)), [0.3, 0.6], False, False)
    assert one.to_pydict() == two.to_pydict()
    merged = one.to_pydict()
    assert combine_ranges(merged, grouped=False, weighted=False)[None] == roc_auc_score(y, s)
