"""The one seam between a result and its picture: :func:`draw`, keyed on the result's type.

``result.plot(ax=None)`` (:meth:`veracity.core._display.Display.plot`) calls
:func:`draw`; the result's own module never imports a figure function. The table
below names, for each result type, the function that draws it; a type is looked up
along its MRO, so a subclass draws like its base. A new result with a picture gets its
figure function in this package and a line in :func:`drawers` (``tests/test_layering.py``
checks that no result class draws itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core._validation import VeracityError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

Drawer = Callable[[Any, "Axes | None"], "Figure"]


#: most class panels a classwise audit's picture draws (plot_multiclass_reliability's limit)
MAX_CLASS_PANELS = 24


def _audit(result: Any, ax: Axes | None) -> Figure:
    """The audit's reliability diagram. (N, K) scores: the top-label reading, titled so; a classwise
    audit (``multiclass="classwise"``) draws the top-label panel and one one-vs-rest panel per
    class (its ``groups``, at most 24; into ``ax=`` only the top-label diagram fits). Before, a
    classwise audit drew the top-label diagram alone, titled "Reliability diagram" with the top-label
    ECE in its legend, beside a printout headed by the classwise ECE."""
    from ._reliability import _panel_tables, plot_reliability
    from ._style import PALETTE

    classwise = result.top_label and result.group_column == "class" and "classwise" in result.extras
    if classwise and ax is None and 0 < len(result.groups) <= MAX_CLASS_PANELS:
        tables = {"top label": result.table, **{str(k): g.table for k, g in result.groups.items()}}
        return _panel_tables(tables, ncols=4 if len(tables) > 9 else 3, colors=(PALETTE[0], PALETTE[2]))
    sliced = bool(result.groups) and result.group_column != "class"
    if sliced and ax is None:
        return _slice_panels(result)
    title = "Reliability diagram (top label)" if result.top_label else "Reliability diagram"
    if sliced:  # into one Axes only the whole fits: said, as the slices' table is beside it in the text
        title += f", all rows ({len(result.groups)} slices by {result.group_column}: plot without ax)"
    return plot_reliability(result.table, ax=ax, title=title)


#: slices an audit's picture draws beside the whole (the largest, by their rows)
MAX_SLICE_PANELS = 11


def _slice_panels(result: Any) -> Figure:
    """An audit with ``by=``: the whole first, then one panel per slice, the :data:`MAX_SLICE_PANELS`
    largest (binned with the whole's edges, as the slices' table), the figure's title saying which. Before,
    ``vc.audit(p, y, by=g).plot()`` drew the whole alone, titled "Reliability diagram" like an audit of one
    group, beside a printout whose slices differed; the report drew the slices, the notebook did not."""
    from ._reliability import _panel_tables
    from ._style import PALETTE

    column = str(result.group_column)
    biggest = sorted(result.groups.items(), key=lambda kv: -kv[1].n)[:MAX_SLICE_PANELS]
    tables = {"(all)": result.table, **{f"{column} = {k}": g.table for k, g in biggest}}
    shown = (f"the {len(biggest)} largest of {len(result.groups)} slices" if len(result.groups) > len(biggest)
             else f"{len(biggest)} slice{'s' if len(biggest) != 1 else ''}")
    # shortened here, shown literally by the legend
    named = column if len(column) <= 24 else column[:11] + "…" + column[-12:]
    what = "Top-label reliability" if result.top_label else "Reliability"
    fig = _panel_tables(tables, ncols=4 if len(tables) in (4, 7, 8, 10, 11, 12) else 3,
                        colors=(PALETTE[0], PALETTE[1]), size=3.0,
                        key=("bin of all rows", "bin of one slice"), prefix=f"{column} = ",
                        title=f"{what} by {named}: all rows and {shown} (the whole's bins)")
    return fig


def _reliability_table(result: Any, ax: Axes | None) -> Figure:
    from ._reliability import plot_reliability

    return plot_reliability(result, ax=ax)


def _ledger(result: Any, ax: Axes | None) -> Figure:
    from ._reliability import _overlay_tables

    if not result.tables:
        raise VeracityError("this ledger holds no reliability tables to draw; build it with vc.compare")
    return _overlay_tables(result.tables, title=f"Before and after {result.calibrator}", ax=ax)


def _recalibration(result: Any, ax: Axes | None) -> Figure:
    return _ledger(result.ledger, ax)  # a store recalibration draws its ledger (before and after)


def _threshold_table(result: Any, ax: Axes | None) -> Figure:
    from ._decisions import _threshold_table_figure

    return _threshold_table_figure(result, ax=ax)


def _risk_coverage(result: Any, ax: Axes | None) -> Figure:
    from ._decisions import _risk_coverage_figure

    return _risk_coverage_figure(result, ax=ax)


def _monitor(result: Any, ax: Axes | None) -> Figure:
    from ._monitoring import _monitor_figure

    return _monitor_figure(result, ax=ax)


def _store_status(result: Any, ax: Axes | None) -> Figure:
    from ._monitoring import store_figure

    if ax is not None:
        raise VeracityError("StoreStatus.plot() draws three panels (rates, the band each alert reads, row counts); call it without ax")
    return store_figure(result)


def drawers() -> dict[type, Drawer]:
    """Result type -> the function that draws it (the result classes are imported here, never the reverse)."""
    from ..calibrators._ledger import Ledger
    from ..core._audit import AuditResult
    from ..core._reliability import ReliabilityTable
    from ..decisions._selective import RiskCoverage
    from ..decisions._table import ThresholdTable
    from ..monitoring._monitor import MonitorResult
    from ..monitoring._recalibrate import Recalibration
    from ..monitoring._status import StoreStatus

    from ..comparison._compare import ModelComparison
    from ..comparison._cost import RealisedCost
    from ..comparison._decision_curve import DecisionCurve
    from ..comparison._murphy import MurphyDiagram
    from ..delayed._binned import BinnedSequences
    from ..delayed._ppi import PpiMean
    from ..delayed._sequence import ConfidenceSequence
    from ..segments._result import SegmentsResult
    from ._comparison import comparison_figure, cost_figure, decision_curve_figure, murphy_figure
    from ._delayed import plot_binned, plot_ppi, plot_sequence
    from ._segments import plot_segments

    return {
        AuditResult: _audit,
        ReliabilityTable: _reliability_table,
        Ledger: _ledger,
        Recalibration: _recalibration,
        ThresholdTable: _threshold_table,
        RiskCoverage: _risk_coverage,
        MonitorResult: _monitor,
        StoreStatus: _store_status,
        SegmentsResult: plot_segments,
        ModelComparison: comparison_figure,
        RealisedCost: cost_figure,
        DecisionCurve: decision_curve_figure,
        MurphyDiagram: murphy_figure,
        PpiMean: plot_ppi,
        BinnedSequences: plot_binned,
        ConfidenceSequence: plot_sequence,
    }


def show_in_notebook() -> None:
    """In IPython / Jupyter, make a returned Figure display itself as a PNG.

    Figures here are built without ``pyplot``, so a fresh kernel (no ``%matplotlib inline``, no
    pyplot import) would show only ``<Figure size 600x620 with 2 Axes>``: register IPython's own
    ``print_figure`` as the PNG formatter of :class:`~matplotlib.figure.Figure`, once, unless the
    user's session already has one. Outside IPython this does nothing.
    """
    import sys

    if "IPython" not in sys.modules:
        return
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    from matplotlib.figure import Figure

    png = shell.display_formatter.formatters["image/png"]
    try:
        png.lookup_by_type(Figure)
        return  # %matplotlib inline (or the user) already displays figures
    except KeyError:
        pass
    from IPython.core import pylabtools

    print_figure: Any = pylabtools.print_figure  # untyped in IPython
    png.for_type(Figure, lambda fig: print_figure(fig, "png", bbox_inches="tight"))


def draw(result: Any, ax: Axes | None = None) -> Figure:
    """The picture of ``result`` as a matplotlib Figure, drawn into ``ax`` when given.

    >>> import veracity as vc
    >>> fig = draw(vc.reliability([.1, .2, .8, .9], [0, 0, 1, 1], bins=5, min_count=1))
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['observed frequency', 'count']
    """
    table = drawers()
    for cls in type(result).__mro__:
        if cls in table:
            figure = table[cls](result, ax)
            show_in_notebook()
            return figure
    raise VeracityError(f"{type(result).__name__} has no picture; print it, or use to_frame() / to_dict()")
