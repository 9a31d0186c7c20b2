"""The package tree shows the layering: the core imports nothing above it at import time."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "src" / "veracity" / "core"


def _module_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in tree.body:  # module level only: lazy imports inside functions are allowed
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            found.append("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_module_imports_only_core_siblings(path):
    upward = [name for name in _module_level_imports(path) if name.startswith("..")]
    assert upward == [], f"{path.name} imports {upward} from above the core"


def test_honest_estimators_and_metrics_have_no_import_cycle():
    honest = _module_level_imports(CORE / "_honest.py")
    assert "._metrics" not in honest
    assert "._honest" in _module_level_imports(CORE / "_metrics.py")
