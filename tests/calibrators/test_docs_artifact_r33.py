"""docs/calibrators.md quotes numbers no test ran: the artifact `veracity fit` writes and the comments of
the scikit-learn example. Both had gone stale -- the artifact read score_type "logit", bounds [0.05, 20]
(the default is bounds=None: Newton unbounded) and score column "logit" for a command that fits the
probability column `score`; the comments read tau* = 0.2047 and test NLL 0.6076 -> 0.504 where the example
gives 0.2903 and 0.4381 -> 0.3255.

The page is read next to the package under test (src/veracity -> docs/), so a check of an older tree
reads that tree's page."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import veracity as vc


def _page() -> str:
    here = Path(vc.__file__).resolve().parents[2] / "docs" / "calibrators.md"
    if not here.exists():  # an installed package: the page of this checkout
        here = Path(__file__).resolve().parents[2] / "docs" / "calibrators.md"
    return here.read_text(encoding="utf-8")


def _artifact_block(page: str) -> str:
    m = re.search(r"The artifact:\s*```json\n(.*?)```", page, re.S)
    assert m, "the artifact block of docs/calibrators.md"
    return m.group(1)


def test_the_artifact_shown_is_the_one_the_command_writes(cli, tmp_path):
    out = tmp_path / "cal.json"
    res = cli(["fit", "--method", "temperature", "--role-col", "role", "--fit-role", "calib",
               "--model-revision", "demo-1", "--out", out])
    assert res.code == 0, res.err
    doc = json.loads(out.read_text())
    block = _artifact_block(_page())
    params = json.loads(re.search(r'"params": (\{[^{}]*\}),\n', block).group(1))
    assert params == doc["params"]
    shown_tau = float(re.search(r'"temperature_": ([0-9.]+)', block).group(1))
    assert shown_tau == pytest.approx(doc["state"]["temperature_"], rel=1e-12)
    for key in ("score_column", "score_type", "label_column", "role_column"):
        shown = re.search(rf'"{key}": "([^"]*)"', block)
        assert shown and shown.group(1) == doc["metadata"][key], key


def test_the_scikit_learn_example_comments_are_its_output():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    page = _page()
    tau = float(re.search(r"# temperature scaling \(newton\): tau\* = ([0-9.]+)", page).group(1))
    before, after = (float(v) for v in re.search(r"# test NLL ([0-9.]+) -> ([0-9.]+)", page).groups())
    X, y = make_classification(n_samples=4000, n_informative=5, random_state=0)
    roles = vc.split(y, roles={"train": .6, "calib": .2, "test": .2}, random_state=0)
    base = LogisticRegression(C=1e-3).fit(X[roles == "train"], y[roles == "train"])
    model = vc.CalibratedClassifier(base, calibrator="temperature", cv="prefit").fit(
        X[roles == "calib"], y[roles == "calib"])
    assert model.calibrator_.temperature_ == pytest.approx(tau, abs=5e-5)
    test = roles == "test"

    def nll(p: np.ndarray) -> float:
        return float(-np.mean(np.log(p[np.arange(p.shape[0]), y[test]])))

    assert nll(base.predict_proba(X[test])) == pytest.approx(before, abs=5e-5)
    assert nll(model.predict_proba(X[test])) == pytest.approx(after, abs=5e-5)
