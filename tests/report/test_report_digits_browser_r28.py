"""The report's comparison tables at rare events in headless Chromium (r28): with the decimals that rare
events need ("-0.000026 [-0.000045, -0.000007]", a debiased ECE of 0.0000014) the comparison and CORP
tables still fit the card at 1280 px — the method and the CORP interval cell wrap between words, each
interval kept whole — instead of pushing the reading column out of view."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytestmark = pytest.mark.browser


def test_rare_event_comparison_tables_fit_the_page(tabs, tmp_path):
    rng = np.random.default_rng(28)
    n = 20_000
    x = rng.normal(size=n)
    p_b = 1.0 / (1.0 + np.exp(5.6 - 0.9 * x))
    p_a = 1.0 / (1.0 + np.exp(5.45 - 0.8 * (x + 0.7 * rng.normal(size=n))))
    y = (rng.uniform(size=n) < p_b).astype(int)
    path = tmp_path / "rare.html"
    vc.report(p_a, y, against={"B": p_b}, n_resamples=60, figures=False).save(path)
    page = tabs.page(width=1280, height=900)
    page.goto(path.as_uri())
    for cls in ("comparison", "corp"):
        wrap = page.locator(f"#comparison table.{cls}").locator("xpath=..")
        scroll, client = wrap.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert scroll <= client + 1, (cls, scroll, client)
    # each interval on one line: its ends are not split across lines
    for ci in page.locator("#comparison span.ci").all():
        assert ci.evaluate("e => e.getClientRects().length") == 1, ci.text_content()
    assert "[" in page.locator("#comparison table.comparison").text_content()
