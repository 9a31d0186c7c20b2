"""The segments notebook view shows the text's notes and its no-discovery line, not only in the collapsed
text (session 33).

The page printed the key numbers and the table, and kept the text's notes ("2 segments hold min_count = 50
rows but weights so uneven ...: shown, not tested"; a contradicted score of 0 or 1 behind p = 0; an infinite
MCE; pooled levels) and its "no segment is distinguishable ... not proof of calibration" line inside the
closed "as text" block: a row of 60 rows flagged "insufficient" under "tested (n ≥ 50)", with no reason on
the page, and "discoveries: 0" without the caveat the text gives.
"""

from __future__ import annotations

import html
import re

import numpy as np

import veracity as vc


def _visible_notes(res) -> list[str]:
    page = res._repr_html_().split("<details><summary>as text")[0]
    return [html.unescape(m) for m in re.findall(r'<div class="vc-note">(.*?)</div>', page, re.S)]


def test_uneven_weights_note_and_nothing_found_line_are_on_the_page():
    rng = np.random.default_rng(1)
    n = 2_000
    p = rng.uniform(0.2, 0.8, n)
    y = (rng.uniform(size=n) < p).astype(int)
    g = np.where(np.arange(n) < 60, "tiny", rng.choice(["a", "b"], n))
    w = np.ones(n)
    w[0] = 10_000.0  # the 60 rows of g=tiny are one observation: shown, not tested
    res = vc.segments(p, y, features={"g": g}, sample_weight=w)
    tiny = res.segment("g=tiny")
    assert tiny.n == 60 and tiny.p_value is None and not res.discoveries
    notes = _visible_notes(res)
    uneven = "note: 1 segment holds min_count = 50 rows but weights so uneven"
    assert any(t.startswith(uneven) for t in notes), notes
    assert any(t.startswith("no segment is distinguishable from calibrated at this FDR — not proof of "
                            "calibration") for t in notes), notes
    assert all(t.count("(") == t.count(")") for t in notes)  # the text's outer parentheses taken off whole


def test_contradicted_scores_note_is_on_the_page_and_no_nothing_found_line():
    rng = np.random.default_rng(2)
    n = 1_000
    p = rng.uniform(0.2, 0.8, n)
    y = (rng.uniform(size=n) < p).astype(int)
    g = rng.choice(["a", "b"], n)
    p[0], y[0] = 0.0, 1  # impossible under calibration: g's segment holding it has p = 0
    res = vc.segments(p, y, features={"g": g})
    assert res.discoveries and all(r.test == "certain" for r in res.discoveries)
    notes = _visible_notes(res)
    assert any(t.startswith("note: 1 row scores exactly 0 or 1 against its label") for t in notes), notes
    assert not any(t.startswith("no segment") for t in notes)


def test_the_text_is_unchanged():
    rng = np.random.default_rng(1)
    n = 500
    p = rng.uniform(0.2, 0.8, n)
    y = (rng.uniform(size=n) < p).astype(int)
    res = vc.segments(p, y, features={"g": rng.choice(["a", "b"], n)})
    lines = str(res).splitlines()
    assert lines[1].startswith("no segment is distinguishable from calibrated at this FDR — not proof of "
                               "calibration: the tested segments' minimum detectable gaps run from ")
    assert lines[2].startswith("multicalibration error (MCGrad's definition): MCE ")
