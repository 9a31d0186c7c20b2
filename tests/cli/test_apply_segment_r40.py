"""``veracity apply`` runs a saved SegmentCalibration, reading its features from the file (round 40).

Before, the one calibrator whose map reads columns beside the score was refused by ``veracity apply``
("pass features={name: column} for each", a Python spelling): a repair fit in Python could not be applied
where the scores are written. Now each feature is read from the file's column of that name, as
``SegmentCalibration.transform(frame, score=...)`` reads a frame's, on the in-memory route (CSV) and on the
streamed Parquet route, batch by batch; a file without a feature column is refused in one line.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import veracity as vc

RNG = np.random.default_rng(40)
N = 3_000
REGION = RNG.choice(np.array(["north", "south", "east", "o'west; --"]), N)
TIER = RNG.integers(0, 4, N).astype(float)
TIER[RNG.uniform(size=N) < 0.05] = np.nan  # missing levels
P = RNG.uniform(0.02, 0.98, N)
SHIFT = np.where(REGION == "north", 0.9, 0.0) + np.where(TIER == 2, -0.6, 0.0)
Y = (RNG.uniform(size=N) < 1 / (1 + np.exp(-(np.log(P / (1 - P)) + SHIFT)))).astype(int)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("seg")
    fit = np.arange(N) % 2 == 0
    seg = vc.SegmentCalibration(base="platt", features=["region", "tier"], min_count=30)
    seg.fit(P[fit], Y[fit], features={"region": REGION[fit], "tier": TIER[fit]})
    assert sum(len(c["keys"]) for c in seg.corrections_) > 0  # the map does read the features
    table = pa.table({"id": np.arange(N), "p": P, "region": REGION, "tier": TIER})
    path = folder / "seg.json"
    seg.save(path)
    return seg, table, folder, path


def test_csv_and_streamed_parquet_give_the_frame_transform(cli, saved):
    seg, table, folder, path = saved
    expected = seg.transform(table, score="p")
    assert np.abs(expected - seg.base_.transform(P)).max() > 0.05  # corrections that matter
    pacsv.write_csv(table, folder / "rows.csv")
    pq.write_table(table, folder / "rows.parquet")
    for source, out, extra in (("rows.csv", "out.parquet", []),
                               ("rows.parquet", "out2.parquet", ["--batch-rows", "700"])):
        result = cli(["apply", str(path), str(folder / source), "--score", "p", "-o", str(folder / out),
                      *extra])
        assert result.code == 0, result.err
        got = pq.read_table(folder / out)
        assert got.column("id").to_pylist() == list(range(N))
        np.testing.assert_array_equal(got.column("calibrated").to_numpy(), expected)


def test_a_file_without_a_feature_column_is_refused_in_one_line(cli, refused, saved):
    _, table, folder, path = saved
    pq.write_table(table.drop(["tier"]), folder / "no_tier.parquet")
    pacsv.write_csv(table.drop(["tier"]), folder / "no_tier.csv")
    for name in ("no_tier.parquet", "no_tier.csv"):
        result = cli(["apply", str(path), str(folder / name), "--score", "p", "-o", str(folder / "x.csv")])
        refused(result, r"column 'tier' not found in \S*no_tier\.(parquet|csv); available columns: id, p, "
                        r"region")
        assert not (folder / "x.csv").exists()


def test_compare_measures_the_repair_on_held_out_rows(cli, saved):
    """``veracity compare --calibrator seg.json`` and ``vc.compare`` read the features too (they refused a
    SegmentCalibration: "compare calibrates the scores alone"): the after column is the repair's, on
    the rows it never saw; a row of weight 0 is dropped with its features."""
    seg, table, folder, path = saved
    held = np.arange(N) % 2 == 1
    feats = {"region": REGION[held], "tier": TIER[held]}
    ledger = vc.compare(P[held], Y[held], seg, features=feats)
    after = seg.transform(P[held], features=feats)
    nll = float(np.mean(-(Y[held] * np.log(after) + (1 - Y[held]) * np.log1p(-after))))
    assert ledger.rows[1].after == pytest.approx(nll, rel=1e-12)
    assert ledger.rows[1].metric == "NLL"
    frame = table.append_column("y", pa.array(Y)).filter(pa.array(held))
    assert str(vc.compare(frame, seg, score="p", label="y")) == str(ledger)
    weights = np.where(np.arange(held.sum()) < 50, 0.0, 1.0)
    dropped = vc.compare(P[held], Y[held], seg, features=feats, sample_weight=weights)
    kept = {k: v[50:] for k, v in feats.items()}
    assert str(dropped) == str(vc.compare(P[held][50:], Y[held][50:], seg, features=kept))
    pacsv.write_csv(frame, folder / "held.csv")
    result = cli(["compare", str(folder / "held.csv"), "--calibrator", str(path), "--score", "p",
                  "--label", "y"])
    assert result.code == 0, result.err
    assert str(ledger).splitlines()[1] in result.out  # the ledger's rows, as the library prints them


def test_compare_without_features_is_refused_and_a_plain_calibrator_takes_none(refused, saved, cli):
    seg, table, folder, path = saved
    with pytest.raises(vc.VeracityError, match=r"reads its features \['region', 'tier'\] on every row"):
        vc.compare(P, Y, seg)
    platt = vc.PlattScaling().fit(P, Y)
    with pytest.raises(vc.VeracityError, match="reads the scores alone: drop features="):
        vc.compare(P, Y, platt, features={"region": REGION})
    pacsv.write_csv(table.drop(["region"]).append_column("y", pa.array(Y)), folder / "no_region.csv")
    result = cli(["compare", str(folder / "no_region.csv"), "--calibrator", str(path), "--score", "p",
                  "--label", "y"])
    refused(result, r"column 'region' not found in \S*no_region\.csv")
