"""The browser pages the notebook-view tests share: the report tests' ``tabs`` fixture
(tests/report/conftest.py)."""

from __future__ import annotations

from ..report.conftest import _tab_pool, tabs  # noqa: F401 - fixtures, found by name

