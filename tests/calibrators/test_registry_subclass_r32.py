"""A subclass of a calibrator that does not declare its own ``kind`` leaves the artifact registry alone
(session 32): a test's subclass of PlattScaling made every Platt artifact loaded later in the process a
``_SwappingPlatt`` (load(), compare's recorded pos_label, the ONNX export's line, a docs page)."""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.calibrators._base import _REGISTRY


def test_a_subclass_without_its_own_kind_does_not_take_over_loading(tmp_path):
    class LoggingPlatt(vc.PlattScaling):
        """A user's subclass: the same map, with a side effect."""

    assert _REGISTRY["platt"] is vc.PlattScaling
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 300)
    y = (rng.random(300) < p).astype(int)
    LoggingPlatt().fit(p, y).save(tmp_path / "sub.json")
    vc.PlattScaling().fit(p, y).save(tmp_path / "plain.json")
    assert type(vc.load(tmp_path / "plain.json")) is vc.PlattScaling
    assert type(vc.load(tmp_path / "sub.json")) is vc.PlattScaling  # its artifact is a Platt map


def test_a_subclass_with_its_own_kind_is_registered():
    class Shifted(vc.PlattScaling):
        kind = "test-shifted-platt-r32"

    try:
        assert _REGISTRY["test-shifted-platt-r32"] is Shifted
        assert _REGISTRY["platt"] is vc.PlattScaling
    finally:
        _REGISTRY.pop("test-shifted-platt-r32", None)
