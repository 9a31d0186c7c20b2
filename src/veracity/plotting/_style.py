"""The look every figure shares: colours, a figure without pyplot, axes style, legends above."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..core._text import HIDDEN as HIDDEN  # noqa: F401 - the escape is the text tables' (core._text)
from ..core._text import visible as visible
from ..core._validation import VeracityError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Colour cycle shared by plots and the HTML report (colour-blind safe, Okabe–Ito based).
PALETTE = ("#1f5fa8", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7f7f7f", "#000000")

INK = "#1f2933"

MUTED = "#8a94a6"

GRID = "#e4e7eb"



def _figure(figsize: tuple[float, float], dpi: float) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise VeracityError(
            "plots need matplotlib; install it with: pip install 'veracity[plot]'"
        ) from None
    fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
    return fig



def run_layout(fig: Figure) -> None:
    """Run the figure's layout engine (:func:`_figure`'s constrained layout) without drawing, as
    ``Figure.draw`` runs it first: positions the axes; a layout that cannot be made is skipped."""
    engine = fig.get_layout_engine()
    if engine is None:
        return
    try:
        engine.execute(fig)
    except ValueError:  # as Figure.draw
        pass


def _figure_of(ax: Axes) -> Figure:
    """The figure an Axes draws into (what a plot function returns when given ``ax``)."""
    return cast("Figure", ax.figure)


def _plain(text: Any) -> str:
    """User text shown literally: matplotlib would read ``$...$`` as mathtext, and a browser showing
    the figure's SVG obeys direction marks (:func:`visible`)."""
    return visible(text).replace("$", r"\$")


#: characters of a user's name (a model, segment, slice or period) that a figure shows in full
MAX_NAME = 40


def _name(text: Any, limit: int = MAX_NAME) -> str:
    """A user's name as a figure shows it: literally (:func:`_plain`), and, when longer than ``limit``
    characters, its start and end around "…" (a 300-character column name as a tick label or legend
    entry squeezed the axes to nothing, and constrained layout gave up; the tables keep the whole name)."""
    text = str(text)
    if len(text) > limit:
        head = (limit - 1) // 2
        text = text[:head] + "…" + text[len(text) - (limit - 1 - head):]
    return _plain(text)



def _style(ax: Axes) -> None:
    ax.grid(True, color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(MUTED)
    ax.tick_params(colors=INK, labelsize=9, color=MUTED)
    ax.xaxis.label.set_color(INK)
    ax.yaxis.label.set_color(INK)
    ax.title.set_color(INK)



def _legend_above(ax: Axes, handles: list[Any], names: list[str], ncol: int = 2) -> None:
    """The legend in its own band above the axes: it never covers data."""
    ax.legend(handles, names, loc="lower left", bbox_to_anchor=(0.0, 1.01, 1.0, 0.1), mode="expand",
              ncol=ncol, fontsize=8, frameon=False, borderaxespad=0.2, handlelength=1.8)
