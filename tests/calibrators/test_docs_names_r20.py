"""Every ``vc.NAME`` that docs/calibrators.md names exists (session 20: it named ``vc.fold_index``, which is
``vc.calibrators.fold_index``; ``vc.fold_index`` is an AttributeError)."""

from __future__ import annotations

import re
from pathlib import Path

import veracity as vc

PAGE = Path(__file__).resolve().parents[2] / "docs" / "calibrators.md"


def test_every_vc_name_on_the_page_exists():
    names = set(re.findall(r"\bvc\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)", PAGE.read_text()))
    missing = []
    for dotted in sorted(names):
        obj = vc
        for part in dotted.split("."):
            if not hasattr(obj, part):
                missing.append(dotted)
                break
            obj = getattr(obj, part)
    assert not missing, missing
