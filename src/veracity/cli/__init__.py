"""The ``veracity`` command line.

Each sub-command lives in its own module ``veracity.cli._<name>`` exposing
``add_arguments(parser)`` and ``run(args) -> int``. Library errors
(:class:`~veracity.VeracityError`) become a one-line message and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..core._validation import VeracityError
from .._version import __version__

#: sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("_audit", "audit calibration of a scored CSV/Parquet file"),
    "fit": ("_fit", "fit a calibrator on held-out rows and save it as JSON"),
    "apply": ("_apply", "apply a saved calibrator to a file"),
    "compare": ("_compare", "before/after ledger of a calibrator on evaluation rows"),
    "threshold": ("_threshold", "choose a decision threshold (cost, recall, budget)"),
    "conformal": ("_conformal", "split-conformal prediction sets"),
    "monitor": ("_monitor", "calibration over time windows"),
    "report": ("_report", "self-contained HTML report"),
    "demo": ("_demo", "run the bundled demonstrations"),
}


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and one line, like every veracity error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="veracity",
        description="Honest probabilities: audit, repair, decide, monitor.",
    )
    parser.add_argument("--version", action="version", version=f"veracity {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module_name, help_text) in COMMANDS.items():
        try:
            module = importlib.import_module(f"{__name__}.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{module_name}":
                continue  # command not built yet
            raise
        cmd = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip())
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        from ._common import check_paths

        check_paths(args)  # every output path, before any work
        return int(args._run(args) or 0)
    except VeracityError as exc:
        message = str(exc).replace("pass score_type='logit'", "pass --score-type logit")
        message = message.replace("\r", "\\r").replace("\n", "\\n")  # always one line
        print(f"veracity {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `veracity audit ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
