"""`veracity apply` streaming a Parquet file with two columns of one name: the one-line refusal the
in-memory read gives (a CSV with that header, `audit` on the same file), not pyarrow's KeyError."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from veracity.calibrators import PlattScaling


@pytest.mark.parametrize("duplicated", ["score", "label"])
def test_a_parquet_file_with_a_repeated_column_is_refused_in_one_line(tmp_path, cli, refused, duplicated):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 300)
    y = (rng.uniform(size=300) < p).astype(int)
    PlattScaling().fit(p, y).save(tmp_path / "cal.json")
    names = ["score", "score", "label"] if duplicated == "score" else ["score", "label", "label"]
    table = pa.table([[0.2, 0.5, 0.9], [0.3, 0.1, 0.7], [1, 0, 1]], names=["a", "b", "c"]).rename_columns(names)
    pq.write_table(table, tmp_path / "d.parquet")
    match = rf"column '{duplicated}' appears 2 times in .*d\.parquet; give every column a distinct name"
    refused(cli(["apply", tmp_path / "cal.json", tmp_path / "d.parquet", "--score", "score",
                 "--out", tmp_path / "o.csv"]), match)
    refused(cli(["audit", tmp_path / "d.parquet", "--score", "score", "--label", "label"]), match)
    assert not (tmp_path / "o.csv").exists()
