"""The refusal of an over-long SQL text says why for the calibrator at hand (session 27).

A binary Venn-ABERS fit on 50,000 rows was refused with "multiclass outputs repeat every class's map":
a reason that names classes the map does not have. It now names the binary map's own reason; a
multiclass map keeps the multiclass one.
"""

from __future__ import annotations

import numpy as np

import veracity as vc


def _binary(n: int, seed: int = 27) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p).astype(int)


def _steps_everywhere(doc: dict, k: int) -> None:
    """A Venn-ABERS state whose bounds change at every one of its k knots (session 28 merges equal steps:
    a fitted map of 50,000 rows is short enough now)."""
    doc["c_"] = np.linspace(-3.0, 3.0, k).tolist()
    doc["p0_"] = np.linspace(0.0, 0.49, k + 1).tolist()
    doc["p1_"] = np.linspace(0.51, 1.0, k + 1).tolist()


def test_a_binary_map_is_not_told_about_classes(error_line):
    p, y = _binary(500)
    doc = vc.VennAbers().fit(p, y).to_dict()
    _steps_everywhere(doc["state"], 40_000)
    doc["state"]["c_"] = np.linspace(0.001, 0.999, 40_000).tolist()
    va = vc.load(doc)
    message = error_line(lambda: va.to_sql("score", dialect="duckdb"))
    assert "step-table entries" in message and "to_onnx" in message
    assert "multiclass" not in message and "class's" not in message
    assert "distinct fit score" in message


def test_a_multiclass_map_keeps_the_multiclass_reason(error_line):
    rng = np.random.default_rng(27)
    z = rng.normal(size=(1500, 3))
    y = (z + rng.gumbel(size=(1500, 3))).argmax(axis=1)
    doc = vc.VennAbers(multiclass="ovr", score_type="logit").fit(z, y).to_dict()
    for m in doc["state"]["maps_"]:
        _steps_everywhere(m["state"], 2_000)
    va = vc.load(doc)
    message = error_line(lambda: va.to_sql(["a", "b", "c"], dialect="duckdb"))
    assert "multiclass outputs repeat every class's map" in message
