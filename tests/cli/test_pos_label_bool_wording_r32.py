"""A ``pos_label`` that names neither value of a true/false label column gets one refusal on every route,
in the route's own spelling of the setting, naming the values present and how a boolean is named
(``'true'``/``'false'`` in any case, or 1/0: :func:`veracity.core._validation.text_names_label`).

Before, the command line's in-memory engine said "--pos-label maybe does not fit a true/false label column;
pass --pos-label true or false" while ``--engine duckdb``, frames, arrays, SQL and the monitor store said
"... is not among the values ... (False, True); pass one of them" (which does not say that ``'TRUE'`` or
``1`` would do), and the store's one-valued batch "pass true or false".
"""

import re
import sqlite3
import warnings

import numpy as np
import pytest

import veracity as vc

from ..monitoring.test_store_pos_label_r32 import store  # noqa: F401  (a fixture: four logged rows)

duckdb = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")

P = [0.9, 0.8, 0.7, 0.2]
Y = [True, True, False, False]
FIX = "(False, True); pass 'true' or 'false' (any case), or 1 or 0"
COLUMN = "the values of column 'y' (labels)"


def _csv(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _bool_csv(tmp_path) -> str:
    return _csv(tmp_path, "b.csv", "p,y\n" + "".join(f"{p},{str(y).lower()}\n" for p, y in zip(P, Y)))


# -- the command line: every command and engine --------------------------------------------------------
@pytest.mark.parametrize("command", [
    ["audit", "--engine", "memory"], ["audit", "--engine", "duckdb"], ["threshold"], ["conformal"],
    ["report", "--no-bootstrap"],
])
@pytest.mark.parametrize("text", ["maybe", "yes", "2"])
def test_cli_commands_and_engines_refuse_in_one_wording(cli, refused, tmp_path, command, text):
    extra = ["--out", str(tmp_path / "r.html")] if command[0] == "report" else []
    result = cli([command[0], _bool_csv(tmp_path), "--score", "p", "--label", "y", "--pos-label", text,
                  *command[1:], *extra])
    refused(result, re.escape(f"input error: --pos-label {text} is not among {COLUMN} {FIX}") + "$")


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_cli_monitor_scan_refuses_in_the_same_words(cli, refused, tmp_path, engine):
    rows = "".join(f"2026-03,{p},{str(y).lower()}\n" for p, y in zip(P, Y))
    path = _csv(tmp_path, "s.csv", "m,p,y\n" + rows)
    result = cli(["monitor", "scan", path, "--period", "m", "--score", "p", "--label", "y",
                  "--pos-label", "maybe", "--engine", engine])
    refused(result, re.escape(f"--pos-label maybe is not among {COLUMN} {FIX}") + "$")


def test_cli_monitor_outcomes_refuse_in_the_same_words(cli, refused, tmp_path):
    store = str(tmp_path / "m.duckdb")
    preds = _csv(tmp_path, "p.csv", "id,ts,p\n" + "".join(f"{i},2026-03-02,{p}\n" for i, p in enumerate(P)))
    outs = _csv(tmp_path, "o.csv", "id,y\n" + "".join(f"{i},{str(y).lower()}\n" for i, y in enumerate(Y)))
    assert cli(["monitor", "log", store, preds, "--id", "id", "--time", "ts", "--score", "p", "-q"]).code == 0
    result = cli(["monitor", "outcomes", store, outs, "--id", "id", "--label", "y", "--pos-label", "maybe"])
    where = f"the values of label column 'y' in {outs}"
    refused(result, re.escape(f"--pos-label maybe is not among {where} {FIX}") + "$")


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("text", ["TRUE", "False", "1", "0"])
def test_cli_the_advised_spellings_are_accepted(cli, tmp_path, engine, text):
    result = cli(["audit", _bool_csv(tmp_path), "--score", "p", "--label", "y", "--pos-label", text,
                  "--engine", engine])
    assert result.code == 0, result.err
    assert "base rate 0.5000" in result.out


# -- Python: arrays, frames, SQL, the monitor store ----------------------------------------------------
def _pandas():
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"p": P, "y": Y})


def _polars(lazy: bool = False):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"p": P, "y": Y})
    return frame.lazy() if lazy else frame


def _relation():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (p DOUBLE, y BOOLEAN)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(P, Y)))
    return con.table("t")


def _sqlite_boolean():
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p DOUBLE, y BOOLEAN)")  # SQLite stores 0 / 1: read as False / True
    con.executemany("INSERT INTO t VALUES (?, ?)", [(p, int(y)) for p, y in zip(P, Y)])
    return con


def _duckdb_table():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (p DOUBLE, y BOOLEAN)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(P, Y)))
    return con


ROUTES = {
    "numpy": (lambda pos: vc.audit(np.array(P), np.array(Y), pos_label=pos), "the label values"),
    "list": (lambda pos: vc.audit(P, Y, pos_label=pos), "the label values"),
    "pandas": (lambda pos: vc.audit(_pandas(), score="p", label="y", pos_label=pos), COLUMN),
    "polars": (lambda pos: vc.audit(_polars(), score="p", label="y", pos_label=pos), COLUMN),
    "polars-lazy": (lambda pos: vc.audit(_polars(lazy=True), score="p", label="y", pos_label=pos), COLUMN),
    "arrow": (lambda pos: vc.audit(pa.table({"p": P, "y": Y}), score="p", label="y", pos_label=pos), COLUMN),
    "duckdb-relation": (lambda pos: vc.audit(_relation(), score="p", label="y", pos_label=pos), COLUMN),
    "sql-sqlite": (lambda pos: vc.audit_sql(_sqlite_boolean(), table="t", score="p", label="y",
                                            pos_label=pos), COLUMN),
    "sql-duckdb": (lambda pos: vc.audit_sql(_duckdb_table(), table="t", score="p", label="y", pos_label=pos),
                   COLUMN),
}


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("pos_label", ["maybe", "yes", 2])
def test_python_routes_refuse_in_one_wording(error_line, route, pos_label):
    call, where = ROUTES[route]
    assert error_line(lambda: call(pos_label)) == f"pos_label={pos_label!r} is not among {where} {FIX}"


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("pos_label", ["TRUE", "false", 1, 0])
def test_python_routes_accept_the_advised_spellings(route, pos_label):
    call, _ = ROUTES[route]
    assert call(pos_label).base_rate == pytest.approx(0.5, abs=1e-12)


def test_store_outcomes_refuse_in_the_same_words(store, error_line):
    outcomes = pa.table({"id": ["a", "b", "c", "d"], "y": Y})
    text = error_line(lambda: store.outcomes(outcomes, id="id", label="y", pos_label="maybe"))
    assert text == f"pos_label='maybe' is not among the values of label column 'y' in <Table> {FIX}"


@pytest.mark.parametrize("value", [True, False])
def test_store_one_valued_batch_gives_the_same_advice(store, error_line, value):
    """A day of one outcome may name the absent one too (every outcome stored as 0): both are advised."""
    outcomes = pa.table({"id": ["a", "b", "c", "d"], "y": [value] * 4})
    text = error_line(lambda: store.outcomes(outcomes, id="id", label="y", pos_label="maybe"))
    assert text == (f"pos_label='maybe' names no label a true/false label column can hold (column 'y' in "
                    f"<Table>, all {value}); pass 'true' or 'false' (any case), or 1 or 0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the value present, or True on a day of False: nothing to warn of
        store.outcomes(outcomes, id="id", label="y", pos_label="TRUE" if value else "1", replace=True)


def test_one_valued_labels_advise_the_value_present_only(error_line):
    """Where one value is present the array and frame routes take only that one: the advice names it alone."""
    arrays = error_line(lambda: vc.audit(np.array(P), np.array([True] * 4), pos_label="maybe"))
    frame = error_line(lambda: vc.audit(pa.table({"p": P, "y": [False] * 4}), score="p", label="y",
                                        pos_label="maybe"))
    assert arrays == "pos_label='maybe' is not among the label values (True); pass 'true' (any case) or 1"
    assert frame == f"pos_label='maybe' is not among {COLUMN} (False); pass 'false' (any case) or 0"

