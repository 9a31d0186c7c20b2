"""``vc.load`` checks an artifact's classes against its fitted parameters (session 34).

A binary calibrator's file edited to ``"n_classes_": 3`` loaded; only ``transform`` then refused every score
("fit on 3-class scores"), and ``to_sql`` wrote a binary map for it. Now the load refuses it in one line naming
the file and the field: a binary map's state (Platt, beta, isotonic, histogram, Venn-ABERS, and each map of a
one-vs-rest artifact) holds ``n_classes_ = 2``, and ``state.n_classes_`` agrees with what the fit recorded
(``metadata.n_classes``; ``metadata.n_columns``: K score columns for K > 2 classes, 1 or 2 for two).
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest

import veracity as vc


def _binary():
    rng = np.random.default_rng(0)
    p = rng.random(400)
    return p, (rng.random(400) < p).astype(np.int64)


def _multi():
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(3), 600)
    return P, np.array([rng.choice(3, p=row) for row in P])


def _fit(cal, s, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cal.fit(s, y)


def _write(tmp_path, doc) -> str:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return str(path)


BINARY = {"platt": vc.PlattScaling, "beta": vc.BetaCalibration, "isotonic": vc.IsotonicCalibration,
          "histogram": vc.HistogramBinning, "venn-abers": vc.VennAbers, "temperature": vc.TemperatureScaling}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_artifact_edited_to_three_classes_is_refused_on_load(tmp_path, name):
    doc = _fit(BINARY[name](), *_binary()).to_dict()
    doc["state"]["n_classes_"] = 3
    path = _write(tmp_path, doc)
    with pytest.raises(vc.VeracityError) as info:
        vc.load(path)
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(f"{path} is not a valid calibrator artifact: state.n_classes_ = 3 contradicts ")
    # temperature has one parameter for any K: the fit's record names the contradiction
    assert ("metadata.n_classes = 2" in text) == (name == "temperature"), text


@pytest.mark.parametrize("name", ["platt", "beta", "isotonic", "histogram", "venn-abers"])
def test_binary_state_without_metadata_is_refused_too(name):
    doc = _fit(BINARY[name](), *_binary()).to_dict()
    doc["state"]["n_classes_"] = 4
    doc["metadata"] = {}
    with pytest.raises(vc.VeracityError, match=r"^the dict is not a valid calibrator artifact: state\.n_classes_ "
                                               r"= 4 contradicts the fitted parameters, which are one binary"):
        vc.load(doc)


def test_one_vs_rest_map_names_its_index():
    doc = _fit(vc.IsotonicCalibration(), *_multi()).to_dict()
    doc["state"]["maps_"][1]["state"]["n_classes_"] = 3
    with pytest.raises(vc.VeracityError, match=r"state\.maps_\[1\]: state\.n_classes_ = 3 contradicts"):
        vc.load(doc)
    doc = _fit(vc.IsotonicCalibration(), *_multi()).to_dict()
    doc["state"]["maps_"][2]["state"]["knots_y_"][0] = 7.0
    with pytest.raises(vc.VeracityError, match=r"state\.maps_\[2\]\.state\.knots_y_\[0\]: Expected `float` <= 1"):
        vc.load(doc)


@pytest.mark.parametrize("field, value, named", [
    ("n_classes", 4, "metadata.n_classes = 4"), ("n_columns", 2, "metadata.n_columns = 2"),
    ("n_columns", 1, "metadata.n_columns = 1")])
def test_multiclass_record_contradicting_the_state_is_refused(field, value, named):
    for cal in (vc.TemperatureScaling(), vc.VennAbers(multiclass="ovr"), vc.MatrixScaling()):
        doc = _fit(cal, *_multi()).to_dict()
        doc["metadata"][field] = value
        with pytest.raises(vc.VeracityError, match=re.escape(f"state.n_classes_ = 3 contradicts {named}")):
            vc.load(doc)


def test_consistent_artifacts_still_load(tmp_path):
    """Every fitted kind reads back (a two-class temperature fit on two columns records n_columns = 2)."""
    p, y = _binary()
    P, k = _multi()
    fitted = [_fit(c(), p, y) for c in BINARY.values()]
    fitted += [_fit(c(), P, k) for c in (vc.TemperatureScaling, vc.VectorScaling, vc.MatrixScaling,
                                         vc.IsotonicCalibration, vc.VennAbers, vc.PlattScaling)]
    fitted.append(_fit(vc.TemperatureScaling(), np.column_stack([1 - p, p]), y))
    assert fitted[-1].to_dict()["metadata"]["n_columns"] == 2
    for cal in fitted:
        back = vc.load(_write(tmp_path, cal.to_dict()))
        s = P if cal.n_classes_ == 3 else np.column_stack([1 - p, p]) if cal is fitted[-1] else p
        np.testing.assert_array_equal(back.transform(s), cal.transform(s))
