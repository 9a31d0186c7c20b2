"""Round 34: labels separated by the score only up to a tied score (quasi-separation) leave the calibration
slope without a finite estimate, as strict separation does, but the reason said "every positive scores above
every negative ... report AUC = 1" while the AUC was 0.83 (a tie where both classes meet). Now it says the
separation is up to tied scores, and "AUC = 1" only where the AUC is 1 (or 0, reversed)."""

from __future__ import annotations

import pytest

import veracity as vc


def test_quasi_separated_labels_do_not_read_as_auc_one():
    p, y = [0.2, 0.3, 0.3, 0.3, 0.8], [0, 0, 1, 0, 1]
    assert vc.auc(p, y) == pytest.approx(5 / 6)  # not 1: the tie at 0.3 holds both classes
    with pytest.raises(vc.VeracityError) as err:
        vc.calibration_slope(p, y)
    msg = str(err.value)
    assert "up to tied scores" in msg and "AUC = 1" not in msg and "\n" not in msg
    skipped = vc.calibration_tests(p, y).skipped["slope"]
    assert "up to tied scores" in skipped and "AUC = 1" not in skipped


@pytest.mark.parametrize("y", [[0, 0, 1, 1], [1, 1, 0, 0]])
def test_strictly_separated_labels_still_say_auc_one(y):
    p = [0.2, 0.3, 0.7, 0.8]
    assert vc.auc(p, y) in (0.0, 1.0)
    with pytest.raises(vc.VeracityError, match="perfectly separated.*report AUC = 1"):
        vc.calibration_slope(p, y)
