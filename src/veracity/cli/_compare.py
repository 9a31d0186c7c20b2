"""Before/after ledger of a saved calibrator on evaluation rows it never saw.

ECE, NLL, Brier, accuracy at 0.5 and AUC before and after, whether the method
can move each, regressions printed, and the order-preservation certificates
(stable argsort, AUC bit-identical, 0.5 decisions). Example:

    veracity compare --calibrator cal.json --role-col role --eval-role test
"""

from __future__ import annotations

import argparse

from ..core._validation import VeracityError
from ..calibrators import compare
from ..calibrators import load as load_calibrator
from ._common import add_input_arguments, add_json_argument, emit, inputs, load, shown_path
from ._fit import add_pos_label_argument, apply_pos_label, select_role


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.set_defaults(score=None, score_type=None)
    parser.add_argument("--calibrator", required=True, help="JSON artifact written by `veracity fit`")
    parser.add_argument("--role-col", default=None, help="column holding each row's split role")
    parser.add_argument("--eval-role", default="test",
                        help="measure on the rows of this role (default: test)")
    parser.add_argument("--bins", type=int, default=15, help="ECE bins (default: 15)")
    add_pos_label_argument(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    cal = load_calibrator(args.calibrator)
    args.score = args.score or cal.metadata.get("score_column") or "score"
    if args.score_type is not None and args.score_type != cal.score_type:
        raise VeracityError(
            f"the calibrator was fit on {cal.score_type} scores but --score-type is "
            f"{args.score_type}; pass scores of the kind it was fit on")
    table, path = load(args)
    scores, labels, weights = inputs(table, args, path)
    if args.pos_label is None and cal.metadata.get("pos_label") is not None:
        args.pos_label = str(cal.metadata["pos_label"])
    labels = apply_pos_label(labels, args.pos_label)
    mask = select_role(table, args, path, args.eval_role)
    if mask is not None:
        fit_role = cal.metadata.get("role")
        if fit_role and args.eval_role in str(fit_role).split(","):
            raise VeracityError(
                f"the calibrator was fit on role {fit_role!r}; measuring it on the same role "
                f"flatters it. Pass --eval-role test (rows it never saw)")
        scores, labels = scores[mask], labels[mask]
        weights = None if weights is None else weights[mask]
    ledger = compare(scores, labels, cal, bins=args.bins, sample_weight=weights)
    where = f" (role {args.eval_role!r})" if mask is not None else ""
    emit(args, str(ledger), {"file": shown_path(args, path), "calibrator": args.calibrator, **ledger.to_dict()},
         note_text=f"{shown_path(args, path)}{where}")
    return 0
