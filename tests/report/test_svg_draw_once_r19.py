"""The report's figures are drawn once, not twice, and look exactly as before (session 19).

``savefig`` of a figure with a layout engine first draws every artist with output disabled only to
run the layout; ``_svg`` runs just the layout there. The SVG must be byte-for-byte the one a plain
``savefig`` writes, and the figure's artists are drawn once."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from veracity.plotting import _decisions, _reliability  # noqa: E402
from veracity.reporting._sections import _svg  # noqa: E402


def _plain_svg(fig, prefix: str, label: str) -> str:
    """The SVG as ``_svg`` wrote it before: a plain ``savefig`` (two draws), same post-processing."""
    import matplotlib

    from veracity.reporting._sections import _inline

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": prefix, "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    return _inline(buf.getvalue(), prefix, label)


def _data(n: int = 800, seed: int = 3):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < np.clip(p * 1.2, 0, 1)).astype(int)
    return p, y


def _multiclass(n: int = 600, k: int = 3, seed: int = 5):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), n)
    y = (P.cumsum(1) > rng.random((n, 1))).argmax(1)
    return P, y


FIGURES = {
    "thresholds": lambda: _decisions.plot_thresholds(*_data(), cost_fp=1, cost_fn=4),
    "risk-coverage": lambda: _decisions.plot_risk_coverage(*_data()),
    # small multiples with long panel names: titles fitted after a first layout, then laid out again
    "panels": lambda: _reliability.plot_multiclass_reliability(*_multiclass(), ncols=4),
}


@pytest.mark.parametrize("name", list(FIGURES))
def test_svg_is_byte_identical_to_a_plain_savefig_and_releases_the_artists(name):
    make = FIGURES[name]
    fig = make()
    assert _svg(fig, "x", "a figure") == _plain_svg(make(), "x", "a figure")
    for ax in fig.axes:  # what the figure held is dropped (fig.clear() did that, rebuilding every Axes)
        assert not (ax.lines or ax.collections or ax.patches or ax.texts or ax.images) and ax.legend_ is None
    assert not fig.legends


def test_artists_are_drawn_once_per_figure(monkeypatch):
    from matplotlib.axes import Axes

    calls = []
    draw = Axes.draw
    monkeypatch.setattr(Axes, "draw", lambda self, renderer: (calls.append(self), draw(self, renderer))[1])
    fig = _decisions.plot_risk_coverage(*_data())
    n_axes = len([ax for ax in fig.axes if ax.get_visible()])
    _svg(fig, "x", "a figure")
    assert len(calls) == n_axes  # a plain savefig draws each Axes twice
    assert "draw" not in vars(fig)  # savefig's own draw is back


def _slice_panels():
    """The report's slice panels, with names long enough to be shortened to fit."""
    import veracity as vc

    p, y = _data(1200, seed=7)
    keys = np.array(["a rather long segment name that will not fit " + k for k in "abc"])[np.arange(1200) % 3]
    result = vc.audit(p, y, by={"segment": keys}, min_count=5)
    panels = {"(all)": result.table, **{f"segment = {k}": g.table for k, g in result.groups.items()}}
    return _reliability._panel_tables(panels, ncols=2, prefix="segment = ", colors=("#1f5fa8", "#d55e00"))


def test_layout_alone_fits_the_panel_titles_as_a_full_draw_did(monkeypatch):
    """``_panel_tables`` fits each title to its panel's width after running only the layout; with a
    whole draw without rendering there (what it did before) the titles and the SVG are the same."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    execute = ConstrainedLayoutEngine.execute

    def draw_first(self, fig):  # the first layout as before: a whole draw with output disabled
        monkeypatch.setattr(ConstrainedLayoutEngine, "execute", execute)
        fig.draw_without_rendering()

    monkeypatch.setattr(ConstrainedLayoutEngine, "execute", draw_first)
    before = _slice_panels()
    assert ConstrainedLayoutEngine.execute is execute  # draw_first ran
    now = _slice_panels()
    titles = [[(ax.get_title(loc="left"), ax.title.get_fontsize()) for ax in f.axes] for f in (before, now)]
    assert titles[0] == titles[1]
    assert any(t.startswith("…") or not t.startswith("segment") for t, _ in titles[1][1:])  # names were fitted
    assert _plain_svg(before, "x", "panels") == _plain_svg(now, "x", "panels")


def test_a_tight_bbox_from_the_users_rc_still_crops_as_before():
    import matplotlib

    with matplotlib.rc_context({"savefig.bbox": "tight"}):
        make = FIGURES["risk-coverage"]
        assert _svg(make(), "x", "a figure") == _plain_svg(make(), "x", "a figure")
