"""A difference within noise prints no finer than its levels' 4 significant digits (session 29).

The digits rule (two significant digits of each difference group, comparison._digits) keeps a rare event's
difference from printing as +0.0000, and printed a near-tie's noise instead: B = A rounded to 4 decimals gave
a Brier difference and interval of about 1e-7, and the row read "0.14706859  0.14706856  -0.00000003
[-0.00000013, +0.00000006]"; a ranking alike but for float ties gave a CORP line "DSC +0.000000 [-0.000006,
+0.000059]", quoted so in the verdict. Now a difference whose interval holds 0 prints at no more decimals
than show its levels (the two models' values) to 4 significant digits — the Brier row at 4 decimals,
"+0.0000 [-0.0000, +0.0000]" with its ends signed by their side, and a note with the numbers at two
significant digits where all of them print as 0 — in the text, the notebook table and the verdict alike;
to_dict() keeps every digit. Differences clear of 0 keep theirs (test_cmp_digits_r28.py)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

import veracity as vc
from veracity.comparison._compare import ComparisonRow, _row_texts

from .conftest import float_near_tie

NUMBER = re.compile(r"[+-]?\d+\.\d+")


def cap(*levels: float) -> int:
    """The decimals that show the levels' largest magnitude to 4 significant digits (at least 4)."""
    return max(4, 3 - math.floor(math.log10(max(abs(v) for v in levels))))


def places(text: str) -> int:
    return len(text.split(".")[1])


def rounded_copy(n: int = 20_000, seed: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A at a base rate of about 30 %, B = A rounded to 4 decimals: one model twice, but for rounding."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-(-0.85 + x))))
    a = 1 / (1 + np.exp(-(-0.85 + x + 0.5 * rng.normal(size=n))))
    return a, np.round(a, 4), y




@pytest.fixture(scope="module")
def rounded() -> vc.ModelComparison:
    a, b, y = rounded_copy()
    return vc.compare_models({"a": a, "b": b}, y, n_resamples=50)


@pytest.fixture(scope="module")
def ties() -> vc.ModelComparison:
    a, b, y = float_near_tie()
    return vc.compare_models({"a": a, "b": b}, y, n_resamples=50)


def row_line(text: str, metric: str) -> list[str]:
    line = next(s for s in text.splitlines() if s.startswith(metric + " "))
    return NUMBER.findall(line)


@pytest.mark.parametrize("metric", ["brier", "log_loss"])
def test_a_near_tie_row_prints_at_its_levels_four_significant_digits(rounded, metric):
    r = rounded.row(metric)
    assert r.ci_low < 0 < r.ci_high and max(abs(r.ci_low), abs(r.ci_high)) < 1e-5  # within noise, tiny
    value_a, value_b, diff, low, high = row_line(str(rounded), metric)[:5]
    k = cap(r.value_a, r.value_b)
    assert k == 4 and {places(t) for t in (value_a, value_b, diff, low, high)} == {k}  # was 8 decimals
    assert (value_a, value_b) == (f"{r.value_a:.4f}", f"{r.value_b:.4f}")
    assert (diff, low, high) == ("+0.0000", "-0.0000", "+0.0000")  # the interval holds 0, and says so


@pytest.mark.parametrize("metric", ["brier", "log_loss"])
def test_a_note_gives_the_near_tie_at_two_significant_digits(rounded, metric):
    r = rounded.row(metric)
    notes = [s for s in str(rounded).splitlines() if s.startswith(f"note: {metric} b - a = ")]
    assert len(notes) == 1, str(rounded)
    m = re.search(r"= ([+-]\S+) \[([+-]\S+), ([+-]\S+)\]: within noise, and 0 at the 4 decimals", notes[0])
    assert m, notes[0]
    for text, value in zip(m.groups(), (r.diff, r.ci_low, r.ci_high)):
        assert re.fullmatch(r"[+-]\d\.\de-\d\d", text) and abs(float(text) - value) <= 0.05 * abs(value), text
    assert "to_dict() keeps every digit" in notes[0]


def test_the_verdict_and_the_corp_brier_quote_the_row_as_printed(rounded):
    assert "Brier +0.0000 [-0.0000, +0.0000]," in rounded.verdict, rounded.verdict
    assert not re.search(r"\d\.\d{6}", rounded.verdict), rounded.verdict
    corp = next(s for s in str(rounded).splitlines() if s.startswith("b - a "))
    assert corp.split()[3] == "+0.0000", corp  # the CORP table's Brier difference, at the row's decimals
    levels = [NUMBER.findall(next(s for s in str(rounded).splitlines() if s.startswith(f"{m} ")))[0]
              for m in ("a", "b")]
    assert [places(t) for t in levels] == [4, 4], levels  # the Brier column of the CORP table


def test_the_notebook_table_prints_what_the_text_prints(rounded):
    page = rounded._repr_html_()
    r = rounded.row("brier")
    assert f">{r.value_a:.4f}<" in page and f"{r.value_a:.8f}" not in page
    assert "note: brier b - a = " in page and "note: log_loss b - a = " in page
    assert _row_texts(r) == tuple(row_line(str(rounded), "brier")[:5])


def test_json_keeps_full_precision(rounded):
    payload = json.loads(json.dumps(rounded.to_dict()))
    row = next(x for x in payload["comparison"] if x["metric"] == "brier")
    r = rounded.row("brier")
    assert (row["value_a"], row["diff"], row["ci_low"], row["ci_high"]) == (r.value_a, r.diff, r.ci_low,
                                                                           r.ci_high)


def test_a_corp_part_within_noise_prints_at_its_levels_digits(ties):
    d = ties.corp_differences[0]
    assert d.dsc_low < 0 < d.dsc_high and max(abs(d.dsc_low), abs(d.dsc_high)) < 1e-4  # a near-tie
    levels = (ties.corp["a"].brier.dsc, ties.corp["b"].brier.dsc)
    k = cap(*levels)
    assert k == 5  # DSCs of about 0.05: 6 decimals before ("0.047832 / +0.000000 [-0.000001, +0.000015]")
    text = str(ties)
    diff_line = next(s for s in text.splitlines() if s.startswith("b - a "))
    dsc = diff_line.split()[5]  # b, -, a, Brier, MCB, DSC
    interval = re.search(r"DSC \[([+-][\d.]+), ([+-][\d.]+)\]", diff_line).groups()
    assert {places(t) for t in (dsc, *interval)} == {k}, diff_line
    assert float(interval[0]) <= 0 <= float(interval[1]) and interval[0].startswith("-"), interval
    for name in ("a", "b"):  # the DSC column shares the difference's decimals
        cell = NUMBER.findall(next(s for s in text.splitlines() if s.startswith(f"{name} ")))[2]
        assert places(cell) == k, cell
    # the verdict quotes the CORP table's numbers
    assert f"DSC {dsc} [{interval[0]}, {interval[1]}] for b - a" in ties.verdict, ties.verdict
    assert f"DSC [{interval[0]}, {interval[1]}]" in ties._repr_html_()


def test_slice_verdicts_quote_the_rows_as_printed():
    a, b, y = rounded_copy(n=8000)
    keys = np.where(np.arange(a.size) % 2 == 0, "x", "z")
    r = vc.compare_models({"a": a, "b": b}, y, by=keys, n_resamples=0)
    for g in r.groups.values():
        brier = g.row("brier")
        assert brier.ci_low < 0 < brier.ci_high
        assert "Brier +0.0000 [-0.0000, +0.0000]" in g.verdict, g.verdict


def _row(value_a: float, value_b: float, diff: float, low: float, high: float, metric: str = "brier"):
    return ComparisonRow("a", "b", metric, value_a, value_b, diff, low, high, 0.5, 0.0, "paired t")


def test_the_cap_bites_only_within_noise_and_below_a_hundredth_of_the_levels():
    # a rare event's difference clear of 0 keeps its two significant digits (r28)
    assert _row_texts(_row(0.0054, 0.0053, -0.000044, -0.00007, -0.00002))[2:] == ("-0.000044", "-0.000070",
                                                                                    "-0.000020")
    # within noise but a hundredth of the levels or more: as before
    assert _row_texts(_row(0.0054, 0.0054, -0.000012, -0.000043, 0.000019))[2:] == ("-0.000012", "-0.000043",
                                                                                    "+0.000019")
    assert _row_texts(_row(0.1823, 0.1822, -0.0001, -0.0120, 0.0110))[2:] == ("-0.0001", "-0.0120", "+0.0110")
    # within noise and far below the levels: their 4 significant digits, ends signed by their side
    assert _row_texts(_row(0.0054, 0.0054, 1e-8, -3e-8, 4e-8)) == ("0.005400", "0.005400", "+0.000000",
                                                                   "-0.000000", "+0.000000")
    # levels of 0 give no scale: nothing capped
    assert _row_texts(_row(0.0, 0.0, 1e-7, -2e-7, 3e-7))[2:] == ("+0.00000010", "-0.00000020", "+0.00000030")


def test_the_rule():
    from veracity.comparison._digits import LEVEL_SIGNIFICANT, holds_zero, noise_decimals

    assert LEVEL_SIGNIFICANT == 4
    assert noise_decimals(8, 0.2068, 0.2068) == 4 and noise_decimals(6, 0.0478, 0.0478) == 5
    assert noise_decimals(6, 0.0054, 0.0054) == 6 and noise_decimals(8, 0.0054, 0.0054) == 6
    assert noise_decimals(4, 0.2068) == 4 and noise_decimals(7, 0.0, float("nan")) == 7
    assert holds_zero(-1e-9, 1e-9) and holds_zero(0.0, 0.0) and not holds_zero(1e-9, 2e-9)
    assert not holds_zero(float("nan"), float("nan"))


def test_a_corp_part_that_prints_as_zero_gets_a_note(ties):
    from dataclasses import replace

    d = replace(ties.corp_differences[0], dsc=2e-7, dsc_low=-1.2e-6, dsc_high=3.1e-6)
    r = replace(ties, corp_differences=(d,))
    text = str(r)
    line = next(s for s in text.splitlines() if s.startswith("b - a "))
    assert "DSC [-0.00000, +0.00000]" in line and line.split()[5] == "+0.00000", line
    notes = [s for s in text.splitlines() if s.startswith("note: CORP DSC b - a = ")]
    assert notes == ["note: CORP DSC b - a = +2.0e-07 [-1.2e-06, +3.1e-06]: within noise, and 0 at the 5 "
                     "decimals that show the DSCs to 4 significant digits; to_dict() keeps every digit"], notes
    assert notes[0][len("note: "):] in r._repr_html_()
    assert r.to_dict()["corp_difference"][0]["dsc_low"] == -1.2e-6
