"""CORP's printout: MCB and DSC are >= 0 by construction (the PAV fit minimises every proper score among
isotonic functions of the score, and the score and the base rate are such functions), but scores already
isotonic-calibrated (an isotonic fit read on its own rows, where MCB is 0) printed a log-loss MCB of
"-0.0000" about 40 % of the time: the fit's mean was summed per block, the score's per row, and came out
1e-16 above it. The header said "1 blocks" and "5932 distinct scores" (no plural rule, no thousands
separator, as veracity prints counts elsewhere)."""

import numpy as np
import pytest

import veracity as vc


def _isotonic_on_own_rows(seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(seed)
    s = rng.uniform(size=2000)
    y = (rng.uniform(size=2000) < s**2).astype(int)
    return IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(s), y


def test_mcb_and_dsc_are_never_negative() -> None:
    pytest.importorskip("sklearn")
    for seed in range(12):  # before: 4 of these 12 printed "-0.0000" (mcb -1.1e-16)
        p, y = _isotonic_on_own_rows(seed)
        result = vc.corp(p, y)
        for d in (result.brier, result.log_loss):
            assert d.mcb >= 0.0 and d.dsc >= 0.0, (seed, d)
            assert abs(d.mcb - d.dsc + d.unc - d.score) < 1e-15
            assert d.mcb < 1e-15  # the scores are their own PAV fit
        assert "-0.0000" not in str(result), str(result)


def test_exact_block_rates_weighted_or_not() -> None:
    rng = np.random.default_rng(0)
    for trial in range(300):  # scores equal to their block's label rate: MCB is 0, never below
        sizes = rng.integers(1, 9, rng.integers(1, 5))
        labels = [(rng.uniform(size=k) < rng.uniform()).astype(int) for k in sizes]
        p = np.concatenate([np.full(k, lab.mean()) for k, lab in zip(sizes, labels)])
        y = np.concatenate(labels)
        order = np.argsort(p, kind="stable")
        w = None if trial % 2 else rng.exponential(size=p.size)
        result = vc.corp(p[order], y[order], sample_weight=w)
        assert min(result.brier.mcb, result.brier.dsc, result.log_loss.mcb, result.log_loss.dsc) >= 0.0


def test_header_counts_read_as_counts() -> None:
    assert "(PAV reliability curve, 1 block over 1 distinct score;" in str(vc.corp([0.2, 0.2], [0, 1]))
    rng = np.random.default_rng(1)
    p = rng.uniform(size=3000)
    head = str(vc.corp(p, (rng.uniform(size=3000) < p).astype(int))).splitlines()[0]
    assert " blocks over 3,000 distinct scores;" in head, head
