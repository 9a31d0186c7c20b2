"""The slices table says why a slice's MCE is n/a (session 38): with 50 slices of ~100 rows, 23 slices showed
"n/a" in the MCE column and nothing on the page said why (the summary card's MCE reads "MCE n/a (no bin has
>= 20 rows; …)" for the whole; the table had no such words)."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc

from .conftest import section, table_rows

MCE_COLUMN = 8  # slice, rows, base rate, ECE, floor, p, q, bar, MCE, …


def _data(slices: int, n: int = 5000):
    rng = np.random.default_rng(0)
    p = rng.beta(2, 5, n)
    return p, (rng.random(n) < p).astype(int), rng.integers(0, slices, n)


def _note(page: str) -> list[str]:
    return re.findall(r'data-note="slice-mce">(.*?)</p>', section(page, "slices"), re.S)


def test_slices_without_an_mce_are_counted_and_explained() -> None:
    p, y, keys = _data(50)
    blank = sum(1 for g in vc.audit(p, y, by={"segment": keys}).groups.values() if np.isnan(g.mce))
    page = vc.report(p, y, by={"segment": keys}, figures=False).html
    shown = sum(1 for r in table_rows(section(page, "slices"), "slices")[:-1] if r[MCE_COLUMN] == "n/a")
    assert shown == blank > 1
    assert _note(page) == [f"MCE n/a ({blank} slices): no bin of the slice has &gt;= 20 rows, and the MCE reads "
                           "only the bins that do (the thin bins column counts those that do not)."]
    # slices whose MCE is a number: no note
    p, y, keys = _data(3)
    assert _note(vc.report(p, y, by={"segment": keys}, figures=False).html) == []
