"""Benchmark: vector / matrix scaling with rows far beyond the others above 10 classes (not a test).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_matrix_far_r24.py
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_matrix_far_r24.py --repeat 3 --quick

The cases and the timing of ``bench_matrix_far_r23.py`` (informative logits, some rows multiplied by a huge
scale; the far fit's time against the ordinary fit's on the same logits unscaled, the best of ``--repeat``
runs each), at 12 to 30 classes, where session 24 extended the far fit's Newton run and the ranked fit's
preconditioning from 10 classes to 1,056 parameters (matrix scaling up to 32 classes). Before, at 20 classes,
the far fit took 2 and 10 times the ordinary fit (242 and 190 iterations where it took 42). On a machine
whose cores are shared, single-threaded BLAS (``OPENBLAS_NUM_THREADS=1``) times far more steadily.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_matrix_far_r23 import best_fit, logits  # noqa: E402

CASES = [(5000, 12, 0.1, 1e100), (5000, 12, 30, 1e100), (20000, 20, 0.1, 1e100), (20000, 20, 50, 1e100),
         (20000, 30, 0.1, 1e100), (20000, 30, 50, 1e100)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="skip the 20,000-row cases")
    args = ap.parse_args()
    import veracity as vc

    vc.MatrixScaling(score_type="logit").fit(*logits(50, 3, 0.0, 1.0)[1:])  # imports, first calls
    head = f"{'case':32s} {'kind':6s} {'ordinary s':>10s} {'far s':>8s} {'ratio':>6s} {'iters':>9s}"
    print(f"{head}  converged")
    for n, k, far, scale in CASES:
        if args.quick and n > 5000:
            continue
        z, Z, y = logits(n, k, far, scale)
        name = f"{n}x{k}, {far:g} far at {scale:.0e}"
        for cls in (vc.MatrixScaling, vc.VectorScaling):
            t0, c0 = best_fit(cls, z, y, args.repeat)
            t1, c1 = best_fit(cls, Z, y, args.repeat)
            print(f"{name:32s} {cls.kind:6s} {t0:10.3f} {t1:8.3f} {t1 / t0:6.2f} "
                  f"{c1.n_iter_:4d}/{c0.n_iter_:<4d}  {c1.converged_}", flush=True)


if __name__ == "__main__":
    main()
