"""Run the bundled demonstrations.

    veracity demo          # audit + calibrate the bundled data, then the two studies below
    veracity demo audit    # only the bundled-data walk-through
    veracity demo kg       # the knowledge-graph example: calibration audit of a link predictor
    veracity demo splits   # the train/calibration/test study: what each split may decide
"""

from __future__ import annotations

import argparse
import importlib
import os

#: demo name -> module in veracity.demos exposing main(args) -> int
DEMOS = {"audit": "audit", "kg": "kg", "splits": "splits"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", default="all", choices=["all", *DEMOS],
                        help="which demo to run (default: all)")
    parser.add_argument("--plots", metavar="DIR", default=None,
                        help="write the demo's figures as PNG files into DIR")
    from ._common import add_json_argument

    add_json_argument(parser)


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
    import contextlib
    import sys

    from ._common import emit
    from ._progress import tick

    from ..core._validation import VeracityError

    if args.plots is not None and not args.plots.strip():  # read as '.', the figures landed in the current folder
        raise VeracityError("--plots needs a folder path for the figures, got an empty one; pass --plots . for "
                            "the current folder")
    if args.plots is not None and os.path.exists(args.plots) and not os.path.isdir(args.plots):
        raise VeracityError(f"--plots {args.plots} is a file; pass a folder for the figures (it is created "
                            "if missing)")
    names = _available() if args.name == "all" else [args.name]
    status = 0
    # with --json - the narrative goes to stderr and stdout carries only the JSON summary; --json PATH also
    # writes it (the narrative stays on stdout, as every command's table does)
    quiet_stdout = contextlib.redirect_stdout(sys.stderr) if args.json == "-" else contextlib.nullcontext()
    with quiet_stdout:
        for i, name in enumerate(names):
            if i:
                print("\n" + "=" * 78 + "\n")
            tick(f"demo {name}")
            module = importlib.import_module(f"veracity.demos.{DEMOS[name]}")
            status = int(module.main(args) or 0)
            if status:
                break
    if args.json:
        emit(args, "", {"demos": names, "status": status, "plots": args.plots})
    return status
