"""Id columns of other types (session 38). float32 ids past 2**24 (float16: 2**11) are no longer exact, so
distinct ids became one (``16777217`` is stored as ``16777216``) where float64 ids past 2**53 were already
refused; binary ids that are no UTF-8 text raised pyarrow's raw ``ArrowInvalid: Invalid UTF8 payload``."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("duckdb")


def _table(ids):
    import pyarrow as pa

    n = len(ids)
    ts = np.full(n, np.datetime64("2026-03-02T10:00", "s"))
    return pa.table({"id": ids, "ts": ts, "p": np.linspace(0.1, 0.9, n)})


@pytest.mark.parametrize("ids, bits", [(np.array([1, 2, 20_000_000], np.float32), 24),
                                       (np.array([1, 2, 4000], np.float16), 11)])
def test_narrow_float_ids_past_their_exact_range_are_refused(tmp_path, ids, bits):
    width = ids.dtype.name
    from veracity.monitoring import MonitorStore

    with pytest.raises(vc.VeracityError, match=rf"holds ids beyond 2\*\*{bits} as {width} numbers"):
        MonitorStore(tmp_path / "m.duckdb").log(_table(ids), id="id", time="ts", score="p")
    got = MonitorStore(tmp_path / "m.duckdb").log(_table(ids[:2]), id="id", time="ts", score="p")
    assert got.inserted == 2  # exact whole numbers are ids as before


def test_binary_ids_that_are_not_text_are_refused_in_one_line(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    store = MonitorStore(tmp_path / "m.duckdb")
    with pytest.raises(vc.VeracityError, match="holds bytes that are not UTF-8 text"):
        store.log(_table(pa.array([b"a", b"\xff", b"c"])), id="id", time="ts", score="p")
    assert store.log(_table(pa.array([b"a", b"b"])), id="id", time="ts", score="p").inserted == 2
