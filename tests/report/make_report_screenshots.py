"""Regenerate docs/screenshots/report_*.png from the bundled demo data (headless Debian chromium).

    .venv/bin/python tests/report/make_report_screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

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
    t_recall = vc.recall_threshold(calibrator.transform(d["logit"][calib]), d["label"][calib], 0.95)
    vc.report(d["logit"][test], d["label"][test], score_type="logit", calibrator=calibrator,
              by=d["segment"][test], by_name="segment", cost_fp=1.0, cost_fn=9.0,
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
    plots(out)


def plots(out: Path) -> None:
    """The matplotlib figures, as PNG."""
    from scipy.special import expit, softmax

    from veracity.calibrators import TemperatureScaling

    d = vc.load_demo()
    calib = d["role"] == "calib"
    test = ~calib
    y = d["label"][test]
    cal = TemperatureScaling(score_type="logit").fit(d["logit"][calib], d["label"][calib])
    vc.plot_reliability(d["logit"][test], y, score_type="logit").savefig(out / "plot_reliability.png")
    vc.plot_reliability_overlay(
        {"before": expit(d["logit"][test]), "after (temperature)": cal.transform(d["logit"][test])}, y,
    ).savefig(out / "plot_before_after.png")
    p = cal.transform(d["logit"][test])
    vc.plot_thresholds(p, y, cost_fp=1, cost_fn=9,
                       recall_threshold=vc.recall_threshold(cal.transform(d["logit"][calib]),
                                                            d["label"][calib], 0.95),
                       target_recall=0.95).savefig(out / "plot_thresholds.png")
    vc.plot_risk_coverage(p, y).savefig(out / "plot_risk_coverage.png")
    rng = np.random.default_rng(0)
    z = rng.normal(size=(3000, 4)) * 2
    k = rng.integers(0, 4, 3000)
    z[np.arange(3000), k] += 2
    vc.plot_multiclass_reliability(softmax(z, axis=1), k, class_names=["cat", "dog", "fox", "owl"]
                                   ).savefig(out / "plot_multiclass.png")


if __name__ == "__main__":
    main(*sys.argv[1:])
