"""Regenerate docs/screenshots for the notebook display and the fixed reliability diagram.

    .venv/bin/python scripts/notebook_screenshots.py

* notebook_audit.png — ``vc.audit(...)._repr_html_()`` of the demo's test rows, as a
  notebook shows it, rendered by headless Chromium (Debian's /usr/bin/chromium);
* reliability_naive_bayes.png — the reliability diagram of Gaussian naive Bayes on
  scikit-learn's breast-cancer data (held-out half): mass at 0 and 1, many empty and
  thin bins — the line is broken at them, thin bins hollow, the legend above the data.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

import veracity as vc

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
CHROMIUM = os.environ.get("VERACITY_CHROMIUM", "/usr/bin/chromium")


def naive_bayes() -> None:
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    p = GaussianNB().fit(Xtr, ytr).predict_proba(Xte)[:, 1]
    fig = vc.plot_reliability(vc.audit(p, yte, bins=15), title="Gaussian naive Bayes, breast cancer (held-out half)")
    fig.savefig(OUT / "reliability_naive_bayes.png", dpi=110)


def notebook_audit() -> None:
    from playwright.sync_api import sync_playwright

    d = vc.load_demo()
    test = d["role"] == "test"
    result = vc.audit(d["score"][test], d["label"][test], bins=10, min_count=150)
    page_html = (
        "<!doctype html><html><head><meta charset='utf-8'><style>body{margin:16px;background:#fff}"
        ".cell{border-left:3px solid #1f5fa8;padding:4px 10px;font:12px monospace;color:#52606d}</style></head>"
        "<body><div class='cell'>In [3]: vc.audit(p, y, bins=10, min_count=150)</div>"
        f"<div style='padding:8px 13px'>{result._repr_html_()}</div></body></html>"
    )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 900, "height": 600}, device_scale_factor=1)
        page.set_content(page_html)
        page.screenshot(path=str(OUT / "notebook_audit.png"), full_page=True)
        browser.close()


if __name__ == "__main__":
    np.seterr(all="ignore")
    naive_bayes()
    notebook_audit()
    print(f"wrote {OUT / 'reliability_naive_bayes.png'} and {OUT / 'notebook_audit.png'}")
