"""Round 21: numbers the docs quote about today's changes, checked against their definitions.

* docs/honest.md: Hosmer–Lemeshow's chi-square law over-rejects calibrated scores when bins expect
  fewer than 5 events ("up to 14 % at the 5 % level with 10 bins of 1–4 rows of a rare outcome"), and
  the demo's Monte-Carlo p-value is the floor 1/(R + 1).
* docs/decisions.md: Mondrian coverage with 4 classes of 5 calib rows at alpha = 0.2 has mean 0.833,
  where the law of one q̂ from all 20 rows says 0.810.
* docs/calibrators.md: the ledger's AUC change has no DeLong interval below 10 rows of a class.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import veracity as vc


def test_chi_square_hosmer_lemeshow_over_rejects_calibrated_scores_in_sparse_bins():
    """Scores ~ Beta(1, 9), labels Bernoulli(p): calibrated. chi-square with G = 10 df (df=10 keeps the
    chi-square law) rejects at 5 % well above 5 % on 10-40 rows, up to about 14 % (honest.md)."""
    rng = np.random.default_rng(21)
    k = 300
    rates = []
    for n in (10, 20, 40):
        hits = 0
        for _ in range(k):
            p = rng.beta(1.0, 9.0, n)
            y = (rng.random(n) < p).astype(float)
            t = vc.hosmer_lemeshow(p, y, bins=10, df=10)
            assert t.method == "chi-square" and t.min_expected < 5
            hits += t.p_value <= 0.05
        rates.append(hits / k)
    se = math.sqrt(0.05 * 0.95 / k)
    assert max(rates) >= 0.11 and max(rates) <= 0.14 + 3 * se, rates
    assert sum(rates) / 3 > 0.05 + 3 * se / math.sqrt(3), rates


def test_demo_monte_carlo_p_value_is_its_floor_and_h_its_definition():
    d = pd.read_csv(vc.datasets.demo_path())
    p, y = d["score"].to_numpy(), d["label"].to_numpy().astype(float)
    t = vc.hosmer_lemeshow(p, y)
    order = np.argsort(p, kind="stable")
    h, least = 0.0, math.inf
    for g in np.array_split(order, 10):  # 6000 distinct-enough scores: 10 groups of 600 by sorted score
        o, e, m = y[g].sum(), p[g].sum(), g.size
        h += (o - e) ** 2 / (e * (1 - e / m))
        least = min(least, e, m - e)
    assert t.statistic == pytest.approx(h, rel=1e-9) and t.min_expected == pytest.approx(least, rel=1e-9)
    assert stats.chi2.sf(h, 10) < 1e-100  # no redraw comes near H: the p-value is the floor 1/(R + 1)
    assert t.method == "monte-carlo" and t.p_value == pytest.approx(1 / 2001, rel=1e-12)
    assert f"{t.min_expected:.3g}" == "1.48" and f"{t.p_value:.4f}" == "0.0005"


def test_mondrian_law_mean_at_four_classes_of_five_rows(tmp_path, capsys):
    from veracity.cli import main

    alpha = 0.2
    k_class = math.ceil((5 + 1) * (1 - alpha))  # 5: Beta(5, 1), mean 5/6
    k_all = math.ceil((20 + 1) * (1 - alpha))   # 17: Beta(17, 4), mean 17/21
    assert round(k_class / 6, 3) == 0.833 and round(k_all / 21, 3) == 0.810
    assert vc.conformal_coverage_law(20, alpha).mean == pytest.approx(17 / 21)
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 5)
    P = rng.dirichlet(np.ones(4), size=20)
    path = tmp_path / "calib.csv"
    pd.DataFrame({**{f"p{c}": P[:, c] for c in range(4)}, "y": y}).to_csv(path, index=False)
    assert main(["conformal", str(path), "--score", "p0,p1,p2,p3", "--label", "y", "--alpha", "0.2",
                 "--mondrian", "--json", "-q"]) == 0
    law = json.loads(capsys.readouterr().out)["coverage_law"]
    assert law["classes"] == 4 and law["mean"] == pytest.approx(5 / 6, rel=1e-9)


def test_ledger_auc_interval_is_na_below_ten_rows_of_a_class_even_when_unchanged():
    rng = np.random.default_rng(0)
    s = rng.beta(2, 2, 400)
    y = (rng.random(400) < s).astype(int)
    iso = vc.IsotonicCalibration().fit(s, y)
    e = rng.beta(2, 2, 60)
    ye = np.zeros(60, int)
    ye[:6] = 1  # 6 positives: DeLong's interval is n/a (docs/calibrators.md)
    row = vc.compare(e, ye, iso).rows[-1]
    assert row.metric == "AUC" and row.change == 0.0 and row.verdict == "same"  # ties created, AUC unchanged
    assert math.isnan(row.ci_low) and math.isnan(row.ci_high), (row.ci_low, row.ci_high)
