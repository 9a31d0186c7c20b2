"""Benchmark: vc.audit against the equivalent scikit-learn calls, side by side.

    python benchmarks/bench_audit.py            # 1e6 and 1e7 rows
    python benchmarks/bench_audit.py --sizes 1e6

Compares
* the full ``vc.audit`` (table + ECE + MCE + Brier + decomposition + NLL + AUC +
  accuracy) with scikit-learn's ``calibration_curve`` + ``brier_score_loss`` +
  ``log_loss`` + ``roc_auc_score``;
* ``vc.auc`` with one ``np.sort`` of the scores;
* ``vc.reliability`` with the best plain-numpy table (bin index + bincounts).
Each timing is the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import veracity as vc


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def plain_numpy_table(p, y, bins=15):
    idx = np.minimum((p * bins).astype(np.intp), bins - 1)
    n = np.bincount(idx, minlength=bins)
    sp = np.bincount(idx, weights=p, minlength=bins)
    sy = np.bincount(idx, weights=y, minlength=bins)
    return n, sp / np.maximum(n, 1), sy / np.maximum(n, 1)


def sklearn_audit(p, y, bins=15):
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

    calibration_curve(y, p, n_bins=bins)
    brier_score_loss(y, p)
    log_loss(y, p)
    roc_auc_score(y, p)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1e6,1e7")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"veracity {vc.__version__}, numpy {np.__version__}, python {platform.python_version()}, "
          f"{os.cpu_count()} cores")
    header = f"{'rows':>10}  {'task':<34} {'veracity':>10} {'baseline':>10} {'ratio':>8}  baseline"
    print(header)
    print("-" * len(header))
    for size in (int(float(s)) for s in args.sizes.split(",")):
        rng = np.random.default_rng(0)
        p = rng.random(size)
        y = (rng.random(size) < p**1.3).astype(np.int64)

        t_vc = best(lambda: vc.audit(p, y), args.repeat)
        t_sk = best(lambda: sklearn_audit(p, y), 1 if size >= 10**7 else args.repeat)
        print(f"{size:>10.0e}  {'full audit':<34} {t_vc:>9.3f}s {t_sk:>9.3f}s {t_sk / t_vc:>7.1f}x  "
              "sklearn calibration_curve+brier+log_loss+roc_auc (higher = veracity faster)")

        t_auc = best(lambda: vc.auc(p, y), args.repeat)
        t_sort = best(lambda: np.sort(p), args.repeat)
        print(f"{size:>10.0e}  {'AUC (exact, ties 1/2)':<34} {t_auc:>9.3f}s {t_sort:>9.3f}s {t_auc / t_sort:>7.2f}x  "
              "one np.sort of the scores (lower = closer to a sort)")

        t_tab = best(lambda: vc.reliability(p, y), args.repeat)
        t_np = best(lambda: plain_numpy_table(p, y), args.repeat)  # same int labels as vc gets
        print(f"{size:>10.0e}  {'reliability table (15 bins + CI)':<34} {t_tab:>9.3f}s {t_np:>9.3f}s {t_tab / t_np:>7.2f}x  "
              "plain numpy index + bincounts (lower = closer to the floor)")


if __name__ == "__main__":
    main()
