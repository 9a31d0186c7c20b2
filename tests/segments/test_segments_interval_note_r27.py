"""A discovery whose interval of the gap includes 0 is marked and explained wherever it is read (session 27).

On the demo data ``segment=web`` is a discovery (p 0.011) whose interval is [-0.030, +0.000]: the
test weighs the gap against the spread calibration gives these scores, sum w^2 p(1 - p), the
interval (Wilson on the observed rate) allows for any true probabilities and is wider. Before, the
table printed both with no word, which a reader takes for a contradiction.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.datasets import demo_path


def _marked(row) -> bool:
    """The rule the footnote states, from the row's own numbers."""
    return row.discovery and row.ci_low <= 0.0 <= row.ci_high


def _line_of(text: str, segment: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(segment + " "))


@pytest.fixture(scope="module")
def demo():
    return vc.segments(pd.read_csv(demo_path()), score="score", label="label", features=["segment", "month"])


def test_demo_discovery_across_zero_is_starred_and_footnoted(demo):
    text = str(demo)
    across = [r for r in demo.discoveries if _marked(r)]
    assert across and "segment=web" in [r.segment for r in across]  # the case the page quotes
    for r in demo.discoveries:
        line = _line_of(text, r.segment)
        ci = f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]"
        assert (ci + "*" in line) == _marked(r), line
        assert ci + "**" not in line  # none of them is a contradicted score of 0 or 1
    notes = [line for line in text.splitlines() if line.startswith("(* ")]
    assert len(notes) == 1
    assert "interval includes 0" in notes[0] and "sum w^2 p(1 - p)" in notes[0] and "Wilson" in notes[0]
    # the footnote sits under the table, before the count of discoveries
    lines = text.splitlines()
    assert lines.index(notes[0]) < next(i for i, line in enumerate(lines) if "miscalibrated segment" in line)


def test_no_footnote_when_every_discovery_excludes_zero():
    rng = np.random.default_rng(3)
    n = 20_000
    p = rng.uniform(0.1, 0.9, n)
    g = rng.choice(["a", "b", "c", "d"], n)
    y = (rng.uniform(size=n) < np.where(g == "a", p + 0.08, p).clip(0, 1)).astype(int)
    res = vc.segments(p, y, features={"g": g}, depth=1)
    assert res.discoveries and not any(_marked(r) for r in res.rows)
    assert "*" not in str(res)


def test_row_text_and_cli_all_carry_the_note(demo, cli, tmp_path):
    web = demo.segment("segment=web")
    assert "*" in _line_of(str(web), "segment=web") and "(* a discovery whose interval includes 0" in str(web)
    out = cli(["segments", demo_path(), "--score", "score", "--label", "label", "--features", "segment,month",
               "--all"])
    assert out.code == 0
    assert "]*" in _line_of(out.out, "segment=web")
    assert sum(line.startswith("(* ") for line in out.out.splitlines()) == 1
    # a non-discovery whose interval includes 0 is not marked: the q column already says why
    plain = [r for r in demo.rows if not r.discovery and r.sufficient and r.ci_low <= 0 <= r.ci_high]
    assert plain and all("]*" not in _line_of(out.out, r.segment) for r in plain)


def test_certain_discovery_prints_p_zero_and_its_own_note():
    rng = np.random.default_rng(0)
    n = 4_000
    p = rng.uniform(0.05, 0.95, n)
    g = rng.choice(["a", "b", "c"], n)
    y = (rng.uniform(size=n) < p).astype(int)
    p[:3], y[:3], g[:3] = 0.0, 1, "a"  # three scores of exactly 0 with label 1: impossible under calibration
    res = vc.segments(p, y, features={"g": g}, depth=1)
    row = res.segment("g=a")
    assert row.test == "certain" and row.p_value == 0.0 and row.discovery
    assert row.ci_low <= 0.0 <= row.ci_high  # its gap alone says nothing
    line = _line_of(str(res), "g=a")
    assert "]**" in line
    cells = re.split(r"\s{2,}", line.split("]**")[1].strip())
    assert cells[:2] == ["0", "0"]  # p and q are exactly 0, not an underflowed "<1e-300"
    assert any(s.startswith("(** ") and "cannot happen under calibration" in s for s in str(res).splitlines())
    # and a note says how many rows make every segment holding one a discovery
    assert any(note.startswith("(3 rows score exactly 0 or 1 against their label") and "p = 0" in note
               for note in res.notes)


def test_notebook_shows_p_q_and_the_note(demo):
    html = demo._repr_html_()
    head = html.split("<details>")[0]  # the table shown before "all N columns"
    assert "<th>p_value</th>" in head and "<th>q_value</th>" in head
    notes = re.findall(r'<div class="vc-note">([^<]*)</div>', html)
    marked = [r.segment for r in demo.rows if _marked(r)]
    assert len(notes) == 1 and notes[0].startswith(", ".join(marked) + ": a discovery whose interval includes 0")
    web = demo.segment("segment=web")
    assert f"{web.gap:+.4f}" in head  # gaps signed as the text prints them


def test_cli_all_keeps_the_header_and_the_count_of_discoveries(demo, cli):
    # before: --all printed the bare table and the MCE line, without the FDR, the family or what was tested
    out = cli(["segments", demo_path(), "--score", "score", "--label", "label", "--features", "segment,month",
               "--all"])
    assert out.code == 0
    lines = out.out.splitlines()
    assert lines[0] == str(demo).splitlines()[0]  # "Segments of segment, month (depth 2): ... FDR 0.05 (...)"
    shown = [line.split("  ")[0] for line in lines[2:2 + len(demo.rows)]]
    assert shown == [r.segment for r in demo.rows]  # every segment, in the result's order
    n = len(demo.discoveries)
    assert f"({n} miscalibrated segments, most important first; then the others by p-value)" in lines
    assert lines[-1 - len(demo.notes)].startswith("multicalibration error (MCGrad's definition)")


def test_header_quotes_a_feature_name_with_a_comma():
    rng = np.random.default_rng(2)
    n = 2_000
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < p).astype(int)
    res = vc.segments(p, y, features={"region, x": rng.choice(["EU", "US"], n), "age": rng.integers(18, 80, n)})
    assert str(res).startswith('Segments of "region, x", age (depth 2)')  # before: "region, x, age": 3 names?


def test_no_discovery_says_which_gaps_the_sizes_could_detect():
    # "no segment is distinguishable" alone reads as a clean bill; it may be "not enough rows"
    rng = np.random.default_rng(0)
    n = 3_000
    p = rng.uniform(0.0, 1.0, n)
    y = (rng.uniform(size=n) < p).astype(int)
    res = vc.segments(p, y, features={"g": rng.choice(list("abc"), n), "x": rng.normal(size=n)})
    assert not res.discoveries and res.n_tested > 0
    mdg = [r.min_detectable_gap for r in res.rows if r.p_value is not None]
    line = next(line for line in str(res).splitlines() if line.startswith("no segment is distinguishable"))
    assert "not proof of calibration" in line
    assert f"from {min(mdg):.4f} to {max(mdg):.4f}" in line
