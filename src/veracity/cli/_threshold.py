"""Choose a decision threshold on one role (calib) and print the operating table on both.

A row is flagged (alert) when its score >= the threshold. Pick the rule:

    veracity threshold data.csv --cost-fp 1 --cost-fn 9      # t* = c_FP / (c_FP + c_FN)
    veracity threshold data.csv --target-recall 0.95         # k-th highest calib positive, +1 correction
    veracity threshold data.csv --target-precision 0.8
    veracity threshold data.csv --budget 200                 # at most 200 alerts on calib (or --budget 5%)

The threshold is fit on the rows whose --role-col equals --fit-role (default: the
'role' column, if present, with 'calib') and measured on --eval-role ('test').
Without a role column it is fit and measured on the same rows, which flatters it.
Costs (--cost-fp, --cost-fn; default 1 and 1) also price every table row. With no
rule given, the cost rule at 1:1 is used (t* = 0.5). Thresholds are printed on the
scores' own scale (a logit with --score-type logit).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, cast

import numpy as np
from ..core._special import expit, logit

from ..core._display import fmt_weight
from ..core._intervals import binomial_interval
from ..core._text import fmt, fmt_count, render_table
from ..core._validation import VeracityError, check_weights
from ..core._weights import sandwich_size
from ..decisions import (
    ThresholdTable,
    budget_threshold,
    cost_threshold,
    precision_threshold,
    recall_rank,
    recall_threshold,
    threshold_table,
)
from ..decisions._inputs import (RECALL_ONE, check_target, compared_thresholds, in_caller_units, narrow_float,
                                  weight_shift)
from ..decisions._table import flag_rule, point_aligned, threshold_cell
from ..decisions._thresholds import effective_number, weighted_recall_rule
from ._common import (add_input_arguments, add_json_argument, emit, inputs, load, role_flags, shown_path)
from ._labels import add_pos_label_argument, apply_pos_label
from ._bad_rows import bad_rows, file_rows, first_bad_row, on_fit_rows, on_role_rows
from ._rows import role_texts, roles_named, used_rows


def add_role_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--role-col", default=None,
                        help="column naming each row's role (default: 'role' if the file has one)")
    parser.add_argument("--fit-role", default=None, help="role the decision is fit on (default: calib)")
    parser.add_argument("--eval-role", default=None, help="role it is measured on (default: test)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, score_type_note="only the rank rules --target-recall, --target-precision "
                                                "and --budget take it; the cost rule needs probabilities")
    rule = parser.add_mutually_exclusive_group()
    rule.add_argument("--target-recall", type=float, default=None, metavar="R",
                      help="R in (0, 1): catch this share of the fit role's positives (k = ceil((n+1)·R) "
                           "with the +1 correction)")
    rule.add_argument("--target-precision", type=float, default=None, metavar="P",
                      help="P in (0, 1]: the lowest threshold whose precision on the fit role reaches P "
                           "(1: no false alarm there)")
    rule.add_argument("--budget", default=None, metavar="K|F%",
                      help="at most K alerts on the fit role (a whole number >= 1), or F%% of its rows "
                           "(e.g. 200 or 5%%); with --sample-weight, K and F%% are of the rows' total weight")
    parser.add_argument("--no-correction", action="store_true",
                        help="with --target-recall: k = ceil(n·R), without the +1 correction")
    parser.add_argument("--cost-fp", type=float, default=None,
                        help="cost of a false alarm, >= 0 (default: 1). With no other rule it selects the "
                             "cost rule t* = c_FP / (c_FP + c_FN); with one, it only prices the table")
    parser.add_argument("--cost-fn", type=float, default=None,
                        help="cost of a missed positive, >= 0 (default: 1); as --cost-fp")
    parser.add_argument("--also", default=None, metavar="T1,T2",
                        help="extra thresholds to show in the table, comma-separated, on the scores' own "
                             "scale (logits with --score-type logit; veracity audit --threshold takes a "
                             "probability even then)")
    add_pos_label_argument(parser)
    add_role_arguments(parser)
    add_json_argument(parser)


def role_masks(table: Any, args: argparse.Namespace, path: str) -> tuple[str | None, dict[str, np.ndarray]]:
    """(role column or None, {role: row mask}) for the fit and eval roles."""
    col = args.role_col
    role_flags(args, col is not None or "role" in table.column_names, path)
    if col is None:
        if "role" not in table.column_names:
            n = table.num_rows
            return None, {"all": np.ones(n, dtype=bool)}
        col = "role"
    values = role_texts(table, col, path)  # a row with no role (None/NaN or blank) refused
    masks: dict[str, np.ndarray] = {}
    for role in dict.fromkeys([args.fit_role, args.eval_role]):
        mask = values == role
        if not mask.any():
            distinct = sorted(set(values.tolist()))
            present = ", ".join(repr(v) for v in distinct[:10]) + (", ..." if len(distinct) > 10 else "")
            # a role written with another case or with spaces ('Calib', 'calib '), or a number written as
            # another text ('1.0' in a column of numbers with a missing value, for --fit-role 1)
            close = [v for v in distinct if v.strip().casefold() == str(role).strip().casefold()
                     or _same_number(v, role)]
            hint = (f"did you mean {close[0]!r}? roles are matched exactly as text, case and spaces included; "
                    if close else "")
            raise VeracityError(
                f"no rows with {col} == {role!r} in {path} (values: {present}); "
                f"{hint}pass --fit-role/--eval-role with one of those"
            )
        masks[role] = mask
    return col, masks


def _same_number(a: str, b: str) -> bool:
    """``a`` and ``b`` are texts of the same number ('1.0' and '1')."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def _float_list(text: str | None, name: str) -> list[float]:
    """The numbers of a comma-separated flag, each once (the first place it is written), -0 read as 0.
    Given with no number in it (``--also ""``, ``--also ,``) or with a NaN, it is refused in the flag's
    words: it added no row, silently, or failed naming the library's ``thresholds``."""
    if text is None:
        return []
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise VeracityError(f"{name} must be comma-separated numbers, e.g. 0.1,0.5; got {text!r}") from None
    if not values:
        raise VeracityError(f"{name} needs comma-separated numbers, e.g. 0.1,0.5; got {text!r}")
    if any(math.isnan(v) for v in values):
        raise VeracityError(f"{name} must be comma-separated numbers, e.g. 0.1,0.5, not NaN; got {text!r} "
                            "(inf flags nothing, -inf every row)")
    return list(dict.fromkeys(v + 0.0 for v in values))


def _choose(args: argparse.Namespace, s: np.ndarray, y: np.ndarray, w: np.ndarray | None,
            cost_fp: float, cost_fn: float,
            fit_rows: Callable[[], AbstractContextManager[None]] = nullcontext) -> tuple[float, dict[str, Any], str]:
    """(threshold, rule description for JSON, one-line explanation); ``fit_rows()`` around each fit on
    the rows (:func:`on_fit_rows`), not around the checks of the flags."""
    st = args.score_type
    if args.target_recall is not None:
        corr = not args.no_correction
        with fit_rows():
            t = recall_threshold(s, y, target=args.target_recall, correction=corr, sample_weight=w,
                                 score_type=st)
        pos = y == 1
        plus_one: dict[str, Any] | None = None  # the weighted rule's new positive: its weight and size m
        if w is None or (w[pos] == w[pos][0]).all():  # equal weights: only their ratios matter
            n = int(pos.sum())
            k = recall_rank(n, args.target_recall, corr)
            how = f"k = {'ceil((n+1)·R)' if corr else 'ceil(n·R)'} = {k}"
            if w is not None and corr:  # the weighted rule with m = n, W/m one positive's weight: this k
                one = float(w[pos][0])
                plus_one = {"size": "kish", "m": float(n), "kish_m": float(n), "weight": one,
                            "reaches": args.target_recall * (n + 1) * one}
        else:  # the weighted rule picks its own rank k (of the positives of positive weight)
            n = int((pos & (w > 0)).sum())
            # the weights as recall_threshold scales them (one power of two): raw weights near the float
            # range summed to inf, and the rank was refused ("too few positives ... (weight inf)") where the
            # threshold printed above had been found
            wc = cast(np.ndarray, check_weights(w, w.shape[0]))
            _, k, plus, spread = weighted_recall_rule(s[pos], wc[pos], check_target(args.target_recall), corr)
            total = float(wc[pos].sum())
            need = in_caller_units(args.target_recall * (total + plus), weight_shift(w, wc))
            # the +1 weight the rule used: Kish's Σw²/Σw, or W/m where the weights' spread about the
            # threshold gives the smaller size m ("Σw²/Σw" was said of both)
            rule_text = "R·W" if not corr else "R·(W + Σw²/Σw)" if spread is None else "R·(W + W/m)"
            # k first: "reaches R·(W + Σw²/Σw) = 193" read as a weight of 193, the rank's number
            how = (f"k = {k}, the first rank where the positives' cumulative weight reaches {rule_text} = "
                   f"{need:.4g}")
            if spread is not None:
                how += (f" (m = {spread:.4g}, the size the weights' spread about the threshold gives, below "
                        "Kish's)")
            if corr:  # which m the rule used, as the line above says it: Kish's or the spread's
                plus_one = _plus_one(wc[pos], plus, spread, need, weight_shift(w, wc))
        return t, {"kind": "recall", "target": args.target_recall, "correction": corr, "n_positives": n,
                   "k": k, "weighted": w is not None, "weighted_plus_one": plus_one}, (
                       f"target recall {args.target_recall:g}: the k-th highest of n = {n} "
                       f"{'positive' if n == 1 else 'positives'}, {how}")  # "n = 1 positives" was said
    if args.target_precision is not None:
        with fit_rows():
            t = precision_threshold(s, y, target=args.target_precision, sample_weight=w, score_type=st)
        return t, {"kind": "precision", "target": args.target_precision}, (
            f"target precision {args.target_precision:g}: lowest threshold reaching it")
    if args.budget is not None:
        text = str(args.budget).strip()
        try:
            value = float(text[:-1] if text.endswith("%") else text)
        except ValueError:
            raise VeracityError(f"--budget must be a count such as 200 or a share such as 5%; got {text!r}") from None
        if text.endswith("%"):
            if not 0 < value <= 100:
                raise VeracityError(f"--budget {text} must be a share of the rows in (0%, 100%], e.g. 5%")
            frac = value / 100.0
            with fit_rows():
                t = budget_threshold(s, fraction=frac, sample_weight=w, score_type=st)
            of = "of the rows" if w is None else "of the total weight (--sample-weight)"
            return t, {"kind": "budget", "fraction": frac}, f"review budget {text} {of}"
        if w is None and 0 < value < 1:  # fewer than one alert flags nothing: a share without its %
            raise VeracityError(f"--budget {text} is fewer than one alert and would flag nothing; for a share "
                                f"of the rows write it with %, e.g. --budget {value * 100:g}%")
        if not math.isfinite(value) or value <= 0:  # the flag's error, before any fit on the rows
            raise VeracityError(f"--budget must be a positive number of rows, such as 200 (or a share such as "
                                f"5%); got {text!r}")
        lightest = float(w[w > 0].min()) if w is not None and (w > 0).any() else None
        if lightest is not None and value < lightest:
            # weighted, the budget is a total weight: below the lightest row's, every threshold flags too much
            # and the one chosen flagged nothing (a warning said so); --budget 0.05 was meant as 5% of the rows
            fix = (f"for a share of the rows write it with %, e.g. --budget {value * 100:g}%" if value < 1 else
                   f"with --sample-weight the budget is the total weight of the alerts: pass at least {lightest:g}")
            raise VeracityError(f"--budget {text} is less than the weight of any one row (the lightest weighs "
                                f"{lightest:g}) and would flag nothing; {fix}")
        top_k = value
        with fit_rows():
            t = budget_threshold(s, top_k=top_k, sample_weight=w, score_type=st)
        # "review budget of 1 alerts" was said
        alerts = "alert" if value == 1 else "alerts"
        budget = f"{text:s} {alerts}" if w is None else f"alerts weighing {text:s} in all (--sample-weight)"
        return t, {"kind": "budget", "top_k": top_k}, f"review budget of {budget}"
    if st == "score":
        raise VeracityError(
            "the cost-optimal threshold t* = c_FP/(c_FP + c_FN) reads calibrated probabilities, and --score-type "
            "score declares a ranking score with none: calibrate first (veracity fit, then apply), or choose by "
            "rank with --target-recall, --target-precision or --budget")
    t = cost_threshold(cost_fp, cost_fn)
    how = f"t* = c_FP/(c_FP + c_FN) = {t:.4g} (assumes calibrated probabilities)"
    if st == "logit":
        t = float(logit(t)) if 0 < t < 1 else (float("inf") if t >= 1 else float("-inf"))
        how += f"; on the logit scale {t:.4g}"
    return t, {"kind": "cost", "cost_fp": cost_fp, "cost_fn": cost_fn}, how


def _plus_one(wp: np.ndarray, plus: float, spread: float | None, need: float, shift: int) -> dict[str, Any]:
    r"""The JSON of the weighted "+1" rule (:func:`~veracity.decisions._thresholds.weighted_recall_rule`):
    the new positive counted at the weight :math:`W/m` (``weight``, in the caller's units), *m* Kish's
    :math:`(\sum w)^2/\sum w^2` (``size`` ``"kish"``) or, when smaller, the size the weights' spread about
    the threshold gives (``"spread"``); ``kish_m`` is Kish's either way and ``reaches`` the cumulative
    positive weight :math:`R\cdot(W + W/m)` the rank *k* is the first to reach. ``wp``: the positives'
    weights as the rule scaled them (``shift``: :func:`~veracity.decisions._inputs.weight_shift`)."""
    kish = effective_number(wp[wp > 0])
    return {"size": "kish" if spread is None else "spread", "m": kish if spread is None else spread,
            "kish_m": kish, "weight": in_caller_units(plus, shift), "reaches": need}


def _role_table(s: np.ndarray, y: np.ndarray, w: np.ndarray | None, m: np.ndarray, shown: list[float],
                cost_fp: float, cost_fn: float, score_type: Any,
                role: tuple[str | None, str]) -> ThresholdTable:
    """One role's operating table; an error about its rows says which ("--sample-weight sums to 0" of an
    eval role weighing 0 read as if about the whole file, whose fit role had weights)."""
    with on_role_rows(role[0], role[1], int(m.sum()), "measured on"):
        return threshold_table(s[m], y[m], shown, cost_fp=cost_fp, cost_fn=cost_fn,
                               sample_weight=None if w is None else w[m], score_type=score_type)


def precision_intervals(s: np.ndarray, y: np.ndarray, w: np.ndarray | None, masks: dict[str, np.ndarray],
                        t: float, dtype: np.dtype | None) -> dict[str, tuple[float, float, float, float]]:
    r"""Each role's precision at threshold ``t`` with its 95 % Wilson interval, as
    ``{role: (precision, effective alerts, low, high)}``.

    Precision :math:`r = TP/(TP+FP)` over the flagged rows (:math:`s \ge t` in the scores' precision) is a
    proportion of :math:`n` alerts, and Wilson's interval takes :math:`k = rn` of :math:`n`. With weights
    :math:`r = \Sigma wy/W` and :math:`n` the smaller of the flagged rows' Kish size :math:`W^2/\Sigma w^2`
    and the size their observed spread gives, :math:`r(1-r)W^2/\Sigma w^2(y-r)^2` (the sandwich: Kish's
    alone under-covers when heavier rows are more often positive, as in the segments' gap interval).
    """
    cut = float(compared_thresholds(np.array([t]), dtype)[0])
    # the weights scaled as the library scales them (one power of two, every ratio kept): the squares of
    # weights of 1e200 overflowed (a one-line error about "trials ... nan") and those of 1e-200 underflowed
    # to 0 ("no alerts" printed beside a table of alerts)
    w = None if w is None else check_weights(w, w.shape[0])
    out = {}
    for role, m in masks.items():
        flagged = m & (s >= cut)
        yf = y[flagged] == 1.0
        if w is None:
            n = float(np.count_nonzero(flagged))
            r = float(np.count_nonzero(yf)) / n if n > 0 else math.nan
        else:
            wf = w[flagged]
            W, w2 = float(wf.sum()), float(np.dot(wf, wf))
            r = float(wf[yf].sum()) / W if W > 0 else math.nan
            n = W * W / w2 if w2 > 0 else 0.0
            if W > 0:
                n = min(n, float(sandwich_size(W, r, np.dot(wf[yf], wf[yf]), np.dot(wf[~yf], wf[~yf]))))
        low, high = binomial_interval(np.array([r * n if n > 0 else 0.0]), np.array([n]), method="wilson",
                                      level=0.95)
        out[role] = (r, n, float(low[0]), float(high[0]))
    return out


def precision_note(intervals: dict[str, tuple[float, float, float, float]], target: float, eval_role: str,
                   weighted: bool) -> str:
    """One line: each role's precision at the threshold, on how many alerts, with its 95 % interval; and,
    where the eval role's precision or its interval falls below the target, which of the two."""
    size = "effective alerts" if weighted else "alerts"
    parts = [f"{role} {fmt(p)} on {fmt_weight(n) if weighted else fmt_count(n)} {size} [{fmt(lo)}, {fmt(hi)}]"
             for role, (p, n, lo, hi) in intervals.items() if n > 0]
    line = "precision at the threshold (95 % Wilson interval): " + ("; ".join(parts) or "no alerts")
    shown = intervals.get(eval_role)
    if shown is None or shown[1] <= 0 or shown[2] >= target:
        return line
    if shown[3] < target:
        why = "its whole interval too: the threshold chosen on the fit rows does not reach it there"
    elif shown[0] < target:
        why = "though its interval reaches it: measure it on more rows"
    else:
        return line + (f" — on {eval_role} the interval reaches below the target {target:g}: these alerts "
                       "do not show it is met (a plug-in choice; measure it on more rows)")
    return line + f" — on {eval_role} precision is below the target {target:g}, {why}"


def run(args: argparse.Namespace) -> int:
    if args.no_correction and args.target_recall is None:
        raise VeracityError("--no-correction changes the --target-recall rule only; pass --target-recall R, "
                            "or drop --no-correction")
    for flag, target, one in (("--target-recall", args.target_recall, RECALL_ONE),
                              ("--target-precision", args.target_precision, True)):
        # the library's check, in the flag's name (it says "target"): a precision of 1 (no false alarm)
        # is taken, a recall of 1 refused saying why
        if target is not None:
            check_target(target, flag, one=one)
    table, path = load(args)
    role_col, masks = role_masks(table, args, path)
    # only the rows of the fit and eval roles are read and checked (rows of other roles may hold missing
    # values), an error naming the row's data row in FILE; a score column of text is refused on every row
    used = None if role_col is None else np.logical_or.reduce(list(masks.values()))
    table = used_rows(table, args, used)
    masks = masks if used is None else {role: m[used] for role, m in masks.items()}
    # + 0.0: a cost of -0 is 0 ("threshold -0", "cost = -0·FP" were printed)
    cost_fp = 1.0 if args.cost_fp is None else args.cost_fp + 0.0
    cost_fn = 1.0 if args.cost_fn is None else args.cost_fn + 0.0
    with file_rows(used, roles_named(role_col, args.fit_role, args.eval_role)):
        scores, labels, weights = inputs(table, args, path)
        if np.ndim(scores) != 1:
            raise VeracityError("threshold needs one --score column (the score of the class to flag)")
        labels = apply_pos_label(labels, args.pos_label, label=args.label, scores=scores)
        s = np.asarray(scores)
        dtype = narrow_float(s)  # a float32 column (Parquet float) stays float32: compared in its precision
        s = s if dtype is not None else np.asarray(s, dtype=np.float64)
        y = np.asarray(labels)
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        # validate the rows used once, so that an error counts them all, not one role's, and names the
        # first offending row ("1 of 598 are not" alone did not say where)
        with first_bad_row(**bad_rows(s, y, w)):
            threshold_table(s, y, [0.5], cost_fp=cost_fp, cost_fn=cost_fn, sample_weight=w,
                            score_type=args.score_type)
    fit_name = args.fit_role if role_col else "all"
    fit = masks[fit_name]
    t, rule, how = _choose(args, s[fit], y[fit], None if w is None else w[fit], cost_fp, cost_fn,
                           lambda: on_fit_rows(role_col, fit_name, int(fit.sum())))
    # an --also threshold that is the chosen one in the scores' precision (0.7 beside float32(0.7)) is one row
    also = _float_list(args.also, "--also")
    same = compared_thresholds(np.array(also, dtype=np.float64), dtype) == compared_thresholds(np.array([t]), dtype)
    shown = [t] + [v for v, dup in zip(also, same) if not dup]
    tables = {role: _role_table(s, y, w, m, shown, cost_fp, cost_fn, args.score_type,
                                (role_col, role)) for role, m in masks.items()}
    headers = ["role", "rows" if w is None else "weight", "threshold", "TP", "FP", "FN", "TN", "recall", "false alarm",
               "precision", "alerts", "cost", "cost/1000"]
    body = []
    # every digit a threshold needs (in the scores' precision), the decimal points in one column
    cells = point_aligned([threshold_cell(v, dtype) for v in shown])
    # weight sums read at 12 digits, as vc.threshold_table prints them: 100 weights of 0.1 printed "10.0"
    # (their sum 9.999999999999998) in the weight column, where the library's table prints "10"
    count = fmt_count if w is None else fmt_weight
    for i in range(len(shown)):
        for role, tab in tables.items():
            r = tab.rows[i]
            body.append([role, count(tab.n), cells[i], count(r.tp),
                         count(r.fp),
                         count(r.fn), count(r.tn), fmt(r.recall), fmt(r.false_alarm_rate),
                         fmt(r.precision), count(r.alerts), fmt_count(round(r.cost, 1)),
                         f"{r.cost_per_1000:.1f}"])
    # --eval-role naming the fit role measured the threshold on the rows it was fit on, unsaid
    same = " (the same rows: optimistic)" if role_col and args.fit_role == args.eval_role else ""
    where = (f"fit on {role_col} == {args.fit_role!r}, measured on {args.eval_role!r}{same}" if role_col
             else "no role column: fit and measured on the same rows (optimistic)")
    # the headline gives the threshold to deploy: rounded to 6 digits it can land above the calib score
    # it is (0.356365 for 0.35636454...: that row and its ties are no longer flagged), or print a
    # threshold just above the top score (nothing flagged) as the top score itself; then every digit (float32
    # scores: the digits that name it in float32, 0.7 for float32(0.7), whose float64 digits are 0.6999999881)
    shown_t = threshold_cell(t, dtype, decimals=False)
    text = (
        f"threshold {shown_t} ({flag_rule(dtype)}) — {how}\n{where}\n"
        f"{render_table(headers, body, align='lrrrrrrrrrrrr')}\n"
        f"(cost = {cost_fp:g}·FP + {cost_fn:g}·FN)"
    )
    eval_name = args.eval_role if role_col else "all"
    scale: dict[str, float] = {}
    if args.score_type == "logit":  # thresholds are logits; `veracity audit --threshold` takes a probability
        scale["threshold_probability"] = float(expit(t))
        text += (f"\n(thresholds are logits, as --score-type logit declares: {shown_t} is p = "
                 f"{scale['threshold_probability']:.6g}, the scale of veracity audit --threshold)")
    if args.target_precision is not None:
        # precision at the chosen threshold is a proportion of few alerts where the target is high: 4 of 4
        # printed "1.0000" with nothing to say that its interval reaches down to 0.51
        intervals = precision_intervals(s, y, w, masks, t, dtype)
        text += "\n" + precision_note(intervals, args.target_precision, eval_name, w is not None)
        # "alerts" as the table's alerts column counts them (weighted: their weight); the interval's size, an
        # effective number of alerts, apart ("alerts": 46.6 beside the table's 60.2 alerts of one role)
        rule["precision_interval"] = {
            role: {"precision": p, "alerts": int(n) if w is None else float(tables[role].alerts[0]),
                   **({} if w is None else {"effective_alerts": n}), "low": lo, "high": hi}
            for role, (p, n, lo, hi) in intervals.items()}
    payload = {
        "file": path, "score": args.score, "label": args.label, "threshold": t, **scale, "rule": rule,
        "role_col": role_col, "fit_role": fit_name, "eval_role": eval_name,
        "roles": {role: tab.to_dict() for role, tab in tables.items()},
    }
    emit(args, text, payload, note_text=shown_path(args, path))
    return 0
