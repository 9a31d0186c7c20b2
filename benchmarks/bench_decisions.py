"""Benchmark: the decision tools against one sort and against scikit-learn.

    python benchmarks/bench_decisions.py            # 1e7 rows, 1,000 thresholds
    python benchmarks/bench_decisions.py --rows 1e6

Prints, side by side:
* ``np.sort`` of the scores once (the floor: any exact table needs the order);
* ``vc.threshold_table`` at 1,000 thresholds (target: at most ~2x one sort);
* scikit-learn: ``confusion_matrix`` per threshold (timed on a few, extrapolated to
  all) and ``precision_recall_curve`` (every distinct score, one call);
* ``vc.simulate_redraws`` (2,000 redraws) and ``ConformalClassifier`` fit + sets.
Times are the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def best(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    import veracity as vc
    from sklearn.metrics import confusion_matrix, precision_recall_curve

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--thresholds", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = int(args.rows)
    rng = np.random.default_rng(0)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(np.int8)
    thr = np.linspace(0.0, 1.0, args.thresholds)

    t_sort, _ = best(lambda: np.sort(s), args.repeat)
    t_table, table = best(lambda: vc.threshold_table(s, y, thr, cost_fn=9), args.repeat)
    w = rng.uniform(0.5, 2.0, n)
    t_wtable, _ = best(lambda: vc.threshold_table(s, y, thr, sample_weight=w), max(1, args.repeat - 1))

    few = thr[:: max(1, args.thresholds // 5)][:5]
    t_cm, _ = best(lambda: [confusion_matrix(y, s >= t, labels=[0, 1]) for t in few], 1)
    t_cm_all = t_cm / len(few) * args.thresholds
    t_prc, _ = best(lambda: precision_recall_curve(y, s), 1)

    # spot check against the oracle while we are here
    tn, fp, fn, tp = confusion_matrix(y, s >= thr[500 % len(thr)], labels=[0, 1]).ravel()
    i = 500 % len(thr)
    assert (table.tp[i], table.fp[i], table.fn[i], table.tn[i]) == (tp, fp, fn, tn)

    print(f"rows {n:,}   thresholds {args.thresholds:,}   (best of {args.repeat})")
    rows = [
        ("np.sort(scores) once", t_sort),
        (f"vc.threshold_table, {args.thresholds} thresholds", t_table),
        ("vc.threshold_table, weighted", t_wtable),
        (f"sklearn confusion_matrix x {args.thresholds} (extrapolated from {len(few)})", t_cm_all),
        ("sklearn precision_recall_curve (all distinct scores)", t_prc),
    ]
    width = max(len(r[0]) for r in rows)
    for name, t in rows:
        print(f"  {name:<{width}}  {t:8.3f} s   {t / t_sort:6.2f}x sort")
    print(f"threshold_table / one sort = {t_table / t_sort:.2f}x (target <= ~2x)")
    print(f"sklearn confusion_matrix loop / threshold_table = {t_cm_all / t_table:.0f}x")

    # the redraw simulation and conformal sets at seed-003 sizes
    pool = 27_000
    ps = rng.random(pool)
    py = (rng.random(pool) < ps * 0.2).astype(int)
    t_red, _ = best(lambda: vc.simulate_redraws(ps, py, n_calib=1000, n_resamples=2000, random_state=0), 1)
    P = rng.dirichlet(np.ones(10), 100_000)
    yy = P.argmax(axis=1)
    t_conf, _ = best(lambda: vc.ConformalClassifier(alpha=0.1).fit(P[:50_000], yy[:50_000]).predict_sets(P[50_000:]), 1)
    print(f"  simulate_redraws: 2,000 redraws, 27,000-row pool       {t_red:8.3f} s")
    print(f"  ConformalClassifier: fit 50k x 10 + sets for 50k x 10  {t_conf:8.3f} s")


if __name__ == "__main__":
    main()
