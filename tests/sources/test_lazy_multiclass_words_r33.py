"""What a lazy frame does not compute is refused in words that are true: it reads (N, K) scores top-label
(it said "audits binary scores; drop multiclass=" of the very columns it audits top-label), ``vc.brier`` has
no ``estimator=`` (it was told to drop one), and a misspelt ``multiclass=`` gets the array form's message."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import veracity as vc


def _lazy() -> tuple[pl.LazyFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    P = rng.dirichlet([1, 1, 1], 300)
    y = rng.integers(0, 3, 300)
    frame = pl.DataFrame({"a": P[:, 0], "b": P[:, 1], "c": P[:, 2], "y": y, "yb": (y == 0).astype(int)}).lazy()
    return frame, P, y


COLS = ["a", "b", "c"]


def _message(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(vc.VeracityError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("name", ["audit", "ece", "brier", "mce"])
def test_classwise_on_a_lazy_frame_says_what_it_reads(name: str) -> None:
    frame, _, _ = _lazy()
    text = _message(lambda: getattr(vc, name)(frame, score=COLS, label="y", multiclass="classwise"))
    assert text.startswith(f"vc.{name} on a lazy polars frame reads (N, K) scores top-label only; "
                           "for multiclass='classwise' collect the columns into memory first")
    assert "binary" not in text and "estimator" not in text


def test_the_top_label_reading_it_names_is_the_one_it_computes() -> None:
    frame, P, y = _lazy()
    assert vc.ece(frame, score=COLS, label="y", bins=10) == pytest.approx(vc.ece(P, y, bins=10), abs=1e-12)


@pytest.mark.parametrize("name", ["audit", "ece", "auc"])
def test_a_misspelt_reading_gets_the_array_forms_message(name: str) -> None:
    frame, P, y = _lazy()
    want = _message(lambda: getattr(vc, name)(P, y, multiclass="bogus"))
    assert _message(lambda: getattr(vc, name)(frame, score=COLS, label="y", multiclass="bogus")) == want


def test_estimators_beyond_the_plug_in_are_named() -> None:
    frame, _, _ = _lazy()
    text = _message(lambda: vc.ece(frame, score="a", label="yb", estimator="debiased"))
    assert text.startswith("vc.ece on a lazy polars frame computes the plug-in ECE only; for estimator='debiased'")
    assert _message(lambda: vc.ece(frame, score="a", label="yb", estimator="nope")) == _message(
        lambda: vc.ece([0.1, 0.9], [0, 1], estimator="nope"))
