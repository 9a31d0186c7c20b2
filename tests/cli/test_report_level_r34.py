"""``veracity report --level 0.9`` left the segments section (--features) and the "Over time" section
(--store) at 95 % intervals (r34): the store's status was read without --level, and vc.segments without it.
Both now print 90 % intervals, as the reliability table beside them does."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest


def _no_95(page: str) -> None:
    hits = [page[max(0, m.start() - 80):m.end() + 20] for m in re.finditer(r"95(\.0)?\s?%", page)]
    assert hits == [], hits


def test_report_level_reaches_segments_and_store(tmp_path, cli):
    pytest.importorskip("duckdb")
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from conftest import write_alert_then_clean_store

    rng = np.random.default_rng(34)
    n = 3000
    region = rng.choice(["EU", "US", "APAC"], n)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < np.clip(np.where(region == "EU", p + 0.1, p), 0, 1)).astype(int)
    path = tmp_path / "rows.csv"
    pd.DataFrame({"p": p, "y": y, "region": region}).to_csv(path, index=False)
    store = write_alert_then_clean_store(tmp_path / "m.duckdb")
    out = tmp_path / "r.html"
    got = cli(["report", path, "--score", "p", "--label", "y", "--features", "region", "--store", store,
               "--level", "0.9", "--bins", "4", "--no-bootstrap", "--out", out])
    assert got.code == 0, got.err
    page = out.read_text()
    assert page.count('<th class="">90% CI</th>') >= 2  # the segments table and the store's table
    _no_95(page)
    # the one line printed for the segments section says the level too
    assert re.search(r"where it is miscalibrated: .*90% CI", got.out), got.out
    # the store's ECEs over the report's --bins (they were over the status's 15, beside a 4-bin reliability)
    from veracity.monitoring import MonitorStore
    from veracity.reporting._sections import _num

    table = re.search(r'<table class="store">.*?</table>', page, re.S).group(0)
    four = [_num(r.ece) for r in MonitorStore(store).status(bins=4).rows]
    fifteen = [_num(r.ece) for r in MonitorStore(store).status(bins=15).rows]
    assert four != fifteen
    assert [c for c in re.findall(r"<td[^>]*>([^<]*)</td>", table) if c in four + fifteen] == four
