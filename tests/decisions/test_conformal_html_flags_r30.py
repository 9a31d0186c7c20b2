"""The notebook view of conformal coverage badges a class "below target" only where the text names it: below
the target beyond sampling noise (before: any point estimate under it, e.g. 0.8974 of 351 rows for 0.9)."""

import re

import numpy as np

import veracity as vc


def _report(shift: float):
    rng = np.random.default_rng(5)
    n, k = 3000, 3
    logits = rng.normal(size=(n, k)) * 2
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in p])
    if shift:  # class 2's rows made harder: their true class loses probability
        hard = y == 2
        p[hard, 2] *= shift
        p[hard] /= p[hard].sum(axis=1, keepdims=True)
    cal, test = slice(0, 1500), slice(1500, None)
    clf = vc.ConformalClassifier(alpha=0.1).fit(p[cal], y[cal])
    return clf.coverage(p[test], y[test])


def _badged(report) -> set[int]:
    html = report._repr_html_()
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, flags=re.S)
    return {int(re.search(r"<td[^>]*>\s*(\d+)\s*<", r).group(1)) for r in rows
            if "below target" in r and re.search(r"<td[^>]*>\s*\d+\s*<", r)}


def test_noise_is_not_badged_and_a_real_shortfall_is() -> None:
    calibrated = _report(0.0)
    noisy = [c for c in range(3) if calibrated.per_class[c] < calibrated.target]
    assert calibrated.short_classes == [] and _badged(calibrated) == set(), (noisy, calibrated.per_class)
    shifted = _report(0.5)
    assert shifted.short_classes and _badged(shifted) == set(shifted.short_classes), shifted.per_class
