"""The gap rate - score of a pending window read from its audit labels (session 35).

A status row carried two estimates of one window's gap: ``gap_ppi`` (the PPI rate minus the mean score of
all its rows, printed as the provisional line's "gap (rate - score)") and, nested in ``estimate_ppi`` under
another name, ``rate_minus_score`` (the audit labels' own mean(y - p), which the "not calibrated" note
judges). The two can disagree: 30 audit labels of calibrated-looking scores printed
``gap (rate - score) -0.1748 [-0.3117, +0.0063] ... the scores are not calibrated here`` — an interval
holding 0 beside a verdict that it does not. Now the audit labels' gap is a row key of its own,
``gap_audit`` (``rate_minus_score`` stays, the same dict), and where the verdict and the printed interval
disagree the line shows the gap the verdict reads.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc

pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

T0 = np.datetime64("2026-01-05T00:00", "s")


def _window(tmp_path, seed, n=2000, audit=30):
    """One pending week of ``n`` Beta(2, 3) scores with ``audit`` random audit labels."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 3, n)
    y = (rng.random(n) < p).astype(int)
    a = rng.choice(n, audit, replace=False)
    t = T0 + np.arange(n).astype("timedelta64[s]") * 300
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": a, "y": y[a], "ts": t[a]}), id="id", label="y", time="ts",
                   audit_sample=True)
    lab = np.zeros(n, dtype=bool)
    lab[a] = True
    status = store.status(freq="W", as_of="2026-01-20", horizon="60d")
    return status, p, y, lab


@pytest.fixture(scope="module")
def disagreeing(tmp_path_factory):
    """Seed 32: the printed PPI gap's interval holds 0, the audit labels' own gap's excludes it."""
    return _window(tmp_path_factory.mktemp("r35"), 32)


def _three(d):
    return d["estimate"], d["ci_low"], d["ci_high"]


def test_gap_audit_is_the_audit_labels_gap_and_rate_minus_score_its_alias(disagreeing):
    status, p, y, lab = disagreeing
    (row,) = status.rows
    ref = vc.ppi_mean(y[lab], p[lab], p[~lab], sample_check="off")
    d = json.loads(json.dumps(status.to_dict(), default=str))["periods"][0]
    # the audit labels' own mean(y - p): by hand, and vc.ppi_mean's rectifier with its interval
    assert d["gap_audit"]["estimate"] == pytest.approx(float(np.mean(y[lab] - p[lab])), abs=1e-12)
    assert _three(d["gap_audit"]) == pytest.approx((ref.rectifier, ref.rectifier_low, ref.rectifier_high),
                                                   abs=1e-9)
    assert d["estimate_ppi"]["rate_minus_score"] == d["gap_audit"]  # the earlier name, kept
    # gap_ppi keeps its meaning: the PPI rate minus the mean score of all the window's rows
    m = float(p.mean())
    assert _three(d["gap_ppi"]) == pytest.approx((ref.estimate - m, ref.ci_low - m, ref.ci_high - m),
                                                 abs=1e-9)
    assert row.gap_audit == d["gap_audit"]


def test_a_line_whose_gap_holds_0_says_which_gap_the_not_calibrated_note_reads(disagreeing):
    status, p, y, lab = disagreeing
    (row,) = status.rows
    g, a = row.gap_ppi, row.gap_audit
    assert g["ci_low"] < 0 < g["ci_high"] and a["ci_high"] < 0  # the two disagree on this window
    line = next(ln for ln in str(status).splitlines() if ": PPI rate " in ln)
    assert "the scores are not calibrated here" in line
    own = f"the audit labels' own gap {a['estimate']:+.4f} [{a['ci_low']:+.4f}, {a['ci_high']:+.4f}]"
    assert own in line
    assert line.index(own) < line.index("the scores are not calibrated here")


def test_no_basis_is_added_where_the_printed_gap_and_the_verdict_agree(tmp_path):
    status, p, y, lab = _window(tmp_path, 1, audit=200)
    (row,) = status.rows
    g = row.gap_ppi
    line = next(ln for ln in str(status).splitlines() if ": PPI rate " in ln)
    holds = g["ci_low"] <= 0 <= g["ci_high"]
    assert holds == ("not calibrated here" not in line)
    assert "audit labels' own gap" not in line


def test_a_line_whose_gap_excludes_0_says_why_no_not_calibrated_note_follows(tmp_path):
    # seed 197: the PPI gap's interval excludes 0; the audit labels' own does too, but with 8 positives of
    # 30 labels the exact binomial bound finds no evidence of miscalibration, so no "not calibrated" note
    status, p, y, lab = _window(tmp_path, 197)
    (row,) = status.rows
    g, a = row.gap_ppi, row.gap_audit
    assert g["ci_high"] < 0 and a["ci_high"] < 0 and int(y[lab].sum()) < 10
    line = next(ln for ln in str(status).splitlines() if ": PPI rate " in ln)
    assert "not calibrated here" not in line
    own = f"the audit labels' own gap {a['estimate']:+.4f} [{a['ci_low']:+.4f}, {a['ci_high']:+.4f}]"
    assert own + ", with fewer than 10 labels of one class no evidence of miscalibration" in line
