"""Session 39 (speed-only guard): ppi_records judges calibration in one vectorised call over its windows, and
ppi_from_sums hands its power-tuning variance to flat_scores instead of computing it twice. Both must give
what the window-by-window judgement and the recomputed variance give, bit for bit."""

from __future__ import annotations

import numpy as np

from veracity.delayed import PpiSums, ppi_from_sums, ppi_records
from veracity.delayed._ppi_sums import RATE_BOUNDS, cut_to_range, flat_scores, judged_calibrated, tuning_terms


def _mixed_windows(seed: int = 39, reps: int = 240) -> PpiSums:
    """Windows of every kind: rare and common outcomes, calibrated and not, equal and uneven weights, fewer
    than 2 labels, constant scores."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(reps):
        n = int(rng.choice([0, 1, 2, 5, 30, 120, 400]))
        m = int(rng.choice([0, 50, 2000]))
        rate = float(rng.choice([0.005, 0.03, 0.3]))
        q = rng.beta(1, 1 / rate - 1, n + m)
        f = np.clip(q * rng.choice([0.3, 1.0, 3.0]), 0, 1)  # calibrated or not
        if i % 17 == 0:
            f = np.full(n + m, 0.4)
        y = (rng.random(n) < q[:n]).astype(float)
        w = rng.lognormal(0, 1, n) if i % 3 == 0 else None
        u = rng.lognormal(0, 1, m) if i % 3 == 0 else None
        rows.append(PpiSums.of(y, f[:n], f[n:], w, u))
    fields = PpiSums.__dataclass_fields__
    return PpiSums(**{k: np.array([float(getattr(r, k)) for r in rows]) for k in fields})


def _judged_one_by_one(sums: PpiSums, level: float) -> list[bool | None]:
    """The judgement of ppi_records as it was written window by window (before session 39)."""
    from veracity.delayed._ppi_sums import weighted_gap_interval

    out = ppi_from_sums(sums, level=level)
    cut_to_range(out, RATE_BOUNDS)
    weighted_gap_interval(out, sums, level)
    n = np.asarray(sums.n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        eff = np.asarray(sums.w) ** 2 / np.asarray(sums.w2)
    w_, wy, wf = np.asarray(sums.w), np.asarray(sums.wy), np.asarray(sums.wf)
    unweighted = (w_ == n) & (np.asarray(sums.w2) == n)
    res: list[bool | None] = []
    for i in range(n.size):
        if not (n[i] >= 2 and np.isfinite(out["estimate"][i])):
            res.append(None)
            continue
        plain = unweighted[i]
        res.append(bool(judged_calibrated(out["rectifier_low"][i], out["rectifier_high"][i],
                                          out["rectifier_se"][i], min(n[i], eff[i]), level,
                                          label_se=out["classical_se"][i],
                                          rectifier=out["rectifier"][i],
                                          positives=wy[i] if plain else wy[i] / w_[i] * eff[i],
                                          expected=wf[i] if plain else wf[i] / w_[i] * eff[i],
                                          rare_n=None if plain else eff[i])))
    return res


def test_records_judge_every_window_as_the_window_by_window_judgement():
    sums = _mixed_windows()
    for level in (0.9, 0.95, 0.99):
        got = [r["calibrated"] for r in ppi_records(sums, level=level)]
        want = _judged_one_by_one(sums, level)
        assert got == want
        assert None in got and True in got and False in got  # the windows cover every verdict


def test_flat_scores_with_the_callers_variance_is_flat_scores():
    sums = _mixed_windows(40)
    with np.errstate(divide="ignore", invalid="ignore"):
        _, var_all, _ = tuning_terms(sums)
    a, b = flat_scores(sums), flat_scores(sums, var_all)
    assert np.array_equal(a, b) and a.any() and not a.all()
