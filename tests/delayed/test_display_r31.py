"""Session 31: what the delayed-label results print — PpiMean's notebook card in words, its rectifier signed,
sequence bounds clear of 0 never printed as -0.0000, and lambda 0 (said) for constant scores."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc
from veracity.core._text import fmt_p
from veracity.delayed._binned import BinnedSequences
from veracity.delayed._ppi_result import ppi_records
from veracity.delayed._ppi_sums import PpiSums, ppi_from_sums
from veracity.delayed._sequence import ConfidenceSequence


def _window():
    rng = np.random.default_rng(26)
    old = rng.beta(0.5, 4.5, 20_000)
    fraud = (rng.random(old.size) < vc.adjust_prior(old, old=0.10, new=0.20)).astype(int)
    audit = rng.choice(old.size, 400, replace=False)
    rest = np.setdiff1d(np.arange(old.size), audit)
    return fraud[audit], old[audit], old[rest]


def _line(text: str, start: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith(start))


# -- 1. the notebook card names its quantities in words -------------------------------------------
def test_ppi_html_names_quantities_in_words():
    r = vc.ppi_mean(*_window())
    page = r._repr_html_()
    # the raw fields were dumped: "note n/a", "sample_p 0.4642", "lam 1.0000", "level 0.9500", "n_excluded 0"
    for raw in ("<b>note</b>", "<b>sample_p</b>", "<b>lam</b>", "<b>level</b>", "<b>n_excluded</b>",
                "<b>ci_low</b>", "<b>rectifier_high</b>", "n/a"):
        assert raw not in page, raw
    assert "<b>power-tuning λ</b>1.000" in page
    assert f"<b>random-sample check p</b>{fmt_p(r.sample_p)}" in page
    assert "<b>labels</b>400" in page and "<b>scored rows</b>19,600" in page
    assert "95% CI" in page and "note: the scores are not calibrated here" in page
    # the rectifier, a difference, signed as in the text
    assert "+0.0999" in page and "[+0.0643, +0.1355]" in page


def test_ppi_html_leaves_out_what_is_empty():
    # a designed sample runs no random-sample check (sample_p NaN): nothing of it is shown, nor rows left out
    rng = np.random.default_rng(3)
    f = rng.random(300)
    y = (rng.random(300) < f).astype(int)
    r = vc.ppi_mean(y, f, rng.random(3000), propensity=np.full(300, 0.1))
    page = r._repr_html_()
    assert r.sample_p != r.sample_p and "random-sample check" not in page and "left out" not in page
    assert "n/a" not in page and "sample_p" not in page  # the raw card printed "sample_p n/a", "note n/a"


# -- 2. the rectifier printed signed --------------------------------------------------------------
def test_ppi_text_signs_the_rectifier():
    text = str(vc.ppi_mean(*_window()))
    assert re.search(r"^rectifier\s+\+0\.0999\s+\[\+0\.0643, \+0\.1355\]", _line(text, "rectifier"))
    # the rates stay unsigned
    assert re.search(r"^ppi\s+0\.1987\s+\[0\.1630, 0\.2343\]", _line(text, "ppi"))


def test_ppi_rectifier_interval_holding_zero_signs_both_ends():
    rng = np.random.default_rng(5)
    f = rng.random(500)
    y = (rng.random(500) < f).astype(int)
    r = vc.ppi_mean(y, f, rng.random(5000))
    assert r.rectifier_low < 0 < r.rectifier_high
    assert re.search(r"\[-0\.\d{4}, \+0\.\d{4}\]", _line(str(r), "rectifier"))


# -- 3. a bound clear of 0 is never printed as -0.0000 --------------------------------------------
def _sequence(high_last: float) -> ConfidenceSequence:
    return ConfidenceSequence(low=np.array([-1.0, -0.2, -0.1, -0.043139]),
                              high=np.array([1.0, 0.2, 0.05, high_last]),
                              estimate=np.array([0.0, -0.05, -0.03, -0.021]),
                              n=np.array([100, 200, 300, 400]),
                              alpha=0.05, alarm_at=3 if high_last < 0 else None, shift_at=None)


def test_sequence_bound_near_zero_shows_its_sign():
    cs = _sequence(-0.000021)
    text = str(cs)
    assert "-0.0000]" not in text
    assert re.search(r"\[-0\.043139, -0\.000021\]\s+ALARM", _line(text, "3 ")), text
    page = cs._repr_html_()
    assert "[-0.043139, -0.000021]" in page and ">-0.0000" not in page and "0.0000]" not in page
    # the other rows keep 4 decimals; a bound below every printed decimal keeps its sign too
    assert "[-0.1000, +0.0500]" in text
    tiny = str(_sequence(-3e-12))
    assert "-3.0e-12]" in tiny and "-0.0000" not in tiny


def test_sequence_bound_holding_zero_keeps_four_decimals():
    text = str(_sequence(0.000021))
    assert "[-0.0431, +0.0000]" in text  # holds 0: no digits of its own, the sign says the side


def test_sequence_html_summary_in_words():
    page = _sequence(-0.000021)._repr_html_()
    assert "<b>alarm</b>at row 3" in page and "alarm_at" not in page and "delay" not in page


def test_binned_bound_near_zero_shows_its_sign():
    bs = BinnedSequences(edges=np.array([0.0, 1.0]), sequences=(_sequence(-0.000021),), alpha=0.05)
    text = str(bs)
    assert "[-0.043139, -0.000021]" in text and "-0.0000]" not in text


# -- 4. constant scores: lambda 0, said; the estimate unchanged -----------------------------------
def test_constant_scores_take_lambda_zero():
    rng = np.random.default_rng(0)
    y = (rng.random(60) < 0.4).astype(int)
    r = vc.ppi_mean(y, np.full(60, 0.4), np.full(5000, 0.4))
    # the old code read Cov 8e-17 / Var 1e-16 of rounding noise: "lambda 0.732"
    assert r.lam == 0.0 and "(lambda 0.000)" in str(r)
    assert "scores are constant" in str(r) and "power-tuning λ</b>0.000 (constant scores)" in r._repr_html_()
    assert abs(r.estimate - y.mean()) < 1e-12  # the estimate is the labels' mean at every lambda
    assert abs(r.ci_low - r.classical_low) < 1e-12 and abs(r.ci_high - r.classical_high) < 1e-12


def test_constant_scores_weighted_and_from_sums():
    rng = np.random.default_rng(1)
    y = (rng.random(80) < 0.3).astype(int)
    w = rng.lognormal(0.0, 0.5, 80)
    r = vc.ppi_mean(y, np.full(80, 0.3), np.full(4000, 0.3), sample_weight=w)
    assert r.lam == 0.0 and "scores are constant" in str(r)
    assert abs(r.estimate - np.average(y, weights=w)) < 1e-12
    sums = PpiSums.of(y.astype(float), np.full(80, 0.7), np.full(4000, 0.7))
    assert float(ppi_from_sums(sums)["lam"]) == 0.0
    assert ppi_records(sums)[0]["estimate_ppi"]["lam"] == 0.0


def test_slightly_varying_informative_scores_keep_their_lambda():
    # scores that vary little but truly (sd 1e-3 around 0.4) and track the outcome are no rounding noise
    rng = np.random.default_rng(2)
    y = (rng.random(200) < 0.4).astype(int)
    f = 0.4 + 1e-3 * (y - 0.4) + 1e-4 * rng.standard_normal(200)
    g = 0.4 + 1e-3 * ((rng.random(5000) < 0.4) - 0.4) + 1e-4 * rng.standard_normal(5000)
    r = vc.ppi_mean(y, f, g)
    assert r.lam > 0.5 and "constant" not in str(r)


def test_ppi_audit_signs_the_gap_rate_minus_score_as_ppi_mean_does():
    rng = np.random.default_rng(0)
    s = rng.uniform(size=3000)
    y = (rng.uniform(size=400) < np.clip(s[:400] + 0.1, 0, 1)).astype(int)
    audit = vc.ppi_audit(y, s[:400], s[400:])
    gap = next(r for r in audit.rows if r["quantity"] == "rate - score")
    line = next(x for x in str(audit).splitlines() if x.startswith("rate - score"))
    assert line.split()[3:6] == [f"{gap['estimate']:+.4f}", f"[{gap['ci_low']:+.4f},", f"{gap['ci_high']:+.4f}]"], line
    rate = next(x for x in str(audit).splitlines() if x.startswith("rate "))
    assert "+" not in rate, rate  # the rate itself is no difference: unsigned
