"""Round 42: coverage(..., test_weight=t) gives every row its own q̂ (the exact covariate-shift rule), and the
report's q̂ column holds each class's median of them; the printout named that column "qhat" like the one
threshold of a plain fit, so a notebook user read it as the q̂ the sets were built at. The column is now
"median qhat" there (text and HTML), and to_dict() says "qhat_is_median"; a plain report is unchanged."""

from __future__ import annotations

import numpy as np

import veracity as vc


def _fit_and_rows():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 400)
    p = 1 / (1 + np.exp(-3 * x))
    y = (rng.random(400) < p).astype(int)
    w = np.exp(x)
    cp = vc.ConformalClassifier(alpha=0.1).fit(p[:200], y[:200], sample_weight=w[:200])
    return cp, p[200:], y[200:], w[200:]


def test_the_per_row_qhat_column_says_median():
    cp, p, y, w = _fit_and_rows()
    report = cp.coverage(p, y, test_weight=w)
    np.testing.assert_array_equal(report.qhat, np.median(cp.row_qhat(test_weight=w), axis=0))
    header = str(report).splitlines()[0].split()
    assert header[:4] == ["class", "count", "median", "qhat"]
    assert ">median qhat<" in report._repr_html_()
    assert report.to_dict()["qhat_is_median"] is True


def test_a_plain_report_keeps_its_qhat_column():
    cp, p, y, _ = _fit_and_rows()
    report = cp.coverage(p, y)
    assert str(report).splitlines()[0].split()[:3] == ["class", "count", "qhat"]
    assert "median qhat" not in report._repr_html_() and "qhat_is_median" not in report.to_dict()
