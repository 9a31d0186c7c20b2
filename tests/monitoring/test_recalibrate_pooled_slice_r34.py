"""``recalibrate(by=, slice=)`` finds a slice that the status pools into '(other)'.

The status names the 20 slices with the most rows and pools the rest into '(other)'; recalibrate looked
for the slice among the status's names only, so a logged slice beyond the 20 largest was refused as
"slice 's21' of 'seg' has no predictions (its values: '(other)', 's00', ...)", although it had 40
labelled predictions. Now every value is named when the one asked for was pooled.
"""

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("duckdb")
pd = pytest.importorskip("pandas")


def _store(tmp_path):
    rng = np.random.default_rng(34)
    sizes = {f"s{i:02d}": 60 for i in range(20)} | {"s20": 25, "s21": 20}  # per month: s20, s21 pooled
    rows = []
    for month in ("2026-01", "2026-02"):
        for seg, k in sizes.items():
            for j in range(k):
                rows.append((f"{month}-{seg}-{j}", pd.Timestamp(f"{month}-{1 + j % 27:02d}"), seg))
    df = pd.DataFrame(rows, columns=["id", "ts", "seg"])
    df["p"] = rng.uniform(0.1, 0.9, len(df))
    df["y"] = (rng.uniform(size=len(df)) < df["p"]).astype(int)
    store = vc.MonitorStore(str(tmp_path / "m.duckdb"))
    store.log(df, id="id", time="ts", score="p", by="seg")
    store.outcomes(df, id="id", label="y", time="ts")
    return store, df


def test_a_pooled_slice_is_recalibrated(tmp_path):
    store, df = _store(tmp_path)
    status = store.status(freq="M", by="seg", as_of="2026-03-01", min_count=10)
    assert status.pooled == 2 and "s21" not in {r.slice for r in status.rows}
    res = store.recalibrate(by="seg", slice="s21", freq="M", as_of="2026-03-01", min_count=10)
    assert (res.fit_period, res.eval_period) == ("2026-01", "2026-02")
    assert (res.n_fit, res.n_eval) == (20, 20)
    # the calibrator was fit on that slice's January rows: the same fit by hand
    jan = df[(df["seg"] == "s21") & (df["ts"] < pd.Timestamp("2026-02-01"))]
    by_hand = vc.PlattScaling().fit(jan["p"].to_numpy(), jan["y"].to_numpy())
    x = np.linspace(0.05, 0.95, 7)
    np.testing.assert_allclose(res.calibrator.transform(x), by_hand.transform(x), rtol=1e-9)


def test_other_itself_and_unknown_slices_are_still_refused(tmp_path, error_line):
    store, _ = _store(tmp_path)
    kw = dict(by="seg", freq="M", as_of="2026-03-01", min_count=10)
    pooled = error_line(lambda: store.recalibrate(slice="(other)", **kw))
    assert "pools the 2 'seg' values with the fewest rows" in pooled
    unknown = error_line(lambda: store.recalibrate(slice="s99", **kw))
    assert unknown.startswith("slice 's99' of 'seg' has no predictions")
