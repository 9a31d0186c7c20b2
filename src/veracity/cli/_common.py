"""Options and helpers shared by the sub-commands."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .. import io
from ..datasets import demo_path


def add_input_arguments(parser: argparse.ArgumentParser, *, file_optional: bool = True) -> None:
    """FILE, --score, --label, --weight, --score-type (defaults fit the bundled demo data)."""
    if file_optional:
        parser.add_argument(
            "file", nargs="?", default=None,
            help="CSV or Parquet file of scored rows (default: the bundled demo data)",
        )
    else:
        parser.add_argument("file", help="CSV or Parquet file of scored rows")
    parser.add_argument("--score", default="score",
                        help="score column, or comma-separated columns for (N, K) multiclass (default: score)")
    parser.add_argument("--label", default="label", help="label column (default: label)")
    parser.add_argument("--weight", default=None, help="optional sample-weight column")
    parser.add_argument("--score-type", default="probability", choices=["probability", "logit"],
                        help="are the scores probabilities or logits? (default: probability)")


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", metavar="PATH|-", default=None,
                        help="also write the result as JSON to PATH ('-' for stdout only)")


def load(args: argparse.Namespace) -> tuple[Any, str]:
    """The table named by ``args.file`` (or the demo data) and its display path."""
    path = args.file if args.file is not None else demo_path()
    return io.read_table(path), str(path)


def inputs(table: Any, args: argparse.Namespace, path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    scores = io.score_matrix(table, args.score, path=path)
    labels = io.column(table, args.label, path=path)
    weights = io.column(table, args.weight, path=path) if args.weight else None
    return scores, labels, weights


def _clean(value: Any) -> Any:
    """JSON-safe: NaN/inf become null, numpy scalars become Python numbers."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return _clean(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def emit(args: argparse.Namespace, text: str, payload: dict[str, Any]) -> None:
    """Print ``text``; with ``--json -`` print JSON instead; with ``--json PATH`` write it too."""
    target = getattr(args, "json", None)
    doc = json.dumps(_clean(payload), indent=2, allow_nan=False)
    if target == "-":
        sys.stdout.write(doc + "\n")
        return
    print(text)
    if target:
        Path(target).write_text(doc + "\n")
        print(f"(JSON written to {target})")
