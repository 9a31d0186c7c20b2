"""CORP of (N, K) scores reads the top-label confidence as a binary forecast of "the argmax is the label".
Its Brier score was that binary one, but its log loss was the categorical NLL of the true class (vc.nll's),
which charges a wrong row -log p_y >= -log(1 - confidence): a loss no recalibration of the confidence can
remove landed in MCB. A perfectly calibrated 3-class model (labels drawn from its probabilities) read a
log-loss MCB of about 0.21-0.22 beside a Brier MCB of 0.0006. Now the log loss is the confidence's binary log
loss: the same decomposition as vc.corp(confidence, correct), and the printout names the reading."""

import numpy as np
import pytest

import veracity as vc


def _calibrated(seed: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), n)
    y = (rng.random(n)[:, None] > np.cumsum(P, axis=1)).sum(axis=1)
    return P, np.minimum(y, k - 1)


@pytest.mark.parametrize("k", [3, 5])
def test_top_label_corp_is_the_confidence_corp(k) -> None:
    P, y = _calibrated(0, 4000, k)
    top = vc.corp(P, y)
    binary = vc.corp(P.max(axis=1), (P.argmax(axis=1) == y).astype(int))
    for name in ("brier", "log_loss"):
        expected = getattr(binary, name).to_dict()
        assert getattr(top, name).to_dict() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert top.top_label and not binary.top_label and top.to_dict()["top_label"] is True
    assert str(top).startswith("CORP decomposition of the top-label confidence (PAV reliability curve")


def test_a_calibrated_multiclass_model_shows_little_log_loss_miscalibration() -> None:
    mcb = []
    for seed in range(5):  # before: 0.21-0.22 in every one
        P, y = _calibrated(seed, 5000, 3)
        result = vc.corp(P, y)
        assert result.log_loss.mcb < 0.01 and result.brier.mcb < 0.005, (seed, result.log_loss, result.brier)
        mcb.append(result.log_loss.mcb)
    assert max(mcb) < 0.01


def test_the_audit_section_reads_the_same() -> None:
    P, y = _calibrated(7, 3000, 4)
    section = vc.audit(P, y, corp=True).extras["corp"]
    assert section.log_loss.to_dict() == vc.corp(P, y).log_loss.to_dict() and section.top_label
