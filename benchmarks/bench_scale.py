"""Benchmark: the same ``vc.audit`` on every backend, at scale (not a test).

    python benchmarks/bench_scale.py --n 1e7                      # every backend
    python benchmarks/bench_scale.py --n 1e8 --backends duckdb    # the README's scale row

One Parquet file of N rows (full-precision scores: every score distinct, the
hard case for the exact AUC) is written once with DuckDB. Each backend then runs
the full audit (table, ECE, MCE, Brier + decomposition, NLL, exact AUC, accuracy)
in its own process, so that its peak RSS is its own. Printed per backend: wall
time, rows/s, peak RSS, and the ratio to DuckDB; plus

* ``duckdb bins`` — the per-bin statistics alone vs DuckDB's bare ``GROUP BY``
  of the same sums (the issue asks for within 2x);
* ``array`` vs ``pandas``/``polars`` — the frame form on in-memory frames vs the
  array form on the same numpy columns (asked: within 1.3x).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

BACKENDS = ["array", "pandas", "polars", "polars-lazy", "duckdb", "dask", "spark"]


def write_file(path: str, n: int) -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(
        f"COPY (SELECT p, CAST(random() < p AS TINYINT) AS y, CAST(floor(random() * 4) AS INTEGER) AS g "
        f"FROM (SELECT random() AS p FROM range({n}))) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)"
    )


def child(backend: str, path: str) -> dict:
    import veracity as vc

    t0, c0 = time.perf_counter(), _cpu_seconds()
    extra = {}
    if backend in ("array", "pandas", "polars"):
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=["p", "y"])
        load = time.perf_counter() - t0
        if backend == "array":
            p, y = table["p"].to_numpy(), table["y"].to_numpy()
            t1 = time.perf_counter()
            vc.audit(p, y)
        else:
            if backend == "pandas":
                frame = table.to_pandas()
            else:
                import polars as pl

                frame = pl.from_arrow(table)
            t1 = time.perf_counter()
            vc.audit(frame, score="p", label="y")
        extra = {"load_s": load, "audit_s": time.perf_counter() - t1}
    elif backend == "polars-lazy":
        import polars as pl

        vc.audit(pl.scan_parquet(path), score="p", label="y")
    elif backend == "duckdb":
        vc.configure_duckdb(memory_limit="1GB")
        vc.audit(path, score="p", label="y")
        wall, cpu = time.perf_counter() - t0, _cpu_seconds() - c0  # the audit alone; the bins below are extra
        import duckdb

        from veracity.sources import _aggregates as agg
        from veracity.sources._api import _Prepared

        prep = _Prepared(path, "p", "y")
        t1 = time.perf_counter()
        agg.bin_sums(prep.working(False), bins=15, score_type="probability", threshold=0.5, grouped=False)
        ours = time.perf_counter() - t1
        con = duckdb.connect(config={"memory_limit": "1GB"})
        con.execute("SET enable_progress_bar = false")
        t1 = time.perf_counter()
        con.execute(
            "SELECT least(CAST(floor(p * 15) AS BIGINT), 14) AS b, count(*), sum(p), sum(y), sum(p * p), "
            "sum(p * y), sum(-ln(greatest(CASE WHEN y = 1 THEN p ELSE 1 - p END, 2.220446049250313e-16))), "
            "sum(CAST((p >= 0.5) = (y = 1) AS DOUBLE)) FROM read_parquet(?) GROUP BY b", [path]
        ).fetchall()
        extra = {"bins_s": ours, "bare_group_by_s": time.perf_counter() - t1, "wall_s": wall,
                 "cpu_s": cpu}
    elif backend == "dask":
        import warnings

        import dask
        import dask.dataframe as dd

        dask.config.set(scheduler="threads")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vc.audit(dd.read_parquet(path, columns=["p", "y"]), score="p", label="y")
    elif backend == "spark":
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "2g")
                 .config("spark.sql.shuffle.partitions", "8").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        t0, c0 = time.perf_counter(), _cpu_seconds()  # the JVM's start is not the audit's time
        vc.audit(spark.read.parquet(path), score="p", label="y")
        extra = {"jvm_rss_mb": _peak_rss_mb(spark.sparkContext._gateway.proc.pid)}
    wall = time.perf_counter() - t0
    return {"backend": backend, "wall_s": wall, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "cpu_s": _cpu_seconds() - c0, **extra}


def _peak_rss_mb(pid: int) -> float:
    """Peak resident memory of another process (Spark's JVM), from /proc; 0 where unknown."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _cpu_seconds() -> float:
    """User + system CPU of this process and its threads (the JVM of Spark is a child: not counted)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e7, help="rows (default 1e7)")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--file", default=None, help="reuse this Parquet file (written if missing)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.file)))
        return
    n = int(args.n)
    path = args.file or os.path.join(tempfile.gettempdir(), f"veracity-bench-{n}.parquet")
    if not os.path.exists(path):
        t0 = time.perf_counter()
        write_file(path, n)
        print(f"wrote {path} ({os.path.getsize(path) / 2**20:.0f} MB) in {time.perf_counter() - t0:.1f} s")
    print(f"{n:,} rows, full-precision scores; {os.cpu_count()} CPUs; python {sys.version.split()[0]}")
    rows = []
    for backend in args.backends.split(","):
        proc = subprocess.run([sys.executable, __file__, "--child", backend, "--file", path],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{backend:12s} failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else '?'}")
            continue
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(f"  {backend} done: {rows[-1]['wall_s']:.2f} s", flush=True)
    base = next((r["wall_s"] for r in rows if r["backend"] == "duckdb"), None)
    print(f"{'backend':12s} {'wall s':>8s} {'rows/s':>12s} {'peak RSS MB':>12s} {'x DuckDB':>9s} {'cpu s':>7s}")
    for r in rows:
        ratio = f"{r['wall_s'] / base:9.2f}" if base else "        -"
        rss = f"{r['peak_rss_mb']:12.0f}"
        if "jvm_rss_mb" in r:  # Spark: Python driver + the JVM
            rss = f"{r['peak_rss_mb'] + r['jvm_rss_mb']:12.0f}"
        print(f"{r['backend']:12s} {r['wall_s']:8.2f} {n / r['wall_s']:12,.0f} {rss} {ratio} {r['cpu_s']:7.1f}")
    print("(wall: the audit call only, data on disk (arrays: load + audit); cpu: the Python process's "
          "user+system seconds, the JVM's not included; RSS of Spark = driver + JVM)")
    for r in rows:
        if "bins_s" in r:
            print(f"duckdb bins: {r['bins_s']:.2f} s vs bare GROUP BY {r['bare_group_by_s']:.2f} s "
                  f"({r['bins_s'] / r['bare_group_by_s']:.2f}x)")
    arr = next((r for r in rows if r["backend"] == "array"), None)
    for r in rows:
        if arr and r["backend"] in ("pandas", "polars"):
            print(f"{r['backend']} frame form vs array form (audit only, data in memory): "
                  f"{r['audit_s']:.2f} s vs {arr['audit_s']:.2f} s ({r['audit_s'] / arr['audit_s']:.2f}x)")


if __name__ == "__main__":
    main()
