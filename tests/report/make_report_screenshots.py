"""Regenerate docs/screenshots/report_*.png from the bundled demo data (headless Debian chromium).

    .venv/bin/python tests/report/make_report_screenshots.py            # all of them
    .venv/bin/python tests/report/make_report_screenshots.py docs/screenshots questions   # the two below

report_segments.png and report_comparison.png are the "Where it is miscalibrated" and "Which
model?" sections of docs/report.md's example (the demo model against itself temperature-scaled).
monitor_over_time.png (``... docs/screenshots over_time``) is the "Over time" section of docs/monitoring.md's
``veracity report --store m.duckdb --as-of 2026-04-27 --horizon 14d``, on the page's own example data
(its first code block, run here) logged day by day up to 26 April.

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


def build_over_time(tmp: Path, path: Path) -> None:
    """docs/monitoring.md's store as of Monday 27 April (its example's data, every day before it logged)
    and its report."""
    import os
    import re

    from veracity.cli import main as cli

    page = (Path(__file__).resolve().parents[2] / "docs" / "monitoring.md").read_text(encoding="utf-8")
    code = re.search(r"<!-- docs: first[^>]*-->\s*```python\n(.*?)```", page, re.S).group(1)
    here = os.getcwd()
    os.chdir(tmp)
    try:
        exec(compile(code, "monitoring.md", "exec"), {})
        store = "m.duckdb"
        assert cli(["monitor", "init", store]) == 0
        for day in sorted(Path("preds").glob("*.csv")):
            if day.stem >= "2026-04-27":
                break
            assert cli(["monitor", "log", store, str(day), "--id", "id", "--time", "ts", "--score", "score",
                        "--by", "segment"]) == 0
            assert cli(["monitor", "outcomes", store, f"labels/{day.name}", "--id", "id", "--label", "fraud",
                        "--time", "observed"]) == 0
        assert cli(["report", "--store", store, "--as-of", "2026-04-27", "--horizon", "14d",
                    "--out", str(path)]) == 0
    finally:
        os.chdir(here)


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
        if which in ("all", "over_time"):
            over_time = Path(tmp) / "over_time.html"
            build_over_time(Path(tmp), over_time)
            page.goto(over_time.as_uri())
            page.locator("#over-time").screenshot(path=str(out / "monitor_over_time.png"))
            if which == "over_time":
                browser.close()
                return
        questions = Path(tmp) / "questions.html"
        build_questions(questions)
        page.goto(questions.as_uri())
        page.wait_for_selector('#explorer[data-ready="1"]')
        page.locator("#segments").screenshot(path=str(out / "report_segments.png"))
        page.locator("#comparison").screenshot(path=str(out / "report_comparison.png"))
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
