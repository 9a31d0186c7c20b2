"""Round 15: hostile inputs for the calibrators, their artifacts and their exports (SQL, ONNX), as a
demanding user of a calibration library would try them. Each test names what happened before."""

from __future__ import annotations

import math

import numpy as np
import pytest

import veracity as vc

RNG = np.random.default_rng(15)


def _data(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, n)
    p = 1.0 / (1.0 + np.exp(-z))
    y = (rng.random(n) < p).astype(np.int64)
    return z, p, y


# -- metadata that the artifact cannot hold ------------------------------------------------------------
@pytest.mark.parametrize("meta, field", [
    ({"fit_window": float("nan")}, "fit_window"),          # a missing cell read from a frame
    ({"cohort": np.float64("inf")}, "cohort"),
    ({"note": {"window": [1.0, float("-inf")]}}, "note"),
])
def test_metadata_json_cannot_hold_is_refused_at_fit_in_one_line(meta, field, tmp_path):
    """Before: the fit took the NaN, and save() raised json's bare ValueError "Out of range float values are
    not JSON compliant: nan" (no field named, not a VeracityError)."""
    _, p, y = _data()
    with pytest.raises(vc.VeracityError, match=rf"^metadata\[{field!r}\].*(NaN|infinit)") as info:
        vc.PlattScaling().fit(p, y, metadata=meta)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("meta, field", [
    ({"score_column": 3}, "score_column"),                  # read back as the column apply/export use
    ({"label_column": ["y", "z"]}, "label_column"),
])
def test_metadata_that_load_would_refuse_is_refused_at_fit(meta, field, tmp_path):
    """Before: save() wrote it, and vc.load refused the file ("re-fit and save it", which wrote the same
    unreadable file again): the fitted calibrator was lost."""
    _, p, y = _data()
    with pytest.raises(vc.VeracityError, match=rf"^metadata\[{field!r}\]") as info:
        vc.IsotonicCalibration().fit(p, y, metadata=meta)
    assert "\n" not in str(info.value)


def test_metadata_nested_deeper_than_load_reads_is_refused_at_fit():
    """Before: save() wrote it; vc.load refused it ("JSON nested deeper than 32 levels")."""
    _, p, y = _data()
    deep: dict = {}
    node = deep
    for _ in range(40):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(vc.VeracityError, match=r"^metadata\['deep'\] .*nested deeper than"):
        vc.PlattScaling().fit(p, y, metadata={"deep": deep})


def test_metadata_unicode_and_text_round_trip_bit_for_bit(tmp_path):
    """Unicode, quotes and other text in the metadata survive save -> load exactly, as does every fitted
    number (the map computes the same bits)."""
    _, p, y = _data()
    meta = {"model_revision": 'ü-\u2028-"; DROP TABLE t; --', "cohort": "🚀", "fit_window": None,
            "note": {"k": [1, 2.5, None, "x"]}}
    for cal in (vc.PlattScaling(), vc.IsotonicCalibration(interpolation="linear"), vc.VennAbers(),
                vc.BetaCalibration(), vc.HistogramBinning(strategy="quantile"), vc.TemperatureScaling()):
        cal.fit(p, y, metadata=meta)
        path = tmp_path / f"{cal.kind}.json"
        cal.save(path)
        back = vc.load(path)
        assert back.to_dict() == cal.to_dict()
        assert np.array_equal(back.transform(p), cal.transform(p))
        for key, value in meta.items():
            assert back.metadata[key] == value


# -- SQL of a step table whose knots crowd one end of the score range -----------------------------------
def _skewed(n: int, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of a rare-event model: most far below 1e-3, spread over hundreds of decades."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, n)
    return np.exp(-np.abs(z) * 20.0), (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(np.int64)


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "spark", "bigquery", "snowflake", "trino"])
def test_a_step_table_crowded_at_one_end_exports_to_every_array_dialect(dialect):
    """Before: the array lookup put every knot in one uniform cell and compared the score with each of
    them in one nested sum, re-writing the whole knot array per comparison: 40 knots gave 230 kB of SQL,
    400 raised RecursionError (a traceback) in every dialect with arrays."""
    pytest.importorskip("sqlglot")
    x, y = _skewed(400)
    cal = vc.VennAbers().fit(x, y)
    text = cal.to_sql("score", dialect=dialect)
    assert len(text) < 400_000


def test_a_step_table_crowded_at_one_end_computes_transform_on_duckdb():
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("sqlglot")
    x, y = _skewed(400)
    for cal in (vc.VennAbers().fit(x, y), vc.IsotonicCalibration().fit(x, y),
                vc.IsotonicCalibration(interpolation="linear").fit(x, y)):
        knots = np.atleast_1d(getattr(cal, "c_", getattr(cal, "knots_x_", None)))
        near = [np.nextafter(knots, 0.0), np.nextafter(knots, 1.0)]
        t = np.unique(np.concatenate([x, knots, *near, [0.0, 1.0]]))
        con = duckdb.connect()
        con.execute("CREATE TABLE t (score DOUBLE)")
        # the same doubles in one statement (one INSERT per score took most of the test's second)
        con.execute("INSERT INTO t SELECT unnest(?::DOUBLE[])", [[float(v) for v in t]])
        assert con.execute("SELECT count(*) FROM t").fetchone() == (t.size,)
        rows = con.execute(f"SELECT {cal.to_sql('score')} FROM t ORDER BY score").fetchall()
        got = np.array([r[0] for r in rows])
        np.testing.assert_allclose(got, cal.transform(t), rtol=0, atol=1e-12)


# -- an edited artifact dict handed straight to the exports ---------------------------------------------
def _multi(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    p = rng.random(n)
    return np.column_stack([1.0 - p, 0.5 * p, 0.5 * p]), rng.integers(0, 3, n)


def _edit(doc: dict, **state: object) -> dict:
    import copy

    out = copy.deepcopy(doc)
    out["state"].update(state)
    return out


def _edited_docs() -> list[tuple[str, dict, str]]:
    _, p, y = _data()
    P, Y = _multi()
    platt = vc.PlattScaling().fit(p, y).to_dict()
    matrix = vc.MatrixScaling().fit(P, Y).to_dict()
    ovr = vc.PlattScaling().fit(P, Y).to_dict()
    return [
        # before: int(2.7) read two classes; int(inf) raised OverflowError (a traceback)
        ("n_classes 2.7", _edit(platt, n_classes_=2.7), r"n_classes_ must be a whole number of at least 2"),
        ("n_classes inf", _edit(platt, n_classes_=math.inf), r"n_classes_ must be a whole number of at least"),
        # before: a 3-class matrix said to have 2 classes exported its top-left 2 x 2 block, silently
        ("matrix cut", _edit(matrix, n_classes_=2), r"W_ must be 2 x 2 and b_ hold 2 values"),
        ("matrix 4x4", _edit(matrix, W_=np.eye(4).tolist()), r"W_ must be 3 x 3"),
        # before: IndexError "list index out of range" from the SQL writer
        ("ovr no maps", _edit(ovr, maps_=[]), r"maps_ must hold one map per class \(3"),
        ("ovr two maps", _edit(ovr, maps_=ovr["state"]["maps_"][:2]), r"maps_ must hold one map per class"),
    ]


@pytest.mark.parametrize("case", range(6))
def test_an_edited_artifact_dict_with_a_wrong_shape_is_refused_by_both_exports(case):
    pytest.importorskip("sqlglot")
    pytest.importorskip("onnx")
    _, doc, match = _edited_docs()[case]
    for export in (vc.export.to_sql, vc.export.to_onnx):
        start = r"^the '[\w-]+' artifact cannot be exported: state "
        with pytest.raises(vc.VeracityError, match=start + match):
            export(doc)


# -- an artifact from a newer veracity -----------------------------------------------------------------
def test_an_artifact_from_a_newer_veracity_says_to_upgrade(tmp_path):
    """Before: "has artifact version 2; this veracity reads version 1. Re-fit and save it with this
    version" -- the remedy for a file a newer release wrote is to upgrade, which it did not say."""
    _, p, y = _data()
    doc = vc.PlattScaling().fit(p, y).to_dict()
    doc["version"] = 2
    doc["metadata"]["library_version"] = "9.1.0"
    with pytest.raises(vc.VeracityError, match=r"written by veracity 9\.1\.0 \(artifact version 2\).*Upgrade"):
        vc.load(doc)


# -- isotonic knots spanning more than the largest double ----------------------------------------------
def test_linear_isotonic_between_knots_near_max_float_interpolates():
    """Before: the slope between knots at -1.5e308 and 1.5e308 was 1/inf = 0, so every score between them
    got the lower knot's value (0.0 at a score of 0, where the line gives 0.5), and a score of 1e308 made
    transform() call the calibrator faulty (the cell index cast NaN)."""
    x = np.array([-1.5e308, -1.5e308, 1.5e308, 1.5e308])
    y = np.array([0, 0, 1, 1])
    cal = vc.IsotonicCalibration(score_type="logit", interpolation="linear").fit(x, y)
    t = np.array([-1.5e308, -1e308, -1.0, 0.0, 1e300, 1e308, 1.5e308])
    want = np.interp(t / 2, cal.knots_x_ / 2, cal.knots_y_)  # the same line, on halves that do not overflow
    np.testing.assert_allclose(cal.transform(t), want, rtol=1e-15, atol=1e-15)
    assert cal.transform(np.array([0.0]))[0] == pytest.approx(0.5)


def test_strict_isotonic_of_scores_near_max_float_keeps_finite_knots():
    """Before: the weighted mean score of a block overflowed (a RuntimeWarning, an error under
    filterwarnings=error, and an infinite knot)."""
    x = np.array([-1e308, -1e308, -0.9e308, 0.0, 0.2e308, 1e308, 1e308, 1.2e308])
    y = np.array([0, 0, 1, 0, 1, 1, 1, 1])
    cal = vc.IsotonicCalibration(score_type="score", ties="strict").fit(x, y)
    assert np.isfinite(cal.knots_x_).all()
    assert np.all(np.diff(cal.knots_x_) > 0)
    t = np.linspace(-1.0, 1.2, 23) * 1e308
    np.testing.assert_allclose(cal.transform(t), np.interp(t / 2, cal.knots_x_ / 2, cal.knots_y_), rtol=1e-15,
                               atol=1e-15)


@pytest.mark.parametrize("options", [{"interpolation": "linear"}, {"ties": "strict"}, {}])
def test_isotonic_near_max_float_exports_what_transform_computes(options):
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("sqlglot")
    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(7)
    z = rng.normal(0.0, 1.0, 200)
    y = (rng.random(200) < 1.0 / (1.0 + np.exp(-3.0 * z))).astype(np.int64)
    x = np.clip(z, -1.7, 1.7) * 1e308
    cal = vc.IsotonicCalibration(score_type="logit", **options).fit(x, y)
    k = cal.knots_x_
    ends = [0.0, -1.79e308, 1.79e308]
    t = np.unique(np.concatenate([x, k, np.nextafter(k, 0.0), k[:-1] * 0.5 + k[1:] * 0.5, ends]))
    want = cal.transform(t)
    con = duckdb.connect()
    con.execute("CREATE TABLE t (score DOUBLE)")
    con.execute("INSERT INTO t SELECT unnest(?::DOUBLE[])", [[float(v) for v in t]])  # one statement
    assert con.execute("SELECT count(*) FROM t").fetchone() == (t.size,)
    rows = con.execute(f"SELECT {cal.to_sql('score')} FROM t ORDER BY score").fetchall()
    got = np.array([r[0] for r in rows])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    onnx_out = ort.InferenceSession(cal.to_onnx()).run(None, {"score": t})[0]
    np.testing.assert_allclose(onnx_out, want, rtol=0, atol=1e-15)


# -- veracity apply on a file that names the score column otherwise --------------------------------------
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_apply_says_the_missing_score_column_is_the_recorded_one(tmp_path, cli, suffix):
    """Before: "column 'p' not found in new.csv; available columns: q" -- the user passed no 'p': it was
    the column the calibrator recorded at fit time, which the message did not say, nor the flag to use."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    _, p, y = _data()
    fit = tmp_path / "fit.csv"
    pacsv.write_csv(pa.table({"p": p, "y": y}), fit)
    cal = tmp_path / "cal.json"
    assert cli(["fit", fit, "--score", "p", "--label", "y", "--method", "platt", "--out", cal]).code == 0
    new = tmp_path / f"new{suffix}"
    table = pa.table({"q": p[:10]})
    pq.write_table(table, new) if suffix == ".parquet" else pacsv.write_csv(table, new)
    got = cli(["apply", cal, new, "-o", tmp_path / "out.csv"])
    assert got.code == 2
    assert "'p' is the score column the calibrator was fit on" in got.err and "--score NAME" in got.err
    assert len(got.err.strip().splitlines()) == 1
    assert cli(["apply", cal, new, "-o", tmp_path / "out.csv", "--score", "q"]).code == 0


# -- a bare multiclass prior shift on rows adjust_prior refuses -------------------------------------------
def test_bare_multiclass_prior_shift_gives_no_output_where_adjust_prior_refuses():
    """Before: the SQL and ONNX of ``prior_shift=(old, new), n_classes=3`` renormalised a row summing to 1.5
    (adjust_prior refuses it) into probabilities, and a row of zeros gave NaN (PostgreSQL: division by
    zero)."""
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("sqlglot")
    ort = pytest.importorskip("onnxruntime")
    shift = ([0.2, 0.3, 0.5], [0.5, 0.3, 0.2])
    rows = np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3], [0.5, 0.5, 0.5], [0.0, 0.0, 0.0]])
    good = vc.adjust_prior(rows[:2], *shift)
    for bad in rows[2:]:
        with pytest.raises(vc.VeracityError, match="must sum to 1"):
            vc.adjust_prior(bad[None, :], *shift)
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INTEGER, a DOUBLE, b DOUBLE, c DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [[i, *map(float, r)] for i, r in enumerate(rows)])
    sql = vc.export.to_sql(None, ["a", "b", "c"], prior_shift=shift, n_classes=3)
    got = con.execute(f"SELECT {sql} FROM t ORDER BY i").fetchall()
    np.testing.assert_allclose(np.array(got[:2], dtype=float), good, rtol=0, atol=1e-15)
    assert got[2:] == [(None, None, None)] * 2
    model = vc.export.to_onnx(None, prior_shift=shift, n_classes=3)
    onnx_out = ort.InferenceSession(model).run(None, {"score": rows})[0]
    np.testing.assert_allclose(onnx_out[:2], good, rtol=0, atol=1e-15)
    assert np.isnan(onnx_out[2:]).all()


def test_cli_export_of_a_pairwise_venn_abers_names_what_the_command_line_can_fit(tmp_path, cli):
    """Before: "... (multiclass Venn-ABERS: fit VennAbers(multiclass='ovr'))" -- a Python option that
    `veracity fit` has no flag for."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    P, Y = _multi()
    f = tmp_path / "multi.csv"
    pacsv.write_csv(pa.table({"a": P[:, 0], "b": P[:, 1], "c": P[:, 2], "y": Y}), f)
    cal = tmp_path / "va.json"
    fit = ["fit", f, "--score", "a,b,c", "--label", "y", "--out"]
    assert cli([*fit, cal, "--method", "venn-abers"]).code == 0
    got = cli(["export", cal, "--sql", "duckdb"])
    assert got.code == 2
    assert "--method isotonic" in got.err and len(got.err.strip().splitlines()) == 1
    # the one-vs-rest map it suggests exports
    ovr = tmp_path / "iso.json"
    assert cli([*fit, ovr, "--method", "isotonic"]).code == 0
    assert cli(["export", ovr, "--sql", "duckdb"]).code == 0
