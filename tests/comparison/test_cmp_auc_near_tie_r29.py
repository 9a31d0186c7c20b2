"""An AUC difference of float ties reads as one (session 29).

Two models that rank the rows alike but for ties (B a monotone map of A plus noise of 1e-9, which orders
A's tied scores) differ in AUC by a few pairs in a million. The digits rule (two significant digits of the
difference group) printed the row at 7 decimals — "0.7443028  0.7443038  +0.0000010  [-0.0000038,
+0.0000058]" — digits of nothing on two AUCs. Now an AUC difference whose interval holds 0 prints at the
AUCs' own 4 decimals, the interval's ends signed by their side ("[-0.0000, +0.0000]", which an identical
ranking's "[+0.0000, +0.0000]" is not), and a note gives the numbers at two significant digits; the text,
the notebook table and the verdict agree, and to_dict() keeps full precision. A difference clear of 0
keeps its digits (tests/comparison/test_cmp_digits_r28.py)."""

from __future__ import annotations

import json
import re

import pytest

import veracity as vc

from .conftest import float_near_tie

AUC_LINE = re.compile(r"^auc +(\S+) +(\S+) +(\S+) +\[(\S+), (\S+)\]", re.M)




@pytest.fixture(scope="module")
def tie() -> vc.ModelComparison:
    a, b, y = float_near_tie()
    return vc.compare_models({"a": a, "b": b}, y, n_resamples=50)


def test_the_near_tie_is_real_and_tiny(tie):
    r = tie.row("auc")
    assert r.diff != 0 and r.se > 0  # not an identical ranking
    assert max(abs(r.diff), abs(r.ci_low), abs(r.ci_high)) < 5e-5 and r.ci_low < 0 < r.ci_high


def test_the_auc_row_prints_at_the_aucs_four_decimals(tie):
    r = tie.row("auc")
    value_a, value_b, diff, low, high = AUC_LINE.search(str(tie)).groups()
    assert (value_a, value_b) == (f"{r.value_a:.4f}", f"{r.value_b:.4f}")  # was 0.7443028  0.7443038
    assert (diff, low, high) == ("+0.0000", "-0.0000", "+0.0000")  # the interval holds 0, and says so


def test_a_note_gives_the_numbers_at_two_significant_digits(tie):
    r = tie.row("auc")
    notes = [s for s in str(tie).splitlines() if s.startswith("note: auc b - a = ")]
    assert len(notes) == 1, str(tie)
    m = re.search(r"= ([+-]\S+) \[([+-]\S+), ([+-]\S+)\]: within noise", notes[0])
    assert m, notes[0]
    for text, value in zip(m.groups(), (r.diff, r.ci_low, r.ci_high)):
        assert re.fullmatch(r"[+-]\d\.\de-\d\d", text) and abs(float(text) - value) <= 0.05 * abs(value), text
    assert "to_dict() keeps every digit" in notes[0]


def test_the_notebook_table_prints_the_same(tie):
    page = tie._repr_html_()
    assert ">-0.0000<" in page or "[-0.0000, +0.0000]" in page
    assert "0.7443028" not in page and "note: auc b - a = " in page


def test_json_keeps_full_precision(tie):
    row = next(x for x in json.loads(json.dumps(tie.to_dict()))["comparison"] if x["metric"] == "auc")
    r = tie.row("auc")
    assert (row["diff"], row["ci_low"], row["ci_high"], row["value_b"]) == (r.diff, r.ci_low, r.ci_high,
                                                                           r.value_b)


def test_a_ranking_only_verdict_quotes_the_row_as_printed():
    a, b, y = float_near_tie()
    r = vc.compare_models({"a": a, "b": b}, y, score_type="score")
    assert r.verdict == ("no clear difference in ranking between a and b "
                         "(AUC +0.0000 [-0.0000, +0.0000] for b - a)")
    assert any(s.startswith("note: auc b - a = ") for s in str(r).splitlines())


def test_an_identical_ranking_keeps_its_zero_interval_and_has_no_note():
    a, _, y = float_near_tie()
    r = vc.compare_models({"a": a, "b": a ** 1.2}, y, n_resamples=0)
    assert AUC_LINE.search(str(r)).groups()[2:] == ("+0.0000", "+0.0000", "+0.0000")
    assert "note: auc" not in str(r)
