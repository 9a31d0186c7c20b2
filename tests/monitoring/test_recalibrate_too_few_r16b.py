"""Session 16: store.recalibrate judged a calibrator on a next window with one label ("better (no interval)"
for NLL and Brier); now the ledger gives no verdict and the result says why and what to do in one line."""

from __future__ import annotations

import numpy as np
import pytest

TOO_FEW = "n/a (too few rows)"  # the verdict (veracity.calibrators._ledger.TOO_FEW)


def test_recalibrate_on_a_window_with_one_label_says_it_cannot_judge(tmp_path):
    pd = pytest.importorskip("pandas")
    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    n = 300
    p = rng.beta(2, 5, n + 1)
    y = (rng.random(n + 1) < np.clip(p * 1.4, 0, 1)).astype(int)
    ids = np.arange(n + 1).astype(str)
    s = MonitorStore(tmp_path / "m.duckdb")
    s.log(pd.DataFrame({"id": ids, "ts": ["2026-03-04"] * n + ["2026-03-11"], "p": p}), id="id", time="ts",
          score="p")
    s.outcomes(pd.DataFrame({"id": ids, "y": y, "o": ["2026-03-12"] * (n + 1)}), id="id", label="y", time="o")
    r = s.recalibrate(method="platt", freq="W", as_of="2026-03-20")
    assert (r.fit_period, r.eval_period, r.n_fit, r.n_eval) == ("2026-W10", "2026-W11", 300, 1)
    assert r.ledger.row("NLL").verdict == r.ledger.row("Brier").verdict == TOO_FEW
    assert r.note is not None and "\n" not in r.note and "too few to judge" in r.note and "2026-W11" in r.note
    assert "fit=" in r.note and "freq" in r.note  # what to do
    text = str(r)
    assert "(1 labelled row;" in text and "note: the evaluation window 2026-W11 has 1 labelled row" in text
    assert "better (no interval)" not in text and "worse (no interval)" not in text
    assert r.to_dict()["note"] == r.note
    assert "too few to judge" in r._repr_html_()  # the notebook view says it too
