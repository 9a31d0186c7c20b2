"""Round 41: a Brier or log-loss difference that is the same on every row has no paired t interval.

Two models that score every row c or 1 - c (hard 0/1 predictions, say) differ by the same amount on every
row where one is right and the other wrong. Where that is every row, the per-row differences have no spread:
the t interval had no width and "excluded 0" at p < 0.0001 from two rows ("b has the lower Brier score
(Brier -0.9000 [-0.9000, -0.9000])"), and across 400 two-row slices of two equally good models 34 slices
were read "better" or "worse" with the false-discovery rate "controlled" (q < 0.0001). That interval and
p-value are now n/a (as the Murphy diagram's band of no spread), with a note, and no verdict reads them.
"""

import json

import numpy as np
import pytest

import veracity as vc


def _hard(y, right):
    """Scores 0.95 on the class a model calls, 0.05 on the other: right on the rows ``right``."""
    return np.where(right, y, 1 - y) * 0.9 + 0.05


@pytest.mark.parametrize("n, weighted", [(2, False), (12, False), (200, False), (12, True), (200, True)])
def test_a_difference_the_same_on_every_row_has_no_interval(n, weighted):
    y = np.tile([0, 1], n // 2)
    w = np.random.default_rng(n).uniform(0.5, 1.5, size=n) if weighted else None
    a, b = _hard(y, np.zeros(n, bool)), _hard(y, np.ones(n, bool))  # a always wrong, b always right
    r = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, random_state=0)
    for metric, diff in (("brier", -0.9), ("log_loss", np.log(0.05) - np.log(0.95))):
        row = r.row(metric)
        assert row.diff == pytest.approx(diff)
        # was [-0.9, -0.9] at p < 1e-16
        assert all(v != v for v in (row.ci_low, row.ci_high, row.p_value, row.se)), row
    assert "has the lower Brier score" not in r.verdict
    flat = [t for t in r.notes if t.startswith("every row's difference is the same (Brier b - a -0.9000, ")]
    assert len(flat) == 1 and "no model is called better" in flat[0]
    text = str(r)
    assert "[-0.9000, -0.9000]" not in text and "note: every row's difference is the same" in text
    assert "Kish effective size below 2" not in text  # the other n/a, for want of weight spread, not said


def test_a_constant_model_against_one_always_right_is_not_a_zero_width_interval():
    y = np.tile([0, 1], 100)
    r = vc.compare_models({"const": np.full(200, 0.5), "sep": np.where(y == 1, 0.9, 0.1)}, y, random_state=0)
    row = r.row("brier")
    assert row.diff == pytest.approx(-0.24) and row.ci_low != row.ci_low and row.p_value != row.p_value
    # the CORP parts keep their bootstrap intervals: sep resolves better, beyond noise
    d = r.corp_differences[0]
    assert d.dsc_low > 0.0 and "sep has the higher resolution" in r.verdict
    # the contrast: one row where both models are right (difference 0) beside rows where only b is, a real
    # spread, keeps its t interval, and identical models their exact [0, 0]
    y = np.tile([0, 1], 10)
    right_a = np.zeros(20, bool)
    right_a[0] = True
    r = vc.compare_models({"a": _hard(y, right_a), "b": _hard(y, np.ones(20, bool))}, y, n_resamples=0)
    row = r.row("brier")
    assert row.ci_low < row.diff < row.ci_high < 0.0 and row.p_value < 1e-10
    assert not any(t.startswith("every row's difference is the same") for t in r.notes)
    same = vc.compare_models({"a": _hard(y, right_a), "b": _hard(y, right_a)}, y, n_resamples=0)
    assert (same.row("brier").ci_low, same.row("brier").ci_high, same.row("brier").p_value) == (0.0, 0.0, 1.0)


def test_slices_of_two_equally_good_hard_models_are_not_read_beyond_noise():
    """Seeded false-discovery check: 400 two-row slices (one positive, one negative) of two exchangeable
    models, each right on a row with probability 0.7. Before: 34 slices read "better"/"worse" on the Brier
    and log-loss rows (q < 0.0001, every one false); a two-row slice whose rows differ otherwise has
    t = 1 on one degree of freedom (p = 0.5), so none now."""
    rng = np.random.default_rng(5)
    m = 400
    y = np.tile([0, 1], m)
    a = _hard(y, rng.uniform(size=2 * m) < 0.7)
    b = _hard(y, rng.uniform(size=2 * m) < 0.7)
    r = vc.compare_models({"a": a, "b": b}, y, by=np.repeat(np.arange(m), 2), random_state=0)
    read = [(k, row.metric) for k, g in r.groups.items() for row in g.rows
            if row.metric in ("brier", "log_loss") and row.reading in ("better", "worse")]
    assert read == []
    flat = [g for g in r.groups.values()
            if g.row("brier").diff != 0.0 and g.row("brier").p_value != g.row("brier").p_value]
    assert len(flat) > 20  # the slices where one model is right on both rows and the other wrong on both
    assert all(any(t.startswith("every row's difference is the same") for t in g.notes) for g in flat)
    assert all("has the lower Brier score" not in g.verdict for g in flat)
    # each slice reads as the comparison of its rows alone
    key = next(k for k, g in r.groups.items() if g in flat)
    rows = np.repeat(np.arange(m), 2) == int(key)
    alone = vc.compare_models({"a": a[rows], "b": b[rows]}, y[rows], random_state=0)
    assert alone.notes == r.groups[key].notes
    assert [(x.diff, x.ci_low != x.ci_low, x.p_value != x.p_value) for x in alone.rows[:2]] == \
        [(x.diff, True, True) for x in r.groups[key].rows[:2]]


def test_the_command_line_prints_n_a_and_writes_null(cli, tmp_path):
    y = np.tile([0, 1], 6)
    path = tmp_path / "hard.csv"
    path.write_text("a,b,y\n" + "".join(f"{0.05 + 0.9 * (1 - v)},{0.05 + 0.9 * v},{v}\n" for v in y))
    r = cli(["compare", path, "--score", "a", "--against", "b", "--label", "y", "--json"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    brier = next(row for row in doc["comparison"] if row["metric"] == "brier")
    assert brier["ci_low"] is None and brier["p_value"] is None and brier["diff"] == pytest.approx(-0.9)
    assert any(t.startswith("every row's difference is the same") for t in doc["notes"])
    text = cli(["compare", path, "--score", "a", "--against", "b", "--label", "y"])
    assert text.code == 0 and "[-0.9000, -0.9000]" not in text.out
