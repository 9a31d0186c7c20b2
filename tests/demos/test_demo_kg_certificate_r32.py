"""``veracity demo kg`` prints the ledger's invariance certificate (session 32).

The demo computed its own certificate on the probabilities σ(s) and σ(s/τ) of every triple, while the
ledger beside it reads the logits s and s/τ. Scores below about −37 all read p = σ(s) = 0 exactly: two such
negatives tie before and not after, so the probability certificate said "argsort DIFFERENT" (and the demo
stopped on its failed claim) where s ↦ s/τ kept every order and the ledger said "held". The demo now
prints the ledger's certificate, in the ledger's words.
"""

from __future__ import annotations

import numpy as np
import pytest

from veracity.demos import kg


@pytest.fixture(scope="module")
def demo() -> kg.KGDemo:
    return kg.run()


def _certificate_block(text: str) -> list[str]:
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("invariance certificate"))
    return lines[i:i + 3]


def test_the_certificate_is_the_ledgers(demo: kg.KGDemo) -> None:
    ledger = demo.ledger
    c = ledger.certificates
    assert demo.certificate == {
        "argsort_identical": c["argsort_identical"] is True,
        "decisions_identical": c["decisions_identical"] is True,
        "accuracy_identical": ledger.row("accuracy@0.5").before == ledger.row("accuracy@0.5").after,
        "auc_identical": c["auc_identical"] is True,
    }
    head, numbers, identities = _certificate_block(demo.text)
    assert f"({ledger.n} evaluation triples;" in head
    auc = ledger.row("AUC")
    assert f"AUC {auc.before:.4f} = {auc.after:.4f}" in numbers  # the ledger's AUC row, not another one
    printed = numbers + "; " + identities
    for label, word in ledger.certificate_words().items():
        assert f"{label}: {word}" in printed
    assert demo.claims["invariance"]


class _LowestSwapped:
    """The trained model, its two lowest scores (both σ(s) = 0 exactly) swapped between their rows, so that
    the lower row index holds the higher score."""

    def __init__(self, model: object) -> None:
        self.model = model

    def score(self, h: np.ndarray, r: np.ndarray, t: np.ndarray) -> np.ndarray:
        s = np.array(self.model.score(h, r, t), dtype=float)  # type: ignore[attr-defined]
        i, j = np.argsort(s, kind="stable")[:2]
        first, second = sorted((int(i), int(j)))
        s[first], s[second] = max(s[i], s[j]), min(s[i], s[j])
        return s


def test_saturated_probabilities_do_not_fake_a_broken_order(monkeypatch: pytest.MonkeyPatch) -> None:
    real = kg.train_complex
    monkeypatch.setattr(kg, "train_complex", lambda *a, **k: _LowestSwapped(real(*a, **k)))
    demo = kg.run()  # the old demo stopped here: "claim failed: accuracy, AUC and stable argsort ..."
    s = demo.scores
    low = np.argsort(s, kind="stable")[:2]
    # the oracle: both read p = 0 before (a tie) and apart after, the lower row index with the higher score
    assert (0.5 * (1.0 + np.tanh(0.5 * s[low])) == 0.0).all()
    assert s[min(low)] > s[max(low)]
    after = s[low] / demo.calibrator.temperature_
    assert after[0] != after[1]
    assert demo.claims["invariance"]
    _, numbers, identities = _certificate_block(demo.text)
    assert "order: held" in numbers and "ties created: 0   order reversals: 0" in numbers
    assert identities == ("    stable argsort identical: held; AUC bit-identical: held; "
                          "0.5 decisions identical: held")
