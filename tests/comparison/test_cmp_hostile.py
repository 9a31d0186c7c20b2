"""Hostile inputs and edge cases of the comparison functions: huge threshold grids, intervals of
zero width, ranges of net benefit, (N, 2) scores, and p-values that say what the interval says."""

import json

import numpy as np
import pytest

import veracity as vc
from veracity.comparison import _counts
from veracity.comparison._resample import percentile

MAX_THRESHOLDS = getattr(_counts, "MAX_THRESHOLDS", 100_000)  # (the old code had no limit)


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    q = 1 / (1 + np.exp(-1.5 * x))
    return q, 1 / (1 + np.exp(-(2 * x + 0.2))), (rng.random(n) < q).astype(float)


@pytest.mark.parametrize("fn", ["decision_curve", "murphy_diagram"])
def test_a_huge_threshold_grid_is_refused_in_one_line_naming_the_limit(fn):
    # 10**8 thresholds ran out of memory (several arrays and a result row per threshold and model);
    # one past the limit is refused before any work
    a, b, y = _data()
    grid = np.linspace(0.0, 0.99, MAX_THRESHOLDS + 1)
    key = "thresholds" if fn == "decision_curve" else "theta"
    with pytest.raises(vc.VeracityError, match=f"at most {MAX_THRESHOLDS:,}") as info:
        getattr(vc, fn)({"a": a, "b": b}, y, **{key: grid})
    assert "\n" not in str(info.value) and key in str(info.value)
    ok = getattr(vc, fn)({"a": a, "b": b}, y, **{key: grid[:1000]})  # a fine grid still works
    assert ok is not None


def test_treat_all_of_one_class_is_a_zero_width_interval_and_says_so():
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    dc = vc.decision_curve({"m": p}, np.ones(5), thresholds=[0.3, 0.5])
    assert np.all(dc.ci_low["all"] == dc.ci_high["all"])  # [1, 1]: every row's net benefit is 1
    assert any(t.startswith("'all': zero-width interval at every threshold") and "one class" in t for t in dc.notes)
    assert "note: 'all': zero-width" in str(dc)
    assert json.loads(json.dumps(dc.to_dict()))["notes"] == list(dc.notes)
    two = vc.decision_curve({"m": p}, np.array([0, 1, 0, 1, 1.0]), thresholds=[0.3, 0.5])
    assert not two.notes  # both classes, every strategy flags rows of both: real intervals, no note


def test_a_model_flagging_no_row_is_named_beside_its_zero_width_interval():
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    dc = vc.decision_curve({"m": p}, np.array([0, 1, 0, 1, 1.0]), thresholds=[0.3, 0.9])
    assert dc.ci_low["m"][1] == dc.ci_high["m"][1] == 0.0
    assert [t for t in dc.notes if t.startswith("'m': zero-width interval at 1 of 2 thresholds (e.g. 0.9)")]


def test_net_benefit_intervals_stay_in_the_range_of_a_net_benefit():
    # a per-row net benefit lies in [-t/(1-t), 1]; the normal interval reached above 1 on few rows
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    dc = vc.decision_curve({"m": p}, np.array([0, 1, 0, 1, 1.0]))
    odds = dc.thresholds / (1 - dc.thresholds)
    for name in ("m", "all"):
        assert np.all(dc.ci_high[name] <= 1.0) and np.all(dc.ci_low[name] >= -odds)
        assert np.all(dc.ci_low[name] <= dc.net_benefit[name]) and np.all(dc.net_benefit[name] <= dc.ci_high[name])


@pytest.mark.parametrize("labels, threshold, flagged", [(np.zeros(5), 0.05, "every"), (np.zeros(5), 0.9, "no"),
                                                        (np.ones(5), 0.05, "every")])
def test_realised_cost_of_one_class_is_a_wilson_interval_not_zero_width(labels, threshold, flagged):
    # every row cost the same: the Student-t interval of the per-row costs had zero width ([1, 1], with a
    # note). Round 21: the cost is a sum of binomial shares, each with its Wilson interval, which is not
    # zero width at 0 or n of n: 5 flagged negatives (cost 1 each) read [5/(5 + z^2), 1]; 0 misses among
    # 5 unflagged (cost 2) read [0, 2 z^2/(5 + z^2)]; 5 flagged positives cost 0, [0, z^2/(5 + z^2)]
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    r = vc.realised_cost({"a": p}, labels, threshold=threshold, cost_fn=2)
    row = r.rows[0]
    z2 = 1.959963984540054 ** 2
    cost = 1.0 if flagged == "every" else 2.0
    if labels[0] == 0 and flagged == "every":
        want = (1.0, 5 / (5 + z2), 1.0)
    else:
        want = (0.0, 0.0, cost * z2 / (5 + z2))
    assert (row.realised, row.realised_low, row.realised_high) == pytest.approx(want, abs=1e-12)
    gap = (want[1] - row.expected, want[2] - row.expected)
    assert (row.ci_low, row.ci_high) == pytest.approx(gap, abs=1e-12)
    assert not r.notes and "note:" not in str(r)
    both = vc.realised_cost({"a": p}, np.array([0, 1, 0, 1, 1.0]), threshold=0.3, cost_fn=2)
    assert not both.notes


def test_realised_cost_of_one_row_prints_no_nan():
    r = vc.realised_cost([0.3], [1], threshold=0.5, cost_fn=2)
    text = str(r)
    assert "nan" not in text and "1 row)" in text


@pytest.mark.parametrize("fn", [vc.compare_models, vc.murphy_diagram, vc.decision_curve])
def test_binary_two_column_scores_are_refused_with_the_column_to_pass(fn):
    a, b, y = _data()
    with pytest.raises(vc.VeracityError, match=r"pass P\[:, 1\]"):
        fn({"a": np.c_[1 - a, a], "b": np.c_[1 - b, b]}, y)


def test_a_bootstrap_p_value_below_the_level_exactly_when_the_interval_excludes_0():
    # (B + 1)(1 - level)/2 an integer in exact arithmetic: B = 199 at level 0.9 (x = 10). With 9
    # resampled values at or below 0 the p-value is 2 * 10 / 200 = 0.1, not below 0.1, so the interval
    # must hold 0; the old rule (k = floor(x + 1e-9) = 10) put its lower end above 0.
    for level, b in [(0.9, 199), (0.95, 199), (0.95, 200), (0.8, 99), (0.99, 999)]:
        for c in range(0, 25):
            d = np.concatenate([-np.arange(1.0, c + 1), np.arange(1.0, b - c + 1)])
            low, high, p = percentile(float(np.median(d)), d, level)
            alpha = round(1 - level, 12)
            assert (p < alpha) == (low > 0 or high < 0), (level, b, c, low, high, p)


def test_too_few_resamples_for_the_level_are_named():
    # 10 resamples: the "95 %" interval is the range of 10 values (an 82 % interval) and no p-value can
    # fall below 2/11; printed with no word before
    a, b, y = _data()
    r = vc.compare_models({"a": a, "b": b}, y, n_resamples=10, random_state=0)
    assert [t for t in r.notes if t.startswith("10 resamples are too few for 95% bootstrap intervals")]
    assert "pass n_resamples of at least 40" in str(r)
    assert not vc.compare_models({"a": a, "b": b}, y, n_resamples=40, random_state=0).notes
    assert not vc.compare_models({"a": a, "b": b}, y, n_resamples=0).notes


def test_a_gap_of_no_spread_has_the_p_value_of_the_law_of_the_labels():
    # five negatives all scored 0.3, none flagged: every row's gap is -0.6, the normal test's se is 0 and
    # its p-value was printed "<0.0001" (five rows proving miscalibration beyond doubt). The p-value reads
    # the law of the labels under calibration (round 21): the realised total 2K, K ~ Binomial(5, 0.3), is
    # as far from its mean 3 as the observed 0 when K = 0 or K >= 3
    from scipy import stats

    r = vc.realised_cost(np.full(5, 0.3), np.zeros(5), threshold=0.5, cost_fn=2)
    row = r.rows[0]
    k = stats.binom(5, 0.3)
    assert row.gap == pytest.approx(-0.6) and row.p_value == pytest.approx(k.pmf(0) + k.sf(2), abs=1e-12)
    assert "<0.0001" not in str(r)
    # its interval: no misses among 5 unflagged rows (cost 2), Wilson [0, z^2/(5 + z^2)] times 2, less the
    # expected 0.6 (it was the zero-width t interval [-0.6, -0.6] with a note)
    z2 = 1.959963984540054 ** 2
    assert (row.ci_low, row.ci_high) == pytest.approx((-0.6, 2 * z2 / (5 + z2) - 0.6), abs=1e-12)
    assert not r.notes and row.ci_low <= 0.0 <= row.ci_high and row.p_value > 0.05


def test_the_printed_best_strategy_names_ties():
    # at 0.9 the model flags no row: its net benefit is exactly 'none''s 0, and the table called it best
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    dc = vc.decision_curve({"m": p}, np.array([0, 1, 0, 1, 1.0]), thresholds=[0.5, 0.9])
    last = str(dc).splitlines()[3]
    assert last.startswith("0.900") and last.endswith("m = none")
    assert str(dc).splitlines()[2].endswith("  m") and dc.best() == ["m", "m"]


def test_the_difference_plot_keeps_the_sign_when_a_debiased_ece_is_negative():
    # a calibrated model's debiased ECE can fall below 0; the panel divided by it and drew the ECE
    # difference on the wrong side of 0
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(1)
    for _ in range(200):
        p = rng.random(300)
        y = (rng.random(300) < p).astype(float)
        r = vc.compare_models({"a": p, "b": np.clip(p + 0.05, 0, 1)}, y, n_resamples=0)
        if r.row("ece").value_a < 0:
            break
    row = r.row("ece")
    assert row.value_a < 0 and row.diff != 0
    fig = r.plot()
    dots = [line for line in fig.axes[1].get_lines() if line.get_marker() == "o"]
    assert np.sign(dots[2].get_xdata()[0]) == np.sign(row.diff)


def test_a_murphy_band_of_no_spread_calls_no_winner():
    # six negatives: at theta 0.3 and 0.5 model b flags every row and a none, so every row's difference
    # is the same (+theta); the zero-width band "excluded 0" and a was called better from six rows
    m = vc.murphy_diagram({"a": np.full(6, 0.2), "b": np.full(6, 0.6)}, np.zeros(6), theta=[0.3, 0.5, 0.7])
    d = m.difference
    assert np.isnan(d.ci_low[:2]).all() and np.isnan(d.p_value[:2]).all()
    # identical decisions at 0.7 in these six rows: 0, with a band holding 0 (six rows bound the share of
    # rows the models decide differently, they do not make it 0; round 31)
    assert d.diff[2] == 0.0 and d.ci_low[2] < 0.0 < d.ci_high[2]
    assert d.ranges(m.theta) == {"b": [], "a": []}
    assert "note: at 2 of 3 thresholds" in str(m)


@pytest.mark.parametrize("scale", [1.0, 0.1, 1e3])
def test_murphy_difference_ignores_the_weights_scale_where_the_models_agree(scale):
    """At θ where both models put every row on the same side the difference is exactly 0 — the
    two weighted counts, summed in different orders, differed by 1e-17, which read as a band
    of no width (n/a, "the same nonzero value") at one scale and a ±1e-9 band at another."""
    rng = np.random.default_rng(3)
    n = 600
    p = rng.uniform(0.02, 0.98, size=n)
    y = (rng.uniform(size=n) < p ** 1.2).astype(int)
    q = np.clip(p + rng.normal(0, 0.1, size=n), 0.01, 0.99)
    w = rng.uniform(0.5, 2.0, size=n)
    ref = vc.murphy_diagram({"a": p, "b": q}, y, sample_weight=w).differences[0]
    d = vc.murphy_diagram({"a": p, "b": q}, y, sample_weight=scale * w)
    diff = d.differences[0]
    agree = np.array([((p >= t) == (q >= t)).all() for t in d.theta])
    assert agree[:2].all()
    assert (diff.diff[agree] == 0.0).all() and (diff.p_value[agree] == 1.0).all()
    np.testing.assert_allclose(diff.p_value, ref.p_value, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(diff.ci_low, ref.ci_low, rtol=1e-9, atol=1e-15)
    assert "nonzero value" not in str(d)


def test_one_row_headers_say_row():
    assert "(1 row, prevalence" in str(vc.decision_curve({"a": [0.3]}, [1]))
    assert ", 1 row, 199 thresholds" in str(vc.murphy_diagram({"a": [0.3]}, [1]))


def test_compare_against_column_with_decimal_commas(tmp_path, capsys):
    from veracity.cli import main

    path = tmp_path / "eu.csv"
    path.write_text('score,label,b\n0.75,1,"0,7"\n0.25,0,"0,2"\n0.5,1,"0,4"\n')
    code = main(["compare", str(path), "--score", "score", "--against", "b", "--label", "label"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "decimal comma" in err
