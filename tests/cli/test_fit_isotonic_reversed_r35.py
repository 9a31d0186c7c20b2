"""`veracity fit --method isotonic|venn-abers` on a reversed score warns on stderr (round 35).

Both fit non-decreasing maps; on a score whose higher values go with fewer positives they collapsed to the
base rate and wrote the artifact in silence, where --method beta and platt warned.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _reversed(tmp_path, write_csv) -> str:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 400)
    y = (rng.uniform(size=p.size) < 1 - p).astype(int)  # higher scores, fewer positives
    return write_csv(tmp_path / "rev.csv", "p,y", [(f"{a:.4f}", b) for a, b in zip(p, y)])


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("veracity fit: warning: ")]


@pytest.mark.parametrize("method, name", [("isotonic", "IsotonicCalibration"), ("venn-abers", "VennAbers")])
def test_fit_of_a_reversed_score_warns(tmp_path, write_csv, cli, method, name):
    path = _reversed(tmp_path, write_csv)
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", method, "--out", tmp_path / "c.json"])
    assert r.code == 0, r.err
    said = _warnings(r.err)
    assert len(said) == 1 and f"{name}: the score is reversed" in said[0], r.err
    assert "pass 1 - p" in said[0]
    assert vc.load(tmp_path / "c.json").kind == method  # the artifact is written as before


def test_fit_of_a_forward_score_is_quiet(tmp_path, write_csv, cli):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 400)
    y = (rng.uniform(size=p.size) < p).astype(int)
    path = write_csv(tmp_path / "fwd.csv", "p,y", [(f"{a:.4f}", b) for a, b in zip(p, y)])
    for method in ("isotonic", "venn-abers"):
        r = cli(["fit", path, "--score", "p", "--label", "y", "--method", method,
                 "--out", tmp_path / "c.json"])
        assert r.code == 0 and not _warnings(r.err), r.err
