"""``veracity report --by COL`` names and counts its slices as ``veracity audit --by COL`` does (session 38):
a --by column with gaps was read as its text, so that the report's slices read "2" (audit: "2.0") for a float,
"true" ("True") for a flag and "1" ("0 days 00:00:01") for a duration of one second, and a float column with
NaN but no null was refused ("drop or fill those rows first") where audit shows a "(missing)" slice. A
--features flag column with gaps read "b=true" where `veracity segments` reads "b=True"."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

rng = np.random.default_rng(3841)
N = 300
P = rng.uniform(0.05, 0.95, N)
Y = (rng.uniform(size=N) < P).astype(int)


def _three(values, dtype):
    return pa.array([values[i % 3] for i in range(N)], dtype)


COLUMNS = {
    "f": _three([1.5, 2.0, None], pa.float64()),
    "f32": _three([0.1, 2.0, None], pa.float32()),
    "nan": _three([1.0, float("nan"), float("inf")], pa.float64()),
    "flag": _three([True, False, None], pa.bool_()),
    "dur": _three([1, 2, None], pa.duration("s")),
}


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("keys") / "keys.parquet"
    pq.write_table(pa.table({"p": P, "y": Y, **COLUMNS}), path)
    return path


def _report_slices(page: str) -> dict[str, int]:
    found = re.findall(r'<span class="key">([^<]*)</span></td><td class="num">([\d,]+)<', page)
    return {name: int(n.replace(",", "")) for name, n in found}


@pytest.mark.parametrize("col", list(COLUMNS))
def test_report_slices_are_audits(rows, tmp_path, cli, col):
    got = cli(["audit", rows, "--score", "p", "--label", "y", "--by", col, "--json"])
    assert got.code == 0, got.err
    audit = {name: g["n"] for name, g in json.loads(got.out)["groups"].items()}
    assert len(audit) == 3 and "(missing)" in audit, audit
    out = tmp_path / "r.html"
    got = cli(["report", rows, "--score", "p", "--label", "y", "--by", col, "--no-bootstrap", "--out", out])
    assert got.code == 0, got.err
    assert _report_slices(out.read_text()) == audit


def test_report_feature_levels_are_segments(rows, tmp_path, cli):
    got = cli(["segments", rows, "--score", "p", "--label", "y", "--features", "flag", "--json"])
    assert got.code == 0, got.err
    segments = {s["segment"]: s["n"] for s in json.loads(got.out)["segments"]}
    assert segments == {"flag=True": 100, "flag=False": 100, "flag=missing": 100}
    out = tmp_path / "r.html"
    got = cli(["report", rows, "--score", "p", "--label", "y", "--features", "flag", "--no-bootstrap",
               "--out", out])
    assert got.code == 0, got.err
    page = out.read_text()
    assert _report_slices(page[page.index('data-finding="segments"'):]) == segments
