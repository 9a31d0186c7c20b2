"""Review round 15 (H84): abstention candidates on the wrong scale, and figures of weights whose
totals pass the largest double.

1. ``vc.selective_threshold`` compares its candidates with the confidences; in the top-label
   reading those are probabilities whatever ``score_type`` (logits go through expit / softmax),
   so candidates given beside logits were silently read as probabilities (logit thresholds
   [0, 1, 2, 3] certified nothing but "answer everything"). Every combination is now correct or
   refused with a one-line VeracityError.
2. Weights near 1.8e308 make a bin's weighted n ``inf`` (the total has no float64 value); the
   reliability figure sized its markers by ``count / count.max()`` = inf / inf (a RuntimeWarning,
   an error under warnings-as-errors) and so broke ``vc.audit(...).plot()`` and the HTML report.
   The decision tools multiplied their weight sums by a unit 2**1024 = inf (0 · inf = NaN).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity import VeracityError

pytest.importorskip("matplotlib")


def _expit(z):
    return 1.0 / (1.0 + np.exp(-z))


def _softmax(Z):
    e = np.exp(Z - Z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def binary_logits():
    rng = np.random.default_rng(84)
    z = rng.normal(0.0, 2.5, 3000)
    y = (rng.random(z.size) < _expit(z)).astype(int)
    return z, y


@pytest.fixture(scope="module")
def multiclass_logits():
    rng = np.random.default_rng(85)
    Z = rng.normal(0.0, 2.0, (3000, 4))
    P = _softmax(Z)
    y = (rng.random(Z.shape[0])[:, None] > np.cumsum(P, axis=1)).sum(axis=1)
    return Z, y


# -- 1. selective_threshold: the candidates' scale --------------------------------------------------
@pytest.mark.parametrize("candidates", [[0.0, 1.0, 2.0, 3.0], [0.5, 0.9, 0.95], np.linspace(0, 6, 61)])
def test_candidates_beside_logits_in_the_top_label_reading_are_refused(binary_logits, multiclass_logits,
                                                                      candidates):
    z, y = binary_logits
    Z, Y = multiclass_logits
    for scores, labels in ((z, y), (Z, Y), (z[:, None], y)):
        with pytest.raises(VeracityError, match=r"reading='top-label' confidences are probabilities.*"
                                                r"pass the probabilities") as info:
            vc.selective_threshold(scores, labels, target_risk=0.1, score_type="logit", candidates=candidates)
        assert "\n" not in str(info.value)
    # what the message says to pass gives the answer: the probabilities with probability candidates
    cand = [0.6, 0.8, 0.9, 0.95, 0.99]
    by_p = vc.selective_threshold(_softmax(Z), Y, target_risk=0.1, candidates=cand)
    assert by_p.feasible and by_p.threshold in cand
    # the default grid beside logits is correct: the confidences of expit / softmax of the logits
    for scores, probs, labels in ((z, _expit(z), y), (Z, _softmax(Z), Y)):
        a = vc.selective_threshold(scores, labels, target_risk=0.1, score_type="logit")
        b = vc.selective_threshold(probs, labels, target_risk=0.1)
        assert a.feasible and (a.threshold, a.accepted, a.errors) == (b.threshold, b.accepted, b.errors)
        assert a.coverage == pytest.approx(b.coverage, abs=1e-12)


def test_probability_confidences_refuse_candidates_outside_the_unit_interval(binary_logits):
    z, y = binary_logits
    p = _expit(z)
    for kwargs in (dict(), dict(reading="confidence")):
        scores = p if not kwargs else np.maximum(p, 1 - p)
        labels = y if not kwargs else ((p >= 0.5) == (y == 1)).astype(int)
        with pytest.raises(VeracityError, match=r"must lie in \[0, 1\], got 0 to 3"):
            vc.selective_threshold(scores, labels, target_risk=0.1, candidates=[0, 1, 2, 3], **kwargs)
    # logit confidences take logit candidates; the same rule as probabilities with expit(candidates)
    conf = np.abs(z)  # logit of max(p, 1 - p)
    ok = ((z >= 0) == (y == 1)).astype(int)
    cand = np.linspace(0.0, 6.0, 61)
    on_logits = vc.selective_threshold(conf, ok, target_risk=0.1, reading="confidence", score_type="logit",
                                       candidates=cand)
    on_probs = vc.selective_threshold(_expit(conf), ok, target_risk=0.1, reading="confidence",
                                      candidates=_expit(cand))
    assert on_logits.feasible and on_logits.accepted == on_probs.accepted
    assert _expit(on_logits.threshold) == pytest.approx(on_probs.threshold, rel=1e-12)


def test_declared_logits_that_are_probabilities_are_refused(binary_logits):
    z, y = binary_logits
    p = _expit(z)
    for fn in (vc.selective_threshold, vc.risk_coverage):
        kw = dict(target_risk=0.1) if fn is vc.selective_threshold else {}
        with pytest.raises(VeracityError, match="look like probabilities"):
            fn(p, y, score_type="logit", **kw)  # top-label: expit(p) would be a silent wrong number
        with pytest.raises(VeracityError, match="look like probabilities"):
            fn(np.maximum(p, 1 - p), y, score_type="logit", reading="confidence",
               **({"candidates": [0.6, 0.9]} if kw else {}), **kw)
    # true logits read as expit of them, top label: the same curve as the probabilities
    a, b = vc.risk_coverage(z, y, score_type="logit"), vc.risk_coverage(p, y)
    np.testing.assert_allclose(a.coverage, b.coverage, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.risk, b.risk, rtol=0, atol=1e-12)


# -- 2. weight totals beyond the largest double -------------------------------------------------------
@pytest.fixture(scope="module")
def weighted():
    rng = np.random.default_rng(86)
    n = 900
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    rel = np.where(rng.random(n) < 0.5, 1.0, 0.25)  # unequal weights: the markers differ by bin
    return p, y, rel


def _bins_collection(ax):
    from matplotlib.collections import PathCollection

    return [c for c in ax.collections if isinstance(c, PathCollection) and c.get_gid() in ("bins", "insufficient")]


def test_reliability_figure_of_weights_near_the_largest_double(weighted):
    import matplotlib.pyplot as plt

    p, y, rel = weighted
    big = rel * 1e308  # every bin's total is beyond 1.8e308: its weighted n is inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = vc.audit(p, y, sample_weight=big, bins=10)
        assert all(np.isinf(r.n) for r in result.table.rows)
        fig = result.plot()
        ref = vc.audit(p, y, sample_weight=rel, bins=10).plot()
    ax, hax = fig.axes[:2]
    ref_ax = ref.axes[0]
    # marker areas: the same as for the same weights scaled down, i.e. set by the weights' ratios
    sizes = np.concatenate([c.get_sizes() for c in _bins_collection(ax)])
    ref_sizes = np.concatenate([c.get_sizes() for c in _bins_collection(ref_ax)])
    np.testing.assert_allclose(sizes, ref_sizes, rtol=1e-12)
    # and they grow with each bin's weight (computed here from the weights themselves)
    edges = result.table.stats.edges
    bin_w = np.histogram(p, bins=edges, weights=rel)[0]
    order = [r.index for r in result.table.rows if r.sufficient]
    shown = _bins_collection(ax)[0].get_sizes()
    assert np.all(np.diff(shown[np.argsort(bin_w[order])]) >= 0)
    # the histogram shows each bin's share of the total weight (finite), labelled so
    assert hax.get_ylabel() == "share of weight"
    heights = sorted(b.get_height() for b in hax.patches if str(b.get_gid()).startswith("histogram"))
    np.testing.assert_allclose(heights, sorted(bin_w[bin_w > 0] / rel.sum()), rtol=1e-9)
    assert {t.get_text() for t in ax.texts} == {"inf"}  # the honest weighted n of every bin
    plt.close("all")


def test_plot_reliability_shows_the_callers_weight_units(weighted):
    """Weights of 1e300 are rescaled inside; the labels and the histogram are the caller's totals
    (they showed the rescaled ones, ~60 for a bin of weight 8e301)."""
    import matplotlib.pyplot as plt

    p, y, rel = weighted
    w = rel * 1e300
    fig = vc.plot_reliability(p, y, sample_weight=w, bins=10)
    ax, hax = fig.axes
    table = vc.reliability(p, y, sample_weight=w, bins=10)
    bin_w = np.histogram(p, bins=table.stats.edges, weights=w)[0]
    assert hax.get_ylabel() == "weight"
    heights = sorted(b.get_height() for b in hax.patches if str(b.get_gid()).startswith("histogram"))
    np.testing.assert_allclose(heights, sorted(bin_w[bin_w > 0]), rtol=1e-9)
    labels = sorted(float(t.get_text()) for t in ax.texts)
    np.testing.assert_allclose(labels, sorted(bin_w[bin_w > 0]), rtol=1e-3)  # 4 significant digits
    overlay = vc.plot_reliability_overlay({"a": p, "b": p ** 2}, y, sample_weight=rel * 1e308, bins=10)
    assert overlay.axes[1].get_ylabel() == "share of weight"
    plt.close("all")


def test_report_and_decision_figures_with_weights_near_the_largest_double(weighted, tmp_path):
    import matplotlib.pyplot as plt
    import pyarrow as pa
    import pyarrow.parquet as pq

    from veracity.cli import main

    p, y, rel = weighted
    big = rel * 1e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        page = vc.report(p, y, sample_weight=big, cost_fp=1, cost_fn=4, n_resamples=50).html
        rc = vc.risk_coverage(p, y, sample_weight=big)
        rc.plot()
        table = vc.threshold_table(p, y, [0.5, 1.01], sample_weight=big)
    assert "<svg" in page
    ref = vc.risk_coverage(p, y, sample_weight=rel)
    np.testing.assert_allclose(rc.coverage, ref.coverage, rtol=1e-12)
    np.testing.assert_allclose(rc.risk, ref.risk, rtol=1e-12)
    assert not np.isnan(rc.errors).any() and rc.errors[0] == 0.0 and np.isinf(rc.n)
    above = table.rows[1]  # nothing flagged: 0 of the caller's weight, not 0 · inf = NaN
    assert (above.tp, above.fp, above.alerts) == (0.0, 0.0, 0.0) and np.isinf(above.tn)
    # a budget of 1.5e308 in the caller's units fits one row of weight 1e308 (it was read as 0)
    w = np.full(p.size, 1e308)
    assert vc.budget_threshold(p, top_k=1.5e308, sample_weight=w) == np.max(p)
    path = tmp_path / "w.parquet"
    pq.write_table(pa.table({"p": p, "y": y, "w": big}), path)
    out = tmp_path / "r.html"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = main(["report", str(path), "--score", "p", "--label", "y", "--sample-weight", "w",
                     "--no-bootstrap", "--out", str(out)])
    assert code == 0 and "<svg" in out.read_text(encoding="utf-8")
    plt.close("all")
