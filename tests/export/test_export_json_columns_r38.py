"""``veracity export --sql D --json``: "column" names the column(s) the emitted SQL reads (session 38).

For a multiclass calibrator the field showed the prefix ("score") while the SQL read score_0 … score_{K-1}."""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc


def _read_columns(text: str, dialect: str) -> list[str]:
    """The input columns the SQL text references, in first-use order (sqlglot parse-back)."""
    import sqlglot
    from sqlglot import exp

    seen: dict[str, None] = {}
    for col in sqlglot.parse_one(f"SELECT {text} FROM t", read=dialect).find_all(exp.Column):
        seen.setdefault(col.name, None)
    return list(seen)


@pytest.fixture(scope="module")
def multiclass(tmp_path_factory):
    rng = np.random.default_rng(38)
    P = rng.dirichlet(np.ones(3), 400)
    y = np.array([rng.choice(3, p=row) for row in P])  # calibrated labels: no "no signal" warning
    path = tmp_path_factory.mktemp("mc") / "temp.json"
    vc.TemperatureScaling().fit(P, y).save(path)
    return path


CASES = [  # (--column arguments, the columns the SQL reads)
    ([], ["score_0", "score_1", "score_2"]),
    (["--column", "q"], ["q_0", "q_1", "q_2"]),
    (["--column", "a,b,c"], ["a", "b", "c"]),
]


@pytest.mark.parametrize("dialect", ["duckdb", "postgres"])
def test_json_column_is_what_the_sql_reads(cli, multiclass, tmp_path, dialect):
    for argv, want in CASES:
        res = cli(["export", multiclass, "--sql", dialect, "--json", *argv])
        assert res.code == 0, res.err
        doc = json.loads(res.out)
        assert sorted(_read_columns(doc["sql"], dialect)) == sorted(want)
        assert doc["column"] == want, argv
    rng = np.random.default_rng(1)  # a binary map stays one name
    p = rng.random(300)
    path = tmp_path / "platt.json"
    vc.PlattScaling().fit(p, (rng.random(300) < p).astype(int)).save(path)
    doc = json.loads(cli(["export", path, "--sql", dialect, "--json", "--column", "p"]).out)
    assert doc["column"] == "p" and _read_columns(doc["sql"], dialect) == ["p"]
