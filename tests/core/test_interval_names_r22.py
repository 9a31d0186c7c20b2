"""The binomial interval is named as a reader names it (Wilson, Clopper–Pearson) in the plot legend, the
audit HTML and the report, not by its option value ("95% wilson interval")."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=600)
    return p, (rng.uniform(size=600) < p).astype(int)


@pytest.mark.parametrize("ci, name", [("wilson", "Wilson"), ("clopper-pearson", "Clopper–Pearson")])
def test_the_html_and_the_report_name_the_interval(data, ci, name):
    p, y = data
    html = vc.audit(p, y, bins=10, interval=ci)._repr_html_()
    assert f"95% {name} interval of the observed rate" in html
    page = vc.report(p, y, bins=10, interval=ci, bootstrap=False).html
    assert f"CI: {name} binomial interval of acc." in page
    assert f"{ci} binomial" not in page


def test_the_reliability_legend_names_the_interval(data):
    pytest.importorskip("matplotlib")
    p, y = data
    fig = vc.plot_reliability(p, y, bins=10)
    texts = [t.get_text() for ax in fig.axes for leg in [ax.get_legend()] if leg for t in leg.get_texts()]
    assert any("Wilson interval" in t for t in texts), texts
