"""Regenerate docs/screenshots/report_*.png from the bundled demo data (headless Debian chromium).

    .venv/bin/python tests/report/make_report_screenshots.py

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


def main(out_dir: str = "docs/screenshots") -> None:
    from playwright.sync_api import sync_playwright

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "report.html"
        build(page_path)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
            page.goto(page_path.as_uri())
            page.wait_for_selector('#explorer[data-ready="1"]')
            page.screenshot(path=str(out / "report_full.png"), full_page=True)
            page.fill("#ex-slider", "0.35")  # move the slider
            page.locator("#explorer-section").screenshot(path=str(out / "report_explorer.png"))
            browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
