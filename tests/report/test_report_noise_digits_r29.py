"""The report's "Which model?" section on a near-tie (session 29): a difference within noise prints no finer
than its levels' 4 significant digits, as the comparison's text does — B = A rounded to 4 decimals printed
the Brier and log-loss rows at 8 decimals ("0.14706859 ... -0.00000003"), and a ranking alike but for float
ties a CORP line and verdict "DSC +0.000000 [-0.000001, +0.000015]" — with the text's notes, and the page's
cells the text printout's (two renderers of one result)."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest

import veracity as vc

from ..comparison.conftest import float_near_tie
from .conftest import section, table_rows


def places(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def cap(*levels: float) -> int:
    """The decimals that show the levels' largest magnitude to 4 significant digits (at least 4)."""
    return max(4, 3 - math.floor(math.log10(max(abs(v) for v in levels))))


@pytest.fixture(scope="module")
def rounded():
    """A at a base rate of about 30 %, B = A rounded to 4 decimals."""
    rng = np.random.default_rng(5)
    n = 20_000
    x = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-(-0.85 + x))))
    a = 1 / (1 + np.exp(-(-0.85 + x + 0.5 * rng.normal(size=n))))
    b = np.round(a, 4)
    rep = vc.report(a, y, against={"B": b}, n_resamples=50, figures=False)
    want = vc.compare_models({"scores": a, "B": b}, y, n_resamples=50, random_state=0)
    return section(rep.html, "comparison"), want


@pytest.fixture(scope="module")
def ties():
    """A's scores rounded to 5 decimals (tied), B = A^1.2 + N(0, 1e-9): one ranking but for the ties."""
    a, b, y = float_near_tie()
    rep = vc.report(a, y, against={"B": b}, n_resamples=50, figures=False)
    want = vc.compare_models({"scores": a, "B": b}, y, n_resamples=50, random_state=0)
    return section(rep.html, "comparison"), want


def test_the_near_tie_rows_read_at_four_decimals(rounded):
    frag, want = rounded
    rows = {cells[0].split(" (")[0]: cells for cells in table_rows(frag, "comparison")}
    for name, metric in (("Brier", "brier"), ("log loss", "log_loss")):
        r = want.row(metric)
        assert r.ci_low < 0 < r.ci_high and max(abs(r.ci_low), abs(r.ci_high)) < 1e-5
        assert cap(r.value_a, r.value_b) == 4
        row = rows[name]
        assert row[1:5] == [f"{r.value_a:.4f}", f"{r.value_b:.4f}", "+0.0000", "[-0.0000, +0.0000]"], row
        assert row[-1] == "within noise"


def test_the_notes_are_the_texts(rounded):
    frag, want = rounded
    text_notes = {m: s[len("note: "):] for s in str(want).splitlines() for m in ("brier", "log_loss")
                  if s.startswith(f"note: {m} B - scores = ")}
    assert set(text_notes) == {"brier", "log_loss"}, str(want)
    for metric, text in text_notes.items():
        (note,) = re.findall(rf'<p class="note" data-note="{metric}">([^<]*)</p>', frag)
        assert html.unescape(note) == text


def test_the_verdict_quotes_the_table(rounded):
    frag, want = rounded
    verdict = html.unescape(re.search(r'<p class="verdict"[^>]*>([^<]*)</p>', frag).group(1))
    assert verdict == want.verdict
    assert "Brier +0.0000 [-0.0000, +0.0000]," in verdict and not re.search(r"\d\.\d{6}", verdict), verdict


def test_a_corp_part_within_noise_reads_at_its_levels_digits(ties):
    frag, want = ties
    d = want.corp_differences[0]
    assert d.dsc_low < 0 < d.dsc_high and max(abs(d.dsc_low), abs(d.dsc_high)) < 1e-4
    k = cap(want.corp["scores"].brier.dsc, want.corp["B"].brier.dsc)
    corp = table_rows(frag, "corp")
    for got in corp[:2]:  # each model's DSC at its column's decimals (was 6: "0.047832")
        assert places(got[3]) == k, got
    diff = corp[2]
    dsc_ci = re.search(r"DSC \[([+-][\d.]+), ([+-][\d.]+)\]", diff[5]).groups()
    assert {places(t) for t in (diff[3], *dsc_ci)} == {k}, diff
    # the page's cells are the text printout's, and the verdict quotes them
    line = next(ln for ln in str(want).splitlines() if ln.startswith("B - scores"))
    assert line.split()[3:7] == diff[1:5]
    verdict = html.unescape(re.search(r'<p class="verdict"[^>]*>([^<]*)</p>', frag).group(1))
    assert f"DSC {diff[3]} [{dsc_ci[0]}, {dsc_ci[1]}] for B - scores" in verdict, verdict
