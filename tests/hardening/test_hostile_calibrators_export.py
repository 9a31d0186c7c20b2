"""Hostile fits of the calibrators and their exports: degenerate calibration data never yields a
silent wrong map, every export (DuckDB, SQLite, onnxruntime) equals ``transform()``, and user
mistakes are one line of :class:`vc.VeracityError` (exit 2 on the command line)."""

from __future__ import annotations

import json
import sqlite3
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main

TOL = 1e-12


# ----------------------------------------------------------------------------------
# engines: the exported SQL executed on DuckDB and stdlib SQLite, the ONNX model on onnxruntime
# ----------------------------------------------------------------------------------
def _sqlite(text: str, X: np.ndarray, names: list[str]) -> np.ndarray:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (id INTEGER, " + ", ".join(f'"{n}" REAL' for n in names) + ")")
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * (len(names) + 1))})",
                    [(i, *map(float, row)) for i, row in enumerate(X)])
    return np.array(con.execute(f"SELECT {text} FROM t ORDER BY id").fetchall(), dtype=np.float64)


def _duckdb(text: str, X: np.ndarray, names: list[str]) -> np.ndarray:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    cols = ", ".join(f'CAST(v[{k + 1}] AS DOUBLE) AS "{n}"' for k, n in enumerate(names))
    con.execute(f"CREATE TABLE t AS SELECT i AS id, {cols} FROM (SELECT UNNEST(range(?)) AS i, "
                "UNNEST(?::DOUBLE[][]) AS v)", [X.shape[0], X.tolist()])
    return np.array(con.execute(f"SELECT {text} FROM t ORDER BY id").fetchall(), dtype=np.float64)


def _onnx(model: bytes, x: np.ndarray) -> np.ndarray:
    ort = pytest.importorskip("onnxruntime")
    return ort.InferenceSession(model).run(None, {"score": x})[0]


def _exports_agree(cal, x: np.ndarray, *, columns=None, prior_shift=None) -> None:
    want = cal.transform(x)
    if prior_shift is not None:
        want = vc.adjust_prior(want, *prior_shift)
    X = x.reshape(x.shape[0], -1)
    names = columns or (["score"] if x.ndim == 1 else [f"score_{k}" for k in range(X.shape[1])])
    column = names[0] if x.ndim == 1 else names
    for engine in (_duckdb, _sqlite):
        got = engine(cal.to_sql(column, dialect="duckdb" if engine is _duckdb else "sqlite",
                                prior_shift=prior_shift), X, names)
        np.testing.assert_allclose(got, want.reshape(want.shape[0], -1), rtol=0, atol=TOL,
                                   err_msg=engine.__name__)
    got = _onnx(cal.to_onnx(prior_shift=prior_shift), x)
    assert got.shape == want.shape, "onnx output shape"
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg="onnx")


P_EVAL = np.array([0.0, 1.0, 0.5, 1 / 3, np.nextafter(1 / 3, 0), np.nextafter(1 / 3, 1), 1e-300, 5e-324,
                   1 - 2 ** -53, 0.2, 0.8, 0.05, 0.95])


# ----------------------------------------------------------------------------------
# tied calibration scores: Platt and beta keep a zero slope and output the base rate
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("score_type, value", [("probability", 1 / 3), ("probability", 0.1), ("score", 1 / 3),
                                               ("logit", float(np.log(0.5)))])
@pytest.mark.parametrize("n", [6, 12, 15, 24])
@pytest.mark.parametrize("make", [vc.PlattScaling, vc.BetaCalibration])
def test_tied_scores_give_the_base_rate_not_a_huge_slope(make, n, score_type, value):
    # every score equal: the likelihood is flat in the slope, the MLE is the base rate (1/3 here).
    # The rounding of mean and std of a constant column (~1e-17) was scaled up by Newton into
    # slopes of ~1e15: the tied score itself got 0.27 and any other score 0 or 1.
    y = np.tile([1.0, 0.0, 0.0], n // 3)
    cal = make(score_type=score_type).fit(np.full(n, value), y)
    assert cal.a_ == 0.0
    if make is vc.BetaCalibration:
        assert cal.b_ == 0.0
    other = np.array([value, value * 0.9, value * 1.1]) if score_type != "logit" else np.array([value, -3.0, 3.0])
    np.testing.assert_allclose(cal.transform(other), 1 / 3, rtol=0, atol=1e-12)


def test_tied_one_vs_rest_beta_is_uniform_and_exports():
    P = np.full((6, 3), 1 / 3)
    cal = vc.BetaCalibration().fit(P, np.array([0, 1, 2, 0, 1, 2]))
    rng = np.random.default_rng(0)
    Q = rng.dirichlet([1, 1, 1], 20)
    np.testing.assert_allclose(cal.transform(Q), 1 / 3, rtol=0, atol=1e-12)
    _exports_agree(cal, Q)


# ----------------------------------------------------------------------------------
# logits past 1e154 (their squares overflow): the fit is the fit of the rescaled scores
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [vc.PlattScaling, vc.BetaCalibration])
def test_huge_logits_fit_like_their_rescaled_copy(make):
    s = np.array([-1.0, 1.0, -0.3, 0.3, 0.1, -0.1, -2.0, 0.5])
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # was: overflow in square, then a constant 0.5 map
        small = make(score_type="logit").fit(s, y)
        huge = make(score_type="logit").fit(s * 1e200, y)
        got = huge.transform(s * 1e200)
    assert np.ptp(got) > 0.5
    if make is vc.PlattScaling:  # Platt is scale-equivariant: the same map
        np.testing.assert_allclose(got, small.transform(s), rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------------
# maps that ignore their input (beta with a = b = 0, a zero matrix row): ONNX gives one value per row
# ----------------------------------------------------------------------------------
def test_constant_beta_map_exports_one_value_per_row():
    cal = vc.BetaCalibration().fit(np.full(9, 0.3), np.tile([1, 0, 0], 3))
    assert cal.a_ == cal.b_ == 0.0
    _exports_agree(cal, P_EVAL)
    assert _onnx(cal.to_onnx(), P_EVAL[:1]).shape == (1,)


def test_constant_matrix_row_exports_one_value_per_row():
    rng = np.random.default_rng(2)
    P = rng.dirichlet([1, 1, 1], 60)
    doc = vc.MatrixScaling().fit(P, np.arange(60) % 3).to_dict()
    doc["state"]["W_"][1] = [0.0, 0.0, 0.0]  # class 1's logit is its intercept alone
    cal = vc.load(doc)
    _exports_agree(cal, P[:10])


# ----------------------------------------------------------------------------------
# prior shift on two-class multiclass maps: both columns shifted, as vc.adjust_prior does
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [vc.PlattScaling, vc.VectorScaling, vc.MatrixScaling, vc.IsotonicCalibration])
@pytest.mark.parametrize("prior", [([0.7, 0.3], [0.2, 0.8]), (0.3, 0.8)])
def test_prior_shift_of_a_two_class_multiclass_map(make, prior):
    # was: one output column, computed from class 0's probability as if it were the positive class
    rng = np.random.default_rng(3)
    P = rng.dirichlet([1, 1], 80)
    y = (rng.random(80) < P[:, 1]).astype(int)
    cal = make().fit(P, y)
    _exports_agree(cal, P[:20], prior_shift=prior)


# ----------------------------------------------------------------------------------
# a two-class temperature fit on (N, 2) scores exports its (N, 2) form
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("score_type", ["logit", "probability"])
def test_two_column_temperature_exports_two_columns(score_type):
    rng = np.random.default_rng(4)
    Z = rng.normal(0, 2, (200, 2))
    y = (rng.random(200) < 1 / (1 + np.exp(-(Z[:, 1] - Z[:, 0]) / 2))).astype(int)
    X = Z if score_type == "logit" else np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    cal = vc.TemperatureScaling(score_type=score_type).fit(X, y)
    assert cal.metadata["n_columns"] == 2
    # was: a one-column map sigma(x / T) (SQL refused two names; ONNX wanted [N]): fed the class-1
    # logit it silently differs from softmax(z / T)
    _exports_agree(cal, X[:30])
    back = vc.load(json.loads(json.dumps(cal.to_dict())))
    _exports_agree(back, X[:30])


def test_binary_temperature_given_two_columns_exports_the_softmax_form():
    rng = np.random.default_rng(5)
    p = rng.random(100)
    cal = vc.TemperatureScaling().fit(p, (rng.random(100) < p).astype(int))
    assert cal.metadata["n_columns"] == 1
    _exports_agree(cal, P_EVAL)  # 1-D: sigma(logit(p) / T)
    X = np.column_stack([1 - p[:20], p[:20]])
    want = cal.transform(X)
    got = _duckdb(cal.to_sql(["a", "b"]), X, ["a", "b"])
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)


# ----------------------------------------------------------------------------------
# Venn-ABERS fit on 1-D scores refuses (N, 2) scores (was: mapped column by column)
# ----------------------------------------------------------------------------------
def test_binary_venn_abers_refuses_two_column_scores():
    cal = vc.VennAbers().fit(np.array([0.1, 0.3, 0.6, 0.9, 0.2, 0.7]), np.array([0, 0, 1, 1, 0, 1]))
    X = np.array([[0.45, 0.55], [0.05, 0.95]])
    for call in (cal.transform, cal.predict_interval):
        with pytest.raises(vc.VeracityError, match=r"fit on 1-D binary scores but got scores of shape \(2, 2\)"):
            call(X)
    np.testing.assert_allclose(cal.transform(X[:, 1:]), cal.transform(X[:, 1]))  # (N, 1) is 1-D


# ----------------------------------------------------------------------------------
# one-line errors
# ----------------------------------------------------------------------------------
def test_transform_out_of_range_names_the_fitted_score_type():
    cal = vc.PlattScaling().fit(np.array([0.1, 0.9, 0.3, 0.6]), np.array([0, 1, 1, 0]))  # not separated
    with pytest.raises(vc.VeracityError, match=r"^scores must be probabilities in \[0, 1\]; 2 of 2 are not .*"
                                               r"PlattScaling was fit on probabilities.*"
                                               r"fit a calibrator with PlattScaling\(score_type='logit'\)\)$"):
        cal.transform([3.0, -2.0])
    with pytest.raises(vc.VeracityError, match="must be probabilities"):  # fitting keeps its own hint
        vc.PlattScaling().fit([3.0, -2.0], [0, 1])


@pytest.mark.parametrize("dest", ["missing-folder/cal.json", "."])
def test_save_to_a_bad_path_is_one_line(tmp_path, monkeypatch, dest):
    monkeypatch.chdir(tmp_path)
    cal = vc.PlattScaling().fit(np.array([0.1, 0.9, 0.3, 0.6]), np.array([0, 1, 1, 0]))  # not separated
    with pytest.raises(vc.VeracityError) as info:  # was: FileNotFoundError naming a temporary file
        cal.save(dest)
    assert "\n" not in str(info.value) and ".tmp" not in str(info.value)
    assert list(tmp_path.iterdir()) == []


def _demo(tmp_path):
    rng = np.random.default_rng(6)
    p = rng.random(200)
    path = tmp_path / "d.csv"
    path.write_text("p,y,z\n" + "".join(f"{float(a)!r},{int(b)},{float(np.log(a / (1 - a)))!r}\n"
                                        for a, b in zip(p, rng.random(200) < p)))
    return path


def test_cli_apply_refuses_an_empty_output_column(tmp_path, capsys):
    data = _demo(tmp_path)
    cal = tmp_path / "c.json"
    assert main(["fit", str(data), "--method", "platt", "--score", "p", "--label", "y", "--out", str(cal)]) == 0
    capsys.readouterr()
    for bad in ("", "  ", "a\tb"):
        assert main(["apply", str(cal), str(data), "--out", str(tmp_path / "o.csv"), "--column", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--column" in err
    assert not (tmp_path / "o.csv").exists()


def test_cli_apply_of_logits_to_a_probability_map_names_no_missing_flag(tmp_path, capsys):
    data = _demo(tmp_path)
    cal = tmp_path / "c.json"
    assert main(["fit", str(data), "--method", "platt", "--score", "p", "--label", "y", "--out", str(cal)]) == 0
    capsys.readouterr()
    assert main(["apply", str(cal), str(data), "--out", str(tmp_path / "o.csv"), "--score", "z"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "was fit on probabilities" in err
    assert "fit a calibrator with --score-type logit" in err  # `apply` itself has no --score-type


def test_cli_exports_a_two_column_temperature(tmp_path, capsys):
    rng = np.random.default_rng(7)
    z = rng.normal(0, 2, 200)
    path = tmp_path / "d.csv"
    path.write_text("z0,z1,y\n" + "".join(f"{float(-a / 2)!r},{float(a / 2)!r},{int(b)}\n"
                                          for a, b in zip(z, rng.random(200) < 1 / (1 + np.exp(-z / 2)))))
    cal = tmp_path / "t.json"
    assert main(["fit", str(path), "--method", "temperature", "--score", "z0,z1", "--score-type", "logit",
                 "--label", "y", "--out", str(cal)]) == 0
    capsys.readouterr()
    assert main(["export", str(cal), "--sql", "duckdb"]) == 0  # was: exit 2, "reads one score column"
    text = capsys.readouterr().out
    X = np.column_stack([-z / 2, z / 2])
    got = _duckdb(text, X, ["z0", "z1"])
    np.testing.assert_allclose(got, vc.load(cal).transform(X), rtol=0, atol=TOL)


# ----------------------------------------------------------------------------------
# a histogram fit on logits bins sigma(s): its exports bin s itself, exactly at every edge
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bins, strategy", [(10, "uniform"), (7, "uniform"), (50, "uniform"), (10, "quantile"),
                                            (50, "quantile"), (9, "equal-count")])
def test_histogram_on_logits_exports_bin_edges_exactly(bins, strategy):
    # was: the export computed the sigmoid and then binned; onnxruntime's Exp rounds differently
    # from the C library's in the last bit, which moved logits next to an edge a whole bin
    from veracity.export._plan import uniform_thresholds

    rng = np.random.default_rng(8)
    s = rng.normal(0, 2, 2000)
    cal = vc.HistogramBinning(score_type="logit", bins=bins, strategy=strategy).fit(
        s, (rng.random(2000) < 1 / (1 + np.exp(-s))).astype(int))
    cuts = uniform_thresholds(bins) if strategy == "uniform" else cal.edges_[1:-1]
    at = np.log(cuts / (1 - cuts))
    x = np.concatenate([at + k * np.spacing(at) for k in range(-60, 61)] + [[-800.0, 800.0, 0.0]])
    _exports_agree(cal, x)


def test_a_loaded_multiclass_venn_abers_is_named_as_users_build_it(tmp_path, capsys):
    """Before: `veracity apply` printed the internal class name PairwiseVennAbers."""
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(3), 300)
    y = np.array([rng.choice(3, p=row) for row in P])
    path = tmp_path / "d.csv"
    rows = (f"{float(a)!r},{float(b)!r},{float(c)!r},{int(k)}\n" for (a, b, c), k in zip(P, y))
    path.write_text("p0,p1,p2,y\n" + "".join(rows))
    cal = tmp_path / "va.json"
    vc.VennAbers(multiclass="ovo").fit(P, y).save(cal)
    assert vc.load(cal).name == "VennAbers(multiclass='ovo')"
    capsys.readouterr()
    assert main(["apply", str(cal), str(path), "--score", "p0,p1,p2", "--out", str(tmp_path / "o.csv")]) == 0
    out = capsys.readouterr()
    assert "applied VennAbers(multiclass='ovo') to 300 rows" in out.out + out.err
    assert "Pairwise" not in out.out + out.err
