"""A declared score type that the values contradict is refused on every function (issue 23).

Before: ``score_type="logit"`` on probabilities was accepted without a word by audit, ece
(0.238 where the true ECE is 0.026), nll, threshold_table, monitor (arrays, DuckDB
relations, LazyFrames), a logit calibrator's transform and the CLI — while fit refused.
A calibrator's transform on a small batch is legitimately ambiguous (logits in [0, 1] are
probabilities 0.5–0.73): a large batch warns instead.
"""

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main

RNG = np.random.default_rng(7)
P = RNG.uniform(0.01, 0.99, 600)
Y = (RNG.random(600) < P).astype(int)
PERIODS = np.repeat(["2026-01", "2026-02"], 300)

ARRAY_CALLS = {
    "ece": lambda s, **k: vc.ece(s, Y, **k),
    "mce": lambda s, **k: vc.mce(s, Y, **k),
    "brier": lambda s, **k: vc.brier(s, Y, **k),
    "nll": lambda s, **k: vc.nll(s, Y, **k),
    "audit": lambda s, **k: vc.audit(s, Y, **k),
    "reliability": lambda s, **k: vc.reliability(s, Y, **k),
    "threshold_table": lambda s, **k: vc.threshold_table(s, Y, [0.5], **k),
    "monitor": lambda s, **k: vc.monitor(s, Y, PERIODS, **k),
    "fit": lambda s, **k: vc.PlattScaling(**k).fit(s, Y),
}


@pytest.mark.parametrize("name", sorted(ARRAY_CALLS))
def test_probabilities_declared_as_logits_are_refused(name):
    with pytest.raises(vc.VeracityError, match=r"declared score_type='logit' but all \d+ lie in \[0, 1\]"):
        ARRAY_CALLS[name](P, score_type="logit")


@pytest.mark.parametrize("name", sorted(ARRAY_CALLS))
def test_real_logits_are_accepted(name):
    logits = np.log(P / (1 - P))
    ARRAY_CALLS[name](logits, score_type="logit")


def test_multiclass_probability_rows_declared_as_logits_are_refused():
    probs = RNG.dirichlet(np.ones(3), 200)
    labels = RNG.integers(0, 3, 200)
    with pytest.raises(vc.VeracityError, match="rows are probability vectors"):
        vc.ece(probs, labels, score_type="logit")
    vc.ece(np.log(probs), labels, score_type="logit")  # log-probabilities are logits


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb"])
def test_frame_forms_refuse_too(backend):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"p": P, "y": Y})
    if backend == "polars-lazy":
        frame = pytest.importorskip("polars").from_pandas(frame).lazy()
    elif backend == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        frame = con.from_df(frame)
    with pytest.raises(vc.VeracityError, match="declared score_type='logit'"):
        vc.ece(frame, score="p", label="y", score_type="logit")
    with pytest.raises(vc.VeracityError, match="declared score_type='logit'"):
        vc.audit(frame, score="p", label="y", score_type="logit")


def test_logit_calibrator_warns_on_a_large_batch_of_probabilities():
    logits = np.log(P / (1 - P))
    cal = vc.PlattScaling(score_type="logit").fit(logits, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal.transform([0.2, 0.7, 0.9])  # a few logits in [0, 1]: fine
    with pytest.warns(UserWarning, match="look like probabilities"):
        cal.transform(P)


def test_cli_audit_refuses_with_the_flag_named(tmp_path, capsys):
    path = tmp_path / "x.csv"
    path.write_text("p,y\n" + "\n".join(f"{p},{y}" for p, y in zip(P, Y)) + "\n")
    for engine in ("memory", "duckdb"):
        assert main(["audit", str(path), "--score", "p", "--label", "y", "--score-type", "logit",
                     "--engine", engine]) == 2
        err = capsys.readouterr().err
        assert "--score-type logit" in err and len(err.strip().splitlines()) == 1
