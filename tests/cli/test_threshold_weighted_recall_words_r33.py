"""``veracity threshold --target-recall R --sample-weight w`` says the rank and the weight it reaches.

It printed "k = the first rank where the positives' cumulative weight reaches R·(W + Σw²/Σw) = 193",
which reads as a weight of 193; 193 was the rank k, and the weight reached was 382.6. Now
"k = 193, the first rank where ... reaches R·(W + Σw²/Σw) = 382.6", the weight computed here by hand."""

import json
import re

import numpy as np
import pytest


@pytest.mark.parametrize("correction", [True, False])
def test_weighted_recall_line_names_rank_and_weight(tmp_path, cli, write_csv, correction):
    rng = np.random.default_rng(7)
    n = 300
    p = np.round(rng.random(n), 6)
    y = (rng.random(n) < p).astype(int)
    w = rng.integers(1, 4, n)
    path = write_csv(tmp_path / "d.csv", "score,label,w", list(zip(p, y, w)))
    argv = ["threshold", path, "--sample-weight", "w", "--target-recall", "0.8", "-q"]
    argv += [] if correction else ["--no-correction"]
    doc = json.loads(cli([*argv, "--json", "-"]).out)
    text = cli(argv).out.splitlines()[0]
    wp = w[y == 1].astype(float)
    need = 0.8 * (wp.sum() + (wp @ wp) / wp.sum() if correction else wp.sum())
    order = np.argsort(-p[y == 1], kind="stable")
    k = int(np.searchsorted(np.cumsum(wp[order]), need - 1e-9)) + 1
    assert doc["rule"]["k"] == k
    m = re.search(r"k = (\d+), the first rank where the positives' cumulative weight reaches (.+) = (\S+)$",
                  text)
    assert m, text
    assert int(m.group(1)) == k and m.group(2) == ("R·(W + Σw²/Σw)" if correction else "R·W")
    assert float(m.group(3)) == pytest.approx(need, rel=1e-3)
