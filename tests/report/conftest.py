"""Helpers shared by the report tests (``from .conftest import section, table_rows``, as tests/sql and
tests/comparison share theirs): reading a section and a table's cells out of a written page."""

from __future__ import annotations

import html
import re


def section(page: str, sid: str) -> str:
    """The inside of the page's ``<section id="sid">``."""
    m = re.search(rf'<section id="{sid}">(.*?)</section>', page, re.S)
    assert m, f"no section {sid}"
    return m.group(1)


def table_rows(fragment: str, cls: str) -> list[list[str]]:
    """The body cells of the first ``<table class="cls">`` in ``fragment``, as plain text (tags dropped,
    entities unescaped)."""
    m = re.search(rf'<table class="{cls}">.*?<tbody>(.*?)</tbody>', fragment, re.S)
    assert m, f"no table {cls}"
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", m.group(1), re.S)]
