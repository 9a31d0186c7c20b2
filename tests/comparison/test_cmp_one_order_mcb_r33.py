"""One order of the scores (a recalibration), with resamples: ΔMCB has the Brier row's interval (r33).

Two models that order the rows alike share one PAV fit, so ΔDSC is exactly 0 and ΔMCB *is* ΔBrier (to the
bit). Without resamples the verdict already read the Brier interval as the MCB difference's; with them ΔMCB
got a bootstrap interval of its own, which for the very same number could disagree with the Brier row's
paired t interval: "b is better calibrated (MCB -0.0094 [-0.0174, -0.0007])" beside "Brier -0.0094
[-0.0194, +0.0007]" (seed 14 below), and "b has the lower Brier score (Brier -0.0130 [-0.0254, -0.0007]),
but neither its resolution nor its calibration alone differs by more than noise" (seed 124), in 2-3 % of
seeded draws of 150-1,000 rows. (The bootstrap interval also covered the true ΔMCB in only 0.92 of 1,500
draws of 150 rows under log-normal weights, where the paired t interval covers 0.94.)
"""

import numpy as np
import pytest

import veracity as vc


def _draw(seed: int, n: int = 150):
    """A calibrated truth, two monotone recalibrations of one score (one order), log-normal weights."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n) * 1.5
    y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
    pa, pb = 1 / (1 + np.exp(-(0.8 * x + 0.1))), 1 / (1 + np.exp(-(1.1 * x - 0.1)))
    return pa, pb, y, np.exp(rng.normal(size=n))


@pytest.mark.parametrize("seed", [14, 124])
def test_mcb_interval_is_the_brier_interval(seed):
    pa, pb, y, w = _draw(seed)
    r = vc.compare_models({"a": pa, "b": pb}, y, sample_weight=w, random_state=0)
    brier, d = r.row("brier"), r.corp_differences[0]
    assert d.dsc == 0.0 and d.mcb == pytest.approx(brier.diff, abs=1e-15)
    assert (d.mcb_low, d.mcb_high, d.mcb_p) == (brier.ci_low, brier.ci_high, brier.p_value)
    assert (d.dsc_low, d.dsc_high) == (0.0, 0.0)
    brier_beyond = brier.ci_low > 0 or brier.ci_high < 0
    text = r.verdict
    # the line reads one interval for the one number: never "better calibrated" beside a Brier row within
    # noise, nor "neither ... calibration alone differs" beside a Brier row beyond it
    assert ("better calibrated" in text) == brier_beyond, text
    assert "has its paired t interval" in text, text


def test_no_draw_reads_the_one_number_two_ways():
    for seed in range(40):
        pa, pb, y, w = _draw(seed, 300)
        for weights in (None, w):
            r = vc.compare_models({"a": pa, "b": pb}, y, sample_weight=weights, random_state=seed,
                                  n_resamples=100)
            brier, d = r.row("brier"), r.corp_differences[0]
            assert (brier.ci_low > 0 or brier.ci_high < 0) == (d.mcb_low > 0 or d.mcb_high < 0), seed


def test_two_orders_keep_the_bootstrap_interval():
    """Models that order the rows differently: ΔMCB and ΔBrier differ, and ΔMCB keeps its own interval."""
    pa, pb, y, _ = _draw(3, 400)
    rng = np.random.default_rng(0)
    pb = 1 / (1 + np.exp(-(np.log(pb / (1 - pb)) + 0.5 * rng.normal(size=pb.size))))
    r = vc.compare_models({"a": pa, "b": pb}, y, random_state=0)
    brier, d = r.row("brier"), r.corp_differences[0]
    assert d.dsc != 0.0 and (d.mcb_low, d.mcb_high) != (brier.ci_low, brier.ci_high)
    assert "has its paired t interval" not in r.verdict
