"""A Murphy diagram's difference within noise prints no finer than its scores need (session 29).

The model comparison caps a difference whose interval holds 0 at the decimals that show its two models' values
to 4 significant digits (core._digits.noise_decimals); the Murphy diagram kept only the two-significant-digit
rule, so on a near-tie (B is A rounded to 4 decimals, 200,000 rows) its table printed
"0.116569   0.116565   -0.000004    [-0.000025, +0.000017]" — six decimals of a difference its band calls noise.
Now such a row prints at the scores' 4 significant digits, its band's ends signed by their side, with a note
giving the difference at two significant digits where all of it prints as 0; a difference clear of 0 keeps
the digits that show it so, and to_dict() keeps every digit.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import veracity as vc

NUMBER = re.compile(r"[+-]?\d+\.\d+")


def _near_tie(n: int = 200_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A, and B = A rounded to 4 decimals: two models alike but for rounding."""
    rng = np.random.default_rng(seed)
    a = rng.beta(2, 5, n)
    y = (rng.random(n) < a).astype(int)
    return a, np.round(a, 4), y


@pytest.fixture(scope="module")
def tie() -> vc.MurphyDiagram:
    a, b, y = _near_tie()
    return vc.murphy_diagram({"A": a, "B": b}, y, theta=[0.2, 0.4, 0.6, 0.8])


def _rows(text: str) -> dict[float, list[str]]:
    """The table's numbers by theta: [A, B, B - A, band low, band high]."""
    out = {}
    for line in text.splitlines():
        parts = NUMBER.findall(line)
        if len(parts) == 6 and re.match(r"0\.\d{3} ", line):
            out[float(parts[0])] = parts[1:]
    return out


def _places(text: str) -> int:
    return len(text.split(".")[1])


def _cap(*levels: float) -> int:
    """The decimals that show the largest level to 4 significant digits, at least 4 (the rule, by hand)."""
    return max(4, 3 - math.floor(math.log10(max(abs(v) for v in levels))))


def test_within_noise_rows_print_at_their_scores_digits(tie: vc.MurphyDiagram) -> None:
    rows = _rows(str(tie))
    d = tie.difference
    assert d is not None
    within = [k for k, t in enumerate(tie.theta) if d.ci_low[k] <= 0 <= d.ci_high[k] and d.ci_high[k] > d.ci_low[k]]
    assert len(within) >= 3  # the near-tie's band holds 0 at most thresholds
    for k in within:
        a, b = float(tie.elementary["A"][k]), float(tie.elementary["B"][k])
        texts = rows[float(round(tie.theta[k], 3))]
        cap = _cap(a, b)
        assert {_places(t) for t in texts} == {cap}, (tie.theta[k], texts)
        # each printed number is its value at those decimals
        for t, v in zip(texts, (a, b, d.diff[k], d.ci_low[k], d.ci_high[k])):
            assert abs(float(t) - v) <= 0.5 * 10 ** -cap + 1e-15
        # the band's ends keep the side they lie on: it holds 0
        assert texts[3].startswith("-") and texts[4].startswith("+"), texts


def test_theta_0_2_row_reads_at_four_decimals(tie: vc.MurphyDiagram) -> None:
    # scores of about 0.117 show 4 significant digits at 4 decimals; the old table printed 6
    line = next(x for x in str(tie).splitlines() if x.startswith("0.200"))
    assert line.split()[3:] == ["+0.0000", "[-0.0000,", "+0.0000]"], line


def test_note_gives_a_difference_that_prints_as_zero(tie: vc.MurphyDiagram) -> None:
    d = tie.difference
    assert d is not None
    k = int(np.argmin(np.abs(tie.theta - 0.2)))
    assert d.diff[k] != 0 and abs(d.diff[k]) < 5e-5 and abs(d.ci_low[k]) < 5e-5 and d.ci_high[k] < 5e-5
    notes = [x for x in str(tie).splitlines() if x.startswith("note: B - A at theta")]
    assert len(notes) == 1, str(tie)
    expected = f"at theta 0.200 = {d.diff[k]:+.1e} [{d.ci_low[k]:+.1e}, {d.ci_high[k]:+.1e}]: within noise"
    assert expected in notes[0] and "to_dict() keeps every digit" in notes[0], notes[0]


def test_json_keeps_every_digit(tie: vc.MurphyDiagram) -> None:
    d = tie.difference
    assert d is not None
    out = tie.to_dict()["differences"][0]
    assert out["diff"] == d.diff.tolist() and out["ci_low"] == d.ci_low.tolist()
    k = int(np.argmin(np.abs(tie.theta - 0.2)))
    assert round(out["diff"][k], 4) != out["diff"][k]  # finer than the table prints it


def test_notebook_cells_match_the_text(tie: vc.MurphyDiagram) -> None:
    # the notebook row is the printed row: scores, the difference, and the band as one cell
    html = tie._repr_html_()
    a, b, diff, low, high = _rows(str(tie))[0.2]
    assert f"<td>{a}</td><td>{b}</td><td>{diff}</td><td>[{low}, {high}]</td>" in html
    assert _places(a) == 4


def test_exact_zero_keeps_its_look() -> None:
    # the two models put every row on the same side of theta: an exact 0 whose band holds 0 (empty discordant
    # cells' Wilson reach z²/(n+z²), by MOVER: ±3.84/5003.84·sqrt(0.5²+0.5²) = ±0.00054), printed at the
    # scores' digits, and no note
    rng = np.random.default_rng(5)
    a = rng.uniform(0.0, 1.0, 5_000)
    y = (rng.random(5_000) < a).astype(int)
    m = vc.murphy_diagram({"A": a, "B": a + 1e-12 * (a < 0.4)}, y, theta=[0.5])
    line = next(x for x in str(m).splitlines() if x.startswith("0.500"))
    assert line.split()[3:] == ["+0.0000", "[-0.0005,", "+0.0005]"], line
    assert "note: B - A" not in str(m)


def test_clear_of_zero_keeps_two_significant_digits() -> None:
    # a rare event's difference whose band excludes 0 is not capped: its levels are about 0.005
    rng = np.random.default_rng(2)
    n = 200_000
    x = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-(-5.6 + 1.2 * x))))
    a = 1 / (1 + np.exp(-(-5.6 + 0.4 * x)))
    b = 1 / (1 + np.exp(-(-5.6 + 1.2 * x)))
    m = vc.murphy_diagram({"a": a, "b": b}, y, theta=[0.02])
    d = m.difference
    assert d is not None and d.ci_high[0] < 0  # b better, clear of 0
    texts = _rows(str(m))[0.02]
    top = max(abs(d.diff[0]), abs(d.ci_low[0]), abs(d.ci_high[0]))
    want = 1 - math.floor(math.log10(top))
    assert _places(texts[2]) >= want and float(texts[4]) < 0, texts
