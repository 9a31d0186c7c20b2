"""What a notebook user reads (round 22): the notebooks' prose against their own outputs, and the
rich reprs of the notebook flow of docs/notebook.md on the bundled demo data.

The notebooks run once per test run with nbclient (the ``notebook`` fixture of tests/docs/conftest.py). The
Each test names the defect a notebook reader saw (fixed in session 22).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc

# its tests share expensive module fixtures: one worker builds them once (tests/conftest.py)
pytestmark = pytest.mark.xdist_group(__name__)

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pd = pytest.importorskip("pandas")

from .conftest import cells_and_prose, result_data as _data  # noqa: E402


def _outside_text(html: str) -> str:
    """The HTML a reader sees without opening the closed 'as text' block (and without the CSS)."""
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    return re.sub(r"<details><summary>as text</summary>.*?</details>", "", html, flags=re.S)


@pytest.fixture(scope="module")
def comparison(notebook):
    return cells_and_prose(notebook("comparison"))


@pytest.fixture(scope="module")
def monitoring(notebook):
    return cells_and_prose(notebook("monitoring"))


@pytest.fixture(scope="module")
def demo():
    d = pd.DataFrame(vc.load_demo())
    return d[d["role"] == "calib"], d[d["role"] == "test"].copy()


# -- the notebooks' prose against their outputs ----------------------------------------------------
def test_comparison_prose_counts_the_thin_and_empty_bins(comparison):
    """The prose said 'the eight bins between hold one to three rows each': one of the eight is empty."""
    cells, prose = comparison
    text = _data(cells[1])["text/plain"]
    rows = [ln.split() for ln in text.splitlines() if ln.startswith("[")]
    thin = [r for r in rows if r[-1] == "insufficient"]
    assert len(thin) == 7 and all(1 <= int(r[1]) <= 3 for r in thin)
    assert "no rows in [0.6,0.7) (1 empty bin omitted)" in text
    md = next(p for p in prose if p.startswith("## The gradient-boosted"))
    assert "seven hold one to three rows" in md and "[0.6, 0.7), is empty" in md


def test_comparison_ece_numbers_read_on_the_audits_bins(comparison):
    """Three ECEs of the same scores on the same rows (audit 0.0421 on 10 bins, the ledger's 0.0393 on
    its default 15, compare_models' debiased 0.0337 on 15) read as a contradiction: the notebook now
    passes bins=10, so the ledger's 'before' is the audit's ECE and the debiased one lies below it."""
    cells, prose = comparison
    audit_ece = float(re.search(r"ECE (\d\.\d{4})", _data(cells[1])["text/plain"])[1])
    assert audit_ece == 0.0421
    ledger = _data(cells[4])["text/plain"]
    assert "ECE with 10 equal-width bins" in ledger
    before = next(ln.split() for ln in ledger.splitlines() if ln.startswith("ECE "))
    assert float(before[1]) == audit_ece and float(before[3]) > 0  # 'ECE slightly up'
    comp = _data(cells[3])["text/plain"]
    row = next(ln.split() for ln in comp.splitlines() if ln.startswith("ece_debiased"))
    assert float(row[2]) < audit_ece
    md = " ".join(prose)
    assert f"hgb's {row[2]} is below the audit's {audit_ece}" in md
    assert f"*before* is the audit's {audit_ece}" in md
    # the prose's DSC and AUC claims: DSC interval clear of 0, AUC's not, p = 0.09
    auc = next(ln.split() for ln in comp.splitlines() if ln.startswith("auc"))
    # (the p-value read 0.0917 on DeLong's normal law, 0.0940 on Student's t since session 23: the prose's
    # two digits follow whichever the table prints)
    p_auc = float(auc[6])
    assert 0.05 < p_auc and f"p = {p_auc:.2f}" in md


def test_monitoring_prose_reads_the_bin_table(monitoring):
    cells, prose = monitoring
    text = _data(cells[1])["text/plain"]
    part = text.split("per score bin, 2026-W11")[1]
    rows = [ln for ln in part.splitlines() if ln.startswith("[")]
    # columns: scores, rows, conf, labelled, ... (a bin's label holds a space: split at 2+ spaces)
    assert len(rows) == 15 and all(re.split(r"\s{2,}", ln)[3] == "0" for ln in rows)  # no W11 row has a label
    with_ppi = [ln for ln in rows if "too few" not in ln]
    assert len(with_ppi) == 1 and with_ppi[0].startswith("[0, ")  # only the lowest bin has 30 audit labels
    assert "final labels so far" in part
    md = next(p for p in prose if p.startswith("## Status per week"))
    assert "only the lowest bin has" in md and "final labels so far" in md


# -- library defects a notebook user reads (fix in src/veracity, see each reason) --------------------
def test_segments_mce_p_value_is_not_a_cancellation_zero(demo):
    from veracity.segments._mce import pvalue_from_sigma

    _, test = demo
    r = vc.segments(test, score="score", label="label", features=["segment", "month"])
    assert 8 < r.mce_sigma < 20
    # the tail of the range of Brownian motion is at least P(max B > x) = 2 (1 - Phi(x)) > 1e-30 at 10.8
    assert "<1e-300" not in str(r)
    assert pvalue_from_sigma(np.array([r.mce_sigma]))[0] > 0
    sig = np.linspace(8.0, 25.0, 200)
    assert np.all(np.diff(pvalue_from_sigma(sig)) <= 0)  # a p-value never rises with the statistic


def test_compare_models_verdict_does_not_contradict_its_auc_row(demo):
    _, test = demo
    rng = np.random.default_rng(0)
    test["other"] = np.clip(test["score"] + rng.normal(0, 0.05, len(test)), 0.001, 0.999)
    text = str(vc.compare_models(test, scores=["score", "other"], label="label", random_state=0))
    auc = next(ln for ln in text.splitlines() if ln.startswith("auc"))
    lo, hi = (float(v) for v in re.search(r"\[([-+.\d]+), ([-+.\d]+)\]", auc).groups())
    assert hi < 0  # the AUC says 'score' ranks better, beyond noise
    verdict = next(ln for ln in text.splitlines() if ln.startswith("Verdict"))
    assert "neither its ranking" not in verdict


def test_compare_models_says_the_bins_of_its_ece(demo):
    _, test = demo
    test = test.assign(other=np.clip(test["score"] * 0.9, 0.001, 0.999))
    res = vc.compare_models(test, scores=["score", "other"], label="label", bins=10, random_state=0)
    assert "10 equal-width bins" in str(res).splitlines()[0]


def test_ppi_audit_html_does_not_call_miscalibrated_scores_calibrated(demo):
    _, test = demo
    lab = test.sample(200, random_state=0)
    unl = test.drop(lab.index)
    res = vc.ppi_audit(lab["label"], lab["score"], unl["score"])
    top = res.row("rate in [0.9, 1]")
    assert top["conf"] - top["estimate"] > 0.15  # far from calibrated where the scores are high
    assert "<b>calibrated</b>yes" not in _outside_text(res._repr_html_())


def test_label_plan_html_keeps_its_caveat():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, 2000)
    html = _outside_text(vc.label_plan(p, width=0.05, by=np.repeat(["a", "b"], 1000))._repr_html_())
    assert "assumes calibrated scores" in html and "labels (PPI)" in html


def test_status_html_says_where_the_bin_bounds_come_from(monitoring):
    cells, _ = monitoring
    html = _outside_text(_data(cells[1])["text/html"])
    section = html.split("Per score bin")[1]
    assert "so far" in section


def test_status_ppi_confusion_adds_up(monitoring):
    cells, _ = monitoring
    text = _data(cells[1])["text/plain"]
    for ln in text.splitlines():
        m = re.search(r"TP ([\d.]+), FP ([\d.]+), FN ([\d.]+), TN ([\d.]+), cost ([\d.]+)", ln)
        if m:
            tp, fp, fn, tn, cost = (float(v) for v in m.groups())
            assert abs(tp + fp + fn + tn - 1) <= 0.0003, ln
            assert abs(fp + fn - cost) <= 0.0002, ln


def test_audit_names_an_empty_bin_by_its_range():
    p = np.r_[np.linspace(0.01, 0.59, 40), np.linspace(0.71, 0.99, 40)]
    y = (np.arange(80) % 3 == 0).astype(int)
    res = vc.audit(p, y, bins=10)
    assert "[0.6,0.7)" in str(res) and "[6]" not in str(res)


def test_status_html_says_the_level_of_its_intervals(monitoring):
    cells, _ = monitoring
    html = _outside_text(_data(cells[1])["text/html"])
    weekly = html.split("Per score bin")[0]
    assert "95%" in weekly and "against 2026-W02" in weekly
