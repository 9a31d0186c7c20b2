"""Round 33: the notebook view of ``vc.selective_threshold`` printed its threshold with 4 decimals: a cut-off
of the default grid, 1 - 10^-4.4 = 0.99996019, read "1.0000" (answer nothing short of certainty), where the
text names 0.9999601892829446; and 0 errors read "0.0000", a rate. The table now names the threshold as the
text does (every digit it needs) and counts rows and errors."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc


def _cells(result) -> list[str]:
    html = re.sub(r"<pre.*?</pre>", "", result._repr_html_(), flags=re.S)
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", html, flags=re.S)]


def test_the_table_names_the_threshold_the_text_names():
    rng = np.random.default_rng(0)
    conf = rng.uniform(0.9999, 1.0, 40000)
    right = np.where(conf < 0.99996, rng.random(40000) < 0.9, 1).astype(int)
    st = vc.selective_threshold(conf, right, target_risk=0.001, reading="confidence")
    assert st.threshold == 1.0 - 10.0 ** -4.4  # a candidate of the default grid
    assert st.errors == 0
    cells = _cells(st)
    assert repr(st.threshold) in str(st) and repr(st.threshold) in cells
    assert "1.0000" not in cells
    first = cells.index(repr(st.threshold))
    row = cells[first:first + 8]  # threshold, target_risk, delta, coverage, risk, bound, accepted, errors
    assert row[6:] == [f"{int(st.accepted):,}", "0"], row


def test_a_float32_threshold_is_named_in_float32():
    conf = np.repeat(np.array([0.6, 0.7, 0.9], dtype=np.float32), [150, 300, 300])
    right = np.repeat([0, 1, 1], [150, 300, 300])
    st = vc.selective_threshold(conf, right, target_risk=0.1, candidates=[0.6, 0.7, 0.8],
                                reading="confidence")
    cell = _cells(st)[0]
    assert st.threshold == 0.7 and np.float32(float(cell)) == np.float32(0.7), cell
