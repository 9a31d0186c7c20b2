"""A target recall that cannot be fit is said, not dropped (session 29).

``plot_thresholds(..., target_recall=0.995)`` on 98 positives (the +1 correction needs
:math:`\\lceil 0.995/(1-0.995) \\rceil = 199`) drew the figure without its target-recall line and said
nothing. Now the figure says which target has no line and why, under the threshold axis, and a target the
caller named warns too (:class:`~veracity.VeracityWarning`); the default target (0.95, not named) is noted
on the figure only."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityWarning
from veracity.decisions import min_positives


def _rows(n: int = 400, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.01, 0.5, n)
    return p, (rng.random(n) < p).astype(int)


def _note(fig) -> str:
    found = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_gid() == "t_recall_missing"]
    assert len(found) <= 1
    return found[0].replace("\n", " ") if found else ""


def _recall_lines(fig) -> list:
    return [ln for ln in fig.axes[0].lines if ln.get_gid() == "t_recall"]


def test_a_named_target_with_too_few_positives_warns_and_says_so_on_the_figure():
    p, y = _rows()
    n_pos = int(y.sum())
    need = min_positives(0.995)
    assert n_pos < need == 199  # the +1 correction cannot reach 0.995 on these rows
    with pytest.warns(VeracityWarning, match=r"target recall 0\.995: too few positives"):
        fig = vc.plot_thresholds(p, y, target_recall=0.995)
    note = _note(fig)
    assert note.startswith("no line for target recall 0.995: too few positives")
    assert f"({n_pos:,};" in note and f"at least {need}" in note, note
    assert not _recall_lines(fig)


def test_the_warning_names_the_fix_and_points_at_the_caller():
    p, y = _rows()
    with pytest.warns(VeracityWarning) as got:
        vc.plot_thresholds(p, y, target_recall=0.999)
    (w,) = [w for w in got if issubclass(w.category, VeracityWarning)]
    assert "recall_threshold=" in str(w.message) and "lower target_recall" in str(w.message)
    assert w.filename == __file__  # stacklevel: the caller's line, not veracity's


def test_a_weighted_target_with_too_few_positives_is_said_too():
    p, y = _rows()
    w = np.random.default_rng(2).uniform(0.5, 2.0, p.size)
    with pytest.warns(VeracityWarning):
        fig = vc.plot_thresholds(p, y, sample_weight=w, target_recall=0.995)
    assert "too few positives" in _note(fig) and "equally weighted" in _note(fig)


def test_the_default_target_without_positives_is_noted_without_a_warning():
    p, _ = _rows()
    y = np.zeros(p.size, dtype=int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = vc.plot_thresholds(p, y)
    assert _note(fig) == "no line for target recall 0.95: there are no positives"
    assert not _recall_lines(fig)


def test_a_target_that_fits_draws_its_line_and_no_note():
    p, y = _rows()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = vc.plot_thresholds(p, y, target_recall=0.9)
    assert _note(fig) == "" and len(_recall_lines(fig)) == 1
    fig = vc.plot_thresholds(p, y, target_recall=None)  # no target asked for: nothing to say
    assert _note(fig) == "" and not _recall_lines(fig)


def test_the_note_is_laid_out_inside_the_figure():
    p, y = _rows()
    with pytest.warns(VeracityWarning):
        fig = vc.plot_thresholds(p, y, target_recall=0.995)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    (text,) = [t for t in fig.axes[1].texts if t.get_gid() == "t_recall_missing"]
    box = text.get_window_extent(renderer)
    width, height = fig.bbox.width, fig.bbox.height
    assert 0 <= box.x0 and box.x1 <= width and 0 <= box.y0 and box.y1 <= height, (box, width, height)
    xlabel = fig.axes[1].xaxis.label.get_window_extent(renderer)
    assert box.y1 <= xlabel.y0 + 1  # below the axis label, not over it
