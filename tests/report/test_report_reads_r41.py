"""Round 41: what a reader of the page is told, where the page said less than the printout or showed escapes.

* "Which model?": a debiased-ECE difference that is not 0 with p = 1 ("1.000" in the table) is explained, as
  ``print(vc.compare_models(...))`` explains it; the page showed the bare 1.000, which reads as "identical".
* "Where it is miscalibrated" with no segment tested (all under min_count) said "no segment miscalibrated at
  FDR 0.05 (0 of 0 tested)" and "No segment is distinguishable from calibrated": a clean bill from no test.
* ``pos_label``/``--pos-label``: "About this report" names the positive class the page's rates are of.
* The calibrator's metadata grid and its JSON dump show text as written: a shortened list of isotonic knots
  ended in ``"\\u2026 20 more"`` and a non-ASCII cohort read ``Z\\u00fcrich``.
"""

from __future__ import annotations

import html
import re

import numpy as np

import veracity as vc

from .conftest import section


def _models(n: int = 2000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two close, calibrated models: their debiased ECEs differ by less than the bias they may carry."""
    rng = np.random.default_rng(0)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(int)
    q = np.clip(p + rng.normal(0, 0.03, n), 0.001, 0.999)
    return p, q, y


def test_ece_p_one_is_explained_on_the_page() -> None:
    p, q, y = _models()
    cmp = vc.compare_models({"p": p, "q": q}, y, random_state=0, n_resamples=200)
    (ece,) = [r for r in cmp.rows if r.metric == "ece"]
    assert ece.p_value == 1.0 and ece.diff != 0.0  # the case: the text prints its note
    assert "ece_debiased p = 1: the difference is within the bias" in str(cmp)
    page = vc.report({"p": p, "q": q}["p"], y, against=q, n_resamples=200, figures=False).html
    part = html.unescape(section(page, "comparison"))
    assert "1.000" in part
    assert ("ECE (debiased) p = 1: the difference is within the bias the debiased ECEs may still carry, "
            "which the bias-aware interval keeps at every level (no evidence either way)." in part)


def test_ece_p_below_one_has_no_such_note() -> None:
    rng = np.random.default_rng(1)
    p = rng.uniform(0.02, 0.98, 3000)
    y = (rng.random(3000) < p).astype(int)
    worse = np.clip(p * 0.6 + 0.3, 0, 1)  # far off the diagonal: its debiased ECE is clearly larger
    page = vc.report(p, y, against=worse, n_resamples=200, figures=False).html
    assert "p = 1" not in html.unescape(section(page, "comparison"))


def test_calibrator_metadata_is_not_escaped_json() -> None:
    rng = np.random.default_rng(2)
    s = rng.uniform(0, 1, 4000)
    y = (rng.random(4000) < s**2).astype(int)
    cal = vc.IsotonicCalibration().fit(s[:2000], y[:2000],
                                      metadata={"cohort": ["Zürich", "Genève"], "fit_window": "2026-01..06"})
    page = html.unescape(vc.report(s[2000:], y[2000:], calibrator=cal, bootstrap=False, figures=False).html)
    part = section(page, "calibration")
    assert "\\u" not in part  # no JSON escape shown as text, in the grid or the dump
    assert '["Zürich", "Genève"]' in part
    assert "more\"]" in part and "… " in part  # the shortened knots end in "… N more"
    # the certificates count ties on the rows shown; "fitted ties_created_" above them is the fit rows'
    assert "Certificates are checked on the rows shown, not on the rows the calibrator was fit on." in part


def _tiny_segments() -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """30 rows over three levels: every segment is under vc.segments' min_count (50), so none is tested."""
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 30)
    y = (rng.random(30) < p).astype(int)
    return p, y, {"region": np.array(["north", "south", "east"] * 10)}


def test_no_segment_tested_is_not_a_clean_bill() -> None:
    p, y, features = _tiny_segments()
    seg = vc.segments(p, y, features=features)
    assert seg.n_tested == 0 and seg.n_segments >= 1
    rep = vc.report(p, y, features=features, bootstrap=False)
    line = rep.summary["segments"]
    # it read "no segment miscalibrated at FDR 0.05 (0 of 0 tested)"
    assert "miscalibrated" not in line
    assert line.startswith("no segment was tested: no segment holds min_count = 50 rows")
    part = html.unescape(section(rep.html, "segments"))
    assert "No segment was tested" in part and "distinguishable from calibrated" not in part
    assert "of 1 segment (n ≥ 50)" in part  # the tested card's count read "of 1 segments"
    assert "none tested: each under min_count = 50 rows" in part  # the figure's title


def test_segments_plot_says_none_tested() -> None:
    p, y, features = _tiny_segments()
    fig = vc.segments(p, y, features=features).plot()
    title = fig.axes[0].get_title(loc="left")
    assert "none tested: each segment drawn has under min_count = 50 rows" in title


def test_positive_class_named() -> None:
    import pandas as pd

    rng = np.random.default_rng(4)
    p = rng.uniform(0, 1, 300)
    y = np.where(rng.random(300) < p, "fraud", "ok")
    frame = pd.DataFrame({"p": p, "outcome": y})
    about = section(vc.report(frame, score="p", label="outcome", pos_label="fraud", bootstrap=False,
                              figures=False).html, "about")
    assert "positive class</td><td" in about and "outcome = fraud" in about
    about = section(vc.report(p, y, pos_label="fraud", bootstrap=False, figures=False).html, "about")
    assert "positive class" in about and ">fraud<" in about
    assert "positive class" not in section(vc.report(p, (y == "fraud").astype(int), bootstrap=False,
                                                     figures=False).html, "about")


def test_positive_class_named_by_the_cli(tmp_path) -> None:
    from veracity.cli import main

    rng = np.random.default_rng(5)
    p = rng.uniform(0, 1, 300)
    rows = "\n".join(f"{a:.6f},{'fraud' if b else 'ok'}" for a, b in zip(p, rng.random(300) < p))
    (tmp_path / "d.csv").write_text("score,outcome\n" + rows + "\n")
    out = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "d.csv"), "--label", "outcome", "--pos-label", "fraud", "--quiet",
                 "--no-bootstrap", "--out", str(out)]) == 0
    assert "outcome = fraud" in section(out.read_text(encoding="utf-8"), "about")


def test_unset_calibrator_parameter_reads_none() -> None:
    from veracity.calibrators import TemperatureScaling

    rng = np.random.default_rng(6)
    z = rng.normal(size=600) * 3
    y = (rng.random(600) < 1 / (1 + np.exp(-z / 2))).astype(int)
    cal = TemperatureScaling(score_type="logit").fit(z[:300], y[:300])
    assert cal.to_dict()["params"]["bounds"] is None  # the case: an unset parameter
    part = section(vc.report(z[300:], y[300:], score_type="logit", calibrator=cal, bootstrap=False,
                             figures=False).html, "calibration")
    # it read "param bounds — not recorded", as if provenance were missing
    assert re.search(r'param bounds</div><div class="kv-value"><span class="muted">none</span>', part)
