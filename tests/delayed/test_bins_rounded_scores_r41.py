"""Session 41: equal-width score bins of the delayed-label tools (``vc.ppi_audit``, ``vc.binned_sequences``)
follow the one bin rule of ``vc.audit`` and the monitoring store, min(floor(p M), M - 1).

Before, ``bins=10`` meant ``np.linspace(0, 1, 11)``, whose edge 3 * 0.1 is 0.30000000000000004: scores rounded
to one decimal (0.3, 0.6, 0.7) fell in the bin below the one printed for them — ``rate in [0.2, 0.3)`` held
every score 0.3 (its CBPE, the bin's mean score, read 0.2489), ``[0.3, 0.4)`` was missing from the table, and
the store's per-bin rates, binned by the floor rule, disagreed with ``vc.ppi_audit``'s on the same rows.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

#: scores as a model rounding to one decimal gives them; 0.3, 0.6 and 0.7 are the values linspace misplaced
ROUNDED = np.round(np.arange(1, 10) / 10, 1)


def _window(seed: int = 41, n: int = 6_000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    f = rng.choice(ROUNDED, n)
    return f, (rng.random(n) < f).astype(int)


def test_ppi_audit_bins_hold_the_scores_their_labels_name():
    f, y = _window()
    a = vc.ppi_audit(y[:600], f[:600], f[600:], bins=10, sample_check="off")
    bins = [r for r in a.to_dict()["rows"] if r["quantity"].startswith("rate in")]
    # one bin per distinct score, each named for it: [0.1, 0.2) ... [0.9, 1]
    assert [r["lo"] for r in bins] == pytest.approx(ROUNDED)
    for r in bins:
        assert r["conf"] == pytest.approx(r["lo"], abs=1e-12)  # every score of the bin is its lower edge
        assert r["n_labelled"] == int(np.isclose(f[:600], r["lo"]).sum())


@pytest.mark.parametrize("bins", [5, 7, 10, 11, 13, 14])
def test_ppi_audit_and_binned_sequences_bin_as_the_core_rule(bins):
    """The labelled counts per bin equal min(floor(p M), M - 1) counts, the rule of vc.audit and of the
    store's SQL (veracity.core._binning.bin_index), at scores on every edge k/M and one ulp either side."""
    edges = np.arange(bins + 1) / bins
    f = np.clip(np.concatenate([edges, np.nextafter(edges, 2), np.nextafter(edges, -1)]), 0, 1)
    f = np.tile(f, 20)
    y = (np.arange(f.size) % 3 == 0).astype(int)
    want = np.bincount(np.minimum(np.floor(f * bins), bins - 1).astype(int), minlength=bins)
    g = np.full(50, 0.5)
    a = vc.ppi_audit(y, f, g, bins=bins, sample_check="off")
    rows = [r for r in a.to_dict()["rows"] if r["quantity"].startswith("rate in")]
    got = {round(r["lo"] * bins): r["n_labelled"] for r in rows}
    assert got == {k: int(c) for k, c in enumerate(want) if c}
    b = vc.binned_sequences(f, y, bins=bins)
    assert [r["n"] for r in b.rows()] == want.tolist()


def test_binned_sequences_put_rounded_scores_in_their_own_bin():
    f, y = _window(seed=7, n=3_000)
    rows = vc.binned_sequences(f, y, bins=10).rows()
    assert [r["n"] for r in rows] == [0] + [int(np.isclose(f, v).sum()) for v in ROUNDED]


def test_ppi_audit_bins_equal_the_stores_bins_on_rounded_scores(tmp_path):
    """Two routes, one window: the store's per-bin PPI rate and vc.ppi_audit's on the same rows."""
    pytest.importorskip("duckdb")
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(3)
    n = 1_200
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 5 * 86_400, n).astype("timedelta64[s]")
    f = rng.choice(np.array([0.2, 0.4, 0.6, 0.8]), n)
    y = (rng.random(n) < f).astype(int)
    audit = rng.random(n) < 0.4
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": f}), id="id", time="ts", score="p")
    later = t[audit] + np.timedelta64(60, "s")
    store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": later}), id="id", label="y",
                   time="ts", audit_sample=True)
    st = store.status(freq="W", as_of="2026-03-09", horizon="30d", bins=5)
    cells = [c for c in st.rows[0].bins if c["estimate_ppi"] is not None]
    aud = vc.ppi_audit(y[audit], f[audit], f[~audit], bins=5, sample_check="off")
    rows = [r for r in aud.to_dict()["rows"] if r["quantity"].startswith("rate in")]
    assert [c["lo"] for c in cells] == pytest.approx([0.2, 0.4, 0.6, 0.8])
    assert [r["lo"] for r in rows] == pytest.approx([0.2, 0.4, 0.6, 0.8])
    for c, r in zip(cells, rows):
        e = c["estimate_ppi"]
        assert e["labels"] == r["n_labelled"]
        want = (r["estimate"], r["ci_low"], r["ci_high"])
        assert (e["estimate"], e["ci_low"], e["ci_high"]) == pytest.approx(want, abs=1e-9)


def test_binned_sequences_equal_the_stores_per_bin_sequences_on_rounded_scores(tmp_path):
    """The store's per-bin bounds (alpha / 2 over the bins, one batch per day the labels became final) are
    vc.binned_sequences' on the same final labels: the same rows in each bin, the same bounds."""
    pytest.importorskip("duckdb")
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(15)
    n = 3_000
    t = np.datetime64("2026-01-05", "s") + rng.integers(0, 20 * 86_400, n).astype("timedelta64[s]")
    f = rng.choice(ROUNDED, n)
    y = (rng.random(n) < f).astype(int)
    observed = t + np.timedelta64(3 * 86_400, "s")
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": f}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": observed}), id="id", label="y", time="ts")
    as_of = np.datetime64("2026-01-30")
    st = store.status(freq="W", as_of=str(as_of), horizon="3d", alerts="sequential", bins=10)
    final = observed <= as_of
    b = vc.binned_sequences(f[final], y[final], bins=10, batches=observed[final].astype("datetime64[D]"),
                            alpha=(1 - st.alert_level) / 2)
    cells = st.rows[-1].bins
    assert [c["sequence_labels"] for c in cells] == [r["n"] for r in b.rows()]
    assert [c["sequence_labels"] for c in cells][3] == int((np.isclose(f, 0.3) & final).sum()) > 0
    for c, r in zip(cells[1:], b.rows()[1:]):
        assert (c["sequence_low"], c["sequence_high"]) == pytest.approx((r["low"], r["high"]), abs=1e-12)
