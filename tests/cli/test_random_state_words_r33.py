"""A negative --random-state is refused in command-line words: a seed (a non-negative integer), never "a
numpy Generator or None", which no command line can pass."""

import numpy as np
import pandas as pd
import pytest

from veracity.datasets import demo_path


@pytest.fixture
def two_models(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 300)
    path = tmp_path / "x.csv"
    pd.DataFrame({"a": p, "b": np.clip(p + rng.normal(0, 0.05, p.size), 0.01, 0.99),
                  "label": (rng.random(p.size) < p).astype(int)}).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("argv", [
    ["audit", "--honest", "--random-state", "-1"],
    ["conformal", "--method", "aps", "--randomized", "--random-state", "-1"],
    ["segments", str(demo_path()), "--features", "segment", "--random-state", "-1"],
])
def test_a_negative_seed_is_refused_in_cli_words(cli, refused, argv):
    result = cli(argv)
    refused(result, r"--random-state must be a non-negative integer \(the seed of the draws\), got -1")
    assert "Generator" not in result.err


def test_compare_refuses_a_negative_seed_in_cli_words(cli, refused, two_models):
    result = cli(["compare", two_models, "--score", "a", "--against", "b", "--random-state", "-1"])
    refused(result, r"--random-state must be a non-negative integer \(the seed of the draws\), got -1")
    assert "Generator" not in result.err
