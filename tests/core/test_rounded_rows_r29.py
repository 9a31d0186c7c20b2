"""Multiclass probability rows that look rounded say so, and how to renormalise them (round 29).

A 10-class table of probabilities rounded to 3 decimals (a CSV written with ``%.3f``) has row sums like
0.998 and 1.001. Refusing it is right (no silent renormalisation), but the refusal said only "Normalise
the rows, or pass score_type='logit' for raw logits", which points at logits. When every row whose sum
is off 1 holds values of ``d`` >= 2 decimals and is off by no more than rounding K values to ``d``
decimals can move it (K x 0.5 x 10^-d), the hint now says the rows look rounded to ``d`` decimals and
shows the fix, still one line. Other rows keep the old hint.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _rounded(n=200, k=10, decimals=3, seed=29):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, (n, k))
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return np.round(P, decimals), rng.integers(0, k, n)


def _hint(call):
    with pytest.raises(vc.VeracityError) as caught:
        call()
    text = str(caught.value)
    assert "\n" not in text and "must sum to 1" in text, text
    return text


@pytest.mark.parametrize("decimals", [2, 3, 4])
def test_rounded_rows_are_named_as_rounded(decimals):
    P, y = _rounded(decimals=decimals)
    assert np.any(np.abs(P.sum(axis=1) - 1.0) > 1e-5)  # the rounding did move some sums off 1
    text = _hint(lambda: vc.audit(P, y))
    assert f"The rows look rounded to {decimals} decimals" in text, text
    assert f"within 10 x {0.5 * 10.0 ** -decimals:g} of 1" in text
    assert "p / p.sum(axis=1, keepdims=True)" in text and "logit" not in text


def test_the_advice_works():
    P, y = _rounded()
    audit = vc.audit(P / P.sum(axis=1, keepdims=True), y)
    assert audit.n == 200


def test_rounded_rows_are_named_by_every_reader_of_rows():
    P, y = _rounded(k=4)
    for call in (lambda: vc.ece(P, y), lambda: vc.reliability(P, y), lambda: vc.accuracy(P, y),
                 lambda: vc.ece(P, y, multiclass="classwise")):
        assert "The rows look rounded to 3 decimals (each such sum is within 4 x 0.0005 of 1)" in _hint(call)


@pytest.mark.parametrize("case", ["unrounded", "one row off beyond rounding", "one decimal", "zeros"])
def test_rows_off_one_by_more_than_rounding_keep_the_old_hint(case):
    P, y = _rounded()
    if case == "unrounded":
        rng = np.random.default_rng(1)
        P = rng.dirichlet(np.ones(10), 200) * 0.999  # full-precision values, every sum 0.999
    elif case == "one row off beyond rounding":
        P[7] = np.round(P[7] * 0.99, 3)  # its sum is ~0.99: 10 values rounded to 3 decimals move it <= 0.005
    elif case == "one decimal":
        P, y = np.array([[0.5, 0.6], [0.2, 0.8]]), np.array([0, 1])  # as likely hand-written as rounded
    else:
        P[3] = 0.0
    text = _hint(lambda: vc.audit(P, y))
    assert "look rounded" not in text
    assert text.endswith("Normalise the rows, or pass score_type='logit' for raw logits"), text


def test_the_bound_is_k_half_units():
    # K = 2 at 3 decimals: a sum within 2 x 0.0005 = 0.001 of 1 is rounding, 0.002 off is not
    y = np.array([0, 1])
    assert "look rounded to 3" in _hint(lambda: vc.ece(np.array([[0.333, 0.666], [0.5, 0.5]]), y))
    assert "look rounded" not in _hint(lambda: vc.ece(np.array([[0.333, 0.665], [0.5, 0.5]]), y))


@pytest.mark.parametrize("engine", ["memory", "auto"])
def test_the_command_line_says_it_too(cli, refused, tmp_path, engine):
    P, y = _rounded()
    path = tmp_path / "rounded.csv"
    cols = [f"p{i}" for i in range(10)]
    path.write_text(",".join([*cols, "y"]) + "\n"
                    + "".join(",".join(f"{v:.3f}" for v in row) + f",{t}\n" for row, t in zip(P, y)))
    result = cli(["audit", path, "--score", ",".join(cols), "--label", "y", "--engine", engine])
    refused(result)
    assert "The rows look rounded to 3 decimals (each such sum is within 10 x 0.0005 of 1)" in result.err
    assert "p / p.sum(axis=1, keepdims=True)" in result.err
