"""``veracity audit --mlflow`` prints what ``vc.log_mlflow`` notes (slice keys MLflow cannot take logged under
another name, mapped in slices.json); before, the command line showed only the run and its artifacts."""

import numpy as np
import pandas as pd


def test_renamed_slice_keys_are_noted_on_stderr(tmp_path, tracking, cli) -> None:
    rng = np.random.default_rng(2)
    p = rng.random(300)
    frame = pd.DataFrame({"p": p, "y": (rng.random(300) < p).astype(int),
                          "g": np.array(["a/b", "a|b", "plain"])[np.arange(300) % 3]})
    frame.to_csv(tmp_path / "d.csv", index=False)
    res = cli(["audit", str(tmp_path / "d.csv"), "--score", "p", "--label", "y", "--by", "g", "--mlflow"])
    assert res.code == 0, res.err
    noted = [line for line in res.err.splitlines() if line.startswith("note: ")]
    assert any("slice key" in line and "logged under another name" in line and "slices.json" in line
               for line in noted), res.err
