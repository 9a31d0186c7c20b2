"""An isotonic calibrator with 1,000 knots applied inside DuckDB, against DuckDB's own scan-and-sum.

Issue 27's target: ``SELECT sum(<calibrator SQL>) FROM t`` over 1e8 rows within 2x of
``SELECT sum(score) FROM t``. Three tables hold the same random scores: in memory, a
persistent DuckDB file (compressed on disk, as a warehouse table is) and a Parquet file.
Each query runs ``--repeat`` times; the best time is printed with the ratio to the plain
scan-and-sum of the same table. The first 10^5 calibrated rows are checked against
``transform()`` (exact: isotonic steps).

DuckDB's SQL for a long step table is a short CASE chain over per-cell arrays (see
``veracity.export._sql``): a row costs a cell index, then one array look-up of the knot
inside its cell and one of the step's value. For reference, the same map as a balanced
CASE tree (the SQL SQLite and PostgreSQL get) is timed on ``--tree-rows`` rows: DuckDB
runs every branch of a nested CASE on every vector, so its cost grows with the number
of knots, not their logarithm.

    python benchmarks/bench_export.py                  # 1e7 rows
    python benchmarks/bench_export.py --rows 1e8       # the issue's 1e8 (needs ~4 GB of disk)
    python benchmarks/bench_export.py --sizes          # only the map's SQL text size in every dialect
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

import veracity as vc


def isotonic(knots: int, seed: int = 0):
    """A fitted-looking isotonic map with exactly ``knots`` steps on [0, 1]."""
    rng = np.random.default_rng(seed)
    x = np.unique(rng.random(knots + 8))[:knots]
    x[0] = 0.0
    y = np.sort(rng.random(knots))
    doc = {"format": "veracity.calibrator", "version": 1, "kind": "isotonic",
           "params": {"score_type": "probability", "ties": "allow", "interpolation": "step"},
           "state": {"knots_x_": x.tolist(), "knots_y_": y.tolist(), "n_unique_": knots, "n_steps_": knots,
                     "ties_created_": 0, "n_classes_": 2},
           "metadata": {"n_rows": 10 * knots, "score_type": "probability"}}
    return vc.load(doc)


def best(con, sql: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        con.execute(sql).fetchall()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", "--n", dest="n", type=float, default=1e7,
                    help="rows (default 1e7; the issue's target is 1e8: --rows 1e8)")
    ap.add_argument("--knots", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    ap.add_argument("--tree-rows", type=int, default=200_000, help="rows for the CASE-tree reference")
    ap.add_argument("--sizes", action="store_true",
                    help="print the SQL text's size in every dialect, then stop")
    args = ap.parse_args()
    args.n = int(args.n)
    if args.sizes:
        from veracity.export._sql import DIALECTS

        cal = isotonic(args.knots)
        print(f"isotonic, {args.knots} knots: SQL text characters")
        for dialect in DIALECTS:
            print(f"{dialect:<10}{len(cal.to_sql('score', dialect=dialect)):>10,}")
        return

    import duckdb

    cal = isotonic(args.knots)
    expr = cal.to_sql("score", dialect="duckdb")
    tree = cal.to_sql("score", dialect="sqlite")  # the array-free form: a balanced CASE tree
    with tempfile.TemporaryDirectory() as tmp:
        con = duckdb.connect(os.path.join(tmp, "bench.duckdb"))
        if args.threads:
            con.execute(f"SET threads = {args.threads}")
        con.execute(f"CREATE TEMP TABLE mem AS SELECT random() AS score FROM range({args.n})")
        con.execute("CREATE TABLE disk AS SELECT * FROM mem")
        con.execute("CHECKPOINT")
        parquet = os.path.join(tmp, "scores.parquet")
        con.execute(f"COPY mem TO '{parquet}' (FORMAT parquet)")

        sample = con.execute(f"SELECT score, {expr} FROM mem LIMIT 100000").fetchnumpy()
        got = np.asarray(sample[list(sample)[1]], dtype=np.float64)
        assert np.array_equal(got, cal.transform(np.asarray(sample["score"]))), "SQL != transform()"

        threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
        print(f"isotonic, {args.knots} knots, {args.n:,} rows, DuckDB {duckdb.__version__}, {threads} threads; "
              f"SQL text {len(expr):,} characters (checked equal to transform() on 1e5 rows)")
        print(f"{'table':<10}{'scan+sum (s)':>14}{'calibrated sum (s)':>20}{'ratio':>8}")
        for name, source in (("memory", "mem"), ("duckdb", "disk"), ("parquet", f"'{parquet}'")):
            base = best(con, f"SELECT sum(score) FROM {source}", args.repeat)
            cald = best(con, f"SELECT sum({expr}) FROM {source}", args.repeat)
            print(f"{name:<10}{base:>14.3f}{cald:>20.3f}{cald / base:>7.2f}x")
        m = min(args.tree_rows, args.n)
        t_arr = best(con, f"SELECT sum({expr}) FROM (SELECT score FROM mem LIMIT {m})", args.repeat)
        t_tree = best(con, f"SELECT sum({tree}) FROM (SELECT score FROM mem LIMIT {m})", 1)
        print(f"reference on {m:,} rows: cell chain {t_arr * 1e9 / m:.1f} ns/row, "
              f"CASE tree {t_tree * 1e9 / m:.1f} ns/row ({t_tree / t_arr:.0f}x)")
        con.close()


if __name__ == "__main__":
    main()
