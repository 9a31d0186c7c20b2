"""Run the bundled demonstrations.

    veracity demo          # audit + calibrate the bundled data, then every seed demo
    veracity demo audit    # only the bundled-data walk-through
    veracity demo kg       # seed 000: knowledge-graph calibration audit
    veracity demo splits   # seed 003: train/val/calib/test split discipline
"""

from __future__ import annotations

import argparse
import importlib

#: demo name -> module in veracity.demos exposing main(args) -> int
DEMOS = {"audit": "audit", "kg": "kg", "splits": "splits"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", default="all", choices=["all", *DEMOS],
                        help="which demo to run (default: all)")
    parser.add_argument("--plots", metavar="DIR", default=None,
                        help="write the demo's figures as PNG files into DIR")


def _available() -> list[str]:
    names = []
    for name, module in DEMOS.items():
        try:
            importlib.import_module(f"veracity.demos.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"veracity.demos.{module}":
                continue
            raise
        names.append(name)
    return names


def run(args: argparse.Namespace) -> int:
    names = _available() if args.name == "all" else [args.name]
    for i, name in enumerate(names):
        if i:
            print("\n" + "=" * 78 + "\n")
        module = importlib.import_module(f"veracity.demos.{DEMOS[name]}")
        status = module.main(args)
        if status:
            return int(status)
    return 0
