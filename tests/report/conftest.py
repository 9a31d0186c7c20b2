"""Helpers shared by the report tests (``from .conftest import section, table_rows``, as tests/sql and
tests/comparison share theirs): reading a section and a table's cells out of a written page; the browser
pages the page tests share (the ``tabs`` fixture)."""

from __future__ import annotations

import html
import re

import pytest


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


# -- the browser tabs the report's page tests share -----------------------------------------------
class Tabs:
    """Pages of the session's Chromium lent to one test and taken back after it: a page of its own for
    each test (``browser.new_page()``, a new browser context: ~0.2-0.4 s of Chromium's CPU each) was
    most of what a short page test cost. A lent page starts as a new one does, on ``about:blank``, at
    the viewport asked for (``new_page()``'s 1280 x 720 unless told); the listeners a test adds with
    :meth:`on` are removed when it ends, and the page goes back to ``about:blank`` (a page the test
    closed is replaced)."""

    def __init__(self, browser, pool: list) -> None:
        self._browser, self._pool = browser, pool
        self._lent: list = []
        self._listeners: list = []

    def page(self, *, width: int = 1280, height: int = 720):
        """A page for this test, on ``about:blank``, at ``width`` x ``height``."""
        page = self._pool.pop() if self._pool else self._browser.new_page()
        page.set_viewport_size({"width": width, "height": height})
        self._lent.append(page)
        return page

    def on(self, page, event: str, handler) -> None:
        """``page.on(event, handler)`` for this test only."""
        page.on(event, handler)
        self._listeners.append((page, event, handler))

    def give_back(self) -> None:
        for page, event, handler in self._listeners:
            if not page.is_closed():
                page.remove_listener(event, handler)
        for page in self._lent:
            if page.is_closed():
                continue
            try:
                page.goto("about:blank")
            except Exception:  # a page that cannot go back is not lent again
                page.close()
                continue
            self._pool.append(page)
        self._lent, self._listeners = [], []


@pytest.fixture(scope="session")
def _tab_pool(chromium):
    pool: list = []
    yield pool
    for page in pool:
        if not page.is_closed():
            page.close()


@pytest.fixture
def tabs(chromium, _tab_pool):
    """The session's pages, lent to this test (:class:`Tabs`)."""
    lender = Tabs(chromium, _tab_pool)
    yield lender
    lender.give_back()
