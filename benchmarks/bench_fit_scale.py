"""Benchmark: calibrators fit on N rows of Parquet, lazily through DuckDB vs loading + the array fit (not a test).

    python benchmarks/bench_fit_scale.py --n 1e7
    python benchmarks/bench_fit_scale.py --n 1e6 --methods temperature platt

One Parquet file of N rows (scores rounded to 1e-6, so isotonic's per-score sums
stay under its distinct-value limit; weights; labels drawn from a mis-calibrated
model) is written once with DuckDB. Each (method, path) runs in its own process
so that its peak RSS is its own:

* ``duckdb`` — ``cal.fit(path, score="p", label="y", sample_weight="w")``: the
  file is never loaded; each Newton step is one aggregate query (memory limit 1 GB);
* ``memory`` — ``pyarrow.parquet.read_table`` of the three columns, then the array
  fit ``cal.fit(p, y, sample_weight=w)`` (the load time is printed separately).

Printed per method: wall time, peak RSS, the fitted parameter on both paths and
their relative difference, and the time / RSS ratios duckdb / memory. A second
table streams ``veracity apply``'s Parquet-to-Parquet path over the same file.
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

METHODS = ["temperature", "platt", "isotonic"]


def write_file(path: str, n: int) -> None:
    import duckdb

    duckdb.sql(
        f"COPY (SELECT round(p, 6) AS p, CAST(random() < 0.15 + 0.7 * p * p AS TINYINT) AS y, "
        f"0.5 + random() AS w FROM (SELECT random() AS p FROM range({n}))) "
        f"TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)"
    )


def _calibrator(method: str):  # type: ignore[no-untyped-def]
    import veracity as vc

    return {"temperature": vc.TemperatureScaling, "platt": vc.PlattScaling,
            "isotonic": vc.IsotonicCalibration}[method]()


def _param(cal) -> list[float]:  # type: ignore[no-untyped-def]
    if hasattr(cal, "temperature_"):
        return [cal.temperature_]
    if hasattr(cal, "a_"):
        return [cal.a_, cal.b_]
    return [float(len(cal.knots_x_)), float(cal.knots_y_.sum())]


def child(method: str, path_kind: str, path: str) -> dict:
    import veracity as vc

    t0 = time.perf_counter()
    extra: dict = {}
    if path_kind == "duckdb":
        vc.configure_duckdb(memory_limit="1GB")
        cal = _calibrator(method).fit(path, score="p", label="y", sample_weight="w")
    elif path_kind == "memory":
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=["p", "y", "w"])
        p, y, w = (table[c].to_numpy() for c in ("p", "y", "w"))
        del table
        extra["load_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        cal = _calibrator(method).fit(p, y, sample_weight=w)
        extra["fit_s"] = time.perf_counter() - t1
    else:  # apply: stream the file through the fitted map
        from veracity.frames._apply import apply_stream

        cal = _calibrator(method).fit(path, score="p", label="y", sample_weight="w")
        t0 = time.perf_counter()
        out = os.path.join(os.path.dirname(path), f"out-{method}.parquet")
        apply_stream(cal, path, out, score="p")
        os.unlink(out)
    wall = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"wall_s": wall, "rss_mb": rss_mb, "param": _param(cal), "n_iter": getattr(cal, "n_iter_", None),
            **extra}


def run_child(method: str, path_kind: str, path: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", method, path_kind, path],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1][:160]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=float, default=1e6)
    ap.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    ap.add_argument("--child", nargs=3, metavar=("METHOD", "PATH_KIND", "FILE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    n = int(args.n)
    with tempfile.TemporaryDirectory(prefix="veracity-bench-fit-") as tmp:
        path = os.path.join(tmp, "scores.parquet")
        t0 = time.perf_counter()
        write_file(path, n)
        size = os.path.getsize(path) / 2**20
        print(f"N = {n:,} rows of Parquet ({size:.0f} MB; p rounded to 1e-6, y, w) written in "
              f"{time.perf_counter() - t0:.1f} s\n")
        print(f"{'method':<12}{'path':<8}{'wall s':>9}{'load s':>9}{'fit s':>9}{'peak RSS MB':>13}  "
              f"{'steps':>5}  parameter(s)")
        for method in args.methods:
            res = {kind: run_child(method, kind, path) for kind in ("duckdb", "memory")}
            for kind, r in res.items():
                if "error" in r:
                    print(f"{method:<12}{kind:<8}  ERROR {r['error']}")
                    continue
                load = f"{r['load_s']:.2f}" if "load_s" in r else "-"
                fit = f"{r['fit_s']:.2f}" if "fit_s" in r else "-"
                steps = "-" if r.get("n_iter") is None else str(r["n_iter"])
                shown = ", ".join(f"{v:.15g}" for v in r["param"])
                print(f"{method:<12}{kind:<8}{r['wall_s']:>9.2f}{load:>9}{fit:>9}{r['rss_mb']:>13.0f}  {steps:>5}  {shown}")
            d, m = res["duckdb"], res["memory"]
            if "error" not in d and "error" not in m:
                rel = max(abs(a - b) / max(abs(b), 1e-300) for a, b in zip(d["param"], m["param"]))
                print(f"{'':<12}{'ratio':<8}{d['wall_s'] / m['wall_s']:>9.2f}x{'':>17}"
                      f"{d['rss_mb'] / m['rss_mb']:>12.2f}x  max relative parameter difference {rel:.1e}")
        print("\nstreamed apply (Parquet -> Parquet, 65,536-row batches, every column kept):")
        for method in args.methods:
            r = run_child(method, "apply", path)
            if "error" in r:
                print(f"  {method:<12} ERROR {r['error']}")
            else:
                print(f"  {method:<12} {r['wall_s']:.2f} s  {n / r['wall_s'] / 1e6:.1f}M rows/s  "
                      f"peak RSS {r['rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
