"""PPI++ against the ``ppi-python`` package (Angelopoulos, Duchi & Zrnic) and against its definition.

``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci`` with ``lam=None`` are PPI++ with the
power-tuned lambda; ``lam=1`` is plain PPI, ``lam=0`` the classical interval. The weighted
interval is checked against the linearised variance written out here.
"""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import veracity as vc
from veracity.delayed import PpiSums, ppi_from_sums

ppi_py = pytest.importorskip("ppi_py")


def _data(seed, n, m, miscal=1.3):
    rng = np.random.default_rng(seed)
    q = rng.beta(2, 8, n + m)
    y = (rng.random(q.size) < q).astype(float)
    f = np.clip(q * miscal + rng.normal(0, 0.05, q.size), 0, 1)
    return y[:n], f[:n], f[n:]


def _oracle(y, f, g, level, lam):
    alpha = 1 - level
    est = ppi_py.ppi_mean_pointestimate(y, f, g, lam=lam)
    lo, hi = ppi_py.ppi_mean_ci(y, f, g, alpha=alpha, lam=lam)
    return float(np.ravel(est)[0]), float(np.ravel(lo)[0]), float(np.ravel(hi)[0])


@pytest.mark.parametrize("seed,n,m,level", [(0, 200, 20000, 0.95), (1, 80, 500, 0.9), (2, 1000, 3000, 0.99),
                                            (3, 60, 40, 0.8), (4, 300, 300, 0.95),
                                            (1, 50, 500, 0.9), (3, 5, 40, 0.8)])
@pytest.mark.parametrize("power_tuning", [True, False])
def test_ppi_mean_equals_ppi_py(seed, n, m, level, power_tuning):
    y, f, g = _data(seed, n, m)
    r = vc.ppi_mean(y, f, g, level=level, power_tuning=power_tuning, sample_check="off")
    est, lo, hi = _oracle(y, f, g, level, None if power_tuning else 1.0)
    assert r.estimate == pytest.approx(est, abs=1e-9)
    if min(y.sum(), n - y.sum()) >= 10:
        # ppi_py's normal interval, cut at the rate's bounds [0, 1] (ppi_py reaches below 0 for rare outcomes)
        assert r.ci_low == pytest.approx(max(lo, 0.0), abs=1e-9)
        assert r.ci_high == pytest.approx(min(hi, 1.0), abs=1e-9)
    else:  # fewer than 10 of a class (7 of 50, 1 of 5): the modified Wilson interval (Brown, Cai & DasGupta
        # 2001) at ppi_py's estimate, n* = p(1 - p) / se^2: Wilson's ends, moved out to Garwood's exact Poisson
        # bound chi2_{2x, alpha/2} / (2 n*) where x = p n* (or n* - x) is below 10 (session 24)
        from scipy.stats import chi2, norm

        z = norm.ppf(0.5 + level / 2)
        p, se = min(max(est, 0.0), 1.0), (hi - lo) / (2 * z)
        k = p * (1 - p) / se**2
        centre, half = (p + z * z / (2 * k)) / (1 + z * z / k), z / (1 + z * z / k) * np.sqrt(
            p * (1 - p) / k + z * z / (4 * k * k))
        low, high = centre - half, centre + half
        if p * k < 10:
            low = min(low, chi2.ppf((1 - level) / 2, 2 * p * k) / 2 / k)
        if (1 - p) * k < 10:
            high = max(high, 1 - chi2.ppf((1 - level) / 2, 2 * (1 - p) * k) / 2 / k)
        assert (r.ci_low, r.ci_high) == pytest.approx((max(low, 0.0), min(high, 1.0)), abs=1e-9)
    if not power_tuning:
        assert r.lam == 1.0


def test_classical_equals_ppi_py_lam_zero_and_lambda_is_inside_zero_one():
    y, f, g = _data(7, 150, 5000)
    r = vc.ppi_mean(y, f, g, sample_check="off")
    est, lo, hi = _oracle(y, f, g, 0.95, 0.0)
    assert (r.classical, r.classical_low, r.classical_high) == pytest.approx((est, lo, hi), abs=1e-12)
    assert 0.0 < r.lam < 1.0
    # the rectifier is ppi_py's lam=1 rectifier: mean(y - f) with the labelled-sample sd / sqrt(n)
    d = y - f
    assert r.rectifier == pytest.approx(d.mean(), abs=1e-12)
    assert r.rectifier_high - r.rectifier == pytest.approx(1.959963984540054 * d.std() / np.sqrt(d.size), rel=1e-9)


def test_weighted_point_estimate_equals_ppi_py_and_interval_is_the_linearised_variance():
    y, f, g = _data(11, 120, 900)
    rng = np.random.default_rng(5)
    w, u = rng.uniform(0.2, 3, y.size), rng.uniform(0.5, 2, g.size)
    r = vc.ppi_mean(y, f, g, power_tuning=False, sample_weight=w, sample_weight_unlabelled=u, sample_check="off")
    est = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, f, g, lam=1, w=w, w_unlabeled=u))[0])
    assert r.estimate == pytest.approx(est, abs=1e-12)
    # reference: Hajek linearisation, sum omega^2 (r - rbar)^2 with omega = w / sum w, for both samples
    om, ou = w / w.sum(), u / u.sum()
    rr = y - f
    var = (om**2 * (rr - om @ rr) ** 2).sum() + (ou**2 * (g - ou @ g) ** 2).sum()
    assert r.se == pytest.approx(np.sqrt(var), rel=1e-10)
    # uneven weights: the normal interval or wider (session 28, _ppi_sums.weighted_rate_interval: the hull of
    # it
    # and a Wilson interval on the design-effect effective size)
    half = 1.959963984540054 * np.sqrt(var)
    assert r.ci_low <= r.estimate - half * (1 - 1e-9) and r.ci_high >= r.estimate + half * (1 - 1e-9)


@given(scale=st.floats(1e-6, 1e6), seed=st.integers(0, 50))
def test_weights_are_invariant_to_scale_and_equal_weights_are_unweighted(scale, seed):
    y, f, g = _data(seed, 30, 60)
    base = vc.ppi_mean(y, f, g, sample_check="off")
    same = vc.ppi_mean(y, f, g, sample_weight=np.full(y.size, scale), sample_weight_unlabelled=np.full(g.size, scale),
                       sample_check="off")
    for k in ("estimate", "ci_low", "ci_high", "lam", "cbpe", "cbpe_high", "classical", "rectifier_low"):
        assert getattr(same, k) == pytest.approx(getattr(base, k), rel=1e-9, abs=1e-12)
    # PPI normalises each sample's weights on its own; only CBPE pools both (one scale assumed)
    other = vc.ppi_mean(y, f, g, sample_weight=np.full(y.size, scale), sample_weight_unlabelled=np.full(g.size, 2.0),
                        sample_check="off")
    for k in ("estimate", "ci_low", "ci_high", "lam", "classical"):
        assert getattr(other, k) == pytest.approx(getattr(base, k), rel=1e-9, abs=1e-12)


def test_sums_form_equals_array_form_and_merges_by_addition():
    y, f, g = _data(3, 400, 4000)
    r = vc.ppi_mean(y, f, g, sample_check="off")
    s = PpiSums.from_counts(n=y.size, sum_y=y.sum(), sum_f=f.sum(), sum_ff=f @ f, sum_yf=y @ f, m=g.size,
                            sum_fu=g.sum(), sum_ffu=g @ g)
    out = ppi_from_sums(s)
    assert float(out["estimate"]) == pytest.approx(r.estimate, abs=1e-12)
    assert float(out["ci_low"]) == pytest.approx(r.ci_low, abs=1e-12)
    # two halves of the rows, summed, are the whole
    a = PpiSums.of(y[:150], f[:150], g[:1000])
    b = PpiSums.of(y[150:], f[150:], g[1000:])
    merged = ppi_from_sums(a + b)
    assert float(merged["ci_high"]) == pytest.approx(r.ci_high, abs=1e-12)
    # many windows in one call: each equals its own call
    parts = [PpiSums.of(*_data(k, 60, 600)) for k in range(4)]
    stacked = PpiSums(**{k: np.array([getattr(p, k) for p in parts]) for k in PpiSums.__dataclass_fields__})
    many = ppi_from_sums(stacked)
    for k in range(4):
        y, f, g = _data(k, 60, 600)
        assert many["estimate"][k] == pytest.approx(vc.ppi_mean(y, f, g, sample_check="off").estimate, abs=1e-12)


def test_cbpe_is_the_mean_score_with_the_poisson_binomial_interval():
    y, f, g = _data(9, 100, 2000)
    r = vc.ppi_mean(y, f, g, sample_check="off")
    allf = np.concatenate([f, g])
    assert r.cbpe == pytest.approx(allf.mean(), abs=1e-12)
    half = 1.959963984540054 * np.sqrt((allf * (1 - allf)).sum()) / allf.size
    assert r.cbpe_high - r.cbpe == pytest.approx(half, rel=1e-9)


def test_audit_rows_are_ppi_of_their_targets():
    y, f, g = _data(21, 500, 8000)
    a = vc.ppi_audit(y, f, g, bins=[0, 0.2, 0.5, 1], threshold=0.3, cost_fp=1, cost_fn=5, sample_check="off")
    assert a.row("rate")["estimate"] == pytest.approx(vc.ppi_mean(y, f, g, sample_check="off").estimate)
    at, bt = (f >= 0.3).astype(float), (g >= 0.3).astype(float)
    # the four confusion shares are one PPI++ mean of a 4-vector (one lambda, ppi-python's coord=None): they
    # add up to 1 and the cost is c_FP FP + c_FN FN of them exactly
    Y = np.c_[y * at, (1 - y) * at, y * (1 - at), (1 - y) * (1 - at)]
    F = np.c_[f * at, (1 - f) * at, f * (1 - at), (1 - f) * (1 - at)]
    G = np.c_[g * bt, (1 - g) * bt, g * (1 - bt), (1 - g) * (1 - bt)]
    est = np.ravel(ppi_py.ppi_mean_pointestimate(Y, F, G))
    lo, hi = (np.ravel(v) for v in ppi_py.ppi_mean_ci(Y, F, G, alpha=0.05))
    tp = (est[0], max(lo[0], 0.0), min(hi[0], 1.0))
    assert (a.row("tp")["estimate"], a.row("tp")["ci_low"], a.row("tp")["ci_high"]) == pytest.approx(tp, abs=1e-9)
    assert a.row("cost")["estimate"] == pytest.approx(est[1] + 5 * est[2], abs=1e-9)
    # a bin's rate is PPI on the bin's rows
    inb, ing = (f >= 0.2) & (f < 0.5), (g >= 0.2) & (g < 0.5)
    mid = _oracle(y[inb], f[inb], g[ing], 0.95, None)
    # ... with the Wilson interval at ppi_py's estimate, n* = min(labels, p(1 - p) / se^2) (round 13)
    z = 1.959963984540054
    p, se = mid[0], (mid[2] - mid[1]) / (2 * z)
    n_star = min(inb.sum(), p * (1 - p) / se**2)
    centre, half = (p + z * z / (2 * n_star)) / (1 + z * z / n_star), z / (1 + z * z / n_star) * np.sqrt(
        p * (1 - p) / n_star + z * z / (4 * n_star**2))
    assert a.row("rate in [0.2, 0.5)")["estimate"] == pytest.approx(p, abs=1e-12)
    assert a.row("rate in [0.2, 0.5)")["ci_low"] == pytest.approx(centre - half, abs=1e-9)
    assert a.row("rate in [0.2, 0.5)")["ci_high"] == pytest.approx(centre + half, abs=1e-9)
    # with one lambda for all (plain PPI) the per-row confusion sums to 1; tuned, each has its own lambda
    plain = vc.ppi_audit(y, f, g, threshold=0.3, power_tuning=False, sample_check="off")
    assert sum(plain.row(k)["estimate"] for k in ("tp", "fp", "fn", "tn")) == pytest.approx(1.0, abs=1e-12)
    json.dumps(a.to_dict())


def test_degenerate_windows_in_the_sums_form():
    # no labels, one label, no unlabelled rows, constant scores: NaN, NaN, classical, lambda 0
    s = PpiSums.from_counts(n=[0, 1, 3, 4], sum_y=[0, 1, 2, 2], sum_f=[0, 0.5, 1.2, 2.0], sum_ff=[0, 0.25, 0.5, 1.0],
                            sum_yf=[0, 0.5, 0.9, 1.0], m=[10, 10, 0, 6], sum_fu=[3, 3, 0, 3.0], sum_ffu=[1, 1, 0, 1.5])
    out = ppi_from_sums(s)
    assert np.isnan(out["estimate"][:2]).all() and np.isnan(out["ci_low"][:2]).all()
    assert out["lam"][2] == 0.0 and out["estimate"][2] == pytest.approx(2 / 3)
    assert out["lam"][3] == 0.0 and out["estimate"][3] == pytest.approx(0.5)  # scores all 0.5: no information


def test_sample_check_from_histograms_is_the_chi_square_test_of_homogeneity():
    from scipy.stats import chi2_contingency

    from veracity.delayed._ppi import sample_check_p

    a, b = np.array([30, 12, 5, 0, 3]), np.array([900, 500, 180, 20, 60])
    keep = (a + b) > 0
    ref = chi2_contingency(np.vstack([a[keep], b[keep]]), correction=False).pvalue
    assert sample_check_p(a, b) == pytest.approx(ref, rel=1e-10)


def test_ppi_records_are_the_status_row_values():
    from veracity.delayed import ppi_records

    parts = [PpiSums.of(*_data(k, 80, 800)) for k in range(3)]
    stacked = PpiSums(**{k: np.array([getattr(p, k) for p in parts] + [0.0]) for k in PpiSums.__dataclass_fields__})
    recs = ppi_records(stacked)
    json.dumps(recs, allow_nan=False)
    y, f, g = _data(1, 80, 800)
    r = vc.ppi_mean(y, f, g, sample_check="off")
    assert recs[1]["estimate_ppi"]["ci_low"] == pytest.approx(r.ci_low, abs=1e-12)
    assert recs[1]["estimate_cbpe"]["estimate"] == pytest.approx(r.cbpe, abs=1e-12)
    assert recs[1]["calibrated"] == r.calibrated and recs[1]["estimate_ppi"]["labels"] == 80
    assert recs[3]["estimate_ppi"] is None and recs[3]["calibrated"] is None


@given(cut_l=st.integers(0, 60), cut_u=st.integers(0, 300), seed=st.integers(0, 20))
def test_sums_of_any_split_add_up_to_the_whole(cut_l, cut_u, seed):
    y, f, g = _data(seed, 60, 300)
    rng = np.random.default_rng(seed)
    w, u = rng.uniform(0.1, 2, 60), rng.uniform(0.1, 2, 300)
    whole = PpiSums.of(y, f, g, w, u)
    parts = PpiSums.of(y[:cut_l], f[:cut_l], g[:cut_u], w[:cut_l], u[:cut_u]) + \
        PpiSums.of(y[cut_l:], f[cut_l:], g[cut_u:], w[cut_l:], u[cut_u:])
    a, b = ppi_from_sums(whole), ppi_from_sums(parts)
    for k in ("estimate", "ci_low", "ci_high", "lam", "cbpe_high", "rectifier_low"):
        assert float(a[k]) == pytest.approx(float(b[k]), rel=1e-9, abs=1e-12)
