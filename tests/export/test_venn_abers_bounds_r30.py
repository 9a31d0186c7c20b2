"""An artifact dict whose Venn-ABERS bounds ``vc.load`` refuses is refused by the export too (session 30).

``veracity.export.to_sql`` / ``to_onnx`` read an artifact dict as given. ``p0_ = [0, 1, 1]`` above
``p1_ = [0, 0, 1]`` (``vc.load``: "p0_ must not exceed p1_") was exported: a map no calibrator applies,
whose whole gap (0.3, 0.6) is 0/0 (NULL / NaN) and whose other scores got numbers. Bounds outside [0, 1]
gave a "probability" of 2.0. Both are now refused in one line, as by ``vc.load``.
"""

from __future__ import annotations

import pytest

import veracity as vc
from veracity.export import to_onnx, to_sql


def _doc(p0: list[float], p1: list[float]) -> dict:
    return {"format": "veracity.calibrator", "version": 1, "kind": "venn-abers",
            "params": {"score_type": "probability"},
            "state": {"c_": [0.3, 0.6], "p0_": p0, "p1_": p1, "n_classes_": 2}, "metadata": {}}


@pytest.mark.parametrize(("p0", "p1", "said"), [
    ([0.0, 1.0, 1.0], [0.0, 0.0, 1.0], "p0_ must not exceed p1_ (the lower and upper Venn-ABERS probabilities), "
                                       "but item 1 has p0 = 1.0 > p1 = 0.0"),
    ([0.1, 0.2, 0.3], [0.5, 2.0, 0.6], "p0_ and p1_ must be probabilities in [0, 1]"),
    ([-0.5, 0.2, 0.3], [0.5, 0.6, 0.7], "p0_ and p1_ must be probabilities in [0, 1]"),
])
def test_bounds_vc_load_refuses_are_refused(p0, p1, said, error_line):
    doc = _doc(p0, p1)
    with pytest.raises(vc.VeracityError):
        vc.load(doc)
    for export in (lambda: to_sql(doc, "p", dialect="duckdb"), lambda: to_onnx(doc)):
        message = error_line(export)
        assert said in message and "cannot be exported" in message, message


def test_sound_bounds_still_export():
    doc = _doc([0.1, 0.2, 0.5], [0.3, 0.4, 0.7])
    vc.load(doc)
    assert to_sql(doc, "p", dialect="sqlite").count("\n") == 1
