"""``veracity demo kg`` (seed 000): the shipped graph, the ComplEx model and the four claims.

The demo runs once per module (fixture); every assertion is a direction, an
inequality, an identity or a number taken from the seed — never a number copied
from the demo's own output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main as cli_main
from veracity.demos import _complex, _kg_data, kg


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> kg.KGDemo:
    return kg.run(plots=tmp_path_factory.mktemp("kg_plots"))


# -- the shipped knowledge graph -------------------------------------------------------
def test_graph_holds_the_seed_shapes_out_of_training() -> None:
    for triple in [("bob", "advises", "dave"), ("bob", "authored", "p1"),
                   ("erin", "affiliated", "cmu")]:
        assert triple in _kg_data.TEST
        assert triple in _kg_data.TRIPLES
        assert triple not in _kg_data.TRAIN
    assert set(_kg_data.TRAIN) | set(_kg_data.TEST) == set(_kg_data.TRIPLES)
    assert len(set(_kg_data.TRIPLES)) == len(_kg_data.TRIPLES)


def test_graph_is_typed_people_papers_institutions() -> None:
    kinds = {**{e: "person" for e in _kg_data.PEOPLE}, **{e: "paper" for e in _kg_data.PAPERS},
             **{e: "institution" for e in _kg_data.INSTITUTIONS}}
    signature = {"advises": ("person", "person"), "authored": ("person", "paper"),
                 "affiliated": ("person", "institution"), "cites": ("paper", "paper")}
    for h, r, t in _kg_data.TRIPLES:
        assert (kinds[h], kinds[t]) == signature[r]


# -- the ComplEx model -------------------------------------------------------------------
def test_complex_score_matches_the_complex_formula() -> None:
    # oracle: numpy complex arithmetic, s = Re(<e_h, w_r, conj(e_t)>)
    rng = np.random.default_rng(3)
    m = _complex.ComplEx(*(rng.normal(size=(5, 4)) for _ in range(2)),
                         *(rng.normal(size=(2, 4)) for _ in range(2)))
    h, r, t = np.array([0, 1, 4, 2]), np.array([0, 1, 1, 0]), np.array([3, 3, 0, 2])
    e = m.ent_re + 1j * m.ent_im
    w = m.rel_re + 1j * m.rel_im
    expected = np.real((e[h] * w[r] * np.conj(e[t])).sum(axis=1))
    np.testing.assert_allclose(m.score(h, r, t), expected, rtol=1e-12)


def test_complex_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(4)
    params = tuple(rng.normal(0, 0.5, shape) for shape in [(5, 3), (5, 3), (2, 3), (2, 3)])
    batch = np.array([[0, 0, 1], [1, 1, 2], [0, 0, 1], [4, 1, 0], [3, 0, 3]])
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    _, grads = _complex.loss_and_grads(params, batch, y)
    eps = 1e-6
    for k, (param, grad) in enumerate(zip(params, grads)):
        for idx in np.ndindex(param.shape):
            plus = [q.copy() for q in params]
            minus = [q.copy() for q in params]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            numeric = (_complex.loss_and_grads(tuple(plus), batch, y)[0]
                       - _complex.loss_and_grads(tuple(minus), batch, y)[0]) / (2 * eps)
            assert grad[idx] == pytest.approx(numeric, abs=1e-6)


def test_corruptions_avoid_the_forbidden_set() -> None:
    rng = np.random.default_rng(1)
    triples = np.array([[0, 0, 1]] * 50)
    forbidden = _complex.encode(np.array([[0, 0, t] for t in range(3)] +
                                         [[h, 0, 1] for h in range(3)]), 4, 1)
    out = _complex.corrupt_avoiding(triples, 4, 1, forbidden, rng)
    assert not np.isin(_complex.encode(out, 4, 1), forbidden).any()
    # exactly one side changed
    assert ((out[:, 0] != 0) ^ (out[:, 2] != 1)).all()


# -- the audit set and the split ---------------------------------------------------------
def test_audit_set_is_true_triples_plus_six_distinct_false_corruptions(demo: kg.KGDemo) -> None:
    data = demo.audit_set
    n_true = len(_kg_data.TRIPLES)
    assert len(data.names) == n_true * (1 + kg.CORRUPTIONS)
    assert int(data.labels.sum()) == n_true
    assert len(set(data.names)) == len(data.names)  # no duplicates
    truth = set(_kg_data.TRIPLES)
    for name, label in zip(data.names, data.labels):
        assert (name in truth) == (label == 1)  # every negative is genuinely false
    assert {data.names[i] for i in np.flatnonzero(data.held_out)} == set(_kg_data.TEST)


def test_audit_set_is_deterministic() -> None:
    a, b = kg.build_audit_set(), kg.build_audit_set()
    assert a.names == b.names


def test_split_halves_have_equal_size_and_class_ratio(demo: kg.KGDemo) -> None:
    y, roles = demo.audit_set.labels, demo.roles
    cal, ev = roles == "calibration", roles == "evaluation"
    assert cal.sum() == ev.sum() == len(y) // 2
    assert y[cal].sum() == y[ev].sum()


def test_model_memorises_its_training_facts(demo: kg.KGDemo) -> None:
    train = set(_kg_data.TRAIN)
    idx = [i for i, n in enumerate(demo.audit_set.names) if n in train]
    assert (demo.scores[idx] > 0).all()  # every training fact on the right side of 0.5


# -- the four claims ---------------------------------------------------------------------
def test_claim_fit_lowers_calibration_nll(demo: kg.KGDemo) -> None:
    ts = demo.calibrator
    assert ts.nll_after_ < ts.nll_before_
    # independent check of the objective: NLL(τ) = mean softplus(−y± s/τ) on the calib half
    cal = demo.roles == "calibration"
    s, y = demo.scores[cal], demo.audit_set.labels[cal]
    nll = lambda tau: float(np.logaddexp(0, -(2 * y - 1) * s / tau).mean())  # noqa: E731
    assert nll(ts.temperature_) == pytest.approx(ts.nll_after_, rel=1e-9)
    assert nll(1.0) == pytest.approx(ts.nll_before_, rel=1e-9)


def test_claim_tau_above_one_overconfident(demo: kg.KGDemo) -> None:
    assert demo.calibrator.temperature_ > 1.0
    assert demo.claims["overconfident"]


def test_claim_ece_strictly_lower_on_the_evaluation_half(demo: kg.KGDemo) -> None:
    ev = demo.roles == "evaluation"
    s, y = demo.scores[ev], demo.audit_set.labels[ev]
    tau = demo.calibrator.temperature_
    before = vc.ece(s, y, score_type="logit", bins=10)
    after = vc.ece(s / tau, y, score_type="logit", bins=10)
    assert after < before
    assert demo.after.ece < demo.before.ece
    assert demo.after.nll < demo.before.nll  # better on data τ never saw


def test_claim_invariance_bit_identical(demo: kg.KGDemo) -> None:
    s, y = demo.scores, demo.audit_set.labels
    p_before = 1 / (1 + np.exp(-s))
    p_after = demo.calibrator.transform(s)
    assert np.array_equal(np.argsort(p_before, kind="stable"), np.argsort(p_after, kind="stable"))
    assert np.array_equal(p_before >= 0.5, p_after >= 0.5)
    assert vc.auc(p_before, y) == vc.auc(p_after, y)
    assert demo.before.accuracy == demo.after.accuracy
    assert demo.before.auc == demo.after.auc
    assert all(demo.certificate.values())
    assert demo.ledger.certificates["argsort_identical"] is True


def test_held_out_positives_are_confidently_wrong_and_named(demo: kg.KGDemo) -> None:
    held = np.flatnonzero(demo.audit_set.held_out)
    p = 1 / (1 + np.exp(-demo.scores[held]))
    wrong = [demo.audit_set.names[i] for i, q in zip(held, p) if q < kg.CONFIDENTLY_WRONG]
    assert wrong  # the memorising model gets unseen facts confidently wrong
    for h, r, t in wrong:
        assert f"({h}, {r}, {t})" in demo.text


# -- the printout --------------------------------------------------------------------------
def test_printout_follows_the_seed_layout(demo: kg.KGDemo) -> None:
    text = demo.text
    positions = [text.index(tag) for tag in ("[1]", "[2] BEFORE", "[3]", "[4] AFTER")]
    assert positions == sorted(positions)
    assert "what it measures" in text and "can τ move it?" in text
    assert "invariance certificate" in text
    # seed 000: golden-section bracket after 10 iterations = 19.95·φ^10 = 0.1622
    width10 = 19.95 * ((math.sqrt(5) - 1) / 2) ** 10
    assert f"{width10:.3e}" == "1.622e-01"
    assert "1.622e-01" in text
    assert text.count("[ok]") == 4


def test_plots_written(demo: kg.KGDemo) -> None:
    assert demo.figures
    for path in demo.figures:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_demo_kg(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["demo", "kg"]) == 0
    out = capsys.readouterr().out
    assert "[4] AFTER" in out and "τ* =" in out
