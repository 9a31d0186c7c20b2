"""numpy masked arrays (round 29).

``to_numpy`` returned a masked array as it was, and every computation reads the plain data: the masked
rows counted with whatever they held, silently (``vc.ece(p, np.ma.masked_array(y, mask=m))`` was the ECE
of all the rows). A masked value is now refused in one line that counts them and names the first row; a
masked array with nothing masked reads as its data.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

N = 400
MASKED = [3, 10, 50]
REFUSAL = r"has (3|9) masked values \(numpy masked array\) of {n} rows, first at row 3; drop those rows"


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(29)
    p = rng.uniform(0.05, 0.95, N)
    y = (rng.uniform(size=N) < p).astype(int)
    P = rng.dirichlet([1.0, 1.0, 1.0], N)
    k = rng.integers(0, 3, N)
    w = rng.uniform(0.5, 2.0, N)
    mask = np.zeros(N, dtype=bool)
    mask[MASKED] = True
    return p, y, P, k, w, mask


def masked(x, mask):
    """``x`` with ``mask``'s rows masked, their raw data changed (a read of it moves the result)."""
    raw = np.array(x, copy=True)
    if raw.ndim == 1:
        raw[mask] = raw[::-1][mask]
        return np.ma.masked_array(raw, mask=mask)
    return np.ma.masked_array(raw, mask=np.repeat(mask[:, None], raw.shape[1], axis=1))


CALLS = {
    "ece labels": (lambda d, M: vc.ece(d[0], M(d[1])), "labels"),
    "ece scores": (lambda d, M: vc.ece(M(d[0]), d[1]), "scores"),
    "ece sample_weight": (lambda d, M: vc.ece(d[0], d[1], sample_weight=M(d[4])), "sample_weight"),
    "brier": (lambda d, M: vc.brier(M(d[0]), d[1]), "scores"),
    "nll": (lambda d, M: vc.nll(d[0], M(d[1])), "labels"),
    "auc": (lambda d, M: vc.auc(d[0], M(d[1])), "labels"),
    "accuracy": (lambda d, M: vc.accuracy(M(d[0]), d[1]), "scores"),
    "multiclass scores": (lambda d, M: vc.ece(M(d[2]), d[3]), "scores"),
    "multiclass labels": (lambda d, M: vc.ece(d[2], M(d[3])), "labels"),
    "reliability": (lambda d, M: vc.reliability(d[0], M(d[1])), "labels"),
    "audit": (lambda d, M: vc.audit(M(d[0]), d[1]), "scores"),
    "audit by": (lambda d, M: vc.audit(d[0], d[1], by=M(d[3])), "by"),
    "audit sample_weight": (lambda d, M: vc.audit(d[0], d[1], sample_weight=M(d[4])), "sample_weight"),
    "PlattScaling.fit": (lambda d, M: vc.PlattScaling().fit(d[0], M(d[1])), "labels"),
    "IsotonicCalibration.fit": (lambda d, M: vc.IsotonicCalibration().fit(M(d[0]), d[1]), "scores"),
    "VectorScaling.fit": (lambda d, M: vc.VectorScaling().fit(M(d[2]), d[3]), "scores"),
    "PlattScaling.transform": (lambda d, M: vc.PlattScaling().fit(d[0], d[1]).transform(M(d[0])), "scores"),
    "compare_models scores": (lambda d, M: vc.compare_models({"a": d[0], "b": M(d[0])}, d[1],
                                                             n_resamples=20), "model 'b'"),
    "compare_models labels": (lambda d, M: vc.compare_models({"a": d[0], "b": d[0] ** 2}, M(d[1]),
                                                             n_resamples=20), "labels"),
    "segments": (lambda d, M: vc.segments(d[0], M(d[1]), features={"g": d[3]}, n_resamples=20), "labels"),
    "segments feature": (lambda d, M: vc.segments(d[0], d[1], features={"g": M(d[3])}, n_resamples=20),
                         "feature 'g'"),
    "ConformalClassifier.fit": (lambda d, M: vc.ConformalClassifier().fit(M(d[2]), d[3]), "probs"),
    "threshold_table": (lambda d, M: vc.threshold_table(d[0], M(d[1]), [0.3, 0.5]), "labels"),
    "recall_threshold": (lambda d, M: vc.recall_threshold(M(d[0]), d[1], target=0.8), "scores"),
    "ppi_mean": (lambda d, M: vc.ppi_mean(M(d[1]), d[0], d[0][::-1]), "labels"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_masked_value_is_refused_on_every_entry(data, call):
    fn, name = CALLS[call]
    with pytest.raises(vc.VeracityError, match=name.replace("'", ".") + " " + REFUSAL.format(n=N)) as info:
        fn(data, lambda x: masked(x, data[5]))
    assert "\n" not in str(info.value)


def test_masked_labels_are_missing_labels(data):
    p, y, *_, mask = data
    with pytest.raises(vc.core._validation.MissingLabels):
        vc.brier(p, np.ma.masked_array(y, mask=mask))


def test_the_refusal_names_the_rows(data):
    p, y, *_, mask = data
    with pytest.raises(vc.VeracityError) as info:
        vc.ece(p, np.ma.masked_array(y, mask=mask))
    assert info.value.rows.tolist() == MASKED


@pytest.mark.parametrize("mask", [np.ma.nomask, False])
def test_nothing_masked_reads_as_the_data(data, mask):
    p, y, P, k, w, _ = data
    mp, my, mw = (np.ma.masked_array(x, mask=mask) for x in (p, y, w))
    assert vc.ece(mp, my, sample_weight=mw) == vc.ece(p, y, sample_weight=w)
    assert vc.brier(np.ma.masked_array(P, mask=mask), np.ma.masked_array(k, mask=mask)) == vc.brier(P, k)
    assert vc.audit(mp, my).to_dict() == vc.audit(p, y).to_dict()
