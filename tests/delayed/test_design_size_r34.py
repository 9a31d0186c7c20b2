"""Session 34: a designed sample's propensities that describe a larger window than the one passed.

With ``propensity=`` the random-sample check was skipped, and nothing checked that the propensities belong to
the rows passed. Every top-2 % row labelled and 2 % of the others from 20,000 rows, with only a quarter of the
unlabelled rows passed as ``scores_unlabelled`` (a day of a week, say): PPI read 0.142 and the labels alone
0.338 for a rate of 0.076, with no note. The labels drawn at random stand for sum(1 / propensity) = 20,200
rows where the window passed has 5,203 not labelled with certainty: z = 15 standard errors. Refused now
(sample_check="raise"), or marked invalid ("flag"); a design that fits its window passes.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _window(seed: int, rows: int = 20_000):
    rng = np.random.default_rng(seed)
    f = rng.beta(1, 12, rows)
    y = (rng.random(rows) < f).astype(int)
    pi = np.where(f >= np.quantile(f, 0.98), 1.0, 0.02)
    lab = rng.random(rows) < pi
    return y, f, pi, lab


def test_part_of_the_window_passed_is_refused_or_flagged(error_line) -> None:
    y, f, pi, lab = _window(1)
    part = np.flatnonzero(~lab)[: int((~lab).sum()) // 4]
    text = error_line(lambda: vc.ppi_mean(y[lab], f[lab], f[part], propensity=pi[lab]))
    assert "the propensities do not describe this window" in text and "stand for 20,200 rows" in text
    r = vc.ppi_mean(y[lab], f[lab], f[part], propensity=pi[lab], sample_check="flag")
    assert not r.valid and r.note is not None and "NOT VALID" in r.note and "propensity" in r.note
    # the whole window: the same labels pass, valid, near the true rate
    whole = vc.ppi_mean(y[lab], f[lab], f[~lab], propensity=pi[lab])
    assert whole.valid and whole.ci_low <= y.mean() <= whole.ci_high


def test_sum_of_inverse_propensities_is_the_horvitz_thompson_count_written_out() -> None:
    from veracity.delayed._design import design_size

    pi = np.array([1.0, 1.0, 0.5, 0.25, 0.1])
    S, M_r, z = design_size(pi, 30.0)
    assert S == pytest.approx(2 + 4 + 10)
    assert M_r == 28.0
    assert z == pytest.approx((16 - 28) / np.sqrt(0.5 / 0.25 + 0.75 / 0.0625 + 0.9 / 0.01))


@pytest.mark.parametrize(("rows", "share", "fixed"), [(2_000, 0.005, False), (20_000, 0.02, False),
                                                      (500, 0.3, False), (5_000, 0.02, True)])
def test_designs_that_fit_their_window_are_not_refused(rows: int, share: float, fixed: bool) -> None:
    # Poisson draws (each row on its own chance) and fixed-size draws per stratum: z stays well below DESIGN_Z
    from veracity.delayed._design import DESIGN_Z, design_size

    rng = np.random.default_rng(rows)
    f = rng.beta(1, 12, rows)
    pi = np.where(f >= np.quantile(f, 0.98), 1.0, share)
    zs = []
    for _ in range(400):
        if fixed:
            lab = pi == 1.0
            others = np.flatnonzero(~lab)
            lab[rng.choice(others, int(round(share * others.size)), replace=False)] = True
        else:
            lab = rng.random(rows) < pi
        if int((pi[lab] < 1).sum()) < 2:
            continue
        zs.append(design_size(pi[lab], float(rows))[2])
    assert max(zs) < DESIGN_Z - 0.5


def test_uneven_propensities_that_fit_their_window_pass_ppi_mean() -> None:
    rng = np.random.default_rng(7)
    rows = 5_000
    f = rng.beta(0.5, 4, rows)
    pi = np.clip(0.002 + 0.5 * f, 0, 1)
    for _ in range(100):
        y = (rng.random(rows) < f).astype(int)
        lab = rng.random(rows) < pi
        assert vc.ppi_mean(y[lab], f[lab], f[~lab], propensity=pi[lab]).valid
