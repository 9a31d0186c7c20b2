"""Round 5: hostile tables for the SQL pushdown and hostile calibrators for the exports. Every number the
database computes equals the in-memory audit's; every user mistake is one line of ``vc.VeracityError``."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from ..sql.conftest import engine, load, pg_conn  # noqa: F401 - the live engines' fixtures

RNG = np.random.default_rng(5)
N = 240
P = np.round(RNG.random(N), 3)
Y = (RNG.random(N) < P).astype(np.int64)
W = RNG.random(N) + 0.5


def _same(got: vc.AuditResult, want: vc.AuditResult, rel: float = 1e-12) -> None:
    for name in ("n", "ece", "mce", "brier", "nll", "auc", "accuracy", "total_weight"):
        a, b = getattr(got, name), getattr(want, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a == pytest.approx(b, rel=rel, abs=1e-15), name
    assert [r.count for r in got.table.rows] == [r.count for r in want.table.rows]
    for a, b in zip(got.table.rows, want.table.rows):
        assert a.ci_low == pytest.approx(b.ci_low, rel=1e-9, abs=1e-12)
        assert a.ci_high == pytest.approx(b.ci_high, rel=1e-9, abs=1e-12)


#: (engine, id(connection), table) -> the connection (held, so that its id is not reused by another)
_LOADED_HERE: dict[tuple[str, int, str], object] = {}


def _load_once(name: str, conn, table: str, columns: dict[str, np.ndarray]) -> None:
    """:func:`load` on the first call for this connection and table only: each table below is read by
    several tests that only query it (the tiny weights' two tables were loaded by each of the 8 tests of an
    engine, the overflowing weights' one by each of 2)."""
    if _LOADED_HERE.get((name, id(conn), table)) is not conn:
        load(name, conn, table, columns)
        _LOADED_HERE[(name, id(conn), table)] = conn


# -- weights whose products underflow ----------------------------------------------------------------
def _tiny_weights_table(digits: int) -> dict[str, np.ndarray]:
    w = W.copy()
    w[:30], w[30:40], w[40:45] = 1e-160, 1e-200, 1e-310
    seg = np.where(np.arange(N) % 3 == 0, "a", "b").astype(object)
    return {"p": np.round(P, digits), "y": Y, "w": w, "seg": seg}


#: the table of each score precision below, loaded once per engine connection
_TINY = {digits: _tiny_weights_table(digits) for digits in (3, 1)}


@pytest.mark.parametrize("digits", [3, 1])  # mostly distinct scores (the rows route) or few (per score)
@pytest.mark.parametrize("options", [{}, {"strategy": "quantile"}, {"bins": "auto"}, {"by": "seg"}])
def test_tiny_weights_beside_ordinary_ones_give_the_in_memory_numbers(engine, options, digits):
    """Before: PostgreSQL refuses a product of two nonzero doubles that rounds to 0; a table mixing weights
    below 1e-162 (whose squares underflow) with ordinary ones failed with "value out of range: underflow"
    where the array form (and SQLite, DuckDB) audit it."""
    name, conn = engine
    table = f"tiny_w_r5_{digits}"
    columns = _TINY[digits]
    p, w, seg = columns["p"], columns["w"], columns["seg"]
    _load_once(name, conn, table, columns)
    got = vc.audit(conn, table=table, score="p", label="y", sample_weight="w", min_count=1, **options)
    by = {"by": seg} if "by" in options else {}
    want = vc.audit(p, Y, sample_weight=w, min_count=1, **{**options, **by})
    _same(got, want)
    for key in want.groups:
        _same(got.groups[key], want.groups[key])


@pytest.mark.parametrize("scale", [1e100, 1e300])
def test_tiny_weights_beside_huge_ones_are_rescaled_as_in_memory(engine, scale):
    """Before: the rescaling of huge weights (by 2**-k) turned the tiny ones' product into an underflow that
    PostgreSQL refuses; the array form's ``ldexp`` makes them 0."""
    name, conn = engine
    w = W * scale
    w[:20] = 1e-250
    load(name, conn, "huge_w", {"p": P, "y": Y, "w": w})
    got = vc.audit(conn, table="huge_w", score="p", label="y", sample_weight="w", min_count=1)
    _same(got, vc.audit(P, Y, sample_weight=w, min_count=1))


def test_very_negative_logits_with_small_weights(engine):
    """Before: a logit of -720 has probability 1e-313; times a weight of 1e-20 the product underflows and
    PostgreSQL refused it."""
    name, conn = engine
    s = np.log(P.clip(0.01, 0.99) / (1 - P.clip(0.01, 0.99)))
    s[:5] = [-720.0, -745.0, -2000.0, -700.0, -710.0]
    w = W.copy()
    w[:5] = 1e-20
    load(name, conn, "neg_logits", {"s": s, "y": Y, "w": w})
    got = vc.audit(conn, table="neg_logits", score="s", label="y", sample_weight="w", score_type="logit",
                   min_count=1)
    _same(got, vc.audit(s, Y, sample_weight=w, score_type="logit", min_count=1))


_OVERFLOWING = {"p": P, "y": Y, "w": W * 1e308 / 1.5}


@pytest.mark.parametrize("options", [{}, {"strategy": "quantile"}])
def test_weights_whose_sum_overflows_are_rescaled_as_in_memory(engine, options):
    """Before: weights near the largest double (their sum is infinite) failed on PostgreSQL with "checking
    the rows (the input contract) failed ...: value out of range: overflow" — the contract's count summed
    the raw weights — where the array form rescales them by a power of two."""
    name, conn = engine
    w = _OVERFLOWING["w"]
    _load_once(name, conn, "overflowing_w_r5", _OVERFLOWING)
    got = vc.audit(conn, table="overflowing_w_r5", score="p", label="y", sample_weight="w", min_count=1,
                   **options)
    _same(got, vc.audit(P, Y, sample_weight=w, min_count=1, **options))


# -- names and empty tables --------------------------------------------------------------------------
def test_duckdb_columns_that_differ_only_by_case():
    """DuckDB renames the second of two columns that differ only by case ("Score", "score" → "score_1"):
    each is read by its exact name, and a name matching only by case is refused in one line that says so
    (before: the line listed the columns without the reason)."""
    duckdb = pytest.importorskip("duckdb")
    pa = pytest.importorskip("pyarrow")
    conn = duckdb.connect(":memory:")
    q = np.round(1 - P, 3)
    frame = pa.table({"Score": P, "score": q, "y": Y})  # noqa: F841 - read by DuckDB's replacement scan
    conn.execute("CREATE TABLE cased AS SELECT * FROM frame")
    assert [d[0] for d in conn.execute("SELECT * FROM cased").description] == ["Score", "score_1", "y"]
    _same(vc.audit(conn, table="cased", score="Score", label="y", min_count=1), vc.audit(P, Y, min_count=1))
    _same(vc.audit(conn, table="cased", score="score_1", label="y", min_count=1), vc.audit(q, Y, min_count=1))
    for name in ("score", "SCORE"):
        with pytest.raises(vc.VeracityError, match=r"^score='(score|SCORE)': the table has no such column .*"
                                                   r"'Score' differs only by case \(DuckDB renames .*: here "
                                                   r"'score_1'\)$") as info:
            vc.audit(conn, table="cased", score=name, label="y")
        assert "\n" not in str(info.value)
    with pytest.raises(vc.VeracityError, match=r"^label='Y': .*'y' differs only by case"):
        vc.audit(conn, table="cased", score="Score", label="Y")


@pytest.mark.parametrize("options", [{}, {"strategy": "quantile"}, {"bins": "auto"}, {"pos_label": 1},
                                     {"by": "y"}])
def test_an_empty_table_says_table(engine, options):
    """Before: an empty table was "the frame has no rows" (with pos_label=, "the table has no rows")."""
    name, conn = engine
    load(name, conn, "empty_t", {"p": P[:0], "y": Y[:0]})
    with pytest.raises(vc.VeracityError, match=r"^the table has no rows; pass at least one row$"):
        vc.audit(conn, table="empty_t", score="p", label="y", **options)


# -- the caller's transaction -------------------------------------------------------------------------
def test_an_audit_never_rolls_back_the_callers_uncommitted_work(pg_uri):
    """Before: on a psycopg connection outside autocommit, a statement of the audit that fails by design (the
    squares of weights of 1e200 overflow; the audit then rescales them) was undone by ``rollback()`` — which
    also threw away the caller's uncommitted work in that transaction (here a new table and its row), and the
    audit went on to succeed. Each statement now runs under a savepoint."""
    import psycopg

    with psycopg.connect(pg_uri, autocommit=True) as setup:
        setup.execute("DROP TABLE IF EXISTS huge_tx")
        setup.execute("CREATE TABLE huge_tx (p DOUBLE PRECISION, y BIGINT, w DOUBLE PRECISION)")
        setup.execute("INSERT INTO huge_tx VALUES (0.2, 0, 1e200), (0.7, 1, 1e200), (0.9, 1, 3e200)")
    with psycopg.connect(pg_uri) as conn:  # autocommit off: the caller's transaction
        conn.execute("CREATE TABLE mine_r5 (i INTEGER)")
        conn.execute("INSERT INTO mine_r5 VALUES (1)")
        for options in ({}, {"strategy": "quantile"}):
            got = vc.audit(conn, table="huge_tx", score="p", label="y", sample_weight="w", min_count=1, **options)
            want = vc.audit([0.2, 0.7, 0.9], [0, 1, 1], sample_weight=[1e200, 1e200, 3e200], min_count=1, **options)
            assert got.ece == pytest.approx(want.ece, rel=1e-12)
        assert conn.execute("SELECT count(*) FROM mine_r5").fetchone() == (1,)
        assert conn.execute("SHOW work_mem").fetchone() == ("4MB",)  # the sort's setting ended with it
        conn.rollback()


def test_a_failed_transaction_is_refused_in_one_line_and_left_to_its_owner(pg_uri):
    """Before: the audit's first statement failed with PostgreSQL's "current transaction is aborted ..." and
    the audit rolled the caller's transaction back on its way out."""
    import psycopg

    with psycopg.connect(pg_uri) as conn:
        conn.execute("CREATE TEMP TABLE failed_tx (p DOUBLE PRECISION, y BIGINT)")
        with pytest.raises(psycopg.errors.DivisionByZero):
            conn.execute("SELECT 1 / 0")
        with pytest.raises(vc.VeracityError, match=r"^the postgres connection is in a failed transaction .*"
                                                   r"call connection\.rollback\(\)") as info:
            vc.audit(conn, table="failed_tx", score="p", label="y")
        assert "\n" not in str(info.value)
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR  # still the caller's
        conn.rollback()


@pytest.mark.parametrize("url", ["bob:s3cr3t@127.0.0.1/db", "bob:s3c@r3t@db.example/x", "scores.duckdb"])
def test_a_url_without_a_scheme_is_refused_without_its_password(url):
    """Before: a string without ``scheme://`` went to SQLAlchemy, whose "Could not parse SQLAlchemy URL" came
    back with the string itself — the password in it included."""
    with pytest.raises(vc.VeracityError, match=r"^cannot open '.*': a URL starts with its scheme") as info:
        vc.audit(url, table="t", score="p", label="y")
    assert "s3cr3t" not in str(info.value) and "s3c@r3t" not in str(info.value) and "r3t" not in str(info.value)


# -- exports ------------------------------------------------------------------------------------------
def _fitted() -> tuple[vc.PlattScaling, vc.TemperatureScaling]:
    rng = np.random.default_rng(11)
    z = rng.normal(0.0, 1.5, (300, 3))
    yk = np.argmax(z + rng.gumbel(size=z.shape), axis=1)
    probs = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return vc.PlattScaling().fit(P, Y), vc.TemperatureScaling().fit(probs, yk)


def _temperature_doc(value: object) -> dict:
    doc = vc.TemperatureScaling().fit(P, Y).to_dict()
    doc["state"]["temperature_"] = value
    return doc


def _drop(doc: dict, key: str) -> dict:
    doc["state"].pop(key)
    return doc


@pytest.mark.parametrize("make, match", [
    # before: exported 1 / (1 + exp(-logit / 0)) and a reversed map (-1) without a word
    (lambda: _temperature_doc(0.0), r"temperature_ must be a positive number, got 0\.0"),
    (lambda: _temperature_doc(-1.0), r"temperature_ must be a positive number, got -1\.0"),
    # before: ValueError "could not convert string to float", KeyError 'a_', IndexError
    (lambda: _temperature_doc("x"), r"could not convert string to float: 'x'"),
    (lambda: _drop(vc.PlattScaling().fit(P, Y).to_dict(), "a_"), r"missing state 'a_'"),
    (lambda: {"kind": "isotonic", "state": {"knots_x_": [], "knots_y_": []}}, r"knots_x_ must be a non-empty"),
    (lambda: {"kind": "isotonic", "state": {"knots_x_": [0.5, 0.2], "knots_y_": [0.1, 0.9]}},
     r"knots_x_ must be a non-empty list of strictly increasing"),  # strict since session 44, as vc.load
    (lambda: {"kind": "histogram", "params": {}, "state": {"edges_": [0.0, 0.5, 1.0], "values_": [0.2]}},
     r"values_ must hold one value per bin \(2\), got 1"),
])
def test_an_edited_artifact_dict_is_refused_in_one_line(make, match):
    doc = make()
    for export in (vc.export.to_sql, vc.export.to_onnx):
        start = r"^the '[\w-]+' artifact cannot be exported: (state )?"
        with pytest.raises(vc.VeracityError, match=start + match) as info:
            export(doc)
        assert "\n" not in str(info.value)


def test_a_non_finite_state_is_refused_by_onnx_as_by_sql():
    """Before: SQL refused a Platt slope of inf ("cannot write the non-finite number"), ONNX exported it."""
    doc = vc.PlattScaling().fit(P, Y).to_dict()
    doc["state"]["a_"] = float("inf")
    for export in (vc.export.to_sql, vc.export.to_onnx):
        with pytest.raises(vc.VeracityError, match=r"non-finite number inf"):
            export(doc)


@pytest.mark.parametrize("kwargs, match", [
    # before: ValueError "could not convert string to float: 'a'" (a traceback on the command line)
    ({"prior_shift": ("a", "b")}, r"^prior_shift old must be one number in \(0, 1\)"),
    # before: n_classes=1 exported a binary shift, n_classes="x" raised ValueError, 0 spoke of "0 class priors"
    ({"prior_shift": (0.2, 0.3), "n_classes": 1}, r"^n_classes must be an integer of at least 2"),
    ({"prior_shift": (0.2, 0.3), "n_classes": "x"}, r"^n_classes must be an integer of at least 2"),
    ({"prior_shift": (0.2, 0.3), "n_classes": 0}, r"^n_classes must be an integer of at least 2"),
])
def test_bad_prior_shift_arguments_are_one_line(kwargs, match):
    for export in (vc.export.to_sql, vc.export.to_onnx):
        with pytest.raises(vc.VeracityError, match=match):
            export(None, **kwargs)


@pytest.mark.parametrize("column, match", [
    # before: "" named the columns "_0", "_1", "_2" (the binary form refuses "")
    ("", r"^column name '' is empty"),
    # before: one column read as every class's scores: a softmax of equal logits, 1/3 each
    (["a", "a", "b"], r"^the 3 score columns must be distinct, one per class; 'a' is named more than once"),
])
def test_multiclass_column_names_must_name_k_distinct_columns(column, match):
    _, multi = _fitted()
    with pytest.raises(vc.VeracityError, match=match):
        multi.to_sql(column)


# -- MLflow --------------------------------------------------------------------------------------------
@pytest.fixture
def tracking(tmp_path, monkeypatch):
    """A file-store tracking URI in tmp_path; no run left active afterwards."""
    import warnings

    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLflow's own deprecation notices about the file store
        mlflow.set_tracking_uri("file:" + str(tmp_path / "mlruns"))
        yield mlflow
        while mlflow.active_run() is not None:
            mlflow.end_run()
    mlflow.set_tracking_uri(None)


@pytest.mark.parametrize("kwargs, match", [
    # before: MlflowException tracebacks (after audit.json had already been logged)
    ({"prefix": "valid?/"}, r"^prefix='valid\?/' holds '\?', which MLflow refuses in a metric name"),
    ({"prefix": "../"}, r"^prefix='\.\./' must be a relative artifact path"),
    ({"prefix": "/abs/"}, r"^prefix='/abs/' must be a relative artifact path"),
    # before: OSError "File name too long"
    ({"prefix": "x" * 300}, r"^prefix= is 300 characters long"),
    ({"run": "no-such-run"}, r"^run='no-such-run': MLflow cannot find it"),
    ({"run": ""}, r"^run= is an empty run id"),
])
def test_log_mlflow_bad_arguments_are_one_line_and_log_nothing(tracking, kwargs, match):
    result = vc.audit(P, Y)
    with tracking.start_run() as run:
        with pytest.raises(vc.VeracityError, match=match):
            vc.log_mlflow(result, figures=False, **kwargs)
        assert tracking.tracking.MlflowClient().list_artifacts(run.info.run_id) == []


def test_log_mlflow_slice_names_mlflow_accepts(tracking):
    """Before: a slice key of 300 characters made a metric name over MLflow's 250 ("exceeds the maximum
    length"), and two keys that clean to one name were told apart by "~2", which MLflow refuses."""
    seg = np.where(np.arange(N) % 3 == 0, "k" * 300, np.where(np.arange(N) % 3 == 1, "a?", "a*")).astype(object)
    result = vc.audit(P, Y, by={"seg": seg})
    with tracking.start_run() as run:
        logged = vc.log_mlflow(result, figures=False)
    stored = tracking.tracking.MlflowClient().get_run(run.info.run_id).data.metrics
    assert all(len(name) <= 250 for name in stored)
    first, second = [k for k in result.groups if k in ("a?", "a*")]  # in the result's order
    assert stored["seg/a_/ece"] == result.groups[first].ece and stored["seg/a_-2/ece"] == result.groups[second].ece
    assert len([k for k in logged.metrics if k.endswith("/ece")]) == 3


def test_log_mlflow_a_second_calibrator_on_one_run_is_refused_before_logging(tracking):
    """Before: MLflow's "Changing param values is not allowed" traceback, after the first params were logged."""
    first, second = vc.PlattScaling().fit(P, Y), vc.PlattScaling().fit(P ** 2, Y)
    with tracking.start_run() as run:
        vc.log_mlflow(first)
        vc.log_mlflow(first)  # the same calibrator again: nothing changes
        with pytest.raises(vc.VeracityError, match=r"already holds parameter calibrator\.\w+=.*another prefix="):
            vc.log_mlflow(second)
        vc.log_mlflow(second, prefix="recalibrated/")
    params = tracking.tracking.MlflowClient().get_run(run.info.run_id).data.params
    assert params["recalibrated/calibrator.kind"] == "platt"


# -- DECIMAL columns ----------------------------------------------------------------------------------
def test_decimal_scores_and_weights_are_read_as_the_nearest_doubles(engine):
    """The pushdown reads DECIMAL / NUMERIC scores and weights as doubles (the database's cast rounds to the
    nearest, as float(Decimal) does): the in-memory audit of the same numbers. (The frame forms refuse a
    Decimal column today — "cast it to a float first"; see the round-5 report.)"""
    name, conn = engine
    decl = "NUMERIC(6, 3)" if name != "sqlite" else "DECIMAL(6, 3)"
    w = np.round(W, 2)
    conn.execute("DROP TABLE IF EXISTS decimals")
    conn.execute(f"CREATE TABLE decimals (p {decl}, y INTEGER, w {decl})")
    rows = [(str(a), int(b), str(c)) for a, b, c in zip(P, Y, w)]
    if name == "postgres":
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO decimals VALUES (%s::numeric, %s, %s::numeric)", rows)
    else:
        conn.executemany("INSERT INTO decimals VALUES (CAST(? AS DECIMAL(6, 3)), ?, CAST(? AS DECIMAL(6, 3)))", rows)
    for weighted in (False, True):
        got = vc.audit(conn, table="decimals", score="p", label="y", sample_weight="w" if weighted else None,
                       min_count=1)
        _same(got, vc.audit(P, Y, sample_weight=w if weighted else None, min_count=1))


def test_a_dotted_table_name_that_is_not_found_suggests_the_schema_tuple(engine):
    """Before: table="public.scores" failed with the database's "relation "public.scores" does not exist" alone
    (the name is one quoted identifier); the line now says how to name a table in a schema."""
    name, conn = engine
    schema = {"sqlite": "main", "duckdb": "main", "postgres": "public"}[name]
    load(name, conn, "dotted_r5", {"p": P, "y": Y})
    with pytest.raises(vc.VeracityError, match=rf"pass table=\('{schema}', 'dotted_r5'\)$"):
        vc.audit(conn, table=f"{schema}.dotted_r5", score="p", label="y")
    got = vc.audit(conn, table=(schema, "dotted_r5"), score="p", label="y", min_count=1)
    _same(got, vc.audit(P, Y, min_count=1))


@pytest.mark.parametrize("threshold", ["0.5", b"0.5"])
def test_a_threshold_given_as_text_is_refused_as_by_the_array_form(threshold):
    """Before: the SQL route read threshold="0.5" as 0.5 (float()), where the array form refuses it."""
    import sqlite3

    conn = sqlite3.connect(":memory:")
    load("sqlite", conn, "thr", {"p": P, "y": Y})
    message = f"threshold must be a probability in [0, 1], got {threshold!r}"
    with pytest.raises(vc.VeracityError) as want:
        vc.audit(P, Y, threshold=threshold)
    with pytest.raises(vc.VeracityError) as got:
        vc.audit(conn, table="thr", score="p", label="y", threshold=threshold)
    assert str(got.value) == str(want.value) == message
