"""A --by slice whose rows all weigh 0 was left out of the report's slices table without a word (the audit's
printout names it): the table now carries the audit's line (session 38)."""

import numpy as np

import veracity as vc


def test_the_report_names_a_slice_left_out_for_zero_weights():
    rng = np.random.default_rng(1)
    n = 600
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    g = np.array(["a", "b", "c"])[np.arange(n) % 3]
    w = np.where(g == "c", 0.0, 1.0)
    html = vc.report(p, y, by=g, sample_weight=w, figures=False).html
    assert 'data-note="slice-weightless">(left out, every row weighing 0: c (200 rows)' in html
    plain = vc.report(p, y, by=g, figures=False).html
    assert "slice-weightless" not in plain
