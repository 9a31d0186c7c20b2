"""vc.segments on DuckDB against DuckDB's own GROUP BY GROUPING SETS over the same segments.

    python benchmarks/bench_segments.py                 # 1e7 rows x 8 features, depth 2
    python benchmarks/bench_segments.py --rows 1e6 --mcgrad /tmp/mcgrad-venv/bin/python

The table is generated inside DuckDB (4 categorical features of 3-8 levels, 4 numeric
features cut into 5 equal-mass bins; continuous scores, so the cumulative path runs on
1,020 equal-width score cells). Timed side by side, each the best of ``--repeat`` runs:

* ``vc.segments(relation, ...)`` — everything: the input contract, the level counts of each
  feature, the per (segment, score cell) sums, tests, q-values, MCGrad's MCE;
* DuckDB ``GROUP BY GROUPING SETS`` with the same segments (every feature and pair) and
  the same sums (count, Σp, Σy, Σp²) — one pass, the floor for "one aggregate per segment";
* the same GROUPING SETS with the score cell added to each set (what the MCE path needs);
* optionally MCGrad's ``MulticalibrationError`` (another Python, ``--mcgrad``) on the first
  ``--mcgrad-n`` rows, beside ``vc.segments`` on the same rows in memory.

Memory: only the per (segment, cell) table leaves DuckDB; its row count is printed. Peak
memory is measured at two row counts (``--rows`` / 10 and ``--rows``), each in a fresh process
reading a Parquet file of those rows: the process's peak RSS (Python, numpy, DuckDB's working
memory) and the peak of what Python and numpy allocate during ``vc.segments`` (tracemalloc).
Both stay flat when the rows grow tenfold: they follow the segment family, not the rows.

MCGrad (``mcgrad``: torch, LightGBM, Ax) is timed only when ``--mcgrad`` names a Python that
has it; otherwise the output says it was not timed. Beside it, always, MCGrad's *algorithm*
(a boolean mask per segment over the score-sorted rows, the running sum's range — the oracle
of tests/segments/test_segments_mcgrad.py) in numpy on the same rows, as a stand-in.
"""

from __future__ import annotations

import argparse
import itertools
import os
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CATS = {"region": 8, "device": 4, "plan": 3, "channel": 6}
NUMS = ["age", "tenure", "income", "visits"]


def make_table(con, n: int) -> None:
    cats = ", ".join(
        f"(['{name[:1]}' || i FOR i IN range({k})])[1 + floor(random() * {k})::INT] AS {name}"
        for name, k in CATS.items())
    con.execute("SELECT setseed(0.24)")
    con.execute(f"""
        CREATE OR REPLACE TABLE t AS
        SELECT p, (random() < least(1.0, p + CASE WHEN region = 'r1' AND device = 'd2' THEN 0.03 ELSE 0 END))::INT AS y,
               * EXCLUDE (p)
        FROM (SELECT 0.02 + 0.96 * random() AS p, {cats},
                     floor(18 + 70 * random())::DOUBLE AS age, floor(120 * random())::DOUBLE AS tenure,
                     round(exp(10 + random()), 0) AS income, floor(40 * random() * random())::DOUBLE AS visits
              FROM range({n}))
    """)


def grouping_sets_sql(with_cell: bool) -> str:
    feats = list(CATS) + [f"{c}_b" for c in NUMS]
    sets = ["()"] + [f"({a})" for a in feats] + [f"({a}, {b})" for a, b in itertools.combinations(feats, 2)]
    if with_cell:
        sets = [s.replace("()", "(cell)") if s == "()" else s[:-1] + ", cell)" for s in sets]
    cell = ", least(floor(p * 1020), 1019)::INT AS cell" if with_cell else ""
    return f"""
        SELECT count(*), sum(p), sum(y), sum(p * p)
        FROM (SELECT p, y, {", ".join(CATS)}, {", ".join(f"{c}_b" for c in NUMS)} {cell} FROM tb)
        GROUP BY GROUPING SETS ({", ".join(sets)})
    """


def best(fn, repeat: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", "--n", dest="n", type=float, default=1e7, help="rows (default 1e7)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--mcgrad", default=None, help="a Python with mcgrad installed, e.g. /tmp/mcgrad-venv/bin/python")
    ap.add_argument("--mcgrad-n", type=int, default=200_000)
    ap.add_argument("--no-rss", action="store_true", help="skip the peak-memory runs at two row counts")
    args = ap.parse_args()
    args.n = int(args.n)

    import duckdb

    import veracity as vc
    from veracity.segments import _cells

    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    t0 = time.perf_counter()
    make_table(con, args.n)
    print(f"data: {args.n:,} rows x {len(CATS) + len(NUMS)} features generated in DuckDB in "
          f"{time.perf_counter() - t0:.1f} s")
    features = list(CATS) + NUMS
    rel = con.table("t")

    rows_back = {}
    original = _cells.CellTable.__init__

    def counting(self, *a, **k):  # how many (segment, cell) rows leave the engine
        original(self, *a, **k)
        rows_back["n"] = self.key.size

    _cells.CellTable.__init__ = counting
    t_vc, res = best(lambda: vc.segments(rel, score="p", label="y", features=features, depth=2), args.repeat)
    _cells.CellTable.__init__ = original

    # the baseline's numeric bins: the equal-mass cuts vc.segments found (a fixed table, not timed)
    cuts = {}
    for name in NUMS:
        labels = res.levels[name]
        cuts[name] = [float(lab.split(",")[0].strip("[")) for lab in labels[1:]]
    binned = ", ".join(
        "(" + " + ".join(f"({c} >= {v})::INT" for v in cuts[c]) + f") AS {c}_b" if cuts[c] else f"0 AS {c}_b"
        for c in NUMS)
    con.execute(f"CREATE OR REPLACE VIEW tb AS SELECT *, {binned} FROM t")
    t_gs, _ = best(lambda: con.execute(grouping_sets_sql(False)).fetchall(), args.repeat)
    t_gsc, _ = best(lambda: con.execute(grouping_sets_sql(True)).fetchall(), args.repeat)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ratio = t_vc / t_gs
    print(f"segments: {res.n_segments:,} ({res.n_tested:,} tested), {len(res.discoveries)} discoveries, "
          f"MCE {res.mce:.4f} ({res.mce_sigma:.1f} sigma); {rows_back.get('n', 0):,} (segment, cell) rows came back")
    print(f"{'what':58s} {'seconds':>8s} {'ratio':>7s}")
    print(f"{'DuckDB GROUP BY GROUPING SETS (segments)':58s} {t_gs:8.2f} {1.0:7.2f}")
    print(f"{'DuckDB GROUP BY GROUPING SETS (segment x score cell)':58s} {t_gsc:8.2f} {t_gsc / t_gs:7.2f}")
    print(f"{'vc.segments on the DuckDB table (everything)':58s} {t_vc:8.2f} {t_vc / t_gs:7.2f}")
    print(f"ratio vc.segments / GROUPING SETS: {ratio:.2f}x  -> target <= 4x: {'met' if ratio <= 4 else 'NOT met'}"
          f"   (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"peak RSS of this process (the DuckDB table lives in it): {rss:,.0f} MB")

    if not args.no_rss:
        memory_runs(con, [max(args.n // 10, 1000), args.n], features)

    if not args.mcgrad:
        print("MCGrad: not timed -- mcgrad (torch, LightGBM, Ax) is not installed in this environment; "
              "pass --mcgrad PYTHON with a Python that has it (see scripts/record_mcgrad.py)")
        stand_in(con, min(args.mcgrad_n, args.n), features)
    if args.mcgrad:
        m = min(args.mcgrad_n, args.n)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "rows.parquet"
            con.execute(f"COPY (SELECT * FROM t LIMIT {m}) TO '{path}' (FORMAT parquet)")
            import pandas as pd

            df = pd.read_parquet(path)
            # the same family as MCGrad's max_values_per_segment_feature=8: 8 bins of each numeric feature
            t_mem, mem = best(lambda: vc.segments(df, score="p", label="y", features=features, depth=2, bins=8), 1)
            code = f"""
import json, time, pandas as pd
from mcgrad.metrics import MulticalibrationError
df = pd.read_parquet({str(path)!r})
t0 = time.perf_counter()
m = MulticalibrationError(df, label_column="y", score_column="p", categorical_segment_columns={list(CATS)!r},
    numerical_segment_columns={NUMS!r}, max_depth=2, max_values_per_segment_feature=8,
    min_samples_per_segment=50, max_n_segments=None, precision_dtype="float64")
mce = float(m.mce)
print(json.dumps({{"seconds": time.perf_counter() - t0, "mce": mce, "segments": int(m.total_number_segments)}}))
"""
            out = subprocess.run([args.mcgrad, "-c", code], capture_output=True, text=True, check=True)
            mc = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"on the first {m:,} rows in memory (pandas): vc.segments {t_mem:.2f} s ({mem.n_segments + 1} segments, "
              f"MCE {mem.mce:.4f}); MCGrad MulticalibrationError {mc['seconds']:.2f} s ({mc['segments']} segments, "
              f"MCE {mc['mce']:.4f}); MCGrad / veracity = {mc['seconds'] / t_mem:.1f}x")
    sys.stdout.flush()


CHILD = """
import json, sys, time, tracemalloc
import veracity as vc

def hwm():  # this process's own peak RSS (ru_maxrss would count the forked parent's pages too)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

path, features = sys.argv[1], sys.argv[2].split(",")
import duckdb
head = duckdb.sql(f"SELECT * FROM read_parquet('{path}') LIMIT 20000")
vc.segments(head, score="p", label="y", features=features, depth=2)  # warm-up: imports, DuckDB caches
base = hwm()
tracemalloc.start()
t0 = time.perf_counter()
res = vc.segments(path, score="p", label="y", features=features, depth=2)
seconds = time.perf_counter() - t0
peak = tracemalloc.get_traced_memory()[1] / 2**20
print(json.dumps({"rss": hwm(), "base": base, "traced": peak,
                  "segments": res.n_segments, "seconds": seconds, "n": res.n}))
"""


def memory_runs(con, sizes: list[int], features: list[str]) -> None:
    """Peak memory of vc.segments on a Parquet file of each size, each in a fresh process."""
    print("peak memory of vc.segments on a Parquet file (a fresh process per size):")
    print(f"{'rows':>12s} {'segments':>9s} {'seconds':>8s} {'peak RSS MB':>12s} {'after 1st run MB':>17s} "
          f"{'numpy/Python peak MB':>21s}")
    with tempfile.TemporaryDirectory() as tmp:
        for m in sizes:
            path = Path(tmp) / f"rows_{m}.parquet"
            con.execute(f"COPY (SELECT * FROM t LIMIT {m}) TO '{path}' (FORMAT parquet)")
            out = subprocess.run([sys.executable, "-c", CHILD, str(path), ",".join(features)], capture_output=True,
                                 text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{r['n']:>12,} {r['segments']:>9,} {r['seconds']:>8.2f} {r['rss']:>12,.0f} {r['base']:>17,.0f} "
                  f"{r['traced']:>21,.1f}")
            path.unlink()


def stand_in(con, m: int, features: list[str]) -> None:
    """MCGrad's algorithm in numpy (boolean mask per segment over the score-sorted rows) on m rows, beside
    vc.segments on the same rows in memory (bins=8: MCGrad's max_values_per_segment_feature=8)."""
    import numpy as np

    import veracity as vc

    df = con.execute(f"SELECT * FROM t LIMIT {m}").df()
    t_vc, res = best(lambda: vc.segments(df, score="p", label="y", features=features, depth=2, bins=8), 1)
    cols = {}
    for f in features:  # the levels vc.segments used (numeric features: its 8 equal-mass bins)
        cols[f] = df[f].to_numpy() if f in CATS else np.searchsorted(
            [float(lab.split(",")[0].strip("[")) for lab in res.levels[f][1:]], df[f].to_numpy(), side="right")

    def mcgrad_algorithm():
        order = np.argsort(df["p"].to_numpy(), kind="stable")
        p, y = df["p"].to_numpy()[order], df["y"].to_numpy()[order].astype(float)
        codes = {f: v[order] for f, v in cols.items()}
        best_sigma = 0.0
        for k in (1, 2):
            for combo in itertools.combinations(features, k):
                for values in itertools.product(*(np.unique(codes[f]) for f in combo)):
                    mask = np.logical_and.reduce([codes[f] == v for f, v in zip(combo, values)])
                    if mask.sum() < 50:
                        continue
                    path = np.cumsum(y[mask] - p[mask]) / mask.sum()
                    ecce = max(path.max(), 0.0) - min(path.min(), 0.0)
                    best_sigma = max(best_sigma, ecce / (np.sqrt(np.sum(p[mask] * (1 - p[mask]))) / mask.sum()))
        return best_sigma

    t_ref, _ = best(mcgrad_algorithm, 1)
    print(f"stand-in on the first {m:,} rows in memory: MCGrad's algorithm in numpy (a mask per segment) "
          f"{t_ref:.2f} s; vc.segments {t_vc:.2f} s ({res.n_segments:,} segments); ratio {t_ref / t_vc:.1f}x "
          "(not MCGrad itself)")


if __name__ == "__main__":
    main()
