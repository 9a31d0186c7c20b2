"""Round 24: a printed threshold is one you can copy back; float32 scores are compared as numpy compares them.

Display: ``ThresholdTable`` printed every threshold with 4 decimals, so 0.50001 and 0.50004 printed
alike and a calib score used as threshold printed as another threshold (a user copying the cell got
other decisions); the abstention cut-offs of ``risk_coverage``, ``selective_threshold``'s line and the
conformal ``qhat`` likewise. They now print as ``veracity threshold``'s cell does (round 23): 4
decimals when exact, else 6 significant digits when exact, else every digit; decimal points aligned.
The oracle is the definition: the cell read back as a float is the threshold (in the scores' precision).

float32: ``threshold_table`` compared float32 scores with a typed threshold in float64, so a score
float32(0.7) = 0.699999988 was not flagged at 0.7 while numpy's own ``s32 >= 0.7`` (NEP 50: a Python
float is compared in the array's float32) flags it. The oracle is numpy's comparison on the user's array.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc


def _cells(text: str, skip_footer: int = 1) -> list[str]:
    """The first column of a printed table (header and ``skip_footer`` last lines left out)."""
    lines = text.splitlines()[1:len(text.splitlines()) - skip_footer]
    return [line.split()[0] for line in lines]


def _demo_like(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Scores with 6 decimals (as the demo data's) and labels drawn from them."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=n), 6)
    return p, (rng.uniform(size=n) < p).astype(int)


# -- display -------------------------------------------------------------------------------------
def test_close_thresholds_print_apart_and_read_back():
    p, y = _demo_like()
    t = [0.50001, 0.50004, 0.3, 0.1 + 0.2, float(np.quantile(p, 0.37)), 1e-7]
    cells = _cells(str(vc.threshold_table(p, y, t)))
    assert [float(c) for c in cells] == t  # each cell is its threshold: copied back, the same decisions
    assert len(set(cells)) == len(cells)


def test_ordinary_thresholds_keep_four_decimals():
    p, y = _demo_like()
    cells = _cells(str(vc.threshold_table(p, y, [0.3, 0.1, 0.5, 0.25])))
    assert cells == ["0.3000", "0.1000", "0.5000", "0.2500"]  # 0.3 is not 0.30000000000000004


def test_threshold_column_aligns_decimal_points():
    p, y = _demo_like()
    text = str(vc.threshold_table(p, y, [0.3, 0.30000001, 10.0, -2.5], score_type="score"))
    body = text.splitlines()[1:-1]
    assert len({line.index(".") for line in body}) == 1, text


@pytest.mark.parametrize("cells", [["0.3000", "-2.5000", "10.0000", "0.30000001", "inf", "-inf", "1e-07"]])
def test_point_aligned_pads_to_one_width(cells):
    from veracity.decisions._table import point_aligned

    out = point_aligned(cells)
    assert len({len(c) for c in out}) == 1
    assert [c.strip() for c in out] == cells
    assert len({c.index(".") for c in out if "." in c}) == 1


def test_threshold_table_html_names_each_threshold():
    p, y = _demo_like()
    html = vc.threshold_table(p, y, [0.50001, 0.50004])._repr_html_()
    assert ">0.50001<" in html and ">0.50004<" in html


def test_risk_coverage_cut_offs_read_back_to_their_coverage():
    p, y = _demo_like()
    text = str(vc.risk_coverage(p, y))
    conf = np.maximum(p, 1 - p)  # the top-label confidence, as the function documents it
    rows = [line.split() for line in text.splitlines()[1:-1]]
    for cell, coverage in ((r[0], float(r[1])) for r in rows):
        # answering the rows at or above the printed cut-off covers the printed share
        assert np.mean(conf >= float(cell)) == pytest.approx(coverage, abs=5e-5), (cell, coverage)


def test_selective_threshold_line_names_its_threshold():
    p, y = _demo_like()
    sel = vc.selective_threshold(p, y, target_risk=0.45, delta=0.1, candidates=[0.7123456789, 0.9])
    assert sel.threshold == 0.7123456789  # certified (its calib risk is about 0.14); 6 digits are not it
    shown = str(sel).split("answer if confidence >= ")[1].split(":")[0]
    assert float(shown) == sel.threshold


def test_conformal_qhat_cell_is_qhat():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(1200, 3))
    y = rng.integers(0, 3, 1200)
    z[np.arange(1200), y] += 1.2
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    cp = vc.ConformalClassifier(alpha=0.1).fit(P[:600], y[:600])
    report = cp.coverage(P[600:], y[600:])
    rows = [line.split() for line in str(report).splitlines()[1:4]]
    assert [float(r[2]) for r in rows] == [float(q) for q in report.qhat]


# -- float32 scores ------------------------------------------------------------------------------
def _around(t: float) -> np.ndarray:
    """float32 scores just below, at and just above float32(t), with some far away."""
    f = np.float32(t)
    return np.array([np.nextafter(f, np.float32(-1)), f, np.nextafter(f, np.float32(2)), 0.05, 0.95],
                    dtype=np.float32)


@pytest.mark.parametrize("t", [0.7, 0.3, 0.1, 0.95, 1 / 3])  # float32(t) below t (0.7, 1/3) and above it
def test_float32_counts_agree_with_numpy(t):
    s = _around(t)
    for y in (np.array([1, 1, 1, 0, 1]), np.array([0, 0, 0, 1, 0])):
        table = vc.threshold_table(s, y, [t])
        assert table.tp[0] == np.sum((s >= t) & (y == 1))
        assert table.fp[0] == np.sum((s >= t) & (y == 0))


def test_float32_rule_is_the_scores_precision():
    s = _around(0.7)
    y = np.array([1, 1, 1, 0, 1])
    assert vc.threshold_table(s, y, [0.7]).tp[0] == 3  # at, above, 0.95: numpy's float32 reading
    assert vc.threshold_table(s.astype(np.float64), y, [0.7]).tp[0] == 2  # float64 scores: float64
    table = vc.threshold_table(s, y, [0.7])
    assert table.threshold[0] == 0.7  # kept as given
    assert table.score_dtype == "float32"
    assert "compared in float32" in str(table)
    assert "compared in" not in str(vc.threshold_table(s.astype(np.float64), y, [0.7]))
    assert table.to_dict()["score_dtype"] == "float32"  # JSON readers learn the comparison's precision
    assert vc.threshold_table(s.astype(np.float64), y, [0.7]).to_dict()["score_dtype"] == "float64"


def test_float32_weighted_counts_agree_with_numpy():
    s = _around(0.7)
    y = np.array([1, 1, 1, 0, 1])
    w = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    table = vc.threshold_table(s, y, [0.7], sample_weight=w)
    assert table.tp[0] == np.sum(w[(s >= 0.7) & (y == 1)])


def test_float32_threshold_beyond_float32_range_flags_nothing_quietly():
    s = _around(0.7)
    y = np.array([1, 1, 1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = vc.threshold_table(s, y, [1e39, -1e39], score_type="score")
    assert table.alerts.tolist() == [0.0, 5.0]


def test_float32_cell_names_the_threshold_in_float32():
    from veracity.decisions._table import threshold_cell

    assert threshold_cell(float(np.float32(0.7)), np.dtype(np.float32)) == "0.7000"
    assert threshold_cell(float(np.float32(0.7))) == repr(float(np.float32(0.7)))  # float64: every digit
    s = _around(0.7)
    cells = _cells(str(vc.threshold_table(s, np.array([1, 1, 1, 0, 1]), s[:3].astype(float))))
    assert [np.float32(float(c)) for c in cells] == list(s[:3])  # each reads back to its float32 score


@pytest.mark.parametrize("kind", ["pandas", "polars", "polars-lazy"])
def test_float32_frame_columns_agree_with_numpy(kind):
    s = _around(0.7)
    y = np.array([1, 1, 1, 0, 1])
    if kind == "pandas":
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame({"p": s, "y": y})
    else:
        pl = pytest.importorskip("polars")
        frame = pl.DataFrame({"p": s, "y": y})
        frame = frame.lazy() if kind == "polars-lazy" else frame
    table = vc.threshold_table(frame, [0.7], score="p", label="y")
    assert table.tp[0] == np.sum((s >= 0.7) & (y == 1))


def test_budget_threshold_on_float32_flags_nothing_in_numpy_either():
    s = np.array([0.9, 0.9, 0.5], dtype=np.float32)  # two rows tie at the top, a budget of one
    with pytest.warns(UserWarning, match="flags nothing"):
        t = vc.budget_threshold(s, top_k=1)
    assert int(np.sum(s >= t)) == 0  # the user's own numpy check on the float32 array
    assert vc.threshold_table(s, [1, 0, 1], [t]).alerts[0] == 0


def test_cli_compares_a_float32_parquet_column_as_numpy_does(cli, tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(0)
    s = rng.uniform(size=200).astype(np.float32)
    s[:5] = np.float32(0.7)
    y = (rng.uniform(size=200) < s).astype(int)
    path = tmp_path / "f32.parquet"
    pq.write_table(pa.table({"score": s, "label": y}), path)
    result = cli(["threshold", path, "--score", "score", "--label", "label", "--also", "0.7", "--json", "-"])
    assert result.code == 0, result.err
    import json

    row = json.loads(result.out)["roles"]["all"]["table"][1]
    assert row["threshold"] == 0.7
    assert row["tp"] == np.sum((s >= 0.7) & (y == 1)) and row["fp"] == np.sum((s >= 0.7) & (y == 0))
