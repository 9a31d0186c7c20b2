"""``vc.compare_models``'s notebook tables fit a ~900 px notebook column with long model names.

Before: three models named like ``gradient_boosting_classifier_v2_with_isotonic_calibration_trained_2024_q3``
gave each pair table three header cells of the whole names (the difference column's header, ``B - A``,
holds two of them), each at least 16em wide, so the interval, p-value and method columns lay beyond the
right edge of a 900 px output (scrolled out of view). Now a long name is shortened in the tables
(its start … its end, distinct for every model), its whole name in the cell's tooltip (``title``) and
in each section's title, and a name may wrap.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

import veracity as vc

NAMES = ("gradient_boosting_classifier_v2_with_isotonic_calibration_trained_2024_q3",
         "logistic_regression_baseline_l2_penalty_c1_platt_scaled_holdout_fold_7",
         "random_forest_500_trees_depth_12")


def _comparison(names=NAMES):
    rng = np.random.default_rng(0)
    n = 2000
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    scores = [np.clip(p + rng.normal(0, 0.05, n), 0.001, 0.999), np.clip(p * 0.9 + 0.05, 0, 1),
              np.clip(p + rng.normal(0, 0.1, n), 0.001, 0.999)]
    return vc.compare_models(dict(zip(names, scores)), y, n_resamples=50, random_state=0)


def _headers(page: str) -> list[tuple[str, str | None]]:
    """(shown text, title or None) of every <th>."""
    return [(html.unescape(text), None if title is None else html.unescape(title))
            for title, text in ((m.group("title"), m.group("text")) for m in re.finditer(
                r'<th(?: class="[^"]*")?(?: title="(?P<title>[^"]*)")?>(?P<text>[^<]*)</th>', page))]


def test_long_names_are_shortened_with_the_whole_name_in_the_tooltip():
    page = _comparison()._repr_html_()
    heads = _headers(page)
    for name in NAMES[:2]:  # 70+ characters: shortened, the whole name in the title
        shown = [text for text, title in heads if title == name]
        assert shown and all(len(t) <= 24 and "…" in t for t in shown), (name, shown)
        start, end = shown[0].split("…")
        assert name.startswith(start) and name.endswith(end)
        assert f"{html.escape(NAMES[2])} vs {html.escape(name)}" in page  # the section title: whole
    short = NAMES[2]  # 32 characters: shortened too, but to a text no other model shares
    shown_short = {text for text, title in heads if title == short}
    assert len(shown_short) == 1
    # every model reads differently
    firsts = {title: text for text, title in heads if title in NAMES}
    assert len(set(firsts.values())) == 3


def test_short_names_are_shown_whole():
    page = _comparison(("A", "B", "C"))._repr_html_()
    heads = _headers(page)
    assert ("A", None) in heads and ("B - A", None) in heads
    assert "title=" not in page


def test_names_sharing_their_ends_stay_distinct():
    from veracity.comparison._compare import short_names

    names = [f"model_{'x' * 40}_{i}_{'y' * 40}" for i in range(3)]
    short = short_names(names)
    assert len(set(short.values())) == 3
    for name, s in short.items():
        start, end = s.split("…")
        assert name.startswith(start) and name.endswith(end)


PAGE = ("<!doctype html><meta charset='utf-8'><body style='margin:0'>"
        "<div id='out' style='width:900px'>{}</div>")


@pytest.mark.browser
def test_tables_fit_a_900px_column(tabs):
    page = tabs.page(width=1000, height=800)
    page.set_content(PAGE.format(_comparison()._repr_html_()))
    rights = page.eval_on_selector_all("#out .vc-result table",
                                       "ts => ts.map(t => t.getBoundingClientRect().right)")
    assert len(rights) == 4 and max(rights) <= 900, rights
    # nothing scrolls sideways inside the result box either
    box = page.eval_on_selector("#out .vc-result", "b => [b.scrollWidth, b.clientWidth]")
    assert box[0] <= box[1], box
