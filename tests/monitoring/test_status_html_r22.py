"""The monitoring status in a notebook (round 22): the weekly table says the level of its intervals and
PSI its reference window, as the text does ('95% CI', 'PSI against 2026-W02'), and the per-bin section,
titled with the last window, says that its bounds read every final label of the bin so far."""

import re

import numpy as np
import pyarrow as pa
import pytest

from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")


def _outside_text(html: str) -> str:
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    return re.sub(r"<details><summary>as text</summary>.*?</details>", "", html, flags=re.S)


def _status(tmp_path, **kw):
    rng = np.random.default_rng(2)
    n = 12_000
    t0 = np.datetime64("2026-01-05", "s")
    ts = t0 + rng.integers(0, 28 * 86400, n).astype("timedelta64[s]")
    p = 1 / (1 + np.exp(-rng.normal(-1.0, 1.2, n)))
    y = (rng.random(n) < p).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": ts, "p": p}), id="id", time="ts", score="p")
    final = ts + np.timedelta64(7 * 86400, "s") <= np.datetime64("2026-02-02")
    store.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final],
                             "ts": ts[final] + np.timedelta64(7 * 86400, "s")}),
                   id="id", label="y", time="ts")
    audit = ~final & (rng.random(n) < 0.3)
    store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit],
                             "ts": ts[audit] + np.timedelta64(3600, "s")}),
                   id="id", label="y", time="ts", audit_sample=True)
    return store.status(freq="W", as_of="2026-02-02", horizon="7d", **kw)


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_weekly_table_says_its_level_and_psi_reference(tmp_path, level):
    st = _status(tmp_path, level=level, alerts="sequential")
    assert st.reference == "2026-W02"
    html = _outside_text(st._repr_html_())
    weekly = html.split("Per score bin")[0]
    pct = f"{level * 100:g}%"
    heads = re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", weekly)
    assert f"{pct} CI" in heads and "interval" not in heads and "psi" not in heads, heads
    assert f"PPI rate (all rows), {pct} CI" in heads and "PSI" in heads
    assert "<b>PSI</b>against 2026-W02" in weekly and f"<b>intervals</b>{pct} CI" in weekly


def test_bin_section_says_its_bounds_read_the_final_labels_so_far(tmp_path):
    st = _status(tmp_path, alerts="sequential")
    last = st.rows[-1]
    assert last.labelled == 0 and any(b["sequence_low"] is not None for b in last.bins)  # bounds, no label
    section = _outside_text(st._repr_html_()).split("Per score bin, " + last.period)[1]
    heads = re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", section)
    assert "bounds on rate - score (final labels so far)" in heads, heads
    assert "final labels so far, every window up to this one&#x27;s end" in section
    assert "final labels so far, every window up to this one's end" in str(st)
