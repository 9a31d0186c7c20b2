"""``compare_models(by=)`` over an id-like column: every one-row slice is not compared (one class), and the
printout named each in its own note line (a line per id: thousands of lines). It names the first five and
counts the rest; ``.notes`` and ``to_dict()`` keep every one."""

from __future__ import annotations

import numpy as np

import veracity as vc


def test_many_slices_not_compared_print_five_notes_and_a_count():
    rng = np.random.default_rng(38)
    p = rng.random(60)
    y = (rng.random(60) < p).astype(int)
    result = vc.compare_models({"a": p, "b": np.clip(p + 0.05, 0, 1)}, y, by=np.arange(60), n_resamples=0)
    failed = [t for t in result.notes if " not compared: " in t]
    assert len(failed) == 60 and len(result.to_dict()["notes"]) == len(result.notes)
    text = str(result)
    printed = [line for line in text.splitlines() if " not compared: " in line]
    assert printed == [f"note: {t}" for t in failed[:5]]
    assert ("note: ... 55 more slices not compared (60 in all); every one is named in .notes and "
            "to_dict()") in text
    assert result._repr_html_().count(" not compared: ") <= 2 * 5 + 2  # the page and its text copy: 5 each
