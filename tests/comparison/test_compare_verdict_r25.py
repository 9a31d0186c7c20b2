"""Round 25: the verdict's numbers in the table's orientation (B - A, said), "the same resolution" for one
ranking, and never "-0.0000" in a comparison's text."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc


def _two(rng: np.random.Generator, n: int = 3000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """logreg: the true probabilities; hgb: the same plus noise on the logit (less resolution)."""
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-1.5 * x))
    y = (rng.random(n) < p).astype(int)
    noisy = 1 / (1 + np.exp(-1.5 * (x + rng.normal(scale=0.6, size=n))))
    return p, noisy, y


def _numbers(text: str, name: str) -> list[tuple[float, float, float, str]]:
    """Every ``NAME v [lo, hi] ... for B - A`` in a verdict: value, ends and the difference it names."""
    pattern = rf"{name} ([+-]\d\.\d{{4}}) \[([+-]\d\.\d{{4}}), ([+-]\d\.\d{{4}})\][^()]*? for (\w+ - \w+)"
    return [(float(v), float(lo), float(hi), which) for v, lo, hi, which in re.findall(pattern, text)]


def test_every_verdict_number_is_the_tables_difference_and_says_so():
    p, noisy, y = _two(np.random.default_rng(1))
    r = vc.compare_models({"logreg": p, "hgb": noisy}, y, random_state=0)
    d = r.corp_differences[0]
    assert d.dsc_high < 0, "hgb has less resolution on these rows"  # the premise
    text = r.verdict
    assert text.startswith("logreg has the higher resolution"), text
    dsc = _numbers(text, "DSC")
    assert dsc, text
    for value, low, high, which in dsc:  # the table's b - a, not its negation
        assert which == "hgb - logreg"
        assert (value, low, high) == tuple(round(v, 4) for v in (d.dsc, d.dsc_low, d.dsc_high))
    for value, low, high, which in _numbers(text, "MCB"):
        assert which == "hgb - logreg" and value == round(d.mcb, 4)
    # every signed number in the verdict sits in a clause that names its difference
    for clause in re.findall(r"\(([^()]*[+-]\d\.\d{4}[^()]*)\)", text):
        assert " for hgb - logreg" in clause, clause


def test_one_ranking_has_the_same_resolution_and_no_negative_zero():
    rng = np.random.default_rng(3)
    n = 3000
    p_old = rng.random(n)
    y = (rng.random(n) < p_old).astype(int)
    logit = np.log(p_old / (1 - p_old))
    p_new = 1 / (1 + np.exp(-(2 * logit + 0.3)))  # a monotone map: the same order of the rows
    r = vc.compare_models({"p_old": p_old, "p_new": p_new}, y, random_state=0)
    assert r.corp_differences[0].dsc == 0.0 and r.row("auc").diff == 0.0  # the premise
    assert "their resolution is the same" in r.verdict, r.verdict
    assert "differs by no more than noise (DSC" not in r.verdict
    for shown in (str(r), r._repr_html_(), *r.verdicts):
        assert "-0.0000" not in shown


def test_an_interval_end_a_rounding_error_below_zero_prints_no_negative_zero():
    from veracity.comparison._compare import _ci, _signed

    assert _ci(-1e-9, 0.0105) == "[+0.0000, +0.0105]"
    assert "-0.0000" not in _signed("MCB", -3e-6, -4e-6, 1e-2)
    assert _ci(-0.00006, 0.01) == "[-0.0001, +0.0100]"  # a value that rounds away from 0 keeps its sign


def test_no_negative_zero_in_many_seeded_comparisons():
    rng = np.random.default_rng(5)
    for _ in range(12):
        n = int(rng.integers(40, 400))
        p = rng.random(n)
        y = (rng.random(n) < p).astype(int)
        q = np.clip(p + rng.normal(scale=0.02, size=n), 0.001, 0.999)
        r = vc.compare_models({"a": p, "b": q}, y, n_resamples=50, random_state=1,
                              by=rng.integers(0, 3, size=n))
        assert "-0.0000" not in str(r) and "-0.0000" not in r._repr_html_()
