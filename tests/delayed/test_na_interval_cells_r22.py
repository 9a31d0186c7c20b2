"""A PPI++ audit's interval with neither end known prints one ``n/a``, never ``[n/a, n/a]`` (round 22).

A score bin with one label (or none) has no interval: ``vc.ppi_audit``'s table printed
``rate in [0.5, 1]  n/a  [n/a, n/a]``; every other table prints such a cell as one ``n/a``
(core._display.interval_cell), and so does the notebook table of the same result.
"""

import numpy as np

import veracity as vc


def _row(text, quantity):
    (line,) = [ln for ln in text.splitlines() if ln.startswith(quantity + "  ")]  # the name, then padding
    return line


def test_a_bin_without_an_interval_prints_one_na():
    a = vc.ppi_audit([1, 0, 1], [0.3, 0.4, 0.9], [0.2, 0.8], bins=2)
    row = a.row("rate in [0.5, 1]")
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])  # one label: no interval
    text = str(a)
    assert "[n/a, n/a]" not in text
    cells = _row(text, "rate in [0.5, 1]")[len("rate in [0.5, 1]"):].split()
    assert cells[:3] == ["n/a", "n/a", "0.8500"]  # estimate, interval (one n/a), CBPE
    rate = a.row("rate")  # an interval with both ends prints both
    assert f"[{rate['ci_low']:.4f}, {rate['ci_high']:.4f}]" in _row(text, "rate")
    assert "[n/a" not in a._repr_html_()  # the notebook table and its text block


def test_an_empty_bin_prints_one_na():
    a = vc.ppi_audit([1, 1], [0.3, 0.4], [0.2, 0.8], bins=2)
    assert a.row("rate in [0.5, 1]")["n_labelled"] == 0
    text = str(a)
    assert "[n/a, n/a]" not in text
    assert _row(text, "rate in [0.5, 1]").split()[4:6] == ["n/a", "n/a"]
