"""The in-memory reader takes only the needed CSV columns, block by block, and stays exact."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from veracity import io


def test_needed_columns_only_and_same_values_as_the_whole_file_reader(tmp_path):
    rng = np.random.default_rng(0)
    n = 50_000
    cols = {"p": rng.uniform(size=n), "y": (rng.uniform(size=n) < 0.3).astype(int)}
    for j in range(10):
        cols[f"x{j}"] = rng.normal(size=n)
    path = tmp_path / "wide.csv"
    pacsv.write_csv(pa.table(cols), path)
    table = io.read_table(path, ["p", "y"])
    assert table.column_names == ["p", "y"]
    whole = pacsv.read_csv(path)
    assert np.array_equal(table.column("p").to_numpy(), whole.column("p").to_numpy())
    assert np.array_equal(table.column("y").to_numpy(), whole.column("y").to_numpy())


def test_a_column_that_changes_type_after_the_first_block_is_read_whole(tmp_path):
    # the streaming reader infers int64 from the first 1 MiB block, then meets 0.5
    path = tmp_path / "late_float.csv"
    path.write_text("p,y,note\n" + "0,0,a\n" * 400_000 + "0.5,1,b\n")
    table = io.read_table(path, ["p", "y"])
    assert table.num_rows == 400_001
    assert table.schema.field("p").type == pa.float64()
    assert table.column("p")[-1].as_py() == 0.5
