"""Pictures of results (matplotlib, the optional ``plot`` extra, imported only when drawing).

Every figure is a :class:`matplotlib.figure.Figure` built without ``pyplot``:
nothing is shown or saved unless you ask (``fig.savefig(path)``; in a notebook the
figure displays itself). Key artists carry a ``gid`` so tests and callers can find
them: ``diagonal``, ``bins``, ``intervals``, ``insufficient``, ``histogram``,
``t_star``, ``t_recall``.

This package sits above the result families it draws (core, calibrators,
decisions, monitoring) and below the report. It is the one package a lower layer
reaches upward: ``result.plot()`` calls :func:`draw`, which finds the figure
function for the result's type — results never import a figure function.

Modules: ``_dispatch`` (:func:`draw` and its table of result types), ``_reliability``
(reliability diagrams), ``_decisions`` (risk–coverage, operating curves), ``_monitoring``
(by period and over time), ``_comparison`` (model comparison, Murphy diagrams, decision
curves, realised cost), ``_segments`` (segment gaps), ``_delayed`` (PPI estimates,
confidence sequences), ``_curves`` (threshold aggregates shared with the report),
``_style``. A new result with a picture gets its figure function here and a line in
``_dispatch``.
"""

from ._decisions import plot_risk_coverage, plot_thresholds
from ._dispatch import draw
from ._reliability import plot_multiclass_reliability, plot_reliability, plot_reliability_overlay

__all__ = [
    "draw",
    "plot_multiclass_reliability",
    "plot_reliability",
    "plot_reliability_overlay",
    "plot_risk_coverage",
    "plot_thresholds",
]
