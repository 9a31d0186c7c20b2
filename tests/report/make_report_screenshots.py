"""Regenerate docs/screenshots/report_*.png from the bundled demo data (headless Debian chromium).

    .venv/bin/python tests/report/make_report_screenshots.py            # all of them
    .venv/bin/python tests/report/make_report_screenshots.py docs/screenshots questions   # the two below

report_segments.png and report_comparison.png are the "Where it is miscalibrated" and "Which
model?" sections of docs/report.md's example (the demo model against itself temperature-scaled).

The matplotlib figures and the notebook screenshot come from scripts/make_screenshots.py.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import veracity as vc

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def build(path: Path) -> None:
    from veracity.calibrators import TemperatureScaling

    d = vc.load_demo()
    calib = d["role"] == "calib"
    test = ~calib
    calibrator = TemperatureScaling(score_type="logit").fit(
        d["logit"][calib], d["label"][calib],
        metadata={"model_revision": "credit-risk v3.2 (git 1f0c9ab)", "fit_window": "2026-01..2026-06",
                  "cohort": "all segments, role = calib"})
    t_recall = vc.recall_threshold(calibrator.transform(d["logit"][calib]), d["label"][calib], target=0.95)
    vc.report(d["logit"][test], d["label"][test], score_type="logit", calibrator=calibrator,
              by={"segment": d["segment"][test]}, cost_fp=1.0, cost_fn=9.0,
              recall_threshold=t_recall, source="demo.csv (role = test)",
              details={"model": "credit-risk v3.2"}, out=path)


def build_questions(path: Path) -> None:
    """docs/report.md's example: the frame form with features= and against= on the demo's test rows."""
    import pandas as pd

    from veracity.calibrators import TemperatureScaling

    d = pd.DataFrame(vc.load_demo())
    calib = d["role"] == "calib"
    temperature = TemperatureScaling(score_type="logit").fit(d.loc[calib, "logit"], d.loc[calib, "label"])
    d["p_old"] = d["score"]
    d["p_new"] = temperature.transform(d["logit"])
    test = d[d["role"] == "test"]
    vc.report(test, score="p_old", label="label", features=["segment", "month"], against="p_new", cost_fn=9,
              source="models.csv (role = test)", out=path)


def main(out_dir: str = "docs/screenshots", which: str = "all") -> None:
    from playwright.sync_api import sync_playwright

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
        if which == "all":
            page_path = Path(tmp) / "report.html"
            build(page_path)
            page.goto(page_path.as_uri())
            page.wait_for_selector('#explorer[data-ready="1"]')
            page.screenshot(path=str(out / "report_full.png"), full_page=True)
            page.fill("#ex-slider", "0.35")  # move the slider
            page.locator("#explorer-section").screenshot(path=str(out / "report_explorer.png"))
        questions = Path(tmp) / "questions.html"
        build_questions(questions)
        page.goto(questions.as_uri())
        page.wait_for_selector('#explorer[data-ready="1"]')
        page.locator("#segments").screenshot(path=str(out / "report_segments.png"))
        page.locator("#comparison").screenshot(path=str(out / "report_comparison.png"))
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
