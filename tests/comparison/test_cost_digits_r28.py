"""vc.realised_cost prints with the comparison's significant-digits rule (r28, :mod:`._digits`): at a
0.5 % base rate and 1:1 costs a cost per row is about 0.005 and a model's gap a few 1e-5, which printed
"+0.0000 [-0.0007, +0.0008]"; at common scales it prints at 4 decimals, as before."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc


def places(text: str) -> int:
    return len(text.split(".")[1])


def cost_rows(result) -> list[list[str]]:
    """The printed table's numbers per model: flagged, expected, realised, low, high, gap, low, high."""
    lines = str(result).splitlines()[2:2 + len(result.rows)]
    return [re.findall(r"[+-]?\d+\.\d+", ln)[:8] for ln in lines]


def values(r) -> list[float]:
    return [r.flagged, r.expected, r.realised, r.realised_low, r.realised_high, r.gap, r.ci_low, r.ci_high]


def rare():
    rng = np.random.default_rng(28)
    n = 40_000
    x = rng.normal(size=n)
    p = 1.0 / (1.0 + np.exp(5.6 - 0.9 * x))
    y = (rng.uniform(size=n) < p).astype(int)
    q = 1.0 / (1.0 + np.exp(5.45 - 0.8 * (x + 0.5 * rng.normal(size=n))))
    return {"A": q, "B": p}, y


def test_rare_event_costs_show_two_significant_digits():
    models, y = rare()
    r = vc.realised_cost(models, y, threshold=0.1, cost_fp=1, cost_fn=1)
    printed = cost_rows(r)
    costs = {places(t) for row in printed for t in row[1:]}
    assert len(costs) == 1  # the costs per row share their decimals down the table
    k = costs.pop()
    for row, cost in zip(printed, r.rows):
        for text, value in zip(row, values(cost)):
            assert abs(float(text) - value) <= 0.5 * 10.0 ** -places(text) + 1e-15, (text, value)
        # the gap with its interval shows its largest magnitude to two significant digits at least, and so
        # does the expected cost, and the realised cost with its interval
        for group in ((cost.gap, cost.ci_low, cost.ci_high), (cost.expected,),
                      (cost.realised, cost.realised_low, cost.realised_high)):
            assert max(map(abs, group)) * 10.0 ** k >= 10.0 - 1e-9, (group, k)
        assert max(map(abs, (cost.flagged,))) * 10.0 ** places(row[0]) >= 10.0 - 1e-9
    # B's gap of -0.00002 and A's interval end of +0.00001 printed "+0.0000"
    assert k == 5 and printed[1][5] == "-0.00002" and printed[0][7] == "+0.00001", printed


def test_the_notebook_view_prints_the_same_cells():
    models, y = rare()
    r = vc.realised_cost(models, y, threshold=0.1, cost_fp=1, cost_fn=1)
    page = r._repr_html_()
    table = page[page.index("<table"):page.index("</table>")]
    for row in cost_rows(r):
        for text in row:
            assert f">{text}<" in table or text in table, text
    assert "0.0000<" not in table.replace("0.00000", "")


def test_common_rates_print_at_four_decimals_as_before():
    rng = np.random.default_rng(7)
    p = rng.uniform(0.05, 0.95, 3000)
    y = (rng.uniform(size=p.size) < np.clip(p + 0.03, 0, 1)).astype(int)
    r = vc.realised_cost({"a": p, "b": np.clip(p * 0.9, 0, 1)}, y, threshold=0.3, cost_fn=5)
    for row, cost in zip(cost_rows(r), r.rows):
        assert {places(t) for t in row} == {4}, row
        assert float(row[5]) == round(cost.gap, 4)
