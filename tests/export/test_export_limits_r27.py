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


def test_a_binary_map_is_not_told_about_classes(error_line):
    p, y = _binary(50_000)
    va = vc.VennAbers().fit(p, y)
    message = error_line(lambda: va.to_sql("score", dialect="duckdb"))
    assert "step-table entries" in message and "to_onnx" in message
    assert "multiclass" not in message and "class's" not in message
    assert "distinct fit score" in message


def test_a_multiclass_map_keeps_the_multiclass_reason(error_line):
    rng = np.random.default_rng(27)
    z = rng.normal(size=(1500, 3))
    y = (z + rng.gumbel(size=(1500, 3))).argmax(axis=1)
    va = vc.VennAbers(multiclass="ovr", score_type="logit").fit(z, y)
    message = error_line(lambda: va.to_sql(["a", "b", "c"], dialect="duckdb"))
    assert "multiclass outputs repeat every class's map" in message
