"""Benchmark: a full paired comparison of two models against one ``vc.audit`` of one model.

    python benchmarks/bench_compare.py                  # 10^7 rows, best of 5
    python benchmarks/bench_compare.py --rows 1e6
    taskset -c 0,1 python benchmarks/bench_compare.py   # the 2-core acceptance setting
    python benchmarks/bench_compare.py --sliced --rows 1e5 --slices 4 --repeat 3   # compare by slice

``--sliced`` times instead the comparison by slice (``vc.compare_models(..., by=keys)``, the default 200
resamples) side by side with the unsliced comparison of the same rows (with the bootstrap too) and the
unsliced one without it (``n_resamples=0``), on unweighted and on weighted rows, and prints the ratios. By
slice, every slice with enough rows of each class draws its own paired bootstrap on its own rows, so the
sliced comparison costs about the unsliced one plus a second bootstrap over all the rows: a ratio near 2
is the expected cost, well above it a per-slice overhead. Run it on the old and the new tree
(``PYTHONPATH=old/src``) in turn for a before/after.

Target (issue 25): ``vc.compare_models`` of two models on 10^7 rows — paired Brier and
log-loss differences, DeLong's paired AUC test, debiased ECE and the CORP decomposition of
both models and of the difference, i.e. every closed-form part (``n_resamples=0``) — within
3x the time of one ``vc.audit`` of one model on the same rows.

The bootstrap parts (the ECE and CORP intervals) are timed separately, per resample: each
resample is one vector of Poisson(1) weights over the rows, shared by both models; nothing
is copied. Printed side by side: seconds (best wall time of ``--repeat`` runs, the two tasks
run alternately so both see the same machine; and the CPU seconds of the best run) and the
ratios. The wall ratio is the target; the CPU ratio (work done, all threads) does not depend
on how many cores were free, so a large gap between the two says the machine was busy (the
load average is printed too).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import veracity as vc


def timed(fn):
    """(wall seconds, CPU seconds of every thread, result) of one run."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def best_alternating(fns, repeat):
    """Per function: (best wall time, CPU time of that run, result); the functions run in turn,
    ``repeat`` rounds, so a busy moment of the machine falls on both."""
    runs = [[] for _ in fns]
    outs = [None] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            wall, cpu, outs[k] = timed(fn)
            runs[k].append((wall, cpu))
    return [(*min(r), out) for r, out in zip(runs, outs)]


def data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-1.5 * z))).astype(np.float64)
    shared = rng.normal(size=n)
    a = 1.0 / (1.0 + np.exp(-(z + 0.6 * shared + 0.3 * rng.normal(size=n))))
    b = 1.0 / (1.0 + np.exp(-(1.3 * z + 0.6 * shared + 0.3 * rng.normal(size=n))))
    return a, b, y


def sliced(n: int, slices: int, resamples: int, repeat: int) -> None:
    """Compare by slice against the unsliced comparison (with and without its bootstrap): best wall times
    of ``repeat`` alternating rounds, and the ratios to the unsliced comparison with its bootstrap."""
    a, b, y = data(n)
    rng = np.random.default_rng(1)
    keys = rng.integers(0, slices, n)
    weights = rng.uniform(0.5, 2.0, n)
    vc.compare_models({"a": a[:1000], "b": b[:1000]}, y[:1000], by=keys[:1000])  # imports, thread pool
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{slices} slices of about {n // slices:,} rows; load average at start {load:.1f} (a busy machine "
          "stretches the wall times: compare the CPU columns)")
    head = f"task (n_resamples={resamples})"
    print(f"{head:<58}{'wall s':>9}{'CPU s':>9}{'wall x':>8}{'CPU x':>8}")
    for label, w in (("unweighted", None), ("weighted", weights)):
        tasks = {
            f"compare, {label}, n_resamples=0": lambda: vc.compare_models(
                {"a": a, "b": b}, y, sample_weight=w, n_resamples=0),
            f"compare, {label}": lambda: vc.compare_models(
                {"a": a, "b": b}, y, sample_weight=w, n_resamples=resamples),
            f"compare by {slices} slices, {label}": lambda: vc.compare_models(
                {"a": a, "b": b}, y, sample_weight=w, n_resamples=resamples, by=keys),
        }
        best = best_alternating(list(tasks.values()), repeat)
        t_ref, c_ref = best[1][0], best[1][1]
        for name, (wall, cpu, _) in zip(tasks, best):
            print(f"{name:<58}{wall:9.2f}{cpu:9.2f}{wall / t_ref:8.2f}{cpu / c_ref:8.2f}")
        out = best[2][2]
        first = next(iter(out.groups.values()))
        print(f"  check: ECE diff {out.row('ece').diff:+.6f} [{out.row('ece').ci_low:+.6f}, "
              f"{out.row('ece').ci_high:+.6f}]; first slice MCB diff {first.corp_differences[0].mcb:+.6f} "
              f"[{first.corp_differences[0].mcb_low:+.6f}, {first.corp_differences[0].mcb_high:+.6f}]")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", "--n", dest="n", type=float, default=1e7, help="rows (default 1e7)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="rounds; the best of each is kept (default 5: on a shared machine the audit alone "
                             "varies by 20 %% between runs)")
    parser.add_argument("--resamples", type=int, default=3, help="bootstrap resamples timed (per-resample cost)")
    parser.add_argument("--sliced", action="store_true",
                        help="time the comparison by slice against the unsliced one (see the module doc)")
    parser.add_argument("--slices", type=int, default=4, help="slices of --sliced (default 4)")
    parser.add_argument("--sliced-resamples", type=int, default=200,
                        help="n_resamples of --sliced (default 200, compare_models' default)")
    args = parser.parse_args()
    n = int(args.n)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        cores = os.cpu_count() or 1
    print(f"veracity {vc.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{cores} cores; n = {n:,} rows, two models, best of {args.repeat}")
    if args.sliced:
        sliced(n, args.slices, args.sliced_resamples, args.repeat)
        return
    a, b, y = data(n)

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    vc.compare_models({"a": a[:1000], "b": b[:1000]}, y[:1000], n_resamples=0)  # imports, thread pool
    (t_audit, c_audit, audit), (t_cmp, c_cmp, cmp) = best_alternating(
        [lambda: vc.audit(a, y), lambda: vc.compare_models({"a": a, "b": b}, y, n_resamples=0)], args.repeat)
    print(f"{'task':<58}{'wall s':>9}{'CPU s':>9}{'wall x':>8}{'CPU x':>8}")
    print(f"{'vc.audit of one model (ECE, Brier, NLL, AUC, table)':<58}{t_audit:9.2f}{c_audit:9.2f}"
          f"{1.0:8.2f}{1.0:8.2f}")
    print(f"{'vc.compare_models, two models, closed-form parts':<58}{t_cmp:9.2f}{c_cmp:9.2f}"
          f"{t_cmp / t_audit:8.2f}{c_cmp / c_audit:8.2f}")
    print("  (paired Brier and log loss, DeLong paired AUC, debiased ECE, CORP of both and of the difference)")
    ratio = t_cmp / t_audit
    print(f"ratio (wall, best of {args.repeat}): {ratio:.2f}x  -> target <= 3x: {'met' if ratio <= 3 else 'NOT met'}"
          f"   (load average at start {load:.1f} on {cores} cores"
          f"{'; busy machine, rerun on a quiet one' if load > cores else ''})")

    if args.resamples:
        from veracity.comparison._corp import runs_of
        from veracity.comparison._delong import rank_models
        from veracity.comparison._inputs import models_from_arrays
        from veracity.comparison._resample import PairedBootstrap

        models = models_from_arrays({"a": a, "b": b}, y)
        ranked = rank_models([models.rank(0), models.rank(1)], models.y, None)
        runs = [runs_of(d, r) for d, r in zip(models.data, ranked)]
        boot = PairedBootstrap(list(models.data), runs, bins=15)
        t_boot, c_boot, _ = timed(lambda: boot.run(args.resamples, 0))
        per = t_boot / args.resamples
        print(f"{'paired Poisson bootstrap, per resample (ECE + CORP, both)':<58}{per:9.2f}"
              f"{c_boot / args.resamples:9.2f}{per / t_audit:8.2f}")
        print(f"  -> the default 200 resamples add about {200 * per:,.0f} s at this size")

    row = cmp.row("auc")
    print(f"check: AUC a {row.value_a:.6f} (audit {audit.metrics['auc']:.6f}), "
          f"diff {row.diff:+.6f} [{row.ci_low:+.6f}, {row.ci_high:+.6f}]")


if __name__ == "__main__":
    main()
