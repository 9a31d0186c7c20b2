"""A threshold on (N, K) scores read top-label (session 34).

Their accuracy is the share of rows whose argmax is the label, which no threshold cuts:
``vc.accuracy(P, y, threshold=0.3)``, ``vc.audit(P, y, threshold=0.3)`` and
``vc.bootstrap_intervals(P, y, threshold=0.3)`` printed the argmax accuracy as if read at 0.3, silently
(the CLI already refused ``--threshold`` there). Refused now in one line naming the column a threshold
cuts; 0.5 (the default) still reads the argmax; ``multiclass="classwise"`` keeps the threshold for its
one-vs-rest audits."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def three_classes():
    rng = np.random.default_rng(3)
    P = rng.dirichlet([1.0, 1.0, 1.0], size=400)
    y = np.array([rng.choice(3, p=row) for row in P])
    return P, y


def test_three_classes_refuse_a_threshold_and_name_one_class_column(three_classes):
    P, y = three_classes
    argmax = float(np.mean(P.argmax(axis=1) == y))
    assert vc.accuracy(P, y) == pytest.approx(argmax, abs=1e-15)
    for call in (vc.accuracy, vc.audit, vc.bootstrap_intervals):
        with pytest.raises(vc.VeracityError, match=r"^threshold=0.3 has no effect on \(N, K\) scores read "
                                                   r"top-label .* pass one class's column P\[:, k\] with the "
                                                   r"labels y == k to threshold it"):
            call(P, y, threshold=0.3)


def test_the_audit_names_its_classwise_reading_and_the_error_is_a_value_error(three_classes):
    P, y = three_classes
    with pytest.raises(ValueError, match=r"\(or multiclass='classwise' for one-vs-rest accuracies at it\), "
                                         r"or leave threshold at 0.5 for the top-label \(argmax\) "
                                         r"accuracy$") as err:
        vc.audit(P, y, threshold=0.7)
    assert "\n" not in str(err.value) and err.value.param == "threshold"


def test_a_threshold_outside_0_1_is_refused_on_class_columns_too(three_classes):
    """threshold=2 (or NaN) was never checked on (N, K) scores: the argmax accuracy came back."""
    P, y = three_classes
    for bad in (2.0, float("nan"), "0.5"):
        for call in (vc.accuracy, vc.audit):
            with pytest.raises(vc.VeracityError, match=r"^threshold must be a probability in \[0, 1\]"):
                call(P, y, threshold=bad)


def test_classwise_audits_keep_the_threshold(three_classes):
    P, y = three_classes
    result = vc.audit(P, y, multiclass="classwise", threshold=0.3)
    assert result.accuracy == pytest.approx(float(np.mean(P.argmax(axis=1) == y)), abs=1e-15)
    for k in range(3):
        want = float(np.mean((P[:, k] >= 0.3) == (y == k)))
        assert result.groups[f"class {k}"].accuracy == pytest.approx(want, abs=1e-15)
        assert result.groups[f"class {k}"].threshold == 0.3
    with_intervals = vc.audit(P, y, multiclass="classwise", threshold=0.3, bootstrap="percentile",
                              n_resamples=30)
    assert with_intervals.extras["intervals"]["accuracy"].estimate == pytest.approx(result.accuracy)


def test_binary_columns_keep_the_threshold(three_classes):
    P, y = three_classes
    p, yk = P[:, 1], (y == 1).astype(int)
    assert vc.accuracy(p, yk, threshold=0.3) == pytest.approx(float(np.mean((p >= 0.3) == (yk == 1))))
    assert vc.audit(p, yk, threshold=0.3).accuracy == pytest.approx(float(np.mean((p >= 0.3) == (yk == 1))))
    row = vc.bootstrap_intervals(p, yk, metrics="accuracy", threshold=0.3, method="percentile",
                                 n_resamples=30)["accuracy"]
    assert row.estimate == pytest.approx(float(np.mean((p >= 0.3) == (yk == 1))))


def test_the_refusal_names_the_threshold_as_given(three_classes):
    """A threshold a hair from 0.5 is named to its last digit (not "threshold=0.5 has no effect")."""
    P, y = three_classes
    with pytest.raises(vc.VeracityError, match=r"^threshold=0\.5000001 has no effect"):
        vc.accuracy(P, y, threshold=0.5000001)
    with pytest.raises(vc.VeracityError, match=r"^threshold=0\.7 has no effect"):
        vc.accuracy(P, y, threshold=np.float64(0.7))
    assert vc.accuracy(P, y, threshold=np.float64(0.5)) == vc.accuracy(P, y)
