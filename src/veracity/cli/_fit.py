"""Fit a calibrator on held-out calibration rows and save it as a JSON artifact.

The artifact records the method, fitted parameters and provenance (model
revision, score type, fit window, cohort, rows, classes, a hash of the fit data,
the split role, library version). Rows whose role is test or train are refused
(a calibrator is itself a model; seed 003). Example on the bundled demo data:

    veracity fit --method temperature --score logit --score-type logit \\
        --role-col role --fit-role calib --model-revision demo-1 --out cal.json
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from .. import io
from ..core._validation import VeracityError
from ..calibrators import METHODS
from ._common import add_input_arguments, add_json_argument, emit, inputs, load, note
from ._labels import add_pos_label_argument, apply_pos_label  # noqa: F401  (also imported from here)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--method", required=True, choices=sorted(METHODS),
                        help="calibration method")
    parser.add_argument("--role-col", default=None,
                        help="column holding each row's split role (train/val/calib/test)")
    parser.add_argument("--fit-role", default="calib",
                        help="fit on the rows of this role (default: calib)")
    parser.add_argument("--allow-role", default=None,
                        help="explicitly allow fitting on a 'test' or 'train' role (recorded)")
    parser.add_argument("--model-revision", default=None, help="base model revision (recorded)")
    parser.add_argument("--fit-window", default=None, help="fit period, e.g. 2026-01..2026-03 (recorded)")
    parser.add_argument("--cohort", default=None, help="cohort the rows come from (recorded)")
    parser.add_argument("--bins", type=int, default=10, help="histogram bins (default: 10)")
    parser.add_argument("--ties", default="allow", choices=["allow", "strict"],
                        help="isotonic tie policy (default: allow)")
    add_pos_label_argument(parser)
    parser.add_argument("--out", required=True, help="path of the JSON artifact to write")
    add_json_argument(parser)


def select_role(table: Any, args: argparse.Namespace, path: str, role: str) -> np.ndarray | None:
    """Boolean mask of the rows whose ``--role-col`` equals ``role`` (None without --role-col)."""
    if not args.role_col:
        return None
    roles = io.column(table, args.role_col, path=path).astype(str)
    mask = roles == role
    if not mask.any():
        values = ", ".join(sorted(set(roles.tolist()))[:10])
        raise VeracityError(
            f"no rows with role {role!r} in column {args.role_col!r} of {path} "
            f"(values: {values}); pick one of those roles"
        )
    return mask


def run(args: argparse.Namespace) -> int:
    table, path = load(args)
    scores, labels, weights = inputs(table, args, path)
    labels = apply_pos_label(labels, args.pos_label, scores=scores)
    mask = select_role(table, args, path, args.fit_role)
    role = args.fit_role if mask is not None else None
    if mask is not None:
        scores, labels = scores[mask], labels[mask]
        weights = None if weights is None else weights[mask]
    cls = METHODS[args.method]
    kwargs: dict[str, Any] = {"score_type": args.score_type}
    if args.method == "histogram":
        kwargs["bins"] = args.bins
    if args.method == "isotonic":
        kwargs["ties"] = args.ties
    cal = cls(**kwargs)
    meta = {
        "model_revision": args.model_revision,
        "fit_window": args.fit_window,
        "cohort": args.cohort,
        "source_file": path,
        "score_column": args.score,
        "label_column": args.label,
        "role_column": args.role_col,
    }
    if args.pos_label is not None:
        meta["pos_label"] = args.pos_label
    try:
        cal.fit(scores, labels, sample_weight=weights, role=role, allow_role=args.allow_role,
                metadata=meta)
    except VeracityError as exc:
        msg = str(exc)
        for r in ("test", "train"):
            msg = msg.replace(f"pass allow_role={r!r}", f"pass --allow-role {r}")
        raise VeracityError(msg) from None
    out = Path(args.out)
    try:
        cal.save(out)
    except OSError as exc:
        raise VeracityError(f"could not write {out}: {exc.strerror or exc}; check the path") from None
    rows = cal.metadata["n_rows"]
    where = f" (role {role!r})" if role else " (no --role-col: all rows)"
    shown = getattr(cal, "_ovr", None) or cal  # (N, K) scores: the one-vs-rest form
    # stdout: the fitted map; stderr: which file was read and where the artifact went
    emit(args, str(shown), {"file": path, "out": str(out), **cal.to_dict()},
         note_text=f"{path}: fit {cal.name} on {rows} rows{where}")
    note(args, f"saved to {out}")
    return 0
