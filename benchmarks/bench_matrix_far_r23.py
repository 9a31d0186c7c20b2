"""Benchmark: vector / matrix scaling with rows far beyond the others, against an ordinary fit (not a test).

    python benchmarks/bench_matrix_far_r23.py
    python benchmarks/bench_matrix_far_r23.py --repeat 5 --quick

Each case draws informative logits (N rows of K classes, the true class raised by 1.5), multiplies some rows
by a huge scale (a share of the rows, or a count), and times the fit on them against the fit on the same
logits unscaled (the best of ``--repeat`` runs each, after one warm-up fit). Printed per case and kind: both
times, their ratio far / ordinary, the iterations (``n_iter_``, every run of the fit added) and whether the
far fit converged. Session 23's target: ratio at most about 2 (it was 4 to 9).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

CASES = [(600, 3, 0.1, 1e100), (2000, 3, 0.02, 1e50), (5000, 4, 300, 1e100), (20000, 10, 50, 1e100),
         (20000, 10, 0.1, 1e100)]


def logits(n: int, k: int, far: float, scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, k, n)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.5
    pick = np.random.default_rng(1)
    if far < 1:
        rows = pick.random(n) < far
    else:
        rows = np.isin(np.arange(n), pick.choice(n, int(far), replace=False))
    Z = z.copy()
    Z[rows] *= scale
    return z, Z, y


def best_fit(cls: type, Z: np.ndarray, y: np.ndarray, repeat: int) -> tuple[float, object]:
    best, cal = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cal = cls(score_type="logit").fit(Z, y)
        best = min(best, time.perf_counter() - t)
    return best, cal


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="skip the 20,000-row cases")
    args = ap.parse_args()
    import veracity as vc

    vc.MatrixScaling(score_type="logit").fit(*logits(50, 3, 0.0, 1.0)[1:])  # imports, first calls
    print(f"{'case':32s} {'kind':6s} {'ordinary s':>10s} {'far s':>8s} {'ratio':>6s} {'iters':>9s}  converged")
    for n, k, far, scale in CASES:
        if args.quick and n > 5000:
            continue
        z, Z, y = logits(n, k, far, scale)
        name = f"{n}x{k}, {far:g} far at {scale:.0e}"
        for cls in (vc.MatrixScaling, vc.VectorScaling):
            t0, c0 = best_fit(cls, z, y, args.repeat)
            t1, c1 = best_fit(cls, Z, y, args.repeat)
            print(f"{name:32s} {cls.kind:6s} {t0:10.3f} {t1:8.3f} {t1 / t0:6.2f} {c1.n_iter_:4d}/{c0.n_iter_:<4d}  "
                  f"{c1.converged_}", flush=True)


if __name__ == "__main__":
    main()
