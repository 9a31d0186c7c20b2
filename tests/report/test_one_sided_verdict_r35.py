"""A one-sided per-bin interval tests one direction only, and the summary's verdict says so.

Before: an audit with ``sided="upper"`` (each bin's interval [0, upper bound]) logged to MLflow got a
report.html whose verdict read "7 are over-confident and 0 under-confident beyond their 95% interval",
beside bins whose observed rate was six times their mean confidence: an upper bound never lies above the
confidence, so "0 under-confident" was a test never run, read as a finding. The reliability table's column
was headed "95% CI" over [0.000, 0.335] (the text table: "95% upper CI"), and a weighted page's About table
said "insufficient below 20 observations" where its bins are judged by effective observations."""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc
from veracity.tracking._mlflow import result_page


def _sample() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 1, 4000)
    truth = np.clip(0.7 * p + 0.25 * (p < 0.3), 0, 1)  # low scores far under, high scores far over
    return p, (rng.uniform(size=p.size) < truth).astype(int)


def _verdict(page: str) -> str:
    m = re.search(r'<p class="verdict">(.*?)</p>', page, re.S)
    assert m, "no verdict"
    return re.sub(r"<[^>]+>", "", m.group(1))


@pytest.mark.parametrize(("sided", "counted", "untested"), [("upper", "over", "under"),
                                                            ("lower", "under", "over")])
def test_a_one_sided_verdict_counts_only_the_side_it_tests(sided, counted, untested):
    p, y = _sample()
    audit = vc.audit(p, y, bins=10, sided=sided, bootstrap=False)
    two = vc.audit(p, y, bins=10, bootstrap=False).table
    # the data have bins beyond their interval on both sides (the two-sided table says so)
    assert sum(r.sufficient and r.ci_high < r.conf for r in two.rows) > 0
    assert sum(r.sufficient and r.ci_low > r.conf for r in two.rows) > 0
    table = audit.table
    flagged = sum(r.sufficient and (r.ci_high < r.conf if counted == "over" else r.ci_low > r.conf)
                  for r in table.rows)
    text = _verdict(result_page(audit))
    assert f"{flagged} are {counted}-confident beyond their 95% {sided} bound" in text
    assert f"a one-sided {sided} bound does not test {untested}-confidence" in text
    assert f"0 {untested}-confident" not in text
    assert "each 95% " + sided + " bound misses about 5% of the time" in text


def test_the_two_sided_verdict_is_unchanged():
    p, y = _sample()
    table = vc.audit(p, y, bins=10, bootstrap=False).table
    over = sum(r.sufficient and r.ci_high < r.conf for r in table.rows)
    under = sum(r.sufficient and r.ci_low > r.conf for r in table.rows)
    text = _verdict(result_page(vc.audit(p, y, bins=10, bootstrap=False)))
    assert f"{over} are over-confident and {under} under-confident beyond their 95% interval" in text
    assert "does not test" not in text


@pytest.mark.parametrize("sided", ["upper", "lower"])
def test_the_reliability_table_heads_a_one_sided_column_as_the_text_does(sided):
    p, y = _sample()
    audit = vc.audit(p, y, bins=10, sided=sided, level=0.9, bootstrap=False)
    assert f"90% {sided} CI" in str(audit)  # the text table's heading
    page = result_page(audit)
    head = re.search(r'<table class="reliability"><thead><tr>(.*?)</tr>', page, re.S)
    assert head
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<th[^>]*>(.*?)</th>", head.group(1), re.S)]
    assert f"90% {sided} CI" in cells
    assert "90% CI" not in cells


def test_the_about_table_names_effective_observations_under_weights():
    """The About table read "insufficient below 20 observations" on a weighted page whose reliability note
    (and every bin flag) counts effective observations (Kish)."""
    p, y = _sample()
    w = np.where(np.arange(p.size) % 2 == 0, 0.2, 3.0)

    def about(page: str) -> str:
        m = re.search(r'<table class="meta">.*?insufficient below</td><td[^>]*>(.*?)</td>', page, re.S)
        assert m
        return m.group(1)

    weighted = vc.report(p, y, sample_weight=w, bootstrap=False, figures=False).html
    assert about(weighted) == "20 effective observations (Kish)"
    assert about(vc.report(p, y, bootstrap=False, figures=False).html) == "20 observations"
