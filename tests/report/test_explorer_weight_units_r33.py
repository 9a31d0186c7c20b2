"""The threshold explorer's counts are in the caller's weight units: weights beyond veracity's working range
(below about 2^-480, at least 2^256) are rescaled by a power of two inside, and the explorer showed the
rescaled counts (100 rows of weight 1e-300: TP "33.5" where threshold_table says 0.0, i.e. 5e-299)."""

import numpy as np
import pytest

import veracity as vc

from .test_report_html import explorer_data


@pytest.mark.parametrize("weight", [1e-300, 1e300, 3.0])
def test_the_explorer_counts_weights_as_given(weight):
    rng = np.random.default_rng(0)
    p = rng.random(100)
    y = (rng.random(100) < p).astype(int)
    w = np.full(100, weight)
    data = explorer_data(vc.report(p, y, sample_weight=w, bootstrap=False, figures=False).html)
    assert data["positives"] == pytest.approx(weight * y.sum(), rel=1e-12)
    assert data["negatives"] == pytest.approx(weight * (100 - y.sum()), rel=1e-12)
    i = int(np.argmin(np.abs(np.asarray(data["thresholds"]) - 0.5)))
    t = data["thresholds"][i]
    table = vc.threshold_table(p, y, thresholds=[t], sample_weight=w)
    assert data["tp"][i] == pytest.approx(table.rows[0].tp, rel=1e-12)
    assert data["fp"][i] == pytest.approx(table.rows[0].fp, rel=1e-12)


@pytest.mark.browser
@pytest.mark.parametrize("weight, tp_text, cost_text", [(1e300, "5.20e301", "3.50e301"),
                                                        (1e-300, "5.20e\u2011299", "3.50e\u2011299")])
def test_the_page_shows_such_counts_and_finds_the_lowest_cost(tabs, tmp_path, weight, tp_text, cost_text):
    # the page once printed "5e+301.undefined" for a weighted count of 5e301 and "0.0" for 5e-299, and read
    # every cost of 1e-298 as a tie within an absolute 1e-12 (lowest cost "at" t = 0)
    from .test_report_browser import open_page, shown

    rng = np.random.default_rng(0)
    p = rng.random(100)
    y = (rng.random(100) < p).astype(int)
    w = np.full(100, weight)
    # the explorer's counts and costs only: no figures (the diagrams take most of a report's time)
    page, seen = open_page(tabs, tmp_path,
                           vc.report(p, y, sample_weight=w, bootstrap=False, figures=False))
    assert not seen["errors"]
    got = shown(page)
    assert got["tp_text"] == tp_text and got["cost_text"] == cost_text
    plain = open_page(tabs, tmp_path, vc.report(p, y, bootstrap=False, figures=False), "plain.html")[0]
    best = "#ex-go-best"
    page.click(best)
    plain.click(best)
    assert shown(page)["threshold"] == shown(plain)["threshold"] > 0.0


def test_totals_beyond_the_doubles_stay_scaled_and_say_so():
    # weights near the largest double: the totals in the caller's units overflow (JSON cannot hold inf)
    rng = np.random.default_rng(0)
    p = rng.random(100)
    y = (rng.random(100) < p).astype(int)
    rep = vc.report(p, y, sample_weight=np.full(100, 1e308), bootstrap=False, figures=False)
    data = explorer_data(rep.html)
    assert np.isfinite(data["positives"]) and np.isfinite(data["negatives"])
    (note,) = [n for n in rep.notes if n.startswith("the explorer's counts are the weighted counts times 2^")]
    power = int(note.split("2^", 1)[1].split(":", 1)[0])
    assert data["positives"] == pytest.approx(1e308 * 2.0 ** power * y.sum(), rel=1e-12)
