"""A weighted threshold table read its totals (W, the positive weight) with ``w.sum()`` and its counts with
suffix sums over the thresholds' gaps: two summation orders. A threshold at or below every score (``-inf``,
or 0 for probabilities) then showed FN and TN of 5.7e-14 (printed "0.0" where "0" was meant), a recall and a
false-alarm rate of 0.9999999999999998, and a cost of 5.7e-14 too much. The totals are now the counts at -inf,
read off the same sums: every row flagged counts exactly the totals, on arrays and lazy frames alike."""

import numpy as np
import pandas as pd
import polars as pl

import veracity as vc


def test_flagging_every_row_counts_the_totals_exactly():
    missed = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(50, 3000))
        p = np.round(rng.random(n), 3)
        y = (rng.random(n) < p).astype(int)
        w = rng.uniform(0.1, 3.0, n)
        df = pd.DataFrame({"p": p, "y": y, "w": w})
        for table in (vc.threshold_table(p, y, [-np.inf, 0.0, 0.5], sample_weight=w, cost_fn=9),
                      vc.threshold_table(pl.from_pandas(df).lazy(), [-np.inf, 0.0, 0.5], score="p", label="y",
                                         sample_weight="w", cost_fn=9)):
            for i in (0, 1):  # -inf and 0.0 flag every row
                row = table.rows[i]
                missed += (row.fn, row.tn, row.recall, row.false_alarm_rate) != (0.0, 0.0, 1.0, 1.0)
                missed += row.tp != table.positives or row.alerts != table.n or row.cost != row.fp
    assert missed == 0, missed
    printed = str(vc.threshold_table(p, y, [-np.inf], sample_weight=w)).splitlines()[1].split()
    assert printed[3:5] == ["0", "0"], printed  # FN, TN: "0", never "0.0"
