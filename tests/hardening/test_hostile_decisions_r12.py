"""Hostile checks, round 12: delayed labels (PPI), decisions and calibrators."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _window(n_lab: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    f = rng.uniform(0.05, 0.95, n_lab)
    y = (rng.uniform(size=n_lab) < f).astype(float)
    return y, f, rng.uniform(0.05, 0.95, 500)


def test_ppi_records_say_few_labels_like_ppi_mean():
    """A status row's PPI record from 12 labels was silent where vc.ppi_mean of the same window warns
    that below 50 labels the normal interval is too narrow."""
    from veracity.delayed import PpiSums, ppi_records

    y, f, g = _window(12)
    rec = ppi_records(PpiSums.of(y, f, g))[0]
    assert rec["estimate_ppi"]["labels"] == 12
    assert rec["note"] is not None and "only 12 labels" in rec["note"]
    assert rec["note"] == vc.ppi_mean(y, f, g).note
    y, f, g = _window(400)  # enough labels: no note of that kind
    rec = ppi_records(PpiSums.of(y, f, g))[0]
    assert "labels" not in (rec["note"] or "")


def test_ppi_records_say_few_effective_labels_like_ppi_mean():
    """100 weighted labels, one of them weighing 1000 times the others: Kish size 1.2."""
    from veracity.delayed import PpiSums, ppi_records

    y, f, g = _window(100, seed=3)
    w = np.r_[np.full(99, 1e-3), 1.0]
    eff = w.sum() ** 2 / (w @ w)                      # 1.2: definition of Kish's effective size
    rec = ppi_records(PpiSums.of(y, f, g, w / w.mean(), None))[0]
    assert rec["note"] is not None and f"only {eff:.1f} effective labels" in rec["note"]
    assert "effective labels" in vc.ppi_mean(y, f, g, sample_weight=w).note


def test_ppi_audit_says_few_labels_of_the_window():
    """The audit of a window with 40 labels (one bin: rate in [0, 1] counted 'sufficient' at 30) said
    nothing of the window's interval, where vc.ppi_mean of the same window warns below 50 labels."""
    y, f, g = _window(40, seed=5)
    a = vc.ppi_audit(y, f, g, bins=[0, 1])
    assert a.note is not None and "only 40 labels" in a.note
    assert "only 40 labels" in vc.ppi_mean(y, f, g).note


@pytest.mark.parametrize("cls", ["VectorScaling", "MatrixScaling"])
def test_vector_matrix_scaling_refuse_a_class_without_calibration_rows(cls):
    """Vector/matrix scaling fit on rows where class 2 never occurs pushed class 2's bias down
    silently: every row then got about 0.002 for class 2 (the other multiclass calibrators refuse)."""
    rng = np.random.default_rng(0)
    Z = rng.normal(0, 2, (300, 3))
    y = rng.integers(0, 2, 300)                      # classes 0 and 1 only; the scores have 3 columns
    cal = getattr(vc, cls)(score_type="logit")
    with pytest.raises(vc.VeracityError, match="class 2 has none"):
        cal.fit(Z, y)
    w = np.ones(300)
    w[y == 1] = 0.0                                  # weight 0 drops the rows: class 1 has none
    with pytest.raises(vc.VeracityError, match="class 1 has none"):
        cal.fit(Z, np.where(y == 1, 1, np.where(rng.random(300) < 0.5, 0, 2)), sample_weight=w)
    y3 = np.r_[y[:-2], 2, 2]                          # two rows of class 2: fits
    assert getattr(vc, cls)(score_type="logit").fit(Z, y3).transform(Z[:2]).shape == (2, 3)


def test_a_boolean_cost_is_refused():
    """cost_threshold(True, 1) read True as a cost of 1 and returned 0.5."""
    for call in (lambda: vc.cost_threshold(True, 1), lambda: vc.cost_threshold(1, np.bool_(False)),
                 lambda: vc.threshold_table([0.2, 0.8], [0, 1], [0.5], cost_fp=True)):
        with pytest.raises(vc.VeracityError, match="cost"):
            call()
    assert vc.cost_threshold(1, 9) == pytest.approx(0.1)   # t* = c_FP / (c_FP + c_FN), seed 003


@pytest.mark.parametrize("scale", [0.1, 1000.0, 2.0**-1000, 1e-300, 1e300])
def test_decisions_weight_scale_invariance(scale):
    """Only the ratios of the weights matter: thresholds, conformal q-hat and selective results are the
    same at every scale of the weights (extreme ones are rescaled by a power of two inside), and the
    reported weight sums are in the caller's units (accepted / total weight = 1 at full coverage)."""
    from veracity.decisions import conformal_quantile

    rng = np.random.default_rng(1)
    n = 300
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    P = rng.dirichlet(np.ones(3), size=n)
    Y = (P.cumsum(1) < rng.uniform(size=(n, 1))).sum(1)
    w0 = rng.uniform(0.2, 3.0, n)
    w0[:5] = 0.0
    w = w0 * scale

    def same(a, b):
        assert np.allclose(a, b, rtol=1e-12, atol=0.0)

    assert vc.recall_threshold(p, y, target=0.9, sample_weight=w) == \
        vc.recall_threshold(p, y, target=0.9, sample_weight=w0)
    assert vc.precision_threshold(p, y, target=0.7, sample_weight=w) == \
        vc.precision_threshold(p, y, target=0.7, sample_weight=w0)
    assert vc.budget_threshold(p, sample_weight=w, top_k=50 * scale) == \
        vc.budget_threshold(p, sample_weight=w0, top_k=50)
    assert conformal_quantile(1 - P[np.arange(n), Y], 0.1, sample_weight=w) == \
        conformal_quantile(1 - P[np.arange(n), Y], 0.1, sample_weight=w0)
    t, t0 = (vc.threshold_table(p, y, [0.2, 0.5, 0.8], sample_weight=v) for v in (w, w0))
    same([r.recall for r in t.rows], [r.recall for r in t0.rows])
    same([r.tp / scale for r in t.rows], [r.tp for r in t0.rows])
    rc, rc0 = (vc.risk_coverage(P, Y, sample_weight=v) for v in (w, w0))
    same(rc.risk, rc0.risk)
    same(rc.accepted[-1] / w.sum(), 1.0)
    st, st0 = (vc.selective_threshold(P, Y, target_risk=0.5, delta=0.1, sample_weight=v) for v in (w, w0))
    assert st.threshold == st0.threshold
    same(st.accepted / scale, st0.accepted)


@pytest.mark.parametrize("labels", [np.array(["a", "b", None, "a"], dtype=object),
                                    np.array([1.0, np.nan, 0.0, 1.0], dtype=object),
                                    np.array(["a", 1, "b", 2], dtype=object)])
def test_split_refuses_missing_or_mixed_labels_in_one_line(labels):
    """vc.split on object labels holding None (or str and int mixed) raised numpy's raw TypeError."""
    with pytest.raises(vc.VeracityError, match="labels"):
        vc.split(labels, random_state=0)


def test_fold_index_balances_folds_across_small_classes():
    """10 classes of 3 rows in 5 folds: the remainder of every class went to the first folds, so
    folds 0-2 held 10 rows each and folds 3-4 none (cross_fit then refused 'fold 3 is empty');
    a 50/50 split of 10 classes of 5 rows gave 30 / 20. Each fold's share is N/5 = 6 rows."""
    from veracity.calibrators import fold_index

    y = np.repeat(np.arange(10), 3)
    folds = fold_index(y, n_folds=5, random_state=0)
    assert np.bincount(folds, minlength=5).tolist() == [6, 6, 6, 6, 6]
    per_class = np.array([np.bincount(folds[y == c], minlength=5) for c in range(10)])
    assert np.abs(per_class - 3 / 5).max() < 1                     # every class within one row
    roles = vc.split(np.repeat(np.arange(10), 5), random_state=0)
    assert (roles == "calib").sum() == (roles == "test").sum() == 25
    roles = vc.split(np.r_[np.ones(18), np.zeros(108)], random_state=0)  # seed 000: 18 true, 108 corrupted
    assert (roles == "calib").sum() == 63 and np.r_[np.ones(18), np.zeros(108)][roles == "calib"].sum() == 9
