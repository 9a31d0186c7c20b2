"""The browser pages the page tests share (tests/report/conftest.py, r37): a page lent again starts as a
new page does, on ``about:blank`` at the viewport asked for, and hears nothing through the last test's
listeners."""

from __future__ import annotations

import pytest

from .conftest import Tabs

pytestmark = pytest.mark.browser


def test_a_page_lent_again_is_blank_and_keeps_no_listener(chromium, _tab_pool, tmp_path):
    path = tmp_path / "say.html"
    path.write_text("<!doctype html><script>console.log('said')</script>", encoding="utf-8")
    first = Tabs(chromium, _tab_pool)
    page = first.page(width=640, height=480)
    assert page.url == "about:blank" and page.viewport_size == {"width": 640, "height": 480}
    heard: list[str] = []
    first.on(page, "console", lambda m: heard.append(m.text))
    page.goto(path.as_uri())
    assert heard == ["said"]
    first.give_back()

    second = Tabs(chromium, _tab_pool)
    again = second.page()
    assert again is page  # the same tab, lent again ...
    assert again.url == "about:blank" and again.viewport_size == {"width": 1280, "height": 720}  # ... as new
    again.goto(path.as_uri())
    assert heard == ["said"]  # the first lender's listener is gone
    again.close()  # a page the test closed is not lent again
    second.give_back()
    assert page not in _tab_pool
