"""Monitoring-store status with prediction-powered estimates and confidence sequences (issue 26).

52 weekly windows x 10 cohorts; a random 2 % audit sample labelled early, the rest labelled after
a 30-day horizon. Prints the time of ``status(by="cohort")`` (window alerts, and sequential
alerts); run it on an older checkout (``PYTHONPATH=<old>/src``) for "today's" status time: the
target is at most 2x.

    python benchmarks/bench_store_delayed.py [--n 1e6]
"""

from __future__ import annotations

import argparse
import inspect
import os
import tempfile
import time

import numpy as np
import pyarrow as pa

import veracity
from veracity.monitoring import MonitorStore


def _best(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=float, default=1e6)
    args = ap.parse_args()
    n = int(args.n)
    rng = np.random.default_rng(0)
    t0 = np.datetime64("2025-01-06", "s")
    t = t0 + rng.integers(0, 52 * 7 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.random(n) < p).astype(np.int8)
    cohort = rng.integers(0, 10, n).astype(str)
    as_of = t0 + np.timedelta64(52 * 7 * 86400, "s")
    observed = t + np.timedelta64(30 * 86400, "s")
    final = observed <= as_of
    with tempfile.TemporaryDirectory() as d:
        store = MonitorStore(os.path.join(d, "m.duckdb"))
        tic = time.perf_counter()
        store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "cohort": cohort}), id="id", time="ts", score="p",
                  by="cohort")
        store.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": observed[final]}), id="id",
                       label="y", time="ts")
        has_audit = "audit_sample" in inspect.signature(store.outcomes).parameters
        if has_audit:
            audit = ~final & (rng.random(n) < 0.02)
            store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": t[audit]}), id="id",
                           label="y", time="ts", audit_sample=True)
        build = time.perf_counter() - tic
        as_of_s = str(as_of)
        t_window = _best(lambda: store.status(by="cohort", freq="W", as_of=as_of_s, horizon="30d"))
        line = (f"veracity {veracity.__version__} ({'with' if has_audit else 'without'} PPI/sequences); rows {n:.0e}; "
                f"store built in {build:.1f} s; status by cohort (52 weeks x 10 cohorts): {t_window:.3f} s")
        if has_audit:
            t_seq = _best(lambda: store.status(by="cohort", freq="W", as_of=as_of_s, horizon="30d",
                                               alerts="sequential"))
            line += f"; with sequential alerts {t_seq:.3f} s"
        print(line)


if __name__ == "__main__":
    main()
