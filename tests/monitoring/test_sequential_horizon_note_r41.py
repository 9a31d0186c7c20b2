"""Round 41: (1) a store's sequential alerts without a horizon key each label by the day it arrives, so a
class whose outcomes come sooner (frauds confirmed in 2 days, legitimate payments at 30) reads as
miscalibration: a calibrated store alarmed, with nothing said. The status text now says so under
sequential alerts without a horizon (not with one, nor under window alerts). (2) The provisional line's
verdict basis said the audit labels' gap "excludes" 0 where it held 0 too (the exact bound of fewer than 10
labels of one class made the verdict)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from veracity.monitoring import MonitorStore
from veracity.monitoring._status_rows import NO_HORIZON_SEQUENCES, _verdict_basis

pytest.importorskip("duckdb")
T0 = np.datetime64("2026-01-05", "s")
AS_OF = "2026-04-20"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Calibrated scores; positives labelled 2 days after their prediction, negatives 30 days after."""
    rng = np.random.default_rng(41)
    n = 20_000
    t = T0 + rng.integers(0, 90 * 86400, n).astype("timedelta64[s]")
    p = 1 / (1 + np.exp(-rng.normal(-2.2, 1.0, n)))
    y = (rng.random(n) < p).astype(np.int8)
    observed = t + np.where(y == 1, 2, 30).astype("timedelta64[D]").astype("timedelta64[s]")
    final = observed <= np.datetime64(AS_OF)
    s = MonitorStore(tmp_path_factory.mktemp("seq") / "m.duckdb")
    s.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    s.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": observed[final]}), id="id", label="y",
               time="ts")
    return s


def test_sequential_alerts_without_a_horizon_say_why_they_may_alarm(store):
    bare = store.status(freq="W", as_of=AS_OF, alerts="sequential")
    kept = store.status(freq="W", as_of=AS_OF, alerts="sequential", horizon="30d")
    assert NO_HORIZON_SEQUENCES in str(bare) and NO_HORIZON_SEQUENCES not in str(kept)
    assert NO_HORIZON_SEQUENCES not in str(store.status(freq="W", as_of=AS_OF))  # window alerts
    # the reason, on this calibrated store: keyed by arrival the sequence alarms, keyed by maturity not
    assert any(r.alerts for r in bare.rows) and not any(r.alerts for r in kept.rows)


def test_the_verdict_basis_names_the_exact_bound_where_both_gaps_hold_zero():
    ppi = {"estimate": 0.01, "ci_low": -0.02, "ci_high": 0.04}
    audit = {"estimate": 0.019, "ci_low": -0.008, "ci_high": 0.046}
    text = _verdict_basis(ppi, audit, True)
    assert "which excludes it" not in text
    assert "holds it too" in text and "exact binomial bound finds the scores miscalibrated" in text
    # where the audit labels' gap excludes 0, as before
    assert _verdict_basis(ppi, {"estimate": 0.05, "ci_low": 0.01, "ci_high": 0.09}, True).endswith(
        "which excludes it)")
