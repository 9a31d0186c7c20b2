"""The same mistake in a CSV file says the same thing in memory and where the rows live (round 26).

* A probability outside [0, 1] in the score column: in memory (``--engine memory``) the array form's one
  error, ``core._validation.not_probabilities`` ("... must be probabilities in [0, 1]; 1 of 60 are not
  (min=..., max=1.5)"); the lazy contract (``sources._aggregates.check_contract``: DuckDB, Dask, Spark)
  had its own copy of the words ("column 'p' (scores) must hold probabilities ..."). It now raises the
  array form's error with the column as its subject.
* US dates (``01/02/2024``) in ``monitor scan --time``: in memory "must be dates or datetimes in one ISO
  8601 form, but it has strings that are not ISO 8601 times (row 0: '01/01/2024'); use e.g. ...";
  DuckDB and Spark said "is String; with --freq it must hold ... (cast it first, ...)"; Dask reads them as
  month/day. Those checks live in veracity.monitoring and veracity.cli: the DuckDB test passes with the
  monitoring package's round-26 change, Dask's with the command line's (it parses the text as memory does).
"""

import numpy as np
import pytest

N = 60
#: the data row (1-based, after the header) that holds the probability 1.5
BAD_ROW = 5


@pytest.fixture(scope="module")
def out_of_range(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A CSV with one score of 1.5, and the words every route must say of it (from its values)."""
    rng = np.random.default_rng(26)
    p = np.round(rng.uniform(0.02, 0.98, N), 3)
    p[BAD_ROW - 1] = 1.5
    y = (rng.uniform(size=N) < 0.5).astype(int)
    path = tmp_path_factory.mktemp("routes") / "p15.csv"
    path.write_text("p,y\n" + "".join(f"{s},{t}\n" for s, t in zip(p, y)))
    outside = (p < 0) | (p > 1)
    said = (f"must be probabilities in [0, 1]; {int(outside.sum())} of {N} are not (min={p.min():.3g}, "
            f"max={p.max():.3g}), first at data row {int(np.argmax(outside)) + 1}. If these are logits, pass "
            "--score-type logit")
    return str(path), said


def _audit(cli, path: str, engine: str):
    return cli(["audit", path, "--score", "p", "--label", "y", "--engine", engine])


@pytest.mark.parametrize("engine", ["duckdb", "dask", "spark"])
def test_a_probability_above_one_is_said_alike(out_of_range, cli, refused, engine: str, request) -> None:
    """Before: the lazy routes said "column 'p' (scores) must hold probabilities in [0, 1]; ..."."""
    if engine == "spark":
        request.getfixturevalue("spark")  # the tests' tuned session (skipped without pyspark or Java)
    path, said = out_of_range
    memory, lazy = _audit(cli, path, "memory"), _audit(cli, path, engine)
    refused(memory)
    refused(lazy)
    assert said in memory.err and said in lazy.err, (memory.err, lazy.err)
    assert "column 'p' (scores) " + said in lazy.err


def test_the_memory_route_names_the_column(out_of_range, cli) -> None:
    """Before: memory's subject was "scores" (cli/_rows.py), the lazy routes' "column 'p' (scores)"."""
    path, _ = out_of_range
    assert _audit(cli, path, "memory").err == _audit(cli, path, "duckdb").err


#: dates written month/day/year, one per row of 60
US_DATES = [f"{1 + i % 12:02d}/{1 + i % 28:02d}/2024" for i in range(N)]
#: as the command line names the first (round 27: as a data row, counted from 1)
NOT_ISO = f"has strings that are not ISO 8601 times (data row 1: {US_DATES[0]!r})"


@pytest.fixture(scope="module")
def us_dates(tmp_path_factory: pytest.TempPathFactory) -> str:
    rng = np.random.default_rng(2026)
    p = np.round(rng.uniform(0.02, 0.98, N), 3)
    y = (rng.uniform(size=N) < p).astype(int)
    path = tmp_path_factory.mktemp("routes") / "us.csv"
    path.write_text("ts,p,y\n" + "".join(f"{t},{s},{v}\n" for t, s, v in zip(US_DATES, p, y)))
    return str(path)


def _scan(cli, path: str, engine: str):
    return cli(["monitor", "scan", path, "--time", "ts", "--score", "p", "--label", "y", "--engine", engine])


def test_us_dates_in_memory_name_the_value(us_dates, cli, refused) -> None:
    """The memory route's words, which the lazy routes should say too (a guard)."""
    memory = _scan(cli, us_dates, "memory")
    refused(memory)
    assert NOT_ISO in memory.err and "ISO 8601" in memory.err


def test_us_dates_on_duckdb_are_said_as_in_memory(us_dates, cli, refused) -> None:
    """Before: "column 'ts' (periods) is String; with --freq it must hold ... (cast it first, ...)"
    (the monitoring package's period check; its round-26 change reads the text as the memory route)."""
    lazy = _scan(cli, us_dates, "duckdb")
    refused(lazy)
    assert NOT_ISO in lazy.err, lazy.err


def test_us_dates_on_dask_are_refused_as_in_memory(us_dates, cli) -> None:
    """Before: cli/_monitor.py's _dask_times parsed the text with pandas.to_datetime, which reads
    01/02/2024 as January 2 (a scan over the wrong months, no word said)."""
    lazy = _scan(cli, us_dates, "dask")
    assert lazy.code == 2 and "ISO 8601" in lazy.err, (lazy.code, lazy.err[-300:])
    assert NOT_ISO in lazy.err and lazy.err == _scan(cli, us_dates, "memory").err
