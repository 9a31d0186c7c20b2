"""Words and numbers on figures (session 38): a one-bin diagram's key read "N = 5,000, 1 uniform bins"
(and the report's table note "1 uniform bins"), one hidden count label read "1 crowded labels above
omitted", and a paired difference of -0.4 % running off the axis was written "-0% [-290%, +252%]"."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import veracity as vc
from veracity.comparison._compare import ComparisonRow

pytest.importorskip("matplotlib")


def _texts(fig) -> list[str]:
    out = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    return [s for s in out if isinstance(s, str)]


def test_one_bin_is_one_bin_on_the_figure_and_in_the_report() -> None:
    rng = np.random.default_rng(0)
    p = rng.beta(2, 5, 2000)
    y = (rng.random(2000) < p).astype(int)
    texts = _texts(vc.audit(p, y, bins=1).plot())
    assert "N = 2,000, 1 uniform bin" in texts, [t for t in texts if "uniform" in t]
    assert not any("1 uniform bins" in t for t in texts)
    assert "2,000 points, 1 uniform bin;" in vc.report(p, y, bins=1, figures=False).html  # the table's note
    assert "N = 2,000, 15 uniform bins" in _texts(vc.audit(p, y).plot())  # the plural where it is one


def test_one_crowded_label_is_singular() -> None:
    rng = np.random.default_rng(0)
    p = rng.beta(2, 5, 5000)
    y = (rng.random(5000) < p).astype(int)
    w = rng.gamma(0.5, 4, 5000)  # a weighted audit whose diagram hides one crowded weight label
    notes = [t for t in _texts(vc.audit(p, y, sample_weight=w).plot()) if "crowded" in t]
    assert notes == ["every bin's weight here (1 crowded label above omitted)"], notes


def _row(metric: str, diff: float, low: float, high: float, value_a: float = 0.01) -> ComparisonRow:
    return ComparisonRow("a", "b", metric, value_a, value_a + diff, diff, low, high, 0.5, 0.01, "paired")


def test_a_tiny_difference_off_the_axis_is_not_written_minus_zero() -> None:
    from matplotlib.figure import Figure

    from veracity.plotting._comparison import _differences

    rows = [_row("brier", 0.0010, 0.0005, 0.0015, value_a=0.2), _row("log_loss", 0.0020, 0.0010, 0.0030, 0.5),
            _row("auc", -0.0030, -0.0050, -0.0010, 0.7), _row("ece", -0.00004, -0.029, 0.0252)]
    ax = Figure().subplots()
    _differences(ax, SimpleNamespace(rows=rows, level=0.95))
    off = [t.get_text() for t in ax.texts if "off the axis" in t.get_text()]
    assert off == ["-0.4% [-290%, +252%], off the axis"], off
    ax = Figure().subplots()
    _differences(ax, SimpleNamespace(rows=rows[:3] + [_row("ece", 0.0, -0.029, 0.0252)], level=0.95))
    assert [t.get_text() for t in ax.texts if "off the axis" in t.get_text()] == ["0% [-290%, +252%], off the axis"]
