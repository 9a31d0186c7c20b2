"""Round 43: the ledger's Brier and NLL verdicts on skewed changes (few rows of a class).

Recalibrating an already calibrated model (the ledger's main use) is a near-identity map: temperature
scaling fit on 200,000 calibrated rows lands within 0.01 of 1, a true change of about 0.04 standard errors.
Each negative row's loss moves a little one way and each positive's a lot the other, so the mean change is a
sum over a few positives and skewed: the paired t called it a REGRESSION in 6.2 % (Brier) and 7.3 % (NLL) of
seeded draws of 300 rows with about 10 positives (2.5 % nominal). With fewer than 40 of one class among 40
or more of the other the change is now called only where both the t and Hall's (1992) skew-corrected t
exclude 0 (1.7 % and 0.7 %), and the row's ``why`` and the note under the table say so (weighted it still
runs high: 7.6 % and 5.7 % ``better``).
"""

import warnings

import numpy as np

import veracity as vc
from veracity.calibrators._noise import paired_mean_interval

_RNG = np.random.default_rng(2026)
_P = _RNG.beta(0.5, 15, 200_000)
_CAL = vc.TemperatureScaling().fit(_P, (_RNG.random(_P.size) < _P).astype(int))


def _draw(rng, n=300):
    p = rng.beta(0.5, 15, n)
    return p, (rng.random(n) < p).astype(int)


def _ledger(p, y, w=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vc.compare(p, y, _CAL, n_resamples=0, sample_weight=w)


def test_recalibrating_a_calibrated_model_is_rarely_a_regression():
    """300 draws of 300 rows (about 10 positives): Brier and NLL called a REGRESSION in at most 2.5 % + 3
    Monte-Carlo SE (10 draws) each (the t alone: 13 and 21 of these)."""
    assert abs(_CAL.beta_ - 1.0) < 0.01
    rng = np.random.default_rng(4310)
    calls = np.zeros(2)
    for _ in range(300):
        ledger = _ledger(*_draw(rng))
        verdicts = {r.metric: r.verdict for r in ledger.rows}
        calls += (verdicts["Brier"] == "REGRESSION", verdicts["NLL"] == "REGRESSION")
    assert calls.max() <= 300 * (0.025 + 3 * np.sqrt(0.025 * 0.975 / 300)), calls


def test_the_row_and_the_table_say_so():
    """Fewer than 40 of a class: the Brier and NLL rows' ``why`` (``note`` in ``to_dict``) names the rows and
    the guard, and the text ends with what it still misses; with 40 or more, no such words and the plain t."""
    ledger = _ledger(*_draw(np.random.default_rng(4311)))
    rows = {r["metric"]: r for r in ledger.to_dict()["rows"]}
    for key in ("Brier", "NLL"):
        assert "fewer than 40 of a class: skew-guarded interval" in rows[key]["note"]
    assert "skew-guarded interval" not in rows["ECE"]["note"]
    from veracity.core._paired_mean import SKEW_SAYS

    assert SKEW_SAYS in str(ledger)
    many = _ledger(*_draw(np.random.default_rng(4312), n=3000))
    assert "skew-guarded" not in str(many)


def test_guarded_interval_holds_the_t_interval():
    """The guarded interval is the hull of the t's and Hall's: it holds the t interval, equal at one end."""
    rng = np.random.default_rng(4313)
    p, y = _draw(rng)
    q = _CAL.transform(p)
    d = (q - y) ** 2 - (p - y) ** 2
    t_low, t_high = paired_mean_interval(d, None, 0.95)
    g_low, g_high = paired_mean_interval(d, None, 0.95, True)
    assert g_low <= t_low and g_high >= t_high
    assert g_low == t_low or g_high == t_high
    assert (g_low, g_high) != (t_low, t_high)
