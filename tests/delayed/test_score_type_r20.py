"""Logit scores in the delayed-label functions (round 20).

Scores outside [0, 1] are refused with "If these are logits, pass score_type='logit'" — and every
delayed-label function must then accept that option (it raised a raw TypeError). Logits are read as
the probabilities expit(s): the oracle is ``ppi_py`` / the same call on those probabilities."""

from __future__ import annotations

import numpy as np
import pandas as pd
import ppi_py
import pytest

import veracity as vc
from veracity.core._special import expit


def _data(seed: int = 0, n: int = 300, m: int = 3000) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    s = rng.normal(-1.0, 1.5, n)  # logits of the labelled rows
    su = rng.normal(-1.0, 1.5, m)  # logits of the unlabelled rows
    y = (rng.random(n) < expit(0.8 * s + 0.2)).astype(float)
    return y, s, su


def test_logits_are_refused_with_a_hint_the_function_accepts() -> None:
    y, s, su = _data()
    with pytest.raises(vc.VeracityError, match="score_type='logit'"):
        vc.ppi_mean(y, s, su)
    r = vc.ppi_mean(y, s, su, score_type="logit")  # the hint, followed
    lo, hi = ppi_py.ppi_mean_ci(y, expit(s), expit(su), alpha=0.05)
    estimate = float(ppi_py.ppi_mean_pointestimate(y, expit(s), expit(su))[0])
    assert r.estimate == pytest.approx(estimate, abs=1e-12)
    assert (r.ci_low, r.ci_high) == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-12)


def test_every_delayed_function_reads_logits_as_their_probabilities() -> None:
    y, s, su = _data(1)
    p, pu = expit(s), expit(su)
    a_l = vc.ppi_audit(y, s, su, bins=[0, 0.2, 0.5, 1], threshold=0.3, score_type="logit")
    a_p = vc.ppi_audit(y, p, pu, bins=[0, 0.2, 0.5, 1], threshold=0.3)
    assert [r["estimate"] for r in a_l.rows] == pytest.approx([r["estimate"] for r in a_p.rows], abs=1e-12)
    assert [r["ci_high"] for r in a_l.rows] == pytest.approx([r["ci_high"] for r in a_p.rows], abs=1e-12)
    allu = np.r_[s, su]
    assert vc.labels_needed(allu, width=0.05, score_type="logit") == vc.labels_needed(expit(allu), width=0.05)
    plan_l = vc.label_plan(allu, width=0.05, by=np.arange(allu.size) % 2, score_type="logit")
    plan_p = vc.label_plan(expit(allu), width=0.05, by=np.arange(allu.size) % 2)
    assert plan_l.to_dict() == plan_p.to_dict()
    day = np.arange(y.size) // 10
    cs_l = vc.confidence_sequence(s, y, batches=day, alpha=0.1, score_type="logit")
    cs_p = vc.confidence_sequence(p, y, batches=day, alpha=0.1)
    np.testing.assert_allclose(cs_l.low, cs_p.low, atol=1e-12)
    np.testing.assert_allclose(cs_l.high, cs_p.high, atol=1e-12)
    b_l = vc.binned_sequences(s, y, bins=3, batches=day, score_type="logit")
    b_p = vc.binned_sequences(p, y, bins=3, batches=day)
    assert b_l.to_dict() == b_p.to_dict()


def test_frame_form_of_the_sequences_takes_score_type() -> None:
    y, s, _ = _data(2)
    df = pd.DataFrame({"s": s, "y": y, "day": np.arange(y.size) // 10})
    with pytest.raises(vc.VeracityError, match="score_type='logit'"):
        vc.confidence_sequence(df, score="s", label="y", batches="day")
    cs = vc.confidence_sequence(df, score="s", label="y", batches="day", score_type="logit")
    ref = vc.confidence_sequence(expit(s), y, batches=df["day"].to_numpy())
    np.testing.assert_allclose(cs.low, ref.low, atol=1e-12)
    b = vc.binned_sequences(df, score="s", label="y", batches="day", bins=2, score_type="logit")
    assert b.to_dict() == vc.binned_sequences(expit(s), y, batches=df["day"].to_numpy(), bins=2).to_dict()


@pytest.mark.parametrize("call", [
    lambda y, s, su, st: vc.ppi_mean(y, s, su, score_type=st),
    lambda y, s, su, st: vc.ppi_audit(y, s, su, score_type=st),
    lambda y, s, su, st: vc.labels_needed(su, width=0.1, score_type=st),
    lambda y, s, su, st: vc.label_plan(su, width=0.1, score_type=st),
    lambda y, s, su, st: vc.confidence_sequence(s, y, score_type=st),
    lambda y, s, su, st: vc.binned_sequences(s, y, score_type=st),
])
def test_a_ranking_score_or_an_unknown_score_type_is_refused_in_one_line(call) -> None:
    y, s, su = _data(3)
    p, pu = expit(s), expit(su)
    with pytest.raises(vc.VeracityError, match="calibrate first") as e:
        call(y, p, pu, "score")
    assert "\n" not in str(e.value)
    with pytest.raises(vc.VeracityError, match="score_type must be") as e:
        call(y, p, pu, "logits")
    assert "\n" not in str(e.value)
