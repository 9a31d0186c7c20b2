"""The report's "Which model?" section at rare events (r28): its numbers follow the comparison's
significant-digits rule (:mod:`veracity.comparison._digits`), as the text printout does — at a 0.5 % base
rate the Brier row read "0.0054  0.0054  +0.0000  [+0.0000, +0.0000]  B better" and the CORP difference
row "+0.0000 +0.0000 +0.0000" — and a weighted comparison says so, with its Kish effective size."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import veracity as vc

from .conftest import section, table_rows

N = 20_000


def places(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def numbers(text: str) -> list[str]:
    return re.findall(r"[+-]?\d+\.\d+", text)


@pytest.fixture(scope="module")
def rare():
    """Two models at a base rate of about 0.5 %: B the true risk, A a noisier ranking."""
    rng = np.random.default_rng(28)
    x = rng.normal(size=N)
    p_b = 1.0 / (1.0 + np.exp(5.6 - 0.9 * x))
    p_a = 1.0 / (1.0 + np.exp(5.45 - 0.8 * (x + 0.7 * rng.normal(size=N))))
    y = (rng.uniform(size=N) < p_b).astype(int)
    w = rng.uniform(0.5, 2.0, N)
    return p_a, p_b, y, w


@pytest.fixture(scope="module")
def page(rare):
    p_a, p_b, y, _ = rare
    rep = vc.report(p_a, y, against={"B": p_b}, n_resamples=60, figures=False)
    want = vc.compare_models({"scores": p_a, "B": p_b}, y, n_resamples=60, random_state=0)
    return section(rep.html, "comparison"), want


def _shows(text: str, value: float) -> None:
    """``text`` is ``value`` rounded at its decimals, and has two significant digits at least."""
    d = places(text)
    assert abs(float(text) - value) <= 0.5 * 10.0 ** -d + 1e-15, (text, value)


def test_the_comparison_table_shows_rare_differences_to_two_significant_digits(page):
    frag, want = page
    rows = table_rows(frag, "comparison")
    for got, r in zip(rows, want.rows):
        level_a, level_b, diff = got[1], got[2], got[3]
        low, high = numbers(got[4])
        # a row's numbers share its decimals (as the text table prints them)
        assert len({places(t) for t in (level_a, level_b, diff, low, high)}) == 1, got
        for text, value in zip((level_a, level_b, diff, low, high),
                               (r.value_a, r.value_b, r.diff, r.ci_low, r.ci_high)):
            _shows(text, value)
        # the difference and its interval (one group) show its largest magnitude to 2 significant digits
        top = max(abs(r.diff), abs(r.ci_low), abs(r.ci_high))
        assert top * 10.0 ** places(diff) >= 10.0 - 1e-9 or places(diff) == 8, (r.metric, got)
    brier = rows[0]
    assert want.row("brier").ci_high < 0 and brier[7] == "B better"
    assert brier[3] != "+0.0000" and "+0.0000" not in brier[4], brier  # the old page: a zero that was better


def test_the_corp_rows_read_as_the_text_prints_them(page):
    frag, want = page
    corp = table_rows(frag, "corp")
    d = want.corp_differences[0]
    diff = corp[2]
    brier = want.row("brier")
    groups = ((brier.diff, brier.ci_low, brier.ci_high), (d.mcb, d.mcb_low, d.mcb_high),
              (d.dsc, d.dsc_low, d.dsc_high))
    for text, value, group in zip(diff[1:4], (d.score, d.mcb, d.dsc), groups):
        _shows(text, value)
        # at the decimals of its difference with its interval: 2 significant digits of the largest
        assert max(map(abs, group)) * 10.0 ** places(text) >= 10.0 - 1e-9, (text, group)
    mcb_low, mcb_high, dsc_low, dsc_high = map(float, numbers(diff[5]))
    assert [mcb_low, mcb_high, dsc_low, dsc_high] == pytest.approx([d.mcb_low, d.mcb_high, d.dsc_low, d.dsc_high],
                                                                   abs=0.5 * 10.0 ** -places(diff[2]))
    # each model's MCB at its column's decimals: 0.000013, not "0.0000"
    for got, c in zip(corp[:2], want.corp.values()):
        _shows(got[2], c.brier.mcb)
        assert float(got[2]) != 0.0
    # the two printings agree: the page's cells are the text printout's (two renderers of one result)
    text = str(want)
    line = next(ln for ln in text.splitlines() if ln.startswith("B - scores"))
    assert line.split()[3:7] == diff[1:5]


def test_the_report_says_a_weighted_comparison_is_weighted(rare):
    p_a, p_b, y, w = rare
    kish = w.sum() ** 2 / np.dot(w, w)
    rep = vc.report(p_a, y, against={"B": p_b}, sample_weight=w, bootstrap=False, figures=False)
    assert math.isclose(kish, 18_000, rel_tol=0.05)
    assert f"Both models on the same {N:,} rows, weighted (Kish effective size {kish:,.1f}), so every" in \
        section(rep.html, "comparison")
    plain = vc.report(p_a, y, against={"B": p_b}, bootstrap=False, figures=False)
    assert f"Both models on the same {N:,} rows, so every difference is paired" in section(plain.html, "comparison")


def test_the_cli_report_prints_rare_differences(rare, tmp_path):
    from veracity.cli import main

    p_a, p_b, y, _ = rare
    data = tmp_path / "rare.csv"
    data.write_text("A,B,y\n" + "".join(f"{a:.17g},{b:.17g},{int(t)}\n" for a, b, t in zip(p_a, p_b, y)))
    out = tmp_path / "r.html"
    assert main(["report", str(data), "--score", "A", "--against", "B", "--label", "y", "--n-resamples", "60",
                 "--out", str(out), "-q"]) == 0
    brier = table_rows(section(out.read_text(encoding="utf-8"), "comparison"), "comparison")[0]
    assert places(brier[3]) >= 6 and float(brier[3]) < 0 and brier[7] == "B better", brier
