"""Calibrator speed, side by side with the peers, at one thread.

    python benchmarks/bench_calibrators.py            # full sizes (~2-3 minutes)
    python benchmarks/bench_calibrators.py --quick    # 1/10 sizes

Peers: scikit-learn (the temperature and sigmoid calibrators that
``CalibratedClassifierCV(method="temperature"|"sigmoid")`` fits, and
``IsotonicRegression``, and its one-vs-rest multiclass form), a torch L-BFGS temperature loop (if torch is installed),
a plain numpy Newton loop, and the ``venn-abers`` package (binary p0/p1 and its
one-vs-one multiclass form). Every row also checks that the fitted values agree.
``--only one-vs-rest`` (repeatable) runs one section.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from scipy.special import expit, softmax  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import veracity as vc  # noqa: E402


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def row(task, who, seconds, ours, agree=""):
    ratio = f"{seconds / ours:6.1f}x" if not who.startswith("veracity") else "      -"
    print(f"{task:<34} {who:<34} {seconds:8.3f} s  {ratio}   {agree}")


# ------------------------------------------------------------------------------------------
def numpy_newton_binary(s, y):
    beta = 1.0
    for _ in range(100):
        p = expit(beta * s)
        g = np.mean(s * (p - y))
        h = np.mean(s * s * p * (1 - p))
        step = g / h
        while beta - step <= 0:  # keep beta > 0
            step /= 2
        beta -= step
        if abs(step) < 1e-12 * beta:
            break
    return 1.0 / beta


def numpy_newton_multiclass(Z, y):
    beta = 1.0
    zy = Z[np.arange(len(y)), y]
    for _ in range(100):
        P = softmax(beta * Z, axis=1)
        m = (P * Z).sum(1)
        g = np.mean(m - zy)
        h = np.mean((P * Z * Z).sum(1) - m * m)
        step = g / h
        beta -= step
        if abs(step) < 1e-12 * beta:
            break
    return 1.0 / beta


def torch_lbfgs(scores, y, multiclass):
    import torch

    torch.set_num_threads(1)
    s = torch.from_numpy(scores)
    t = torch.from_numpy(y)
    log_tau = torch.zeros((), dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([log_tau], lr=1.0, max_iter=100, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-12, tolerance_change=1e-15)
    loss_fn = (torch.nn.functional.cross_entropy if multiclass
               else torch.nn.functional.binary_cross_entropy_with_logits)

    def closure():
        opt.zero_grad()
        loss = loss_fn(s / torch.exp(log_tau), t)
        loss.backward()
        return loss

    opt.step(closure)
    return float(torch.exp(log_tau.detach()))


def sklearn_temperature(scores, y):
    from sklearn.calibration import _TemperatureScaling

    m = _TemperatureScaling().fit(scores, y)
    # sklearn turns a 1-D decision score x into two-class logits (-x, x): sigma(2 beta x)
    return 1.0 / (2.0 * m.beta_) if scores.ndim == 1 else 1.0 / m.beta_


# ------------------------------------------------------------------------------------------
def bench_temperature_binary(n, repeat, have_torch):
    rng = np.random.default_rng(0)
    u = rng.normal(0, 1.5, n)
    y = (rng.random(n) < expit(u)).astype(np.float64)
    s = 2.5 * u + rng.normal(0, 0.3, n)
    task = f"temperature, binary, n={n:.0e}"
    ours, cal = best_of(lambda: vc.TemperatureScaling(score_type="logit").fit(s, y), repeat)
    tau = cal.temperature_
    row(task, "veracity", ours, ours, f"tau={tau:.6f}  ({cal.n_iter_} Newton steps)")
    t, v = best_of(lambda: sklearn_temperature(s, y), 1)
    row(task, "scikit-learn _TemperatureScaling", t, ours, f"|dtau|={abs(v - tau):.1e}")
    if have_torch:
        t, v = best_of(lambda: torch_lbfgs(s, y, False), 1)
        row(task, "torch L-BFGS (strong Wolfe)", t, ours, f"|dtau|={abs(v - tau):.1e}")
    t, v = best_of(lambda: numpy_newton_binary(s, y), 1)
    row(task, "plain numpy Newton loop", t, ours, f"|dtau|={abs(v - tau):.1e}")
    g = vc.TemperatureScaling(score_type="logit", method="golden").fit(s[: n // 10], y[: n // 10]).temperature_
    n_ = vc.TemperatureScaling(score_type="logit").fit(s[: n // 10], y[: n // 10]).temperature_
    print(f"{'':<34} golden vs Newton on n/10 rows: |dtau| = {abs(g - n_):.1e}")


def bench_temperature_multiclass(n, k, repeat, have_torch):
    rng = np.random.default_rng(1)
    U = rng.normal(size=(n, k))
    y = (U + rng.gumbel(size=U.shape)).argmax(1)
    Z = 2.5 * U
    task = f"temperature, K={k}, n={n:.0e}"
    ours, cal = best_of(lambda: vc.TemperatureScaling(score_type="logit").fit(Z, y), repeat)
    tau = cal.temperature_
    row(task, "veracity", ours, ours, f"T={tau:.6f}  ({cal.n_iter_} Newton steps)")
    t, v = best_of(lambda: sklearn_temperature(Z, y), 1)
    row(task, "scikit-learn _TemperatureScaling", t, ours, f"|dT|={abs(v - tau):.1e}")
    if have_torch:
        t, v = best_of(lambda: torch_lbfgs(Z, y, True), 1)
        row(task, "torch L-BFGS (strong Wolfe)", t, ours, f"|dT|={abs(v - tau):.1e}")
    t, v = best_of(lambda: numpy_newton_multiclass(Z, y), 1)
    row(task, "plain numpy Newton loop", t, ours, f"|dT|={abs(v - tau):.1e}")


def bench_isotonic_platt(n, repeat):
    from sklearn.calibration import _SigmoidCalibration
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(2)
    u = rng.normal(0, 1.5, n)
    y = (rng.random(n) < expit(u)).astype(np.float64)
    s = 2.0 * u + rng.normal(0, 0.5, n)
    p = expit(s)
    task = f"isotonic fit+predict, n={n:.0e}"
    ours, out = best_of(
        lambda: vc.IsotonicCalibration(interpolation="linear").fit(p, y).transform(p), repeat)
    row(task, "veracity (linear, sklearn's rule)", ours, ours)
    t, ref = best_of(lambda: IsotonicRegression(out_of_bounds="clip").fit(p, y).predict(p), 2)
    row(task, "scikit-learn IsotonicRegression", t, ours, f"max|diff|={np.abs(out - ref).max():.1e}")

    task = f"Platt/sigmoid fit, n={n:.0e}"
    ours, cal = best_of(lambda: vc.PlattScaling(score_type="logit", smoothing=True).fit(s, y), repeat)
    row(task, "veracity (Platt targets)", ours, ours)
    t, m = best_of(lambda: _SigmoidCalibration().fit(s, y), 2)
    # sklearn: p = 1/(1 + exp(a f + b)), i.e. a_sk = -a, b_sk = -b
    diff = max(abs(m.a_ + cal.a_), abs(m.b_ + cal.b_))
    row(task, "scikit-learn _SigmoidCalibration", t, ours, f"max|d(a,b)|={diff:.1e}")


def sklearn_ovr(method, S, y):
    """What ``CalibratedClassifierCV`` does per fold on (N, K) scores: one binary
    calibrator per class (``IsotonicRegression(out_of_bounds="clip")`` or
    ``_SigmoidCalibration``), then rows renormalised (uniform where they sum to 0)."""
    from sklearn.calibration import _SigmoidCalibration
    from sklearn.isotonic import IsotonicRegression

    k = S.shape[1]
    Q = np.empty_like(S)
    for j in range(k):
        target = (y == j).astype(np.float64)
        if method == "isotonic":
            Q[:, j] = IsotonicRegression(out_of_bounds="clip").fit(S[:, j], target).predict(S[:, j])
        else:
            Q[:, j] = _SigmoidCalibration().fit(S[:, j], target).predict(S[:, j])
    total = Q.sum(axis=1, keepdims=True)
    flat = total[:, 0] == 0
    Q[flat], total[flat] = 1.0, k
    return Q / total


def bench_one_vs_rest(n, k, repeat):
    rng = np.random.default_rng(4)
    U = rng.normal(size=(n, k))
    y = (U + rng.gumbel(size=U.shape)).argmax(1)
    Z = 2.0 * U  # overconfident logits
    P = softmax(Z, axis=1)
    task = f"one-vs-rest isotonic, {n:.0e} x {k}"
    ours, out = best_of(lambda: vc.OneVsRest(method="isotonic", method_params={"interpolation": "linear"})
                        .fit(P, y).transform(P), repeat)
    row(task, "veracity OneVsRest", ours, ours)
    t, ref = best_of(lambda: sklearn_ovr("isotonic", P, y), 1)
    row(task, "scikit-learn CalibratedClassifierCV", t, ours, f"max|diff|={np.abs(out - ref).max():.1e}")

    task = f"one-vs-rest Platt, {n:.0e} x {k}"
    ours, out = best_of(lambda: vc.OneVsRest(method="platt", score_type="logit", method_params={"smoothing": True})
                        .fit(Z, y).transform(Z), repeat)
    row(task, "veracity OneVsRest", ours, ours)
    t, ref = best_of(lambda: sklearn_ovr("sigmoid", Z, y), 1)
    row(task, "scikit-learn CalibratedClassifierCV", t, ours, f"max|diff|={np.abs(out - ref).max():.1e}")


def bench_venn_abers(n, repeat):
    from venn_abers.venn_abers import calc_p0p1

    rng = np.random.default_rng(3)
    y = (rng.random(n) < 0.3).astype(np.float64)
    s = rng.normal(np.where(y == 1, 3.0, -3.0), 1.0)   # a strong model (AUC ~ 0.99999)
    p = expit(s)
    task = f"Venn-ABERS p0/p1, n={n:.0e}"
    ours, cal = best_of(lambda: vc.VennAbers().fit(p, y), repeat)
    row(task, "veracity", ours, ours)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, (P0, P1, c) = best_of(lambda: calc_p0p1(np.column_stack([1 - p, p]), y), 1)
    same = np.array_equal(cal.p0_, P0[:, 1]) and np.array_equal(cal.p1_, P1[:, 1])
    row(task, "venn-abers package (calc_p0p1)", t, ours, f"identical p0/p1: {same}")


def bench_venn_abers_multiclass(n, k, repeat):
    from venn_abers import VennAbersCalibrator

    rng = np.random.default_rng(6)
    U = rng.normal(size=(2 * n, k))
    y = (U + rng.gumbel(size=U.shape)).argmax(1)
    P = softmax(2.0 * U, axis=1)
    task = f"Venn-ABERS multiclass, {n:.0e} x {k}"
    ours, out = best_of(lambda: vc.VennAbers().fit(P[:n], y[:n]).transform(P[n:]), repeat)
    row(task, "veracity (pairwise, coupled)", ours, ours)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, ref = best_of(lambda: VennAbersCalibrator().predict_proba(p_cal=P[:n], y_cal=y[:n], p_test=P[n:]), 1)
    row(task, "venn-abers package (one_vs_one)", t, ours, f"max|diff|={np.abs(out - ref).max():.1e}")


def bench_matrix_far(n, k, n_far, repeat):
    """Matrix scaling on ordinary logits, then with n_far rows at 1e100 (the fit runs again on those rows'
    scale: Newton with the exact Hessian; a constrained start for up to 100 far rows)."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, k, n)
    Z = rng.normal(size=(n, k))
    Z[np.arange(n), y] += 1.5
    task = f"matrix scaling, {n:.0e} x {k}"
    base, _ = best_of(lambda: vc.MatrixScaling(score_type="logit").fit(Z, y), repeat)
    row(task, "veracity (ordinary logits)", base, base)
    Z[rng.choice(n, n_far, replace=False)] *= 1e100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, cal = best_of(lambda: vc.MatrixScaling(score_type="logit").fit(Z, y), repeat)
    row(task, f"veracity ({n_far} rows at 1e100)", t, base, f"{t / base:.1f}x the ordinary fit")


SECTIONS = ("temperature", "isotonic-platt", "one-vs-rest", "venn-abers", "matrix")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/10 of the sizes")
    parser.add_argument("--only", choices=SECTIONS, action="append", default=None,
                        help="run only this section (repeatable; default: all)")
    args = parser.parse_args()
    run = set(args.only or SECTIONS)
    f = 10 if args.quick else 1
    try:
        import torch  # noqa: F401

        have_torch = True
        torch_version = torch.__version__
    except ImportError:
        have_torch, torch_version = False, "not installed"
    import sklearn

    print(f"veracity {vc.__version__}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
          f"torch {torch_version}; python {platform.python_version()} on {platform.machine()}; "
          "1 thread")
    print(f"{'task':<34} {'implementation':<34} {'time':>10}  {'slower':>7}   agreement")
    t0 = time.perf_counter()
    with threadpool_limits(1):
        if "temperature" in run:
            bench_temperature_binary(10_000_000 // f, 3, have_torch)
            bench_temperature_multiclass(1_000_000 // f, 10, 3, have_torch)
        if "isotonic-platt" in run:
            bench_isotonic_platt(1_000_000 // f, 5)
        if "one-vs-rest" in run:
            bench_one_vs_rest(1_000_000 // f, 10, 2)
        if "venn-abers" in run:
            bench_venn_abers(100_000 // f, 3)
            bench_venn_abers_multiclass(20_000 // f, 4, 3)
        if "matrix" in run:
            bench_matrix_far(20_000 // f, 10, 50 // f, 1)
            bench_matrix_far(200_000 // f, 5, 1_000 // f, 1)
    print(f"(total {time.perf_counter() - t0:.0f} s; 'slower' = peer time / veracity time)")


if __name__ == "__main__":
    main()
