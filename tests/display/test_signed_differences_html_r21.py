"""The notebook view of vc.compare_models prints each difference and its interval with its sign, as the text
view does: an unsigned '0.1138' beside '[-0.0168, 0.0071]' did not say which model is ahead (round 21)."""
from __future__ import annotations

import html
import re

import numpy as np
import pytest

import veracity as vc
from veracity.core._display import html_table


def _cells(page: str) -> list[str]:
    return [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", page)]


def _comparison() -> vc.ModelComparison:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.02, 0.98, 400)
    y = (rng.random(400) < p).astype(int)
    q = np.clip(p + rng.normal(0.0, 0.15, 400), 0.01, 0.99)
    return vc.compare_models({"good": p, "noisy": q}, y, random_state=0)


def test_compare_models_html_signs_each_difference_and_interval() -> None:
    c = _comparison()
    cells = _cells(c._repr_html_())
    for r in c.rows:
        assert abs(r.diff - (r.value_b - r.value_a)) < 1e-12
        assert f"{r.diff:+.4f}" in cells, (r.metric, r.diff)
        assert f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]" in cells, (r.metric, r.ci_low, r.ci_high)
    # a positive difference (noisy's Brier is the higher) reads with its '+'
    assert c.row("brier").diff > 0 and f"+{c.row('brier').diff:.4f}" in cells


def test_compare_models_html_signs_the_corp_difference_row_only() -> None:
    c = _comparison()
    cells = _cells(c._repr_html_())
    d = c.corp_differences[0]
    i = cells.index("noisy - good")
    assert cells[i + 1:i + 5] == [f"{v + 0.0:+.4f}" for v in (d.score, d.mcb, d.dsc, d.unc)]
    good = c.corp["good"].brier
    j = cells.index("good")
    assert cells[j + 1] == f"{good.score:.4f}"  # a model's own score is not a difference: no sign


def test_html_table_signed_is_an_option_and_the_default_is_unchanged() -> None:
    records = [{"metric": "ece", "diff": 0.1138, "ci_low": -0.0168, "ci_high": 0.0071, "other": 0.5},
               {"metric": "auc", "diff": 0.0, "ci_low": float("nan"), "ci_high": float("nan"), "other": 0.25}]
    plain = _cells(html_table(records))
    assert plain == ["ece", "0.1138", "[-0.0168, 0.0071]", "0.5000", "auc", "0.0000", "n/a", "0.2500"]
    signed = _cells(html_table(records, signed=("diff", "ci_low")))
    assert signed == ["ece", "+0.1138", "[-0.0168, +0.0071]", "0.5000", "auc", "+0.0000", "n/a", "0.2500"]


def test_html_result_passes_signed_on() -> None:
    from veracity.core._display import html_result

    records = [{"theta": 0.5, "diff": 0.0225, "ci_low": 0.0046, "ci_high": 0.0404}]
    assert _cells(html_result("t", {}, records, "x")) == ["0.5000", "0.0225", "[0.0046, 0.0404]"]
    assert _cells(html_result("t", {}, records, "x", signed=("diff", "ci_low"))) == [
        "0.5000", "+0.0225", "[+0.0046, +0.0404]"]


def _two_models():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.02, 0.98, 400)
    y = (rng.random(400) < p).astype(int)
    return {"a": p, "b": np.clip(p + rng.normal(0.0, 0.15, 400), 0.01, 0.99)}, y


def test_realised_cost_html_signs_the_gap_and_its_interval() -> None:
    models, y = _two_models()
    r = vc.realised_cost(models, y, threshold=0.3, cost_fp=1, cost_fn=5, random_state=0)
    cells = _cells(r._repr_html_())
    for row in r.rows:
        assert abs(row.gap - (row.realised - row.expected)) < 1e-12
        assert f"{row.gap + 0.0:+.4f}" in cells
        assert f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]" in cells


def test_murphy_html_signs_the_difference_and_its_band() -> None:
    models, y = _two_models()
    m = vc.murphy_diagram(models, y, theta=[0.2, 0.5, 0.8])
    cells = _cells(m._repr_html_())
    d = m.differences[0]
    for k in range(3):
        assert f"{d.diff[k] + 0.0:+.4f}" in cells
        assert f"[{d.ci_low[k]:+.4f}, {d.ci_high[k]:+.4f}]" in cells
