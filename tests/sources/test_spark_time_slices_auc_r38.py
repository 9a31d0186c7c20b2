"""Spark: the AUC of each slice of a timestamp column (round 38).

Spark's exact AUC came back through ``collect()``, whose Row objects hand a ``TimestampType`` key back as a
naive datetime in the Python process's local zone, while the bin sums (read through Arrow by narwhals) hold
the zone-aware instant: no slice's AUC found its slice, and ``vc.audit(spark_df, by="t")`` showed every
slice's AUC as n/a (None) where every other route gives 0.91 and 0.90; the whole table's AUC was right.
The oracle is the array form's per-slice AUC.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.mark.parametrize("zone", ["Asia/Kolkata", None])
def test_spark_slices_of_times_carry_their_auc(spark, zone):
    rng = np.random.default_rng(0)
    n = 120
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    t = pd.to_datetime(rng.choice(["2024-01-01 00:00", "2024-06-01 12:00"], n))
    df = pd.DataFrame({"p": p, "y": y, "t": t.tz_localize(zone) if zone else t})
    got = vc.audit(spark.createDataFrame(df), score="p", label="y", by="t")
    want = vc.audit(df, score="p", label="y", by="t")
    aucs = sorted(g.metrics["auc"] for g in got.groups.values())
    assert aucs == pytest.approx(sorted(g.metrics["auc"] for g in want.groups.values()), rel=1e-12)
    assert got.metrics["auc"] == pytest.approx(want.metrics["auc"], rel=1e-12)
