"""``veracity segments --bins`` where no feature is numeric changed nothing, silently (r34): refused in one
line, as the other commands refuse options that changed nothing; with a numeric feature it is used."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd


def _file(tmp_path):
    rng = np.random.default_rng(34)
    n = 2000
    p = rng.uniform(0.1, 0.9, n)
    df = pd.DataFrame({"p": p, "y": (rng.uniform(size=n) < p).astype(int),
                       "region": rng.choice(list("abc"), n), "age": rng.integers(18, 80, n)})
    path = tmp_path / "rows.csv"
    df.to_csv(path, index=False)
    return path


def test_bins_on_categorical_features_is_refused(tmp_path, cli, refused):
    path = _file(tmp_path)
    refused(cli(["segments", path, "--score", "p", "--label", "y", "--features", "region", "--bins", "3"]),
            r"--bins cuts numeric features .* none of --features region is numeric.*drop --bins")
    assert cli(["segments", path, "--score", "p", "--label", "y", "--features", "region"]).code == 0


def test_bins_with_a_numeric_feature_is_used(tmp_path, cli):
    path = _file(tmp_path)
    got = cli(["segments", path, "--score", "p", "--label", "y", "--features", "region,age", "--bins", "3",
               "--depth", "1", "--json", "-"])
    assert got.code == 0, got.err
    levels = json.loads(got.out)["levels"]
    assert len(levels["age"]) == 3 and len(levels["region"]) == 3
