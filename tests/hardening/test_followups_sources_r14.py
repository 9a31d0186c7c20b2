"""Round-14 follow-ups in the source layer: a text ``pos_label`` ("1", as ``--pos-label 1`` passes it)
on DECIMAL labels, long label values shortened in messages, streamed apply writing what its output
name says (gzip, tab-separated, ``.parq`` Parquet), and ``scan_file`` reading ``.parq`` as Parquet."""

from __future__ import annotations

import decimal
import gzip

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import veracity as vc
from veracity.frames._apply import apply_stream

N = 200


def _rows(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, N)
    return p, (rng.uniform(size=N) < p).astype(int)


# -- 1. a text pos_label on DECIMAL labels -----------------------------------------------------------
def _check_audit(result, p: np.ndarray, y: np.ndarray) -> None:
    assert result.n == N
    assert result.brier == pytest.approx(np.mean((p - y) ** 2), abs=1e-12)  # Brier's definition
    assert result.base_rate == pytest.approx(y.mean(), abs=1e-12)
    assert result.ece == pytest.approx(vc.audit(p, y).ece, abs=1e-12)


def test_text_pos_label_on_duckdb_decimal_labels() -> None:
    # on 3ef8185: "pos_label='1' is not among the values ... (Decimal('0'), Decimal('1'))"
    p, y = _rows()
    con = duckdb.connect()
    con.register("t", pa.table({"p": p, "y": y}))
    rel = con.sql("select p, cast(y as decimal(3, 0)) as y from t")
    _check_audit(vc.audit(rel, score="p", label="y", pos_label="1"), p, y)
    _check_audit(vc.audit(rel, score="p", label="y", pos_label=" 1.0 "), p, y)
    _check_audit(vc.audit(rel, score="p", label="y", pos_label="0"), p, 1 - y)


def test_text_pos_label_on_arrow_decimal_labels() -> None:
    p, y = _rows(1)
    table = pa.table({"p": p, "y": pa.array([decimal.Decimal(int(v)) for v in y], pa.decimal128(3, 0))})
    _check_audit(vc.audit(table, score="p", label="y", pos_label="1"), p, y)


@pytest.mark.parametrize("text", ["yes", "NaN", "sNaN", "Infinity", "2"])
def test_text_pos_label_naming_no_decimal_label_is_refused(text: str) -> None:
    p, y = _rows(2)
    table = pa.table({"p": p, "y": pa.array([decimal.Decimal(int(v)) for v in y], pa.decimal128(3, 0))})
    with pytest.raises(vc.VeracityError, match="is not among the values"):
        vc.audit(table, score="p", label="y", pos_label=text)


# -- 2. long label values shortened in messages ------------------------------------------------------
def test_long_text_labels_are_shortened_in_the_message() -> None:
    # on 3ef8185: a 10,087-character message (both 5,000-character labels in full)
    p, y = _rows(3)
    labels = np.where(y == 1, "a" * 5000, "a" * 4000)
    with pytest.raises(vc.VeracityError) as info:
        vc.audit(pa.table({"p": p, "y": labels}), score="p", label="y", pos_label="b")
    message = str(info.value)
    assert len(message) < 300
    assert "\n" not in message
    assert "(5002 characters)" in message and "(4002 characters)" in message  # repr: the quotes too


def test_three_long_text_labels_are_shortened() -> None:
    p, _ = _rows(4)
    labels = np.array(["x" * 3000, "y" * 3000, "z" * 3000])[np.arange(N) % 3]
    with pytest.raises(vc.VeracityError, match="binary label set") as info:
        vc.audit(pa.table({"p": p, "y": labels}), score="p", label="y", pos_label="x")
    assert len(str(info.value)) < 400


# -- 3. streamed apply writes what the output name says ----------------------------------------------
@pytest.fixture()
def applied(tmp_path):
    p, y = _rows(5)
    cal = vc.PlattScaling().fit(p, y)
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"p": p, "y": y}), src)
    return cal, src, p, y


def _expected(cal, p: np.ndarray) -> np.ndarray:
    return np.asarray(cal.transform(p), dtype=float)


@pytest.mark.parametrize(("name", "delimiter", "gz"), [
    ("out.csv.gz", ",", True), ("out.tsv", "\t", False), ("out.tsv.gz", "\t", True), ("out.TSV", "\t", False),
])
def test_apply_stream_writes_delimited_text_as_named(applied, tmp_path, name: str, delimiter: str,
                                                     gz: bool) -> None:
    # on 3ef8185: plain comma-separated CSV under every one of these names
    cal, src, p, y = applied
    out = tmp_path / name
    done = apply_stream(cal, src, out, score="p", batch_rows=64)
    assert done.rows == N and done.batches == 4
    raw = out.read_bytes()
    assert (raw[:2] == b"\x1f\x8b") is gz
    text = gzip.decompress(raw).decode() if gz else raw.decode()
    assert text.splitlines()[0].split(delimiter) == ['"p"', '"y"', '"calibrated"']
    back = pacsv.read_csv(pa.py_buffer(text.encode()), parse_options=pacsv.ParseOptions(delimiter=delimiter))
    np.testing.assert_allclose(back["p"].to_numpy(), p, rtol=1e-15)
    np.testing.assert_array_equal(back["y"].to_numpy(), y)
    np.testing.assert_allclose(back["calibrated"].to_numpy(), _expected(cal, p), rtol=1e-15)


@pytest.mark.parametrize("name", ["out.parq", "out.csv"])
def test_apply_stream_parq_is_parquet_csv_is_csv(applied, tmp_path, name: str) -> None:
    cal, src, p, _ = applied
    out = tmp_path / name
    apply_stream(cal, src, out, score="p")
    raw = out.read_bytes()
    if name.endswith(".parq"):  # on 3ef8185: CSV text
        assert raw[:4] == b"PAR1"
        back = pq.read_table(out)
    else:
        assert raw[:4] == b'"p",'
        back = pacsv.read_csv(out)
    np.testing.assert_allclose(back["calibrated"].to_numpy(), _expected(cal, p), rtol=1e-15)


# -- 4. scan_file reads .parq as Parquet -------------------------------------------------------------
def test_scan_file_reads_parq_as_parquet(tmp_path) -> None:
    # on 3ef8185: "could not open .../in.parq as csv: ... CSV parse error"
    p, y = _rows(6)
    f = tmp_path / "in.parq"
    pq.write_table(pa.table({"p": p, "y": y}), f)
    edges = np.linspace(0.0, 1.0, 11)
    result = vc.scan_file(f, score="p", label="y", edges=edges)
    assert result.rows_read == N
    bins = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, 9)
    np.testing.assert_array_equal(result.total.count, np.bincount(bins, minlength=10))


def test_quiet_spark_driver_options_point_log4j_at_a_file_and_respect_a_users_config(monkeypatch):
    from pathlib import Path

    from veracity.sources._open import _QUIET_LOG4J, quiet_driver_options

    monkeypatch.delenv("SPARK_CONF_DIR", raising=False)
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    options = quiet_driver_options()
    flag = options["spark.driver.extraJavaOptions"]
    assert flag.startswith("-Dlog4j2.configurationFile=file:")
    assert Path(flag.split("file:", 1)[1]).read_text() == _QUIET_LOG4J
    monkeypatch.setenv("SPARK_CONF_DIR", "/etc/spark")  # the user's own log4j2.properties wins
    assert quiet_driver_options() == {}


def test_the_spark_engine_prints_no_spark_log_lines(tmp_path):
    """Before: every ``--engine spark`` run printed Spark's log4j profile, "Setting default log level to
    WARN", the host's address and a native-library warning (8 lines) before the CLI's own note."""
    import os
    import shutil
    import subprocess
    import sys

    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java 17: run scripts/ensure-java.sh (make test does)")
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_CONF_DIR", "PYSPARK_SUBMIT_ARGS", "SPARK_LOCAL_IP")}
    # the JIT's C1 tier only, the serial GC and no bytecode verification of Spark's classes, as the
    # session fixture's JVM (tests/conftest.py's SPARK_TEST_JVM): the JVM's CPU time for this run
    # 23 -> 13 s (C1, serial GC), the driver's 9.7 -> 8.2 s more without verification; log4j's
    # configuration and output do not depend on them. Each java launcher (spark-submit's and the
    # driver's) says it picked the variable up: those lines, exactly, are this test's own and are left
    # out below.
    jvm = ("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions "
           "-XX:-BytecodeVerificationRemote")
    env["JDK_JAVA_OPTIONS"] = jvm
    # a small file of two numeric columns, not the demo's 6,000 rows of seven (10 Spark jobs, 8 here: its text
    # columns are checked too): the same audit's jobs (the contract, the table, the exact AUC's shuffle into
    # the Python workers), both labels and ties
    path = tmp_path / "scores.csv"
    path.write_text("p,y\n" + "".join(f"{(i % 10) / 10 + 0.05:.2f},{(i // 3) % 2}\n" for i in range(200)))
    done = subprocess.run([sys.executable, "-m", "veracity", "audit", str(path), "--score", "p",
                           "--label", "y", "--engine", "spark", "--spark-master", "local[1]"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("WARNING: Using incubator modules")
             and line != f"NOTE: Picked up JDK_JAVA_OPTIONS: {jvm}"]
    assert lines == [f"{lines[0].split(' (Spark engine)')[0]} (Spark engine)"], done.stderr
    assert "ECE" in done.stdout


def test_the_first_ragged_line_of_a_large_file_is_found_without_a_deadlock(tmp_path):
    """Before: a file of several blocks whose ragged row is near the top hung for good (the reader was closed
    early while pyarrow's read-ahead thread waited for the GIL in the row handler); a CLI run on such a
    file under load aborted (exit -6)."""
    import subprocess
    import sys

    import numpy as np

    # 3,000,000 rows (24 MB: 23 of the reader's 1 MB blocks, so its read-ahead thread is still parsing
    # when a reader left early is closed): 10,000 random rows written 300 times (formatting 3M rows one
    # by one cost ~15 s; the old reader fails on the repeated file as on the random one: hung or
    # aborted in 2 of 24 runs on it, 4 of 24 on the random file, on an idle machine)
    rng = np.random.default_rng(0)
    block = 10_000
    rows = np.char.add(np.char.mod("%.3f,", rng.random(block)), rng.integers(0, 2, block).astype(str))
    path = tmp_path / "ragged_big.csv"
    path.write_text("p,y\n0.25,1\n0,3,1\n" + ("\n".join(rows.tolist()) + "\n") * 300)
    assert path.stat().st_size > 20 * (1 << 20)
    code = ("from veracity.sources._csv_text import first_ragged_line; "
            f"print(first_ragged_line({str(path)!r}, ','))")
    for _ in range(6):  # the old reader hung about one run in three
        try:
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("first_ragged_line hung")
        assert done.returncode == 0 and done.stdout.strip() == "(3, 3, 2)", done.stderr
