"""The rare-class notes print a weighted (effective) count to one decimal or two significant digits,
not the six decimals of its rounding ("only 0.144904 of the 300 labels are positive", round 28)."""

from __future__ import annotations

import re

import pytest

from veracity.delayed._ppi_result import rare_class_note


@pytest.mark.parametrize("mean_y, n_eff, shown", [(0.144904 / 80, 80.0, "0.14"), (2.4 / 80, 80.0, "2.4"),
                                                   (1 - 1.75 / 80, 80.0, "1.8")])
def test_effective_counts_are_short(mean_y: float, n_eff: float, shown: str) -> None:
    note = rare_class_note(300, mean_y, n_eff)
    assert note is not None
    assert note.startswith(f"only {shown} of the 300 labels"), note
    assert not re.search(r"\d\.\d{3,}", note.split(":")[0]), note


def test_whole_counts_unweighted_stay_whole() -> None:
    note = rare_class_note(300, 2 / 300)
    assert note is not None and note.startswith("only 2 of the 300 labels are positive"), note


def test_both_rare_weighted_counts_are_short() -> None:
    note = rare_class_note(300, 0.144904 / 2.5, 2.5)
    assert note is not None and note.startswith("only 0.14 positive and 2.4 negative (effective labels"), note
