"""The report's "Over time" section from a monitoring store."""

import numpy as np
import pyarrow as pa
import pytest

from veracity.cli import main
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")
pytest.importorskip("matplotlib")


def _store(tmp_path):
    rng = np.random.default_rng(3)
    n = 3000
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 35 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.02, 0.6, n)
    late = t >= np.datetime64("2026-03-23")
    y = (rng.random(n) < np.where(late, np.minimum(2 * p, 1), p)).astype(int)  # week 13 on: miscalibrated
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    done = t < np.datetime64("2026-03-30")
    store.outcomes(pa.table({"id": np.arange(n)[done], "y": y[done], "seen": t[done] + np.timedelta64(86400, "s")}),
                   id="id", label="y", time="seen")
    return store


def test_report_store_section_cli(tmp_path, capsys):
    store = _store(tmp_path)
    out = tmp_path / "r.html"
    assert main(["report", "--store", str(store.path), "--as-of", "2026-04-06", "--no-bootstrap", "--out", str(out)]) == 0
    assert "over-time" in capsys.readouterr().out
    html = out.read_text()
    assert '<section id="over-time">' in html and 'href="#over-time"' in html
    assert 'id="store-alerts' in html  # the alert rings are drawn
    assert "2026-W13" in html and "calibration:" in html
    assert "pending" in html and "(100%)" in html  # the last week has no outcome yet
    status = store.status(freq="W", as_of="2026-04-06")
    assert [r.period for r in status.rows if r.alerts] == ["2026-W13"]
    # with a FILE the store section is added to that file's report
    assert main(["report", "--store", str(store.path), "--no-bootstrap", "--out", str(out)]) == 0


def test_report_store_without_labels_is_refused(tmp_path, capsys):
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": [1], "ts": ["2026-03-02"], "p": [0.3]}), id="id", time="ts", score="p")
    assert main(["report", "--store", str(store.path), "--out", str(tmp_path / "r.html")]) == 2
    assert "no labelled rows yet" in capsys.readouterr().err
