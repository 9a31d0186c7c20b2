"""Round 33: a window's PPI estimate outside [0, 1] (the labelled rows' scores far above the unlabelled
rows', as a store's sums can hold without a random-sample check) carried vc.ppi_mean's note that the
estimate lies outside [0, 1] and its interval is cut, but the per-window records of ppi_records (a store's
status rows) printed the negative rate with no word about it."""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.delayed import PpiSums, ppi_records


def _window():
    rng = np.random.default_rng(1)
    f = rng.uniform(0.3, 0.7, 200)                       # labelled rows scored 0.3-0.7
    y = (rng.random(200) < 0.1 * f).astype(float)          # ... but a rate near 0.05
    g = rng.uniform(0.0, 0.1, 5000)                      # unlabelled rows scored below 0.1
    return y, f, g


def test_records_say_an_estimate_outside_the_range():
    y, f, g = _window()
    rec = ppi_records(PpiSums.of(y, f, g))[0]
    est = rec["estimate_ppi"]["estimate"]
    assert est < 0.0 and rec["estimate_ppi"]["ci_low"] == 0.0
    assert f"the PPI estimate {est:.4f} lies outside [0, 1]" in rec["note"]
    same = vc.ppi_mean(y, f, g, sample_check="off")    # the same window, the same estimate and note
    assert same.estimate == est and any(n in rec["note"] for n in same.notes if "lies outside" in n)


def test_records_in_range_have_no_such_note():
    rng = np.random.default_rng(2)
    f, g = rng.uniform(0, 1, 300), rng.uniform(0, 1, 3000)
    y = (rng.random(300) < f).astype(float)
    rec = ppi_records(PpiSums.of(y, f, g))[0]
    assert 0 <= rec["estimate_ppi"]["estimate"] <= 1 and "lies outside" not in (rec["note"] or "")
