"""``vc.scan_file`` bins every row by the equal-width rule ``floor(p·M)``: edges that are not equal widths were
taken as labels only, the rows binned by M equal widths beneath them (edges [0, 0.2, 0.5, 1] gave counts
68, 62, 70 where the file holds 42, 55, 103 rows in those ranges). They are refused now, in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.fixture()
def parquet(tmp_path):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(2)
    s = rng.random(200)
    path = tmp_path / "scores.parquet"
    pd.DataFrame({"s": s, "y": (rng.random(200) < s).astype(int)}).to_parquet(path)
    return path, s


@pytest.mark.parametrize("edges", [[0, 0.2, 0.5, 1.0], [0.1, 0.5, 1.0], list(np.linspace(0, 2, 11)), "abc",
                                   [[0.0, 1.0]]])
def test_edges_other_than_equal_widths_are_refused(parquet, edges) -> None:  # type: ignore[no-untyped-def]
    path, _ = parquet
    with pytest.raises(vc.VeracityError, match=r"^scan_file bins by equal widths: edges must be the M \+ 1 "):
        vc.scan_file(path, score="s", label="y", edges=edges)


@pytest.mark.parametrize("m", [1, 3, 7, 10])
def test_equal_width_edges_bin_as_the_arrays_do(parquet, m) -> None:  # type: ignore[no-untyped-def]
    path, s = parquet
    for edges in (np.linspace(0, 1, m + 1), list(np.arange(m + 1) / m)):
        got = vc.scan_file(path, score="s", label="y", edges=edges).total
        want = np.bincount(np.minimum((s * m).astype(int), m - 1), minlength=m)
        np.testing.assert_array_equal(got.count, want)
        np.testing.assert_array_equal(got.edges, np.arange(m + 1) / m)
