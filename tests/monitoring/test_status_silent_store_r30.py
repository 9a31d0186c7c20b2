"""Session 30: a daily ``status --last 4 --fail-on-alert`` whose logging step had stopped printed an empty
table and "alerts: none" and exited 0 for good, without a word: the periods after the latest prediction are
never listed, so the cut listed none. Once a whole period without a prediction lies between the latest
one's and the as-of time's, the status now warns, and the cut's note under the table names the latest
prediction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def stopped(tmp_path_factory) -> MonitorStore:
    """Two weeks of predictions (2026-W10, W11), then none."""
    rng = np.random.default_rng(3)
    n = 400
    ts = np.datetime64("2026-03-02", "s") + rng.integers(0, 14 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.1, 0.6, n)
    rows = pd.DataFrame({"id": np.arange(n), "ts": ts, "p": p, "y": (rng.random(n) < p).astype(int)})
    s = MonitorStore(tmp_path_factory.mktemp("stopped") / "m.duckdb")
    s.log(rows, id="id", time="ts", score="p")
    s.outcomes(rows, id="id", label="y", time="ts")
    return s


def test_a_cut_that_lists_nothing_says_when_the_predictions_stopped(stopped) -> None:
    with pytest.warns(UserWarning, match=r"no prediction in the listed weeks \(from 2026-W19 .*in 2026-W11; "
                                         "if the model still scores, the job that logs its predictions has "
                                         "stopped"):
        st = stopped.status(freq="W", as_of="2026-05-13", last=2)
    assert st.rows == () and not st.alerts
    # the latest of the rows logged (2026-03-02 + up to 14 days: in W11), to the second
    assert st.latest_unlisted is not None and "2026-03-09" <= st.latest_unlisted < "2026-03-16"
    assert f"no prediction since {st.latest_unlisted} UTC, the latest stored" in str(st)


def test_a_cut_that_lists_a_period_says_nothing_more(stopped, recwarn) -> None:
    st = stopped.status(freq="W", as_of="2026-03-16", last=2)
    assert [r.period for r in st.rows] == ["2026-W11"] and st.latest_unlisted is None
    assert "no prediction since" not in str(st) and not recwarn.list


def test_the_week_after_the_latest_prediction_alone_is_no_stop(stopped, recwarn) -> None:
    """A Monday job before the week's first batch is logged: nothing listed, and no word of a stop."""
    st = stopped.status(freq="W", as_of="2026-03-18", last=1)
    assert st.rows == () and st.latest_unlisted is None and not recwarn.list
