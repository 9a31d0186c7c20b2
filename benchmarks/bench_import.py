"""Import time of ``import veracity`` (not a test): median of fresh interpreters.

Run: ``python benchmarks/bench_import.py [repeats]``. Prints the median wall time of
``python -c "import veracity"`` minus that of ``python -c "import numpy"`` (the floor
every numpy library pays), and the slowest modules from ``-X importtime``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def _wall(code: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(repeats: int = 7) -> None:
    base = _wall("pass", repeats)
    numpy = _wall("import numpy", repeats)
    veracity = _wall("import veracity", repeats)
    print(f"interpreter start   {base:6.3f} s")
    print(f"import numpy        {numpy - base:6.3f} s")
    print(f"import veracity     {veracity - base:6.3f} s   (target < 0.5 s; {repeats} runs, median)")
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import veracity"], capture_output=True, text=True
    ).stderr.splitlines()
    rows = [line.split("|") for line in out if line.startswith("import time:") and "cumulative" not in line]
    top = sorted(rows, key=lambda r: -int(r[1]))[:8]
    print("slowest (cumulative µs):")
    for row in top:
        print(f"  {int(row[1]):>9}  {row[2].rstrip()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repeats", nargs="?", type=int, default=7, help="fresh interpreters per timing (default 7)")
    main(parser.parse_args().repeats)
