"""Hand-edited artifact dicts passed to ``veracity.export``: what ``vc.load`` refuses, export refuses too,
in one line, rather than writing a map no fit has (session 44).

* an option that shapes the map with a value it does not know (``interpolation="Linear"``, ``score_type=
  "LOGIT"``) was read as the default: a linear isotonic exported as steps, logits read as probabilities;
* a repeated Venn–ABERS score ``c_`` gave the SQL and the ONNX model different probabilities at it
  (0.0811 and 0.0789), and a repeated isotonic knot a map no fit has; ``vc.load`` requires both increasing;
* a uniform histogram's edited ``edges_`` were ignored (its rule reads only the number of bins);
* ``params``/``state``/``metadata`` that are not JSON objects raised a raw TypeError or ValueError;
* the ONNX model's ``metadata_props`` took ``kind`` (and ``prior_shift``) from the fit's metadata where it
  held those names: ``fit(metadata={"kind": "churn model"})`` made a Platt model read kind "churn model".
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(44)
    p = rng.beta(2.0, 3.0, 300)
    y = (rng.random(300) < p).astype(np.int64)
    return p, y


def _fit(cal, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cal.fit(*data).to_dict()


def _refused(doc, match):
    for export in (lambda d: to_sql(d, "s", dialect="duckdb"), to_onnx):
        with pytest.raises(vc.VeracityError, match=match) as info:
            export(copy.deepcopy(doc))
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("method, key, value", [
    ("isotonic_linear", "interpolation", "Linear"),
    ("isotonic_linear", "ties", "Strict"),
    ("platt", "score_type", "LOGIT"),
    ("histogram", "strategy", "equal count"),
    ("platt", "score_type", None),
])
def test_an_unknown_option_value_is_refused_not_read_as_the_default(data, method, key, value):
    cal = {"isotonic_linear": vc.IsotonicCalibration(interpolation="linear"), "platt": vc.PlattScaling(),
           "histogram": vc.HistogramBinning(strategy="quantile")}[method]
    doc = _fit(cal, data)
    doc["params"][key] = value
    _refused(doc, f"params {key} must be one of")


def test_an_unknown_option_of_a_one_vs_rest_map_is_refused():
    rng = np.random.default_rng(1)
    P = rng.dirichlet([1.0, 1.0, 1.0], 300)
    y = np.array([rng.choice(3, p=r) for r in P])
    doc = _fit(vc.IsotonicCalibration(interpolation="linear"), (P, y))
    doc["state"]["maps_"][1]["params"]["interpolation"] = "Linear"
    _refused(doc, "params interpolation must be one of")


@pytest.mark.parametrize("method, key", [("venn_abers", "c_"), ("isotonic", "knots_x_"),
                                         ("isotonic_linear", "knots_x_")])
def test_a_repeated_knot_is_refused_as_vc_load_refuses_it(data, method, key):
    cal = {"venn_abers": vc.VennAbers(), "isotonic": vc.IsotonicCalibration(),
           "isotonic_linear": vc.IsotonicCalibration(interpolation="linear")}[method]
    doc = _fit(cal, data)
    doc["state"][key][3] = doc["state"][key][2]
    with pytest.raises(vc.VeracityError, match="strictly increasing"):
        vc.load(copy.deepcopy(doc))
    _refused(doc, f"state {key} must be a non-empty list of strictly increasing numbers")


def test_edited_uniform_histogram_edges_are_refused(data):
    doc = _fit(vc.HistogramBinning(), data)
    doc["state"]["edges_"][3] = 0.25
    _refused(doc, "equal-width bins")
    quantile = _fit(vc.HistogramBinning(strategy="quantile"), data)  # its edges are its own: still exported
    assert to_sql(quantile, "s")


def test_a_ranking_score_histogram_of_uniform_bins_is_refused(data):
    doc = _fit(vc.HistogramBinning(score_type="score", strategy="quantile"), data)
    doc["params"]["strategy"] = "uniform"
    _refused(doc, "ranking score")


@pytest.mark.parametrize("section", ["params", "state", "metadata"])
@pytest.mark.parametrize("value", ["x", [1, "a"], 2.5, True])
def test_a_section_that_is_no_json_object_is_one_line(data, section, value):
    doc = _fit(vc.PlattScaling(), data)
    doc[section] = value
    _refused(doc, f"its {section} must be a JSON object")


def test_onnx_props_name_the_model_not_the_metadata_s_keys(data):
    onnx = pytest.importorskip("onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = vc.PlattScaling().fit(*data, metadata={"kind": "churn model", "prior_shift": "0.3 -> 0.1"})
    props = {p.key: p.value for p in onnx.load_from_string(cal.to_onnx()).metadata_props}
    assert props["kind"] == "platt"
    assert "prior_shift" not in props  # this model applies none
    model = onnx.load_from_string(cal.to_onnx(prior_shift=(0.3, 0.1)))
    shifted = {p.key: p.value for p in model.metadata_props}
    assert shifted["kind"] == "platt" and shifted["prior_shift"] == "base rate 0.3 -> 0.1"


def test_a_one_vs_rest_provenance_names_its_per_class_maps():
    rng = np.random.default_rng(2)
    P = rng.dirichlet([1.0, 1.0, 1.0], 300)
    y = np.array([rng.choice(3, p=r) for r in P])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = vc.IsotonicCalibration().fit(P, y)
    comment = cal.to_sql("p").splitlines()[0]
    assert comment.startswith("/* veracity one-vs-rest calibrator (3 isotonic maps, one per class);")
    onnx = pytest.importorskip("onnx")
    assert "(3 isotonic maps, one per class)" in onnx.load_from_string(cal.to_onnx()).doc_string


def test_a_segment_calibrator_s_unknown_score_type_is_refused():
    rng = np.random.default_rng(3)
    region = rng.choice(["a", "b"], 2000)
    s = rng.uniform(0.05, 0.95, 2000)
    y = (rng.random(2000) < s).astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = vc.SegmentCalibration(base="platt", features=["region"]).fit(
            s, y, features={"region": region}).to_dict()
    assert to_sql(doc, "s")
    doc["params"]["score_type"] = "LOGIT"  # was read as a ranking score: no [0, 1] test, clipped instead
    with pytest.raises(vc.VeracityError, match="params score_type must be one of") as info:
        to_sql(doc, "s")
    assert "\n" not in str(info.value)
