"""An export with a prior shift says so: SQL comment, ONNX doc_string and metadata, CLI JSON (session 35).

``to_sql(cal, prior_shift=(0.3, 0.1))`` computes ``adjust_prior(transform(x), 0.3, 0.1)``, yet its comment
read ``veracity platt calibrator; fit rows: ...`` exactly as the unshifted map's does, and the ONNX model's
``doc_string`` and ``metadata_props`` (``kind: platt``) the same, so a reader of the view or the model took
the shifted probabilities (here about a third of the map's) for the calibrator's own. A bare prior shift's
comment named no rates. ``veracity export --json`` gave no sign of ``--prior-shift`` either.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql


@pytest.fixture(scope="module")
def platt():
    rng = np.random.default_rng(35)
    p = rng.random(800)
    y = (rng.random(800) < p).astype(int)
    return vc.PlattScaling().fit(p, y, metadata={"fit_window": "2026-01..2026-03"})


@pytest.fixture(scope="module")
def temperature():
    rng = np.random.default_rng(36)
    z = rng.normal(size=(600, 3))
    y = (z + rng.gumbel(size=(600, 3))).argmax(axis=1)
    return vc.TemperatureScaling(score_type="logit").fit(z, y)


def _comment(text: str) -> str:
    assert text.startswith("/* ")
    return text[3:text.index(" */")]


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "postgres"])
def test_sql_comment_names_the_shift(platt, dialect):
    shifted = _comment(to_sql(platt, "p", dialect=dialect, prior_shift=(0.3, 0.1)))
    want = "veracity platt calibrator, then a prior shift (vc.adjust_prior): base rate 0.3 -> 0.1;"
    assert shifted.startswith(want)
    assert "prior shift" not in _comment(to_sql(platt, "p", dialect=dialect))


def test_multiclass_and_bare_shifts(temperature):
    text = _comment(temperature.to_sql(["a", "b", "c"], prior_shift=([0.2, 0.3, 0.5], [0.5, 0.3, 0.2])))
    assert "then a prior shift (vc.adjust_prior): class priors [0.2, 0.3, 0.5] -> [0.5, 0.3, 0.2]" in text
    bare = _comment(to_sql(None, "p", dialect="sqlite", prior_shift=(0.25, 0.05)))
    assert bare == "veracity prior-shift calibrator; prior shift: base rate 0.25 -> 0.05"


def test_onnx_doc_string_and_metadata(platt):
    onnx = pytest.importorskip("onnx")
    model = onnx.load_from_string(to_onnx(platt, prior_shift=(0.3, 0.1)))
    assert "then a prior shift (vc.adjust_prior): base rate 0.3 -> 0.1" in model.doc_string
    props = {p.key: p.value for p in model.metadata_props}
    assert props["prior_shift"] == "base rate 0.3 -> 0.1"
    plain = onnx.load_from_string(to_onnx(platt))
    assert "prior_shift" not in {p.key for p in plain.metadata_props}
    assert "prior shift" not in plain.doc_string


def test_cli_json_reports_the_shift(cli, platt, tmp_path):
    path = str(platt.save(tmp_path / "platt.json"))
    res = cli(["export", path, "--sql", "duckdb", "--prior-shift", "0.3", "0.1", "--json"])
    assert res.code == 0, res.err
    doc = json.loads(res.out)
    assert doc["prior_shift"] == {"old": 0.3, "new": 0.1}
    assert "base rate 0.3 -> 0.1" in doc["sql"].splitlines()[0]
    plain = json.loads(cli(["export", path, "--sql", "duckdb", "--json"]).out)
    assert plain["prior_shift"] is None
    res = cli(["export", path, "--onnx", str(tmp_path / "m.onnx"), "--prior-shift", "0.3", "0.1", "--json"])
    assert res.code == 0, res.err
    assert json.loads(res.out)["prior_shift"] == {"old": 0.3, "new": 0.1}
