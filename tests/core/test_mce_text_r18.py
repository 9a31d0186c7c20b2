"""The MCE clause reads as one clause, in one parenthesis, on every surface.

Before: ``print(vc.audit(p, y, bins=10))`` on 40 rows ended its table with
``MCE n/a (no bin with >= 20 rows) (insufficient bins: 0.3602, not acted on)`` — two parentheticals in
a row, the second reading as a gloss on the first — and the notebook said ``max gap in bins n<20 (not
acted on)``, a third wording of the same number. Now the text, the reliability table's title, the
command line and the HTML report say ``MCE n/a (no bin has >= 20 rows; largest gap among the
insufficient bins 0.3602, not acted on)``, and the notebook names the number "largest gap among the
insufficient bins (n<20, not acted on)".
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc


def _forty_rows():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=40)
    y = (rng.uniform(size=40) < p).astype(int)
    return p, y


def _gaps_by_hand(p, y, bins=10, min_count=20):
    """(largest |acc - conf| over bins of >= min_count rows or NaN, over the others or None)."""
    idx = np.minimum((p * bins).astype(int), bins - 1)
    full, thin = [], []
    for b in range(bins):
        m = idx == b
        if m.any():
            (full if m.sum() >= min_count else thin).append(abs(y[m].mean() - p[m].mean()))
    return (max(full) if full else float("nan")), (max(thin) if thin else None)


def test_no_sufficient_bin_reads_as_one_clause():
    p, y = _forty_rows()
    mce, thin = _gaps_by_hand(p, y)
    assert np.isnan(mce) and thin is not None
    want = f"MCE n/a (no bin has >= 20 rows; largest gap among the insufficient bins {thin:.4f}, not acted on)"
    text = str(vc.audit(p, y, bins=10))
    assert want in text
    line = next(s for s in text.splitlines() if "MCE n/a" in s)
    clause = line[line.index("MCE"):]
    assert clause == want  # nothing after it, and one parenthesis: no ") (" between two asides
    assert ") (" not in line
    table = vc.reliability(p, y, bins=10)
    assert want in table._title() and want in table._repr_html_().replace("&gt;", ">")


def test_a_sufficient_mce_with_a_larger_thin_gap():
    rng = np.random.default_rng(3)
    p = np.r_[rng.uniform(0.0, 0.1, 200), [0.95, 0.97]]
    y = np.r_[(rng.uniform(size=200) < p[:200]).astype(int), [0, 0]]
    mce, thin = _gaps_by_hand(p, y)
    assert thin is not None and thin > mce
    text = str(vc.reliability(p, y, bins=10))
    assert f"MCE {mce:.4f} (largest gap among the insufficient bins {thin:.4f}, not acted on)" in text
    assert "insufficient bins:" not in text


def test_every_bin_sufficient_has_no_aside():
    rng = np.random.default_rng(5)
    p = rng.uniform(size=4000)
    y = (rng.uniform(size=4000) < p).astype(int)
    mce, thin = _gaps_by_hand(p, y)
    assert thin is None
    text = str(vc.reliability(p, y, bins=10))
    assert re.search(rf"MCE {mce:.4f}$", text.splitlines()[-1]) or f"MCE {mce:.4f}\n" in text + "\n"


def test_weighted_says_effective_observations():
    p, y = _forty_rows()
    text = str(vc.reliability(p, y, bins=10, sample_weight=np.linspace(0.5, 2.0, 40)))
    assert "MCE n/a (no bin has >= 20 effective observations; largest gap among the insufficient bins" in text


def test_notebook_names_the_thin_gap_in_the_same_words():
    p, y = _forty_rows()
    _, thin = _gaps_by_hand(p, y)
    page = vc.audit(p, y, bins=10)._repr_html_()
    assert (f"<b>largest gap among the insufficient bins (n&lt;20, not acted on)</b>{thin:.4f}" in page)
    assert "max gap in bins" not in page


def test_command_line_and_report_say_it_once(tmp_path, cli):
    p, y = _forty_rows()
    _, thin = _gaps_by_hand(p, y)
    f = tmp_path / "s.csv"
    f.write_text("score,label\n" + "".join(f"{float(a)!r},{b}\n" for a, b in zip(p, y)))
    want = f"MCE n/a (no bin has >= 20 rows; largest gap among the insufficient bins {thin:.4f}, not acted on)"
    res = cli(["audit", f, "--bins", "10"])
    assert res.code == 0, res.err
    assert want in res.out and ") (" not in res.out
    res = cli(["report", f, "--bins", "10", "--out", tmp_path / "r.html", "--no-bootstrap"])
    if res.code != 0:
        pytest.fail(res.err)
    page = (tmp_path / "r.html").read_text()
    assert want.replace(">", "&gt;") in page
