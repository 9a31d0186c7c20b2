"""The segments finding gives its largest gap with the segment's rows and interval (helper r30b).

The one line read alone (CLI stdout, the notebook preview, the summary JSON) said "largest gap among them
-0.0501 in segment=partner": an estimate with neither its count nor its interval; the page's verdict gave the
rows but no interval. Both now say "(436 rows, 95% CI [-0.087, -0.009])", the table's own cells."""

from __future__ import annotations

import html
import re
from typing import Any

import numpy as np
import pandas as pd

import veracity as vc

from .conftest import section, table_rows


def _page() -> Any:
    rng = np.random.default_rng(7)
    n = 3000
    region = rng.choice(["north", "south", "east"], n)
    p = rng.uniform(0.05, 0.6, n)
    truth = np.where(region == "east", np.clip(p + 0.15, 0, 1), p)  # east: more positives than the scores say
    y = (rng.random(n) < truth).astype(int)
    return vc.report(pd.DataFrame({"p": p, "y": y, "region": region}), score="p", label="y",
                     features=["region"], bootstrap=False, figures=False)


def test_finding_and_verdict_carry_rows_and_interval() -> None:
    rep = _page()
    page = rep.html
    seg = section(page, "segments")
    rows = {r[0]: r for r in table_rows(seg, "segments")}
    east = rows["region=east"]
    n, gap, ci = east[1], east[4], east[5].rstrip("*")
    verdict = re.sub(r"<[^>]+>", "", re.search(r'data-finding="segments">(.*?)</p>', seg, re.S).group(1))
    verdict = html.unescape(verdict)
    assert f"the largest gap among them is {gap} in region=east ({n} rows, 95% CI {ci};" in verdict
    finding = rep.summary["segments"]
    assert finding.endswith(f"largest gap among them {gap} in region=east ({n} rows, 95% CI {ci})"), finding
