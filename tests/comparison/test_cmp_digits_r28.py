"""Rare events keep their digits (session 28): the comparison results printed every number at 4 decimals, so
at a 0.1-1 % base rate a Brier difference read "+0.0000 [+0.0000, +0.0000]" beside p = 0.0002, a CORP line
"DSC +0.0000 [+0.0000, +0.0000]" and a decision curve's net benefit "+0.0003 [+0.0002, +0.0004]". Now each
number printed with others (a difference and its interval, a table's row) shows its group's largest
magnitude to two significant digits at least (comparison._digits), and common scales (a 30 % base rate)
keep 4 decimals."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

import veracity as vc

NUMBER = re.compile(r"[+-]?\d+\.\d+")


def _rare(n: int = 200_000, rate: float = -5.6, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two models of a rare event (base rate about 0.7 %), b a little sharper than a."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-(rate + 1.2 * x))))
    a = 1 / (1 + np.exp(-(rate + 1.1 * x + 0.3 * rng.normal(size=n))))
    b = 1 / (1 + np.exp(-(rate + 1.2 * x + 0.1 * rng.normal(size=n))))
    return a, b, y


def _common(n: int = 20_000, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two models at a base rate of about 30 %."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-(-0.85 + x))))
    a = 1 / (1 + np.exp(-(-0.85 + x + 0.5 * rng.normal(size=n))))
    b = 1 / (1 + np.exp(-(-0.85 + 1.1 * x + 0.3 * rng.normal(size=n))))
    return a, b, y


def _significant(texts: list[str]) -> int:
    """Significant digits of the largest printed magnitude among ``texts``."""
    top = max(texts, key=lambda t: abs(float(t)))
    digits = top.lstrip("+-").replace(".", "").lstrip("0")
    return len(digits)


def _agrees(text: str, value: float) -> bool:
    """A printed number is its value rounded at the printed decimals."""
    places = len(text.split(".")[1])
    return abs(float(text) - value) <= 0.5 * 10 ** -places + 1e-15


@pytest.fixture(scope="module")
def rare() -> vc.ModelComparison:
    a, b, y = _rare()
    return vc.compare_models({"a": a, "b": b}, y, n_resamples=200)


def _row_line(text: str, metric: str) -> list[str]:
    line = next(s for s in text.splitlines() if s.startswith(metric + " "))
    return NUMBER.findall(line)


@pytest.mark.parametrize("metric", ["brier", "log_loss", "ece", "auc"])
def test_a_rare_event_row_shows_two_significant_digits_of_its_difference(rare, metric):
    row = rare.row(metric)
    shown = "ece_debiased" if metric == "ece" else metric
    value_a, value_b, diff, low, high = _row_line(str(rare), shown)[:5]
    assert _significant([diff, low, high]) >= 2, (metric, diff, low, high)
    for text, value in ((value_a, row.value_a), (value_b, row.value_b), (diff, row.diff), (low, row.ci_low),
                        (high, row.ci_high)):
        assert _agrees(text, value), (metric, text, value)


def test_a_brier_interval_clear_of_zero_prints_clear_of_zero(rare):
    row = rare.row("brier")
    assert row.ci_high < 0 or row.ci_low > 0  # the simulation's b is better beyond noise
    _, _, diff, low, high = _row_line(str(rare), "brier")[:5]
    assert float(low) * float(high) > 0, (diff, low, high)  # was "+0.0000 [+0.0000, +0.0000]"
    assert f"Brier {diff} [{low}, {high}]" in rare.verdict  # the verdict quotes the table's numbers


def test_the_corp_lines_and_the_verdict_keep_their_digits(rare):
    d = rare.corp_differences[0]
    text = str(rare)
    line = next(s for s in text.splitlines() if s.startswith("b - a "))
    m = re.search(r"DSC \[([+-][\d.]+), ([+-][\d.]+)\]", line)
    assert m and _significant([m.group(1), m.group(2)]) >= 2, line
    assert _agrees(m.group(1), d.dsc_low) and _agrees(m.group(2), d.dsc_high)
    v = re.search(r"DSC ([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)\]", rare.verdict)
    assert v and _significant(list(v.groups())) >= 2, rare.verdict
    assert all(_agrees(t, x) for t, x in zip(v.groups(), (d.dsc, d.dsc_low, d.dsc_high)))
    # the models' MCB levels (about 0.00001 for calibrated models) are not printed as 0.0000
    for name, c in rare.corp.items():
        cells = NUMBER.findall(next(s for s in text.splitlines() if s.startswith(f"{name} ")))
        assert float(cells[1]) != 0 and _agrees(cells[1], c.brier.mcb), cells


def test_the_notebook_table_prints_the_numbers_the_text_prints(rare):
    html = rare._repr_html_()
    _, _, diff, low, high = _row_line(str(rare), "brier")[:5]
    assert f">{diff}<" in html and f"[{low}, {high}]" in html
    d = rare.corp_differences[0]
    assert re.search(r"\[[+-]0\.0000\d+, [+-]0\.0000\d+\]", html)  # the CORP intervals too
    assert "+0.0000 [" not in html and ">+0.0000<" not in html.split("CORP")[0]
    assert d.dsc != 0


def test_json_keeps_every_number_at_full_precision(rare):
    payload = json.loads(json.dumps(rare.to_dict()))
    row = payload["comparison"][0]
    assert row["diff"] == rare.rows[0].diff and row["ci_low"] == rare.rows[0].ci_low
    assert payload["corp_difference"][0]["dsc_low"] == rare.corp_differences[0].dsc_low


def test_a_common_base_rate_keeps_four_decimals():
    a, b, y = _common()
    r = vc.compare_models({"a": a, "b": b}, y, n_resamples=100)
    table = str(r).split("CORP")[0].splitlines()[2:]
    numbers = [t for line in table for t in NUMBER.findall(line)]
    assert numbers and all(len(t.split(".")[1]) == 4 for t in numbers), table
    assert all(len(t.split(".")[1]) == 4 for t in NUMBER.findall(r.verdict)), r.verdict


def test_murphy_rows_of_a_rare_event_keep_their_digits():
    a, b, y = _rare(n=100_000)
    m = vc.murphy_diagram({"a": a, "b": b}, y)
    k = int(np.argmin(np.abs(m.theta - 0.1)))
    d = m.difference
    assert abs(d.ci_low[k]) > 1e-5  # a band of about ±0.0001 at theta 0.1: printed "[-0.0001, +0.0000]"
    line = next(s for s in str(m).splitlines() if s.startswith("0.100 "))
    numbers = NUMBER.findall(line)
    assert _significant(numbers[3:6]) >= 2, line
    assert all(_agrees(t, x) for t, x in zip(numbers[3:6], (d.diff[k], d.ci_low[k], d.ci_high[k])))
    assert f"[{numbers[4]}, {numbers[5]}]" in m._repr_html_()


def test_decision_curve_net_benefits_and_prevalence_keep_their_digits():
    a, b, y = _rare(n=100_000)
    dc = vc.decision_curve({"a": a, "b": b}, y, thresholds=[0.0025, 0.05])
    text = str(dc)
    prevalence = re.search(r"prevalence ([\d.]+)", text).group(1)
    assert _significant([prevalence]) >= 2 and _agrees(prevalence, dc.prevalence)
    line = next(s for s in text.splitlines() if s.startswith("0.0500 "))  # threshold column as given
    assert any(s.startswith("0.0025 ") for s in text.splitlines()), text  # was "0.003"
    cell = NUMBER.findall(line)[1:4]  # model a at t = 0.05: about 0.0003
    assert abs(dc.net_benefit["a"][1]) < 1e-3
    assert _significant(cell) >= 2, line
    assert all(_agrees(t, x) for t, x in zip(cell, (dc.net_benefit["a"][1], dc.ci_low["a"][1],
                                                     dc.ci_high["a"][1])))
    html = dc._repr_html_()
    assert f">{cell[0].lstrip('+')}<" in html and ">0.0025<" in html


def test_the_digits_rule():
    from veracity.comparison._digits import MOST, decimals, threshold_decimals

    assert decimals(0.1823, (0.0120, 0.0080, 0.0160)) == 4  # common scales: as always
    assert decimals(0.0012, (0.0001, 0.00003, 0.00018)) == 5
    assert decimals((0.0004, 0.00001, 0.0007)) == 5  # a group reads its largest magnitude, not its ends
    assert decimals(float("nan"), (0.0, float("nan"))) == 4 and decimals(1e-17) == 4  # noise asks nothing
    assert decimals(2e-8) == MOST
    assert threshold_decimals([0.01, 0.5]) == 3 and threshold_decimals([0.0025, 0.5]) == 4
    assert math.isclose(float(f"{0.000712:.{decimals(0.000712)}f}"), 0.00071)


def test_the_figure_legend_prints_the_corp_levels_as_the_table_does(rare):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = rare.plot()
    try:
        labels = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    finally:
        plt.close(fig)
    c = rare.corp["a"].brier
    label = next(t for t in labels if t.startswith("a ("))
    mcb, dsc = re.search(r"MCB ([\d.]+), DSC ([\d.]+)", label).groups()
    assert float(mcb) != 0 and _agrees(mcb, c.mcb) and _agrees(dsc, c.dsc), label  # was "MCB 0.0000"


def test_the_decision_curve_says_its_best_column_is_a_point_estimate():
    # "best: b" beside two models printing the same net benefit and interval read as a finding
    a, b, y = _common()
    dc = vc.decision_curve({"a": a, "b": b}, y, thresholds=[0.1, 0.3])
    assert "best: the highest net benefit at each threshold, by point estimate" in str(dc)


def test_the_murphy_notebook_view_says_its_level_as_a_percentage():
    a, b, y = _common(n=2000)
    html = vc.murphy_diagram({"a": a, "b": b}, y, level=0.9)._repr_html_()
    assert "<b>level</b>90%<" in html and "0.9000" not in html.split("<table")[0]  # was "level 0.9000"
