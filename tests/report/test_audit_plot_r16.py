"""``vc.audit(P, y, multiclass="classwise").plot()`` draws the classes it printed.

Before: the picture was the top-label diagram alone, titled "Reliability diagram", with the
top-label ECE (0.0159 below) in its legend, while the printout it sat beside led with the
classwise ECE and one row per class. Now: a top-label panel and one one-vs-rest panel per class,
each with the ECE its row prints; a top-label audit's diagram says it reads the top label."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def twelve():
    rng = np.random.default_rng(7)
    n, k = 3000, 12
    logits = rng.normal(size=(n, k)) * 2
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    y = (P.cumsum(axis=1) > rng.uniform(size=(n, 1))).argmax(axis=1)
    return P, y


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_title(loc="left")]


def test_classwise_audit_draws_one_panel_per_class(twelve):
    import matplotlib.pyplot as plt

    P, y = twelve
    result = vc.audit(P, y, multiclass="classwise")
    fig = result.plot()
    try:
        panels = _panels(fig)
        titles = [ax.get_title(loc="left") for ax in panels]
        assert titles == ["top label"] + [f"class {c}" for c in range(12)]
        assert panels[0].get_title(loc="right") == f"ECE {result.ece:.4f}, N {result.n:,}"
        for c in range(12):
            group = result.groups[f"class {c}"]
            assert panels[c + 1].get_title(loc="right") == f"ECE {group.ece:.4f}, N {group.n:,}"
        # the one-vs-rest ECEs average to the classwise ECE the printout leads with
        assert np.mean([result.groups[f"class {c}"].ece for c in range(12)]) == pytest.approx(
            result.extras["classwise"].ece)
    finally:
        plt.close(fig)


def test_top_label_audit_names_its_reading(twelve):
    import matplotlib.pyplot as plt

    P, y = twelve
    fig = vc.audit(P, y).plot()
    binary = vc.audit(P[:, 0], (y == 0).astype(int)).plot()
    try:
        assert fig.axes[0].get_title(loc="left") == "Reliability diagram (top label)"
        assert binary.axes[0].get_title(loc="left") == "Reliability diagram"
        _, ax = plt.subplots()
        into = vc.audit(P, y, multiclass="classwise").plot(ax=ax)  # one Axes: the top-label diagram
        assert into is ax.figure and ax.get_title(loc="left") == "Reliability diagram (top label)"
    finally:
        plt.close("all")
