"""``veracity apply cal.json "logs/*.parquet"`` refusing a file whose schema is not the first file's says how
it differs (session 43). It said "has other columns or types than the first file" for two files holding the
same columns in another order (``veracity audit`` reads that glob), leaving the user to find a difference
that each file's column list did not show."""

from __future__ import annotations

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize("second, said", [
    ({"label": [1, 0], "score": [0.3, 0.9]},
     r"differs from the first file of \S+: the same columns, in another order; apply to files of one schema"),
    ({"score": pa.array([1, 0], pa.int64()), "label": [1, 0]}, r": its column 'score' is int64, not double;"),
    ({"score": [0.5], "label": [1], "extra": ["x"]}, r": it adds 'extra';"),
])
def test_apply_says_how_a_file_differs(tmp_path, cli, refused, platt_artifact, second, said):
    logs = tmp_path / "logs"
    logs.mkdir()
    pq.write_table(pa.table({"score": [0.1, 0.2], "label": [0, 1]}), logs / "a.parquet")
    pq.write_table(pa.table(second), logs / "b.parquet")
    refused(cli(["apply", platt_artifact, f"{logs}/*.parquet", "-o", tmp_path / "out.parquet"]), said)
