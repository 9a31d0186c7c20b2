"""Ties made by floating-point rounding, told by each map's slope (session 32).

The ledger called a tie of an order-keeping map "floating-point rounding" only between *adjacent* doubles;
two distinct scores further apart that the map computed as one value read "BROKEN". Platt's ``a·x + b``
with b ≈ 3 computes the logits 1e-17 and 3e-17 (about 2^55 doubles apart) as one value: their exact
images differ by a·2e-17 ≈ 1e-17, far below the 4.4e-16 between the doubles near 3. A tie of raw scores
``lo < hi`` is rounding when the exact images lie closer than the two computed values' error bounds,
``f(hi) − f(lo) ≤ E(lo) + E(hi)`` (s/τ on logits: ``(hi − lo)/τ ≤ ulp(s/τ)``); any other tie, and any
reversal, of a map that promises the order still reads BROKEN. Beta calibration on logits reads its
features through ``logaddexp``, which is not monotone in doubles: it computed two neighbouring logits
an ulp of those features the wrong way round, and the ledger read "order reversals: 1 ... BROKEN"; a
reversal within the same bound, ``f(hi) − f(lo) + ŷ(lo) − ŷ(hi) ≤ E(lo) + E(hi)``, now reads "changed (1
order reversal by floating-point rounding)".
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

import veracity as vc
from veracity.calibrators._ledger import _order_certificate


def _rule(cal):
    from veracity.calibrators._ledger import _rounding_rule  # the slope rule (session 32)

    return _rounding_rule(cal)


def _body(seed: int = 5, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 2, n)
    return s, (rng.random(n) < 1 / (1 + np.exp(-(0.5 * s + 3)))).astype(int)


def _platt_logits() -> vc.PlattScaling:
    rng = np.random.default_rng(1)
    x = rng.normal(0, 2, 2000)
    y = (rng.random(2000) < 1 / (1 + np.exp(-(0.5 * x + 3)))).astype(int)
    return vc.PlattScaling(score_type="logit").fit(x, y)


def _cert_lines(text: str) -> list[str]:
    lines = text.splitlines()
    i = lines.index("certificates")
    return lines[i + 1:i + 4]


def test_platt_ties_two_logits_far_apart_in_doubles_by_rounding():
    platt = _platt_logits()
    assert platt.a_ > 0 and 2.5 < platt.b_ < 3.5
    lo, hi = 1e-17, 3e-17
    assert np.nextafter(lo, 1.0) < hi  # not adjacent doubles: the old rule called this tie BROKEN
    z = platt.transform_logit(np.array([lo, hi]))
    assert z[0] == z[1]  # the map computed one value
    # the oracle by hand: the exact images differ by a·(hi - lo), under half the spacing of the doubles there
    assert platt.a_ * (hi - lo) < np.spacing(z[0]) / 2
    s, y = _body()
    s, y = np.r_[s, lo, hi], np.r_[y, 1, 0]  # the lower one positive: the tie moves the AUC
    ledger = vc.compare(s, y, platt)
    c = ledger.certificates
    assert c["ties_created"] == 1 and c["ties_rounding"] == 1
    assert c["ties_clipped"] == 0 and c["reversals"] == 0
    order, ids, counts = _cert_lines(str(ledger))
    assert order == "  order: changed (1 ties created by floating-point rounding)"
    assert ids.startswith("  stable argsort identical: changed; AUC bit-identical: changed; ")
    assert counts == "  ties created: 1; order reversals: 0"
    assert "BROKEN" not in str(ledger)
    words = ledger.certificate_words()
    assert words["order"] == "changed (1 ties created by floating-point rounding)"
    assert words["AUC bit-identical"] == "changed"
    auc = ledger.row("AUC")
    assert auc.can_move and "rounding error" in auc.note and "adjacent doubles" not in auc.note


def _non_adjacent_tie(cal, start: float) -> tuple[float, float]:
    # the oracle: the first pair of doubles from `start` on, at least 2 apart, that the map computes as one
    xs = [start]
    for _ in range(400):
        xs.append(np.nextafter(xs[-1], np.inf))
    x = np.array(xs)
    z = cal.transform_logit(x)
    for i in range(x.size):
        for j in range(i + 2, x.size):
            if z[j] != z[i]:
                break
            return float(x[i]), float(x[j])
    raise AssertionError("no pair")  # pragma: no cover


def _probabilities(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    return p, (rng.random(n) < p ** 1.5).astype(int)


@pytest.mark.parametrize("make", [
    lambda: vc.TemperatureScaling(),
    lambda: vc.PlattScaling(),
    lambda: vc.BetaCalibration(),
])
def test_probability_inputs_a_few_doubles_apart_tied_by_rounding(make):
    # near p = 1e-5 the logit (log p - log1p(-p), ≈ -11.5) moves about a tenth of its own spacing per double
    # of p: probabilities a few doubles apart come out as one logit
    cal = make().fit(*_probabilities(500, 3))
    assert cal.kind == "temperature" or cal.preserves_order_
    lo, hi = _non_adjacent_tie(cal, 1e-5)
    p, y = _probabilities(200, 4)
    p, y = np.r_[p, lo, hi], np.r_[y, 1, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the few rows of the evaluation set: not what is tested
        ledger = vc.compare(p, y, cal)
    c = ledger.certificates
    assert c["ties_created"] == 1 and c["ties_rounding"] == 1 and c["reversals"] == 0
    assert ledger.certificate_words()["order"] == "changed (1 ties created by floating-point rounding)"
    assert "BROKEN" not in _cert_lines(str(ledger))[1]


class _CoarsePlatt(vc.PlattScaling):
    """A defective order-keeping map: Platt's logits rounded to one decimal (ties scores far apart)."""

    def transform_logit(self, scores):
        return np.round(super().transform_logit(scores), 1)


class _SwappingPlatt(vc.PlattScaling):
    """A defective order-keeping map: swaps the logits of the first two rows."""

    def transform_logit(self, scores):
        z = super().transform_logit(scores)
        z[[0, 1]] = z[[1, 0]]
        return z


def _fit(make):
    rng = np.random.default_rng(1)
    x = rng.normal(0, 2, 2000)
    return make(score_type="logit").fit(x, (rng.random(2000) < 1 / (1 + np.exp(-(0.5 * x + 3)))).astype(int))


def test_a_tie_that_rounding_does_not_explain_still_reads_broken():
    cal = _fit(_CoarsePlatt)
    s, y = _body()
    ledger = vc.compare(s, y, cal)
    c = ledger.certificates
    assert c["ties_created"] > 0 and c["ties_rounding"] == 0 and c["ties_clipped"] == 0
    order, ids, _ = _cert_lines(str(ledger))
    assert order == f"  order: broken ({c['ties_created']} ties created)"
    assert ids.startswith("  stable argsort identical: BROKEN; AUC bit-identical: BROKEN; ")


def test_a_rounding_tie_beside_a_genuine_tie_reads_broken():
    platt = _fit(vc.PlattScaling)
    rule = _rule(platt)
    raw = np.array([1e-17, 3e-17, 0.3, 0.4, 2.0])
    z = platt.transform_logit(raw)
    z[3] = z[2]  # a defect: 0.3 and 0.4 tied, their images 0.05 apart
    zeros = np.zeros(raw.size, dtype=int)
    c = _order_certificate(raw, z, zeros, zeros, rule)
    assert c["ties_created"] == 2 and c["ties_rounding"] == 1 and c["reversals"] == 0


def test_a_reversal_still_reads_broken():
    cal = _fit(_SwappingPlatt)
    s, y = _body()
    s[:2] = [1.0, 1.0 + 1e-9]  # neighbours in the raw order, their images swapped
    y[:2] = [0, 1]
    ledger = vc.compare(s, y, cal)
    assert ledger.certificates["reversals"] == 1
    order, ids, _ = _cert_lines(str(ledger))
    assert order.startswith("  order: broken (1 reversals")
    assert ids.startswith("  stable argsort identical: BROKEN; AUC bit-identical: BROKEN")


def test_the_bound_of_s_over_tau_is_one_ulp_of_the_output():
    ts = _fit(vc.TemperatureScaling)
    tau = ts.temperature_
    rule = _rule(ts)
    x = np.linspace(1.0, 8.0, 501)
    for k in (1, 2, 3, 5):
        hi = x.copy()
        for _ in range(k):
            hi = np.nextafter(hi, np.inf)
        # the oracle by hand: a tie is possible only where (hi - lo)/τ is at most an ulp of the output
        expected = (hi - x) / tau <= np.spacing(x / tau)
        assert np.array_equal(rule(x, hi, np.zeros(x.size)), expected)
    # far apart: never rounding; a reversal by two ulps of the output is beyond one ulp of rounding
    assert not rule(np.array([0.3]), np.array([0.4]), np.zeros(1))[0]
    lo = np.array([5.5])
    hi = np.nextafter(lo, np.inf)
    assert rule(lo, hi, np.zeros(1))[0] == ((hi - lo) / tau <= np.spacing(lo / tau))[0]
    assert not rule(lo, hi, 2 * np.spacing(lo / tau))[0]


def test_no_model_no_slope_rule():
    # a map the ledger does not model (isotonic): no rule; the certificate keeps adjacent doubles only
    rng = np.random.default_rng(0)
    q = rng.uniform(size=300)
    assert _rule(vc.IsotonicCalibration().fit(q, (rng.uniform(size=300) < q).astype(int))) is None


def _random_map(rng: np.random.Generator):
    kind = rng.choice(["temperature", "platt", "beta"])
    st = str(rng.choice(["logit", "probability"]))
    x = rng.normal(0, 2, 400)
    p = 1 / (1 + np.exp(-x))
    y = (rng.random(400) < 1 / (1 + np.exp(-(rng.uniform(0.3, 3) * x + rng.normal(0, 2))))).astype(int)
    make = {"temperature": vc.TemperatureScaling, "platt": vc.PlattScaling, "beta": vc.BetaCalibration}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = make(score_type=st).fit(x if st == "logit" else p, y)
    return cal, st


def test_every_tie_the_maps_compute_is_within_the_bound():
    # soundness: over seeded maps and clusters of nearby doubles, every tie and reversal the calibrators
    # actually compute is called rounding (none reads BROKEN), and scores 1e-3 apart never are
    rng = np.random.default_rng(32)
    ties = flips = 0
    for _ in range(60):
        cal, st = _random_map(rng)
        if cal.kind != "temperature" and not cal.preserves_order_:
            continue
        base = float(rng.uniform(1e-6, 0.2) if st == "probability" else rng.normal(0, 3))
        x = np.unique(np.r_[base + np.spacing(base) * rng.integers(1, 3000, 150),
                            base * (1 + rng.uniform(0, 1e-13, 100))])
        x = x[x > 0] if st == "probability" else x
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z = cal.transform_logit(x)
        at = np.flatnonzero(z[1:] == z[:-1])
        ties += at.size
        rule = _rule(cal)
        assert rule(x[at], x[at + 1], np.zeros(at.size)).all()
        flip = np.flatnonzero(z[1:] < z[:-1])
        flips += flip.size
        assert rule(x[flip], x[flip + 1], z[flip] - z[flip + 1]).all()
        assert not rule(x[:1], x[:1] + 1e-3, np.zeros(1)).any()
    assert ties > 100 and flips > 0  # the sweep met ties, and beta's reversals on logits


def _beta_logits() -> vc.BetaCalibration:
    rng = np.random.default_rng(7)
    x = rng.normal(0, 1.5, 600)
    y = (rng.random(600) < 1 / (1 + np.exp(-2 * x))).astype(int)
    return vc.BetaCalibration(score_type="logit").fit(x, y)


def _rounding_reversal(cal) -> tuple[float, float]:
    # the oracle: neighbouring doubles in (0, 0.69) (where logaddexp(0, s) = s + log1p(exp(-s)) has a coarser
    # grid than s) that the map computes in the opposite order
    for base in np.linspace(0.01, 0.69, 500):
        x = [float(base)]
        for _ in range(300):
            x.append(np.nextafter(x[-1], 1.0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a cluster of logits in [0, 1]: "they look like probabilities"
            z = cal.transform_logit(np.array(x))
        at = np.flatnonzero(z[1:] < z[:-1])
        if at.size:
            return x[at[0]], x[at[0] + 1]
    raise AssertionError("no pair")  # pragma: no cover


def test_beta_on_logits_reversing_neighbours_by_rounding_is_not_broken():
    beta = _beta_logits()
    assert beta.preserves_order_
    lo, hi = _rounding_reversal(beta)
    assert hi == np.nextafter(lo, 1.0)  # neighbouring doubles, computed the wrong way round
    z = beta.transform_logit(np.array([lo, hi]))
    assert 0 < z[0] - z[1] < 1e-15  # by a few ulps of the features (about 0.7, spaced 1.1e-16)
    s, y = _body(6, 200)
    s, y = np.r_[s, lo, hi], np.r_[y, 1, 0]
    ledger = vc.compare(s, y, beta)
    order, ids, counts = _cert_lines(str(ledger))
    assert order == "  order: changed (1 order reversal by floating-point rounding)"
    c = ledger.certificates
    assert c["reversals"] == 1 and c["reversals_rounding"] == 1 and c["ties_created"] == 0
    assert ids.startswith("  stable argsort identical: changed; AUC bit-identical: changed; ")
    assert counts == "  ties created: 0; order reversals: 1"
    auc = ledger.row("AUC")
    assert auc.can_move
    assert auc.note == ("the map's rounding reversed 1 neighbouring pair "
                        "(scores closer than the map's rounding error)")


def test_a_rounding_reversal_beside_a_genuine_one_reads_broken():
    beta = _beta_logits()
    lo, hi = _rounding_reversal(beta)
    raw = np.array([-2.0, -1.0, lo, hi, 2.0])
    z = beta.transform_logit(raw)
    z[[0, 1]] = z[[1, 0]]  # a defect: -2 and -1 swapped, their images far apart
    zeros = np.zeros(raw.size, dtype=int)
    c = _order_certificate(raw, z, zeros, zeros, _rule(beta))
    assert c["reversals"] == 2 and c["reversals_rounding"] == 1
    s, y = _body(6, 200)
    ledger = vc.compare(np.r_[s, lo, hi], np.r_[y, 1, 0], beta)
    broken = replace(ledger, certificates=dict(ledger.certificates, reversals=2,
                                               order="broken (2 reversals, 0 ties created)"))
    order, ids, _ = _cert_lines(str(broken))
    assert order == "  order: broken (2 reversals, 0 ties created)"
    assert ids.startswith("  stable argsort identical: BROKEN; AUC bit-identical: BROKEN")
