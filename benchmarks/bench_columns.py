"""Peak memory of the in-memory CLI audit: a wide file costs what its two used columns cost.

Not a test. Writes a CSV of N rows (default 1e6) with 42 columns (score, label and 40
unrelated numeric columns) and the same rows with only the two needed columns, runs
``veracity audit FILE --score p --label y --engine memory`` on each in a fresh process
and prints each run's peak RSS and their ratio (issue 13's target: within 1.5x).

    python benchmarks/bench_columns.py [N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

_PEAK = (
    "import resource, subprocess, sys; "
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
    "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def _write(path: Path, n: int, extra: int, rng: np.random.Generator) -> None:
    p = np.round(rng.uniform(size=n), 6)
    cols = {"p": p, "y": (rng.uniform(size=n) < p).astype(np.int8)}
    for j in range(extra):
        cols[f"x{j:02d}"] = np.round(rng.normal(size=n), 4)
    pacsv.write_csv(pa.table(cols), path)


def _peak_mb(path: Path) -> tuple[float, float]:
    cli = [sys.executable, "-m", "veracity.cli", "audit", str(path), "--score", "p", "--label", "y",
           "--engine", "memory", "--quiet"]
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _PEAK, *cli], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    code, kib = out.stdout.split()
    if code != "0":
        raise SystemExit(f"veracity audit exited {code} on {path}")
    return int(kib) / 1024, wall


def main(n: int = 1_000_000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wide, narrow = Path(tmp) / "wide.csv", Path(tmp) / "narrow.csv"
        _write(wide, n, 40, np.random.default_rng(0))
        _write(narrow, n, 0, np.random.default_rng(0))  # same p and y
        rows = []
        for name, path in (("2 columns", narrow), ("42 columns", wide)):
            mb, wall = _peak_mb(path)
            rows.append((name, path.stat().st_size / 2**20, mb, wall))
    print(f"in-memory CLI audit, N = {n:,} rows")
    print(f"{'file':<12}{'size MB':>10}{'peak RSS MB':>14}{'wall s':>9}")
    for name, size, mb, wall in rows:
        print(f"{name:<12}{size:>10.0f}{mb:>14.0f}{wall:>9.2f}")
    print(f"ratio 42 / 2 columns: {rows[1][2] / rows[0][2]:.2f}x  (target <= 1.5x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="?", type=float, default=1e6, help="rows in each file (default 1e6)")
    main(int(parser.parse_args().rows))
