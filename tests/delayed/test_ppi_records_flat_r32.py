"""Constant scores: power tuning takes lambda 0 and vc.ppi_mean says why (_ppi_result.FLAT); the JSON
records of ppi_records (monitor status --json: estimate_ppi.lam 0, the row's ppi_note) carry the same note,
so a lambda of 0 is never left without its reason."""

import json

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.delayed import PpiSums, ppi_records

FLAT_WORDS = "the scores are constant"


def _stack(parts):
    return PpiSums(**{k: np.array([getattr(p, k) for p in parts]) for k in PpiSums.__dataclass_fields__})


def test_record_of_constant_scores_says_why_lambda_is_0():
    rng = np.random.default_rng(0)
    y = (rng.random(60) < 0.4).astype(float)
    r = vc.ppi_mean(y, np.full(60, 0.4), np.full(5000, 0.4), sample_check="off")
    assert r.lam == 0.0 and any(FLAT_WORDS in t for t in r.notes)
    rec = ppi_records(PpiSums.of(y, np.full(60, 0.4), np.full(5000, 0.4)))[0]
    json.dumps(rec, allow_nan=False)
    assert rec["estimate_ppi"]["lam"] == 0.0
    assert rec["note"] is not None and FLAT_WORDS in rec["note"]
    assert rec["note"] == r.note  # the notes vc.ppi_mean gives the same window, in its order


def test_only_the_flat_window_of_several_carries_the_note():
    rng = np.random.default_rng(1)
    y = (rng.random(200) < 0.3).astype(float)
    f = np.clip(0.3 + 0.4 * (y - 0.3) + 0.05 * rng.standard_normal(200), 0.01, 0.99)
    g = np.clip(0.3 + 0.05 * rng.standard_normal(4000), 0.01, 0.99)
    informative = PpiSums.of(y, f, g)
    flat = PpiSums.of(y, np.full(200, 0.3), np.full(4000, 0.3))
    no_unlabelled = PpiSums.of(y, np.full(200, 0.3), np.zeros(0))  # lambda 0 by definition: no tuning
    recs = ppi_records(_stack([informative, flat, no_unlabelled]))
    assert recs[0]["estimate_ppi"]["lam"] > 0.1 and FLAT_WORDS not in (recs[0]["note"] or "")
    assert recs[1]["estimate_ppi"]["lam"] == 0.0 and FLAT_WORDS in recs[1]["note"]
    assert FLAT_WORDS not in (recs[2]["note"] or "")
    # untuned (lambda 1): no tuning to explain
    untuned = ppi_records(flat, power_tuning=False)[0]
    assert untuned["estimate_ppi"]["lam"] == 1.0 and FLAT_WORDS not in (untuned["note"] or "")


def test_weighted_constant_scores_record_matches_ppi_mean():
    rng = np.random.default_rng(2)
    y = (rng.random(80) < 0.3).astype(float)
    w = rng.lognormal(0.0, 0.5, 80)
    r = vc.ppi_mean(y, np.full(80, 0.3), np.full(4000, 0.3), sample_weight=w, sample_check="off")
    rec = ppi_records(PpiSums.of(y, np.full(80, 0.3), np.full(4000, 0.3), w))[0]
    assert r.lam == 0.0 == rec["estimate_ppi"]["lam"]
    assert FLAT_WORDS in rec["note"] and any(FLAT_WORDS in t for t in r.notes)


def test_monitor_status_json_gives_lambda_0_its_reason(tmp_path):
    pytest.importorskip("duckdb")
    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(3)
    n = 3000
    t0 = np.datetime64("2026-01-05T00:00", "s")
    t = t0 + rng.integers(0, 7 * 86400, n).astype("timedelta64[s]")
    y = (rng.random(n) < 0.2).astype(np.int8)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": np.full(n, 0.2)}), id="id", time="ts", score="p")
    audit = rng.random(n) < 0.1
    store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit], "ts": t[audit]}), id="id", label="y",
                   time="ts", audit_sample=True)
    st = store.status(freq="W", as_of="2026-01-12", horizon="30d")
    row = st.to_dict()["periods"][0]
    assert row["estimate_ppi"]["lam"] == 0.0 and row["estimate_ppi"]["labels"] == int(audit.sum())
    assert FLAT_WORDS in row["ppi_note"]
    assert FLAT_WORDS in str(st)  # the text prints the same note beside the PPI rate
