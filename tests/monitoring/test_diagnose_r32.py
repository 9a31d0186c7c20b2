"""The diagnosis of a calibration alert on small windows (30-100 labelled rows): its tests are the
calibration alert's exact ones (_status_assemble._diagnose), seeded simulations of the prior-shift call.

The base-rate test is Fisher's exact test of the window's labelled positives against the reference's
(the two-proportion z it replaces rejected 0.0067-0.0071 of windows of the reference's rate at level
0.0033 with a 2 % base rate and 30-50 rows a window), and adjust_prior's count is judged by
count_interval at 1 - alpha_t, as the alert itself is."""

import numpy as np
import pyarrow as pa
import pytest
from scipy.special import expit, logit
from scipy.stats import binom, fisher_exact, hypergeom

import veracity as vc
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")

T0 = np.datetime64("2026-01-05T00:00", "s")  # a Monday: week 0 is 2026-W02


def _world(rng, n, prior, pi_model, noise=1.0, sep=2.5):
    """x | y ~ N(+-sep/2, noise); the model's p is the posterior under pi_model and noise 1 (calibrated when
    prior == pi_model and noise == 1; another prior alone is a pure prior shift)."""
    y = (rng.random(n) < prior).astype(int)
    x = rng.normal(np.where(y == 1, sep / 2, -sep / 2), noise)
    return expit(sep * x + logit(pi_model)), y


def _status(tmp_path, weeks, min_count):
    rng = np.random.default_rng(0)
    store = MonitorStore(tmp_path / "m.duckdb")
    p = np.concatenate([a for a, _ in weeks])
    y = np.concatenate([b for _, b in weeks])
    ts = np.concatenate([T0 + np.timedelta64(7 * 86400, "s") * w
                         + rng.integers(0, 7 * 86400, a.size).astype("timedelta64[s]")
                         for w, (a, _) in enumerate(weeks)])
    ids = np.arange(p.size)
    store.log(pa.table({"id": ids, "ts": ts, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": ids, "y": y}), id="id", label="y")
    return store.status(freq="W", as_of="2040-01-01", min_count=min_count, reference="2026-W02")


def _diagnosed(rows):
    """The diagnoses of the windows after the reference with a calibration or slope alert."""
    return [r.diagnosis for r in rows[1:]
            if any(str(a).startswith(("calibration", "slope")) for a in r.alerts)]


def test_pure_prior_shift_on_100_row_windows_is_called_a_prior_shift(tmp_path):
    # base rate 0.05 -> 0.15, class-conditional scores unchanged; 1,000 reference rows, 200 windows of 100
    rng = np.random.default_rng(33)
    weeks = [_world(rng, 1000, 0.05, 0.05)] + [_world(rng, 100, 0.15, 0.05) for _ in range(200)]
    st = _status(tmp_path, weeks, min_count=30)
    calls = _diagnosed(st.rows)
    assert len(calls) >= 40  # the calibration alert's power (58 of 200 windows here)
    # 40 of 58: Fisher's test is conditional, so conservative on few events (the old z called 46, but at up
    # to twice its level); the misses read "miscalibration without a detected change ..."
    share = np.mean([c.startswith("prior shift") for c in calls])
    assert share >= 0.6, calls
    for r in st.rows[1:]:
        if r.diagnosis and r.diagnosis.startswith("prior shift"):
            assert r.details["rate_p"] < (1 - 0.99) / 3  # the base-rate test rejected at alpha_t
            assert r.details["adjusted_low"] <= r.realised_positives <= r.details["adjusted_high"]


@pytest.mark.parametrize(("base", "noise", "n_win"), [(0.05, 2.0, 40), (0.1, 2.0, 40), (0.05, 1.5, 100)])
def test_likelihood_shift_on_small_windows_is_not_called_a_prior_shift(tmp_path, base, noise, n_win):
    # the features get noisier (the scores over-confident), the base rate stays: not a prior shift, and no
    # window after the reference is "the reference window itself" (the old text for a window without
    # positives: 18 of the 75 diagnosed 40-row windows at base rate 0.05, 4 of 64 at 0.1, 1 of 31 at 100 rows)
    rng = np.random.default_rng(33)
    weeks = [_world(rng, 10 * n_win, base, base)] + [_world(rng, n_win, base, base, noise=noise)
                                                     for _ in range(150)]
    calls = _diagnosed(_status(tmp_path, weeks, min_count=30).rows)
    assert len(calls) >= 20
    assert np.mean([c.startswith("prior shift") for c in calls]) <= 0.05, calls
    assert not any("reference window itself" in c for c in calls), calls


def test_window_without_positives_is_not_blamed_on_the_reference(tmp_path):
    # 200 rows promising about 20 positives, none observed: a calibration alert on a later window; the
    # base-rate test still runs (Fisher's exact test against the reference's labelled positives), but
    # adjust_prior cannot move a prior to 0
    rng = np.random.default_rng(34)
    ref = _world(rng, 1000, 0.1, 0.1)
    p, _ = _world(rng, 200, 0.1, 0.1)
    st = _status(tmp_path, [ref, (p, np.zeros(200, int))], min_count=30)
    row = st.rows[1]
    assert any(str(a).startswith("calibration") for a in row.alerts)
    assert "reference window itself" not in row.diagnosis
    assert row.diagnosis.startswith("miscalibration; the window's rate is 0 (0 positives of 200 final "
                                    "labels)")
    k_ref = int(ref[1].sum())
    assert f"the base rate moved from {k_ref / 1000:.4g} in 2026-W02" in row.diagnosis
    # oracle: scipy's Fisher exact test on the 2 x 2 table of the two windows' labelled outcomes
    assert row.details["rate_p"] == pytest.approx(fisher_exact([[0, 200], [k_ref, 1000 - k_ref]]).pvalue,
                                                  rel=1e-9)
    assert row.details["rate_p"] < 1e-6
    assert row.fix.startswith("recalibrate")


def test_three_positives_in_30_rows_are_not_a_moved_base_rate(tmp_path):
    # the reference: 300 rows scored 0.02 (the prior the scores embody), 2 of them positive; a window of 30
    # rows scored 0.2/30 with 3 positives: the calibration alert fires (3 against a promise of 0.2), but 3
    # of 30 against 2 of 300 is Fisher's p = 0.0060, not below alpha_t = 0.0033. The two-proportion z read
    # 3.4 (0.1 against the mean confidence 0.02, its pooled rate 5/330) and called a prior shift with
    # adjust_prior(p, old=0.02, new=0.1): a fivefold prior from three labels
    ref = (np.full(300, 0.02), np.r_[np.ones(2, int), np.zeros(298, int)])
    win = (np.full(30, 0.2 / 30), np.r_[np.ones(3, int), np.zeros(27, int)])
    row = _status(tmp_path, [ref, win], min_count=30).rows[1]
    assert any(str(a).startswith("calibration") for a in row.alerts)
    assert not row.diagnosis.startswith("prior shift"), row.diagnosis
    assert row.diagnosis.startswith("miscalibration without a detected change in base rate")
    assert row.details["rate_p"] == pytest.approx(fisher_exact([[3, 27], [2, 298]]).pvalue, rel=1e-9)
    # by definition: the hypergeometric law of the window's positives given the 5 in all 330 rows, summed
    # over the counts no likelier than the 3 observed
    pmf = hypergeom.pmf(np.arange(6), 330, 5, 30)
    assert row.details["rate_p"] == pytest.approx(pmf[pmf <= pmf[3] * (1 + 1e-7)].sum(), rel=1e-9)
    assert row.details["rate_p"] == pytest.approx(0.0060, abs=1e-4) and row.details["rate_p"] > (1 - 0.99) / 3
    # adjust_prior's count is judged as the alert is: whole numbers holding the adjusted count with exact
    # probability >= 1 - alpha_t (every row's p' is one number here, so the count is Binomial(30, p'))
    q = vc.adjust_prior(0.2 / 30, 0.02, 0.1)
    lo, hi = row.details["adjusted_low"], row.details["adjusted_high"]
    assert lo == int(lo) and hi == int(hi) and lo <= 3 <= hi
    assert binom.cdf(hi, 30, q) - binom.cdf(lo - 1, 30, q) >= 1 - (1 - 0.99) / 3
    assert binom.cdf(lo - 1, 30, q) <= (1 - 0.99) / 6 and binom.sf(hi, 30, q) <= (1 - 0.99) / 6
