"""No comparison result prints "-0.0000" (session 26): a signed number that rounds to 0 at the printed
4 decimals prints "+0.0000", as an exact 0 does and as the model comparison's verdict line does since
session 25 (``_compare._sf``). The Murphy diagram's difference and band, the decision curve's net benefit
and interval and the realised cost's gap and interval printed ``fmt(x, sign=True)`` of a tiny negative —
a rounding error below an exact 0 — as "-0.0000"."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import veracity as vc

TINY = -1e-12


def _problem() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(26)
    y = (rng.random(300) < 0.4).astype(int)
    p = np.clip(0.4 + 0.3 * (y - 0.4) + rng.normal(scale=0.15, size=300), 0.01, 0.99)
    return p, np.clip(p + rng.normal(scale=0.05, size=300), 0.01, 0.99), y


def _murphy(value: float) -> vc.MurphyDiagram:
    p, q, y = _problem()
    m = vc.murphy_diagram({"a": p, "b": p}, y)  # identical models: every difference exactly 0
    d = m.differences[0]
    assert not np.any(d.diff)
    full = np.full_like(d.diff, value)
    return replace(m, differences=(replace(d, diff=full, ci_low=full, ci_high=full.copy()),))


def _curve(value: float) -> vc.DecisionCurve:
    p, q, y = _problem()
    dc = vc.decision_curve({"a": p}, y)
    full = {k: np.full_like(v, value) for k, v in dc.net_benefit.items()}
    return replace(dc, net_benefit=full, ci_low=dict(full), ci_high=dict(full))


def _cost(value: float) -> vc.RealisedCost:
    p, q, y = _problem()
    rc = vc.realised_cost({"a": p, "b": q}, y, threshold=0.5, n_resamples=100)
    return replace(rc, rows=tuple(replace(r, gap=value, ci_low=value, ci_high=value) for r in rc.rows))


# -4.9e-5 left this list in session 28: a difference that small now prints at its own digits, "-0.000049"
# (comparison._digits; tests/comparison/test_cmp_digits_r28.py)
@pytest.mark.parametrize("value", [0.0, -0.0, TINY])
@pytest.mark.parametrize("build", [_murphy, _curve, _cost], ids=["murphy", "decision_curve", "cost"])
def test_a_difference_that_rounds_to_zero_never_prints_minus_zero(build, value):
    result = build(value)
    text = str(result)
    assert "-0.0000" not in text, text
    assert "+0.0000" in text  # printed, signed as an exact 0 is
    assert "-0.0000" not in result._repr_html_()


def test_murphy_of_identical_models_prints_plus_zero():
    p, _, y = _problem()
    m = vc.murphy_diagram({"a": p, "b": p}, y)
    assert "-0.0000" not in str(m) and "+0.0000" in str(m)


def test_a_real_negative_keeps_its_sign():
    from veracity.comparison._signs import signed, unneg

    # only what rounds to 0 loses its sign: -0.00005 rounds to -0.0001 and keeps it
    assert signed(-5e-5) == "-0.0001" and signed(-0.25) == "-0.2500" and signed(TINY) == "+0.0000"
    assert unneg(TINY) == 0.0 and unneg(-1e-4) == -1e-4 and signed(float("nan")) == "n/a"
    m = _murphy(-0.0123)
    assert "-0.0123" in str(m)


def test_compare_of_identical_columns_prints_no_minus_zero(cli, tmp_path):
    p, _, y = _problem()
    path = tmp_path / "same.csv"
    rows = ["a,b,y"] + [f"{float(x)!r},{float(x)!r},{int(t)}" for x, t in zip(p, y)]
    path.write_text("\n".join(rows) + "\n")
    r = cli(["compare", str(path), "--score", "a", "--against", "b", "--label", "y", "--n-resamples", "0"])
    assert r.code == 0, r.err
    text = r.out + r.err
    assert "-0.0000" not in text and "+0.0000" in text


def test_a_slice_verdict_within_noise_reads_as_a_sentence() -> None:
    """A slice whose resolution (or calibration) difference is within noise across the slices read "their
    resolution differs by not beyond noise across the slices" (session 26): it reads "by no more than noise"."""
    rng = np.random.default_rng(0)
    n = 3000
    g = rng.choice(["north", "south"], n)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    q = np.clip(p + np.where(g == "south", 0.15, 0.0), 0.0, 1.0)  # south: b miscalibrated, reordered at the cap
    text = str(vc.compare_models({"a": p, "b": q}, y, by=g, n_resamples=200))
    south = next(line for line in text.splitlines() if line.strip().startswith("south"))
    assert "a is better calibrated" in south, south
    assert "differs by not" not in text and "differs by no more than noise across the slices" in south, south
