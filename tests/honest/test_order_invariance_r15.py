"""The seeded noise floor and bootstrap are functions of the multiset of rows: the same rows in any
order (a shuffled copy, a file read back by another engine, an ``ORDER BY`` changed) give the same
redraws, resamples, intervals and p-value, bit for bit."""

import contextlib
import io
import json

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc
from veracity.cli import main
from veracity.core._binning import bin_index, uniform_edges
from veracity.core._validation import prepare_binary
from veracity.honest._noise_floor import redraw_bin_sums

SETTINGS = settings(max_examples=40, deadline=None)


@st.composite
def weighted_rows(draw, min_size=2, max_size=80):
    """Scores on a coarse grid (ties), labels, weights from a few values (ties, zeros), a permutation."""
    n = draw(st.integers(min_size, max_size))
    grid = draw(st.sampled_from([4, 10, 1000]))
    p = np.array(draw(st.lists(st.integers(0, grid), min_size=n, max_size=n)), dtype=float) / grid
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=float)
    w = np.array(draw(st.lists(st.sampled_from([0.0, 0.3, 1.0, 2.5]), min_size=n, max_size=n)))
    if not w.any():
        w[0] = 1.0
    perm = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).permutation(n)
    return p, y, w, perm


def _same_floor(a, b):
    np.testing.assert_array_equal(a.samples, b.samples)  # bit for bit, not approx
    assert a.to_dict() == b.to_dict()


@SETTINGS
@given(weighted_rows(), st.sampled_from([1, 3, 10]), st.sampled_from(["uniform", "quantile", "equal-count"]),
       st.sampled_from(["l1", "l2", "max"]), st.booleans(), st.integers(0, 2**31))
def test_noise_floor_is_bit_identical_for_any_row_order(rows, bins, strategy, norm, weighted, seed):
    p, y, w, perm = rows
    w = w if weighted else None
    kw = dict(bins=bins, strategy=strategy, norm=norm, n_resamples=60, random_state=seed)
    a = vc.ece_noise_floor(p, y, sample_weight=w, **kw)
    b = vc.ece_noise_floor(p[perm], y[perm], sample_weight=None if w is None else w[perm], **kw)
    _same_floor(a, b)


@SETTINGS
@given(weighted_rows(min_size=4), st.booleans(), st.integers(0, 2**31))
def test_bootstrap_is_bit_identical_for_any_row_order(rows, weighted, seed):
    p, y, w, perm = rows
    w = w if weighted else None
    kw = dict(n_resamples=30, random_state=seed, bins=5, method="bca")
    a = vc.bootstrap_intervals(p, y, sample_weight=w, **kw)
    b = vc.bootstrap_intervals(p[perm], y[perm], sample_weight=None if w is None else w[perm], **kw)
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())  # NaN-safe, bit for bit
    for k in a.samples:
        np.testing.assert_array_equal(a.samples[k], b.samples[k])


def _large(seed=0, n=4000):
    rng = np.random.default_rng(seed)
    p = np.round(rng.beta(2, 3, n), 2)  # ties within every bin
    y = (rng.random(n) < p).astype(float)
    w = rng.choice([0.5, 1.0, 2.0, 0.0], n)
    return p, y, w, rng.permutation(n)


def test_noise_floor_of_logits_and_of_a_reversed_table_are_the_same():
    p, y, w, perm = _large(1)
    s = np.round(np.log(p.clip(0.01, 0.99) / (1 - p.clip(0.01, 0.99))), 1)  # tied logits
    for order in (perm, np.arange(p.size)[::-1]):
        a = vc.ece_noise_floor(s, y, score_type="logit", sample_weight=w, bins=12, random_state=5,
                               n_resamples=300)
        b = vc.ece_noise_floor(s[order], y[order], score_type="logit", sample_weight=w[order], bins=12,
                               random_state=5, n_resamples=300)
        _same_floor(a, b)


def test_top_label_rows_tied_in_confidence_but_not_in_log_loss():
    # equal confidence and correctness, different runner-up: the NLL differs, so such rows are
    # not interchangeable; their order must still not move the resamples
    rng = np.random.default_rng(2)
    n = 600
    P = np.where(rng.random(n)[:, None] < 0.5, [[0.6, 0.3, 0.1]], [[0.6, 0.05, 0.35]])
    y = rng.choice(3, n, p=[0.6, 0.25, 0.15])
    perm = rng.permutation(n)
    a = vc.bootstrap_intervals(P, y, random_state=0, n_resamples=200, metrics="nll", method="percentile")
    b = vc.bootstrap_intervals(P[perm], y[perm], random_state=0, n_resamples=200, metrics="nll",
                               method="percentile")
    np.testing.assert_array_equal(a.samples["nll"], b.samples["nll"])
    assert a.to_dict() == b.to_dict()


def test_audit_sections_do_not_depend_on_row_order():
    p, y, w, perm = _large(3)
    kw = dict(bins=10, noise_floor=True, bootstrap="percentile", n_resamples=200, random_state=11)
    a = vc.audit(p, y, sample_weight=w, **kw)
    b = vc.audit(p[perm], y[perm], sample_weight=w[perm], **kw)
    _same_floor(a.extras["noise_floor"], b.extras["noise_floor"])
    assert a.extras["intervals"].to_dict() == b.extras["intervals"].to_dict()


def test_cli_on_a_shuffled_csv_matches_the_memory_route(tmp_path):
    p, y, w, perm = _large(4, n=1500)
    path = tmp_path / "shuffled.csv"
    pd.DataFrame({"p": p[perm], "y": y[perm], "w": w[perm]}).to_csv(path, index=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["audit", str(path), "--score", "p", "--label", "y", "--weight", "w", "--bins", "10",
                   "--noise-floor", "--ci", "percentile", "--resamples", "200", "--seed", "3", "--json", "-"])
    assert rc == 0
    doc = json.loads(out.getvalue())
    mem = vc.audit(p, y, sample_weight=w, bins=10, noise_floor=True, bootstrap="percentile",
                   n_resamples=200, random_state=3)
    assert doc["noise_floor"] == json.loads(json.dumps(mem.extras["noise_floor"].to_dict()))
    assert doc["intervals"] == json.loads(json.dumps(mem.extras["intervals"].to_dict()))


def test_canonical_rows_is_idempotent_and_a_permutation():
    from veracity.honest._common import canonical_rows

    p, y, w, perm = _large(5, n=500)
    data = prepare_binary(p[perm], y[perm], sample_weight=w[perm])
    c = canonical_rows(data)
    assert canonical_rows(c) is c  # already canonical: no second sort
    keys = np.lexsort((c.w, c.y, c.p))
    np.testing.assert_array_equal(keys, np.arange(c.n))
    ref = canonical_rows(prepare_binary(p, y, sample_weight=w))
    for f in ("p", "y", "w"):
        np.testing.assert_array_equal(getattr(c, f), getattr(ref, f))


def test_redraw_bin_sums_sorts_unsorted_bins_stably():
    # rows not grouped by bin are grouped by a stable sort first: the same draws as the sorted rows
    rng = np.random.default_rng(6)
    p = rng.random(300)
    w = rng.uniform(0.5, 2, 300)
    edges = uniform_edges(7)
    idx = bin_index(p, edges, "uniform")
    order = np.argsort(idx, kind="stable")
    got = redraw_bin_sums(p, w, idx, 7, 40, np.random.default_rng(0))
    want = redraw_bin_sums(p[order], w[order], idx[order], 7, 40, np.random.default_rng(0))
    np.testing.assert_array_equal(got, want)
