"""Round-14 follow-ups: pandas rows paired by position in every ``rows_form`` function, logits
declared on probabilities in the conformal classifier, ``--table schema.table`` in the CLI, and the
weighted conformal quantile's coverage on small calibration sets."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import veracity as vc
from veracity import VeracityError
from veracity.decisions import conformal_quantile

from ..sql.conftest import insert_rows

N = 300
SAME_INDEX = "pandas objects with different indexes"



def _rows(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, N)
    return p, (rng.uniform(size=N) < p).astype(int)


# the public functions decorated with rows_form whose array form paired shuffled Series by position
# (on 3ef8185: an answer, no error); options make each call cheap
ROWS_FORM = {
    "confidence_sequence": {},
    "binned_sequences": {},
    "risk_coverage": {},
    "selective_threshold": {"target_risk": 0.3},
    "recall_threshold": {"target": 0.8},
    "precision_threshold": {"target": 0.6},
    "simulate_redraws": {"n_calib": 150, "n_resamples": 20, "random_state": 0},
    "cross_fit": {"calibrator": vc.TemperatureScaling(), "random_state": 0},
}


@pytest.mark.parametrize("name", sorted(ROWS_FORM))
def test_rows_form_refuses_labels_on_another_index(name):
    p, y = _rows()
    scores = pd.Series(p)
    labels = pd.Series(y).sample(frac=1.0, random_state=1)  # same rows, shuffled: paired wrongly by position
    with pytest.raises(vc.VeracityError, match=SAME_INDEX) as err:
        getattr(vc, name)(scores, labels, **ROWS_FORM[name])
    assert "\n" not in str(err.value) and "scores and labels" in str(err.value)


@pytest.mark.parametrize("name", sorted(ROWS_FORM))
def test_rows_form_refuses_weights_on_another_index(name):
    p, y = _rows()
    weights = pd.Series(np.linspace(0.5, 2.0, N)).sample(frac=1.0, random_state=2)
    with pytest.raises(vc.VeracityError, match=SAME_INDEX + r".*sample_weight"):
        getattr(vc, name)(pd.Series(p), y, sample_weight=weights, **ROWS_FORM[name])


def test_rows_form_refuses_batches_on_another_index():
    p, y = _rows()
    batches = pd.Series(np.repeat(np.arange(10), N // 10)).sample(frac=1.0, random_state=3)
    with pytest.raises(vc.VeracityError, match="scores and batches are " + SAME_INDEX):
        vc.confidence_sequence(pd.Series(p), pd.Series(y), batches=batches)


def test_rows_form_aligned_series_and_arrays_agree():
    p, y = _rows()
    index = np.random.default_rng(4).permutation(N) + 1000  # any index, as long as it is the same one
    from_series = vc.recall_threshold(pd.Series(p, index=index), pd.Series(y, index=index), target=0.8)
    assert from_series == vc.recall_threshold(p, y, target=0.8)
    seq = vc.confidence_sequence(pd.Series(p, index=index), pd.Series(y, index=index))
    assert str(seq) == str(vc.confidence_sequence(p, y))


# -- ConformalClassifier(score_type="logit") on probabilities ----------------------------------------
def test_conformal_logit_refuses_binary_probabilities():
    p, y = _rows()
    with pytest.raises(vc.VeracityError, match=r"probs were declared score_type='logit' but all 300 lie in \[0, 1\]"):
        vc.ConformalClassifier(score_type="logit").fit(p, y)
    logits = np.log(p / (1 - p))
    cp = vc.ConformalClassifier(score_type="logit").fit(logits, y)
    assert cp.qhat_ == vc.ConformalClassifier().fit(p, y).qhat_  # the same rows as probabilities
    with pytest.raises(vc.VeracityError, match="look like probabilities"):
        cp.coverage(p, y)


def test_conformal_logit_refusal_is_one_cli_line(cli, tmp_path):
    p, y = _rows()
    path = tmp_path / "s.csv"
    pd.DataFrame({"p": p, "y": y}).to_csv(path, index=False)
    res = cli(["conformal", str(path), "--score", "p", "--label", "y", "--score-type", "logit"])
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1 and "Traceback" not in res.err


# -- veracity audit --sql-url URL --table schema.table -------------------------------------------------
def _audit_json(cli, url: str, table: str):
    res = cli(["audit", "--sql-url", url, "--table", table, "--score", "p", "--label", "y", "--json"])
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_cli_table_schema_dot_name_duckdb(cli, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    p, y = _rows(5)
    path = tmp_path / "x.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA s")
    con.execute("CREATE TABLE s.t (p DOUBLE, y BIGINT)")
    insert_rows(con, "INSERT INTO s.t VALUES", "(?, ?)", list(zip(p.tolist(), y.tolist())))
    con.execute('CREATE TABLE "d.t" (p DOUBLE, y BIGINT)')  # a table whose name holds a dot is read first
    insert_rows(con, 'INSERT INTO "d.t" VALUES', "(?, ?)", list(zip(p[:100].tolist(), y[:100].tolist())))
    con.close()
    url = f"duckdb:///{path}"
    doc = _audit_json(cli, url, "s.t")
    want = vc.audit(p, y).to_dict()
    assert doc["n"] == N and doc["metrics"]["ece"] == pytest.approx(want["metrics"]["ece"], abs=1e-12)
    assert doc["sql_table"] == "s.t"
    assert _audit_json(cli, url, "d.t")["n"] == 100
    missing = cli(["audit", "--sql-url", url, "--table", "s.nope", "--score", "p", "--label", "y"])
    assert missing.code == 2 and len(missing.err.strip().splitlines()) == 1
    assert "--table 's.nope'" in missing.err and "schema 's'" in missing.err and "table=(" not in missing.err
    column = cli(["audit", "--sql-url", url, "--table", "s.t", "--score", "q", "--label", "y"])
    assert column.code == 2 and "'q'" in column.err and "table=(" not in column.err


def test_cli_table_schema_dot_name_sqlite(cli, tmp_path):
    p, y = _rows(6)
    path = tmp_path / "x.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE scores (p REAL, y INTEGER)")
    con.executemany("INSERT INTO scores VALUES (?, ?)", list(zip(p.tolist(), y.tolist())))
    con.commit()
    con.close()
    doc = _audit_json(cli, f"sqlite:///{path}", "main.scores")  # SQLite's database.table
    assert doc["n"] == N
    assert doc["metrics"]["ece"] == pytest.approx(vc.audit(p, y).to_dict()["metrics"]["ece"], abs=1e-12)
    deep = cli(["audit", "--sql-url", f"sqlite:///{path}", "--table", "a.b.c", "--score", "p", "--label", "y"])
    assert deep.code == 2 and len(deep.err.strip().splitlines()) == 1
    assert "--table 'a.b.c'" in deep.err and "table=(" not in deep.err


# -- weighted conformal: the test row carries the mean calibration weight ------------------------------
# x ~ U(-1, 1) on calibration, test density ∝ exp(2x) (likelihood ratio w(x) = exp(2x), from exp(-2) to
# exp(2)); nonconformity score |ε|·exp(x), so P(score <= q | x) = 2Φ(q·exp(-x)) - 1 and the test coverage
# of q̂ is its mean under the test density (a quadrature: no test rows are drawn).
GRID = np.linspace(-1.0, 1.0, 801)
TEST_DENSITY = np.exp(2 * GRID) / np.exp(2 * GRID).sum()


def _coverage(q: np.ndarray | np.float64) -> float:
    """Test coverage of the threshold ``q`` (one in all, or one per grid point)."""
    return float((TEST_DENSITY * (2 * norm.cdf(q * np.exp(-GRID)) - 1)).sum())


def _simulate(n: int, draws: int, seed: int, alpha: float = 0.1):
    rng = np.random.default_rng(seed)
    mean_weight, own_weight = np.empty(draws), np.empty(draws)
    for r in range(draws):
        x = rng.uniform(-1.0, 1.0, n)
        s, w = np.abs(rng.normal(size=n)) * np.exp(x), np.exp(2 * x)
        try:  # the default rule (the new row at sum w^2 / sum w) refuses too few effective rows: NaN
            mean_weight[r] = _coverage(np.float64(conformal_quantile(s, alpha, w)))
        except VeracityError:
            mean_weight[r] = np.nan
        # the oracle (Tibshirani et al. 2019): the test row at x carries its own weight exp(2x); q̂(x) = the
        # smallest score whose cumulative weight reaches (1-α)(W + w(x)), +inf past the last
        order = np.argsort(s)
        cum = np.cumsum(w[order])
        j = np.searchsorted(cum, (1 - alpha) * (cum[-1] + np.exp(2 * GRID)), side="left")
        q = np.where(j < n, np.append(s[order], np.inf)[np.minimum(j, n)], np.inf)
        own_weight[r] = _coverage(q)
    return mean_weight, own_weight


def test_weighted_conformal_coverage_at_n200_holds():
    cov, oracle = _simulate(200, 1500, seed=11)
    assert not np.isnan(cov).any()  # 200 rows of these weights: never too few effective rows
    se = cov.std() / np.sqrt(cov.size)  # about 0.0008
    # the test row at W/m, m the smaller of Kish's size and the spread's about q-hat (session 38; Kish's alone:
    # 0.8986 +- 0.0002, short): covers, and no more than the exact rule given each test row's own weight
    assert cov.mean() >= 0.9 - 3 * se, (cov.mean(), se)  # measured 0.907
    assert cov.mean() <= oracle.mean() + 3 * se, (cov.mean(), oracle.mean(), se)  # oracle measured 0.9065
    assert oracle.mean() >= 0.9 - 3 * oracle.std() / np.sqrt(oracle.size)


def test_weighted_conformal_coverage_falls_short_at_n20():
    """Weights that depend on the score (exp(2x), scores growing with x): the default rule, which does
    not know the test row's weight, falls short of 0.9 on 20 rows where it answers (the old mean-weight
    rule: 0.877; the Kish rule, which refuses the draws with too few effective rows: 0.886)."""
    cov, oracle = _simulate(20, 1500, seed=12)
    refused = np.isnan(cov)
    assert 0.05 < refused.mean() < 0.5, refused.mean()  # measured 346 of 1,500
    cov = cov[~refused]
    se = cov.std() / np.sqrt(cov.size)  # about 0.0026
    assert cov.mean() < 0.9 - 3 * se and cov.mean() == pytest.approx(0.886, abs=4 * se)  # measured 0.886
    assert oracle.mean() >= 0.9 - 3 * oracle.std() / np.sqrt(oracle.size)  # the test row's own weight covers


def test_cli_fit_takes_a_role_column_as_threshold_does(tmp_path, capsys):
    """Before: ``veracity fit FILE`` on a file with a ``role`` column fit on every row, its test rows among
    them (threshold, conformal and report already took the column); now on its calib rows, and on every row
    of a file without one."""
    import json

    from veracity.cli import main
    from veracity.datasets import demo_path

    lines = demo_path().read_text().splitlines()
    at = lines[0].split(",").index("role")
    calib = sum(1 for line in lines[1:] if line.split(",")[at] == "calib")
    assert 0 < calib < len(lines) - 1
    out = tmp_path / "c.json"
    assert main(["fit", str(demo_path()), "--method", "platt", "--out", str(out), "-q"]) == 0
    meta = json.loads(out.read_text())["metadata"]
    assert (meta["n_rows"], meta["role"]) == (calib, "calib")
    norole = tmp_path / "norole.csv"
    norole.write_text("\n".join(",".join(c for i, c in enumerate(line.split(",")) if i != at) for line in lines))
    assert main(["fit", str(norole), "--method", "platt", "--out", str(out), "-q"]) == 0
    assert json.loads(out.read_text())["metadata"]["n_rows"] == len(lines) - 1
    capsys.readouterr()


def test_cli_compare_measures_a_calibrator_on_the_test_rows_of_a_role_column(tmp_path, capsys):
    """Before: ``veracity compare FILE --calibrator CAL`` on a file with a ``role`` column measured every row,
    the calib rows the calibrator was fit on among them; now the test rows, as with ``--role-col role``."""
    import json

    from veracity.cli import main
    from veracity.datasets import demo_path

    cal = tmp_path / "c.json"
    assert main(["fit", str(demo_path()), "--method", "platt", "--role-col", "role", "--out", str(cal), "-q"]) == 0
    capsys.readouterr()
    assert main(["compare", str(demo_path()), "--calibrator", str(cal), "--json", "-", "-q"]) == 0
    auto = json.loads(capsys.readouterr().out)
    assert main(["compare", str(demo_path()), "--calibrator", str(cal), "--role-col", "role", "--eval-role", "test",
                 "--json", "-", "-q"]) == 0
    named = json.loads(capsys.readouterr().out)
    assert auto == named


def test_compare_refuses_too_few_resamples_for_its_level():
    """Before: ``vc.compare(..., n_resamples=5)`` printed an ECE-change interval whose ends were the extreme
    resamples (a 67 % interval labelled 95 %) and read its verdict from it."""
    import numpy as np

    import veracity as vc

    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 600)
    y = (rng.uniform(size=600) < p ** 1.5).astype(int)
    cal = vc.PlattScaling().fit(p[:300], y[:300])
    for b, level in ((5, 0.95), (39, 0.95), (150, 0.99)):
        with pytest.raises(vc.VeracityError, match=rf"n_resamples={b} is too few .* at least {40 if level == 0.95 else 200}"):
            vc.compare(p[300:], y[300:], cal, n_resamples=b, level=level)
    assert vc.compare(p[300:], y[300:], cal, n_resamples=40).n_resamples == 40
    assert vc.compare(p[300:], y[300:], cal, n_resamples=0).n_resamples == 0
