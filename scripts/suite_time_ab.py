"""Did a change make the test suite slower? The same tests, timed on the old code and the new.

    python scripts/suite_time_ab.py BASE [NEW]      # e.g. a5a3d2a (default NEW: HEAD)

Checks out BASE and NEW into temporary worktrees, then runs BASE's own test suite twice,
back to back, with this checkout's virtual environment: once importing BASE's code, once
NEW's (``PYTHONPATH``). A suite that grew because new capabilities brought new tests says
nothing about whether a refactor slowed the old ones; this does. Prints the wall times and
the summed per-test times over the tests that pass on both (tests that exercise names the
new code renamed or deprecated fail there and are left out, and counted).

The machine should be otherwise idle: the two runs are compared with each other.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _times(junit: Path) -> dict[str, tuple[float, bool]]:
    """test id -> (seconds, passed) from a junit file."""
    out = {}
    for case in ET.parse(junit).iter("testcase"):
        passed = not any(child.tag in ("failure", "error", "skipped") for child in case)
        out[f"{case.get('classname')}::{case.get('name')}"] = (float(case.get("time") or 0.0), passed)
    return out


def _run(tests_tree: Path, code_tree: Path, junit: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(code_tree / "src"))
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "tests", "-q",
                    "-p", "no:cacheprovider", f"--junitxml={junit}", "-o", "junit_family=xunit1"],
                   cwd=tests_tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.monotonic() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("new", nargs="?", default="HEAD")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="suite-ab-") as tmp:
        trees = {}
        for name, rev in (("base", args.base), ("new", args.new)):
            trees[name] = Path(tmp) / name
            subprocess.run(["git", "worktree", "add", "--detach", str(trees[name]), rev], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            walls, runs = {}, {}
            for name in ("base", "new"):
                junit = Path(tmp) / f"{name}.xml"
                walls[name] = _run(trees["base"], trees[name], junit)
                runs[name] = _times(junit)
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    old, new = runs["base"], runs["new"]
    both = [k for k in old if k in new and old[k][1] and new[k][1]]
    lost = [k for k in old if old[k][1] and not (k in new and new[k][1])]
    s_old, s_new = sum(old[k][0] for k in both), sum(new[k][0] for k in both)
    print(f"{args.base}'s tests: {len(old)} collected; {len(both)} pass on both codes, {len(lost)} only on the base")
    print(f"wall:   base code {walls['base']:7.1f} s   new code {walls['new']:7.1f} s")
    print(f"summed over the {len(both)} tests passing on both: base {s_old:7.1f} s   new {s_new:7.1f} s   "
          f"ratio {s_new / s_old:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
