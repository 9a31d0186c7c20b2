"""``--json`` writes an infinite number as the string "Infinity" / "-Infinity", never as null.

JSON has no token for infinity; the CLI wrote every non-finite number as null, which reads as
"missing": a threshold of -inf (flag every row: ``--score-type logit`` with ``--cost-fp 0``) or +inf
(flag nothing), a conformal q̂ of +inf (every class in the set) came out as ``"threshold": null``.
NaN (an undefined number: a precision with nothing flagged) stays null.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest


def _strict(text: str) -> dict:
    """JSON as a strict parser reads it: the bare tokens NaN / Infinity are refused."""
    def refuse(token):
        raise AssertionError(f"non-JSON constant {token} in the output")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def scored(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    p = 1 / (1 + np.exp(-2 * x))
    path = tmp_path / "d.csv"
    pd.DataFrame({"p": p, "z": 2 * x, "y": (rng.random(200) < p).astype(int)}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("costs,expected,alerts", [
    (["--cost-fp", "0"], "-Infinity", 200),   # t* = 0 -> logit(0) = -inf: every row flagged
    (["--cost-fn", "0"], "Infinity", 0),      # t* = 1 -> logit(1) = +inf: nothing flagged
])
def test_threshold_json_writes_an_infinite_threshold_as_infinity_not_null(cli, scored, costs, expected, alerts):
    r = cli(["threshold", scored, "--score", "z", "--label", "y", "--score-type", "logit", *costs, "--json", "-"])
    assert r.code == 0, r.err
    doc = _strict(r.out)
    assert doc["threshold"] == expected  # before: null
    row = doc["roles"]["all"]["table"][0]
    assert row["threshold"] == expected and row["alerts"] == alerts
    assert float(doc["threshold"]) == (math.inf if expected == "Infinity" else -math.inf)  # read back


def test_also_inf_rows_keep_their_sign_and_nan_stays_null(cli, scored):
    r = cli(["threshold", scored, "--score", "p", "--label", "y", "--also", "inf,-inf", "--json", "-"])
    assert r.code == 0, r.err
    table = _strict(r.out)["roles"]["all"]["table"]
    assert [row["threshold"] for row in table] == [0.5, "Infinity", "-Infinity"]
    nothing = table[1]  # nothing flagged: precision 0/0 is undefined, not infinite
    assert nothing["alerts"] == 0 and nothing["precision"] is None
    assert table[2]["alerts"] == 200 and table[2]["recall"] == 1.0


def test_json_path_gets_the_same_encoding(cli, scored, tmp_path):
    out = tmp_path / "t.json"
    r = cli(["threshold", scored, "--score", "z", "--label", "y", "--score-type", "logit", "--cost-fn", "0",
             "--json", out])
    assert r.code == 0, r.err
    assert _strict(out.read_text())["threshold"] == "Infinity"


def test_conformal_json_writes_an_infinite_qhat_as_infinity(cli, tmp_path):
    """Test rows whose own likelihood ratio leaves more than alpha of the mass at +inf get q̂ = +inf
    (every class in the set): the report's qhat (their median) is +inf, not missing."""
    rng = np.random.default_rng(1)
    p = rng.random(40)
    path = tmp_path / "cw.csv"
    pd.DataFrame({"p": p, "y": (rng.random(40) < p).astype(int), "w": [1.0] * 20 + [100.0] * 20,
                  "role": ["calib"] * 20 + ["test"] * 20}).to_csv(path, index=False)
    r = cli(["conformal", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--test-weight", "w",
             "--json", "-"])
    assert r.code == 0, r.err
    roles = _strict(r.out)["roles"]
    assert roles["test"]["qhat"] == ["Infinity", "Infinity"]  # before: [null, null]
    assert roles["test"]["mean_set_size"] == 2.0  # every class in every set: what +inf means
    assert all(isinstance(q, float) and 0 < q < 1 for q in roles["calib"]["qhat"])


def test_json_help_says_how_infinity_is_written(cli):
    r = cli(["threshold", "--help"])
    assert r.code == 0
    assert '"Infinity"' in " ".join(r.out.split()) and "(NaN) as null" in " ".join(r.out.split())
