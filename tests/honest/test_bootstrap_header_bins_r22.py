"""The bootstrap table's header says on how many bins its ECE/MCE are read (the HTML footnote did; the
text, which the CLI prints, did not: an ECE interval is conditional on the binning)."""

from __future__ import annotations

import numpy as np

import veracity as vc


def test_the_text_header_names_the_bins():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p).astype(int)
    first = str(vc.bootstrap_intervals(p, y, n_resamples=50, bins=12)).splitlines()[0]
    assert "ECE/MCE bias-aware on 12 uniform bins" in first, first
    first = str(vc.bootstrap_intervals(p, y, n_resamples=50, bins=8, strategy="quantile")).splitlines()[0]
    assert "ECE/MCE bias-aware on 8 quantile bins" in first, first
