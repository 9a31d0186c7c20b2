"""The report's SVG figures measure their text with one renderer, and the page's ids are prefixed as before
(session 36).

``savefig`` makes a renderer for its layout pass and another for the drawing; matplotlib caches a text's
extent per renderer, so every tick label, title and legend entry was laid out twice. ``_svg`` now runs the
layout with the renderer that draws. The bytes stay those of a plain ``savefig``
(tests/report/test_svg_draw_once_r19.py); here: one renderer measures, and each text is measured once."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from veracity.plotting import _decisions, _reliability  # noqa: E402
from veracity.reporting import _sections  # noqa: E402


def _data(n: int = 600, seed: int = 1):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, n)
    return p, (rng.random(n) < p).astype(int)


def _measured(monkeypatch, fig) -> Counter:
    """(renderer, text) -> how often an SVG renderer laid the text out while ``_svg`` wrote ``fig``."""
    from matplotlib.backends.backend_svg import RendererSVG

    seen: Counter = Counter()
    measure = RendererSVG.get_text_width_height_descent

    def counted(self, s, prop, ismath):
        seen[(id(self), s)] += 1
        return measure(self, s, prop, ismath)

    monkeypatch.setattr(RendererSVG, "get_text_width_height_descent", counted)
    _sections._svg(fig, "t", "label")
    return seen


@pytest.mark.parametrize("draw", ["reliability", "thresholds"])
def test_one_renderer_measures_each_text_once(monkeypatch, draw) -> None:
    p, y = _data()
    fig = (_reliability.plot_reliability(p, y, bins=10) if draw == "reliability"
           else _decisions.plot_thresholds(p, y))
    seen = _measured(monkeypatch, fig)
    assert seen, "no text measured"
    renderers = {r for r, _ in seen}
    assert len(renderers) == 1, f"{len(renderers)} renderers measured the text"  # 2 before (layout, drawing)
    texts = Counter(s for _, s in seen)
    assert max(texts.values()) == 1, [s for s, k in texts.items() if k > 1]


def _inline_before(text: str, prefix: str, label: str) -> str:
    """``_inline`` as it was (a ``\\b`` pattern for the ids): the reference for the literal search."""
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", text)
    text = re.sub(r'xlink:href="#([^"]+)"', lambda m: f'xlink:href="#{prefix}-{m.group(1)}"', text)
    text = re.sub(r'\s(width|height)="[0-9.]+pt"', "", text, count=2)
    text = text.replace("<svg ", f'<svg role="img" aria-label="{_sections._e(label)}" class="plot" ', 1)
    return text.strip()


def test_inline_prefixes_exactly_the_ids_the_word_boundary_pattern_did() -> None:
    # an id attribute after a space, at the start, after "-" or a quote is prefixed; one ending another word
    # (gid, xid, _id, é-id) is not, and neither is text that merely contains id= inside a value
    tricky = ('<?xml version="1.0"?>\n<svg width="10pt" height="20pt" id="root"><g id="a" gid="b">'
              '<x xid="q" _id="r" -id="s" data-id="t" éid="w"/>id="u" "id="v" <use xlink:href="#a" '
              'style="clip-path:url(#c)"/></g></svg>')
    assert _sections._inline(tricky, "p", "a <label>") == _inline_before(tricky, "p", "a <label>")
    p, y = _data()
    import io

    buf = io.StringIO()
    _reliability.plot_reliability(p, y, bins=10).savefig(buf, format="svg")
    assert _sections._inline(buf.getvalue(), "rel", "x") == _inline_before(buf.getvalue(), "rel", "x")
    assert 'id="rel-' in _sections._inline(buf.getvalue(), "rel", "x")

