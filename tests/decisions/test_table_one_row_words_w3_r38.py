"""Round 38 (w3): the threshold table of one row said "(1 rows, 1 positive; ...)" in its footer and its
title; the count now takes its number."""

from __future__ import annotations

import veracity as vc


def test_a_table_of_one_row_says_1_row():
    table = vc.threshold_table([0.5], [1], [0.5])
    assert "(1 row, 1 positive; flag score >= threshold" in str(table)
    assert table._title().startswith("Threshold table: 1 row, 1 positive;")
    assert "(2 rows, 1 positive;" in str(vc.threshold_table([0.5, 0.2], [1, 0], [0.5]))
