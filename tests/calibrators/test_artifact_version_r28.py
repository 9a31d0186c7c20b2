"""An artifact that claims a newer format but records this very library version (round 28).

``doc["version"] = 2`` on a file this veracity wrote was answered "written by veracity 0.1.0 (artifact
version 2); this veracity (0.1.0) reads version 1. Upgrade veracity": no upgrade reads it, since the
version that wrote it writes version 1; the file was edited.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity._version import __version__


def _doc():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, 100)
    y = (rng.random(100) < p).astype(int)
    return vc.PlattScaling().fit(p, y).to_dict()


def test_an_edited_version_is_called_edited_not_newer():
    doc = _doc()
    doc["version"] = 2
    assert doc["metadata"]["library_version"] == __version__
    with pytest.raises(vc.VeracityError) as info:
        vc.load(doc)
    message = str(info.value)
    assert "Upgrade" not in message
    assert "artifact version 2" in message and "edited" in message and "re-fit" in message


def test_a_newer_library_still_says_upgrade():
    doc = _doc()
    doc["version"] = 2
    doc["metadata"]["library_version"] = "99.0.0"
    with pytest.raises(vc.VeracityError, match=r"written by veracity 99\.0\.0 .*Upgrade"):
        vc.load(doc)
