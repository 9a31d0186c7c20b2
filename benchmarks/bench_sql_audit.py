"""SQL pushdown audit of a PostgreSQL table against PostgreSQL's own single GROUP BY (issue 27).

A PostgreSQL server is started from the ``pgserver`` wheel in a temporary directory
(or ``--url`` names one); a table of N rows (continuous scores, so ~N distinct values:
the exact AUC's worst case) is generated inside it. Timed, best of ``--repeat``:

* ``GROUP BY``   — PostgreSQL's own single ``GROUP BY`` over the same 15 bins with the
  reliability table's sums (count, Σp, Σy): the floor for any audit that reads the rows;
* ``GROUP BY+``  — the same GROUP BY with every sum of the audit (Σp², Σpy, Σ log-loss, accuracy);
* the floors of any exact AUC in SQL: PostgreSQL's own sort of the rows by score, and that
  sort feeding a running sum (a window), the least an exact Mann–Whitney AUC needs there
  (``--no-floors`` skips them);
* ``audit_sql``  — ``vc.audit_sql``: contract checks, per-bin statistics, exact AUC;
  beside it its one statement that reads the rows (the contract's screen, the per-bin
  statistics and the exact AUC; the others read the column names, one value per column and
  the first 10,000 scores to choose the route) and the rows fetched. On PostgreSQL the
  route is the "rows" one where scores are mostly distinct (one sort of the rows, a window,
  one aggregate per bin) and the "values" one where they repeat (one aggregate per distinct
  score first); ``--both-routes`` also times the whole audit forced onto the other route.
  The statements that sort every row run with ``work_mem`` raised to 256 MB for that statement
  alone (``SET LOCAL``; the session and the GROUP BY keep the server's default) and sort by an
  integer image of the score first; ``--untuned`` also times the audit without either (the
  default work_mem, a float sort key), and the floors are timed at both work_mem settings.

    python benchmarks/bench_sql_audit.py            # 1e7 rows (about a minute to build)
    python benchmarks/bench_sql_audit.py --rows 1e6 --repeat 3 --round 3
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from typing import Any


def _server(url: str | None) -> tuple[str, Any]:
    if url:
        return url, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(tempfile.mkdtemp(prefix="vc-bench-pg-"), cleanup_mode="delete")
    return server.get_uri(), server


def _best(fn: Any, repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", "--n", dest="n", type=float, default=1e7, help="rows (default 1e7, the issue's size)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs, best kept (default 3)")
    parser.add_argument("--bins", type=int, default=15)
    parser.add_argument("--url", default=None, help="an existing PostgreSQL (default: start pgserver)")
    parser.add_argument("--weights", action="store_true", help="audit with a weight column")
    parser.add_argument("--work-mem", default=None, metavar="SIZE",
                        help="SET work_mem for the session (e.g. 256MB): the sort of the exact AUC stays in memory")
    parser.add_argument("--round", type=int, default=None, metavar="D",
                        help="round the scores to D decimals (ties: the per-score aggregate shrinks)")
    parser.add_argument("--both-routes", action="store_true",
                        help="also time the audit forced onto the route it does not choose")
    parser.add_argument("--no-floors", dest="floors", action="store_false",
                        help="skip timing the sort and the sort + window that an exact AUC needs")
    parser.add_argument("--untuned", action="store_true",
                        help="also time the audit at the default work_mem with a float sort key (before the tuning)")
    args = parser.parse_args()
    n, m = int(args.n), args.bins

    import psycopg

    import veracity as vc
    from veracity.core._binning import uniform_edges
    from veracity.sql import _connect, _query
    from veracity.sql._audit import _columns, _rows_route, _sums
    from veracity.sql._connect import open_database

    uri, server = _server(args.url)
    try:
        conn = psycopg.connect(uri, autocommit=True)
        t0 = time.perf_counter()
        conn.execute("DROP TABLE IF EXISTS vc_bench")
        conn.execute("SELECT setseed(0.27)")
        score = "random()" if args.round is None else f"round(random()::numeric, {int(args.round)})::float8"
        conn.execute(f"""
            CREATE TABLE vc_bench AS
            SELECT p, CASE WHEN random() < p * p THEN 1 ELSE 0 END AS y, 0.5 + random() AS w
            FROM (SELECT {score} AS p FROM generate_series(1, {n})) AS s""")
        conn.execute("VACUUM ANALYZE vc_bench")
        build = time.perf_counter() - t0
        if args.work_mem:
            conn.execute("SELECT set_config('work_mem', %s, false)", (args.work_mem,))
        version = conn.execute("SHOW server_version").fetchone()[0]
        workers = conn.execute("SHOW max_parallel_workers_per_gather").fetchone()[0]
        work_mem = conn.execute("SHOW work_mem").fetchone()[0]
        kind = "continuous scores" if args.round is None else f"scores rounded to {args.round} decimals"
        print(f"PostgreSQL {version} (parallel workers per gather: {workers}, work_mem {work_mem}); {n:,} rows "
              f"({kind}) built in {build:.1f} s")

        bin_expr = f"LEAST(FLOOR(p * {m}), {m - 1})"
        plain = f"SELECT {bin_expr} AS b, COUNT(*), SUM(p), SUM(y) FROM vc_bench GROUP BY 1"
        full = (f"SELECT {bin_expr} AS b, COUNT(*), SUM(p), SUM(y), SUM(p * p), SUM(p * y), "
                "SUM(-LN(GREATEST(CASE WHEN y = 1 THEN p ELSE 1 - p END, 2.220446049250313e-16))), "
                "SUM(CASE WHEN (p >= 0.5) = (y = 1) THEN 1 ELSE 0 END) FROM vc_bench GROUP BY 1")
        t_plain, _ = _best(lambda: conn.execute(plain).fetchall(), args.repeat)
        t_full, _ = _best(lambda: conn.execute(full).fetchall(), args.repeat)
        floors = []
        if args.floors:  # what any exact AUC costs here: the rows in score order, and a running sum over them
            sort = "SELECT COUNT(*) FROM (SELECT p, y FROM vc_bench ORDER BY p OFFSET 0) AS s"
            window = ("SELECT SUM(y * below) FROM (SELECT y, SUM(1 - y) OVER (ORDER BY p ROWS BETWEEN UNBOUNDED "
                      "PRECEDING AND CURRENT ROW) AS below FROM vc_bench) AS s")
            sort_mem = f"{_connect.SORT_WORK_MEM // 2**20}MB"
            for mem in (None, sort_mem):
                if mem is not None:
                    conn.execute("SELECT set_config('work_mem', %s, false)", (mem,))
                tag = f"work_mem {mem or work_mem}"
                floors += [(f"PostgreSQL sort by score ({tag})", _best(lambda: conn.execute(sort).fetchall(),
                                                                       args.repeat)[0]),
                           (f"  + running sum, floor ({tag})", _best(lambda: conn.execute(window).fetchall(),
                                                                     args.repeat)[0])]
            conn.execute("SELECT set_config('work_mem', %s, false)", (work_mem,))

        weight = "w" if args.weights else None
        # warm-up: the first audit imports sqlglot and its dialects (about a second), not the audit's cost
        conn.execute("CREATE TEMP TABLE vc_warm AS SELECT p, y, w FROM vc_bench LIMIT 100")
        vc.audit_sql(conn, table="vc_warm", score="p", label="y", sample_weight=weight, bins=m)
        conn.execute("DROP TABLE vc_warm")
        t_audit, result = _best(lambda: vc.audit_sql(conn, table="vc_bench", score="p", label="y",
                                                     sample_weight=weight, bins=m), args.repeat)
        db = open_database(conn)
        cols = _columns(db, "vc_bench", "p", "y", weight, None, None)
        rows_route = _rows_route(db, cols)
        t_sums, _ = _best(lambda: _sums(db, cols, score_type="probability", threshold=0.5, bins=m, n=0,
                                        edges=uniform_edges(m), strategy="uniform", grouped=False, screen=True,
                                        rows=rows_route), args.repeat)
        t_untuned = None
        if args.untuned:  # before the tuning: the default work_mem, the score itself as the sort key
            tuned = (_connect.SORT_WORK_MEM, _query._INTEGER_KEY)
            _connect.SORT_WORK_MEM, _query._INTEGER_KEY = 0, frozenset()
            try:
                t_untuned, _ = _best(lambda: vc.audit_sql(conn, table="vc_bench", score="p", label="y",
                                                          sample_weight=weight, bins=m), args.repeat)
            finally:
                _connect.SORT_WORK_MEM, _query._INTEGER_KEY = tuned
        t_other = None
        if args.both_routes:
            share = _query.ROWS_SHARE
            _query.ROWS_SHARE = 2.0 if rows_route else 0.0  # force the other route
            try:
                t_other, _ = _best(lambda: vc.audit_sql(conn, table="vc_bench", score="p", label="y",
                                                        sample_weight=weight, bins=m), args.repeat)
            finally:
                _query.ROWS_SHARE = share
        db.fetched = 0
        vc.audit_sql(_Counted(conn, db), table="vc_bench", score="p", label="y", sample_weight=weight, bins=m,
                     dialect="postgres")

        print(f"\n{'':44s}{'seconds':>10s}{'vs GROUP BY':>14s}")
        route, other = ("rows", "values") if rows_route else ("values", "rows")
        rows = [("PostgreSQL GROUP BY (count, Σp, Σy)", t_plain), ("PostgreSQL GROUP BY, every audit sum", t_full),
                *floors, (f"vc.audit_sql ({route} route)", t_audit), ("  its one pass over the rows", t_sums)]
        if t_other is not None:
            rows.append((f"vc.audit_sql forced ({other} route)", t_other))
        if t_untuned is not None:
            rows.append(("vc.audit_sql untuned (4MB, float key)", t_untuned))
        for name, t in rows:
            print(f"{name:44s}{t:10.3f}{t / t_plain:13.2f}x")
        print(f"\nrows fetched by one audit_sql: {_Counted.rows}   ECE {result.ece:.5f}   AUC {result.auc:.6f}")
        print(f"audit_sql / GROUP BY = {t_audit / t_plain:.2f}x (target <= 2x); "
              f"audit_sql / GROUP BY with every sum = {t_audit / t_full:.2f}x")
        conn.execute("DROP TABLE vc_bench")
        conn.close()
    finally:
        if server is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                server.cleanup()


class _Counted:
    """A connection whose cursors count the rows fetched (class-level total)."""

    rows = 0

    def __init__(self, conn: Any, db: Any) -> None:
        self._conn = conn

    @property
    def autocommit(self) -> Any:  # the connection's own: the same work_mem as an audit of conn
        return self._conn.autocommit

    def cursor(self) -> Any:
        outer = self

        class Cur:
            def __init__(self) -> None:
                self._c = outer._conn.cursor()

            def execute(self, sql: str) -> None:
                self._c.execute(sql)

            @property
            def description(self) -> Any:
                return self._c.description

            def fetchall(self) -> list:
                rows = self._c.fetchall()
                _Counted.rows += len(rows)
                return rows

            def close(self) -> None:
                self._c.close()

        return Cur()


if __name__ == "__main__":
    main()
