"""Nanosecond times (what pandas writes to CSV) are read, cut to the microsecond."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import veracity as vc
from veracity.monitoring._time import to_utc_timestamps


@pytest.mark.parametrize("values, expected", [
    (pa.array(["2026-02-04 17:01:23.302446130"]), "2026-02-04T17:01:23.302446"),
    (pa.array(["2026-02-04T17:01:23.302446130+02:00"]), "2026-02-04T15:01:23.302446"),
    (pa.array([1_770_224_483_302_446_130], type=pa.timestamp("ns")), "2026-02-04T17:01:23.302446"),
])
def test_nanosecond_times_are_cut_to_the_microsecond(values, expected):
    out = to_utc_timestamps(values, "ts")
    assert out.type == pa.timestamp("us")
    assert out.to_numpy()[0] == np.datetime64(expected, "us")


def test_a_pandas_csv_with_nanosecond_times_logs(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    times = pd.Timestamp("2026-01-05") + pd.to_timedelta(rng.uniform(0, 20, n), unit="D")
    path = tmp_path / "preds.csv"
    pd.DataFrame({"id": np.arange(n), "ts": times, "p": rng.uniform(size=n)}).to_csv(path, index=False)
    # the file really has 9 fractional digits
    assert len(path.read_text().splitlines()[1].split(",")[1].split(".")[1]) == 9
    store = vc.MonitorStore(tmp_path / "s.duckdb")
    result = store.log(str(path), id="id", time="ts", score="p")
    assert result.inserted == n
    assert sum(row.rows for row in store.status(freq="W").rows) == n


def test_an_object_column_mixing_numbers_and_dates_is_refused_not_read_as_1970():
    """Issue 23's fuzz: a timestamp, ISO text and an int (epoch seconds) in one object column put the
    int in 1970-01 (numpy read it as nanoseconds); a mix has no one reading, so it is refused."""
    import numpy as np
    import pandas as pd
    import pytest

    import veracity as vc

    mixed = np.array([pd.Timestamp("2026-01-05"), "2026-02-05T00:00:00", 1767571200], dtype=object)
    with pytest.raises(vc.VeracityError, match="mixes numbers with dates or text") as err:
        vc.period_keys(mixed, freq="M")
    assert "\n" not in str(err.value)
    # numbers alone in an object column are epoch seconds, like an int64 column
    numbers = np.array([1767571200, 1770249600.0], dtype=object)
    assert vc.period_keys(numbers, freq="M").tolist() == vc.period_keys(
        np.array([1767571200, 1770249600]), freq="M").tolist() == ["2026-01", "2026-02"]
    # dates and text together (no numbers) still read as before
    assert vc.period_keys(np.array([pd.Timestamp("2026-01-05"), "2026-02-05"], dtype=object),
                          freq="M").tolist() == ["2026-01", "2026-02"]
