"""Empty bins are named by their score ranges (adjacent ones as one range), in the text and the HTML.

Before: "empty bins [6] omitted" -- a 0-based index a reader takes for the sixth bin, the seventh."""

from __future__ import annotations

import numpy as np

import veracity as vc


def _scores_without(ranges, per=12):
    """Scores spread over [0, 1] except inside the half-open ``ranges``."""
    grid = np.linspace(0.005, 0.995, 100)
    keep = ~np.any([(grid >= a) & (grid < b) for a, b in ranges], axis=0)
    return np.repeat(grid[keep], per)


def test_adjacent_empty_bins_read_as_one_range():
    p = _scores_without([(0.2, 0.4), (0.5, 0.9)])
    y = (np.arange(p.size) % 4 == 0).astype(int)
    table = vc.reliability(p, y, bins=10)
    assert table.empty_bins == (2, 3, 5, 6, 7, 8)
    assert "no rows in [0.2,0.4), [0.5,0.9) (6 empty bins omitted)" in str(table)
    html = vc.audit(p, y, bins=10)._repr_html_()
    assert "no rows in [0.2,0.4), [0.5,0.9) (6 empty bins omitted)" in html
    assert "[2, 3, 5" not in str(table) + html


def test_the_last_bin_is_closed_and_a_table_with_no_empty_bin_says_nothing():
    p = _scores_without([(0.9, 1.0)])
    y = (np.arange(p.size) % 3 == 0).astype(int)
    assert "no rows in [0.9,1.0] (1 empty bin omitted)" in str(vc.reliability(p, y, bins=10))
    full = vc.reliability(_scores_without([]), np.ones(1200, dtype=int), bins=10)
    assert full.empty_bin_text() == "" and "no rows" not in str(full)


def test_the_html_report_names_the_ranges():
    p = _scores_without([(0.6, 0.7)])
    y = (np.arange(p.size) % 2 == 0).astype(int)
    page = vc.report(p, y, bins=10).html
    assert "No rows in [0.6,0.7) (1 empty bin omitted)." in page
