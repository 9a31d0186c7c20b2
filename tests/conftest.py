"""Test-suite configuration."""

import os

# One BLAS thread per process. `make test` runs two xdist workers on a 2-core machine; each worker's
# OpenBLAS would otherwise start a thread per core and spin-wait on it, so every small matrix
# product (scikit-learn's fits, the simulations) fights the other worker for the cores: measured
# 51.7 -> 32.1 CPU-s on tests/calibrators + tests/decisions, with the same results. Set before
# anything imports numpy (hypothesis below does not); subprocesses inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# One OpenMP thread too, for the same reason: scikit-learn's gradient boosting (docs/comparison.md, the
# comparison notebook) spun a second OpenMP thread against the other worker (3-27 CPU-s for that page under
# load, 1.4 s with one; its trees do not depend on the thread count). Subprocesses and kernels inherit it.
os.environ.setdefault("OMP_NUM_THREADS", "1")

from hypothesis import settings  # noqa: E402

# The README's test command (and so CI, whatever its environment says) runs the property tests
# with a fixed derandomised search, so a result never depends on luck. Set
# VERACITY_HYPOTHESIS=explore to search new examples on every run (how bugs are found).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, database=None)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile("explore" if os.environ.get("VERACITY_HYPOTHESIS") == "explore" else "ci")


# -- in-process CLI runs (hardening and fuzz tests) ---------------------------------------
import contextlib  # noqa: E402
import io as _io  # noqa: E402
import warnings as _warnings  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import pytest  # noqa: E402
from typing import Any  # noqa: E402


@dataclass
class CliResult:
    code: int
    out: str
    err: str


def run_cli(argv, *, stdin: str | None = None) -> CliResult:
    """``veracity.cli.main(argv)`` in-process; stdout/stderr captured, SystemExit caught.

    Any other exception propagates: for the CLI that is a traceback, which is a bug.
    Warnings are recorded (a user would see them on stderr), not raised.
    """
    import sys

    from veracity.cli import main

    out, err = _io.StringIO(), _io.StringIO()
    old_stdin = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = _io.StringIO(stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                _warnings.catch_warnings(record=True):
            _warnings.simplefilter("always")
            try:
                code = main([str(a) for a in argv])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        sys.stdin = old_stdin
    return CliResult(int(code), out.getvalue(), err.getvalue())


def assert_refused(result: CliResult, match: str | None = None) -> None:
    """Exit 2 with exactly one line on stderr and no traceback."""
    import re

    assert result.code == 2, (result.code, result.out[-500:], result.err[-500:])
    lines = result.err.rstrip("\n").split("\n")
    assert len(lines) == 1 and lines[0], result.err
    assert "Traceback" not in result.err
    if match is not None:
        assert re.search(match, result.err), result.err


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def refused():
    return assert_refused


def one_line_error(call) -> str:
    """The text of the VeracityError that ``call()`` raises, asserted to be one line."""
    from veracity import VeracityError

    with pytest.raises(VeracityError) as info:
        call()
    text = str(info.value)
    assert "\n" not in text, text
    return text


@pytest.fixture
def error_line():
    return one_line_error


def _engine(item) -> str | None:
    """The engine a test starts: ``spark`` (the ``spark`` fixture, a ``spark`` parameter or id),
    ``dask`` (a ``dask`` parameter or id, or an explicit ``pytest.mark.xdist_group("dask")``). Any other
    group (a module whose tests share an expensive module fixture: ``xdist_group(__name__)``) is no
    engine's."""
    marked = [m.kwargs.get("name", m.args[0] if m.args else None) for m in item.iter_markers("xdist_group")]
    engines = [name for name in marked if name in ("spark", "dask", ENGINES_GROUP)]
    if engines:
        return engines[0]
    params = [str(v).lower() for v in getattr(getattr(item, "callspec", None), "params", {}).values()]
    name = item.nodeid.lower()
    if "spark" in item.fixturenames or "spark" in params or "spark" in name:
        return "spark"
    if "dask" in params or "dask" in name:
        return "dask"
    return None


# -- the Dask cluster: opt-in ----------------------------------------------------------------
#: the run's one two-process ``distributed`` cluster on 127.0.0.1: {"client": ..., "cluster": ...}
_DASK_CLUSTER: dict[str, Any] = {}


#: the cluster's housekeeping, slowed: it runs from the first test marked ``dask_cluster`` to the end of
#: the run (minutes of other tests), and at Dask's defaults its three processes polled themselves ~50
#: times a second (the event loop's health every 20 ms in each, each worker's memory every 100 ms, a
#: statistical profiler sampling a running task every 10 ms): 1.8 s of CPU per idle half minute,
#: 0.4 s with these (measured with the cluster below); over the engines group (-n 0, two runs) the
#: workers' CPU 31 -> 14 s and 23 -> 11 s, this process's 7-10 s less. None of them changes what a
#: task computes (tests/engines/test_engine_dask_r37.py pins that the cluster runs with them).
_DASK_CLUSTER_QUIET = {
    "distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s", "distributed.worker.profile.enabled": False,
}


def dask_cluster_client() -> Any:
    """The two-process cluster's client, started on first use; never the default scheduler."""
    if "client" not in _DASK_CLUSTER:
        import logging

        distributed = pytest.importorskip("distributed")
        import dask

        with dask.config.set(_DASK_CLUSTER_QUIET):  # the worker processes take the config they start with
            cluster = distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                memory_limit="1GiB", silence_logs=logging.ERROR,
                # no dashboard, and its HTTP server on a free port (8787 may be taken by another run)
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            )
            _DASK_CLUSTER.update(client=distributed.Client(cluster, set_as_default=False), cluster=cluster)
    return _DASK_CLUSTER["client"]


@pytest.fixture(autouse=True)
def _dask_cluster_where_marked(request):
    """A test marked ``dask_cluster`` runs its Dask case on the two-process cluster (what a cluster
    changes: pickling to worker processes, the p2p shuffle of the exact AUC); every other Dask test runs
    on Dask's threaded scheduler. The cluster used to become the default scheduler of the process once
    any frame test started it, so every later Dask test of the run paid its round trips (26 Dask cases
    of two frame files: 31.8 s on the cluster, 11.5 s threaded)."""
    marked = request.node.get_closest_marker("dask_cluster") is not None
    params = [str(v).lower() for v in getattr(getattr(request.node, "callspec", None), "params", {}).values()]
    if not marked or not ("dask" in params or "dask" in request.node.name.lower()):
        yield
        return
    with dask_cluster_client().as_current():
        yield


@pytest.fixture(scope="session", autouse=True)
def _stop_the_dask_cluster():
    yield
    if "client" in _DASK_CLUSTER:
        _DASK_CLUSTER.pop("client").close()
        _DASK_CLUSTER.pop("cluster").close()


#: the one xdist group of every test that starts an engine (Spark or Dask)
ENGINES_GROUP = "engines"

# A module whose tests share an expensive module fixture (an executed notebook, a demo report, a store) says
# ``pytestmark = pytest.mark.xdist_group(__name__)``: it runs in one worker, which builds the fixture once
# (spread over both workers by ``--dist loadgroup``, each built it: 2-4 s of CPU a module).


def pytest_collection_modifyitems(config, items):
    """Under ``pytest -n 2 --dist loadgroup`` (make test), every test that starts Spark or Dask runs
    in one worker: one JVM and one Dask cluster per run, not one per worker. One group for both,
    because the tests that loop over every backend start both (with a group per engine, such a test
    started a second JVM in the Dask worker: ~10 s of CPU and 1 GB). A test that starts an engine
    without saying so in its id or parameters (a loop over every backend) carries
    ``pytest.mark.xdist_group("dask")`` itself; it is moved to the one group here."""
    for item in items:
        if _engine(item) is None:
            continue
        item.stash[_STARTS_SPARK] = _starts_spark(item)
        item.own_markers[:] = [m for m in item.own_markers if m.name != "xdist_group"]
        item.add_marker(pytest.mark.xdist_group(ENGINES_GROUP))
    _name_the_groups(config, items)


def _name_the_groups(config, items):
    """The ``@group`` suffix pytest-xdist's loadgroup schedules by, where xdist could not write it.

    xdist 3.8 writes it to ``item._nodeid``; pytest 9.2 derives ``nodeid`` from ``item._id``, so the
    suffix was dropped and every group spread over both workers (two JVMs, two Dask clusters a run).
    Written to the id's cached text here, only where it is missing (a pytest that honours ``_nodeid``
    already shows it)."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        if ENGINES_GROUP in names:  # an engine's test of a grouped module: with the engines, not a group of both
            names = [ENGINES_GROUP]
        node_id = getattr(item, "_id", None)
        if names and "@" not in item.nodeid and node_id is not None and hasattr(node_id, "_str_cache"):
            object.__setattr__(node_id, "_str_cache", f"{item.nodeid}@{'_'.join(names)}")


#: whether a test of the engines group may start Spark itself (through the CLI or the library)
_STARTS_SPARK = pytest.StashKey[bool]()


def _starts_spark(item) -> bool:
    """A ``spark`` parameter or a loop over every backend (``pytest.mark.xdist_group("dask")`` on the
    test itself); not "spark" in a name alone (a test of a Spark subprocess, of an option's text)."""
    params = [str(v).lower() for v in getattr(getattr(item, "callspec", None), "params", {}).values()]
    return "spark" in params or any(m.name == "xdist_group" for m in item.own_markers)


@pytest.fixture(autouse=True)
def _the_tuned_spark_session_first(request):
    """A test that starts Spark through the CLI or the library (``getOrCreate``) without asking for the
    ``spark`` fixture gets the fixture's session started first, where pyspark and Java are there: else,
    run first in its worker (as tests/cli/test_cli_rows_r16.py's Spark case is in ``make test``), it
    started the JVM itself with Spark's defaults (the C2 JIT, the G1 GC), and every later Spark test of
    the run shared that JVM (a JVM's options are fixed when it starts; ``getOrCreate`` returns the
    running session). Measured on ``pytest tests -k spark`` (~60 tests): the JVM's CPU 174 s -> 107 s
    (~7 s of it from tests/export/test_export_sql.py::test_spark leaving whole-stage code generation off)."""
    if not request.node.stash.get(_STARTS_SPARK, False) or "spark" in request.fixturenames:
        return
    import importlib.util
    import shutil

    no_java = shutil.which("java") is None and not os.environ.get("JAVA_HOME")
    if importlib.util.find_spec("pyspark") is None or no_java:
        return  # the test says what it does without Spark
    request.getfixturevalue("spark")


# -- one Spark session for the whole run ----------------------------------------------------
#: the options of the session's JVM (and, written out, of the CLI's JVM in
#: tests/hardening/test_followups_sources_r14.py): the JIT's C1 tier only and the serial GC (see
#: :func:`spark`), and no bytecode verification of the classes loaded from Spark's jars
#: (``-BytecodeVerificationRemote``): thousands of classes, verified again in each new JVM. Measured on
#: the Spark cases of tests/frames/test_frames_fit.py and test_frames_backends.py (9 tests, 79 jobs):
#: the JVM's CPU 26.8 -> 24.5 s (mean of two runs each); a fresh JVM's start 4.3 -> 3.8 s; the whole
#: engines group's JVM ~93 s, 0.6 and 2 s less (two runs: most classes load in its first tests). For
#: tests only (the jars are the installed pyspark's); what a class computes does not depend on it.
SPARK_TEST_JVM = ("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions "
                  "-XX:-BytecodeVerificationRemote")


@pytest.fixture(scope="session")
def spark():
    """A ``local[2]`` Spark session shared by every test that asks for it; skipped, with the
    reason, where pyspark or Java is missing (``scripts/ensure-java.sh`` installs Java 17;
    ``make test`` runs it). Stopped at the end of the session."""
    import shutil
    import sys

    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java 17: run scripts/ensure-java.sh (make test does)")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    # Tuned for many one-off queries on a few thousand rows (measured: the JVM's CPU time to start
    # 33 -> 11 s, for six fits and an audit 115 -> 33 s): the JIT's C1 tier only and the serial GC
    # (the C2 compiler threads were most of a short-lived JVM's CPU); no whole-stage code
    # generation (each Newton step's query carries a new literal, so a new class to compile: more
    # than the interpreter spends on 3000 rows; Spark falls back to the same interpreter on its own
    # whenever codegen fails, so the numbers do not depend on it); no adaptive re-planning; two
    # shuffle partitions for two cores. No DataFrame debugging: PySpark otherwise records each call's
    # Python call site through the JVM (error context only; measured on 8 metric calls: the Python
    # process's CPU 1.67 -> 1.01 s). No bytecode verification of Spark's classes (SPARK_TEST_JVM).
    session = (
        SparkSession.builder.master("local[2]").appName("veracity-tests")
        .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.memory", "1g")
        .config("spark.driver.extraJavaOptions", SPARK_TEST_JVM)
        .config("spark.sql.shuffle.partitions", "2").config("spark.default.parallelism", "2")
        .config("spark.sql.adaptive.enabled", "false").config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.python.sql.dataFrameDebugging.enabled", "false").getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


#: Debian's chromium (scripts/ensure-chromium.sh installs it), driven through Playwright; no background
#: requests of its own, so a test can tell that a page made none
CHROMIUM = os.environ.get("VERACITY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def chromium():
    """A headless Chromium browser (Playwright), one per test session (two Playwright instances cannot
    run at once). In CI (CI=true) a missing browser fails the test; elsewhere it is skipped with the
    reason."""
    import shutil

    if os.environ.get("CI"):
        import playwright.sync_api as playwright
    else:
        playwright = pytest.importorskip("playwright.sync_api")
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        message = f"no chromium at {CHROMIUM} (scripts/ensure-chromium.sh installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def write_alert_then_clean_store(path) -> str:
    """A monitoring store of two weeks, logged with their outcomes (observed at prediction time): 2026-W10's
    outcomes run 0.3 above its scores (an alert), 2026-W11 is calibrated (for ``status --since/--last``)."""
    import numpy as np
    import pandas as pd

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(7)
    frames = []
    for week, (monday, lift) in enumerate([("2026-03-02", 0.3), ("2026-03-09", 0.0)]):
        p = rng.uniform(0.1, 0.5, 400)
        y = (rng.random(400) < p + lift).astype(int)
        ts = np.datetime64(monday, "s") + rng.integers(0, 7 * 86400, 400).astype("timedelta64[s]")
        frames.append(pd.DataFrame({"id": [f"{week}-{i}" for i in range(400)], "ts": ts, "p": p, "y": y}))
    rows = pd.concat(frames, ignore_index=True)
    store = MonitorStore(path)
    store.log(rows, id="id", time="ts", score="p")
    store.outcomes(rows, id="id", label="y", time="ts")
    return str(path)


@pytest.fixture(scope="module")
def alert_then_clean_store(tmp_path_factory) -> str:
    """The path of :func:`write_alert_then_clean_store`'s store, one per test module."""
    return write_alert_then_clean_store(tmp_path_factory.mktemp("since") / "m.duckdb")


# -- PostgreSQL: one server per test process -------------------------------------------------
@pytest.fixture(scope="session")
def pg_uri() -> Any:
    """A pgserver PostgreSQL in a fresh temporary folder (skipped with the reason where it cannot start),
    one per test process for every folder that uses it (tests/sql's ``pg_conn`` and the hardening modules
    that import it): each module that imported a ``pg_uri`` of its own started a server of its own
    (``initdb`` and a postmaster, ~1 s of CPU each, running to the end of the run)."""
    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            import pgserver
            import psycopg  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"PostgreSQL tests need pgserver and psycopg: {exc}")
    import tempfile

    from .sql.conftest import stop_orphaned_servers

    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            stop_orphaned_servers()  # of earlier runs killed before their end
            # a fresh directory outside pytest's own (0700 as root, which the server's user could not enter)
            server = pgserver.get_server(tempfile.mkdtemp(prefix="veracity-pg-"), cleanup_mode="delete")
            uri = server.get_uri()
    except Exception as exc:  # noqa: BLE001 - any failure to start is a skip with its reason
        pytest.skip(f"the pgserver PostgreSQL could not start here: {type(exc).__name__}: {exc}")
    yield uri
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        server.cleanup()
