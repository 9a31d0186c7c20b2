"""Round 42: `veracity conformal --json` left out what its text says beside q̂ and the coverage law. With
--sample-weight and --test-weight on calib weights too uneven for the +1 rule, the text reads "q̂ = inf
(refused: ...)" and every measured row uses its own q̂, while the JSON had "qhat": "Infinity" alone (read as a
fitted q̂: every class in every set). With uneven weights the text's law carries "[for equally weighted rows;
the weighted q̂ follows no such law]", the JSON's coverage_law nothing. The JSON now carries "qhat_refused" (the
reason) and "coverage_law_caveat" where the text says them; absent otherwise, as before."""

from __future__ import annotations

import json

import numpy as np

from veracity.cli import main


def _csv(tmp_path, heavy: float) -> str:
    rng = np.random.default_rng(2)
    n = 40
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    w = np.ones(n)
    w[[0, 20]] = heavy  # one heavy row per role: Kish's effective number 1.4 of 20 calib rows at heavy=100
    role = ["calib"] * 20 + ["test"] * 20
    path = tmp_path / "rows.csv"
    path.write_text("p,y,w,role\n" + "".join(f"{a!r},{b},{c!r},{r}\n" for a, b, c, r in
                                             zip(p.tolist(), y.tolist(), w.tolist(), role)))
    return str(path)


def _json(capsys, argv):
    assert main([*argv, "-q", "--json", "-"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_a_refused_qhat_is_said_in_the_json(tmp_path, capsys):
    argv = ["conformal", _csv(tmp_path, 100.0), "--score", "p", "--label", "y", "--sample-weight", "w",
            "--test-weight", "w"]
    doc = _json(capsys, argv)
    assert doc["conformal"]["qhat"] == "Infinity"
    assert doc["qhat_refused"].startswith("too few calibration points for alpha=0.1")
    assert "test_weight=" not in doc["qhat_refused"]  # --test-weight is given: that advice is moot
    assert doc["coverage_law_caveat"] == "for equally weighted rows; the weighted q̂ follows no such law"
    assert main([*argv, "-q"]) == 0
    text = capsys.readouterr().out
    assert "(refused:" in text and f"[{doc['coverage_law_caveat']}]" in text


def test_uneven_weights_without_test_weight_carry_the_law_caveat_only(tmp_path, capsys):
    doc = _json(capsys, ["conformal", _csv(tmp_path, 3.0), "--score", "p", "--label", "y", "--sample-weight", "w"])
    assert "qhat_refused" not in doc and doc["coverage_law_caveat"].startswith("for equally weighted rows")


def test_equal_weights_and_no_weights_carry_neither(tmp_path, capsys):
    path = _csv(tmp_path, 1.0)
    for extra in ([], ["--sample-weight", "w"]):
        doc = _json(capsys, ["conformal", path, "--score", "p", "--label", "y", *extra])
        assert "qhat_refused" not in doc and "coverage_law_caveat" not in doc
