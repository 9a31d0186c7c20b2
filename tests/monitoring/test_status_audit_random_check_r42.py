"""The store's PPI reads only random audit labels: a sample drawn by score is said NOT VALID (session 42).

``vc.ppi_audit`` refuses labelled rows whose scores differ from the window's (a chi-square test at
p < 1e-4); the store's status used whatever was marked ``--audit-sample`` in silence: reviewed high scores
gave a PPI rate of 0.30 [0.24, 0.36] for a rate of 0.20, and a gap that "excludes 0". The status now runs the
same check on its score bins and leads the window's provisional line (and its JSON ``ppi_note``) with NOT
VALID; its figure draws no PPI estimate there.
"""

import json

import numpy as np
import pyarrow as pa
import pytest

from veracity.cli import main
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")
T0 = np.datetime64("2026-03-02T00:00", "s")
DAY = np.timedelta64(86400, "s")


def _store(tmp_path, days=120, per_day=300, seed=3):
    """Two models over the same days: model a's audit labels are drawn at random (10 %), model b's are the
    reviewed rows: 30 % of those scored above 0.25 (about 10 % of all), none below."""
    rng = np.random.default_rng(seed)
    n = days * per_day
    day = np.repeat(np.arange(days), per_day)
    t = T0 + (day * 86400 + rng.integers(0, 86400, n)).astype("timedelta64[s]")
    store = MonitorStore(tmp_path / "m.duckdb")
    for model in ("a", "b"):
        p = rng.beta(2, 8, n)
        y = (rng.random(n) < p).astype(int)
        ids = np.char.add(model, np.arange(n).astype(str))
        store.log(pa.table({"id": ids, "ts": t, "p": p}), id="id", time="ts", score="p", model=model)
        chance = np.full(n, 0.1) if model == "a" else np.where(p > 0.25, 0.3, 0.0)
        aud = rng.random(n) < chance
        store.outcomes(pa.table({"id": ids[aud], "y": y[aud], "ts": t[aud] + DAY}), id="id", label="y",
                       time="ts", audit_sample=True)
    return store


def _flagged(status):
    return [r for r in status.rows if "NOT VALID" in str(r.details.get("ppi_note") or "")]


def test_random_audit_samples_pass_and_samples_drawn_by_score_are_flagged(tmp_path, capsys):
    store = _store(tmp_path)
    kw = dict(freq="D", as_of="2026-07-10", horizon="400d", max_periods=2000)
    random_ = store.status(model="a", **kw)
    assert len(random_.rows) == 120 and all(r.estimate_ppi for r in random_.rows)
    assert _flagged(random_) == []  # 120 windows of ~30 random audit labels: no false flag (p < 1e-4 each)
    by_score = store.status(model="b", **kw)
    flagged = _flagged(by_score)
    # 108 of 120 flagged (90 %) at ~30 audit labels a window; vc.ppi_audit's own check, on quantile bins: 95 %
    assert len(flagged) >= 100
    assert "are not a random sample of the window" in flagged[0].details["ppi_note"]
    text = str(by_score)
    line = next(x for x in text.splitlines() if x.startswith(f"  {flagged[0].period}: NOT VALID"))
    assert line.index("NOT VALID") < line.index("PPI rate")  # said before the numbers it voids
    assert main(["monitor", "status", str(store.path), "--model", "b", "--freq", "D", "--as-of", "2026-07-10",
                 "--horizon", "400d", "--json", "-"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sum("NOT VALID" in str(p["ppi_note"]) for p in out["periods"] if "ppi_note" in p) == len(flagged)


def test_the_figure_draws_no_ppi_estimate_where_the_audit_labels_are_not_random(tmp_path):
    pytest.importorskip("matplotlib")
    store = _store(tmp_path, days=3)
    kw = dict(freq="D", as_of="2026-07-10", horizon="400d")

    def ppi_points(status):
        """How many PPI markers the figure draws (top: the estimate, middle: its gap), and its legend text."""
        import matplotlib.pyplot as plt

        fig = status.plot()
        try:
            marks = [a for ax in fig.axes for a in ax.get_lines() if a.get_gid() in ("ppi", "ppi-gap")]
            return sum(len(a.get_xdata()) for a in marks), fig.get_supxlabel()  # the note under the figure
        finally:
            plt.close(fig)

    drawn, _ = ppi_points(store.status(model="a", **kw))
    assert drawn > 0
    voided = store.status(model="b", **kw)
    assert len(_flagged(voided)) == 3
    drawn, legend = ppi_points(voided)
    assert drawn == 0
    assert "no PPI drawn for 2026-03-02 and 2 more: its audit labels are not a random sample" in legend


def test_the_vectorised_check_is_vc_ppi_audits_merge_and_test_window_by_window():
    from veracity.delayed._ppi import merge_sparse_bins, sample_check_p
    from veracity.monitoring._status_delayed import _merged_chi2_p

    rng = np.random.default_rng(0)
    a = rng.poisson(rng.uniform(0, 6, (600, 1)) * rng.uniform(0, 1, (600, 15))).astype(float)
    b = rng.poisson(rng.uniform(0, 80, (600, 1)) * rng.uniform(0, 1, (600, 15))).astype(float)
    a[:20] = 0  # no audit label; two in one bin; no other row; all in the last bin
    a[20:40] = 0
    a[20:40, 3] = 2
    b[40:60] = 0
    a[60:80, :14] = 0
    ref = [sample_check_p(*merge_sparse_bins(x[(x + y) > 0], y[(x + y) > 0])) if x.sum() and y.sum() else 1.0
           for x, y in zip(a, b)]
    assert np.allclose(_merged_chi2_p(a, b), ref, rtol=1e-9, atol=0)
