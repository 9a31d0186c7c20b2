r"""Status rows from the grouped sums: per-window calibration, the three alert tests and the
diagnosis of a calibration alert; see :mod:`veracity.monitoring._status`.

The calibration alert fires when the realised positives :math:`\sum y` of a window's labelled rows
fall outside :func:`count_interval` at level :math:`1 - \alpha_t`,
:math:`\alpha_t = (1 - \text{alert\_level})/3`: whole numbers ``[expected_low, expected_high]`` from
:math:`E = \sum p`, :math:`V = \sum p(1-p)` and :math:`K_3 = \sum p(1-p)(1-2p) = \sum p - 3\sum p^2 +
2\sum p^3` of those rows (equal tails, each at most :math:`\alpha_t/2`). Exact false-alarm rates (the
Poisson-binomial by convolution, tests/monitoring/test_alert_level_r31.py) stay at most :math:`\alpha_t`;
:math:`E \mp (z_t\sqrt V + \tfrac12)` fired up to 0.0050 at :math:`\alpha_t` = 0.0033 on rare events
(:math:`P(X \ge 7)` = 0.0045 at :math:`E` = 2), its upper tail alone above :math:`\alpha_t/2` on the
test grid up to :math:`E \approx 110`. ``details["z"]`` is the continuity-corrected gap in standard
deviations, reported only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._special import expit
from ..core._binning import bin_index, uniform_edges
from ..core._formulas import brier_from_stats, ece_from_stats, nll_from_stats
from ..core._count_interval import count_interval
from ..core._intervals import binomial_interval
from ..core._stats import BinStats
from ..core._validation import VeracityError
from ._alerts import _alerts
from ._slice_names import slice_order
from ._shift import PSI_MATERIAL, chi2_homogeneity, population_stability
from ._estimate import estimate_from_sums
from ._time import period_label
from ._status_query import _logistic
from ._status_rows import ALL, CELLS, REF_ROWS_FACTOR, StatusRow, StoreStatus, _Settings, row_status


def _next_start(starts: np.ndarray, freq: str | None, window_s: float | None) -> np.datetime64:
    last = starts[-1]
    if window_s is not None:
        return last + np.timedelta64(int(round(window_s * 1e6)), "us")
    if freq == "D":
        return last + np.timedelta64(1, "D")
    if freq == "W":
        return last + np.timedelta64(7, "D")
    m = last.astype("datetime64[M]") + (3 if freq == "Q" else 1)
    return m.astype("datetime64[us]")


def _assemble(g: dict[str, np.ndarray], starts: np.ndarray, freq: str | None, window_s: float | None,
              as_of: np.datetime64, by: str | None, bins: int, level: float, min_count: int,
              reference: str | None, threshold: float, cost_fp: float, cost_fn: float,
              settings: _Settings) -> StoreStatus:
    labels = [period_label(s, freq, window_s) for s in starts]
    ends = list(starts[1:]) + [_next_start(starts, freq, window_s)]
    n_p = len(starts)
    pidx = np.searchsorted(starts.astype(np.int64), np.asarray(g["period"], dtype=np.int64))
    slice_names = np.asarray(g["slice"]).astype(str)
    # (all) first, then the slices in vc.audit's order of their keys (9 before 10), (missing) last
    names = [ALL] if by is None else [ALL] + slice_order(slice_names.tolist())
    uniq, inv = np.unique(slice_names, return_inverse=True)
    position = {name: i for i, name in enumerate(names)}
    sidx = np.array([position[u] for u in uniq.tolist()], dtype=np.int64)[inv.reshape(-1)] if by else \
        np.zeros(slice_names.size, np.int64)
    n_s = len(names)
    # every group counts for its own slice and, when slicing, for (all) too
    if by is not None:
        pidx = np.concatenate([pidx, pidx])
        sidx = np.concatenate([sidx, np.zeros_like(sidx)])
        g = {k: np.concatenate([np.asarray(v), np.asarray(v)]) for k, v in g.items()}
    key = pidx * n_s + sidx
    K = n_p * n_s
    state = np.asarray(g["state"])
    y = np.asarray(g["y"], dtype=np.float64)
    b = np.asarray(g["bin"], dtype=np.int64)
    n, sp, sp2 = (np.asarray(g[c], dtype=np.float64) for c in ("n", "sp", "sp2"))
    snll, seta = np.asarray(g["snll"], dtype=np.float64), np.asarray(g["seta"], dtype=np.float64)
    flag = np.asarray(g["flag"]) == 1
    lab = state == 0
    pos = lab & (y == 1)

    def per_key_bin(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(key[mask] * bins + b[mask], weights=values[mask], minlength=K * bins).reshape(K, bins)

    def per_key(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(key[mask], weights=values[mask], minlength=K)

    count = per_key_bin(lab, n)
    s_p, s_y = per_key_bin(lab, sp), per_key_bin(pos, n)
    s_p2, s_py, s_nll = per_key_bin(lab, sp2), per_key_bin(pos, sp), per_key_bin(lab, snll)
    # the residual sums (BinStats.sum_r, sum_q1, sum_r2) as an in-memory audit carries them: each label's
    # Σ(p - y) is a sum of one sign (p at y = 0, p - 1 at y = 1), so a bin's Σ(p - y) is one rounding of the
    # two and Σ_{y=1}(1 - p) is exact as summed; the Brier score is Σ(p - y)², never Σp² - 2Σpy + Σy
    sr, sr2 = np.asarray(g["sr"], dtype=np.float64), np.asarray(g["sr2"], dtype=np.float64)
    r_pos = per_key_bin(pos, sr)
    s_r, s_q1, s_r2 = per_key_bin(lab & (y == 0), sr) + r_pos, -r_pos, per_key_bin(lab, sr2)
    hist = per_key_bin(np.ones_like(lab), n)
    hist_pos, hist_neg = per_key_bin(pos, n), per_key_bin(lab & (y == 0), n)
    rows_all = per_key(np.ones_like(lab), n)
    sp_all = per_key(np.ones_like(lab), sp)  # Σp of every row, labelled or not: the window's mean score
    pending = per_key((state == 1) | (state == 3), n)  # early labels are not final: still pending
    overdue = per_key(state == 2, n)
    unl = state != 0
    est_parts = {name: per_key(unl & f, v) for name, f, v in (
        ("sp_hi", flag, sp), ("n_hi", flag, n), ("sp_lo", ~flag, sp), ("n_lo", ~flag, n))}
    # Σp(1 - p) and Σp(1 - p)(1 - 2p) = Σp - 3Σp² + 2Σp³: the label-free interval's variance and third cumulant
    est_var = per_key(unl, sp - sp2)
    sp3 = np.asarray(g["sp3"], dtype=np.float64)
    est_k3 = per_key(unl, sp - 3.0 * sp2 + 2.0 * sp3)
    lab_k3 = per_key(lab, sp - 3.0 * sp2 + 2.0 * sp3)  # the calibration alert's K3 (labelled rows)
    edges = uniform_edges(bins)  # the audit's edges: store statistics merge with an audit's
    alpha_t = (1.0 - settings["alert_level"]) / 3.0

    # the reference: named periods ("A" or "A..B"), or from the first period with min_count labelled
    # rows, consecutive periods pooled until they hold REF_ROWS_FACTOR * min_count rows (a small
    # reference would make every later window look shifted at once)
    labelled_all = count.sum(axis=1).reshape(n_p, n_s)[:, 0]
    rows_p = rows_all.reshape(n_p, n_s)[:, 0]
    if reference is not None:
        first_name, _, last_name = str(reference).partition("..")
        for name in (first_name, last_name or first_name):
            if name not in labels:
                raise VeracityError(f"reference period {name!r} not found; periods: {', '.join(labels[:8])}"
                                    + (" ..." if len(labels) > 8 else ""))
        ref_ps = list(range(labels.index(first_name), labels.index(last_name or first_name) + 1))
        if not ref_ps:
            raise VeracityError(f"reference {reference!r} runs backwards; write FIRST..LAST")
        if not rows_p[ref_ps].sum():  # every PSI would be n/a and every diagnosis compare with nothing
            held = [labels[i] for i in np.flatnonzero(rows_p > 0)[:8]]
            raise VeracityError(f"reference {reference!r} holds no predictions; name periods with rows (e.g. "
                                f"{', '.join(held)})", param="reference")
    else:
        ok = np.flatnonzero(labelled_all >= min_count)
        first = int(ok[0]) if ok.size else int(np.flatnonzero(rows_p > 0)[0])
        ref_ps = [first]
        while rows_p[ref_ps].sum() < REF_ROWS_FACTOR * min_count and ref_ps[-1] + 1 < n_p - 1:
            ref_ps.append(ref_ps[-1] + 1)
    ref_label = labels[ref_ps[0]] if len(ref_ps) == 1 else f"{labels[ref_ps[0]]}..{labels[ref_ps[-1]]}"
    in_ref = set(ref_ps)

    def with_reference(a: np.ndarray) -> np.ndarray:  # key K + si holds the pooled reference of slice si
        pooled = a[:K].reshape((n_p, n_s) + a.shape[1:])[ref_ps].sum(axis=0)
        return np.concatenate([a, pooled])

    # every per-bin sum is pooled, the full statistics too: the reference holds what a window holds
    count, s_p, s_y, s_p2, s_py, s_nll, s_r, s_q1, s_r2, hist, hist_pos, hist_neg, rows_all = map(
        with_reference,
        (count, s_p, s_y, s_p2, s_py, s_nll, s_r, s_q1, s_r2, hist, hist_pos, hist_neg, rows_all))
    cell_data = _cells(key, lab, y, np.asarray(g["cell"], dtype=np.int64), n, seta, sp, b, bins, K)

    rows: list[StatusRow] = []
    stats_out: dict[tuple[str, str], BinStats] = {}
    nan = float("nan")
    for pi in range(n_p):
        for si in range(n_s):
            k = pi * n_s + si
            rk = K + si
            nl = float(count[k].sum())
            stats = BinStats(edges, "uniform", count[k].astype(np.int64), count[k].copy(), count[k].copy(),
                             s_p[k], s_y[k], sum_p2=s_p2[k], sum_py=s_py[k], sum_nll=s_nll[k], sum_r=s_r[k],
                             sum_q1=s_q1[k], sum_r2=s_r2[k])
            if nl:
                stats_out[(labels[pi], names[si])] = stats
            details: dict[str, Any] = {}
            alerts: list[str] = []
            conf = rate = ci_low = ci_high = ece = brier = nll = citl = slope = slope_p = nan
            exp_pos = real_pos = nan
            if nl > 0:
                conf = float(s_p[k].sum() / nl)
                rate = float(s_y[k].sum() / nl)
                lo_, hi_ = binomial_interval(np.asarray(rate * nl), np.asarray(nl), method="wilson",
                                             level=level)
                ci_low, ci_high = float(lo_), float(hi_)
                ece, brier, nll = ece_from_stats(stats), brier_from_stats(stats), nll_from_stats(stats)
                exp_pos, real_pos = float(s_p[k].sum()), float(s_y[k].sum())
                var = max(float(s_p[k].sum() - s_p2[k].sum()), 0.0)
                sd = float(np.sqrt(var))
                # the promise: count_interval at 1 - alpha_t, whole numbers from Σp, Σp(1-p), Σp(1-p)(1-2p);
                # the alert fires outside it (Σp -+ (z_t sd + 1/2) fired up to 0.0050 at alpha_t = 0.0033 for
                # rare events: 7 positives at Σp = 2). Scores of exactly 0 and 1 (V = 0) promise the count
                # itself.
                # z: the continuity-corrected gap in standard deviations, reported, not the test
                exp_low, exp_high = count_interval(exp_pos, var, float(lab_k3[k]), nl, 1.0 - alpha_t)
                miss = max(abs(real_pos - exp_pos) - 0.5, 0.0)
                details.update(expected_low=exp_low, expected_high=exp_high,
                               z=np.sign(real_pos - exp_pos) * (miss / sd if sd > 0 else np.inf if miss else 0.0))
                # the slope is judged only where alerts are (>= min_count labelled rows): a logistic fit
                # on a handful of rows is noise, and fitting every small slice dominated the time
                fit = _fit_cells(cell_data, k) if nl >= min_count else None
                if fit is not None:
                    citl, _, slope, slope_se, slope_p = fit
                    details["slope_se"] = slope_se
                    if min(real_pos, nl - real_pos) < SLOPE_EVENTS:
                        # the Wald test of a slope fit to a handful of positives (or negatives) rejects far
                        # more often than its level: no p-value, no alert, no "slope differs" diagnosis
                        slope_p = nan
            psi = shift_p = nan
            if rows_all[k] > 0 and rows_all[rk] > 0:
                psi = population_stability(hist[k], hist[rk])
                if pi not in in_ref:
                    shift_p = chi2_homogeneity(hist[k], hist[rk])
            # -- alerts (sample-size aware) --
            if nl >= min_count:
                if not details["expected_low"] <= real_pos <= details["expected_high"]:
                    alerts.append(
                        f"calibration: {real_pos:.0f} positives observed, the scores promised {exp_pos:.1f} "
                        f"[{details['expected_low']:.0f}, {details['expected_high']:.0f}] "
                        f"(rate {rate:.4f} vs conf {conf:.4f})")
                if slope_p == slope_p and slope_p < alpha_t:
                    alerts.append(f"slope {slope:.2f} (p = {slope_p:.2g}; 1 when calibrated: "
                                  f"{'over' if slope < 1 else 'under'}-confident scores)")
            if (pi not in in_ref and rows_all[k] >= min_count and rows_all[rk] >= min_count and shift_p == shift_p
                    and shift_p < alpha_t and psi >= PSI_MATERIAL):
                alerts.append(f"score shift vs {ref_label}: PSI {psi:.3f}, chi-square p = {shift_p:.2g}")
            diagnosis = fix = None
            if nl >= min_count and any(a.startswith(("calibration", "slope")) for a in alerts):
                diagnosis, fix, extra = _diagnose(k, rk, count, s_p, s_y, hist_pos, hist_neg, slope_p,
                                                  alpha_t, cell_data, edges, ref_label, pi in in_ref)
                details.update(extra)
            n_unl = float(pending[k] + overdue[k])
            if diagnosis is None and alerts:
                diagnosis = _shift_only_diagnosis(nl, min_count, n_unl)
            estimate = None
            if n_unl > 0:
                estimate = estimate_from_sums(
                    n=n_unl, sum_p=est_parts["sp_hi"][k] + est_parts["sp_lo"][k], var=est_var[k],
                    k3=est_k3[k],
                    sum_p_hi=est_parts["sp_hi"][k], n_hi=est_parts["n_hi"][k], sum_p_lo=est_parts["sp_lo"][k],
                    n_lo=est_parts["n_lo"][k], level=level, threshold=threshold, cost_fp=cost_fp, cost_fn=cost_fn)
            # the window tests' verdict (a sequential status re-decides it, _status_delayed)
            status = row_status(float(rows_all[k]), nl, bool(alerts), min_count, "window")
            rows.append(StatusRow(
                period=labels[pi], start=str(starts[pi].astype("datetime64[s]")),
                end=str(np.datetime64(ends[pi], "s")), slice=names[si], rows=int(rows_all[k]),
                labelled=int(nl), pending=int(pending[k]), overdue=int(overdue[k]), conf=conf, rate=rate,
                ci_low=ci_low, ci_high=ci_high, ece=ece, brier=brier, nll=nll, citl=citl, slope=slope,
                slope_p=slope_p, psi=psi, shift_p=shift_p, status=status,
                alerts=_alerts(alerts, labels[pi], names[si]),
                diagnosis=diagnosis, fix=fix, expected_positives=exp_pos, realised_positives=real_pos,
                estimate=estimate, details=details,
                mean_score=float(sp_all[k] / rows_all[k]) if rows_all[k] > 0 else nan))
    return StoreStatus(rows=tuple(rows), reference=ref_label, stats=stats_out, **settings)


def _shift_only_diagnosis(labelled: float, min_count: int, unlabelled: float) -> str:
    """The diagnosis of a window whose only alert is the score shift. With ``min_count`` final labels the
    calibration (and slope) tests ran on them and did not fire: calibration held on those rows, and only
    the rows still without a final label are left to the label-free estimate, which assumes it still
    does (it is printed only for a window with such rows)."""
    if labelled >= min_count:
        rest = (f"; the label-free estimate of its {unlabelled:.0f} rows without a final label assumes it "
                "still does" if unlabelled else "")
        return (f"score distribution moved; calibration held on its {labelled:.0f} final labels (its "
                f"calibration and slope tests pass){rest}")
    return ("score distribution moved; labels will tell whether calibration held"
            + (" — the label-free estimate below assumes it did" if unlabelled else ""))


@dataclass(frozen=True, eq=False)
class _Cells:
    key: np.ndarray
    y: np.ndarray
    n: np.ndarray
    eta: np.ndarray
    order: np.ndarray
    bounds: np.ndarray


#: the fewest positives (and negatives) a window's slope is tested on. Skewed calibrated scores
#: (Beta(0.5, 20), 150 rows: about 4 positives a window) drew slope alerts at 3.5 times the level of the
#: default alert (1.2 % for 0.33 %), and the likelihood-ratio and score tests did little better; from 10
#: events of each class the Wald test is near its level (the events-per-variable rule of logistic regression)
#: but still above it on skewed scores: seeded simulations of calibrated windows (session 35; 40,000-400,000
#: each) rejected 0.29-0.31 % at Beta(2, 3) with 100-150 rows, 0.35-0.36 % at uniform scores with 100 rows,
#: and 0.42-0.47 % at Beta(0.5, 20) with 300-800 rows (10-30 positives, the excess at slopes below 1). The
#: likelihood ratio rejected 0.37 % and 0.40 % there; rejecting only where both do held 0.14 % but cost
#: power against over-confident scores (slope 0.6, Beta(2, 3), 200 rows: 28 % against Wald's 33 %)
SLOPE_EVENTS = 10


def _cells(key: np.ndarray, lab: np.ndarray, y: np.ndarray, cell: np.ndarray, n: np.ndarray, seta: np.ndarray,
           sp: np.ndarray, b: np.ndarray, bins: int, K: int) -> _Cells:
    """Labelled groups merged to (key, label, logit cell): weights and mean logits, sorted by key."""
    m = lab
    code = (key[m] * 2 + y[m].astype(np.int64)) * CELLS + cell[m]
    uniq, inv = np.unique(code, return_inverse=True)
    w = np.bincount(inv, weights=n[m])
    e = np.bincount(inv, weights=seta[m]) / w
    k_of = uniq // (2 * CELLS)
    y_of = (uniq // CELLS) % 2
    bounds = np.searchsorted(k_of, np.arange(K + 1))
    return _Cells(k_of, y_of.astype(np.float64), w, e, np.arange(uniq.size), bounds)


def _fit_cells(c: _Cells, k: int) -> tuple[float, float, float, float, float] | None:
    sl = slice(c.bounds[k], c.bounds[k + 1])
    y, w, eta = c.y[sl], c.n[sl], c.eta[sl]
    if y.size == 0 or y.min() == y.max() or np.ptp(eta) == 0:
        return None
    try:
        return _logistic(eta, y, w)
    except VeracityError:  # separated or singular: no slope for this window
        return None


def _diagnose(k: int, rk: int, count: np.ndarray, s_p: np.ndarray, s_y: np.ndarray, hist_pos: np.ndarray,
              hist_neg: np.ndarray, slope_p: float, alpha_t: float, cells: _Cells, edges: np.ndarray,
              ref_label: str, in_reference: bool) -> tuple[str, str, dict[str, Any]]:
    r"""Prior shift vs likelihood shift vs plain miscalibration (see the module doc), each test at
    :math:`\alpha_t`:

    * the base rate moved: Fisher's exact test (two-sided, ``scipy.stats.fisher_exact``) of the window's
      labelled positives against the reference's, ``rate_p``. ``rate_z``, the two-proportion z of
      :math:`\pi_{new} - \pi_{old}` it replaces, is reported only: with a 2 % base rate, 30-50 labelled
      rows a window and a calibrated reference ten times larger it rejected 0.0067-0.0071 of windows of
      the reference's rate at level 0.0033 (Fisher's 0.0013-0.0014);
    * the class-conditional score histograms are stable (chi-square, ``class_scores_p``) and the slope
      is consistent with 1;
    * ``adjust_prior(p, old, new)`` restores the count: the realised positives lie in
      :func:`count_interval` at :math:`1 - \alpha_t` of the adjusted :math:`p'`
      (:math:`\sum p'`, :math:`\sum p'(1-p')`, :math:`\sum p'(1-p')(1-2p')`), ``adjusted_low`` and
      ``adjusted_high`` — the calibration alert's own rule (:math:`|y - \sum p'| \le z\sqrt{\sum p'(1-p')}`
      cut the right-skewed count's upper tail short at small :math:`\sum p'`, as the module doc says of the
      alert's old rule).

    Fisher's test holds its level whatever the two windows' sizes and takes milliseconds at 30,000
    rows a side. The exact binomial test of the window's count against :math:`\pi_{old}` read as known
    (the reference's mean confidence) rejected 0.016-0.019 at level 0.0033 where the reference is no
    larger than the window (its mean is noisy too); Boschloo's and Barnard's unconditional tests,
    more powerful on a handful of rows, took 15 s at 200 vs 2,000 rows. Fisher's test is conditional,
    so conservative on few events: of the 58 alerted 100-row windows of a pure prior shift (0.05 ->
    0.15) in tests/monitoring/test_diagnose_r32.py it calls 40 a prior shift (the z: 46).
    """
    from scipy.stats import fisher_exact

    from ..calibrators import adjust_prior

    n_k, n_r = count[k].sum(), count[rk].sum()
    pos_k, pos_r = float(s_y[k].sum()), float(s_y[rk].sum())
    pi_new = pos_k / n_k
    # the prior the scores embody: the reference's mean confidence (its labelled rate is noisier)
    pi_old = float(s_p[rk].sum() / n_r) if n_r else float("nan")
    extra: dict[str, Any] = {"prior_old": pi_old, "prior_new": pi_new}
    recalibrate = "recalibrate on a mature window (veracity monitor recalibrate)"
    if not in_reference and not n_r:  # nothing labelled to compare with: the cause cannot be told
        return (f"miscalibration; the reference {ref_label} has no labelled rows here to tell a prior shift from "
                "a changed score-outcome relation", recalibrate, extra)
    if in_reference:
        return "miscalibration in the reference window itself", recalibrate, extra
    if not 0 < pi_old < 1:  # no prior to adjust from
        return (f"miscalibration; the reference's mean confidence is {pi_old:.4g}, so adjust_prior cannot "
                "tell a prior shift from a changed score-outcome relation", recalibrate, extra)
    # the base rate against the reference's: Fisher's exact test on the two windows' labelled counts
    table = [[int(round(pos_k)), int(round(n_k - pos_k))], [int(round(pos_r)), int(round(n_r - pos_r))]]
    rate_p = float(fisher_exact(table).pvalue)
    rate_moved = rate_p < alpha_t
    extra["rate_p"] = rate_p
    if not 0 < pi_new < 1:  # no prior to adjust to
        return (f"miscalibration; the window's rate is {pi_new:.4g} ({pos_k:.0f} positives of {n_k:.0f} "
                "final labels), so adjust_prior cannot tell a prior shift from a changed score-outcome relation"
                + (f" (the base rate moved from {pos_r / n_r:.4g} in {ref_label}: p = {rate_p:.2g})"
                   if rate_moved else ""),
                recalibrate, extra)
    pooled = (pos_k + pos_r) / (n_k + n_r)
    z_rate = (pi_new - pi_old) / np.sqrt(pooled * (1 - pooled) * (1 / n_k + 1 / n_r))
    p_pos = chi2_homogeneity(hist_pos[k], hist_pos[rk])
    p_neg = chi2_homogeneity(hist_neg[k], hist_neg[rk])
    cond_stable = not (p_pos == p_pos and p_pos < alpha_t) and not (p_neg == p_neg and p_neg < alpha_t)
    slope_ok = not (slope_p == slope_p and slope_p < alpha_t)
    # apply the prior correction on the logit cells and re-test the realised count
    sl = slice(cells.bounds[k], cells.bounds[k + 1])
    w, eta, y = cells.n[sl], cells.eta[sl], cells.y[sl]
    p_adj = adjust_prior(expit(eta), pi_old, pi_new)
    q_adj = p_adj * (1 - p_adj)
    adj_low, adj_high = count_interval(float(np.dot(w, p_adj)), float(np.dot(w, q_adj)),
                                       float(np.dot(w, q_adj * (1 - 2 * p_adj))), float(n_k), 1.0 - alpha_t)
    real = float(np.dot(w, y))
    adj_ok = adj_low <= real <= adj_high
    idx = bin_index(p_adj, edges, "uniform")
    bw = np.bincount(idx, weights=w, minlength=edges.size - 1)
    bp = np.bincount(idx, weights=w * p_adj, minlength=edges.size - 1)
    by_ = np.bincount(idx, weights=w * y, minlength=edges.size - 1)
    extra.update(ece_after_adjust=float(np.abs(by_ - bp).sum() / bw.sum()), class_scores_p=[p_neg, p_pos],
                 rate_z=float(z_rate), adjusted_low=adj_low, adjusted_high=adj_high)
    if rate_moved and slope_ok and cond_stable and adj_ok:
        return (f"prior shift: base rate {pi_old:.4g} (mean confidence in {ref_label}) -> {pi_new:.4g}, scores "
                "within each class stable, slope consistent with 1",
                f"vc.adjust_prior(p, old={pi_old:.4g}, new={pi_new:.4g})", extra)
    if not rate_moved and cond_stable and slope_ok:
        # "detected": on a few dozen labels the class histograms' tests see little (over-confident scores of
        # 40-row windows: 57 of 75 alerts read so)
        return ("miscalibration without a detected change in base rate or class-conditional scores",
                recalibrate, extra)
    why = []
    if not slope_ok:
        why.append("slope differs from 1")
    if not cond_stable:
        why.append("scores within a class changed")
    if rate_moved and not adj_ok:
        why.append("adjust_prior does not restore it")
    return ("likelihood/concept shift: " + ", ".join(why or ["the score-outcome relation changed"]),
            "recalibrate on a recent mature window (veracity monitor recalibrate) or retrain", extra)
