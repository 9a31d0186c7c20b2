"""``vc.log_mlflow(audit, figures=False)`` draws no figure at all: no reliability.png, and report.html is
written with its numbers but without the reliability diagram (drawing it took 1.4-4.5 s), saying so in one
line. ``figures=True`` still draws it on the page and as the PNG."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import veracity as vc
from veracity.tracking import log_mlflow

mlflow = pytest.importorskip("mlflow")
matplotlib = pytest.importorskip("matplotlib")


def _audit():
    rng = np.random.default_rng(38)
    p = rng.beta(2, 3, 1500)
    y = (rng.random(1500) < p ** 1.2).astype(int)
    return vc.audit(p, y, by={"seg": rng.choice(np.array(["a", "b"]), 1500)})


def _figures_drawn(monkeypatch) -> list[int]:
    """A list that grows by one each time a matplotlib Figure is made (by pyplot or directly)."""
    from matplotlib.figure import Figure

    made: list[int] = []
    init = Figure.__init__

    def counted(self, *args, **kwargs):
        made.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "__init__", counted)
    return made


def _log(tracking, tmp_path, figures):
    result = _audit()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLflow's own notices
        with mlflow.start_run() as run:
            logged = log_mlflow(result, figures=figures)
    html = Path(tracking.download_artifacts(run.info.run_id, "report.html", str(tmp_path))).read_text("utf-8")
    return result, logged, html


def test_figures_false_draws_no_figure_and_the_page_keeps_the_numbers(tracking, tmp_path, monkeypatch):
    made = _figures_drawn(monkeypatch)
    result, logged, html = _log(tracking, tmp_path, figures=False)
    assert made == []
    assert not any(a.endswith(".png") for a in logged.artifacts)
    assert "<svg" not in html and "figures omitted (figures=False, veracity audit --no-figures)" in html
    assert f"{result.n:,}" in html and f"{result.ece:.4f}" in html and "Slices by seg" in html


def test_figures_true_still_draws_the_page_figure(tracking, tmp_path, monkeypatch):
    made = _figures_drawn(monkeypatch)
    _, logged, html = _log(tracking, tmp_path, figures=True)
    assert len(made) >= 2  # the PNG's and the page's
    assert "reliability.png" in logged.artifacts
    assert "<svg" in html and "figures omitted" not in html
