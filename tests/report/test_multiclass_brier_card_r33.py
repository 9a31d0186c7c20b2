"""The summary's Brier card of (N, K) scores names what it shows: the top label's (confidence − correct)².

The card read "Brier 0.2541" beside an NLL that is the full multiclass −log p_y; scikit-learn's multiclass
Brier of the same scores (the sum over classes) is 0.60, so the bare name read as a different number.
"""

from __future__ import annotations

import html
import re

import numpy as np

import veracity as vc


def _card(page: str, key: str) -> tuple[str, str, str]:
    m = re.search(rf'<div class="card" data-metric="{key}"><div class="card-label">(.*?)</div>'
                  r'<div class="card-value">(.*?)</div><div class="card-sub">(.*?)</div></div>', page, re.S)
    assert m, f"no {key} card"
    label, value, sub = (html.unescape(re.sub(r"<[^>]+>", " ", g)).strip() for g in m.groups())
    return label, value, sub


def test_multiclass_brier_card_says_top_label():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(4) * 0.7, size=1500)
    y = (rng.random(1500)[:, None] > P.cumsum(axis=1)).sum(axis=1)
    page = vc.report(P, y, bootstrap=False, figures=False).html
    label, value, sub = _card(page, "brier")
    conf, correct = P.max(axis=1), (P.argmax(axis=1) == y).astype(float)
    assert float(value) == round(float(np.mean((conf - correct) ** 2)), 4)  # what it shows: the top label's
    assert float(value) != round(float(np.mean(((P - np.eye(4)[y]) ** 2).sum(axis=1))), 4)
    assert "top label" in label
    assert "(confidence − correct)²" in sub


def test_binary_brier_card_keeps_its_name():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=800)
    y = (rng.uniform(size=800) < p).astype(int)
    label, value, sub = _card(vc.report(p, y, bootstrap=False, figures=False).html, "brier")
    assert label == "Brier"
    assert float(value) == round(float(np.mean((p - y) ** 2)), 4)
    assert "confidence" not in sub


def test_multiclass_slices_show_mean_confidence_not_accuracy_twice():
    """A top-label audit's base_rate is its accuracy: the slices table printed it twice ("base rate" and
    "acc", 0.6032 and 0.6032) and never the mean confidence it is to be read against."""
    from .conftest import section, table_rows

    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=2000)
    y = (rng.random(2000)[:, None] > P.cumsum(axis=1)).sum(axis=1)
    g = np.where(rng.random(2000) < 0.5, "a", "b")
    page = vc.report(P, y, by={"g": g}, bootstrap=False, figures=False).html
    part = section(page, "slices")
    heads = [html.unescape(re.sub(r"<[^>]+>", "", h)).strip()
             for h in re.findall(r"<th[^>]*>(.*?)</th>", part, re.S)]
    assert heads[2] == "mean conf" and "base rate" not in heads
    assert "Brier (top label)" in heads
    rows = {r[0]: r for r in table_rows(part, "slices")}
    for key, m in (("a", g == "a"), ("b", g == "b"), ("(all)", np.ones(2000, bool))):
        conf = P[m].max(axis=1)
        correct = P[m].argmax(axis=1) == y[m]
        assert rows[key][2] == f"{conf.mean():.4f}"
        assert rows[key][heads.index("acc")] == f"{correct.mean():.4f}"
        assert rows[key][heads.index("Brier (top label)")] == f"{np.mean((conf - correct) ** 2):.4f}"


def test_binary_slices_keep_the_base_rate():
    from .conftest import section, table_rows

    rng = np.random.default_rng(2)
    p = rng.uniform(size=1000)
    y = (rng.uniform(size=1000) < p).astype(int)
    g = np.where(rng.random(1000) < 0.5, "a", "b")
    part = section(vc.report(p, y, by={"g": g}, bootstrap=False, figures=False).html, "slices")
    heads = [html.unescape(re.sub(r"<[^>]+>", "", h)).strip()
             for h in re.findall(r"<th[^>]*>(.*?)</th>", part, re.S)]
    assert heads[2] == "base rate"
    rows = {r[0]: r for r in table_rows(part, "slices")}
    assert rows["a"][2] == f"{y[g == 'a'].mean():.4f}"
