"""The report's multicalibration card prints a p-value bound as the notebook view does: "p ≤ 0.005", not the
terminal's ASCII "p <= 0.005" (session 32; the segments notebook view printed "≤" since session 31, the
report's card beside it kept "<=")."""

from __future__ import annotations

import html
import re

import veracity as vc


def test_report_mce_card_prints_a_bound_with_the_le_sign():
    d = vc.load_demo()
    test = (d["role"] == "test") & ~(d["month"] == "2026-06")
    feats = {"segment": d["segment"][test], "month": d["month"][test]}
    seg = vc.segments(d["score"][test], d["label"][test], features=feats)
    assert seg.mce_family_pvalue <= 1 / (seg.n_resamples + 1) + 1e-12  # a bound: no draw reached the MCE
    page = vc.report(d["score"][test], d["label"][test], features=feats, bootstrap=False, figures=False).html
    card = page[page.index('data-metric="mce"'):]
    card = html.unescape(re.sub(r"<[^>]+>", "", card[: card.index("MCGrad's definition, over")]))
    assert f"corrected for the maximum (p ≤ 0.005 in {seg.n_resamples} draws under calibration" in card, card
    assert "<=" not in card and ">=" not in card  # as the page's other cards print n ≥ 50
    assert seg.mce_p_html() == "p ≤ 0.005" and seg.mce_p_text() == "p <= 0.005"  # the terminal keeps ASCII
