"""What a user reads of vc.compare_models on too few rows of a class (session 21): the printed note, the
paired-differences plot. A note must not contradict the table, and a row whose interval is n/a must not be
drawn as a bare grey dot that the plot's key reads as "within noise"."""

import math

import numpy as np
import pytest

import veracity as vc


def _tiny():
    rng = np.random.default_rng(1)
    y = np.r_[np.ones(6), np.zeros(24)].astype(int)
    a = np.clip(rng.uniform(0, 1, 30) * 0.5 + 0.3 * y, 0.01, 0.99)
    b = np.clip(a + rng.normal(0, 0.05, 30), 0.01, 0.99)
    return a, b, y


def test_identical_models_on_few_rows_have_no_note_saying_intervals_are_n_a():
    # identical scores: every interval is the exact [0, 0] (shown), so a note "shown n/a" contradicts it
    a, _, y = _tiny()
    result = vc.compare_models({"a": a, "b": a.copy()}, y, random_state=0)
    assert all(math.isfinite(r.ci_low) and math.isfinite(r.ci_high) for r in result.rows)
    assert not any("shown n/a" in t for t in result.notes)
    assert "shown n/a" not in str(result)
    ranking = vc.compare_models({"a": a, "b": a.copy()}, y, score_type="score")
    assert not any("shown n/a" in t for t in ranking.notes)


def test_few_rows_note_stays_when_a_pair_differs():
    a, b, y = _tiny()
    result = vc.compare_models({"a": a, "b": b}, y, random_state=0)
    assert sum("shown n/a" in t for t in result.notes) == 1
    assert math.isnan(result.row("auc").ci_low) and math.isnan(result.row("ece").ci_low)


def test_plot_says_which_differences_have_no_interval():
    pytest.importorskip("matplotlib")
    a, b, y = _tiny()
    result = vc.compare_models({"a": a, "b": b}, y, random_state=0)
    na = [r for r in result.rows if not (math.isfinite(r.ci_low) and math.isfinite(r.ci_high))]
    assert {r.metric for r in na} == {"ece", "auc"}
    fig = result.plot()
    panel = next(ax for ax in fig.axes if ax.get_title(loc="left").startswith("Paired differences"))
    texts = [t.get_text() for t in panel.texts if t.get_gid() == "no-interval"]
    assert len(texts) == len(na)
    assert all("no interval (n/a)" in t for t in texts)


def test_note_does_not_say_the_brier_interval_stands_when_it_is_n_a():
    # one row of weight 1,000 among 50: the Kish effective size is about 1.1, below the 2 the paired t needs,
    # so the Brier and log-loss intervals are n/a too; the note said they "stand"
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 50)
    a, b = rng.uniform(size=50), rng.uniform(size=50)
    w = np.ones(50)
    w[0] = 1000.0
    result = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, random_state=0)
    assert (w.sum() ** 2 / (w * w).sum()) < 2
    assert math.isnan(result.row("brier").ci_low) and math.isnan(result.row("log_loss").ci_low)
    assert not any("intervals (paired t) stand" in t for t in result.notes)
    assert any("Brier and log-loss intervals (paired t) are n/a too" in t for t in result.notes)


def test_realised_cost_notebook_view_says_how_the_p_value_is_read():
    # the printout's "p-value of gap 0: exact / Monte-Carlo ..." line was missing from the notebook view,
    # which showed the realised interval as two bare columns (realised_low, realised_high)
    a, b, y = _tiny()
    w = np.random.default_rng(0).lognormal(0.0, 1.0, y.size)
    for weights in (None, w):
        cost = vc.realised_cost({"a": a, "b": b}, y, threshold=0.5, cost_fp=1, cost_fn=5,
                                sample_weight=weights)
        page = cost._repr_html_()
        line = str(cost).splitlines()[-1]
        assert line.startswith("p-value of gap 0: ")
        assert line.replace("(", "").split(",")[0] in page.replace("(", "")
        assert page.count("p-value of gap 0") == 2  # the note, and the text under "as text"
        for r in cost.rows:
            assert f"[{r.realised_low:.4f}, {r.realised_high:.4f}]" in page
        assert "realised_low" not in page.split("<details>")[0]
