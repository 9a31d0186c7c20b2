"""Bootstrap intervals on too few rows of a class, and intervals with neither end known (round 22).

* Two rows (one positive, one negative) printed ``auc 1.0000 [1.0000, 1.0000]`` with boot SE 0 and
  ``accuracy 1.0000 [1.0000, 1.0000]``: zero-width "95 % intervals" from two rows. The bootstrap now
  follows vc.compare_models' rule (core._delong.MIN_CLASS_ROWS, few_class_rows): below 10 rows of a
  class (weighted: the class's Kish effective size) no interval, no boot SE, and a note.
* An MCE with no sufficient bin printed ``mce n/a [n/a, n/a]``: one ``n/a`` (core._display.interval_cell).
* The evidence for the rule: seeded coverage of the intervals the resamples would give there.
"""

import json

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main
from veracity.core._delong import MIN_CLASS_ROWS


def _calibrated(n, seed, a=2.0, b=2.0):
    rng = np.random.default_rng(seed)
    p = rng.beta(a, b, n)
    return p, (rng.uniform(size=n) < p).astype(int)


def _cell(text, metric):
    """The printed row of ``metric`` in a bootstrap table."""
    (line,) = [ln for ln in text.splitlines() if ln.split()[:1] == [metric]]
    return line


def test_two_rows_print_no_zero_width_interval():
    r = vc.bootstrap_intervals([0.2, 0.7], [0, 1], random_state=0)
    text = str(r)
    assert "[1.0000, 1.0000]" not in text  # the AUC's and accuracy's old zero-width "intervals"
    assert "[n/a, n/a]" not in text
    for metric in ("ece", "mce", "brier", "nll", "auc", "accuracy"):
        row = r[metric]
        assert np.isnan(row.low) and np.isnan(row.high) and np.isnan(row.se)  # no interval, no boot SE
        assert "n/a" in _cell(text, metric).split()[2:4]
    assert r["auc"].estimate == 1.0 and r["brier"].estimate == pytest.approx((0.2**2 + 0.3**2) / 2)
    assert "1 positive and 1 negative row" in text and f"at least {MIN_CLASS_ROWS} of each" in text
    assert r.notes and r.to_dict()["notes"] == list(r.notes)
    html = r._repr_html_()
    assert "[n/a" not in html and "[1.0000, 1.0000]" not in html
    assert "1 positive and 1 negative row" in html


def test_two_rows_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "two.csv"
    path.write_text("p,y\n0.2,0\n0.7,1\n")
    assert main(["audit", str(path), "--score", "p", "--label", "y", "--bootstrap"]) == 0
    out = capsys.readouterr().out
    assert "[1.0000, 1.0000]" not in out and "[n/a, n/a]" not in out
    assert "too few rows of a class (1 positive and 1 negative row" in out
    assert main(["audit", str(path), "--score", "p", "--label", "y", "--bootstrap", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    auc = doc["intervals"]["intervals"]["auc"]
    assert auc["estimate"] == 1.0 and auc["low"] is None and auc["high"] is None and auc["se"] is None
    assert doc["intervals"]["notes"] and "1 positive and 1 negative row" in doc["intervals"]["notes"][0]


@pytest.mark.parametrize("k, refused", [(MIN_CLASS_ROWS - 1, True), (MIN_CLASS_ROWS, False)])
def test_the_rule_is_ten_rows_of_each_class(k, refused):
    # k positives among 60 rows: the rarer class decides, as in vc.compare_models
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 60)
    y = np.r_[np.ones(k), np.zeros(60 - k)].astype(int)
    r = vc.bootstrap_intervals(p, y, n_resamples=200, random_state=0, min_count=1)  # every bin counts for MCE
    assert all(np.isnan(row.low) for row in r.intervals) == refused
    assert all(np.isfinite(row.low) for row in r.intervals) == (not refused)
    # (10 positives are few for an AUC: its own note, round 42; the refusal's note only when refused)
    assert bool([n for n in r.notes if "too few rows of a class" in n]) == refused
    # the same rule, and the same words, as vc.compare_models
    other = np.clip(p + rng.normal(0, 0.2, 60), 0.01, 0.99)  # another ranking: a nonzero AUC difference
    cmp = vc.compare_models({"a": p, "b": other}, y, n_resamples=50)
    auc = [row for row in cmp.rows if row.metric == "auc"][0]
    assert np.isnan(auc.ci_low) == refused


def test_weighted_rows_count_by_kish_effective_size():
    p, y = _calibrated(80, 4)
    assert min(y.sum(), (1 - y).sum()) >= 20
    same = vc.bootstrap_intervals(p, y, sample_weight=np.full(80, 1000.0), n_resamples=200, random_state=0)
    plain = vc.bootstrap_intervals(p, y, n_resamples=200, random_state=0)
    assert same.notes == plain.notes and np.isfinite(same["auc"].low)  # equal weights are the unweighted rows
    w = np.ones(80)
    w[np.flatnonzero(y == 1)[0]] = 1e6  # one positive carries the class: Kish size of the positives ~ 1
    heavy = vc.bootstrap_intervals(p, y, sample_weight=w, n_resamples=200, random_state=0)
    assert np.isnan(heavy["auc"].low) and "Kish effective sizes" in str(heavy)


def test_mce_without_a_sufficient_bin_prints_one_na():
    # enough rows of each class, but no bin reaches min_count: MCE has no estimate and no interval
    p, y = _calibrated(200, 5)
    r = vc.bootstrap_intervals(p, y, metrics=["mce", "brier"], n_resamples=100, min_count=500, random_state=0)
    assert np.isnan(r["mce"].estimate)
    text = str(r)
    assert "[n/a, n/a]" not in text
    assert _cell(text, "mce").split()[:4] == ["mce", "n/a", "n/a", "n/a"]
    assert "[n/a" not in r._repr_html_()


def _coverage(n, reps, truth_auc, truth_brier, seed):
    """Share of seeded samples of ``n`` calibrated rows (with both classes) whose 95 % percentile interval
    from the bootstrap's resamples holds the true AUC, and the true Brier score."""
    rng = np.random.default_rng(seed)
    hit_auc = hit_brier = used = 0
    while used < reps:
        p = rng.beta(2.0, 2.0, n)
        y = (rng.uniform(size=n) < p).astype(int)
        if y.min() == y.max():
            continue
        used += 1
        r = vc.bootstrap_intervals(p, y, metrics=["brier", "auc"], n_resamples=200, random_state=used)
        a = r.samples["auc"][np.isfinite(r.samples["auc"])]
        lo, hi = np.quantile(a, [0.025, 0.975])
        hit_auc += lo <= truth_auc <= hi
        lo, hi = np.quantile(r.samples["brier"], [0.025, 0.975])
        hit_brier += lo <= truth_brier <= hi
    return hit_auc / reps, hit_brier / reps


def test_resamples_of_few_rows_of_a_class_cover_far_less_than_95_percent():
    # the reason for the rule, from the definition: Beta(2, 2) calibrated scores, truth by a large draw
    rng = np.random.default_rng(0)
    big_p = rng.beta(2.0, 2.0, 200_000)
    big_y = (rng.uniform(size=big_p.size) < big_p).astype(int)
    from sklearn.metrics import roc_auc_score

    truth_auc = roc_auc_score(big_y, big_p)
    truth_brier = float(np.mean(big_p * (1 - big_p)))  # E (p - y)^2 of a calibrated model
    auc5, brier5 = _coverage(5, 120, truth_auc, truth_brier, seed=11)
    assert auc5 < 0.80 and brier5 < 0.92  # far below the 95 % the table would have claimed


def test_a_zero_width_interval_says_it_is_not_a_confidence_interval():
    # 200 rows, classes separated: every resample has AUC 1 and accuracy 1, so the "95 % interval" is
    # [1, 1] — yet a model with a true AUC of 0.99 shows such samples often; the row must say so
    rng = np.random.default_rng(0)
    p = np.r_[rng.uniform(0, 0.4, 100), rng.uniform(0.6, 1, 100)]
    y = np.r_[np.zeros(100), np.ones(100)].astype(int)
    for method in ("bca", "percentile"):
        r = vc.bootstrap_intervals(p, y, n_resamples=300, random_state=0, method=method)
        for metric in ("auc", "accuracy"):
            row = r[metric]
            assert row.low == row.high == 1.0
            assert "not a confidence interval" in row.note
            assert "not a confidence interval" in _cell(str(r), metric)
        assert "not a confidence interval" not in r["brier"].note  # a real spread: no such note


def test_the_html_report_shows_one_na_for_a_refused_interval():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.02, 0.3, 300)
    y = (rng.uniform(size=300) < p * 0.2).astype(int)
    assert 0 < y.sum() < MIN_CLASS_ROWS  # 7 positives: the bootstrap gives no interval
    page = vc.report(p, y).html
    assert "[n/a, n/a]" not in page
    assert "too few rows of a class" in page  # the reason travels with the n/a


def test_multiclass_counts_right_and_wrong_top_labels():
    # the top-label metrics read "top label right" as the positive class: 300 right, none wrong
    y = np.arange(300) % 3
    probs = np.eye(3)[y] * 0.97 + 0.01
    r = vc.audit(probs, y, bootstrap=True, n_resamples=100).extras["intervals"]
    assert np.isnan(r["accuracy"].low) and np.isnan(r["brier"].low)
    assert "300 positive and 0 negative rows (multiclass: a row is positive when its top label is right)" in str(r)
