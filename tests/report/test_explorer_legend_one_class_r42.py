"""The threshold explorer's key listed "recall" on a page with no positive label (no recall line can be drawn:
TP/P with P = 0) and "false-alarm rate" with no negative (FP/N): now a key only for the lines drawn (round 42)."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.mark.browser
def test_the_explorer_keys_only_the_lines_it_draws(tabs, tmp_path):
    p = np.random.default_rng(0).uniform(0.05, 0.95, 300)
    keys = {}
    page = tabs.page(width=1280, height=900)
    for name, y in (("no_positive", np.zeros(300, int)), ("no_negative", np.ones(300, int)),
                    ("both", (p > 0.5).astype(int))):
        path = tmp_path / f"report_{name}.html"
        vc.report(p, y, figures=False).save(path)
        page.goto(path.as_uri())
        page.wait_for_selector('#explorer[data-ready="1"]', timeout=10_000)
        keys[name] = page.text_content("#ex-legend")
    assert "recall" in keys["both"] and "false-alarm rate" in keys["both"]
    assert "precision" in keys["no_positive"] and "false-alarm rate" in keys["no_positive"]
    assert "recall" not in keys["no_positive"].replace("recall-target", "")
    assert "false-alarm rate" not in keys["no_negative"] and "recall" in keys["no_negative"]
