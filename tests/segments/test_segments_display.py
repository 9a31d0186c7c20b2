"""The segment result everywhere a user looks: text, JSON, DataFrame, notebook, plot, CLI (issue 24)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n = 20_000
    p = rng.uniform(0.05, 0.9, n)
    region = rng.choice(["EU", "US", "APAC"], n)
    age = rng.integers(18, 80, n)
    y = (rng.uniform(size=n) < np.where((region == "EU") & (age >= 50), p + 0.1, p).clip(0, 1)).astype(int)
    return pd.DataFrame({"p": p, "y": y, "region": region, "age": age})


@pytest.fixture(scope="module")
def result(data):
    return vc.segments(data, score="p", label="y", features=["region", "age"])


def test_text_lists_discoveries_and_the_mce(result):
    text = str(result)
    assert text.splitlines()[0].startswith("Segments of region, age (depth 2): ")
    assert "region=EU & age=[" in text and "discovery" in text
    assert "multicalibration error (MCGrad's definition): MCE" in text
    assert repr(result) == text
    assert result.discoveries[0].importance >= result.discoveries[-1].importance
    assert all(r.discovery for r in result.rows[: len(result.discoveries)])


def test_dict_frame_html(result):
    d = result.to_dict()
    json.dumps(d, allow_nan=False)
    assert {"n", "mce", "mce_sigma", "segments"} <= set(d)
    row = d["segments"][0]
    for key in ("segment", "features", "n", "conf", "rate", "gap", "ci_low", "ci_high", "p_value", "q_value",
                "sufficient", "discovery", "ece", "ece_floor", "min_detectable_gap"):
        assert key in row
    assert row["gap"] == pytest.approx(row["rate"] - row["conf"], abs=1e-15)
    assert row["ci_low"] <= row["gap"] <= row["ci_high"]
    frame = result.to_frame()
    assert len(frame) == result.n_segments and "segment" in frame.columns
    html = result._repr_html_()
    assert "region=EU" in html and "<table" in html


def test_plot(result):
    pytest.importorskip("matplotlib")
    fig = result.plot()
    assert fig.axes and "discover" in fig.axes[0].get_title(loc="left")


def test_cli_json_and_table(cli, data, tmp_path):
    path = tmp_path / "scores.parquet"
    data.to_parquet(path, index=False)
    out = cli(["segments", path, "--score", "p", "--label", "y", "--features", "region,age", "--json"])
    assert out.code == 0, out.err
    doc = json.loads(out.out)
    assert {"n", "mce", "segments"} <= set(doc) and doc["n"] == len(data)
    want = vc.segments(data, score="p", label="y", features=["region", "age"])
    assert doc["mce"] == pytest.approx(want.mce, abs=1e-12)
    assert [r["segment"] for r in doc["segments"]] == [r.segment for r in want.rows]
    table = cli(["segments", path, "--score", "p", "--label", "y", "--features", "region,age"])
    assert table.code == 0 and table.out.startswith("Segments of region, age")
    every = cli(["segments", path, "--score", "p", "--label", "y", "--features", "region", "--all"])
    assert every.code == 0 and "region=US" in every.out
