"""Round 41: the slices table of (N, K) scores fits its card at 1280 px (Chromium).

Its "Brier (top label)" header on one line (every header was ``nowrap``) pushed the last column, "thin bins",
out of the card: a scrollbar, the column cut at the card's edge in the page and its screenshots. The slices
table's headers now wrap, as the ledger's and the comparison's do.
"""

from __future__ import annotations

import numpy as np

import veracity as vc


def test_multiclass_slices_table_fits(tabs, tmp_path) -> None:
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(4) * 0.7, size=2000)
    y = (rng.random(2000)[:, None] > P.cumsum(axis=1)).sum(axis=1)
    rep = vc.report(P, y, by={"seg": rng.choice(["a", "b"], 2000)}, n_resamples=50, figures=False)
    path = tmp_path / "mc.html"
    rep.save(path)
    page = tabs.page(width=1280, height=900)
    page.goto(path.as_uri())
    wide = page.evaluate("""() => { const w = document.querySelector('table.slices').parentElement;
                            return [w.scrollWidth, w.clientWidth]; }""")
    assert wide[0] <= wide[1], wide
