"""The delayed-label results: display, JSON, frames, plots, the planner's formula and bad input."""

import json

import numpy as np
import pytest

import veracity as vc
from veracity.delayed import plan_from_sums


def _window(seed=0, n=300, m=5000):
    rng = np.random.default_rng(seed)
    q = rng.beta(2, 8, n + m)
    y = (rng.random(q.size) < q).astype(float)
    return y[:n], q[:n], q[n:]


def test_ppi_mean_result_prints_serialises_and_draws():
    y, f, g = _window()
    r = vc.ppi_mean(y, f, g)
    text = str(r)
    assert text.startswith("rate of the window: PPI++ estimate") and "cbpe" in text and "rectifier" in text
    assert repr(r) == text and r.calibrated and r.note is None and r.valid
    d = json.loads(json.dumps(r.to_dict()))
    assert d["estimate"] == r.estimate and [m["method"] for m in d["methods"]] == ["ppi", "classical", "cbpe",
                                                                                  "rectifier"]
    assert list(r.to_frame()["method"]) == ["ppi", "classical", "cbpe", "rectifier"]
    assert "<table>" in r._repr_html_()
    fig = r.plot()
    assert {a.get_gid() for a in fig.axes[0].get_children() if a.get_gid()} >= {"ppi", "classical", "cbpe"}


def test_not_calibrated_note_when_the_rectifier_excludes_zero():
    y, f, g = _window(1, 800, 5000)
    r = vc.ppi_mean(y, np.clip(f * 1.6, 0, 1), np.clip(g * 1.6, 0, 1))
    assert not r.calibrated and r.rectifier_high < 0
    assert r.note == "the scores are not calibrated here; the label-free estimate is not valid"
    assert "note: the scores are not calibrated here" in str(r)


def test_confidence_sequence_plot_draws_the_band_the_alarm_reads():
    rng = np.random.default_rng(3)
    p = rng.beta(2, 8, 4000)
    y = (rng.random(p.size) < p + 0.08).astype(float)
    cs = vc.confidence_sequence(p, y, batches=np.arange(p.size) // 100, shift_at=0)
    assert cs.alarm_at is not None
    fig = cs.plot()
    ax = fig.axes[0]
    band = next(c for c in ax.collections if c.get_gid() == "band")
    # the band's vertices are the low/high arrays the alarm reads
    verts = band.get_paths()[0].vertices
    assert np.isclose(verts[:, 1].max(), np.nanmax(cs.high[1:])) or np.isclose(verts[:, 1].max(), cs.high.max())
    assert np.isclose(verts[:, 1].min(), cs.low.min())
    assert any(line.get_gid() == "alarm" for line in ax.lines)
    d = json.loads(json.dumps(cs.to_dict()))
    assert d["alarm_at"] == cs.alarm_at and d["steps"][cs.alarm_at]["status"] == "alert"
    assert len(cs.to_frame()) == cs.low.size and "ALARM" in str(cs)


def test_labels_needed_is_the_documented_formula():
    rng = np.random.default_rng(5)
    f = rng.beta(1, 4, 20000)
    n = vc.labels_needed(f, width=0.02, level=0.9)
    z = 1.6448536269514722
    expected = np.ceil((f * (1 - f)).mean() / ((0.01 / z) ** 2 - f.var() / f.size))
    assert n == int(expected)
    n_ppi, n_cls = plan_from_sums(rows=f.size, sum_f=f.sum(), sum_ff=f @ f, width=0.02, level=0.9)
    assert int(n_cls) == int(np.ceil(z * z * f.mean() * (1 - f.mean()) / 0.01**2)) and n_cls > n_ppi
    plan = vc.label_plan(f, width=0.02, level=0.9, by=np.arange(f.size) % 2)
    assert [r["group"] for r in plan.rows] == [0, 1] and "labels (PPI)" in str(plan)
    json.dumps(plan.to_dict())


@pytest.mark.parametrize("call,match", [
    (lambda: vc.ppi_mean([1, 0, 2], [0.1, 0.2, 0.3], [0.5]), "binary"),
    (lambda: vc.ppi_mean([1, 0], [0.1, 0.2, 0.3], [0.5]), "rows"),
    (lambda: vc.ppi_mean([1], [0.1], [0.5, 0.2]), "at least 2"),
    (lambda: vc.ppi_mean([1, 0], [0.1, 1.2], [0.5]), r"probabilities in \[0, 1\]"),
    (lambda: vc.ppi_mean([1, 0], [0.1, 0.2], []), "empty"),
    (lambda: vc.ppi_mean([1, 0], [0.1, np.nan], [0.5]), "NaN"),
    (lambda: vc.ppi_mean([1, 0], [0.1, 0.2], [0.5], level=95), "level"),
    (lambda: vc.ppi_mean([1, 0], [0.1, 0.2], [0.5], sample_check="maybe"), "sample_check"),
    (lambda: vc.ppi_mean([1, 0], [0.1, 0.2], [0.5], audit_sample=[True]), "audit_sample"),
    (lambda: vc.ppi_mean([1, 0], [0.1, 0.2], [0.5], audit_sample=[True, False]), "at least 2"),
    (lambda: vc.ppi_mean([1, 0], [0.1, 0.2], [0.5], sample_weight=[1, -1]), "non-negative"),
    (lambda: vc.ppi_audit([1, 0], [0.1, 0.2], [0.5], threshold=2), "threshold"),
    (lambda: vc.ppi_audit([1, 0], [0.1, 0.2], [0.5], bins=[0.2, 0.1]), "bins"),
    (lambda: vc.ppi_audit([1, 0], [0.1, 0.2], [0.5], cost_fp=-1), "cost_fp"),
    (lambda: vc.labels_needed([0.1, 0.2], width=0), "width"),
    (lambda: vc.labels_needed([0.1, 0.9] * 10, width=0.01), "no number of labels|only"),
    (lambda: vc.labels_needed([0.5] * 100, width=0.05), "only 100 rows"),
    (lambda: vc.confidence_sequence([0.1, 0.2], [1, 0], alpha=0), "alpha"),
    (lambda: vc.confidence_sequence([0.1, 0.2], [1, 0, 1]), "rows"),
    (lambda: vc.confidence_sequence([0.1, 0.2], [1, 0], batches=[1]), "batches"),
    (lambda: vc.confidence_sequence([0.1, 0.2], [1, 0], shift_at=5), "shift_at"),
    (lambda: vc.confidence_sequence([0.1, 2], [1, 0]), r"\[0, 1\]"),
])
def test_bad_input_is_one_line(call, match):
    with pytest.raises(vc.VeracityError, match=match) as e:
        call()
    assert "\n" not in str(e.value)


def test_binned_sequences_display_and_errors():
    rng = np.random.default_rng(8)
    p = rng.beta(1, 3, 3000)
    y = (rng.random(p.size) < p).astype(float)
    b = vc.binned_sequences(p, y, bins=[0, 0.3, 1], batches=np.arange(p.size) // 300)
    d = json.loads(json.dumps(b.to_dict()))
    assert d["alpha_per_bin"] == 0.025 and [r["bin"] for r in d["bins"]] == ["[0, 0.3)", "[0.3, 1]"]
    assert len(b.to_frame()) == 2 and "shared by 2 bins" in str(b)
    fig = b.plot()
    assert sum(1 for ax in fig.axes if ax.get_visible()) == 2
    with pytest.raises(vc.VeracityError, match="bins"):
        vc.binned_sequences(p, y, bins=0)
    with pytest.raises(vc.VeracityError, match="tolerance"):
        vc.binned_sequences(p, y, tolerance=-0.1)
