"""Monitoring-store status with prediction-powered estimates and confidence sequences (issue 26).

A store of ``--rows`` predictions over 52 weekly windows x 10 cohorts; a random 2 % audit
sample labelled early, the rest labelled after a 30-day horizon. Times ``status(by="cohort")``
in full — PPI per window, cohort and score bin, the overall and per-bin confidence sequences
(window alerts, and sequential alerts) — against the plain status (the same call without the
delayed-label estimates and sequences: what status computed before issue 26), and prints
the ratio. Target: at most 2x. Best of ``--repeat`` runs each, interleaved.

    python benchmarks/bench_store_delayed.py [--rows 1e6] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import pyarrow as pa

import veracity
from veracity.monitoring import MonitorStore
from veracity.monitoring import store_status


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=float, default=1e6, help="stored predictions (the target is stated at 1e7)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, the best counts (default: 3)")
    args = ap.parse_args()
    n = int(args.rows)
    rng = np.random.default_rng(0)
    t0 = np.datetime64("2025-01-06", "s")
    t = t0 + rng.integers(0, 52 * 7 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.random(n) < p).astype(np.int8)
    cohort = rng.integers(0, 10, n).astype(str)
    as_of = t0 + np.timedelta64(52 * 7 * 86400, "s")
    observed = t + np.timedelta64(30 * 86400, "s")
    final = observed <= as_of
    audit = ~final & (rng.random(n) < 0.02)
    with tempfile.TemporaryDirectory() as d:
        store = MonitorStore(os.path.join(d, "m.duckdb"))
        tic = time.perf_counter()
        store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "cohort": cohort}), id="id", time="ts", score="p",
                  by="cohort")
        store.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": observed[final]}), id="id",
                       label="y", time="ts")
        store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": t[audit]}), id="id",
                       label="y", time="ts", audit_sample=True)
        build = time.perf_counter() - tic
        common = dict(by="cohort", freq="W", as_of=str(as_of), horizon="30d")
        runs = {
            "plain": lambda: store_status(store, delayed=False, **common),
            "full, window alerts": lambda: store_status(store, delayed=True, **common),
            "full, sequential alerts": lambda: store_status(store, delayed=True, alerts="sequential", **common),
        }
        best = {k: float("inf") for k in runs}
        for _ in range(max(1, args.repeat)):
            for name, fn in runs.items():
                tic = time.perf_counter()
                status = fn()
                best[name] = min(best[name], time.perf_counter() - tic)
        periods = len({r.period for r in status.rows})
        cohorts = len({r.slice for r in status.rows}) - 1
        print(f"veracity {veracity.__version__}; {n:.0e} stored predictions, {periods} weeks x {cohorts} cohorts "
              f"(+ all), {int(audit.sum()):,} audit labels; store built in {build:.1f} s")
        for name, sec in best.items():
            ratio = "" if name == "plain" else f"  ({sec / best['plain']:.2f}x plain)"
            print(f"  status {name:<24} {sec:7.3f} s{ratio}")
        worst = max(best[k] for k in runs if k != "plain") / best["plain"]
        print(f"ratio (full / plain, worst): {worst:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
