"""Regenerate the figures and the notebook screenshot in docs/screenshots/ from the current code.

    .venv/bin/python scripts/make_screenshots.py [OUT_DIR]

* notebook_audit.png — ``vc.audit(...)._repr_html_()`` of the demo's test rows, as a notebook
  cell shows it, rendered by headless Chromium (``chromium --headless --screenshot``; Debian's
  /usr/bin/chromium or $VERACITY_CHROMIUM);
* reliability_naive_bayes.png — Gaussian naive Bayes on scikit-learn's breast-cancer data
  (held-out half): mass at 0 and 1, many empty and thin bins — the line is broken at empty
  bins, thin bins hollow, the legend outside the data;
* plot_reliability.png, plot_before_after.png, plot_thresholds.png, plot_risk_coverage.png,
  plot_multiclass.png — the figures of docs/report.md on the bundled demo data (temperature
  scaling fit on the calib rows, drawn on the test rows) and a 4-class softmax model.

The HTML report's screenshots (report_*.png) come from tests/report/make_report_screenshots.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import veracity as vc

CHROMIUM = os.environ.get("VERACITY_CHROMIUM", "/usr/bin/chromium")
DPI = 110


def naive_bayes(out: Path) -> None:
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    p = GaussianNB().fit(Xtr, ytr).predict_proba(Xte)[:, 1]
    fig = vc.plot_reliability(vc.audit(p, yte, bins=15), title="Gaussian naive Bayes, breast cancer (held-out half)")
    fig.savefig(out / "reliability_naive_bayes.png", dpi=DPI)


def notebook_audit(out: Path) -> None:
    d = vc.load_demo()
    test = d["role"] == "test"
    result = vc.audit(d["score"][test], d["label"][test], bins=10, min_count=150)
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><style>body{margin:16px;background:#fff}"
        ".cell{border-left:3px solid #1f5fa8;padding:4px 10px;font:12px monospace;color:#52606d}</style></head>"
        "<body><div class='cell'>In [3]: vc.audit(p, y, bins=10, min_count=150)</div>"
        f"<div style='padding:8px 13px'>{result._repr_html_()}</div></body></html>"
    )
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "cell.html"
        html.write_text(page, encoding="utf-8")
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--no-first-run", "--disable-background-networking", "--window-size=900,560",
                        f"--screenshot={out / 'notebook_audit.png'}", html.as_uri()],
                       check=True, capture_output=True, timeout=120)


def plots(out: Path) -> None:
    """The matplotlib figures of docs/report.md."""
    from scipy.special import softmax

    d = vc.load_demo()
    calib, test = d["role"] == "calib", d["role"] == "test"
    y = d["label"][test]
    cal = vc.TemperatureScaling(score_type="logit").fit(d["logit"][calib], d["label"][calib], role="calib")
    raw = d["logit"][test]
    p = cal.transform(raw)
    vc.plot_reliability(raw, y, score_type="logit").savefig(out / "plot_reliability.png", dpi=DPI)
    vc.plot_reliability_overlay({"before": raw, "after (temperature)": p}, y,
                                score_type={"before": "logit", "after (temperature)": "probability"}
                                ).savefig(out / "plot_before_after.png", dpi=DPI)
    t_recall = vc.recall_threshold(cal.transform(d["logit"][calib]), d["label"][calib], target=0.95)
    vc.plot_thresholds(p, y, cost_fp=1, cost_fn=9, recall_threshold=t_recall, target_recall=0.95
                       ).savefig(out / "plot_thresholds.png", dpi=DPI)
    vc.plot_risk_coverage(p, y).savefig(out / "plot_risk_coverage.png", dpi=DPI)
    rng = np.random.default_rng(0)
    z = rng.normal(size=(3000, 4)) * 2
    k = rng.integers(0, 4, 3000)
    z[np.arange(3000), k] += 2
    vc.plot_multiclass_reliability(softmax(z, axis=1), k, class_names=["cat", "dog", "fox", "owl"]
                                   ).savefig(out / "plot_multiclass.png", dpi=DPI)


def main(out_dir: str | None = None) -> None:
    out = Path(out_dir) if out_dir else Path(__file__).resolve().parents[1] / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    np.seterr(all="ignore")
    plots(out)
    naive_bayes(out)
    notebook_audit(out)
    print(f"wrote {', '.join(sorted(p.name for p in out.glob('*.png')))} in {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
