"""The audit of (N, K) scores says that its NLL is the multiclass log-loss (round 42).

Every other number of that audit is the top-label reading (confidence of the argmax against whether it is
right), and the header says "top-label reading"; its NLL, though, is -log p of the true class (vc.nll's,
scikit-learn's log_loss). Printed bare as "NLL 0.9483" beside CORP's top-label "log loss 0.6271" it read as
the confidence's binary log loss; the HTML view already named it "full multiclass"."""
import numpy as np

import veracity as vc


def _scores():
    rng = np.random.default_rng(9)
    z = rng.normal(size=(600, 4)) * 1.5
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    y = (rng.uniform(size=600)[:, None] > p.cumsum(1)).sum(1)
    return p, y


def test_the_top_label_audit_names_its_nll_multiclass():
    p, y = _scores()
    result = vc.audit(p, y, bins=10)
    categorical = -np.mean(np.log(p[np.arange(600), y]))
    assert result.nll == np.float64(categorical) or abs(result.nll - categorical) < 1e-12
    assert f"   multiclass NLL {result.nll:.4f}   top-label accuracy" in str(result)


def test_a_binary_audit_keeps_its_words():
    p, y = _scores()
    text = vc.audit(p[:, 0], (y == 0).astype(int)).summary_line()
    assert "   NLL " in text and "multiclass" not in text


def test_top_label_slice_tables_print_no_base_column():
    """The slices of (N, K) scores had a "base" column holding the top-label accuracy again (the header and
    the HTML table show no base rate there), and a classwise table mixed the classes' prevalences with the
    whole's top-label accuracy in it."""
    p, y = _scores()
    g = np.where(np.arange(600) % 2 == 0, "a", "b")
    for result in (vc.audit(p, y, bins=5, by={"seg": g}), vc.audit(p, y, bins=5, multiclass="classwise")):
        table = str(result).split("\nBy ", 1)[1].splitlines()
        assert table[1].split()[:3] == [result.group_column, "n", "ECE"], table[1]
        whole = (result.ece, result.brier, result.nll, result.auc, result.accuracy)
        want = ["600"] + [f"{v:.4f}" for v in whole]
        assert table[-1].split()[-6:] == want, table[-1]
    binary = vc.audit(p[:, 0], (y == 0).astype(int), bins=5, by={"seg": g})
    assert str(binary).split("\nBy ", 1)[1].splitlines()[1].split()[:3] == ["seg", "n", "base"]
