"""The fuzz tests' shared case generator, :mod:`hostile_frames`, importable by name from both test
files (the suite runs with ``--import-mode=importlib``, which puts no test folder on ``sys.path``)."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
