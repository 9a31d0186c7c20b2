"""`veracity apply` streaming Parquet judges "these logits look like probabilities" on the whole file.

A calibrator fit on logits warns when at least 100 scores all lie in [0, 1] (predict_proba output sent
to a logit map: every calibrated value is then wrong). The streamed apply judged each batch alone: a glob
of files under 100 rows each, or --batch-rows under 100, never warned (600 probabilities read as logits in
silence), and larger batches warned once per batch, each counting only its batch ("all 200 scores", three
times).
"""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import veracity as vc


@pytest.fixture
def logit_map(tmp_path):
    rng = np.random.default_rng(0)
    z = rng.normal(0.0, 2.0, 400)
    y = (rng.uniform(size=400) < 1.0 / (1.0 + np.exp(-z))).astype(float)
    path = tmp_path / "cal.json"
    vc.PlattScaling(score_type="logit").fit(z, y).save(path)
    p = rng.uniform(0.01, 0.99, 600)  # probabilities, not the logits the map was fit on
    return path, p


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "was fit on logits" in line]


@pytest.mark.parametrize("batch_rows", [None, 50])
def test_small_files_or_batches_still_warn_once_for_the_whole_input(cli, tmp_path, logit_map, batch_rows):
    cal, p = logit_map
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(12):  # a glob of small files (an hour of scores each): every batch holds 50 rows
        pq.write_table(pa.table({"p": p[50 * i:50 * (i + 1)]}), logs / f"part-{i:02d}.parquet")
    extra = [] if batch_rows is None else ["--batch-rows", str(batch_rows)]
    res = cli(["apply", cal, f"{logs}/*.parquet", "--score", "p", "-o", tmp_path / "out.parquet", *extra])
    assert res.code == 0, res.err
    said = _warnings(res.err)
    assert len(said) == 1, res.err
    assert "all 600 scores lie in [0, 1]" in said[0]
    assert f"min={p.min():.3g}, max={p.max():.3g}" in said[0]


def test_batches_warn_once_with_the_file_count(cli, tmp_path, logit_map):
    cal, p = logit_map
    data = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"p": p}), data)
    res = cli(["apply", cal, data, "--score", "p", "-o", tmp_path / "out.parquet", "--batch-rows", "200"])
    assert res.code == 0, res.err
    said = _warnings(res.err)
    assert len(said) == 1 and "all 600 scores" in said[0], res.err
    # the in-memory route (CSV) says the same
    csv = tmp_path / "scores.csv"
    csv.write_text("p\n" + "".join(f"{float(v)!r}\n" for v in p))
    mem = cli(["apply", cal, csv, "--score", "p", "-o", tmp_path / "out.csv"])
    assert _warnings(mem.err) == said


def test_logits_stream_silently_and_unchanged(cli, tmp_path, logit_map):
    cal, _ = logit_map
    z = np.random.default_rng(1).normal(0.0, 2.0, 600)
    data = tmp_path / "logits.parquet"
    pq.write_table(pa.table({"z": z}), data, row_group_size=50)
    res = cli(["apply", cal, data, "--score", "z", "-o", tmp_path / "out.parquet"])
    assert res.code == 0 and not _warnings(res.err), res.err
    got = pq.read_table(tmp_path / "out.parquet").column("calibrated").to_numpy()
    np.testing.assert_array_equal(got, vc.load(cal).transform(z))
