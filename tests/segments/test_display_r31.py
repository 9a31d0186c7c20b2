"""What a segment scan prints must neither over- nor under-state (session 31).

* The MCE line printed "MCE 0.0185 (2.52 sigma, p = 0.505 ...)" and the notebook "0.0185 (2.52 sigma)": a
  sigma beside an MCE reads as significant, though it is the largest of 24 segments' and its p-value,
  corrected for the maximum, is 0.505. The p-value now comes first and the sigma is named for what it is.
* The notebook's header showed MCGrad's per-segment Brownian p-value (0.047) beside the MCE's (0.505): it
  now sits in the detailed view, named as a per-segment reading, not the test of the whole family.
* The demo's ``segment=mobile`` (raw scores, the segments notebook) has an interval of the gap of
  [-0.05358, -0.00013]; it is no discovery (q = 0.07) and printed "[-0.054, -0.000]", which reads as an
  interval that touches 0. An end of an interval clear of 0 now never prints as 0, in text and HTML.
"""

from __future__ import annotations

import dataclasses
import html
import re

import numpy as np
import pytest

import veracity as vc
from veracity.segments._result import row_texts

NUM = r"[+-]?\d+\.\d+"
SIGMA_WORDS = "the largest segment's alone, not corrected for the maximum"


def _notebook_rows():
    """The segments notebook's test rows (docs/notebooks/segments_delayed.ipynb): June held back."""
    d = vc.load_demo()
    june = d["month"] == "2026-06"
    calib = (d["role"] == "calib") & ~june
    test = (d["role"] == "test") & ~june
    features = {"segment": d["segment"][test], "month": d["month"][test]}
    return d["score"][test], d["label"][test], features, d["score"][calib], d["label"][calib]


@pytest.fixture(scope="module")
def scans():
    p, y, features, pc, yc = _notebook_rows()
    raw = vc.segments(p, y, features=features)
    platt = vc.PlattScaling().fit(pc, yc)
    after = vc.segments(platt.transform(p), y, features=features)
    return raw, after


def _line(text: str, segment: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith(segment + " "))


def _cells(page: str) -> list[list[str]]:
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
            for r in rows]


# -- an interval clear of 0 never prints an end of 0 ---------------------------------------------------------

def test_the_notebook_mobile_interval_prints_its_upper_end_clear_of_zero(scans):
    raw, _ = scans
    row = raw.segment("segment=mobile")
    # the case: an interval clear of 0 whose upper end is a tenth of a thousandth below it, no discovery
    assert -0.0005 < row.ci_high < 0.0 and not row.discovery and row.q_value > 0.05
    text_ends = re.findall(NUM, _line(raw._text(every=True), "segment=mobile").split("[", 1)[1].split("]")[0])
    page = raw._repr_html_()
    html_row = next(c for c in _cells(page) if c and c[0] == "segment=mobile")
    html_ends = re.findall(NUM, next(c for c in html_row if c.startswith("[")))
    for low, high in (text_ends, html_ends):
        assert float(high) < 0.0 and float(low) < 0.0, (low, high)  # was "-0.000": read as touching 0
        places = len(high.split(".")[1])
        assert abs(float(high) - row.ci_high) <= 0.5 * 10.0 ** -places + 1e-15
        assert abs(float(low) - row.ci_low) <= 0.5 * 10.0 ** -places + 1e-15
        assert abs(float(high)) >= 10.0 ** (1 - places) * 0.95  # two significant digits of the near end
    assert text_ends == html_ends


@pytest.mark.parametrize("low, high", [(-0.0536, -0.00013), (0.00004, 0.041), (-0.2, -0.00049),
                                       (0.0000021, 0.00009), (-0.031, -0.0004999)])
def test_an_end_clear_of_zero_prints_nonzero_with_its_sign(scans, low, high):
    base = scans[0].segment("segment=mobile")
    row = dataclasses.replace(base, ci_low=low, ci_high=high, gap=(low + high) / 2)
    t = row_texts(row)
    for key, value in (("ci_low", low), ("ci_high", high)):
        printed = float(t[key])
        assert printed != 0.0 and np.sign(printed) == np.sign(value), (t, low, high)
        places = len(t[key].split(".")[1])
        assert abs(printed - value) <= 0.5 * 10.0 ** -places + 1e-15
    assert len(t["ci_low"].split(".")[1]) == len(t["ci_high"].split(".")[1])  # the ends share their decimals


@pytest.mark.parametrize("low, high", [(-0.054, -0.002), (-0.030, 0.0000004), (-0.081, -0.013), (0.012, 0.05)])
def test_a_common_interval_keeps_its_three_decimals(scans, low, high):
    """Only an end that would print as 0 takes more digits: the tables keep their look otherwise (an
    interval holding 0 keeps "+0.000")."""
    base = scans[0].segment("segment=mobile")
    t = row_texts(dataclasses.replace(base, ci_low=low, ci_high=high, gap=(low + high) / 2))
    assert t["ci_low"] == f"{low:+.3f}" and t["ci_high"] == f"{high:+.3f}"


# -- the MCE: its p-value first, its sigma named ---------------------------------------------------------------

def test_the_text_gives_the_mce_p_value_before_the_sigma_and_names_the_sigma(scans):
    for res in scans:
        line = next(ln for ln in str(res).splitlines() if ln.startswith("multicalibration error"))
        p_at = line.index(f"({res.mce_p_text()} in {res.n_resamples:,} draws under calibration")
        sigma = f"{res.mce_sigma:.2f} sigma: {SIGMA_WORDS}"
        assert sigma in line and p_at < line.index(sigma), line
        assert not re.search(r"\(\d+\.\d+ sigma", line), line  # was "MCE 0.0185 (2.52 sigma, p = 0.505"


def test_the_notebook_summary_gives_the_p_value_first_and_moves_mcgrads_reading_to_the_details(scans):
    _, after = scans
    assert after.mce_family_pvalue > 0.3 and after.mce_pvalue < 0.05  # the case: 0.505 beside 0.047
    page = after._repr_html_()
    kv = re.search(r'<div class="vc-kv">(.*?)</div>', page, re.S).group(1)
    pairs = [(html.unescape(k), html.unescape(v)) for k, v in re.findall(r"<b>(.*?)</b>([^<]*)</span>", kv)]
    keys = [k for k, _ in pairs]
    p_key = next(i for i, k in enumerate(keys) if k.startswith("MCE p-value"))
    sigma_key = next(i for i, k in enumerate(keys) if "sigma" in k)
    assert p_key < sigma_key and SIGMA_WORDS in keys[sigma_key]
    assert pairs[p_key][1] == "0.505" and pairs[sigma_key][1] == f"{after.mce_sigma:.2f}"
    assert not any(re.search(r"\d sigma\)", v) for _, v in pairs)  # was "0.0185 (2.52 sigma)"
    assert not any("Brownian" in k for k in keys) and "0.047" not in kv  # not beside the MCE's p-value
    details = page.split('<div class="vc-kv">')[2]  # MCGrad's reading, in the detailed view
    assert "Brownian" in details and "not the test of the whole family" in details
    assert f"{after.mce_pvalue:.3f}" in details
