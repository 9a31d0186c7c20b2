"""Session 28: ``recalibrate`` chooses its fit window among those with ``min_count`` labelled rows, but a
named ``fit=`` period was fitted whatever it held: three labelled rows made an isotonic calibrator (and
``--out cal.json`` saved it) that collapsed the evaluation week's AUC to 0.5. An insufficient window must
not trigger a change: a named fit period needs ``min_count`` labelled rows too (lower it on purpose)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")


def _store(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    n = 303
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < p).astype(int)
    y[:3] = [0, 1, 0]  # both classes in the three rows of the first week: a calibrator can be fit on them
    ts = np.array(["2026-03-04T10:00"] * 3 + ["2026-03-11T10:00"] * 300, dtype="datetime64[s]")
    s = MonitorStore(tmp_path / "m.duckdb")
    s.log(pa.table({"id": np.arange(n), "ts": ts, "p": p}), id="id", time="ts", score="p")
    s.outcomes(pa.table({"id": np.arange(n), "y": y}), id="id", label="y")
    return s


def test_a_named_fit_period_with_too_few_labels_is_refused(tmp_path, cli, refused):
    from veracity import VeracityError

    s = _store(tmp_path)
    with pytest.raises(VeracityError,
                       match=r"fit period '2026-W10' has 3 labelled rows, fewer than min_count \(100\)"):
        s.recalibrate(method="isotonic", freq="W", as_of="2027-01-01", fit="2026-W10")
    out = tmp_path / "cal.json"
    res = cli(["monitor", "recalibrate", s.path, "--method", "isotonic", "--freq", "W",
               "--as-of", "2027-01-01", "--fit", "2026-W10", "--out", out])
    assert res.code == 2 and "fewer than min_count" in res.err and "--min-count" in res.err
    assert not out.exists()  # nothing saved to deploy


def test_lowering_min_count_fits_on_purpose(tmp_path):
    s = _store(tmp_path)
    r = s.recalibrate(method="isotonic", freq="W", as_of="2027-01-01", fit="2026-W10", min_count=3)
    assert (r.fit_period, r.eval_period, r.n_fit, r.n_eval) == ("2026-W10", "2026-W11", 3, 300)
