"""The notebook view says what the printout says (session 34): a tiny negative gap keeps its sign, and a
weighted audit's insufficient bins are named by their effective rows."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc
from veracity.core._display import _signed_cell, html_table


def _cells(html: str) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", html)


def test_a_negative_difference_that_rounds_to_zero_keeps_its_minus_as_the_text_prints_it() -> None:
    # fmt(-3e-5, sign=True) is "-0.0000" in every text table; the notebook printed "+0.0000", the other side
    assert _signed_cell(-3.2e-5) == "-0.0000"
    assert _signed_cell(-1e-12) == "-0.0000"
    assert _signed_cell(0.0) == "+0.0000"
    assert _signed_cell(-0.0) == "+0.0000"  # an exact zero has no side (fmt prints -0.0 as +0.0000)
    assert _signed_cell(3.2e-5) == "+0.0000"
    assert _signed_cell(-0.25) == "-0.2500"
    assert _signed_cell(None) == "n/a"
    table = html_table([{"gap": -4e-5, "ci_low": -2e-5, "ci_high": 0.1}], signed=("gap", "ci_low"))
    assert _cells(table) == ["-0.0000", "[-0.0000, +0.1000]"]


def test_a_reliability_gap_just_below_zero_reads_the_same_in_the_notebook_and_the_text() -> None:
    p = np.array([0.30001] * 10 + [0.7] * 10)
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0] + [1] * 7 + [0] * 3)
    table = vc.reliability(p, y, bins=2, min_count=1)
    assert table.rows[0].gap < 0  # rate 0.3 below the mean score 0.30001
    text_gaps = [line.split()[4] for line in str(table).splitlines()[1:3]]
    assert text_gaps == ["-0.0000", "+0.0000"]
    for html in (table._repr_html_(), vc.audit(p, y, bins=2, min_count=1)._repr_html_()):
        shown = [c for c in _cells(html.split("<details>")[0]) if c in ("-0.0000", "+0.0000")]
        assert shown[:2] == text_gaps


def _weighted_audit() -> vc.AuditResult:
    rng = np.random.default_rng(0)
    n = 3000
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < p ** 1.3).astype(int)
    w = rng.integers(1, 4, n).astype(float)
    return vc.audit(p, y, bins=10, min_count=30, sample_weight=w)


def test_a_weighted_audit_names_insufficient_bins_by_their_effective_rows() -> None:
    result = _weighted_audit()
    t = result.table
    # a bin of 31 rows (weight 69) is insufficient at min_count=30: its effective rows are fewer than 30
    thin = [r for r in t.rows if not r.sufficient and r.count >= t.min_count]
    assert thin, "the data must hold a bin whose rows reach min_count while its effective rows do not"
    assert "effective observations (Kish)" in str(result)
    html = result._repr_html_()
    assert "insufficient: fewer than 30 effective observations (Kish); do not act on these bins" in html
    assert "fewer than 30 observations" not in html
    assert "MCE (bins effective n≥30)" in html


def test_an_unweighted_audit_keeps_its_words() -> None:
    rng = np.random.default_rng(1)
    p = rng.beta(2, 5, 600)
    y = (rng.random(600) < p).astype(int)
    html = vc.audit(p, y, bins=10, min_count=30)._repr_html_()
    assert "MCE (bins n≥30)" in html
    assert "insufficient: fewer than 30 observations; do not act on these bins" in html


def test_an_audit_with_a_one_sided_interval_says_so_in_the_notebook() -> None:
    rng = np.random.default_rng(0)
    p = rng.beta(2, 5, 2000)
    y = (rng.random(2000) < p).astype(int)
    result = vc.audit(p, y, bins=5, sided="upper")
    assert "95% upper CI" in str(result)
    assert "95% Wilson interval (upper, one-sided) of the observed rate" in result._repr_html_()
    two = vc.audit(p, y, bins=5)._repr_html_()
    assert "95% Wilson interval of the observed rate" in two and "one-sided" not in two
