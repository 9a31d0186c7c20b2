"""Monitoring store at scale: ingest N predictions and N outcomes, then status.

    python benchmarks/bench_monitor.py --n 1000000          # default 1e6
    python benchmarks/bench_monitor.py --n 10000000 --batches 10

Predictions span 52 ISO weeks in 3 slices; outcomes arrive for all of them.
Prints ingest rows/s (predictions, outcomes, a re-sent batch that is a no-op)
and the time of `status` over 52 weekly windows x 3 slices (+ all), with and
without a 30-day horizon. The issue's target: status under 5 s at 1e7 rows on
2 cores.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import pyarrow as pa

from veracity.monitoring import MonitorStore


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--batches", type=int, default=4, help="ingest in this many batches")
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    n, k = args.n, args.batches
    rng = np.random.default_rng(0)
    t0 = np.datetime64("2026-01-05T00:00", "s")
    ts = t0 + rng.integers(0, 52 * 7 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < p).astype(np.int8)
    seg = rng.choice(np.array(["a", "b", "c"]), n)
    ids = np.arange(n)
    folder = args.dir or tempfile.mkdtemp()
    path = os.path.join(folder, "bench.duckdb")
    if os.path.exists(path):
        os.remove(path)
    store = MonitorStore(path, memory_limit="2GB")
    parts = np.array_split(np.arange(n), k)
    tic = time.perf_counter()
    for part in parts:
        store.log(pa.table({"id": ids[part], "ts": ts[part], "p": p[part], "seg": seg[part]}),
                  id="id", time="ts", score="p", by="seg")
    t_log = time.perf_counter() - tic
    tic = time.perf_counter()
    for part in parts:
        store.outcomes(pa.table({"id": ids[part], "y": y[part], "seen": ts[part] + np.timedelta64(86400, "s")}),
                       id="id", label="y", time="seen")
    t_out = time.perf_counter() - tic
    tic = time.perf_counter()
    part = parts[0]
    res = store.log(pa.table({"id": ids[part], "ts": ts[part], "p": p[part], "seg": seg[part]}),
                    id="id", time="ts", score="p", by="seg")
    t_again = time.perf_counter() - tic
    assert res.inserted == 0
    as_of = "2027-01-15"
    tic = time.perf_counter()
    st = store.status(freq="W", by="seg", as_of=as_of)
    t_status = time.perf_counter() - tic
    tic = time.perf_counter()
    store.status(freq="W", by="seg", as_of=as_of, horizon="30d")
    t_status_h = time.perf_counter() - tic
    size = os.path.getsize(path) / 2**20
    print(f"N = {n:,} predictions + {n:,} outcomes in {k} batches each; store {size:,.0f} MiB")
    print(f"ingest predictions: {t_log:8.2f} s  ({n / t_log:,.0f} rows/s)")
    print(f"ingest outcomes:    {t_out:8.2f} s  ({n / t_out:,.0f} rows/s)")
    print(f"re-send a batch:    {t_again:8.2f} s  ({parts[0].size / t_again:,.0f} rows/s, all no-ops)")
    print(f"status W x seg:     {t_status:8.2f} s  ({len(st.rows)} rows: 52+ weeks x (3 slices + all))")
    print(f"status + horizon:   {t_status_h:8.2f} s")


if __name__ == "__main__":
    main()
