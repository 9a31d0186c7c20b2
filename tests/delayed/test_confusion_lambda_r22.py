"""vc.ppi_audit's confusion shares and cost share one PPI++ lambda (round 22): ppi-python's estimate and
interval of the 4-dimensional mean (TP, FP, FN, TN) with lambda tuned for the total variance of the four
(``coord=None``, Angelopoulos, Duchi and Zrnic 2023) are the audit's rows; so the shares add up to 1 and
the cost is c_FP FP + c_FN FN. A lambda per quantity (each share's own ppi_py lambda) broke both sums."""

import numpy as np
import pytest

import veracity as vc

ppi_py = pytest.importorskip("ppi_py")
NAMES = ("tp", "fp", "fn", "tn")


def _data(seed, n, m, informative):
    rng = np.random.default_rng(seed)
    q = rng.beta(2, 5, n + m)
    y = (rng.random(q.size) < q).astype(float)
    if informative:
        f = 1 / (1 + np.exp(-(0.8 * np.log(q / (1 - q)) + 0.5)))
    else:  # weak scores: the tuned lambda lies inside (0, 1)
        f = np.clip(0.3 * q + 0.2 + rng.normal(0, 0.15, q.size), 0.01, 0.99)
    return y[:n], f[:n], f[n:]


def _targets(v, a):
    return np.c_[v * a, (1 - v) * a, v * (1 - a), (1 - v) * (1 - a)]


@pytest.mark.parametrize("seed, n, m, informative, weighted", [
    (0, 300, 2000, False, False), (1, 150, 5000, False, False), (2, 500, 8000, True, False),
    (3, 300, 2000, False, True)])
def test_audit_shares_are_ppi_py_of_the_four_dimensional_mean(seed, n, m, informative, weighted):
    y, f, g = _data(seed, n, m, informative)
    w = np.random.default_rng(seed + 10).uniform(0.5, 2.0, n) if weighted else None
    a = vc.ppi_audit(y, f, g, threshold=0.3, cost_fn=5.0, sample_weight=w, sample_check="off")
    at, bt = (f >= 0.3).astype(float), (g >= 0.3).astype(float)
    Y, F, G = _targets(y, at), _targets(f, at), _targets(g, bt)
    lam = {a.row(k)["lam"] for k in (*NAMES, "cost")}
    assert len(lam) == 1
    got = np.array([[a.row(k)[c] for k in NAMES] for c in ("estimate", "ci_low", "ci_high")])
    if w is None:
        est = ppi_py.ppi_mean_pointestimate(Y, F, G)
        lo, hi = ppi_py.ppi_mean_ci(Y, F, G, alpha=0.05)
        # the normal interval, cut at a share's range [0, 1] (every share here has 10 or more of each class)
        assert got == pytest.approx(np.array([est, np.maximum(lo, 0), np.minimum(hi, 1)]), abs=1e-9)
    else:  # weighted: ppi_py's point estimate at the audit's lambda (its weighted interval differs)
        est = ppi_py.ppi_mean_pointestimate(Y, F, G, lam=next(iter(lam)), w=w)
        assert got[0] == pytest.approx(est, abs=1e-12)
    if not informative:
        assert 0 < lam.pop() < 1
    e = {k: a.row(k)["estimate"] for k in (*NAMES, "cost")}
    assert sum(e[k] for k in NAMES) == pytest.approx(1, abs=1e-12)
    assert e["cost"] == pytest.approx(e["fp"] + 5.0 * e["fn"], abs=1e-12)
    # the rate keeps its own (ppi_py's one-dimensional) lambda
    if w is None:
        rate = float(ppi_py.ppi_mean_pointestimate(y, f, g)[0])
        assert a.row("rate")["estimate"] == pytest.approx(rate, abs=1e-9)


def test_without_power_tuning_every_lambda_is_one():
    y, f, g = _data(0, 300, 2000, False)
    a = vc.ppi_audit(y, f, g, power_tuning=False, sample_check="off")
    assert {r["lam"] for r in a.rows[:7]} == {1.0}


def test_a_share_below_zero_is_projected_onto_the_simplex():
    """No labelled row is a false alarm, and the flagged unlabelled rows score higher than the flagged
    labelled ones: PPI's FP share, lambda (mean (1 - g) b - mean (1 - f) a), is below 0. Shown: the Euclidean
    projection of ppi_py's four shares onto the simplex, p_i = max(x_i - tau, 0) with sum 1 (KKT below)."""
    rng = np.random.default_rng(4)
    f = rng.uniform(0.0, 0.45, 300)
    f[:40] = 0.6  # flagged labelled rows, all events
    y = (rng.random(300) < f).astype(float)
    y[:40] = 1.0
    g = np.r_[rng.uniform(0.0, 0.45, 3000), np.full(400, 0.95)]
    a = vc.ppi_audit(y, f, g, threshold=0.5, cost_fn=2.0, sample_check="off")
    at, bt = (f >= 0.5).astype(float), (g >= 0.5).astype(float)
    lam = a.row("tp")["lam"]
    x = np.ravel(ppi_py.ppi_mean_pointestimate(_targets(y, at), _targets(f, at), _targets(g, bt), lam=lam))
    assert x[1] < -0.01 and x.sum() == pytest.approx(1, abs=1e-12)  # PPI's FP share, below 0
    p = np.array([a.row(k)["estimate"] for k in NAMES])
    assert p.min() >= 0 and p.sum() == pytest.approx(1, abs=1e-12) and p[1] == 0
    tau = (x - p)[p > 0]
    assert np.ptp(tau) < 1e-12 and tau[0] > 0 and np.all(x[p == 0] <= tau[0] + 1e-12)
    assert a.row("cost")["estimate"] == pytest.approx(p[1] + 2.0 * p[2], abs=1e-12)
    assert a.row("fp")["ci_low"] <= 0 <= a.row("fp")["ci_high"]
