"""Split-conformal prediction sets: fit q̂ on one role (calib), report coverage on both.

    veracity conformal data.csv --score p0,p1,p2 --label y --alpha 0.1
    veracity conformal data.csv --score p0,p1,p2 --label y --alpha 0.1 --mondrian --method aps
    veracity conformal data.csv --score p0,p1,p2 --label y --alpha 0.05 --method raps --randomized

q̂ is the ceil((n+1)(1-alpha))-th smallest calib score (LAC: 1 - p_true; APS:
mass of the classes ranked at or above the true one); a class enters the set when
its score <= q̂ (per class with --mondrian). A single --score column is read as
the probability of class 1 of a binary problem (--pos-label names the label value of
class 1 when the labels are not 0/1, e.g. --pos-label yes). Rows of probabilities must sum to 1.
--randomized --random-state S measures every role with the draws that follow fit's: each role's sets are
those of Python's ConformalClassifier(..., randomized=True, random_state=S).fit(calib rows), then
.coverage(role rows).
--sample-weight weighs the rows (q̂ by the weighted rule; coverage, mean set size and empty sets
weighted; the count column and the set-size tally stay counts of rows).
Alone it counts each measured row at the size-biased mean calib weight sum w^2 / sum w, or more
where heavy calib rows lie above q̂ (W / the effective size of the weighted share at or below q̂, when that
is below Kish's; exact for equal weights, an approximation for uneven ones, refused when the calib weights'
effective number is below the rows the +1 correction needs: 9 at alpha 0.1). Covariate shift, exactly
(Tibshirani et al. 2019): --sample-weight holds the calib rows' likelihood ratios
w(x) = dP_test/dP_calib and --test-weight COL each measured row's own w(x)
(usually the same column), which gives every row its own q̂:

    veracity conformal data.csv --score p0,p1 --label y --sample-weight w --test-weight w

With --test-weight the measured rows are read as draws of the shifted distribution: --sample-weight
then weighs the calib (fit) rows only, and coverage and set sizes count every measured row once.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import numpy as np

from ..core._validation import VeracityError, check_logit_scale, check_weights
from ..decisions import ConformalClassifier, conformal_coverage_law
from ..decisions._conformal import _check_test_weight, _prob_matrix
from ..decisions._table import threshold_cell
from ._common import (add_input_arguments, add_json_argument, emit, inputs, load, or_default, refuse_unused,
                      shown_path)
from ._labels import add_pos_label_argument, apply_pos_label
from ._bad_rows import file_rows, first_bad_row, not_binary, on_fit_rows, on_role_rows
from ._rows import roles_named, used_rows
from ._threshold import add_role_arguments, role_masks


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, no_ranking="the sets are built from class probabilities")
    parser.add_argument("--alpha", type=float, default=0.1,
                        help="miscoverage level in (0, 1); sets cover the true class with probability >= "
                             "1 - alpha (default: 0.1)")
    parser.add_argument("--method", default="lac", choices=["lac", "aps", "raps"],
                        help="nonconformity score (default: lac; raps: regularised APS, Angelopoulos et al. 2021)")
    parser.add_argument("--randomized", action="store_true", help="randomised APS/RAPS (with --method aps|raps)")
    parser.add_argument("--lam", type=float, default=None,
                        help="RAPS penalty per class beyond --k-reg (default: 0.01)")
    parser.add_argument("--k-reg", dest="k_reg", type=int, default=None,
                        help="RAPS: classes allowed before the penalty starts (default: 1)")
    # None: not given (without --randomized nothing is drawn, and a seed that changes nothing is refused)
    parser.add_argument("--random-state", dest="seed", type=int, default=None,
                        help="random_state for --randomized (default: 0)")
    parser.add_argument("--seed", dest="seed", type=int, default=None, help=argparse.SUPPRESS)  # old name, hidden
    parser.add_argument("--mondrian", action="store_true", help="one q̂ per class (class-conditional coverage)")
    parser.add_argument("--test-weight", dest="test_weight", default=None, metavar="COL",
                        help="column of each measured row's own likelihood ratio w(x) = dP_test/dP_calib: its own "
                             "q̂ by the exact covariate-shift rule (Tibshirani et al. 2019); needs --sample-weight "
                             "(the calib rows' w(x), usually the same column), which then weighs the calib rows "
                             "only: coverage counts every measured row once")
    add_pos_label_argument(parser)
    add_role_arguments(parser)
    add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.method != "raps" and (args.lam is not None or args.k_reg is not None):
        flag = "--lam" if args.lam is not None else "--k-reg"
        raise VeracityError(f"{flag} sets the RAPS penalty and is ignored by --method {args.method}; "
                            f"pass --method raps, or drop {flag}")
    if args.randomized and args.method == "lac":
        raise VeracityError("--randomized applies to --method aps or raps, not lac; pass --method aps, "
                            "or drop --randomized")
    if not args.randomized:  # only the randomised APS/RAPS sets draw random numbers
        refuse_unused({"--random-state": args.seed is not None},
                      "without --randomized (only randomised APS/RAPS sets draw random numbers); "
                      "add --randomized with --method aps or raps, or drop {it}")
    _check_test_weight_flag(args)
    lam = 0.01 if args.lam is None else args.lam
    k_reg = 1 if args.k_reg is None else args.k_reg
    table, path = load(args)
    role_col, masks = role_masks(table, args, path)
    # only the rows of the fit and eval roles are read and checked (rows of other roles may hold missing
    # values), an error naming the row's data row in FILE; a score column of text is refused on every row
    used = None if role_col is None else np.logical_or.reduce(list(masks.values()))
    table = used_rows(table, args, used)
    masks = masks if used is None else {role: m[used] for role, m in masks.items()}
    with file_rows(used, roles_named(role_col, args.fit_role, args.eval_role)):
        scores, labels, weights = inputs(table, args, path)
        t = None if args.test_weight is None else _test_weights(table, args.test_weight, path)
        labels = apply_pos_label(labels, args.pos_label, label=args.label, scores=scores)  # binary: class 1 = --pos-label
        fit_name = args.fit_role if role_col else "all"
        fit = masks[fit_name]
        P = np.asarray(scores, dtype=np.float64)
        y = np.asarray(labels)
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        if args.score_type == "logit" and P.ndim == 1:
            # one binary column of probabilities declared logits was read through the sigmoid (every p in
            # [0.5, 0.73]), silently: refused as fit, apply and audit refuse it (multiclass: by the library)
            check_logit_scale(P[fit])
        _check_rows(P, y, w, t, fit, args.score_type, lambda: on_fit_rows(role_col, fit_name, int(fit.sum())))
    cp = ConformalClassifier(alpha=args.alpha, score=args.method, mondrian=args.mondrian, randomized=args.randomized,
                             random_state=or_default(args.seed, 0), score_type=args.score_type, lam=lam, k_reg=k_reg)
    cp._check_options()  # --alpha, --lam, --k-reg: errors about the flags, not about the fit rows
    with on_fit_rows(role_col, fit_name, int(fit.sum())):
        cp.fit(P[fit], y[fit], sample_weight=None if w is None else w[fit])
        if t is None:  # the sets use q̂: calib weights too uneven for the +1 rule refuse (--test-weight not)
            cp.check_qhat()
    # with --test-weight the measured rows are draws of the shifted distribution: each counted once
    reports = {}
    # randomised APS/RAPS: every role measured with the draws that follow fit's, as Python's first call after
    # fit(calib) takes them (the test role read draws the calib role had advanced: other sets than
    # fit(calib).coverage(test) on the same seed)
    draws = cp._rng.bit_generator.state
    for role, m in masks.items():
        cp._rng.bit_generator.state = draws
        with _on_measured_rows(role_col, role, int(m.sum())):
            reports[role] = cp.coverage(P[m], y[m], sample_weight=None if w is None or t is not None else w[m],
                                        test_weight=None if t is None else t[m])
            if P.ndim == 1 and args.pos_label is not None:  # class 1 is --pos-label: the table names it so
                reports[role] = replace(reports[role], pos_label=args.pos_label)
    # the Beta law is that of one q̂ from n equally weighted rows; Mondrian has one per class, of n_c rows,
    # and its marginal coverage mixes the class laws by the class shares (not the law of one q̂ from n rows)
    law = cp._marginal_law()
    laws = [conformal_coverage_law(int(n_c), args.alpha) for n_c in cp.class_n_] if args.mondrian else []
    theory = f"theory: {law}"
    if laws:
        theory += "\ntheory per class: " + "; ".join(
            f"class {c} coverage ~ Beta({lw.a:g}, {lw.b:g}), 90% of calib draws give "
            f"{lw.interval(0.9)[0]:.3f}-{lw.interval(0.9)[1]:.3f} (n={lw.n})" for c, lw in enumerate(laws))
    uneven = t is not None or (w is not None and not (w[fit][w[fit] > 0].min() == w[fit].max()))
    caveat = "for equally weighted rows; the weighted q̂ follows no such law"
    if uneven:
        theory += f" [{caveat}]"
    same = " (the same rows: optimistic)" if role_col and args.fit_role == args.eval_role else ""
    where = (f"fit on {role_col} == {args.fit_role!r} ({cp.n_calib_} rows), measured on {args.eval_role!r}{same}"
             if role_col else "no role column: fit and measured on the same rows (optimistic)")
    # every digit q̂ needs (threshold_cell): a rounded q̂ copied back would build other sets
    qline = (f"per-class q̂ {', '.join(threshold_cell(q, decimals=False) for q in cp.class_qhat_)}"
             if args.mondrian else f"q̂ = {threshold_cell(cp.qhat_, decimals=False)}")
    refusal = getattr(cp, "_qhat_refusal", None)  # the weighted +1 rule refused: q̂ = inf, kept by fit
    if t is not None:
        if refusal is not None:  # "q̂ = inf" alone read as a fitted value
            qline += " (refused: the calib weights' Kish effective number is below the +1 correction's minimum)"
        qline += (f" (the rule without --test-weight); every measured row uses its own q̂ from its "
                  f"--test-weight {args.test_weight!r} (exact covariate-shift rule; the median qhat column: "
                  "each class's median of them) and counts once (--sample-weight weighs the calib rows only)")
    elif w is not None and not (w[fit][w[fit] > 0].min() == w[fit].max()):
        qline += (" (weighted: each measured row counted at the size-biased mean calib weight sum w^2 / "
                  "sum w, or more where heavy calib rows lie above q̂; --test-weight COL gives each row its "
                  "own likelihood ratio, the exact covariate-shift rule)")
    parts = [
        f"split conformal ({args.method}{', randomised' if args.randomized else ''}"
        f"{', Mondrian' if args.mondrian else ''}), alpha = {args.alpha:g}: {qline}",
        where,
        theory,
    ]
    for role, rep in reports.items():
        parts.append(f"\n[{role}]\n{rep}")
    # what the text says beside q̂ and the law, the JSON says too: a q̂ of "Infinity" read as a fitted value
    # (every class in every set) where the rule was refused and each row used its own q̂, and the law as the
    # one the weighted sets follow
    payload = {
        "file": path, "score": args.score, "label": args.label, "conformal": cp.to_dict(),
        **({"test_weight": args.test_weight} if t is not None else {}),
        # (its advice to pass test_weight= is moot here: --test-weight is given)
        **({"qhat_refused": refusal.split("; or pass test_weight=")[0]} if t is not None and refusal else {}),
        "role_col": role_col, "fit_role": fit_name, "eval_role": args.eval_role if role_col else "all",
        "coverage_law": law.to_dict(),
        **({"coverage_law_caveat": caveat} if uneven else {}),
        **({"class_coverage_laws": [lw.to_dict() for lw in laws]} if laws else {}),
        "roles": {role: rep.to_dict() for role, rep in reports.items()},
    }
    emit(args, "\n".join(p for p in parts if p), payload, note_text=shown_path(args, path))
    return 0


def _check_rows(P: np.ndarray, y: np.ndarray, w: np.ndarray | None, t: np.ndarray | None, fit: np.ndarray,
                score_type: str, fit_rows: Callable[[], AbstractContextManager[None]]) -> None:
    """The library's checks of labels, probability rows, weights and test weights, once on every row used
    (fit and measured: an error counts them all, not one role's), naming the first offending row's data
    row (fit and coverage checked each role apart, "1 of 327 are not", and named a multiclass row that
    does not sum to 1 by its 0-based position among one role's rows). ``--sample-weight`` counts on the
    fit rows only when ``--test-weight`` is given, and its errors then say so (``fit_rows()``)."""
    if P.ndim == 1:
        wrong = not_binary(y)
    else:
        k = P.shape[1]
        yf = np.asarray(y, dtype=np.float64) if y.dtype.kind in "biuf" else None
        wrong = None if yf is None else ~((yf == np.round(yf)) & (yf >= 0) & (yf <= k - 1))
    weighed = None if w is None else (w < 0) & (fit if t is not None else True)
    outside = np.asarray((P < 0) | (P > 1)) if P.ndim == 1 else np.asarray(((P < 0) | (P > 1)).any(axis=1))
    with first_bad_row(labels=wrong, pos_label=wrong, sample_weight=weighed, out_of_range=outside,
                       test_weight=None if t is None else t < 0):
        _prob_matrix(P, y, score_type)
        if w is not None and t is None:
            check_weights(w, w.shape[0])
        elif w is not None:
            with fit_rows():
                check_weights(w[fit], int(fit.sum()))
        if t is not None:
            _check_test_weight(t, t.shape[0], 0)


@contextmanager
def _on_measured_rows(role_col: str | None, role: str, n: int) -> Iterator[None]:
    """An error of the coverage on one measured role (declared logits that all lie in [0, 1] there)
    says which rows it is about: "all 100 lie in [0, 1]" of a 200-row column read as a miscount.
    Without a role column the measured rows are every row: unchanged."""
    with on_role_rows(role_col, role, n, "measured on"):
        yield


def _check_test_weight_flag(args: argparse.Namespace) -> None:
    """--test-weight: a column name, with --sample-weight (the calib rows' w(x)), neither score nor label."""
    name = args.test_weight
    if name is None:
        return
    if name == "":
        raise VeracityError("--test-weight needs a column name, got an empty one")
    if not args.weight:
        raise VeracityError("--test-weight (each row's likelihood ratio w(x)) needs --sample-weight, the "
                            "calib rows' w(x) in the same units; pass --sample-weight COL too (usually the "
                            "same column)")
    flag = "--label" if name == args.label else (
        "--score" if name in (c.strip() for c in str(args.score).split(",")) else None)
    if flag:
        raise VeracityError(f"--test-weight names the {flag} column {name!r}; name the column of the "
                            "likelihood ratios w(x)")


def _test_weights(table: object, name: str, path: str) -> np.ndarray:
    """The --test-weight column as numbers (missing or infinite values refused, named by the flag)."""
    from ..sources import _api as source

    values = source.column(table, name, path=path, role="test_weight")
    if values.dtype.kind not in "biuf":  # the first value that is not a number, as --sample-weight's refusal
        from ._rows import refuse_text_numbers

        refuse_text_numbers(table, name, f"--test-weight column {name!r}")
    return np.asarray(values, dtype=np.float64)
