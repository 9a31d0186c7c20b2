"""A weighted AUC's bootstrap interval on few effective rows says it may under-cover (round 32).

Seeded, 95 % BCa and percentile intervals of a weighted AUC with heavy-tailed log-normal weights covered
the true weighted AUC 0.87-0.91 of the time where the smaller class's Kish effective size was 10-60
(tests/claims/test_claims_bootstrap_r32.py, whose xfail keeps the finding); no interval tried (t on the
Kish size, logit-scale jackknife-t, BCa with a t correction, widening by sqrt(n / n_eff)) held the level
in every setting without being far too wide, so the interval is shown unchanged with a note when that
Kish size is below 100. It printed no note before.
"""

import json

import numpy as np
import pytest

import veracity as vc


def _rows(n, sigma, seed=3210):
    """Calibrated uniform scores, log-normal weights rising with the score (the claims test's setting)."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    return p, y, np.exp(rng.normal(0.0, sigma, n) + 2.0 * p)


def _smaller_kish(y, w):
    return min(w[y == c].sum() ** 2 / (w[y == c] ** 2).sum() for c in (0, 1))


def test_heavy_weights_few_effective_rows_note_the_weighted_auc():
    p, y, w = _rows(300, 1.2)
    kish = _smaller_kish(y, w)
    assert 10 < kish < 100
    r = vc.bootstrap_intervals(p, y, sample_weight=w, metrics=("auc", "brier"), n_resamples=199,
                               random_state=0)
    assert np.isfinite(r["auc"].low)  # the interval is still shown
    # the rows' Kish size is below 100 too: the Brier interval carries its own note (round 33,
    # tests/honest/test_bootstrap_weighted_means_r33.py)
    assert w.sum() ** 2 / (w * w).sum() < 100
    assert "may under-cover" in r["auc"].note and "may under-cover" in r["brier"].note
    note, means_note = r.notes
    assert means_note.startswith("the intervals of weighted means (Brier score) may cover less often")
    assert f"Kish effective size is {kish:.1f}" in note and "0.87-0.91" in note
    assert r.to_dict()["notes"] == [note, means_note] and r.to_dict()["intervals"]["auc"]["note"] == r["auc"].note
    text = str(r)
    (auc_line,) = [ln for ln in text.splitlines() if ln.startswith("auc")]
    assert f"note: {note}" in text and "may under-cover" in auc_line
    # the interval itself is what it was: the same resamples without the AUC give the same Brier interval,
    # and the unweighted rows carry no note
    alone = vc.bootstrap_intervals(p, y, sample_weight=w, metrics="brier", n_resamples=199, random_state=0)
    assert (alone["brier"].low, alone["brier"].high) == (r["brier"].low, r["brier"].high)
    assert alone.notes == (means_note,)
    # (below 100 rows of a class the unweighted AUC has its own note, round 42: none of the weighted one's)
    plain = vc.bootstrap_intervals(p, y, metrics="auc", n_resamples=199, random_state=0)
    assert not [n for n in plain.notes if "weighted AUC" in n] and "effective" not in plain["auc"].note
    equal = vc.bootstrap_intervals(p[:120], y[:120], sample_weight=np.full(120, 3.0), metrics="auc",
                                   n_resamples=199, random_state=0)  # equal weights: the unweighted rows
    unweighted = vc.bootstrap_intervals(p[:120], y[:120], metrics="auc", n_resamples=199, random_state=0)
    assert equal.notes == unweighted.notes and equal["auc"].note == unweighted["auc"].note
    assert "effective" not in equal["auc"].note


@pytest.mark.parametrize("heavy, noted", [(12.0, True), (11.0, False)])
def test_the_line_is_a_kish_size_of_100(heavy, noted):
    # 300 rows of each class, all of weight 1 but 10 positives of weight `heavy`: the positives' Kish size is
    # (290 + 10 h)^2 / (290 + 10 h^2): 97.2 at h = 12, 106.7 at h = 11
    rng = np.random.default_rng(5)
    y = np.r_[np.ones(300), np.zeros(300)].astype(int)
    p = np.clip(0.5 + 0.25 * (2 * y - 1) + rng.normal(0, 0.2, 600), 0.01, 0.99)
    w = np.ones(600)
    w[:10] = heavy
    assert (_smaller_kish(y, w) < 100) == noted
    r = vc.bootstrap_intervals(p, y, sample_weight=w, metrics=("auc",), n_resamples=100, random_state=0)
    assert bool(r.notes) == noted and ("may under-cover" in r["auc"].note) == noted


def test_a_refused_interval_gets_the_refusal_only():
    p, y, w = _rows(200, 0.3)
    w[np.flatnonzero(y == 1)[0]] = 1e6  # one positive carries the class: Kish size ~ 1, no interval
    r = vc.bootstrap_intervals(p, y, sample_weight=w, metrics="auc", n_resamples=100, random_state=0)
    assert np.isnan(r["auc"].low) and len(r.notes) == 1 and "too few rows of a class" in r.notes[0]
    assert "may under-cover" not in str(r)


def test_the_audit_prints_the_note(tmp_path, cli):
    p, y, w = _rows(300, 1.2)
    a = vc.audit(p, y, sample_weight=w, bootstrap=True, n_resamples=100)
    assert "may under-cover (few effective rows)" in str(a) and "0.87-0.91" in str(a)
    path = tmp_path / "rows.csv"
    path.write_text("p,y,w\n" + "".join(f"{float(a)!r},{b},{float(c)!r}\n" for a, b, c in zip(p, y, w)))
    res = cli(["audit", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--bootstrap",
               "--n-resamples", "100", "--json"])
    assert res.code == 0, res.err
    doc = json.loads(res.out)["intervals"]
    assert "may under-cover" in doc["intervals"]["auc"]["note"]
    assert any("weighted AUC" in t and "0.87-0.91" in t for t in doc["notes"])
    res = cli(["audit", path, "--score", "p", "--label", "y", "--bootstrap", "--n-resamples", "100"])
    assert res.code == 0 and "may under-cover" not in res.out  # unweighted: no note
