"""vc.compare reads the positive class the calibrator was fit with, whatever the labels' type (session 20).

The docs say "vc.compare defaults to the label the calibrator was fit with", but only text labels
did: a calibrator fit with ``pos_label=0`` on 0/1 labels (or ``pos_label=False`` on booleans) was
measured against label 1 -- the ledger's BEFORE and AFTER were the probabilities of the wrong class
(NLL 5.3 instead of 0.55, "REGRESSION") -- and labels 1/2 fit with ``pos_label=1`` were refused with
advice to pass ``pos_label=2``, the other class. Oracle: Brier and log-loss by their definitions.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _data(n: int = 2000):
    rng = np.random.default_rng(0)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    return 1.0 - p, y          # 1 - p is the probability of label 0


def _brier(q, positive):
    return float(np.mean((q - positive) ** 2))


@pytest.mark.parametrize("recode", ["int", "bool", "one-two"])
def test_compare_defaults_to_the_recorded_pos_label(recode):
    q, y = _data()
    if recode == "int":
        labels, pos = y, 0
    elif recode == "bool":
        labels, pos = y.astype(bool), False
    else:
        labels, pos = np.where(y == 1, 2, 1), 1
    fit, ev = slice(0, 1000), slice(1000, None)
    cal = vc.PlattScaling().fit(q[fit], labels[fit], pos_label=pos)
    positive = (labels[ev] == pos).astype(float)
    ledger = vc.compare(q[ev], labels[ev], cal)
    rows = {r.metric: r for r in ledger.rows}
    assert rows["Brier"].before == pytest.approx(_brier(q[ev], positive), rel=1e-12)
    after = cal.transform(q[ev])
    assert rows["Brier"].after == pytest.approx(_brier(after, positive), rel=1e-12)
    nll = -np.mean(positive * np.log(after) + (1 - positive) * np.log1p(-after))
    assert rows["NLL"].after == pytest.approx(nll, rel=1e-9)
    # and the same ledger as naming the label outright, also after a JSON round trip
    named = vc.compare(q[ev], labels[ev], cal, pos_label=pos)
    loaded = vc.compare(q[ev], labels[ev], vc.load(cal.to_dict()))
    for a, b, c in zip(ledger.rows, named.rows, loaded.rows):
        assert (a.before, a.after) == (b.before, b.after) == (c.before, c.after)


def test_zero_one_labels_of_a_text_fit_keep_their_reading():
    # fit on "yes"/"no", measured on labels already mapped to 1/0: 1 stays the positive class
    q, y = _data()
    text = np.where(y == 0, "yes", "no")
    cal = vc.PlattScaling().fit(q[:1000], text[:1000], pos_label="yes")
    mapped = (text[1000:] == "yes").astype(int)
    rows = {r.metric: r for r in vc.compare(q[1000:], mapped, cal).rows}
    assert rows["Brier"].before == pytest.approx(_brier(q[1000:], mapped), rel=1e-12)


@pytest.mark.parametrize("as_bool", [False, True])
def test_the_text_that_veracity_fit_records_is_read_in_the_labels_type(as_bool):
    # `veracity fit --pos-label 0` / `--pos-label false` records the text "0" / "false"
    q, y = _data()
    labels = y.astype(bool) if as_bool else y
    cal = vc.PlattScaling().fit(q[:1000], (labels[:1000] == labels[:1000].dtype.type(0)).astype(int))
    cal.metadata["pos_label"] = "false" if as_bool else "0"
    positive = (y[1000:] == 0).astype(float)
    rows = {r.metric: r for r in vc.compare(q[1000:], labels[1000:], vc.load(cal.to_dict())).rows}
    assert rows["Brier"].before == pytest.approx(_brier(q[1000:], positive), rel=1e-12)
