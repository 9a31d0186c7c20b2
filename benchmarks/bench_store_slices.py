"""Monitoring store status by a high-cardinality slice vs a two-value slice (issue 23).

``status --by user`` on 20,000 distinct users pools all but the 100 largest slices into
"(other)" inside the one aggregate; the target is under 2x the time of a two-value slice.

    python benchmarks/bench_store_slices.py [--n 1000000] [--values 20000]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time

import numpy as np
import pyarrow as pa

from veracity.monitoring import MonitorStore


def _best(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=float, default=1e6)
    ap.add_argument("--values", type=int, default=20_000)
    args = ap.parse_args()
    n = int(args.n)
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, n)
    t = np.datetime64("2026-01-05", "s") + rng.integers(0, 84 * 86400, n).astype("timedelta64[s]")
    with tempfile.TemporaryDirectory() as d:
        store = MonitorStore(os.path.join(d, "m.duckdb"))
        store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "two": rng.choice(["a", "b"], n),
                            "user": rng.integers(0, args.values, n).astype(str)}),
                  id="id", time="ts", score="p", by=["two", "user"])
        store.outcomes(pa.table({"id": np.arange(n), "y": (rng.random(n) < p).astype(np.int8), "ts": t}),
                       id="id", label="y", time="ts")
        as_of = "2026-04-01"
        t2, s2 = _best(lambda: store.status(by="two", freq="W", as_of=as_of))
        tu, su = _best(lambda: store.status(by="user", freq="W", as_of=as_of))
    print(f"rows {n:.0e}; status by a 2-value slice {t2:.3f} s ({len(s2.rows)} rows); by a {args.values}-value "
          f"slice {tu:.3f} s ({len(su.rows)} rows, {su.pooled} values pooled into '(other)')")
    print(f"ratio {tu / t2:.2f}x (target < 2x); peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
