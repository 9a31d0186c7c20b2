"""Delayed labels in a status: prediction-powered (PPI++) estimates from random audit labels and
the per-bin confidence sequences; see :mod:`veracity.monitoring._status`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._binning import uniform_edges
from ..core._intervals import binomial_interval
from ._alerts import _alerts
from ._sequence_alarms import SequenceAlarms, gap_text
from ._status_rows import MIN_PPI_LABELS, OTHER, StoreStatus, row_status


# -- delayed labels: PPI, early evidence, shift-aware CBPE, confidence sequences (issue 26) ---------------
def _bin_label(lo: float, hi: float, last: bool) -> str:
    return f"[{lo:.4g}, {hi:.4g}{']' if last else ')'}"


def _confusion_ppi(per_key: Any, aud: np.ndarray, pos: np.ndarray, flag: np.ndarray, n: np.ndarray, sp: np.ndarray,
                   sp2: np.ndarray, K: int, *, level: float, threshold: float, cost_fp: float, cost_fn: float
                   ) -> list[dict[str, Any] | None]:
    r"""PPI++ of the confusion and cost per row at the deployed threshold, per (period, slice).

    With :math:`a = [f \ge t]`, each quantity is the mean of a target that needs the label with a
    label-free prediction (as in :func:`veracity.ppi_audit`): TP :math:`ya` / :math:`fa`, FP
    :math:`(1-y)a` / :math:`(1-f)a`, FN :math:`y(1-a)` / :math:`f(1-a)`, TN :math:`(1-y)(1-a)` /
    :math:`(1-f)(1-a)`, cost :math:`c_{FP}(1-y)a + c_{FN}y(1-a)` / :math:`c_{FP}(1-f)a + c_{FN}f(1-a)`.
    Because :math:`a` splits the rows, every sum PPI needs is a sum over the flagged or the other
    rows of :math:`1, y, f, f^2, yf` — the groups the status query already has. The five share one
    :math:`\lambda` per window (:func:`veracity.delayed._audit.shared_lambda`: the PPI++ choice for a
    vector of means, minimising the sum of the four shares' variances), so the estimates are linear in the
    targets: TP + FP + FN + TN = 1 and cost = :math:`c_{FP}` FP + :math:`c_{FN}` FN exactly (a
    :math:`\lambda` per quantity printed shares summing to 1.0064); a share that falls below 0 is moved
    onto the simplex with the others (:func:`veracity.delayed._audit.onto_shares`), the cost priced from
    them. Each interval is the normal one cut to the range, or where the labels show fewer than 10 events of
    one kind in the quantity's group of rows vc.ppi_audit's (:func:`veracity.delayed._audit.
    confusion_intervals`); coverage by seeded simulation in tests/monitoring/test_status_confusion_r22.py and
    tests/delayed/test_ppi_confusion_coverage_r23.py."""
    from ..delayed import PpiSums, ppi_from_sums
    from ..delayed._audit import confusion_intervals, onto_shares, shared_lambda
    from ..delayed._ppi import cut_to_range

    def split(mask: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return per_key(mask & flag, v), per_key(mask & ~flag, v)

    (n1, n0), (y1, y0), (f1, f0) = split(aud, n), split(aud & pos, n), split(aud, sp)
    (ff1, ff0), (yf1, yf0) = split(aud, sp2), split(aud & pos, sp)
    (m1, m0), (g1, g0), (gg1, gg0) = split(~aud, n), split(~aud, sp), split(~aud, sp2)
    n_all = n1 + n0
    # per quantity: (sum t, sum t^2, sum h, sum h^2, sum t h) over audited rows; (sum h, sum h^2) over the rest
    cf, cn = float(cost_fp), float(cost_fn)
    q = {
        "tp": (y1, y1, f1, ff1, yf1, g1, gg1),
        "fp": (n1 - y1, n1 - y1, n1 - f1, n1 - 2 * f1 + ff1, n1 - f1 - y1 + yf1, m1 - g1, m1 - 2 * g1 + gg1),
        "fn": (y0, y0, f0, ff0, yf0, g0, gg0),
        "tn": (n0 - y0, n0 - y0, n0 - f0, n0 - 2 * f0 + ff0, n0 - f0 - y0 + yf0, m0 - g0, m0 - 2 * g0 + gg0),
        "cost": (cf * (n1 - y1) + cn * y0, cf * cf * (n1 - y1) + cn * cn * y0, cf * (n1 - f1) + cn * f0,
                 cf * cf * (n1 - 2 * f1 + ff1) + cn * cn * ff0, cf * cf * (n1 - f1 - y1 + yf1) + cn * cn * yf0,
                 cf * (m1 - g1) + cn * g0, cf * cf * (m1 - 2 * g1 + gg1) + cn * cn * gg0),
    }
    names = list(q)
    stack = [np.concatenate([q[k][i] for k in names]) for i in range(7)]
    sums = PpiSums.from_counts(n=np.tile(n_all, len(names)), sum_y=stack[0], sum_yy=stack[1], sum_f=stack[2],
                               sum_ff=stack[3], sum_yf=stack[4], m=np.tile(m1 + m0, len(names)),
                               sum_fu=stack[5], sum_ffu=stack[6])
    # one lambda per window for the five (vc.ppi_audit's shared_lambda: the lambda minimising the sum of the
    # four shares' variances), so the shares add up to 1 and the cost is c_FP FP + c_FN FN, as printed
    lam = shared_lambda(PpiSums(**{f: np.asarray(getattr(sums, f)).reshape(len(names), K)
                                   for f in PpiSums.__dataclass_fields__}))
    out = ppi_from_sums(sums, level=level, lam=np.tile(lam, len(names)))
    # shares below 0 moved onto the simplex (vc.ppi_audit's onto_shares), the cost priced from the shares
    shares = onto_shares(np.asarray(out["estimate"], dtype=np.float64)[: 4 * K].reshape(4, K))
    out["estimate"] = np.concatenate([shares.reshape(-1), cf * shares[1] + cn * shares[2]])
    # each interval cut at the range its quantity can take, as vc.ppi_audit's rows: shares in [0, 1], the
    # cost per row in [0, max(c_FP, c_FN)]
    top = np.repeat([1.0, 1.0, 1.0, 1.0, max(cf, cn)], K)
    cut_to_range(out, {"ci": (0.0, top)})
    # the shares TP ... TN and the cost with few labelled events in their group of rows (flagged or not):
    # vc.ppi_audit's intervals (veracity.delayed._audit.confusion_intervals)
    conf = {c: np.asarray(out[c], dtype=np.float64).reshape(len(names), K)
            for c in ("estimate", "se", "lam", "ci_low", "ci_high")}
    confusion_intervals(conf, PpiSums(**{f: np.asarray(getattr(sums, f)).reshape(len(names), K)
                                         for f in PpiSums.__dataclass_fields__}), k_fp=cf, k_fn=cn, level=level)
    out["ci_low"], out["ci_high"] = conf["ci_low"].reshape(-1), conf["ci_high"].reshape(-1)
    est, lo, hi = (np.asarray(out[c]).reshape(len(names), K) for c in ("estimate", "ci_low", "ci_high"))
    ok = (n_all >= 2) & np.isfinite(est).all(axis=0)
    res: list[dict[str, Any] | None] = []
    for k in range(K):
        if not ok[k]:
            res.append(None)
            continue
        res.append({"threshold": float(threshold), "cost_fp": cf, "cost_fn": cn, "labels": int(n_all[k]),
                    **{name: {"estimate": float(est[i, k]), "ci_low": float(lo[i, k]), "ci_high": float(hi[i, k])}
                       for i, name in enumerate(names)}})
    return res


def _merged_chi2_p(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    r"""Per row of the ``(K, B)`` histograms ``a`` and ``b``: the p-value of
    ``sample_check_p(*merge_sparse_bins(a[k], b[k]))`` (:mod:`veracity.delayed._ppi`), vectorised over
    the rows.

    Adjacent bins are pooled in score order until the pooled count reaches :math:`5N/\min(n_a, n_b)` (every
    cell expects 5 rows of the smaller side), a short run left at the end joining the cell before it; the
    statistic is :math:`\sum_c (a_c - e^a_c)^2/e^a_c + (b_c - e^b_c)^2/e^b_c` with
    :math:`e^a_c = (a_c + b_c) n_a / N`, on cells − 1 degrees of freedom (p = 1 under two cells). One pass
    over the B bins for every row at once: the merge and the test in a loop over rows took 0.1-0.5 ms a
    window, seconds for a store of thousands of windows and slices."""
    from ..core._special import chdtrc
    from ..delayed._ppi import MIN_EXPECTED

    n_a, n_b = a.sum(axis=1), b.sum(axis=1)
    total = n_a + n_b
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(np.minimum(n_a, n_b) > 0, MIN_EXPECTED * total / np.minimum(n_a, n_b), np.inf)
        share_a, share_b = n_a / total, n_b / total

        def term(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            col = x + y
            ea, eb = col * share_a, col * share_b
            return np.where(col > 0, (x - ea) ** 2 / ea + (y - eb) ** 2 / eb, 0.0)

        K = a.shape[0]
        acc_a, acc_b, stat = np.zeros(K), np.zeros(K), np.zeros(K)
        last_a, last_b, last_t = np.zeros(K), np.zeros(K), np.zeros(K)
        cells = np.zeros(K, dtype=np.int64)
        for j in range(a.shape[1]):
            acc_a, acc_b = acc_a + a[:, j], acc_b + b[:, j]
            close = (acc_a + acc_b) >= need * (1 - 1e-12)
            t = term(acc_a, acc_b)
            stat = np.where(close, stat + t, stat)
            last_a, last_b, last_t = (np.where(close, acc_a, last_a), np.where(close, acc_b, last_b),
                                      np.where(close, t, last_t))
            cells += close
            acc_a, acc_b = np.where(close, 0.0, acc_a), np.where(close, 0.0, acc_b)
        left = ((acc_a + acc_b) > 0) & (cells > 0)  # the short run at the end joins the last cell
        stat = np.where(left, stat - last_t + term(last_a + acc_a, last_b + acc_b), stat)
        return np.where(cells >= 2, chdtrc(np.maximum(cells - 1, 1), stat), 1.0)


def _nonrandom_notes(audited: np.ndarray, others: np.ndarray, w_sums: Any, K: int,
                     B: int) -> list[str | None]:
    """Per (period, slice): vc.ppi_audit's random-sample check on the store's score bins, or None.

    The window's audit labels per score bin (``audited``, ``K * B`` counts) against its other rows
    (``others``): the chi-square test of homogeneity of the two histograms, sparse bins merged as
    :func:`veracity.delayed._ppi.merge_sparse_bins` merges them (:func:`_merged_chi2_p`), rejects at
    :data:`veracity.delayed._ppi.SAMPLE_CHECK_P` (``vc.ppi_audit``'s cut). A sample drawn by score (the
    reviewed high scores marked ``--audit-sample``) gave a PPI rate of 0.30 [0.24, 0.36] for a rate of
    0.20 and a "gap excludes 0" with no word of doubt, where vc.ppi_audit on the same rows refuses it. The
    note says NOT VALID (the estimate stays, as ``vc.ppi_audit(..., sample_check="flag")`` keeps it)."""
    from ..core._text import fmt_p
    from ..delayed._ppi import SAMPLE_CHECK_P

    a, b = audited.reshape(K, B).astype(np.float64), others.reshape(K, B).astype(np.float64)
    n, m = a.sum(axis=1), b.sum(axis=1)
    p = _merged_chi2_p(a, b)
    notes: list[str | None] = [None] * K
    for k in np.flatnonzero((n >= 2) & (m >= 1) & (p < SAMPLE_CHECK_P)).tolist():  # the flagged windows only
        mean_a, mean_b = float(w_sums.wf[k] / w_sums.n[k]), float(w_sums.wuf[k] / w_sums.m[k])
        notes[k] = (f"NOT VALID: the {int(n[k]):,} audit labels are not a random sample of the window: their "
                    f"scores differ from the {int(m[k]):,} other rows' (mean {mean_a:.3f} vs {mean_b:.3f}; "
                    f"chi-square p = {fmt_p(float(p[k]))} over the score bins), and PPI is valid only for a "
                    "random audit sample: mark as audit labels (--audit-sample) only those of rows drawn at "
                    "random")
    return notes


def _calibration_rejected(r: Any, sequential: bool) -> str | None:
    """Why the label-free estimates of a slice's pending rows assume what its final labels rejected, from
    the latest window the window tests judged (``r``, at least ``min_count`` final labels): its calibration or
    slope alert with a diagnosis other than a prior shift (which withdraws the estimates instead), else None.

    The estimates' confusion counts read the scores as the probabilities (TP = sum of p over the flagged
    rows): over-confident scores, right on average, whose slope alerted week after week still printed "TP
    581.6, FP 151.4, FN 178.3" for a week that held TP 472, FP 261, FN 239, under nothing but the header's
    "assume the scores are calibrated". A later window judged calibrated lifts the caveat. With ``sequential``
    alerts the window tests raise no alert: the caveat names their verdict as such."""
    kinds = [a.kind for a in r.alerts if a.kind in ("calibration", "slope")]
    if not kinds or not r.diagnosis or r.diagnosis.startswith("prior shift"):
        return None
    cause = r.diagnosis.split(":")[0]
    test = (f"the window tests' {' and '.join(kinds)} verdict, which sequential alerts do not raise"
            if sequential else f"{' and '.join(kinds)} alert")
    return (f"not valid: the final labels of {r.period} found the scores miscalibrated ({test}: {cause}), "
            "and these counts assume they are calibrated")


def _gap_ppi(e_ppi: dict[str, Any] | None, mean_score: float) -> dict[str, Any] | None:
    """PPI rate − mean score of the window's rows, ``{"estimate", "ci_low", "ci_high"}``: the PPI interval
    shifted by the mean score (known exactly, every score being logged: the interval of rate − score is
    the rate's, moved). None without a PPI estimate or rows."""
    if e_ppi is None or not np.isfinite(mean_score):
        return None
    return {k: None if e_ppi.get(k) is None else float(e_ppi[k]) - mean_score
            for k in ("estimate", "ci_low", "ci_high")}


def _with_delayed_labels(status: StoreStatus, g: dict[str, np.ndarray], seq: dict[str, np.ndarray],
                         starts: np.ndarray, last_end: np.datetime64, by: str | None, level: float, alerts: str,
                         tolerance: float, min_count: int, bins: int, cost_fp: float = 1.0,
                         cost_fn: float = 1.0) -> StoreStatus:
    """Add PPI, provisional and shift-aware CBPE estimates and the confidence sequences to each row,
    per score bin (``bins``) the PPI rate and the bin's own confidence sequence, and the PPI
    confusion and cost per row at the deployed threshold (``confusion_ppi``).

    The false-alarm level of the sequential alerts, ``alpha = 1 - alert_level`` per cohort, is
    shared out in advance: ``alpha / 2`` for calibration-in-the-large (the overall sequence)
    and ``alpha / 2`` over the ``bins`` score bins (``alpha / (2 bins)`` each, Bonferroni).
    """
    from dataclasses import replace

    from ..delayed import PpiSums, first_alarm, ppi_from_sums, ppi_records, sequence_from_sums
    from ..delayed._ppi import RATE_BOUNDS, cut_to_range
    from ..delayed._ppi_result import FLAT
    from ..delayed._ppi_sums import flat_scores, wilson_rate_interval

    rows = list(status.rows)
    if not rows:
        return status
    n_p = len(starts)
    n_s = len(rows) // n_p
    names = [r.slice for r in rows[:n_s]]
    K = n_p * n_s
    B = int(bins)

    # per (period, slice) sums, (all) counting every slice's groups too (as in _assemble)
    pidx = np.searchsorted(starts.astype("datetime64[us]").astype(np.int64), np.asarray(g["period"], dtype=np.int64))
    slice_of = {name: i for i, name in enumerate(names)}

    def slice_index(values: Any) -> np.ndarray:
        """Each group's slice position (vectorised: a lookup per distinct slice, not per group)."""
        v = np.asarray(values)
        if by is None or v.size == 0:
            return np.zeros(v.size, np.int64)
        uniq, inv = np.unique(v.astype(str), return_inverse=True)
        pooled_at = slice_of.get(OTHER, 0)  # a name beyond max_slices counts in the pooled slice
        return np.array([slice_of.get(u, pooled_at) for u in uniq.tolist()], dtype=np.int64)[inv.reshape(-1)]

    if by is None:
        sidx = np.zeros(np.asarray(g["slice"]).size, np.int64)
    else:  # the groups carry the status's own (pooled) slice names, each a row of _assemble's
        sidx = slice_index(g["slice"])
    cols = {k: np.asarray(g[k]) for k in ("state", "audited", "y", "n", "sp", "sp2", "sp3", "bin", "flag")}
    if by is not None:
        pidx = np.concatenate([pidx, pidx])
        sidx = np.concatenate([sidx, np.zeros_like(sidx)])
        cols = {k: np.concatenate([v, v]) for k, v in cols.items()}
    key = pidx * n_s + sidx
    state, aud = cols["state"], cols["audited"] == 1
    y, n = cols["y"].astype(np.float64), cols["n"].astype(np.float64)
    sp, sp2 = cols["sp"].astype(np.float64), cols["sp2"].astype(np.float64)
    kb = key * B + cols["bin"].astype(np.int64)

    def per_key(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(key[mask], weights=values[mask], minlength=K)

    def per_key_bin(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(kb[mask], weights=values[mask], minlength=K * B)

    pos = y == 1

    def ppi_sums(per: Any) -> PpiSums:
        return PpiSums.from_counts(n=per(aud, n), sum_y=per(aud & pos, n), sum_f=per(aud, sp),
                                   sum_ff=per(aud, sp2), sum_yf=per(aud & pos, sp), m=per(~aud, n),
                                   sum_fu=per(~aud, sp), sum_ffu=per(~aud, sp2))

    # sum f^3 of every row: estimate_cbpe's count interval where the scores expect few events (vc.ppi_mean's)
    w_sums = ppi_sums(per_key)
    records = ppi_records(w_sums, level=level,
                          sum_fff=per_key(np.ones(n.size, dtype=bool), cols["sp3"].astype(np.float64)))
    confusion = _confusion_ppi(per_key, aud, pos, cols["flag"] == 1, n, sp, sp2, K, level=level,
                               threshold=status.threshold, cost_fp=cost_fp, cost_fn=cost_fn)
    seen = (state == 0) | (state == 3)
    seen_n, seen_pos, seen_sp = per_key(seen, n), per_key(seen & pos, n), per_key(seen, sp)
    early_n = per_key(state == 3, n)

    # per (period, slice, bin): the PPI rate of the bin (its audit labels with all its scores), the
    # final labels' rate with its Wilson interval, the mean score of all the bin's rows
    b_sums = ppi_sums(per_key_bin)
    b_ppi = ppi_from_sums(b_sums, level=level)
    cut_to_range(b_ppi, RATE_BOUNDS)
    # each bin's rate with vc.ppi_audit's bins' interval: modified Wilson at the PPI estimate, effective
    # labels
    wilson_rate_interval(b_ppi, b_sums.n, level)
    b_has = (np.asarray(b_sums.n) >= 2) & np.isfinite(b_ppi["estimate"])
    nonrandom = _nonrandom_notes(np.asarray(b_sums.n), np.asarray(b_sums.m), w_sums, K, B)
    # power tuning on a bin's constant scores took lambda 0 (a model of few distinct scores puts one in each
    # bin): the window records' FLAT note (ppi_records), so a bin's lam of 0 carries its reason too
    b_flat = flat_scores(b_sums) & (np.asarray(b_sums.m) > 0) & (np.asarray(b_ppi["lam"]) == 0.0)
    everyone = np.ones(n.size, dtype=bool)
    b_rows, b_sp = per_key_bin(everyone, n), per_key_bin(everyone, sp)
    final = state == 0
    b_lab, b_pos = per_key_bin(final, n), per_key_bin(final & pos, n)
    b_lo, b_hi = binomial_interval(b_pos, b_lab, method="wilson", level=level)
    with np.errstate(divide="ignore", invalid="ignore"):
        b_conf = np.where(b_rows > 0, b_sp / b_rows, np.nan)
        b_rate = np.where(b_lab > 0, b_pos / b_lab, np.nan)
    edges = uniform_edges(B)
    b_names = [_bin_label(edges[j], edges[j + 1], j == B - 1) for j in range(B)]

    # confidence sequences of the final labels, per slice (and per slice x bin), one batch per day
    # they became final
    sq = {k: np.asarray(v) for k, v in seq.items()}
    days_raw = np.asarray(sq.get("day", np.array([], dtype=np.int64)), dtype=np.int64)
    bins_raw = np.asarray(sq.get("bin", np.zeros(days_raw.size, dtype=np.int64)), dtype=np.int64)
    s_idx = slice_index(sq.get("slice", np.array([], dtype=object)))
    sn, sx, sxx = (np.asarray(sq.get(c, np.array([])), dtype=np.float64) for c in ("n", "sx", "sxx"))
    if by is not None:
        s_idx = np.concatenate([s_idx, np.zeros_like(s_idx)])
        days_raw, bins_raw, sn, sx, sxx = (np.concatenate([a, a]) for a in (days_raw, bins_raw, sn, sx, sxx))
    days = np.unique(days_raw)
    alpha = 1.0 - status.alert_level
    alpha_all, alpha_bin = alpha / 2.0, alpha / (2.0 * B)
    D = days.size
    if D:
        d_idx = np.searchsorted(days, days_raw)
        flat = (s_idx * B + bins_raw) * D + d_idx
        grids = [np.bincount(flat, weights=v, minlength=n_s * B * D).reshape(n_s, B, D) for v in (sn, sx, sxx)]
        low, high = sequence_from_sums(*(a.sum(axis=1) for a in grids), alpha=alpha_all)
        b_low, b_high = sequence_from_sums(*grids, alpha=alpha_bin)
        labels_so_far = np.cumsum(grids[0].sum(axis=1), axis=1)
        b_labels = np.cumsum(grids[0], axis=2)
        alarm = first_alarm(low, high, tolerance)
        b_alarm = first_alarm(b_low, b_high, tolerance)
    last_us = last_end.astype("datetime64[us]")
    ends = np.concatenate([starts[1:].astype("datetime64[us]"), [last_us]]).astype(np.int64)
    # the day index of each window's bounds: the last day (a UTC date, the sequences' batch) that ended by the
    # window's end, day + 1 day <= end; the last window's: every label final by as-of. A rolling window ending
    # at noon had read its end date's whole batch, labels final up to 12 hours after it ended, and could alert
    # before its evidence existed (calendar periods end at midnight: the same days either way)
    one_day = np.int64(86_400_000_000)  # microseconds, the unit of days and ends
    look = np.searchsorted(days, ends - one_day, side="right") - 1 if D else np.full(n_p, -1)
    if D:
        look[-1] = D - 1
    tol_text = "0" if not tolerance else f"+-{tolerance:g}"

    # the per-bin records as plain lists, in (period, slice, bin) order (one conversion, not one per value)
    def listed(a: np.ndarray) -> list[Any]:
        v = np.asarray(a, dtype=np.float64)
        return np.where(np.isfinite(v), v, np.nan).astype(object).tolist() if v.size else []

    def none_for_nan(a: np.ndarray) -> list[Any]:
        return [None if x != x else x for x in listed(a)]

    if D:
        at = np.maximum(look, 0)  # (n_s, B, n_p) -> (n_p, n_s, B), flattened like k * B + bin
        seq_n = np.where(look >= 0, b_labels[:, :, at], 0).transpose(2, 0, 1).reshape(-1)
        seq_lo = np.where(seq_n > 0, b_low[:, :, at].transpose(2, 0, 1).reshape(-1), np.nan)
        seq_hi = np.where(seq_n > 0, b_high[:, :, at].transpose(2, 0, 1).reshape(-1), np.nan)
        seq_alert = (seq_n > 0) & ((seq_lo > tolerance) | (seq_hi < -tolerance))
    else:
        seq_n = np.zeros(K * B)
        seq_lo = seq_hi = np.full(K * B, np.nan)
        seq_alert = np.zeros(K * B, dtype=bool)
    L = {"rows": b_rows.astype(np.int64).tolist(), "conf": none_for_nan(b_conf), "lab": b_lab.astype(np.int64).tolist(),
         "rate": none_for_nan(b_rate), "lo": none_for_nan(b_lo), "hi": none_for_nan(b_hi), "has": b_has.tolist(),
         "est": listed(b_ppi["estimate"]), "est_lo": listed(b_ppi["ci_low"]), "est_hi": listed(b_ppi["ci_high"]),
         "lam": listed(b_ppi["lam"]), "labels": np.asarray(b_sums.n).astype(np.int64).tolist(),
         "seq_lo": none_for_nan(seq_lo), "seq_hi": none_for_nan(seq_hi), "seq_n": seq_n.astype(np.int64).tolist(),
         "alert": seq_alert.tolist(), "note": [FLAT if x else None for x in b_flat.tolist()]}
    lo_edges, hi_edges = edges[:-1].tolist(), edges[1:].tolist()

    alarms = SequenceAlarms(sequential=alerts == "sequential")
    prior_shift: dict[int, str] = {}  # slice index -> why CBPE is withdrawn from then on
    rejected: dict[int, str | None] = {}  # slice index -> the latest judged window's rejection of calibration
    new_rows = []
    for pi in range(n_p):
        j = int(look[pi])
        for si in range(n_s):
            k = pi * n_s + si
            r = rows[k]
            rec = records[k]
            cbpe: dict[str, Any] | None = rec["estimate_cbpe"] if r.rows else None
            if r.labelled >= min_count:  # the window tests judged this window's final labels
                rejected[si] = _calibration_rejected(r, alerts == "sequential")
            if si in prior_shift and cbpe is not None:
                cbpe = {"estimate": None, "ci_low": None, "ci_high": None, "withdrawn": prior_shift[si]}
            elif rejected.get(si) and cbpe is not None and r.estimate is not None:
                cbpe = {**cbpe, "caveat": rejected[si]}
            details = dict(r.details)
            notes = [x for x in (nonrandom[k], rec["note"]) if x]
            if notes and rec["estimate_ppi"]:
                details["ppi_note"] = "; ".join(notes)
            provisional = None
            unfinished = r.pending > 0
            if unfinished and (early_n[k] > 0 or rec["estimate_ppi"]):
                if rec["estimate_ppi"]:
                    provisional = {"basis": "ppi", **rec["estimate_ppi"]}
                else:
                    lo_, hi_ = binomial_interval(seen_pos[k], seen_n[k], method="wilson", level=level)
                    provisional = {
                        "basis": "partial labels", "labels": int(seen_n[k]), "rate": float(seen_pos[k] / seen_n[k]),
                        "ci_low": float(lo_), "ci_high": float(hi_),
                        # the mean score of the same rows: what their rate is set against
                        "mean_score": float(seen_sp[k] / seen_n[k]),
                        "caveat": "early labels are not a random sample (e.g. confirmed positives arrive first)"}
            seq_low = seq_high = None
            if j >= 0:
                seq_low, seq_high = float(low[si, j]), float(high[si, j])
            bin_rows = [{
                "bin": b_names[bj], "lo": lo_edges[bj], "hi": hi_edges[bj], "rows": L["rows"][f], "conf": L["conf"][f],
                "labelled": L["lab"][f], "rate": L["rate"][f], "ci_low": L["lo"][f], "ci_high": L["hi"][f],
                "estimate_ppi": None if not L["has"][f] else {
                    "estimate": L["est"][f], "ci_low": L["est_lo"][f], "ci_high": L["est_hi"][f], "lam": L["lam"][f],
                    "labels": L["labels"][f], "sufficient": L["labels"][f] >= MIN_PPI_LABELS,
                    "note": L["note"][f]},
                "sequence_low": L["seq_lo"][f], "sequence_high": L["seq_hi"][f], "sequence_labels": L["seq_n"][f],
                "alert": L["alert"][f]} for bj, f in enumerate(range(k * B, k * B + B))]
            alerts_now: list[str] = list(r.alerts)
            if alerts == "sequential":
                alerts_now = [a for a in alerts_now if not a.startswith(("calibration", "slope", "score shift"))]
                # an empty window (status "empty") carries no alert: the slice's alarm is on its windows
                # with rows
                if r.rows and seq_low is not None and seq_high is not None and (
                        seq_low > tolerance or seq_high < -tolerance):
                    alerts_now.append(f"sequential: {gap_text(seq_low, seq_high, tol_text)} "
                                      f"(anytime-valid at alpha {alpha_all:.2g})")
                for br in bin_rows if r.rows else ():
                    if br["alert"]:
                        alerts_now.append(f"sequential: scores in {br['bin']}: "
                                          f"{gap_text(br['sequence_low'], br['sequence_high'], tol_text)} "
                                          f"(anytime-valid at alpha {alpha_bin:.2g})")
            st = r.status
            if alerts == "sequential":  # no window test ran: a window with labels and no alert is not tested
                st = row_status(r.rows, r.labelled, bool(alerts_now), min_count, alerts)
            e_ppi = rec["estimate_ppi"]
            if e_ppi is not None:  # calibration-in-the-large from the audit labels: rate - score, its interval
                e_ppi = {**e_ppi, "rate_minus_score": rec["rectifier"]}
            new_rows.append(replace(r, alerts=_alerts(alerts_now, r.period, r.slice), status=st, details=details,
                                    estimate_ppi=e_ppi, gap_ppi=_gap_ppi(e_ppi, r.mean_score),
                                    gap_audit=None if e_ppi is None else rec["rectifier"],
                                    confusion_ppi=confusion[k], estimate_cbpe=cbpe,
                                    provisional=provisional,
                                    sequence_low=seq_low, sequence_high=seq_high, bins=bin_rows,
                                    diagnosis=r.diagnosis if alerts == "window" or alerts_now else None,
                                    fix=r.fix if alerts == "window" or alerts_now else None))
            if r.diagnosis and r.diagnosis.startswith("prior shift") and si not in prior_shift:
                # with sequential alerts a window without one shows no diagnosis: say whose diagnosis it is
                hidden = alerts == "sequential" and not alerts_now
                moved = r.diagnosis.split(": ", 1)[1].split(",")[0]
                prior_shift[si] = (f"prior shift diagnosed in {r.period} ({moved})"
                                   + (" by the window tests on its final labels, which raise no alert with "
                                      "sequential alerts" if hidden else "")
                                   + "; the label-free estimate assumes the old prior; use the PPI estimate "
                                   f"or {r.fix}")
    if alerts == "sequential" and D:
        for si, name in enumerate(names):
            # the first day any of the slice's sequences (overall, or a score bin) left the calibrated region
            hits = [(int(alarm[si]), -1)] + [(int(b_alarm[si, bj]), bj) for bj in range(B)]
            hits = [h for h in hits if h[0] >= 0]
            if not hits:
                continue
            jd, bj = min(hits)
            lo_, hi_ = (low[si, jd], high[si, jd]) if bj < 0 else (b_low[si, bj, jd], b_high[si, bj, jd])
            alarms[name] = {"day": str(np.datetime64(int(days[jd]), "us").astype("datetime64[D]")),
                            "labels": int(labels_so_far[si, jd]), "low": float(lo_), "high": float(hi_),
                            "bin": None if bj < 0 else b_names[bj]}
    return replace(status, rows=tuple(new_rows), sequence_alarms=alarms)
