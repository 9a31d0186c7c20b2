"""``veracity segments --level``: the intervals of the gaps at the level asked for (the command printed 95 %
intervals whatever the user needed; Python's ``vc.segments(level=)`` had it; round 34)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import veracity as vc


def test_level_reaches_the_segments_intervals(tmp_path, cli, refused):
    rng = np.random.default_rng(34)
    n = 3000
    p = rng.uniform(0.1, 0.9, n)
    region = rng.choice(list("abc"), n)
    df = pd.DataFrame({"p": p, "y": (rng.uniform(size=n) < p).astype(int), "region": region})
    path = tmp_path / "rows.csv"
    df.to_csv(path, index=False)
    got = cli(["segments", path, "--score", "p", "--label", "y", "--features", "region", "--level", "0.9", "--all"])
    assert got.code == 0, got.err
    assert "90% CI of gap" in got.out
    as_json = json.loads(cli(["segments", path, "--score", "p", "--label", "y", "--features", "region",
                              "--level", "0.9", "--json", "-"]).out)
    python = vc.segments(df.p.to_numpy(), df.y.to_numpy(), features={"region": region}, level=0.9).to_dict()
    assert as_json["segments"] == python["segments"]
    refused(cli(["segments", path, "--score", "p", "--label", "y", "--features", "region", "--level", "1.5"]),
            r"--level must be in \(0, 1\)")
