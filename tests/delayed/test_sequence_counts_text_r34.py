"""Session 34: the printouts of a confidence sequence count one row and one bin in the singular."""

from __future__ import annotations

import veracity as vc


def test_one_labelled_row_and_one_bin_are_singular() -> None:
    assert "(anytime-valid, alpha=0.05; 1 labelled row)" in str(vc.confidence_sequence([0.5], [1]))
    assert "1 batch of 1 labelled row)" in str(vc.confidence_sequence([0.5], [1], batches=[3]))
    assert "2 labelled rows)" in str(vc.confidence_sequence([0.5, 0.2], [1, 0]))
    assert "shared by 1 bin, 0.05 each" in str(vc.binned_sequences([0.5, 0.2], [1, 0], bins=1))
    assert "shared by 2 bins" in str(vc.binned_sequences([0.5, 0.2], [1, 0], bins=2))
