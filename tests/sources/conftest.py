"""Helpers shared by the tests of the frame routes (``from .conftest import same_audit``, as tests/frames
and tests/sql share theirs)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

#: how far two audits of the same rows may differ: the order in which an engine sums rows
REL = 1e-12


def same_audit(got: Any, want: Any, rel: float = REL) -> None:
    """``got`` is the audit ``want`` up to the order of summation: the same rows, classes and bin counts,
    every per-bin sum and every metric within ``rel`` (NaN equal to NaN)."""
    assert got.n == want.n and got.n_classes == want.n_classes
    np.testing.assert_array_equal(got.table.stats.count, want.table.stats.count)
    for name in ("weight", "sum_p", "sum_y", "sum_nll"):
        np.testing.assert_allclose(getattr(got.table.stats, name), getattr(want.table.stats, name), rtol=rel,
                                   atol=1e-300, err_msg=name)
    for key, value in want.metrics.items():
        assert got.metrics[key] == pytest.approx(value, rel=rel, abs=1e-15, nan_ok=True), key
