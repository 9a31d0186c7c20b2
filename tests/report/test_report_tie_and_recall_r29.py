"""The report's pages for two session-29 cases: an AUC near-tie in "Which model?" prints as the comparison's
text does (the AUCs at 4 decimals, "[-0.0000, +0.0000]", the note with the numbers), not at 7 decimals; and
a target recall no threshold can be fit for is said beside the threshold explorer and under the operating
curves (it was only in the notes at the foot of the page, and the figure dropped its line silently)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc
from veracity.decisions import min_positives

from ..comparison.conftest import float_near_tie
from .conftest import section, table_rows




@pytest.fixture(scope="module")
def tie_page():
    a, b, y = float_near_tie()
    rep = vc.report(a, y, against={"B": b}, n_resamples=50, figures=False)
    want = vc.compare_models({"scores": a, "B": b}, y, n_resamples=50, random_state=0)
    return section(rep.html, "comparison"), want


def test_the_auc_row_of_a_near_tie_reads_at_four_decimals(tie_page):
    frag, want = tie_page
    r = want.row("auc")
    assert r.diff != 0 and r.ci_low < 0 < r.ci_high  # a near-tie, not an identical ranking
    (row,) = [cells for cells in table_rows(frag, "comparison") if cells[0].startswith("AUC")]
    assert row[1:5] == [f"{r.value_a:.4f}", f"{r.value_b:.4f}", "+0.0000", "[-0.0000, +0.0000]"], row
    assert row[-1] == "within noise"


def test_the_auc_note_is_the_texts(tie_page):
    frag, want = tie_page
    (note,) = re.findall(r'<p class="note" data-note="auc">([^<]*)</p>', frag)
    text_note = next(s for s in str(want).splitlines() if s.startswith("note: auc "))
    assert note.replace("&#x27;", "'") == text_note[len("note: "):]


@pytest.fixture(scope="module")
def few_positives():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.01, 0.5, 400)
    y = (rng.random(400) < p).astype(int)
    assert y.sum() < min_positives(0.995)
    return p, y


def test_a_target_recall_that_cannot_be_fit_is_said_by_the_explorer_and_the_figure(few_positives):
    p, y = few_positives
    page = vc.report(p, y, target_recall=0.995).html  # no warning: the page says it (filterwarnings=error)
    n = int(y.sum())
    explorer = section(page, "explorer-section")
    m = re.search(r'<p class="note" data-note="t_recall_missing">(.*?)</p>', explorer, re.S)
    assert m, "no note beside the explorer"
    said = re.sub(r"<[^>]+>", "", m.group(1))
    assert f"Target recall 0.995: too few positives ({n};" in said and "at least 199" in said, said
    assert 'id="ex-go-recall" disabled' in explorer
    curves = re.sub(r"\s+", " ", " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", section(page, "curves"))))
    assert f"no line for target recall 0.995: too few positives ({n};" in curves, curves[-400:]


def test_a_target_that_fits_has_no_note(few_positives):
    p, y = few_positives
    page = vc.report(p, y, target_recall=0.9, figures=False).html
    assert "t_recall_missing" not in page


@pytest.mark.browser
def test_the_explorer_keys_no_recall_target_t_it_does_not_have(tabs, tmp_path, few_positives):
    """The explorer's chart key listed "recall-target t" beside a chart with no such line."""
    p, y = few_positives
    keys = {}
    page = tabs.page(width=1280, height=900)
    for target in (0.995, 0.9):
        path = tmp_path / f"report_{target}.html"
        vc.report(p, y, target_recall=target, figures=False).save(path)
        page.goto(path.as_uri())
        page.wait_for_selector('#explorer[data-ready="1"]', timeout=10_000)
        keys[target] = page.text_content("#ex-legend")
    assert "recall-target t" in keys[0.9]
    assert "recall-target t" not in keys[0.995] and "lowest cost here" in keys[0.995]
