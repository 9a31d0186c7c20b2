"""Session 32: a status's per-bin PPI records say why power tuning took lambda 0 on flat scores.

A model whose scores take a few values puts one value in each score bin: the bin's scores are constant,
power tuning takes ``lam`` 0 there (veracity.delayed._ppi_sums.flat_scores), and the bin's ``estimate_ppi``
printed ``"lam": 0.0`` with no reason, where the window's record carries the FLAT note (ppi_records). The
bins' ``estimate_ppi`` now carries ``note``: the same FLAT text exactly where lambda is 0 because the scores
are flat — not in a bin whose lambda is 0 for another reason (scores against the labels, clipped at 0; no
unlabelled row), nor where lambda is above 0."""

import json

import numpy as np
import pyarrow as pa
import pytest

pytest.importorskip("duckdb")

from veracity.delayed._ppi_result import FLAT  # noqa: E402
from veracity.monitoring import MonitorStore  # noqa: E402

AS_OF = "2026-01-12"
BINS = 15


def _store(tmp_path):
    """One week of rows: three discrete scores (0.1, 0.5, 0.85: bins 1, 7, 12) with audit labels and pending
    rows; continuous scores in [0.2, 0.4) (bins 3-5) whose labels run against the score inside each bin
    (lambda clipped to 0, scores not flat) and in [0.6, 0.8) (bins 9-11) whose labels follow it (lambda
    above 0); and the score 0.95 (bin 14) on audited rows only (no unlabelled row: lambda 0 by definition)."""
    rng = np.random.default_rng(32)
    t0 = np.datetime64("2026-01-05T00:00", "s")
    parts_p, parts_y, parts_a = [], [], []
    for value, rate in ((0.1, 0.1), (0.5, 0.5), (0.85, 0.85)):  # discrete: 1500 rows each, ~15% audited
        parts_p.append(np.full(1500, value))
        parts_y.append(rng.random(1500) < rate)
        parts_a.append(rng.random(1500) < 0.15)
    for lo, sign in ((0.2, -1), (0.6, 1)):
        p = lo + 0.2 * rng.random(3000)
        upper = (p * BINS) % 1.0 >= 0.5  # the upper half of the score's bin
        parts_p.append(p)
        parts_y.append(upper if sign > 0 else ~upper)
        parts_a.append(rng.random(3000) < 0.15)
    parts_p.append(np.full(60, 0.95))
    parts_y.append(rng.random(60) < 0.9)
    parts_a.append(np.ones(60, dtype=bool))
    p, y, audit = np.concatenate(parts_p), np.concatenate(parts_y), np.concatenate(parts_a)
    n = p.size
    t = t0 + rng.integers(0, 7 * 86400, n).astype("timedelta64[s]")
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    # the audit sample's labels only: every other row is pending
    store.outcomes(pa.table({"id": np.arange(n)[audit], "y": y[audit].astype(np.int8), "ts": t[audit]}),
                   id="id", label="y", time="ts", audit_sample=True)
    return store


def test_bins_of_flat_scores_carry_the_flat_note_exactly_where_lambda_is_0_for_it(tmp_path, cli):
    store = _store(tmp_path)
    st = store.status(freq="W", as_of=AS_OF, horizon="30d")
    row = st.to_dict()["periods"][0]
    assert row["pending"] > 0
    cells = {j: b["estimate_ppi"] for j, b in enumerate(row["bins"])}
    flat, against, follow, all_audited = (1, 7, 12), (3, 4, 5), (9, 10, 11), 14
    for j in flat:  # constant scores in the bin, unlabelled rows: lambda 0, said
        assert cells[j]["lam"] == 0.0 and cells[j]["labels"] >= 100
        assert cells[j]["note"] == FLAT
    for j in against:  # lambda 0 too, but the scores vary: no FLAT note
        assert cells[j]["lam"] == 0.0 and cells[j]["note"] is None
    for j in follow:
        assert cells[j]["lam"] > 0.0 and cells[j]["note"] is None
    assert cells[all_audited]["lam"] == 0.0 and cells[all_audited]["note"] is None  # no unlabelled row
    # every bin with a PPI estimate carries the key (None without a note): FLAT exactly on the flat bins
    assert {j for j, e in cells.items() if e is not None and e["note"] == FLAT} == set(flat)
    # the window (scores not constant over it) has no FLAT note, as its record says
    assert FLAT not in (row.get("ppi_note") or "")
    # the CLI's JSON: the same records, passing allow_nan=False
    res = cli(["monitor", "status", store.path, "--as-of", AS_OF, "--horizon", "30d", "--json", "-"])
    assert res.code in (0, 1), res.err
    out = json.loads(res.out)
    json.dumps(out, allow_nan=False)
    bins = out["periods"][0]["bins"]
    assert [b["estimate_ppi"] and b["estimate_ppi"]["note"] for b in bins] == [
        b["estimate_ppi"] and b["estimate_ppi"]["note"] for b in row["bins"]]
    # the text and the notebook views of the bins print the PPI rate, never a lambda or a rectifier
    text, page = str(st), st._repr_html_()
    section = text[text.index("per score bin"):]
    assert "PPI rate" in section and "lam" not in section and "rectifier" not in section
    html_bins = page[page.index("Per score bin"):].split("<details>")[0]
    assert "PPI rate" in html_bins and "lam" not in html_bins and "rectifier" not in html_bins
