"""The Murphy diagram's and the decision curve's headers say "weighted" (with Kish's effective size), as
vc.compare_models' does: a weighted table read "300 rows, prevalence 0.5207" where the rows' plain rate was
0.5067, with nothing saying the means and the prevalence are weighted (round 42)."""

from __future__ import annotations

import numpy as np

import veracity as vc


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(int)
    return p, y, rng.uniform(0.1, 3.0, size=300)


def _kish(w: np.ndarray) -> float:
    return float(w.sum() ** 2 / np.dot(w, w))


def test_decision_curve_header_says_weighted() -> None:
    p, y, w = _data()
    curve = vc.decision_curve({"a": p}, y, sample_weight=w, thresholds=[0.1, 0.5])
    head = str(curve).splitlines()[0]
    assert f"300 rows, weighted (Kish effective size {_kish(w):,.1f}), weighted prevalence " in head
    assert f"{np.average(y, weights=w):.4f}" in head
    assert curve.to_dict()["n_effective"] == curve.n_effective
    assert abs(curve.n_effective - _kish(w)) < 1e-9 * _kish(w)
    assert curve._summary_items()["weighted"] == f"Kish effective size {_kish(w):,.1f}"
    plain = vc.decision_curve({"a": p}, y, thresholds=[0.1, 0.5])
    assert "weighted" not in str(plain) and plain.n_effective is None and "n_effective" not in plain.to_dict()


def test_murphy_header_says_weighted() -> None:
    p, y, w = _data()
    models = {"a": p, "b": np.clip(p + 0.1, 0, 1)}
    diagram = vc.murphy_diagram(models, y, sample_weight=w)
    assert f"300 rows, weighted (Kish effective size {_kish(w):,.1f}), 199 thresholds" in str(diagram)
    assert diagram.to_dict()["n_effective"] == diagram.n_effective
    plain = vc.murphy_diagram(models, y)
    assert "300 rows, 199 thresholds" in str(plain) and "weighted" not in str(plain).splitlines()[0]


def test_headers_agree_with_compare_models() -> None:
    p, y, w = _data()
    models = {"a": p, "b": np.clip(p + 0.1, 0, 1)}
    cmp_head = str(vc.compare_models(models, y, sample_weight=w)).splitlines()[0]
    weighted = f"300 rows, weighted (Kish effective size {_kish(w):,.1f})"
    assert weighted in cmp_head
    assert weighted in str(vc.murphy_diagram(models, y, sample_weight=w)).splitlines()[0]
    assert weighted in str(vc.decision_curve(models, y, sample_weight=w)).splitlines()[0]
