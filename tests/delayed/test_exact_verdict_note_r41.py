"""Session 41: "not calibrated" beside a rectifier interval that holds 0 says what it rests on.

With fewer than 10 labels of one class the calibration verdict is the exact binomial bound, not the
rectifier's normal interval. Where that interval excludes 0 and the bound finds no evidence, a note said so
(EXACT_JUDGED); the reverse — 2 positives among 100 labels whose scores expect 0.1, the interval
[-0.0084, +0.0464] holding 0 — printed "the scores are not calibrated here" with nothing to reconcile it with
the row above it.
"""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.delayed import PpiSums, ppi_records
from veracity.delayed._ppi import NOT_CALIBRATED

WORDS = "by an exact binomial bound the labels hold too many positives for the scores"


def _window():
    rng = np.random.default_rng(2)
    f, g = rng.uniform(0.0005, 0.0015, 100), rng.uniform(0.0005, 0.0015, 5_000)
    y = np.zeros(100, dtype=int)
    y[:2] = 1  # 2 positives where the scores expect 0.098: P(2 or more) = 0.0045
    return y, f, g


def test_ppi_mean_says_the_verdict_is_the_exact_bound():
    y, f, g = _window()
    r = vc.ppi_mean(y, f, g)
    assert r.calibrated is False and r.rectifier_low < 0.0 < r.rectifier_high
    note = next(t for t in r.notes if WORDS in t)
    assert note.startswith("the rectifier's interval (of the labels' mean y - score) holds 0, but with fewer")
    assert "(2 where they expect 0.098)" in note
    assert r.notes[r.notes.index(note) + 1] == NOT_CALIBRATED
    assert note in str(r)
    # the window's record (a store's status row, its ppi_note in the JSON) carries the same notes
    rec = ppi_records(PpiSums.of(y, f, g, None, None))[0]
    assert rec["calibrated"] is False and rec["note"] == r.note
    # no such note where the bound finds nothing, nor where the interval itself excludes 0
    y1 = np.zeros(100, dtype=int)
    y1[0] = 1  # one positive where 0.098 are expected: no evidence (P = 0.09)
    assert all(WORDS not in t for t in vc.ppi_mean(y1, f, g).notes)
    rng = np.random.default_rng(3)
    big_f = rng.uniform(0.1, 0.3, 400)
    big_y = (rng.random(400) < big_f + 0.15).astype(int)  # plenty of both classes: the interval judges
    r = vc.ppi_mean(big_y, big_f, rng.uniform(0.1, 0.3, 4_000))
    assert r.calibrated is False and r.rectifier_low > 0 and all(WORDS not in t for t in r.notes)


def test_ppi_audit_says_the_same_of_its_rate_minus_score_row():
    y, f, g = _window()
    a = vc.ppi_audit(y, f, g, bins=2)
    gap = a.row("rate - score")
    assert a.calibrated is False and gap["ci_low"] < 0.0 < gap["ci_high"]
    assert "rate - score's interval holds 0, but with fewer than 10 labels of one class" in a.note
    assert WORDS in a.note and a.note.index(WORDS) < a.note.index("the scores are not calibrated here")
