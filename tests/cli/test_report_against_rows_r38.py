"""``veracity report --against B`` reads the second model's scores on the rows it measures (session 38), as
``veracity compare --against B`` does: a model B scored on the test rows only (its score empty on the calib
rows, which the report reads for the recall threshold) was refused ("column 'b' has 500 missing/NaN ...
drop or fill those rows first") where compare printed the comparison. A gap in a measured row is still
refused, naming its data row in FILE."""

from __future__ import annotations

import json
import re

import numpy as np

rng = np.random.default_rng(3842)
N = 400
X = rng.normal(0, 1.5, N)
Y = (rng.uniform(size=N) < 1 / (1 + np.exp(-X))).astype(int)
A = 1 / (1 + np.exp(-(X + rng.normal(0, 1, N))))
B = 1 / (1 + np.exp(-(0.6 * X + rng.normal(0, 0.5, N))))
ROLE = np.where(np.arange(N) % 2 == 0, "calib", "test")


def _write(path, gap_row: int | None = None):
    b = [f"{v:.6f}" if r == "test" and i != gap_row else "" for i, (v, r) in enumerate(zip(B, ROLE))]
    path.write_text("a,b,y,role\n" + "".join(f"{a:.6f},{bb},{y},{r}\n" for a, bb, y, r in zip(A, b, Y, ROLE)))
    return path


def test_second_model_scored_on_the_test_rows_only(tmp_path, cli):
    path = _write(tmp_path / "ab.csv")
    got = cli(["compare", path, "--score", "a", "--against", "b", "--label", "y", "--json"])
    assert got.code == 0, got.err
    brier = next(r for r in json.loads(got.out)["comparison"] if r["metric"] == "brier")
    out = tmp_path / "r.html"
    got = cli(["report", path, "--score", "a", "--against", "b", "--label", "y", "--n-resamples", "200",
               "--out", out])
    assert got.code == 0, got.err
    page = out.read_text()
    row = re.search(r"<strong>Brier</strong>.*?</tr>", page[page.index('data-finding="comparison"'):]).group(0)
    cells = re.findall(r'<td class="num">([^<]*)<', row)
    assert cells[:2] == [f"{brier['value_a']:.4f}", f"{brier['value_b']:.4f}"], (cells, brier)
    assert "on the same 200 rows" in page


def test_a_gap_in_a_measured_row_is_refused_with_its_row(tmp_path, cli):
    path = _write(tmp_path / "ab.csv", gap_row=7)  # a test row: data row 8
    got = cli(["report", path, "--score", "a", "--against", "b", "--label", "y", "--no-bootstrap",
               "--out", tmp_path / "r.html"])
    assert got.code == 2
    assert "column 'b' has 1 missing/NaN" in got.err and "first at data row 8" in got.err, got.err
    assert "of the 200 rows with role == 'test'" in got.err and len(got.err.strip().splitlines()) == 1
